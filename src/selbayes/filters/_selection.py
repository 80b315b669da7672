"""Feature selection: the step every selbayes model conditions on.

Two statistics:

``"f"``
    One-way ANOVA F statistic per feature (Li 2009, eq 25), df (G - 1, n - G).
``"abs_corr"``
    Absolute sample correlation between a binary feature and a binary class (Li 2007, eq 2.1),
    defined as 0 for a constant feature. It is computed from the counts (I0, I1) by eq 2.46, so
    two features with the same counts get bit-identical scores, and the adjustment factor
    (:func:`selbayes.adjustment.corr_log_omit_prob`) classifies lattice points with the very
    same function (so both sides of the comparison round alike).

Tie rule
--------
Features are ranked by score, largest first; equal scores are ordered by column index (lowest
first), so the result is deterministic. With ``k`` given, the k best are kept and the threshold
gamma is the score of the weakest retained feature; omitted features may *equal* gamma. With
``threshold`` given, features with score strictly greater than it are kept. Either way every
omitted feature has score <= gamma, which is exactly the event the adjustment factor
P(score <= gamma)^(p - k) conditions on (ties at gamma count as omitted, as in the thesis'
regions L). ``Selection.n_ties_at_threshold`` records how many omitted features
sit exactly at gamma.

References
----------
.. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models. Manuscript, University of Saskatchewan.
.. [2] Li, L. (2007). Bayesian classification and regression with high dimensional features.
   PhD thesis, University of Toronto.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
import scipy.sparse as sp

from .._validation import (
    check_binary,
    check_class_index,
    check_int,
    check_labels,
    check_matrix,
    check_real,
)

__all__ = [
    "Selection",
    "select_features",
    "selection_from_scores",
    "f_statistic",
    "abs_correlation",
    "binary_correlation",
    "STATISTICS",
]

STATISTICS = ("f", "abs_corr")

# Columns are processed in blocks so that temporaries stay in cache and memory stays bounded.
_BLOCK = 2048

# Stored entries of a sparse X whose residuals the sparse F forms at a time (memory bound).
_SPARSE_CHUNK = 1 << 22

# The smallest value whose square is a normal float64 (1.5e-154): below it the F statistic's
# sums of squares are subnormal or zero.
_SMALLEST_SQUARED = float(np.sqrt(np.finfo(np.float64).tiny))


@dataclass(frozen=True, eq=False)
class Selection:
    """The outcome of a selection step, with everything a corrected model conditions on.

    Attributes
    ----------
    indices : ndarray of int, shape (k,)
        Retained columns of the original X, best first.
    scores : ndarray of float, shape (p,)
        The statistic for every feature.
    threshold : float
        gamma: every omitted feature has score <= gamma.
    n_features : int
        p, the number of features screened.
    n_selected : int
        k, the number retained.
    statistic : str
        ``"f"``, ``"abs_corr"`` or the name of another filter.
    class_counts : ndarray of int, shape (G,)
        Training cases per class, in ``classes`` order.
    classes : ndarray, shape (G,)
        Sorted class labels.
    rule : str
        ``"k"`` (keep the k best) or ``"threshold"`` (keep score > threshold).
    n_ties_at_threshold : int
        Omitted features whose score equals gamma exactly.
    extra : dict
        Free-form additional information (not compared by ``==``).

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes import select_features
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 50)); y = np.repeat([0, 1], 15)
    >>> sel = select_features(X, y, k=5)
    >>> sel.n_omitted, sel.omitted_below_threshold
    (45, True)
    >>> sel.transform(X).shape
    (30, 5)
    """

    indices: np.ndarray
    scores: np.ndarray
    threshold: float
    n_features: int
    n_selected: int
    statistic: str
    class_counts: np.ndarray
    classes: np.ndarray
    rule: str = "k"
    n_ties_at_threshold: int = 0
    extra: dict = field(default_factory=dict, compare=False)

    def __eq__(self, other):
        """Equal when every field but ``extra`` is: arrays by value and shape (the
        generated comparison of a tuple of arrays raised numpy's "truth value of an array
        is ambiguous")."""
        if not isinstance(other, Selection):
            return NotImplemented
        def same(a, b):
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):   # either side
                return np.array_equal(a, b)
            return a == b

        return all(same(getattr(self, f.name), getattr(other, f.name))
                   for f in fields(self) if f.compare)

    __hash__ = None                     # mutable arrays inside: not a dict key

    @property
    def n_omitted(self) -> int:
        """p - k: how many features the adjustment factor is raised to."""
        return self.n_features - self.n_selected

    @property
    def n_classes(self) -> int:
        """G, the number of classes."""
        return int(len(self.classes))

    @property
    def omitted_indices(self) -> np.ndarray:
        """Columns not retained, ascending; ndarray of int, shape (p - k,)."""
        mask = np.ones(self.n_features, dtype=bool)
        mask[self.indices] = False
        return np.flatnonzero(mask)

    @property
    def omitted_below_threshold(self) -> bool:
        """True when every omitted feature scored <= gamma (the conditioning event)."""
        om = self.omitted_indices
        return bool(om.size == 0 or np.all(self.scores[om] <= self.threshold))

    def transform(self, X) -> np.ndarray:
        """Return the retained columns of ``X``, in ``indices`` order.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features, in the column order used for selection.

        Returns
        -------
        ndarray of shape (n_samples, k)
            ``X[:, indices]`` as float64.

        Raises
        ------
        ValueError
            If ``X`` is not a finite 2-D array with ``n_features`` columns.

        Examples
        --------
        >>> import numpy as np
        >>> from selbayes import select_features
        >>> X = np.random.default_rng(1).normal(size=(20, 8)); y = np.repeat([0, 1], 10)
        >>> sel = select_features(X, y, k=3)
        >>> bool(np.array_equal(sel.transform(X), X[:, sel.indices]))
        True
        """
        X = check_matrix(X)
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X.shape[1]} columns but the selection was made on {self.n_features}"
            )
        return X[:, self.indices]

    def to_attrs(self) -> dict:
        """Flat, netCDF-safe description (for ArviZ result attrs).

        Returns
        -------
        dict
            Keys ``selection_statistic``, ``selection_rule``, ``selection_n_features``,
            ``selection_n_selected``, ``selection_threshold``,
            ``selection_n_ties_at_threshold``, ``selection_indices`` (list of int),
            ``selection_class_counts`` (list of int) and ``selection_classes`` (list of str).

        Examples
        --------
        >>> import numpy as np
        >>> from selbayes import select_features
        >>> X = np.random.default_rng(1).normal(size=(20, 8)); y = np.repeat([0, 1], 10)
        >>> attrs = select_features(X, y, k=3).to_attrs()
        >>> attrs["selection_n_selected"], attrs["selection_class_counts"]
        (3, [10, 10])
        """
        return {
            "selection_statistic": self.statistic,
            "selection_rule": self.rule,
            "selection_n_features": int(self.n_features),
            "selection_n_selected": int(self.n_selected),
            "selection_threshold": float(self.threshold),
            "selection_n_ties_at_threshold": int(self.n_ties_at_threshold),
            "selection_indices": np.asarray(self.indices, dtype=np.int64).tolist(),
            "selection_class_counts": np.asarray(self.class_counts, dtype=np.int64).tolist(),
            "selection_classes": [str(c) for c in self.classes],
        }

    def __repr__(self) -> str:
        return (
            f"Selection(statistic={self.statistic!r}, n_features={self.n_features}, "
            f"n_selected={self.n_selected}, threshold={self.threshold:.6g}, "
            f"indices={self.indices[:8].tolist()}{'...' if self.n_selected > 8 else ''})"
        )


