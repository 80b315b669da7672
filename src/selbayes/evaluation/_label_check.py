"""Training cases whose label their own held-out prediction calls implausible (run by ``fit``).

A sample swap or a wrong label shows as a training case that the model, fitted without it,
gives almost no probability of the class it is labelled with. The Gaussian classifier's
inner cross-validation (which chooses k) already predicts every training case from folds
that do not contain it, with the feature selection redone inside each fold, so the check
costs nothing extra.

Why a case is flagged, and how often by chance: if the held-out predictive is calibrated
(P(Y = c | p) = p_c), the probability it gives the true class is at most ``a`` with
probability at most (G - 1) a, for any a < 1 / G:
P(p_Y <= a) = E[sum_c p_c 1{p_c <= a}] <= (G - 1) a. So (G - 1) p_own is a p-value for
"this label is right", and flagging at (G - 1) p_own < alpha / n (Bonferroni over the n
cases) raises a false alarm in at most a share alpha of calibrated fits, whatever n is. The
probabilities used are the model's without its label-noise share: that share bounds every
probability below (by c / ((n + 2) G)), which would hide exactly the cases looked for.

This replaces, as the warning of ``fit``, the Pareto k of PSIS-LOO on the kept genes'
likelihood (:func:`selbayes.evaluation._loo_check.loo_check`, still in the table): each
case's likelihood sums the densities of every kept gene, so k is above 0.7 for some or all
cases in almost every fit of real expression data (54 of the 55 development-set fits of
``reports/benchmark_microarray_gated_l1_2026-12-03/``), which says nothing about labels. On
80 fits with clean labels of the plasmode suite this check flagged a case in one
(``reports/label_check/``).

References
----------
Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical Bayesian model evaluation using
leave-one-out cross-validation and WAIC. Statistics and Computing 27:1413-1432 (the Pareto k).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["SuspectLabelWarning", "held_out_label_check", "LABEL_CHECK_ALPHA"]

#: The share of fits of a calibrated model in which the check may raise a false alarm.
LABEL_CHECK_ALPHA = 0.05


class SuspectLabelWarning(UserWarning):
    """A training case's held-out prediction gives its label almost no probability."""


def held_out_label_check(log_proba, y_index, *, alpha: float = LABEL_CHECK_ALPHA,
                         case_names=None, case_numbers=None, warn: bool = True,
                         source: str = ""):
    """Flag training cases whose held-out probability of their own label is implausibly low.

    Parameters
    ----------
    log_proba : array-like of shape (n, G)
        Held-out log probabilities (nats) of every class for every training case, each case
        predicted by a fit that did not see it (inner cross-validation), G >= 2.
    y_index : array-like of int, shape (n,)
        Each case's class index, 0..G-1.
    alpha : float
        The largest share of calibrated fits with a false alarm, in (0, 1).
    case_names : sequence, optional
        The cases' sample ids: the warning names them, and the table gains ``sample``.
    case_numbers : sequence of int, optional
        The cases' numbers in ``case`` (default 0..n-1), for cases that are some of a fit's
        training cases: the warning names a case without a sample id by its number.
    warn : bool
        Emit :class:`SuspectLabelWarning` when a case is flagged.
    source : str
        Where the probabilities come from, for the warning's text.

    Returns
    -------
    pandas.DataFrame
        One row per case: ``case`` (0..n-1, or ``case_numbers``), ``sample`` (with
        ``case_names``),
        ``held_out_proba`` (the probability of its own label), ``label_p_value``
        (min(1, (G - 1) held_out_proba): a valid p-value where it is below (G - 1) / G, which
        covers every bar alpha / n the check uses) and ``suspect_label`` (p-value below
        alpha / n).

    Raises
    ------
    ValueError
        If the shapes disagree, a class index is out of range, a log probability is NaN or
        positive beyond rounding, or alpha is not in (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> lp = np.log([[0.9, 0.1], [0.8, 0.2], [1e-9, 1 - 1e-9]])
    >>> t = held_out_label_check(lp, [0, 0, 0], warn=False)
    >>> t["suspect_label"].tolist()
    [False, False, True]
    """
    lp = np.asarray(log_proba, dtype=np.float64)
    y = np.asarray(y_index)
    if lp.ndim != 2 or lp.shape[1] < 2 or y.shape != (lp.shape[0],):
        raise ValueError(f"log_proba must have shape (n, G >= 2) and y_index shape (n,); got "
                         f"{lp.shape} and {y.shape}")
    if not np.issubdtype(y.dtype, np.integer) or y.min(initial=0) < 0 \
            or y.max(initial=0) >= lp.shape[1]:
        raise ValueError(f"y_index must hold class indices 0..{lp.shape[1] - 1}")
    if np.isnan(lp).any() or (lp > 1e-9).any():
        raise ValueError("log_proba must hold log probabilities (finite or -inf, at most 0)")
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must lie in (0, 1); got {alpha}")
    n, G = lp.shape
    own = np.exp(np.minimum(lp[np.arange(n), y], 0.0))
    p_value = np.minimum(1.0, (G - 1) * own)
    numbers = np.arange(n) if case_numbers is None else np.asarray(case_numbers)
    if numbers.shape != (n,):
        raise ValueError(f"case_numbers must have shape ({n},); got {numbers.shape}")
    table = pd.DataFrame({"case": numbers, "held_out_proba": own,
                          "label_p_value": p_value, "suspect_label": p_value < alpha / n})
    if case_names is not None and len(case_names) == n:
        table.insert(1, "sample", np.asarray(case_names, dtype=object))
    if warn and table["suspect_label"].any():
        from ._diagnostics import warn_from_user_line

        warn_from_user_line(label_message(table, alpha, source), SuspectLabelWarning)
    return table


def flagged_cases(table: pd.DataFrame, limit: int = 5, with_p: bool = True) -> str:
    """The flagged rows of a :func:`held_out_label_check` table as text, least probable
    first: at most ``limit`` sample ids (case numbers without them), each with its held-out
    probability when ``with_p``, then how many more; "" when none is flagged."""
    bad = table[table["suspect_label"]].sort_values("held_out_proba")
    label = bad["sample"] if "sample" in bad else bad["case"]
    names = ", ".join(f"{c} (p = {p:.1e})" if with_p else str(c) for c, p in
                      zip(label.head(limit), bad["held_out_proba"].head(limit), strict=True))
    return names + (f" and {len(bad) - limit} more" if len(bad) > limit else "")


def label_message(table: pd.DataFrame, alpha: float = LABEL_CHECK_ALPHA,
                  source: str = "") -> str:
    """The warning's text for the flagged rows of a :func:`held_out_label_check` table."""
    where = f" ({source})" if source else ""
    return (f"{int(table['suspect_label'].sum())} of {len(table)} training cases have a label "
            f"that the model, fitted without them{where}, finds implausible: "
            f"{flagged_cases(table)} (p: the held-out probability of "
            f"the case's own class). A calibrated model gives any such warning in at most "
            f"{alpha:.0%} of fits. Check these cases for a sample swap, a wrong label or a "
            "different tissue; the table is in loo_checks_ (estimator_.loo_checks_ of a "
            "LinearStackedClassifier).")
