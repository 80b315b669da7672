"""Calibration of predictive probabilities, measured the way the papers measure it.

A predictive distribution is *calibrated* when, among the cases given probability ``p`` of an
event, a fraction ``p`` have it. Selecting features by their sample association with the class makes
an uncorrected Bayesian classifier overconfident; these measures show it (Li 2009 section 3.4,
eqs 35-39 and Table 1; Li 2007 section 2.3.5).

Conventions used throughout
---------------------------
* ``proba`` has shape ``(n, G)``: row ``i`` is the predictive distribution of case ``i`` and its
  columns follow the sorted class labels (an estimator's ``classes_``).
* ``y`` holds either the labels themselves (pass ``classes=`` to map them to columns) or column
  indices ``0..G-1``.
* ``loss[i, j]`` is the loss incurred when the truth is class ``i`` and the guess is class ``j``
  (the paper's ``L(i -> j)``); a stack of matrices has shape ``(m, G, G)``.

Functions
---------
reliability_table
    Binned predicted probability against observed frequency, with binomial standard errors.
flag_miscalibrated_bins
    Marks bins whose observed fraction is more than ``z`` standard errors from the prediction.
calibration_summary
    Error rate, expected error rate, AMLP, Brier score and ECE in one dict.
error_gap_test
    Whether expected minus actual error is further from 0 than a calibrated predictor's is
    by chance (exact, Poisson-binomial).
bayes_decision, expected_vs_actual_loss, random_loss_matrices
    Decisions under a general loss, and the expected-vs-actual loss check (Li 2009 eq 35-38).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import (
    check_int,
    check_positive,
    check_positive_int,
    check_random_state,
    labels_1d,
)

__all__ = [
    "check_loss",
    "reliability_table",
    "flag_miscalibrated_bins",
    "calibration_summary",
    "error_gap_test",
    "bayes_decision",
    "expected_vs_actual_loss",
    "random_loss_matrices",
    "check_proba",
    "encode_outcome",
    "case_losses",
]

#: Tolerance on ``|sum_g proba[i, g] - 1|`` for a row to count as a probability distribution.
ROW_SUM_ATOL = 1e-6
#: A case whose loss -log p(true class) exceeds this many nats counts as a confident mistake in
#: ``n_cases_over_5_nats`` (probability below exp(-5) = 0.0067 for the true class).
LARGE_LOSS_NATS = 5.0


# ---------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------
def check_proba(proba, *, name: str = "proba", atol: float = ROW_SUM_ATOL) -> np.ndarray:
    """Return ``proba`` as a float64 array of shape ``(n, G)`` whose rows are distributions.

    Parameters
    ----------
    proba : array-like of shape (n, G)
        Predictive distributions, one row per case (a DataFrame is accepted).
    name : str, default "proba"
        The argument name used in error messages.
    atol : float, default ``ROW_SUM_ATOL`` (1e-6)
        Tolerance on ``|sum_g proba[i, g] - 1|``.

    Returns
    -------
    ndarray of float64, shape (n, G)

    Raises
    ------
    TypeError
        If ``proba`` is not numeric, or ``atol`` is not a number.
    ValueError
        Naming ``name``, unless the array is 2-D with at least one row and ``G >= 2`` columns,
        finite, inside ``[0, 1]`` and every row sums to 1 within ``atol``; or if ``atol`` is
        negative or not finite.

    Examples
    --------
    >>> check_proba([[0.25, 0.75], [1.0, 0.0]])
    array([[0.25, 0.75],
           [1.  , 0.  ]])
    >>> check_proba([[0.5, 0.6]])
    Traceback (most recent call last):
    ...
    ValueError: every row of proba must sum to 1 (tolerance 1e-06); row 0 sums to 1.1
    """
    atol = check_positive(atol, name="atol", strict=False)
    arr = _float_array(proba, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_cases, n_classes); got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if arr.shape[1] < 2:
        raise ValueError(f"{name} needs at least 2 class columns; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    if arr.min() < 0 or arr.max() > 1:
        raise ValueError(
            f"{name} must lie in [0, 1]; found values in [{arr.min():.4g}, {arr.max():.4g}]"
        )
    dev = np.abs(arr.sum(axis=1) - 1.0)
    if dev.max() > atol:
        i = int(np.argmax(dev))
        raise ValueError(
            f"every row of {name} must sum to 1 (tolerance {atol:g}); row {i} sums to "
            f"{arr[i].sum():.8g}"
        )
    return arr


def _float_array(x, name: str) -> np.ndarray:
    """``x`` (array-like or pandas object) as a float64 array, or a TypeError naming it."""
    if hasattr(x, "to_numpy"):
        x = x.to_numpy()
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array; {exc}") from exc


def _check_prob_vector(prob, *, name: str = "prob") -> np.ndarray:
    arr = _float_array(prob, name)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one probability per case); got shape {arr.shape}. For an "
            "(n, G) matrix pass one column, e.g. proba[:, 1]"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    if arr.min() < 0 or arr.max() > 1:
        raise ValueError(
            f"{name} must lie in [0, 1]; found values in [{arr.min():.4g}, {arr.max():.4g}]"
        )
    return arr


def encode_outcome(y, n_classes: int, classes=None, *, name: str = "y") -> np.ndarray:
    """Map ``y`` to integer column indices ``0..n_classes-1``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels (when ``classes`` is given) or column indices.
    n_classes : int
        Number of columns ``G`` of the probability matrix.
    classes : array-like of shape (G,), optional
        The labels of the columns, in column order. Without it ``y`` must hold integer indices.

    name : str, default "y"
        The argument name used in error messages.

    Returns
    -------
    ndarray of int64, shape (n,)
        Column index of each case.

    Raises
    ------
    ValueError
        If ``y`` is not 1-D, holds labels not in ``classes`` (or that cannot be compared with
        them), non-integer floats, or indices outside ``0..n_classes-1``; ``classes`` does
        not have ``n_classes`` distinct entries; or ``n_classes`` is not an integer >= 2.
    TypeError
        If ``y`` holds non-integer labels and ``classes`` is not given.

    Examples
    --------
    >>> encode_outcome(["b", "a", "b"], 2, classes=["a", "b"])
    array([1, 0, 1])
    >>> encode_outcome([0, 2, 1], 3)
    array([0, 2, 1])
    """
    n_classes = check_int(n_classes, name="n_classes", low=2,
                          what="the number of probability columns")
    y = labels_1d(y, name)
    if classes is not None:
        classes = np.asarray(classes)
        if classes.ndim != 1 or classes.shape[0] != n_classes:
            raise ValueError(
                f"classes must be 1-D with one label per column ({n_classes}); got shape "
                f"{classes.shape}"
            )
        try:
            order = np.argsort(classes, kind="stable")
            pos = np.searchsorted(classes[order], y)
        except TypeError:      # e.g. None among integer labels: numpy cannot order them
            raise ValueError(f"{name} holds labels that cannot be compared with classes "
                             f"{classes.tolist()} (mixed types, or missing labels such as "
                             f"None); give {name} the classes' own labels") from None
        if np.unique(classes).size != classes.size:
            raise ValueError(f"classes has repeated labels: {classes.tolist()}")
        pos = np.clip(pos, 0, n_classes - 1)
        idx = order[pos]
        unknown = classes[idx] != y
        if unknown.any():
            bad = np.unique(y[unknown])[:5]
            raise ValueError(f"{name} contains labels not in classes: {bad.tolist()}")
        return idx.astype(np.int64)
    if y.dtype.kind == "b":
        y = y.astype(np.int64)
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or not np.all(y == np.round(y)):
            raise ValueError(
                f"{name} must hold integer column indices (or pass classes= to map labels)"
            )
        y = y.astype(np.int64)
    if y.dtype.kind not in "iu":
        raise TypeError(
            f"{name} holds labels of dtype {y.dtype}; pass classes= (the column labels, e.g. the "
            "estimator's classes_) to map them to columns"
        )
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(
            f"{name} must hold column indices in 0..{n_classes - 1}; found values in "
            f"[{y.min()}, {y.max()}] (pass classes= if these are labels)"
        )
    return y.astype(np.int64)


def _proba_and_y(proba, y, classes):
    if classes is None and isinstance(proba, pd.DataFrame):
        # predict_proba's frame names its columns by class: y holds labels, not positions
        # (labels 1 and 2 read as positions put every case one class off, or out of range)
        classes = proba.columns.to_numpy()
    p = check_proba(proba)
    yi = encode_outcome(y, p.shape[1], classes)
    if yi.shape[0] != p.shape[0]:
        raise ValueError(
            f"y has {yi.shape[0]} entries but proba has {p.shape[0]} rows; they must match"
        )
    return p, yi


def check_loss(loss, n_classes: int, *, stacked: bool = False) -> np.ndarray:
    """A loss matrix as float64, or a ``ValueError`` naming what is wrong with it.

    ``loss[i, j]`` is the loss when the truth is class i and the guess is class j; it must be
    finite and non-negative.

    Parameters
    ----------
    loss : array-like of shape (G, G), or (m, G, G) when ``stacked``
    n_classes : int
        G.
    stacked : bool, default False
        Also accept a stack of m loss matrices.

    Returns
    -------
    ndarray of float64
        ``loss`` as an array.

    Raises
    ------
    ValueError
        If ``loss`` is not numeric, has the wrong shape, holds non-finite or negative
        entries, or has every row constant (no decision costs less than another); or
        ``n_classes`` is not an integer >= 2.

    Examples
    --------
    >>> check_loss([[0, 1], [5, 0]], 2).tolist()
    [[0.0, 1.0], [5.0, 0.0]]
    """
    G = check_int(n_classes, name="n_classes", low=2, what="the number of classes, G")
    try:
        arr = np.asarray(loss, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"loss must be a numeric (G, G) matrix; got {loss!r}") from exc
    if stacked:
        if arr.ndim not in (2, 3) or arr.shape[-2:] != (G, G):
            raise ValueError(f"loss must have shape (G, G) or (m, G, G) with G = {G} (the "
                             f"number of proba columns); got {arr.shape}")
    elif arr.shape != (G, G):
        raise ValueError(f"loss must have shape ({G}, {G}) (one row and one column per "
                         f"class); got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError("loss must be finite; it holds NaN or infinite entries")
    if (arr < 0).any():
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        where = ", ".join(map(str, idx))
        raise ValueError(f"loss must be non-negative; loss[{where}] = {arr[idx]}")
    if G > 1 and (arr == arr[..., :1]).all():
        # every row constant: no guess costs less than another, so the Bayes decision is an
        # arbitrary tie-break and the expected loss says nothing about the predictions
        raise ValueError("loss must let the decision matter: every row of loss is constant (each "
                         "guess costs the same whatever the truth); loss[i, j] is the loss for "
                         "truth i and guess j, e.g. 0 on the diagonal and 1 elsewhere")
    return arr


# ---------------------------------------------------------------------------------------------
# reliability table
# ---------------------------------------------------------------------------------------------
def _bin_index(p: np.ndarray, n_bins: int) -> np.ndarray:
    # Edges c / n_bins are the correctly rounded floats, so e.g. 0.3 falls in bin 3 as "first
    # decimal" demands (floor(10 * 0.3) could land either side through rounding).
    edges = np.arange(n_bins + 1) / n_bins
    return np.clip(np.searchsorted(edges, p, side="right") - 1, 0, n_bins - 1)


def reliability_table(prob, outcome, n_bins: int = 10) -> pd.DataFrame:
    """Reliability (calibration) table of a predicted event probability, as in the papers.

    Case ``i`` goes to bin ``C = floor(n_bins * prob[i])`` (the "first decimal" for 10 bins), so
    ``C0 = [0, 0.1), ..., C8 = [0.8, 0.9)`` and the last bin is closed, ``C9 = [0.9, 1.0]``.

    Parameters
    ----------
    prob : array-like of shape (n,)
        Predicted probability of the event for each case, e.g. ``proba[:, 0]`` for class 1.
    outcome : array-like of shape (n,)
        1/True where the event happened, 0/False otherwise.
    n_bins : int, default 10
        Number of equal-width bins on [0, 1].

    Returns
    -------
    pandas.DataFrame
        One row per bin (empty bins included), columns

        * ``bin`` -- bin number ``C`` (0-based);
        * ``count`` -- number of cases (the papers' "#");
        * ``mean_predicted`` -- mean of ``prob`` in the bin ("Pred"); NaN when empty;
        * ``observed_fraction`` -- fraction of cases with the event ("Actual"); NaN when empty;
        * ``se`` -- binomial standard error of ``observed_fraction`` under calibration,
          ``sqrt(m (1 - m) / count)`` with ``m = mean_predicted``. Taking ``m`` from the
          predictions (not the observed fraction) makes it the standard error under the null
          hypothesis of calibration; it is slightly conservative, since the exact variance of a
          sum of Bernoulli(p_i) is ``sum p_i (1 - p_i) <= count m (1 - m)``; NaN when empty.

    Raises
    ------
    TypeError
        If ``prob`` or ``outcome`` is not numeric.
    ValueError
        If they are not 1-D of equal length, ``prob`` is outside [0, 1] or non-finite,
        ``outcome`` is not 0/1, or ``n_bins`` is not a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> t = reliability_table([0.05, 0.15, 0.18, 0.95], [0, 0, 1, 1])
    >>> t.loc[t["count"] > 0, ["bin", "count", "mean_predicted", "observed_fraction"]]
       bin  count  mean_predicted  observed_fraction
    0    0      1           0.050                0.0
    1    1      2           0.165                0.5
    9    9      1           0.950                1.0
    """
    p = _check_prob_vector(prob, name="prob")
    o = _check_prob_vector(outcome, name="outcome")
    if o.shape != p.shape:
        raise ValueError(
            f"outcome has {o.shape[0]} entries but prob has {p.shape[0]}; they must match"
        )
    if not np.all((o == 0) | (o == 1)):
        raise ValueError("outcome must be binary (0/1 or bool)")
    n_bins = check_positive_int(n_bins, name="n_bins")
    b = _bin_index(p, n_bins)
    count = np.bincount(b, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_pred = np.bincount(b, weights=p, minlength=n_bins) / count
        observed = np.bincount(b, weights=o, minlength=n_bins) / count
        se = np.sqrt(mean_pred * (1.0 - mean_pred) / count)
    return pd.DataFrame(
        {
            "bin": np.arange(n_bins),
            "count": count.astype(np.int64),
            "mean_predicted": mean_pred,
            "observed_fraction": observed,
            "se": se,
        }
    )


def flag_miscalibrated_bins(table: pd.DataFrame, z: float = 3.0, min_count: int = 10
                            ) -> pd.DataFrame:
    """Mark the bins of a reliability table whose observed fraction disagrees with prediction.

    A bin is flagged when it holds at least ``min_count`` cases and
    ``|observed_fraction - mean_predicted| > z * se``. With the default ``z = 3`` a calibrated
    predictor has each bin flagged with probability about 0.003 (normal approximation), about
    0.03 for a whole 10-bin table.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`reliability_table`.
    z : float, default 3.0
        Number of standard errors allowed.
    min_count : int, default 10
        Bins with fewer cases are never flagged (the normal approximation fails there).

    Returns
    -------
    pandas.DataFrame
        A copy of ``table`` with columns added: ``z`` (signed standardised difference,
        ``(observed - predicted) / se``), ``flagged`` (bool) and ``direction``:
        ``"overconfident"`` when the observed fraction lies from the prediction toward 1/2
        (the prediction too extreme; also when it lies beyond 1/2, on the other side: 0.6
        predicted, 0.1 observed), ``"underconfident"`` when it lies away from 1/2 on the
        prediction's side, ``""`` where the bin is not flagged.

    Raises
    ------
    TypeError
        If ``z`` is not a number.
    ValueError
        If ``table`` lacks the columns of :func:`reliability_table`, ``z`` is not a
        positive finite number, or ``min_count`` is not an integer >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.full(100, 0.95)                    # predicted 95%, observed 60%: overconfident
    >>> o = np.r_[np.ones(60), np.zeros(40)]
    >>> t = flag_miscalibrated_bins(reliability_table(p, o))
    >>> t.loc[t["flagged"], ["bin", "count", "direction"]]
       bin  count      direction
    9    9    100  overconfident
    """
    required = {"count", "mean_predicted", "observed_fraction", "se"}
    if not isinstance(table, pd.DataFrame) or not required <= set(table.columns):
        raise ValueError(
            f"table must be a DataFrame from reliability_table with columns {sorted(required)}"
        )
    z = check_positive(z, name="z")
    min_count = check_int(min_count, name="min_count", low=0)
    out = table.copy()
    diff = out["observed_fraction"] - out["mean_predicted"]
    with np.errstate(invalid="ignore", divide="ignore"):
        zz = diff / out["se"]
    # se = 0 only when every prediction in the bin is exactly 0 or 1: any disagreement is infinite
    zz = zz.where(~((out["se"] == 0) & (diff == 0)), 0.0)
    out["z"] = zz
    flagged = (out["count"] >= min_count) & (zz.abs() > z)
    out["flagged"] = flagged.fillna(False).astype(bool)
    toward_half = np.sign(diff) == -np.sign(out["mean_predicted"] - 0.5)
    direction = np.where(toward_half, "overconfident", "underconfident")
    out["direction"] = np.where(out["flagged"], direction, "")
    return out


# ---------------------------------------------------------------------------------------------
# summary metrics
# ---------------------------------------------------------------------------------------------
def case_losses(proba, y, classes=None) -> np.ndarray:
    """Per-case log loss ``-log proba[i, y_i]`` in nats, never floored.

    Parameters
    ----------
    proba : array-like of shape (n, G)
    y : array-like of shape (n,)
        True labels (with ``classes``) or column indices.
    classes : array-like of shape (G,), optional
        Column labels, to map label-valued ``y`` to columns; by default the columns of a
        DataFrame ``proba`` (columns named by class), else ``y`` holds column indices.

    Returns
    -------
    ndarray of float64, shape (n,)
        ``inf`` where the true class got probability exactly 0.

    Examples
    --------
    >>> case_losses([[1.0, 0.0], [0.5, 0.5]], [1, 0]).tolist()
    [inf, 0.6931471805599453]
    """
    p, yi = _proba_and_y(proba, y, classes)
    with np.errstate(divide="ignore"):
        return -np.log(p[np.arange(p.shape[0]), yi])


def calibration_summary(proba, y, classes=None, *, n_bins: int = 10) -> dict:
    """Error rate, expected error rate, AMLP, Brier score and ECE of predictive distributions.

    Parameters
    ----------
    proba : array-like of shape (n, G)
        Predictive probabilities; columns in sorted class order; rows sum to 1.
    y : array-like of shape (n,)
        True labels (with ``classes``) or column indices.
    classes : array-like of shape (G,), optional
        Column labels, to map label-valued ``y`` to columns; by default the columns of a
        DataFrame ``proba`` (columns named by class), else ``y`` holds column indices.
    n_bins : int, default 10
        Bins for the ECE.

    Returns
    -------
    dict
        * ``error_rate`` -- fraction of cases whose argmax column (first on ties) is wrong: the
          "actual error rate" (Bayes decision under 0-1 loss);
        * ``expected_error_rate`` -- mean of ``1 - max_g proba[i, g]``: the error rate the
          predictions expect of themselves (Li 2009 eq 38 under 0-1 loss);
        * ``amlp`` -- average minus log probability of the true class (nats), never floored:
          ``inf`` when some case's true class has probability exactly 0, and a few confident
          mistakes can dominate it (see the next two keys);
        * ``n_cases_over_5_nats`` -- number of cases whose loss exceeds
          :data:`LARGE_LOSS_NATS` (5 nats: true-class probability below 0.0067);
        * ``max_case_loss`` -- the largest per-case loss (nats; :func:`case_losses` gives all);
        * ``brier`` -- for G = 2 the mean squared error ``mean (1[y = 1] - p_1)^2`` (the thesis'
          "average squared error", sklearn's ``brier_score_loss``); for G > 2 the multi-class
          Brier score ``mean_i sum_g (proba[i, g] - 1[y_i = g])^2`` (range [0, 2]);
        * ``ece`` -- expected calibration error of the top-label confidence:
          ``sum_b (n_b / n) |accuracy_b - confidence_b|`` over ``n_bins`` equal-width bins of
          ``max_g proba[i, g]``;
        * ``error_gap_se``, ``error_gap_p_value`` -- how far the actual error rate scatters
          around the expected one for a calibrated predictor, and the probability of a gap as
          large (:func:`error_gap_test`: whether ``expected_error_rate - error_rate`` is
          more than chance);
        * ``n`` -- number of cases.

    Raises
    ------
    ValueError
        If ``proba`` is not a valid (n, G) probability matrix (see :func:`check_proba`), ``y``
        does not match it (see :func:`encode_outcome`).
    TypeError
        If ``y`` holds non-integer labels and ``classes`` is not given.

    Examples
    --------
    >>> s = calibration_summary([[0.8, 0.2], [0.4, 0.6]], [0, 0])
    >>> round(s["error_rate"], 3), round(s["expected_error_rate"], 3), round(s["amlp"], 4)
    (0.5, 0.3, 0.5697)
    """
    p, yi = _proba_and_y(proba, y, classes)
    n, G = p.shape
    rows = np.arange(n)
    guess = np.argmax(p, axis=1)
    conf = p[rows, guess]
    correct = guess == yi
    with np.errstate(divide="ignore"):  # p_true = 0 is an infinite loss, reported as such
        losses = -np.log(p[rows, yi])
    onehot = np.zeros_like(p)
    onehot[rows, yi] = 1.0
    sq = ((p - onehot) ** 2).sum(axis=1)
    brier = float(np.mean(sq) / 2.0) if G == 2 else float(np.mean(sq))
    gap = _gap_test(conf, correct)
    table = reliability_table(conf, correct, n_bins=n_bins)
    filled = table["count"] > 0
    ece = float(
        np.sum(table["count"][filled] * np.abs(table["observed_fraction"][filled]
                                               - table["mean_predicted"][filled])) / n
    )
    return {
        "error_rate": float(np.mean(~correct)),
        "expected_error_rate": float(np.mean(1.0 - conf)),
        "amlp": float(np.mean(losses)),
        "n_cases_over_5_nats": int(np.sum(losses > LARGE_LOSS_NATS)),
        "max_case_loss": float(losses.max()),
        "brier": brier,
        "ece": ece,
        "error_gap_se": gap["se"],
        "error_gap_p_value": gap["p_value"],
        "n": int(n),
    }


#: Cases per block of the Poisson-binomial recursion (see :func:`_poisson_binomial_pmf`).
_PMF_BLOCK = 64


def _poisson_binomial_pmf(p: np.ndarray) -> np.ndarray:
    """P(S = s), s = 0..n, for S a sum of independent Bernoulli(p_i): the coefficients of
    prod_i (1 - p_i + p_i x).

    Blocks of :data:`_PMF_BLOCK` cases are multiplied out by the exact recursion, all blocks at
    once; the blocks' polynomials are then multiplied pairwise by FFT, all pairs of a level at
    once (O(n log^2 n) for n cases; n <= 64 is the recursion alone). FFT rounding leaves
    absolute errors of about 1e-15 on the probabilities, so tail sums below about 1e-12 are
    noise. Not ``scipy.stats.poisson_binom``: its pmf evaluates each s on its own, 11 s for
    the whole pmf of 2000 cases and out of memory at 10^5, where this takes milliseconds."""
    p = np.asarray(p, dtype=float)
    n = p.size
    B = _PMF_BLOCK
    n_blocks = max(1, -(-n // B))
    padded = np.zeros(n_blocks * B)        # Bernoulli(0) pads: they add nothing to S
    padded[:n] = p
    padded = padded.reshape(n_blocks, B)
    pmf = np.zeros((n_blocks, B + 1))
    pmf[:, 0] = 1.0
    for i in range(B):   # one case of every block per step; the right side is evaluated first
        c = padded[:, i:i + 1]
        pmf[:, 1:i + 2] = pmf[:, 1:i + 2] * (1.0 - c) + pmf[:, 0:i + 1] * c
        pmf[:, 0] *= 1.0 - c[:, 0]
    while pmf.shape[0] > 1:
        if pmf.shape[0] % 2:                # the odd block out is multiplied by 1
            one = np.zeros((1, pmf.shape[1]))
            one[0, 0] = 1.0
            pmf = np.vstack([pmf, one])
        m = 2 * pmf.shape[1] - 1
        spectra = np.fft.rfft(pmf, m, axis=1)
        pmf = np.clip(np.fft.irfft(spectra[0::2] * spectra[1::2], m, axis=1), 0.0, None)
    return pmf[0, :n + 1]


def error_gap_test(proba, y, classes=None) -> dict:
    """Expected minus actual error rate, against what a calibrated predictor gives by chance.

    If the top-label confidences are calibrated, case ``i``'s guess (the argmax) is right with
    probability ``c_i = max_g proba[i, g]``, independently of the other cases given the
    predictions, so the number of right guesses ``S`` is Poisson-binomial with mean
    ``sum_i c_i``: the *expected* error rate ``mean(1 - c)`` is its expectation, and the
    actual error rate scatters around it with standard deviation ``sqrt(sum_i c_i (1 - c_i))
    / n``. That scatter is large on the test sets of expression studies: with 60 cases and
    confidences of 0.85 it is 0.046, so an ``|expected - actual|`` of 0.05 is about
    one standard deviation and says little on its own. It gives the expected-vs-actual check of
    Li (2009), section 3.4, a yardstick for the error rate (0-1 loss).

    Parameters
    ----------
    proba : array-like of shape (n, G)
        Predictive probabilities of test cases not used to fit them (out of fold); columns in
        sorted class order; rows sum to 1.
    y : array-like of shape (n,)
        True labels (with ``classes``) or column indices.
    classes : array-like of shape (G,), optional
        Column labels, to map label-valued ``y`` to columns; by default the columns of a
        DataFrame ``proba`` (columns named by class), else ``y`` holds column indices.

    Returns
    -------
    dict
        * ``gap`` -- expected minus actual error rate (< 0: overconfident, > 0:
          underconfident);
        * ``se`` -- its standard deviation under calibration, ``sqrt(sum c (1 - c)) / n``;
        * ``z`` -- ``gap / se`` (``nan`` when every confidence is 0 or 1 and the gap is 0;
          ``inf`` with the gap's sign when they are and it is not);
        * ``p_value`` -- two-sided: the probability, under calibration, of a gap at least as
          far from 0 as the observed one, from the exact Poisson-binomial distribution
          (values below about 1e-12 are rounding noise);
        * ``n`` -- number of cases.

    Raises
    ------
    ValueError
        If ``proba`` is not a valid (n, G) probability matrix or ``y`` does not match it.
    TypeError
        If ``y`` holds non-integer labels and ``classes`` is not given.

    Examples
    --------
    All four guesses right where the confidences expect 3 of 4 (gap 0.25), which a calibrated
    predictor does with probability 1 - P(S = 3) = 0.56:

    >>> t = error_gap_test([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], [0, 0, 1, 0])
    >>> round(t["gap"], 3), round(t["se"], 3), round(t["p_value"], 3)
    (0.25, 0.209, 0.56)
    """
    p, yi = _proba_and_y(proba, y, classes)
    guess = np.argmax(p, axis=1)
    return _gap_test(p[np.arange(p.shape[0]), guess], guess == yi)


def _gap_test(conf: np.ndarray, correct: np.ndarray) -> dict:
    """:func:`error_gap_test` from the top-label confidences and whether each guess was
    right (the columns ``confidence`` and ``correct`` of a benchmark's ``cases.csv``).
    ``correct`` may hold fractions (a case's share of right guesses over repeats, with its
    confidence averaged over them): the test is then the one of perfectly correlated
    repeats, conservative for repeats that are not."""
    conf = np.asarray(conf, dtype=float)
    n = conf.size
    n_right = float(np.sum(np.asarray(correct, dtype=float)))
    mean_right = float(np.sum(conf))
    gap = (n_right - mean_right) / n          # = expected error - actual error
    se = float(np.sqrt(np.sum(conf * (1.0 - conf)))) / n
    if se > 0:
        z = gap / se
    else:
        z = float("nan") if gap == 0 else float(np.copysign(np.inf, gap))
    # within rounding of the observed distance counts as "at least as far"
    dist = abs(n_right - mean_right) - 1e-9 * max(1.0, n)
    pmf = _poisson_binomial_pmf(conf)
    far = np.abs(np.arange(n + 1) - mean_right) >= dist
    p_value = float(min(1.0, pmf[far].sum()))
    return {"gap": float(gap), "se": se, "z": float(z), "p_value": p_value, "n": int(n)}


# ---------------------------------------------------------------------------------------------
# general loss
# ---------------------------------------------------------------------------------------------
def bayes_decision(proba, loss) -> np.ndarray:
    """Guess minimising the expected loss under the predictive distribution (Li 2009 eq 35-36).

    The expected loss of guessing ``j`` is ``sum_i proba[:, i] * loss[i, j]``.

    Parameters
    ----------
    proba : array-like of shape (n, G)
    loss : array-like of shape (G, G) or (m, G, G)
        ``loss[i, j]``: loss when the truth is class ``i`` and the guess is class ``j``.

    Returns
    -------
    ndarray of int64, shape (n,) or (m, n)
        Column index of the decision (first on ties). Under 0-1 loss this is the argmax.

    Examples
    --------
    >>> import numpy as np
    >>> L = np.array([[0.0, 1.0], [5.0, 0.0]])   # missing class 1 is five times worse
    >>> bayes_decision([[0.8, 0.2], [0.9, 0.1]], L).tolist()
    [1, 0]
    """
    p = check_proba(proba)
    L = check_loss(loss, p.shape[1], stacked=True)
    return np.argmin(p @ L, axis=-1).astype(np.int64)


def expected_vs_actual_loss(proba, y, loss, classes=None) -> dict:
    """Average expected loss against average actual loss of the Bayes decisions (Li 2009 eq 38).

    If the predictive probabilities are the true conditional probabilities, the two averages
    estimate the same quantity; an overconfident predictor expects less loss than it incurs.

    Parameters
    ----------
    proba : array-like of shape (n, G)
    y : array-like of shape (n,)
        True labels (with ``classes``) or column indices.
    loss : array-like of shape (G, G) or (m, G, G)
        ``loss[i, j]``: loss when the truth is ``i`` and the guess ``j``.
    classes : array-like of shape (G,), optional
        Column labels, to map label-valued ``y`` to columns; by default the columns of a
        DataFrame ``proba`` (columns named by class), else ``y`` holds column indices.

    Returns
    -------
    dict
        ``expected_loss`` (mean over cases of ``min_j sum_i proba[i] loss[i, j]``),
        ``actual_loss`` (mean of ``loss[y, decision]``) and ``n``. Floats for one loss matrix,
        arrays of shape ``(m,)`` for a stack.

    Raises
    ------
    ValueError
        If ``proba``, ``y`` or ``loss`` are malformed or of inconsistent shapes.

    Examples
    --------
    >>> out = expected_vs_actual_loss([[0.9, 0.1], [0.3, 0.7]], [0, 0], [[0, 1], [1, 0]])
    >>> round(out["expected_loss"], 3), out["actual_loss"], out["n"]
    (0.2, 0.5, 2)
    """
    p, yi = _proba_and_y(proba, y, classes)
    L = check_loss(loss, p.shape[1], stacked=True)
    risk = p @ L  # (n, G) or (m, n, G): expected loss of each guess
    decision = np.argmin(risk, axis=-1)
    expected = np.take_along_axis(risk, decision[..., None], axis=-1)[..., 0].mean(axis=-1)
    if L.ndim == 2:
        actual = L[yi, decision].mean()
        return {"expected_loss": float(expected), "actual_loss": float(actual), "n": int(len(yi))}
    m = np.arange(L.shape[0])[:, None]
    actual = L[m, yi[None, :], decision].mean(axis=-1)
    return {"expected_loss": expected, "actual_loss": actual, "n": int(len(yi))}


def random_loss_matrices(G: int, n: int, sigma: float = 2.0, random_state=None) -> np.ndarray:
    """Random loss matrices as in Li 2009 section 4.1.

    Off-diagonal entries are ``exp(N(0, sigma^2))`` (log-normal), the diagonal is 0.

    Parameters
    ----------
    G : int
        Number of classes (>= 2).
    n : int
        Number of matrices.
    sigma : float, default 2.0
        Standard deviation of the log loss.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    ndarray of float64, shape (n, G, G)
        Zero diagonal, positive off-diagonal entries.

    Raises
    ------
    ValueError
        If ``G < 2`` or ``n < 1`` (or either is not an integer), ``sigma`` is negative or
        not finite, or ``random_state`` is a negative int.
    TypeError
        If ``sigma`` is not a number, or ``random_state`` is none of the types above.

    Examples
    --------
    >>> L = random_loss_matrices(3, 5, random_state=0)
    >>> L.shape, bool((L[:, [0, 1, 2], [0, 1, 2]] == 0).all()), bool((L.sum(axis=(1, 2)) > 0).all())
    ((5, 3, 3), True, True)
    """
    from .._parallel import root_seed

    G = check_int(G, name="G", low=2)
    n = check_int(n, name="n", low=1)
    sigma = check_positive(sigma, name="sigma", strict=False)
    if not isinstance(random_state, np.random.Generator | np.random.RandomState):
        root_seed(random_state)     # cross_validate's check: a negative int or another type
    rng = check_random_state(random_state)
    L = np.exp(rng.normal(0.0, sigma, size=(int(n), int(G), int(G))))
    L[:, np.arange(G), np.arange(G)] = 0.0
    return L