def f_statistic(X: np.ndarray, y_index: np.ndarray, n_classes: int) -> np.ndarray:
    """One-way ANOVA F per column of ``X`` (shape (n, p)); returns shape (p,).

    Rows are put in class order once, so class sums are contiguous reductions (no BLAS call,
    which stalls on small products when the cores are busy), and each block is shifted by its
    first row, which leaves F unchanged but keeps full relative precision when a column's level
    dwarfs its spread (expression data). A constant column scores 0; a column with zero
    within-class spread but different class means scores +inf.

    Parameters
    ----------
    X : ndarray of float64, shape (n, p)
        Features (already validated: finite, 2-D).
    y_index : ndarray of int, shape (n,)
        Class index of each row, in ``0 .. n_classes - 1``.
    n_classes : int
        G, the number of classes (``n > G`` is needed for a finite F).

    Returns
    -------
    ndarray of float64, shape (p,)
        F = (SSB / (G - 1)) / (SSW / (n - G)) per column (dimensionless).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, ``n_classes`` is not an integer >= 2, or ``y_index`` does not
        hold one class index in 0..G-1 per row with every class present.
    TypeError
        If ``X`` is a scipy.sparse matrix (:func:`select_features` scores those).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 1.0]])
    >>> f_statistic(X, np.array([0, 0, 1, 1]), 2)
    array([8., 0.])
    """
    X = _scored_matrix(X, "f_statistic")
    n, p = X.shape
    G = check_int(n_classes, name="n_classes", low=2, what="the number of classes")
    y_index = check_class_index(y_index, n, G)
    order = np.argsort(y_index, kind="stable")
    counts = np.bincount(y_index, minlength=G)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    cf = counts.astype(np.float64)
    out = np.empty(p)
    means = np.empty((G, min(_BLOCK, p)))
    for start in range(0, p, _BLOCK):
        Xb = X[order, start:start + _BLOCK]                     # a copy, rows in class order
        Xb -= Xb[0]
        level = _rounding_level(np.maximum(Xb.max(axis=0), -Xb.min(axis=0)), n)
        m = means[:, :Xb.shape[1]]
        for g in range(G):                                      # loop over classes, not features
            rows = Xb[bounds[g]:bounds[g + 1]]
            np.sum(rows, axis=0, out=m[g])
            m[g] /= cf[g]
            rows -= m[g]                                        # residuals, in place
        grand = cf @ m / n
        ssb = cf @ (m - grand) ** 2
        ssw = np.einsum("ij,ij->j", Xb, Xb)
        out[start:start + _BLOCK] = _f_ratio(ssb, ssw, level, n, G)
    return out


