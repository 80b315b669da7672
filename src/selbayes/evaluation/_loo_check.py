"""Influential training cases: the Pareto k of PSIS-LOO, run by ``fit``.

Leave-one-out cross-validation by Pareto-smoothed importance sampling (Vehtari, Gelman and
Gabry 2017) reweights the posterior draws by 1 / p(x_i | y_i, theta) to drop case i. When one
case alone moves the posterior far, those weights have a heavy tail, and the fitted shape k of
their generalised Pareto tail is above 0.7: the case is an outlier for the model (a sample
swap, a mislabelled case, a different tissue), or the model is too flexible for it. The
classifier's ``log_likelihood`` group holds log p(x_i | y_i, theta) of the kept features, so
this check names the training cases the fit leans on. On 1000 draws (the posterior is
thinned to that) it costs a few hundredths of a second.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

__all__ = ["InfluentialCaseWarning", "loo_check", "PARETO_K_THRESHOLD"]

#: Fewer posterior draws than this: no check (the tail of the weights cannot be fitted).
MIN_DRAWS = 200

#: Above this Pareto k the importance-sampling estimate for the case is unreliable
#: (Vehtari et al. 2017, section 2.1; 2024, section 3).
PARETO_K_THRESHOLD = 0.7


#: More than this share of the cases flagged: the importance sampling fails for the fit as a
#: whole (many kept features), and the warning says so instead of naming cases.
MOST_CASES = 0.5


class InfluentialCaseWarning(UserWarning):
    """Some training cases alone move the posterior (PSIS-LOO Pareto k above 0.7)."""


def loo_check(idata, *, warn: bool = True, threshold: float = PARETO_K_THRESHOLD,
              max_draws: int = 1000, case_names=None):
    """Pareto k of PSIS-LOO for every training case of a fit, warning on influential ones.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit's ``idata_`` with ``posterior`` and ``log_likelihood`` groups (one variable with
        a ``case`` dimension, shape (chain, draw, case)).
    warn : bool
        Emit :class:`InfluentialCaseWarning` when a case has k above ``threshold``.
    threshold : float
        The Pareto k above which a case counts as influential.
    max_draws : int
        The posterior is thinned to at most this many draws (all chains together) first.
    case_names : sequence, optional
        The training cases' sample ids, in the order of the ``case`` dimension: the warning
        names the cases by them, and the table gains a ``sample`` column.

    Returns
    -------
    pandas.DataFrame or None
        One row per training case: ``case`` (its label in ``log_likelihood``), ``sample``
        (with ``case_names``), ``pareto_k`` and ``influential`` (k > threshold); None when
        the fit stores no log likelihood or has fewer than :data:`MIN_DRAWS` draws.

    Examples
    --------
    >>> clf = HierarchicalGaussianClassifier().fit(X, y)                  # doctest: +SKIP
    >>> clf.loo_checks_.query("influential")                             # doctest: +SKIP
    """
    children = getattr(idata, "children", {})
    if "log_likelihood" not in children or "posterior" not in children:
        return None
    # arviz_stats (where az.loo lives), not the arviz meta-package, which also imports
    # arviz_plots and matplotlib.pyplot (~0.3 s of every first fit) that loo does not use
    import arviz_stats as az
    import xarray as xr

    ll = idata["log_likelihood"].to_dataset()
    n_draws = ll.sizes.get("chain", 1) * ll.sizes.get("draw", 1)
    if n_draws < MIN_DRAWS:
        return None       # too few draws to fit a tail shape (short test or quick fits)
    if n_draws > max_draws:
        # A thinned posterior estimates the tail shape as well for the purpose of flagging a
        # case and keeps the check cheap inside every fit (k is noisier with fewer draws,
        # which the 0.7 threshold allows for down to a few hundred draws).
        step = int(np.ceil(n_draws / max_draws))
        idata = xr.DataTree.from_dict({
            "posterior": idata["posterior"].to_dataset().isel(draw=slice(None, None, step)),
            "log_likelihood": ll.isel(draw=slice(None, None, step))})
    with warnings.catch_warnings():
        # arviz warns on the same k values this function reports, in its own words
        warnings.simplefilter("ignore")
        try:
            # reff = 1: the relative efficiency would need the ESS of every posterior
            # variable (thousands of tau_x at large k, most of the check's time); the
            # thinned draws of NUTS are close to independent, and k is read against 0.7.
            res = az.loo(idata, pointwise=True, reff=1.0)
        except (ValueError, TypeError, KeyError):
            return None   # a diagnostic must never stop a fit that has otherwise succeeded
    k = np.asarray(res.pareto_k, dtype=float).reshape(-1)
    var = next(iter(ll.data_vars))
    dim = [d for d in ll[var].dims if d not in ("chain", "draw")]
    cases = ll[var][dim[0]].values if dim and ll[var][dim[0]].size == k.size \
        else np.arange(k.size)
    table = pd.DataFrame({"case": cases, "pareto_k": k, "influential": k > threshold})
    if case_names is not None and len(case_names) == len(table):
        table.insert(1, "sample", np.asarray(case_names, dtype=object))
    if not warn or not table["influential"].any():
        return table
    from ._diagnostics import warn_from_user_line

    if table["influential"].mean() > MOST_CASES:
        # Not single cases but the fit: with many kept features each case's log likelihood
        # sums hundreds of densities, the draws' weights are all heavy-tailed, and naming
        # cases would send the user after sample swaps that are not there.
        n_bad = int(table["influential"].sum())
        warn_from_user_line(
            f"PSIS-LOO cannot judge single training cases in this fit: {n_bad} "
            f"of {len(table)} have Pareto k above {threshold}. Each case's log likelihood sums "
            "the densities of every kept feature, and with many features importance sampling "
            "fails for all of them; this says nothing about sample swaps or wrong labels "
            "(judge cases by cross-validated probabilities instead; the table is in "
            "loo_checks_).", InfluentialCaseWarning)
    else:
        bad = table[table["influential"]].sort_values("pareto_k", ascending=False)
        label = bad["sample"] if "sample" in bad else bad["case"]
        names = ", ".join(f"{c} (k = {v:.2f})" for c, v in
                          zip(label.head(5), bad["pareto_k"].head(5), strict=True))
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        warn_from_user_line(
            f"{len(bad)} of {len(table)} training cases move the posterior alone "
            f"(PSIS-LOO Pareto k above {threshold}): {names}{more}. Check them for a sample "
            "swap, a wrong label or a different tissue; the table is in loo_checks_.",
            InfluentialCaseWarning)
    return table
