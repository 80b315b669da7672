"""Predictive check of the kept features' F statistics: a prior-data conflict alarm.

Convergence diagnostics cannot see a posterior that the prior holds in the wrong place. One
such failure is a few very strong markers among thousands of null genes under one exchangeable
normal prior on the class means: conditioning on the omitted genes sends the effect precision
tau_mu up, which shrinks the strong markers to nothing, and the predictive probabilities become
coin flips. The fitted hyperparameters then say that F statistics as large as the observed
ones almost never occur.

The check is a *mixed* predictive check (Marshall and Spiegelhalter 2007): for each posterior
draw of the hyperparameters (tau_mu w_x, and pi0 or the t prior's degrees of freedom where
used), a new feature's parameters are drawn from their prior, not from their posterior, and
its F statistic from its sampling distribution, conditioned on being selected (F > gamma). Per
kept feature j

    ppp_j = mean over draws of P(F >= F_j | hyper) / P(F > gamma | hyper),

computed exactly with the selection factor's own function
(:func:`selbayes.adjustment.fstat_log_omit_prob`, at threshold F_j). Under the model these
p-values are close to uniform; the familiar posterior-predictive p-value of a selected
feature's own replicate is not (it is pulled to 0 by the selection even when the model is
right), which is why it is not used. The fit warns when the smallest p-value, times the number
k of kept features (Bonferroni), is below :data:`FAMILY_LEVEL`. The family is all k kept
features, not only the :data:`MAX_CHECKED` largest that the table lists: the smallest p-value
is always the largest F's, the most extreme of k draws, and a Bonferroni factor of 20 for
k = 2000 kept features raised the false alarms under the model from 1 in 1000 fits to about 1
in 10 (tests/evaluation/test_ppc.py).

References
----------
Marshall, E. C. and Spiegelhalter, D. J. (2007). Identifying outliers in Bayesian hierarchical
models: a simulation-based approach. Bayesian Analysis 2:409-444.
Li, L. (2009). Calibrating predictions based on a selected subset of features from Bayesian
Gaussian classification models (the F statistic's distribution given the hyperparameters).
"""

from __future__ import annotations

import numpy as np

from ._diagnostics import PriorBoundaryWarning

__all__ = ["PriorDataConflictWarning", "f_statistic_check", "f_statistic_survival",
           "conflict_message", "check_fit", "check_inputs", "FAMILY_LEVEL", "MAX_CHECKED",
           "MAX_DRAWS"]

#: Family-wise level of the alarm: warn when k * min_j ppp_j < FAMILY_LEVEL, k the number of
#: kept features (the chance of a false alarm in a fit where the model holds).
FAMILY_LEVEL = 1e-3
#: At most this many kept features (the largest F) are checked.
MAX_CHECKED = 20
#: Posterior draws used (evenly thinned).
MAX_DRAWS = 200


class PriorDataConflictWarning(PriorBoundaryWarning):
    """The fitted model cannot reproduce the kept features' F statistics.

    Emitted by the Gaussian classifier's ``fit`` when the smallest mixed predictive p-value of
    the kept features' F statistics, times their number, is below :data:`FAMILY_LEVEL`
    (:func:`f_statistic_check`); the message names the fix (a heavy-tailed or two-groups
    prior on the class means), and ``plot_ppc()`` draws the check.

    Examples
    --------
    >>> issubclass(PriorDataConflictWarning, UserWarning)
    True
    """


