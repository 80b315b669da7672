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
right), which is why it is not used. The fit warns when the smallest p-value of the m checked
features, times m (Bonferroni), is below :data:`FAMILY_LEVEL`.

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

__all__ = ["PriorDataConflictWarning", "f_statistic_check", "conflict_message",
           "check_fit", "FAMILY_LEVEL", "MAX_CHECKED", "MAX_DRAWS"]

#: Family-wise level of the alarm: warn when m * min_j ppp_j < FAMILY_LEVEL.
FAMILY_LEVEL = 1e-3
#: At most this many kept features (the largest F) are checked.
MAX_CHECKED = 20
#: Posterior draws used (evenly thinned).
MAX_DRAWS = 200


class PriorDataConflictWarning(PriorBoundaryWarning):
    """The fitted model cannot reproduce the kept features' F statistics.

    Emitted by the Gaussian classifier's ``fit`` when most kept features have a
    posterior-predictive p-value below :data:`PPP_LEVEL` (:func:`f_statistic_check`); the
    message names the fix (a heavy-tailed or two-groups prior on the class means).

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
        Observed F statistics of the kept features (all > ``threshold``).
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
        One row per checked feature (largest F first): ``feature``, ``observed`` (F) and
        ``ppp`` = P(F_new >= F_obs | F_new > gamma, data).

    Examples
    --------
    Under weak effects (large tau_mu w_x) an F of 40 is out of reach, an F of 5 is not:

    >>> import numpy as np
    >>> t = f_statistic_check([40.0, 5.0], np.full(10, np.log(100.0)), [20, 20], 4.0, 4.0)
    >>> bool(t["ppp"][0] < 1e-3 and t["ppp"][1] > 0.1)
    True
    """
    import pandas as pd
    from scipy import stats

    from ..adjustment._fstat import fstat_log_omit_prob

    f = np.asarray(f_observed, dtype=np.float64).reshape(-1)
    x = np.asarray(log_tau_mu_w_x, dtype=np.float64).reshape(-1)
    names = np.arange(f.size) if features is None else np.asarray(features)
    keep = np.linspace(0, x.size - 1, min(x.size, max_draws)).round().astype(int)
    x = x[keep]
    w0 = None if pi0 is None else np.asarray(pi0, dtype=np.float64).reshape(-1)[keep]
    counts = np.asarray(class_counts)
    G, n = counts.size, int(counts.sum())

    def upper(level):
        """P(F > level | hyper) per draw, mixing in the null share if any."""
        p = -np.expm1(fstat_log_omit_prob(x, counts, level, alpha_x, mu_t_df=mu_t_df))
        if w0 is not None:
            p = w0 * stats.f.sf(level, G - 1, n - G) + (1 - w0) * p
        return p

    order = np.argsort(-f)[:max_checked]
    denom = upper(float(threshold))
    with np.errstate(divide="ignore", invalid="ignore"):
        ppp = [float(np.mean(np.where(denom > 0, upper(float(f[j])) / denom, 1.0)))
               for j in order]
    return pd.DataFrame({"feature": names[order], "observed": f[order],
                         "ppp": np.clip(ppp, 0.0, 1.0)})


def conflict_message(table, *, level: float = FAMILY_LEVEL,
                     prior_name: str = "normal") -> str | None:
    """The warning text when the check fails (m * min ppp < ``level``), else None.

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

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"feature": ["a", "b"], "observed": [30.0, 20.0], "ppp": [0.0, 0.2]})
    >>> conflict_message(t).startswith("the fitted model cannot reproduce")
    True
    """
    m = len(table)
    if m == 0 or m * float(table["ppp"].min()) >= level:
        return None
    bad = table[table["ppp"] * m < level]
    fix = ("refit with a heavy-tailed prior on the class means, priors={'mu_t_df': 2}, or "
           "the two-groups prior, priors={'pi0_a': 1, 'pi0_b': 1}"
           if prior_name == "normal" else
           "try the two-groups prior, priors={'pi0_a': 1, 'pi0_b': 1}, or check the data "
           "(units, outliers)")
    names = ", ".join(str(v) for v in bad["feature"].tolist()[:5])
    return (f"the fitted model cannot reproduce the kept features' F statistics: "
            f"{len(bad)} of the {m} largest (F {bad['observed'].min():.3g} to "
            f"{bad['observed'].max():.3g}: {names}) are beyond what its fitted "
            f"hyperparameters allow for a selected feature (mixed predictive p < {level:g} / "
            f"{m}). The {prior_name} prior on the class means cannot hold the omitted null "
            f"features and these strong ones at once (prior-data conflict), so the predictive "
            f"probabilities are shrunk towards the class prior; {fix}. The table is in "
            f"ppc_checks_.")


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
    >>> check_fit(clf.idata_, clf.selection_, clf._prior_object())       # doctest: +SKIP
    """
    from ._diagnostics import warn_from_user_line

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
    table = f_statistic_check(
        obs["f_statistic"].values, log_x, selection.class_counts, float(selection.threshold),
        priors.alpha_x, mu_t_df=mu_t_df,
        pi0=post["pi0"].values.reshape(-1) if "pi0" in post else None,
        features=obs["f_statistic"]["feature"].values)
    name = ("two-groups" if priors.two_groups else
            "t" if priors.t_df_values is not None else "normal")
    msg = conflict_message(table, prior_name=name)
    if warn and msg is not None:
        warn_from_user_line(msg, PriorDataConflictWarning)
    return table