def _rounding_level(size, n: int):
    """The square root of the largest sum of n squared residuals that rounding alone leaves
    in a column whose values (shifted) are at most ``size`` in absolute value: a class mean
    of n values carries a relative error up to about n eps, and so does each residual from
    it. Square roots, so that neither a scale near 1e300 nor one near 1e-150 overflows or
    underflows here.

    A column constant within each class (0.1 and 0.3, or a floor and a ceiling after
    clipping) leaves residuals of about 1e-17 rather than 0, which would give F about 1e32
    instead of infinity: its sums of squares up to this level count as zero. A real spread
    below it would be under n eps (about 1e-13) of the column's range."""
    return np.sqrt(n) * n * np.finfo(np.float64).eps * size


def _f_ratio(ssb, ssw, level, n: int, G: int):
    """F = (SSB / (G - 1)) / (SSW / (n - G)), with sums of squares whose square roots are
    up to the rounding ``level`` read as zero: 0 where both are, +inf where only SSW is.
    An overflowed (infinite) sum of squares stays, and gives NaN, which the caller names."""
    ssw = np.where(np.sqrt(ssw) <= level, 0.0, ssw)
    ssb = np.where(np.sqrt(ssb) <= level, 0.0, ssb)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (ssb / (G - 1)) / (ssw / (n - G))
    f[(ssw == 0) & (ssb == 0)] = 0.0
    f[(ssw == 0) & (ssb > 0)] = np.inf
    return f