def f_statistic_check(f_observed, log_tau_mu_w_x, class_counts, threshold, alpha_x, *,
                      mu_t_df=None, pi0=None, features=None, max_checked: int = MAX_CHECKED,
                      max_draws: int = MAX_DRAWS):
    """Mixed predictive p-values of the kept features' F statistics (see the module docstring).

    Parameters
    ----------
    f_observed : array_like of shape (k,)
        Observed F statistics of the kept features (all >= ``threshold``).
    log_tau_mu_w_x : array_like of shape (S,)
        Posterior draws of log(tau_mu w_x).
    class_counts : array_like of int, shape (G,)
    threshold : float
        The selection threshold gamma.
    alpha_x : float
        Shape of the prior of tau_x, Gamma(alpha_x / 2, rate alpha_x w_x / 2).
    mu_t_df : float, optional
        Degrees of freedom of a t prior on the class means.
    pi0 : array_like of shape (S,), optional
        Draws of the null share of a two-groups prior.
    features : array_like of shape (k,), optional
        Names of the kept features (default: positions).
    max_checked, max_draws : int
        The ``max_checked`` largest F are checked, on at most ``max_draws`` draws.

    Returns
    -------
    pandas.DataFrame
        One row per checked feature (largest F first): ``feature``, ``observed`` (F),
        ``ppp`` = P(F_new >= F_obs | F_new > gamma, data) and ``p_family`` = min(1, k ppp),
        its Bonferroni adjustment over all k kept features (the alarm is p_family below
        :data:`FAMILY_LEVEL`).

    Examples
    --------
    Under weak effects (large tau_mu w_x) an F of 40 is out of reach, an F of 5 is not:

    >>> import numpy as np
    >>> t = f_statistic_check([40.0, 5.0], np.full(10, np.log(100.0)), [20, 20], 4.0, 4.0)
    >>> bool(t["ppp"][0] < 1e-3 and t["ppp"][1] > 0.1)
    True
    """
    import pandas as pd

    f = np.asarray(f_observed, dtype=np.float64).reshape(-1)
    names = np.arange(f.size) if features is None else np.asarray(features)
    order = np.argsort(-f)[:max_checked]
    ppp = f_statistic_survival(f[order], log_tau_mu_w_x, class_counts, threshold, alpha_x,
                               mu_t_df=mu_t_df, pi0=pi0, max_draws=max_draws)
    return pd.DataFrame({"feature": names[order], "observed": f[order], "ppp": ppp,
                         "p_family": np.minimum(1.0, f.size * ppp)})


