"""Prior-data conflict of the hierarchical Gaussian classifier: posteriors far in their prior's
tail.

A hyperparameter whose posterior median lies far in the tail of its own prior is in conflict
with that prior: either the prior holds it (the data pull further than the prior lets the
posterior go) or the data put it there against the prior. Typically X is in other units than
the priors assume; the sampler explores such a posterior without any divergence, so R-hat and
ESS do not see it. The *prior pull* (:func:`prior_pull`, how far the prior moves the median)
says which of the two it is, and the warning says so; both are warned of, since a prior
built for other values than the data's misfits the model's other parts too
(``reports/prior_pull_check/`` in the repository: warning only where the prior holds the
posterior missed X in thousands of the prior's units). :func:`prior_boundary_checks`
tabulates the check;
:func:`prior_boundary_messages` words it for the classifier's
:class:`~selbayes.evaluation.PriorBoundaryWarning`.

Selection is allowed for: the k kept features are the k best of p by F, and F favours features
with little within-class noise, so a kept feature's noise precision tau_x can legitimately lie
as far in its prior's upper tail as the largest of p draws from that prior. With ``n_features=p``
the upper limit of each tau_x is therefore the 1 - tail quantile of the largest of p prior
draws, not of one draw.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_int, check_real
from ..models._priors import GaussianPriors

__all__ = ["PRIOR_TAIL", "PRIOR_PULL", "PULL_MIN_DRAWS", "prior_boundary_checks",
           "prior_boundary_messages", "prior_pull"]

#: Tail probability of the prior beyond which a posterior median counts as "held" (in conflict)
#: (:func:`prior_boundary_checks`).
PRIOR_TAIL = 1e-3
#: Prior pull (posterior standard deviations) beyond which the warning says the prior holds a
#: component in its tail (:func:`prior_pull`); below it, that the data put it there.
PRIOR_PULL = 1.0
#: Pareto k of the importance weights above which removing the prior is not a small change
#: (Vehtari et al. 2024): the prior pull is then infinite.
_PARETO_K_MAX = 0.7
#: Fewest draws for which :func:`prior_pull` is computed (Pareto smoothing fits the largest
#: min(n / 5, 3 sqrt(n)) weights and needs at least 5 of them).
PULL_MIN_DRAWS = 25

# What each hyperparameter is and what to do when its prior holds it (for the warning): the
# fix, or one per side ("below" the prior's range, "above" it).
_PRIOR_ADVICE = {
    "tau_x": ("the per-feature noise precision",
              "X is probably in other units than the prior assumes (variance about w_x): "
              "standardize=True (the default) or rescaling X puts it in the prior's units; or "
              "set priors w_x to about the within-class variance of the selected features "
              "({data_scale:.3g} here)"),
    "w_x": ("the prior scale of the noise variance (hyperprior)",
            "its Gamma hyperprior cannot reach the data's scale: standardize=True (the "
            "default) or rescaling X puts X in the prior's units; or set priors w_x to about "
            "the within-class variance of the selected features ({data_scale:.3g} here), or "
            "loosen the hyperprior (smaller w_x_alpha)"),
    "tau_mu": ("the precision of the class means around the feature means", {
        "below": "the selected features' class means differ far more than the prior expects "
                 "(a few strong markers): widen its prior (smaller alpha_mu, or w_mu nearer "
                 "the between-class variance), or give the effects heavy tails "
                 "(effect_prior='t_auto', the default, or 't')",
        "above": "the selected features' class means differ far less than the prior expects "
                 "(typical of thousands of genes without class differences): "
                 "effect_prior='two_groups' models those as exactly null (and gives each "
                 "kept gene's probability of being a marker); or widen its prior (smaller "
                 "alpha_mu)"}),
}

_COLUMNS = ["parameter", "variable", "median", "prior_cdf", "prior_low", "prior_high",
            "n_from", "prior_pull", "held"]


def _gamma_prior(name: str, priors: GaussianPriors):
    """(shape, rate) of the Gamma prior of ``name`` (None when it has no fixed Gamma prior)."""
    if name == "tau_mu":
        return priors.alpha_mu / 2, priors.alpha_mu * priors.w_mu / 2
    if name == "tau_x" and priors.w_x_alpha is None:
        return priors.alpha_x / 2, priors.alpha_x * priors.w_x / 2
    if name == "w_x" and priors.w_x_alpha is not None:
        return priors.w_x_alpha / 2, priors.w_x_alpha / (2 * priors.w_x)
    return None


def prior_pull(draws, log_prior) -> np.ndarray:
    """How far a prior moves each component's posterior median, in posterior standard
    deviations.

    The draws are reweighted by 1 / prior density (Pareto-smoothed importance sampling,
    :func:`arviz_stats.base.array_stats.psislw`; Vehtari et al. 2024, JMLR 25:72), which
    removes the prior and leaves the likelihood alone (under a flat prior on the parameter);
    the pull is the distance between the reweighted median and the posterior median, over the
    posterior standard deviation. Infinite where the weights' Pareto k exceeds 0.7 (removing
    the prior changes the posterior too much for the reweighting to say by how much: the prior
    shapes it) or where the draws do not vary; NaN (unknown) with fewer than
    :data:`PULL_MIN_DRAWS` draws, too few for the Pareto smoothing, or where the smoothing
    cannot be fitted (a tail of equal weights).

    Parameters
    ----------
    draws : array-like of shape (m, n_draws)
        Posterior draws of m components (chains flattened), each component a row.
    log_prior : callable
        Log prior density of a draw, elementwise (each row's own prior).

    Returns
    -------
    ndarray of shape (m,)
        The prior pull of each component (>= 0, inf or NaN as above).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> prior = stats.gamma(0.75, scale=1 / 0.0075)       # the default prior of tau_mu
    >>> rng = np.random.default_rng(0)
    >>> pinned = 950 * np.exp(0.03 * rng.standard_normal((1, 2000)))   # narrow, by the data
    >>> truncated = prior.ppf(rng.uniform(prior.cdf(900), 1 - 1e-12, (1, 2000)))
    >>> prior_pull(np.vstack([pinned, truncated]), prior.logpdf).round(1).tolist()
    [0.2, inf]
    """
    from arviz_stats.base import array_stats

    draws = np.atleast_2d(np.asarray(draws, dtype=np.float64))
    out = np.full(draws.shape[0], np.inf)
    sd = draws.std(axis=1)
    varies = sd > 0
    if draws.shape[1] < PULL_MIN_DRAWS:
        out[varies] = np.nan
        return out
    if not varies.any():
        return out
    d = draws[varies]
    # psislw takes log likelihoods and weights by their negatives: 1 / prior density here
    try:
        log_w, khat = array_stats.psislw(log_prior(d), axis=-1)
    except ValueError:              # e.g. a tail of equal weights (repeated draws): unknown
        out[varies] = np.nan
        return out
    log_w = np.asarray(log_w)
    order = np.argsort(d, axis=1)
    w = np.exp(log_w - log_w.max(axis=1, keepdims=True))
    cum = np.cumsum(np.take_along_axis(w, order, axis=1), axis=1)
    at = np.argmax(cum >= 0.5 * cum[:, -1:], axis=1)          # the weighted median's draw
    reweighted = np.take_along_axis(np.take_along_axis(d, order, axis=1), at[:, None],
                                    axis=1)[:, 0]
    pull = np.abs(reweighted - np.median(d, axis=1)) / sd[varies]
    out[varies] = np.where(np.asarray(khat) > _PARETO_K_MAX, np.inf, pull)
    return out


def prior_boundary_checks(posterior, priors=None, tail: float = PRIOR_TAIL,
                          n_features: int | None = None):
    """Hyperparameters whose posterior median lies far in the tail of their own prior.

    A posterior median beyond the prior's ``tail`` or ``1 - tail`` quantile is a prior-data
    conflict: the prior holds the value there (a prior pull, :func:`prior_pull`, above
    :data:`PRIOR_PULL`) or the data put it there against the prior (a small pull). Checked:
    ``tau_mu``, ``tau_x`` (per feature; when ``w_x`` is fixed) and ``w_x`` (when it has a
    hyperprior), each against its Gamma prior (Li 2009, eqs 4-11). ``tau_nu`` is not
    checked: standardised (centred) features have a flat prior on their means and no tau_nu
    (:func:`selbayes.models.for_centred_features`), and on features as given it describes
    their levels, which do not enter the class predictions beyond a shared offset.

    Parameters
    ----------
    posterior : xarray.Dataset or xarray.DataTree
        Draws with ``chain`` and ``draw`` dimensions (a fit's ``idata_`` or its posterior).
    priors : GaussianPriors or dict, optional
    tail : float, default :data:`PRIOR_TAIL`
        Prior tail probability that counts as "far".
    n_features : int, optional
        p, the number of features the checked ones were selected from by F. The upper limit
        of each ``tau_x`` is then the ``1 - tail`` quantile of the largest of p draws from its
        prior, ``F^-1((1 - tail)^(1/p))``: selection by F keeps the least noisy features, so
        the kept ones may lie that far out (the lower limit is unchanged: selection does not
        favour noisy features). None: the prior's own quantile (p = 1).

    Returns
    -------
    pandas.DataFrame
        One row per checked component: ``parameter``, ``variable``, ``median`` (posterior),
        ``prior_cdf`` (prior CDF at that median), ``prior_low`` and ``prior_high`` (the limits
        above), ``n_from`` (the p of the upper limit; 1 for the prior's own quantile),
        ``prior_pull`` (:func:`prior_pull`; computed for the components outside the limits
        only, NaN for the others) and ``held`` (True when outside the limits).

    Raises
    ------
    ValueError
        If ``n_features`` is given and not a positive integer, or ``tail`` is not in
        (0, 0.5).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> post = xr.Dataset({"tau_mu": (("chain", "draw"), np.full((1, 4), 2.0)),
    ...                    "tau_x": (("chain", "draw", "feature"), np.full((1, 4, 2), 1e-4))})
    >>> prior_boundary_checks(post)["held"].tolist()
    [False, True, True]
    >>> big = post.assign(tau_x=post["tau_x"] * 0 + 6.0)    # prior 99.9% quantile: 4.6
    >>> prior_boundary_checks(big)["held"].tolist()
    [False, True, True]
    >>> prior_boundary_checks(big, n_features=4000)["held"].tolist()   # the best 2 of 4000
    [False, False, False]
    """
    import pandas as pd
    import xarray as xr
    from scipy import stats

    priors = GaussianPriors.from_dict(priors)
    if isinstance(posterior, xr.DataTree):
        # a fit's idata_, or its posterior node (idata_["posterior"], a DataTree too)
        node = posterior["posterior"] if "posterior" in posterior.children else posterior
        posterior = node.to_dataset()
    if n_features is not None:
        n_features = check_int(n_features, name="n_features", low=1,
                               what="the features the checked ones were selected from")
    tail = check_real(tail, name="tail", low=0.0, high=0.5, closed="neither")
    rows = []
    for name in ("tau_mu", "w_x", "tau_x"):
        ab = _gamma_prior(name, priors)
        if ab is None or name not in posterior:
            continue
        da = posterior[name]
        med = da.median(("chain", "draw")).values.reshape(-1)
        labels = ([name] if da.ndim == 2 else
                  [f"{name}[{c}]" for c in da[da.dims[-1]].values.tolist()])
        dist = stats.gamma(ab[0], scale=1.0 / ab[1])
        n_from = int(n_features) if (name == "tau_x" and n_features is not None) else 1
        lo = dist.ppf(tail)
        # 1 - (1 - tail)^(1/p), accurately for small tail / large p: the upper tail
        # probability of the largest of p draws at the limit is then tail.
        hi = dist.isf(-np.expm1(np.log1p(-tail) / n_from)) if n_from > 1 else dist.ppf(1 - tail)
        cdf = dist.cdf(med)
        outside = (med < lo) | (med > hi)
        pull = np.full(med.shape, np.nan)
        if outside.any():                       # (m, draws): each component's own draws
            draws = da.values.reshape(-1, med.size).T
            pull[outside] = prior_pull(draws[outside], dist.logpdf)
        rows.append(pd.DataFrame({"parameter": labels, "variable": name, "median": med,
                                  "prior_cdf": cdf, "prior_low": lo, "prior_high": hi,
                                  "n_from": n_from, "prior_pull": pull, "held": outside}))
    if not rows:
        return pd.DataFrame(columns=_COLUMNS)
    return pd.concat(rows, ignore_index=True)


def prior_boundary_messages(table, data_scale: float, tail: float = PRIOR_TAIL) -> list[str]:
    """One sentence per held variable: the parameter, its value, the prior's range, whether
    the prior or the data put it there (its ``prior_pull``), the fix.

    Parameters
    ----------
    table : pandas.DataFrame
        The result of :func:`prior_boundary_checks`.
    data_scale : float
        The within-class variance of the features the model saw (in its units), quoted in the
        advice.
    tail : float, default :data:`PRIOR_TAIL`
        The ``tail`` the table was computed with (for the quantiles named).

    Returns
    -------
    list of str

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> post = xr.Dataset({"tau_x": (("chain", "draw", "feature"), np.full((1, 4, 2), 1e-4))})
    >>> prior_boundary_messages(prior_boundary_checks(post), 1e4)[0][:60]
    'tau_x[0] (the per-feature noise precision) has posterior med'
    """
    out = []
    for name, sub in table[table["held"]].groupby("variable", sort=False):
        total = int((table["variable"] == name).sum())
        worst = sub.iloc[int(np.argmax(np.abs(np.log(sub["median"] / np.sqrt(
            sub["prior_low"] * sub["prior_high"])))))]
        what, fix = _PRIOR_ADVICE[name]
        side = "below" if worst["median"] < worst["prior_low"] else "above"
        fix = (fix[side] if isinstance(fix, dict) else fix).format(data_scale=data_scale)
        edge = worst["prior_low"] if side == "below" else worst["prior_high"]
        q = f"{100 * tail:g}%" if side == "below" else f"{100 * (1 - tail):g}%"
        n_from = int(worst.get("n_from", 1))
        ref = (f"the {q} quantile {edge:.3g} of the largest of {n_from} draws from its prior "
               f"(the selection by F kept the least noisy of {n_from} features)"
               if side == "above" and n_from > 1 else f"its prior's {q} quantile {edge:.3g}")
        count = f" ({len(sub)} of {total} features)" if total > 1 else ""
        pull = float(worst.get("prior_pull", np.nan))
        who = ("the data put it there against the prior (a prior-data conflict; without the "
               f"prior its median would move by only {pull:.2g} posterior standard deviations)"
               if pull <= PRIOR_PULL else
               "the prior holds it there, the data pulling further (a prior-data conflict)")
        out.append(
            f"{worst['parameter']} ({what}) has posterior median {worst['median']:.3g}, "
            f"{side} {ref}{count}: {who}. {fix[0].upper()}{fix[1:]}.")
    return out