def binary_correlation(I0, I1, n0: int, n1: int) -> np.ndarray:
    """Signed sample correlation of a binary feature with a binary class from its counts.

    Eq 2.46 of Li (2007): ``I0`` / ``I1`` are the numbers of ones among the ``n0`` cases of
    class 0 and the ``n1`` cases of class 1. Broadcasts over ``I0`` and ``I1``. Returns 0 for
    a constant feature (I0 + I1 in {0, n}).

    Parameters
    ----------
    I0, I1 : array-like of int
        Ones among the class-0 and class-1 cases (0 <= I0 <= n0, 0 <= I1 <= n1); any
        broadcastable shapes.
    n0, n1 : int
        Cases in class 0 and class 1 (both >= 1).

    Returns
    -------
    ndarray of float64
        The correlation, in [-1, 1], with the broadcast shape of ``I0`` and ``I1``.

    Raises
    ------
    ValueError
        If ``n0`` or ``n1`` is not an integer >= 1, or a count is not a whole number in
        0..n0 (``I0``) or 0..n1 (``I1``).

    Examples
    --------
    >>> binary_correlation([0, 5, 2], [5, 0, 2], 5, 5)
    array([ 1., -1.,  0.])
    """
    n0 = check_int(n0, name="n0", low=1, what="cases of class 0")
    n1 = check_int(n1, name="n1", low=1, what="cases of class 1")
    I0 = np.asarray(I0, dtype=np.float64)
    I1 = np.asarray(I1, dtype=np.float64)
    for name, counts, most in (("I0", I0, n0), ("I1", I1, n1)):
        # counts of ones: a count outside 0..n_c gave a "correlation" outside [-1, 1]
        if not np.all((counts >= 0) & (counts <= most) & (counts == np.floor(counts))):
            raise ValueError(f"{name} must hold whole numbers in 0..{most} (ones among the "
                             f"{most} cases of class {name[-1]})")
    n = n0 + n1
    ybar = n1 / n
    m = I0 + I1
    num = (0.0 - ybar) * I0 + (1.0 - ybar) * I1
    den2 = m - m * m / n
    with np.errstate(divide="ignore", invalid="ignore"):
        cor = num / (np.sqrt(n * ybar * (1.0 - ybar)) * np.sqrt(den2))
    return np.where(den2 > 0, cor, 0.0)


def abs_correlation(X: np.ndarray, y_index: np.ndarray) -> np.ndarray:
    """|correlation| of each binary column of ``X`` with a binary class (0/1 in ``y_index``).

    Parameters
    ----------
    X : ndarray of 0/1, shape (n, p)
        Binary features (already validated).
    y_index : ndarray of int, shape (n,)
        Class of each row, 0 or 1 (both present).

    Returns
    -------
    ndarray of float64, shape (p,)
        |COR| per column (Li 2007, eq 2.1), in [0, 1]; 0 for a constant column.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D or ``y_index`` does not hold one class index, 0 or 1, per row
        with both present.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 0], [0, 1]])
    >>> abs_correlation(X, np.array([0, 0, 1, 1]))
    array([1., 0.])
    """
    X = _scored_matrix(X, "abs_correlation", sparse_ok=True)
    y_index = check_class_index(y_index, X.shape[0], 2)
    in1 = y_index == 1
    n1 = int(in1.sum())
    n0 = int(y_index.shape[0] - n1)
    # np.asarray(...).ravel(): scipy.sparse sums are (1, p) matrices
    I1 = np.asarray(X[in1].sum(axis=0)).ravel()
    I0 = np.asarray(X[~in1].sum(axis=0)).ravel()
    return np.abs(binary_correlation(I0, I1, n0, n1))


def _scored_matrix(X, caller: str, sparse_ok: bool = False):
    """``X`` as a 2-D float64 array (a scipy.sparse matrix as it is, where ``sparse_ok``),
    for the scoring functions, whose callers have validated it: a cheap check of its form
    only (finiteness costs a pass over X: select_features checks it)."""
    if sp.issparse(X):
        if sparse_ok:
            return X
        raise TypeError(f"{caller} takes a dense matrix; select_features scores sparse ones")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{caller}: X must be a 2-D matrix (cases x features); got "
                         f"{X.ndim} dimension(s)")
    return X