def f_statistic_survival(levels, log_tau_mu_w_x, class_counts, threshold, alpha_x, *,
                         mu_t_df=None, pi0=None, max_draws: int = MAX_DRAWS) -> np.ndarray:
    """The mixed predictive survival function of a selected feature's F statistic:
    P(F_new >= level | F_new > gamma, data), averaged over the posterior draws of the
    hyperparameters (see the module docstring).

    Under the model the kept features' F statistics are independent draws from this
    distribution (given the hyperparameters, the features are exchangeable and independent,
    and those kept are the ones above gamma), so the share of kept features with F >= level
    should follow it: what :func:`selbayes.evaluation.f_statistic_plot` draws.

    Parameters
    ----------
    levels : array_like of shape (L,)
        F values (>= 0) at which to evaluate it.
    log_tau_mu_w_x, class_counts, threshold, alpha_x, mu_t_df, pi0
        As in :func:`f_statistic_check`.
    max_draws : int
        At most this many draws are used (evenly thinned).

    Returns
    -------
    ndarray of shape (L,)
        Probabilities in [0, 1], 1 at and below gamma. Accurate to about 1e-12 absolutely
        (that of :func:`selbayes.adjustment.fstat_log_omit_prob`).

    Raises
    ------
    ValueError
        If ``log_tau_mu_w_x`` is empty or has NaN, or ``pi0`` does not match it in size.

    Examples
    --------
    Without class differences (tau_mu w_x -> infinity) it is the central F's conditional
    tail, F(1, 18).sf(level) / F(1, 18).sf(gamma) for two classes of 10:

    >>> import numpy as np
    >>> from scipy import stats
    >>> s = f_statistic_survival([2.0, 6.0], [np.inf], [10, 10], 2.0, 4.0)
    >>> bool(np.allclose(s, [1.0, stats.f.sf(6, 1, 18) / stats.f.sf(2, 1, 18)]))
    True
    """
    from scipy import stats

    from ..adjustment._fstat import fstat_log_omit_prob

    levels = np.asarray(levels, dtype=np.float64).reshape(-1)
    x = np.asarray(log_tau_mu_w_x, dtype=np.float64).reshape(-1)
    if x.size == 0 or np.isnan(x).any():
        raise ValueError("log_tau_mu_w_x must hold at least one posterior draw and no NaN")
    keep = np.linspace(0, x.size - 1, min(x.size, max_draws)).round().astype(int)
    w0 = None
    if pi0 is not None:
        w0 = np.asarray(pi0, dtype=np.float64).reshape(-1)
        if w0.size != x.size:
            raise ValueError(f"pi0 has {w0.size} draws, log_tau_mu_w_x {x.size}: give both "
                             "from the same posterior draws")
        w0 = w0[keep]
    x = x[keep]
    counts = np.asarray(class_counts)
    G, n = counts.size, int(counts.sum())

    def upper(level):
        """P(F > level | hyper) per draw, mixing in the null share if any."""
        p = -np.expm1(fstat_log_omit_prob(x, counts, level, alpha_x, mu_t_df=mu_t_df))
        if w0 is not None:
            p = w0 * stats.f.sf(level, G - 1, n - G) + (1 - w0) * p
        return p

    denom = upper(float(threshold))
    out = np.ones(levels.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i, level in enumerate(levels):
            if level > threshold:
                out[i] = np.mean(np.where(denom > 0, upper(float(level)) / denom, 1.0))
    return np.clip(out, 0.0, 1.0)


def conflict_message(table, *, level: float = FAMILY_LEVEL,
                     prior_name: str = "normal") -> str | None:
    """The warning text when the check fails (``p_family`` below ``level``: the smallest
    p-value times the number of kept features), else None.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`f_statistic_check`.
    level : float
        Family-wise level.
    prior_name : str
        The prior on the class means that was fitted (named in the message).

    Returns
    -------
    str or None

    Raises
    ------
    ValueError
        If ``table`` has no ``p_family`` column (it is not from :func:`f_statistic_check`).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"feature": ["a", "b"], "observed": [30.0, 20.0], "ppp": [0.0, 0.2],
    ...                   "p_family": [0.0, 1.0]})
    >>> conflict_message(t).startswith("the fitted model cannot reproduce")
    True
    """
    if "p_family" not in table:
        raise ValueError("table must come from f_statistic_check: it has no p_family column "
                         "(the p-values adjusted for the number of kept features)")
    m = len(table)
    bad = table[table["p_family"] < level]
    if m == 0 or len(bad) == 0:
        return None
    fix = ("refit with a heavy-tailed prior on the class means, priors={'mu_t_df': 2}, or "
           "the two-groups prior, priors={'pi0_a': 1, 'pi0_b': 1}"
           if prior_name == "normal" else
           "try the two-groups prior, priors={'pi0_a': 1, 'pi0_b': 1}, or check the data "
           "(units, outliers)")
    names = ", ".join(str(v) for v in bad["feature"].tolist()[:5])
    return (f"the fitted model cannot reproduce the kept features' F statistics: "
            f"{len(bad)} of the {m} largest (F {bad['observed'].min():.3g} to "
            f"{bad['observed'].max():.3g}: {names}) are beyond what its fitted "
            f"hyperparameters allow for a selected feature (mixed predictive p, times the "
            f"number of kept features, below {level:g}). The {prior_name} prior on the class "
            f"means cannot hold the omitted null features and these strong ones at once "
            f"(prior-data conflict), so the predictive probabilities are shrunk towards the "
            f"class prior; {fix}. The table is in ppc_checks_; plot_ppc() draws it.")


def check_fit(idata, selection, priors, *, warn: bool = True):
    """:func:`f_statistic_check` of a Gaussian classifier's fit, warning on a conflict.

    Parameters
    ----------
    idata : xarray.DataTree
        The fit's ``idata_`` (``posterior`` with ``tau_mu``, and ``w_x`` / ``pi0`` where the
        priors have them; ``observed_data["f_statistic"]``).
    selection : Selection
        The fit's ``selection_`` (class counts, gamma).
    priors : GaussianPriors
        The priors the fit used.
    warn : bool
        Emit :class:`PriorDataConflictWarning` when :func:`conflict_message` has one.

    Returns
    -------
    pandas.DataFrame or None
        The table of :func:`f_statistic_check` (None when the fit stores no F statistics).

    Raises
    ------
    ValueError
        If ``priors`` set ``mu_t_df_grid`` (df unknown) but the posterior has no
        ``t_df_prob`` (it was not sampled with those priors).

    Examples
    --------
    >>> clf = HierarchicalGaussianClassifier().fit(X, y)                  # doctest: +SKIP
    >>> check_fit(clf.idata_, clf.selection_, clf._fitted_priors())      # doctest: +SKIP
    """
    from ..models._priors import GaussianPriors
    from ._diagnostics import warn_from_user_line

    priors = GaussianPriors.from_dict(priors)       # a dict as the models take it
    inputs = check_inputs(idata, selection, priors)
    if inputs is None:
        return None
    table = f_statistic_check(**inputs)
    name = ("two-groups" if priors.two_groups else
            "t" if priors.t_df_values is not None else "normal")
    msg = conflict_message(table, prior_name=name)
    if warn and msg is not None:
        warn_from_user_line(msg, PriorDataConflictWarning)
    return table


def check_inputs(idata, selection, priors) -> dict | None:
    """The arguments of :func:`f_statistic_check` for a Gaussian classifier's fit: its kept
    features' F statistics and names, the posterior draws of log(tau_mu w_x) (and pi0), the
    class counts, gamma and the priors' alpha_x and t degrees of freedom.

    Parameters
    ----------
    idata : xarray.DataTree
        The fit's ``idata_``.
    selection : Selection
        The fit's ``selection_``.
    priors : GaussianPriors or dict
        The priors the fit used (a dict as :class:`GaussianPriors.from_dict` reads it).

    Returns
    -------
    dict or None
        Keyword arguments of :func:`f_statistic_check` (``f_observed``, ``log_tau_mu_w_x``,
        ``class_counts``, ``threshold``, ``alpha_x``, ``mu_t_df``, ``pi0``, ``features``);
        None when the fit stores no F statistics or no posterior draws.

    Raises
    ------
    ValueError
        If ``priors`` set ``mu_t_df_grid`` (df unknown) but the posterior has no
        ``t_df_prob``.
    TypeError
        If ``idata`` is not a DataTree or ``selection`` not a Selection.

    Examples
    --------
    >>> clf = HierarchicalGaussianClassifier().fit(X, y)                  # doctest: +SKIP
    >>> check_inputs(clf.idata_, clf.selection_, clf._fitted_priors())    # doctest: +SKIP
    """
    import xarray as xr

    from ..filters._selection import Selection
    from ..models._priors import GaussianPriors

    priors = GaussianPriors.from_dict(priors)
    if not isinstance(selection, Selection):
        raise TypeError(f"selection must be the fit's Selection (its selection_); got "
                        f"{type(selection).__name__}")
    if not isinstance(idata, xr.DataTree):
        raise TypeError(f"idata must be the fit's idata_ (an xarray.DataTree); got "
                        f"{type(idata).__name__}")
    obs = idata["observed_data"].to_dataset() if "observed_data" in idata.children else {}
    if "f_statistic" not in obs or "posterior" not in idata.children:
        return None
    post = idata["posterior"]
    log_x = np.log(post["tau_mu"].values.reshape(-1))
    log_x = log_x + (np.log(post["w_x"].values.reshape(-1)) if "w_x" in post
                     else np.log(priors.w_x))
    mu_t_df = priors.mu_t_df
    if priors.mu_t_df_grid is not None:
        # df unknown: the check uses the df of highest posterior probability
        if "t_df_prob" not in post:
            raise ValueError("priors set mu_t_df_grid but the posterior has no t_df_prob: "
                             "pass the priors the posterior was sampled with (an "
                             "estimator's fit with effect_prior='t_auto' samples one df, "
                             "its t_df_)")
        probs = post["t_df_prob"].values.reshape(-1, len(priors.mu_t_df_grid)).mean(0)
        mu_t_df = priors.mu_t_df_grid[int(np.argmax(probs))]
    return dict(f_observed=obs["f_statistic"].values, log_tau_mu_w_x=log_x,
                class_counts=selection.class_counts, threshold=float(selection.threshold),
                alpha_x=priors.alpha_x, mu_t_df=mu_t_df,
                pi0=post["pi0"].values.reshape(-1) if "pi0" in post else None,
                features=obs["f_statistic"]["feature"].values)