def _f_statistic_sparse(X, y_index: np.ndarray, n_classes: int) -> np.ndarray:
    """:func:`f_statistic` of a scipy.sparse ``X`` without densifying it.

    The within-class sums of squares are taken from the residuals themselves (each stored
    entry's distance to its class mean, plus the class mean squared once per implicit zero),
    not as sum(x^2) - n mean^2, which cancels to nothing where a column's level dwarfs its
    spread (a level of 1e4 and a spread of 1e-5 gave F = 0). The residuals are formed from
    unshifted values, so their precision is eps times the column's largest |value| (the dense
    path shifts first and does better for columns stored densely at a large level). Memory:
    O(G p) beyond ``X``, plus temporaries for at most _SPARSE_CHUNK stored entries at a time."""
    n, p = X.shape
    G = n_classes
    cf = np.bincount(y_index, minlength=G).astype(np.float64)
    E = sp.csr_matrix((np.ones(n), (y_index, np.arange(n))), shape=(G, n))
    m = np.asarray((E @ X).todense()) / cf[:, None]             # (G, p) class means
    grand = cf @ m / n
    ssb = cf @ (m - grand) ** 2
    X = sp.csr_matrix(X)                  # no copy of a CSR matrix
    if not X.has_canonical_format:        # repeated entries of one position add up
        X = X.copy()
        X.sum_duplicates()
    ssw = np.zeros(p)
    stored = np.zeros((G, p))
    size = np.maximum(X.max(axis=0).toarray().ravel(), -X.min(axis=0).toarray().ravel())
    row_ends = np.searchsorted(X.indptr, np.arange(_SPARSE_CHUNK, X.nnz, _SPARSE_CHUNK))
    for lo, hi in zip(np.r_[0, row_ends], np.r_[row_ends, n], strict=True):
        if hi <= lo:
            continue
        start, end = X.indptr[lo], X.indptr[hi]
        cols = X.indices[start:end]
        cls = np.repeat(y_index[lo:hi], np.diff(X.indptr[lo:hi + 1]))
        values = X.data[start:end]
        resid = values - m[cls, cols]
        ssw += np.bincount(cols, weights=resid * resid, minlength=p)
        stored += np.bincount(cls * p + cols, minlength=G * p).reshape(G, p)
    ssw += ((cf[:, None] - stored) * m ** 2).sum(axis=0)       # the implicit zeros
    return _f_ratio(ssb, ssw, _rounding_level(size, n), n, G)


def _check_class_labels(classes: np.ndarray, n: int) -> None:
    """Reject a y that looks continuous: float labels, not all whole numbers, with more distinct
    values than half the cases (a regression target, not class labels)."""
    G = classes.shape[0]
    if classes.dtype.kind != "f" or 2 * G <= n or np.all(classes == np.round(classes)):
        return
    shown = ", ".join(f"{v:.6g}" for v in classes[:3].tolist())
    raise ValueError(
        f"Unknown label type: continuous. y holds {G} distinct real values among {n} cases "
        f"({shown}, ...), so it looks continuous (a regression target?); select_features needs "
        "class labels (for example integers or strings), each shared by several cases")


def _rank_top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest scores, best first, ties by lowest column index."""
    p = scores.shape[0]
    kth = np.partition(scores, p - k)[p - k]                 # k-th largest value
    above = np.flatnonzero(scores > kth)
    at = np.flatnonzero(scores == kth)[: k - above.size]     # lowest indices first
    chosen = np.concatenate([above, at])
    order = np.lexsort((chosen, -scores[chosen]))
    return chosen[order]


def select_features(X, y, k: int | None = None, threshold: float | None = None,
                    statistic: str = "f") -> Selection:
    """Score every feature against the class and keep the best.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        All p features (continuous for ``"f"``, 0/1 for ``"abs_corr"``).
    y : array-like of shape (n_samples,)
        Class labels, any hashable orderable values; ``"abs_corr"`` needs exactly two classes.
    k : int, optional
        Number of features to keep, 1 <= k < p. Exactly one of ``k`` and ``threshold``.
    threshold : float, optional
        Keep the features whose score is strictly greater than ``threshold``.
    statistic : {"f", "abs_corr"}
        The score (see module docstring).

    Returns
    -------
    Selection
        Frozen record of the retained indices (best first), all scores, gamma, p, k and the
        class counts. Every omitted feature has score <= gamma.

    Raises
    ------
    ValueError
        Bad shapes, non-finite values, missing (NaN, None) labels, fewer than two classes, a
        float ``y`` that looks continuous (not all whole numbers, more distinct values than
        half the cases), no more cases than classes (``"f"``: a class of one case is allowed,
        the within-class df are n - G), k out of range, a threshold that is not finite or
        keeps no or every feature, non-binary input to ``"abs_corr"``.
    TypeError
        Non-numeric ``X``, ``k`` not an integer, or ``threshold`` not a real number (a bool or
        a string is not).

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 500)); y = rng.integers(0, 3, size=40)
    >>> sel = selbayes.select_features(X, y, k=10)
    >>> sel.n_selected, sel.n_features
    (10, 500)
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}; got {statistic!r}")
    if (k is None) == (threshold is None):
        raise ValueError("give exactly one of k and threshold")
    if threshold is not None:
        check_real(threshold, name="threshold")          # before scoring: fail fast
    X = check_matrix(X, accept_sparse=True)
    n, p = X.shape
    # a class of one case is allowed: the F statistic's within-class df are n - G
    classes, y_index, counts = check_labels(y, n, min_per_class=1)
    G = classes.shape[0]
    _check_class_labels(classes, n)
    sparse = sp.issparse(X)
    if statistic == "f":
        if n - G < 1:
            raise ValueError(
                f"the F statistic needs more cases than classes (n - G >= 1, its within-class "
                f"degrees of freedom); got n = {n} cases in G = {G} classes, one case per "
                "class: y must hold class labels shared by several cases")
        # values whose squares are subnormal lose their digits in the sums of squares (and
        # below about 1e-162 vanish: every F came out 0, "no feature related to the class").
        # The whole matrix's scale: one such column among columns of ordinary scale (which
        # no measurement gives) is not looked for
        big = max(float(X.max()), -float(X.min()))
        if 0.0 < big < _SMALLEST_SQUARED:
            raise ValueError(
                f"X is too small in scale for float64: its largest absolute value is "
                f"{big:.3g}, whose square is below the smallest normal float "
                f"({np.finfo(np.float64).tiny:.3g}), so the F statistics' sums of squares "
                "lose their digits; rescale X (for example divide by its largest absolute "
                "value, or standardise each column)")
        with np.errstate(over="ignore", invalid="ignore"):
            scores = (_f_statistic_sparse if sparse else f_statistic)(X, y_index, G)
        if np.isnan(scores).any():
            big = float(abs(X).max())
            raise ValueError(
                f"the F statistic overflows float64: X holds values up to {big:.3g}, whose "
                "sums of squares exceed the largest float; rescale X (for example divide by "
                "its largest absolute value, or standardise each column)")
        if np.isinf(scores).any():
            cols = np.flatnonzero(np.isinf(scores))
            raise ValueError(
                f"{cols.size} column(s) of X (positions {cols[:5].tolist()}) separate the "
                "classes with no variance within any class (F statistic infinite): a "
                "Gaussian model of within-class noise cannot be fitted to them. Remove them "
                "(a label or a batch code among the features?)")
    else:
        if G != 2:
            raise ValueError(
                f"statistic 'abs_corr' needs a binary class; y has {G} classes ({classes.tolist()})"
            )
        check_binary(X, name="X (statistic 'abs_corr')")
        scores = abs_correlation(X, y_index)

    return selection_from_scores(scores, k, threshold, statistic, counts, classes)


def selection_from_scores(scores: np.ndarray, k: int | None, threshold: float | None,
                          statistic: str, class_counts, classes, extra: dict | None = None
                          ) -> Selection:
    """Apply the package's selection rule to precomputed scores (any filter's).

    Keeps the k largest scores (ties by lowest column index; gamma = the weakest kept score)
    or every score strictly above ``threshold``, so every omitted feature scores <= gamma.

    Parameters
    ----------
    scores : ndarray of float, shape (p,)
        The filter's score of every feature, larger = more relevant (stored, not copied).
    k : int or None
        Number of features to keep, 1 <= k < p; exactly one of ``k`` and ``threshold`` is
        used (``k`` when given).
    threshold : float or None
        Keep the features scoring strictly above it (used when ``k`` is None); in the
        scores' units.
    statistic : str
        Name recorded in the Selection.
    class_counts : array-like of int, shape (G,)
        Training cases per class, in ``classes`` order.
    classes : ndarray, shape (G,)
        Sorted class labels.
    extra : dict, optional
        Filter-specific arrays kept in ``Selection.extra``.

    Returns
    -------
    Selection
        Retained columns best first, gamma, and the counts the adjustment factor needs.

    Raises
    ------
    TypeError
        If ``k`` is not an integer, or ``threshold`` (when used) is not a real number (a bool
        or a string is not).
    ValueError
        If both ``k`` and ``threshold`` are None, ``k`` is out of range, ``threshold`` is
        not finite or keeps no or every feature, or a score is NaN.

    Examples
    --------
    Features 1 and 3 tie for the best score; with k = 1 the lower column wins, and the other
    is omitted at exactly gamma:

    >>> import numpy as np
    >>> from selbayes.filters import selection_from_scores
    >>> scores = np.array([0.1, 2.0, 0.5, 2.0, 1.5])
    >>> sel = selection_from_scores(scores, k=1, threshold=None, statistic="my_filter",
    ...                             class_counts=[3, 3], classes=np.array([0, 1]))
    >>> sel.indices.tolist(), sel.threshold, sel.n_omitted, sel.n_ties_at_threshold
    ([1], 2.0, 4, 1)
    >>> sel = selection_from_scores(scores, k=None, threshold=1.0, statistic="my_filter",
    ...                             class_counts=[3, 3], classes=np.array([0, 1]))
    >>> sel.indices.tolist(), sel.threshold, sel.rule
    ([1, 3, 4], 1.0, 'threshold')
    """
    p = scores.shape[0]
    if np.isnan(scores).any():
        # NaN is neither above nor below gamma: the top-k rule would keep fewer than k
        # features and a threshold would count it as omitted, both without a word
        bad = np.flatnonzero(np.isnan(scores))
        raise ValueError(
            f"{bad.size} score(s) are NaN (positions {bad[:5].tolist()}): every feature "
            f"needs a score to be ranked; a filter's 0/0 for a constant feature, for example, "
            "should score 0")
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise TypeError(f"k must be an integer; got {k!r}")
        if k < 1 or k >= p:
            raise ValueError(f"k must satisfy 1 <= k < p = {p}; got k = {k} (the classifiers "
                             f"keep all {p} features, with no selection, with k='all')")
        indices = _rank_top(scores, int(k))
        gamma = float(scores[indices[-1]])
        rule = "k"
    else:
        if threshold is None:
            raise ValueError("give either k (keep the k best features) or threshold (keep "
                             "the features scoring above it); both are None")
        gamma = check_real(threshold, name="threshold")
        keep = np.flatnonzero(scores > gamma)
        if keep.size == 0:
            raise ValueError(
                f"threshold {gamma:g} keeps no feature (largest score {scores.max():.6g})"
            )
        if keep.size == p:
            raise ValueError(
                f"threshold {gamma:g} keeps every feature (smallest score {scores.min():.6g}); "
                "nothing is omitted"
            )
        indices = keep[np.lexsort((keep, -scores[keep]))]
        rule = "threshold"
    return selection_of(indices, scores, gamma, statistic, class_counts, classes, rule, extra)


def selection_of(indices: np.ndarray, scores: np.ndarray, gamma: float, statistic: str,
                 class_counts, classes, rule: str, extra: dict | None = None) -> Selection:
    """The :class:`Selection` that keeps ``indices`` (best first) of the p = ``len(scores)``
    features at threshold gamma; counts the omitted features that tie with gamma. Shared by
    the selection rules of every filter (:func:`selection_from_scores`,
    :func:`selbayes.filters.obf_select`); the rule itself has checked the choice."""
    p = scores.shape[0]
    omitted = np.ones(p, dtype=bool)
    omitted[indices] = False
    return Selection(
        indices=indices.astype(np.int64),
        scores=scores,
        threshold=gamma,
        n_features=p,
        n_selected=int(indices.size),
        statistic=statistic,
        class_counts=np.asarray(class_counts),
        classes=classes,
        rule=rule,
        n_ties_at_threshold=int(np.count_nonzero(scores[omitted] == gamma)),
        extra=extra or {},
    )
