"""Feature transforms fitted on training data only: per-feature standardisation, and the
decorrelating transform of Li 2009 eq 12 (dense Cholesky, or low-rank symmetric whitening)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from sklearn.exceptions import NotFittedError

from .._rounding import column_units, normal_scale, varies
from .._validation import check_class_index, check_matrix, check_positive, check_positive_int

__all__ = ["Decorrelation", "Standardization", "pooled_within_residuals"]

# The Cholesky route forms a p x p covariance, so it is meant for gene groups, not whole genomes;
# the "symmetric" route needs no p x p matrix.
MAX_FEATURES = 20_000
METHODS = ("cholesky", "symmetric")
#: The smallest lambda of the "symmetric" route: its digits lost grow as eps / sqrt(lambda),
#: about 2e-10 of the whitened covariance here (tests/preprocessing/test_decorrelation.py).
MIN_SYMMETRIC_LAMBDA = 1e-12


def _check_lambda(lam, name: str) -> float:
    """The decorrelation's shrinkage lambda, finite and >= 0 (TypeError naming ``name``)."""
    try:
        return check_positive(lam, name=name, strict=False)
    except ValueError:
        raise ValueError(f"decorrelation lambda must be >= 0 and finite; got {name}={lam!r}"
                         ) from None


def _check_method(method) -> None:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"decorrelation method must be one of {METHODS}; got {method!r}")


def _check_fit_input(X, y_index, n_classes) -> tuple[np.ndarray, np.ndarray, int]:
    """``(X, y_index, n_classes)`` checked: X a finite 2-D float array, ``y_index`` one integer
    class index in ``0 .. n_classes - 1`` per row of X, ``n_classes`` a positive int (NumPy's
    'index 2 is out of bounds for axis 1 with size 2' and 'arrays used as indices must be of
    integer type' named no argument, and a negative index silently took the last class)."""
    X = check_matrix(X, name="X")
    G = check_positive_int(n_classes, name="n_classes", what="the number of classes G")
    return X, check_class_index(y_index, X.shape[0], G, all_present=False), G


def _check_transform_input(est, X, fitted: str) -> np.ndarray:
    """X for ``transform`` of a fitted ``est``: NotFittedError before ``fit``, and X checked
    as in fit, with the number of features fit saw."""
    if not hasattr(est, fitted):
        raise NotFittedError(f"this {type(est).__name__} is not fitted yet: call "
                             "fit(X, y_index, n_classes) first")
    X = check_matrix(X, name="X")
    p = getattr(est, fitted).shape[0] if fitted != "n_features_in_" else est.n_features_in_
    if X.shape[1] != p:
        raise ValueError(f"X has {X.shape[1]} features; the transform was fitted on {p}")
    return X


def pooled_within_residuals(X: np.ndarray, y_index: np.ndarray, n_classes: int) -> np.ndarray:
    """Within-class residuals x_i - xbar_(y_i), shape (n, p); their Gram / (n - G) is S.

    Parameters
    ----------
    X : ndarray of float64, shape (n, p)
    y_index : ndarray of int, shape (n,)
        Class index in ``0 .. n_classes - 1``.
    n_classes : int

    Returns
    -------
    ndarray of float64, shape (n, p)

    Raises
    ------
    ValueError
        If a class has no case, X is not a finite 2-D matrix, ``y_index`` does not hold one
        index in ``0 .. n_classes - 1`` per row of X, or ``n_classes`` is not a positive int.
    TypeError
        If X is not numeric (a ``y_index`` that does not hold integers is a ValueError).

    Examples
    --------
    >>> import numpy as np
    >>> pooled_within_residuals(np.array([[1.0], [3.0], [5.0]]), np.array([0, 0, 1]), 2).ravel()
    array([-1.,  1.,  0.])
    """
    return _within_residuals(*_check_fit_input(X, y_index, n_classes))


def _within_residuals(X: np.ndarray, y_index: np.ndarray, n_classes: int) -> np.ndarray:
    """:func:`pooled_within_residuals` of checked input."""
    n = X.shape[0]
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), y_index] = 1.0
    counts = onehot.sum(axis=0)
    if np.any(counts == 0):
        raise ValueError(f"y_index: every class 0..{n_classes - 1} needs at least one case "
                         f"(n_classes = {n_classes}); counts are {counts.astype(int).tolist()}")
    means = onehot.T @ X / counts[:, None]
    return X - means[y_index]


class Standardization:
    """Per-feature centring and scaling by training statistics, so fits do not depend on units.

    x_j -> (x_j - m_j) / s_j with m_j the overall training mean and s_j the pooled within-class
    standard deviation (``scale="within"``) or the overall standard deviation (``"total"``).
    The one-way F statistic is invariant to per-feature affine maps, so the selected features,
    the threshold gamma and hence the selection adjustment (Li 2009, eqs 23-24) are unchanged;
    only the scale the Gaussian priors see is fixed. Features with zero spread are left unscaled.

    Not a scikit-learn transformer: ``fit(X, y_index, n_classes)`` needs the class index of
    every case, so it cannot be a step of a ``Pipeline``; the classifiers apply it inside
    ``fit`` (``standardize=True``, ``decorrelate=``). In a pipeline use
    :class:`sklearn.preprocessing.StandardScaler` or :class:`IntensityLog2`.

    Parameters
    ----------
    scale : {"within", "total"}, default "within"

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (p,)
        Centre and scale per feature (data units).

    References
    ----------
    Li, L. (2009). Calibrating predictions based on a selected subset of features from
    Bayesian Gaussian classification models (manuscript).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 10.0], [3.0, 30.0], [6.0, 70.0], [8.0, 90.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> Z = Standardization().fit(X, y, 2).transform(X)
    >>> Z2 = Standardization().fit(1e4 * X + 5, y, 2).transform(1e4 * X + 5)
    >>> bool(np.allclose(Z, Z2) and np.allclose(Z.mean(0), 0))
    True
    """

    def __init__(self, scale: str = "within"):
        if not isinstance(scale, str) or scale not in ("within", "total"):
            raise ValueError(f"scale must be 'within' or 'total'; got {scale!r}")
        self.scale = scale

    def fit(self, X: np.ndarray, y_index: np.ndarray, n_classes: int) -> Standardization:
        """Estimate the centre and scale of every feature on training data.

        Parameters
        ----------
        X : ndarray of float64, shape (n, p)
        y_index : ndarray of int, shape (n,)
        n_classes : int
            G; the within-class scale needs n > G.

        Returns
        -------
        self : Standardization

        Raises
        ------
        ValueError
            If X is not a finite 2-D matrix, ``y_index`` does not hold one index in
            ``0 .. n_classes - 1`` per row, ``n_classes`` is not a positive int, a class has
            no case, (``"within"``) n <= G, or (``"total"``) n < 2.
        TypeError
            If X is not numeric (a ``y_index`` that does not hold integers is a ValueError).
        """
        return self._fit(*_check_fit_input(X, y_index, n_classes))

    def _fit(self, X: np.ndarray, y_index: np.ndarray, n_classes: int) -> Standardization:
        """:meth:`fit` of checked input."""
        n = X.shape[0]
        # in each column's power-of-2 unit (exact): the variance of values near 1e200
        # overflowed, or near 1e-200 underflowed, and the feature was left unscaled
        unit = column_units(X)
        Xs = X if np.all(unit == 1.0) else X / unit
        mean_s = Xs.mean(axis=0)
        if self.scale == "within":
            if n <= n_classes:
                raise ValueError(f"the within-class scale needs n > G; got n = {n}, "
                                 f"G = {n_classes}")
            R = _within_residuals(Xs, y_index, n_classes)
            var = np.einsum("ij,ij->j", R, R) / (n - n_classes)
        else:
            if n < 2:
                raise ValueError(f"the total scale needs n >= 2; got n = {n}")
            var = Xs.var(axis=0, ddof=1)
        self.mean_ = mean_s * unit
        # A feature constant within classes keeps its units (its F is infinite or undefined
        # either way); dividing by zero would make NaNs, and dividing by the rounding residue
        # that a constant feature's computed sd often is (about 1e-17) would give a test case
        # off the constant a value of 1e16 or more
        sd = np.sqrt(var) * unit
        self.scale_ = np.where(varies(var, mean_s, n) & normal_scale(sd), sd, 1.0)
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Return (X - mean_) / scale_, shape (n, p).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        ValueError
            If X is not a finite 2-D matrix with the p features of ``fit``.
        """
        return self._transform(_check_transform_input(self, X, "mean_"))

    def _transform(self, X: np.ndarray) -> np.ndarray:
        return (X - self.mean_) / self.scale_


class Decorrelation:
    """Whitening by the shrunk pooled within-class covariance (Li 2009, eq 12).

    Sigma(lambda) = (S + lambda diag(S)) / (1 + lambda), where S is the pooled within-class
    covariance of the training cases. lambda = 0 whitens with S itself (needs n - G >= p);
    large lambda approaches per-feature standardisation.

    Not a scikit-learn transformer: ``fit(X, y_index, n_classes)`` needs the class index of
    every case, so it cannot be a step of a ``Pipeline``; the classifiers apply it inside
    ``fit`` (``standardize=True``, ``decorrelate=``). In a pipeline use
    :class:`sklearn.preprocessing.StandardScaler` or :class:`IntensityLog2`.

    Two whitening matrices W (with W Sigma W' = I):

    ``"cholesky"`` (the paper's): Sigma = L L', W = L^{-1}. Forms p x p matrices, so p is
        limited to ``MAX_FEATURES``; depends on the order of the features.
    ``"symmetric"``: W = (D^{-1/2} Sigma D^{-1/2})^{-1/2} D^{-1/2}, the symmetric (ZCA)
        whitening of the covariance after scaling by D = lambda diag(S) / (1 + lambda). S has
        rank r <= n - G, so Sigma = D + U U' with U = R' / sqrt((n - G)(1 + lambda)) (R the
        within-class residuals); with A = D^{-1/2} U = V s Q' (thin SVD),
        (I + A A')^{-1/2} = I + V diag((1 + s^2)^{-1/2} - 1) V'. Fitting costs O(n^2 p),
        transforming O(n p r), memory O(n p): no p x p matrix. Needs lambda >=
        ``MIN_SYMMETRIC_LAMBDA`` (1e-12): closer to 0 its update loses its digits. A feature
        constant within every class passes through unchanged. Like the
        Cholesky route it is invariant to rescaling single features; unlike it, it does not
        depend on the order of the features, and each whitened feature stays as close as
        possible to its scaled original (so selected features keep their gene's meaning).

    Parameters
    ----------
    lam : float
        Shrinkage toward the diagonal, lambda >= 0 (the paper uses 10 on SRBCT).
    method : {"cholesky", "symmetric"}, default "cholesky"

    Attributes
    ----------
    chol_ : ndarray of shape (p, p)
        ("cholesky") Lower Cholesky factor L of Sigma(lambda).
    d_ : ndarray of shape (p,)
        ("symmetric") The diagonal part D.
    basis_ : ndarray of shape (p, r)
        ("symmetric") V, the left singular vectors of D^{-1/2} U.
    coef_ : ndarray of shape (r,)
        ("symmetric") (1 + s^2)^{-1/2} - 1.
    n_features_in_ : int
        p, the number of features ``fit`` saw (``transform`` checks it).

    Raises
    ------
    ValueError
        If ``lam`` is negative or not finite, ``method`` is unknown, or ``method="symmetric"``
        with ``lam`` below ``MIN_SYMMETRIC_LAMBDA`` (1e-12).
    TypeError
        If ``lam`` is not a number (True and "3" included).

    References
    ----------
    Li, L. (2009). Calibrating predictions based on a selected subset of features from
    Bayesian Gaussian classification models (manuscript), eq 12.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 5)) @ rng.normal(size=(5, 5)); y = np.repeat([0, 1], 20)
    >>> dec = Decorrelation(lam=0.0).fit(X, y, 2)
    >>> Z = dec.transform(X)
    >>> resid = Z - np.where(y[:, None] == 0, Z[y == 0].mean(0), Z[y == 1].mean(0))
    >>> bool(np.allclose(resid.T @ resid / (40 - 2), np.eye(5)))   # whitened within classes
    True
    """

    def __init__(self, lam: float = 10.0, method: str = "cholesky"):
        _check_lambda(lam, "lam")
        _check_method(method)
        if method == "symmetric" and lam < MIN_SYMMETRIC_LAMBDA:
            # Its update X + (X V) diag(coef) V' cancels to a result of relative size
            # sqrt(lambda): digits lost grow as eps / sqrt(lambda) (lambda = 1e-20: 1e-5 off
            # the whitened covariance, 1e-30: 0.8). Cholesky has no such cancellation.
            raise ValueError(f"the symmetric (low-rank) decorrelation needs lambda > 0, at "
                             f"least {MIN_SYMMETRIC_LAMBDA:g} (below it its low-rank update "
                             f"loses its digits); got {lam!r}: use method='cholesky' (the "
                             "classifiers' decorrelation_method='cholesky') for a lambda "
                             "near 0")
        self.lam = float(lam)
        self.method = method

    def fit(self, X: np.ndarray, y_index: np.ndarray, n_classes: int) -> Decorrelation:
        """Estimate the pooled within-class covariance and the whitening matrix.

        Parameters
        ----------
        X : ndarray of float64, shape (n, p)
            Training features (p <= ``MAX_FEATURES`` for ``"cholesky"``).
        y_index : ndarray of int, shape (n,)
            Class index of each row, in ``0 .. n_classes - 1``.
        n_classes : int
            G; needs n > G.

        Returns
        -------
        self : Decorrelation

        Raises
        ------
        ValueError
            If p exceeds ``MAX_FEATURES`` (Cholesky), a feature has zero within-class variance
            (Cholesky) or one that overflows, the shrunk covariance is singular, X is not a
            finite 2-D matrix, ``y_index`` does not hold one index in ``0 .. n_classes - 1``
            per row, ``n_classes`` is not a positive int, a class has no case, or n <= G.
        TypeError
            If X is not numeric (a ``y_index`` that does not hold integers is a ValueError).

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 5)) @ rng.normal(size=(5, 5)); y = np.repeat([0, 1], 20)
        >>> dec = Decorrelation(lam=0.0).fit(X, y, 2)
        >>> dec.chol_.shape
        (5, 5)
        """
        return self._fit(*_check_fit_input(X, y_index, n_classes))

    def _fit(self, X: np.ndarray, y_index: np.ndarray, n_classes: int) -> Decorrelation:
        """:meth:`fit` of checked input."""
        n, p = X.shape
        if self.method == "cholesky" and p > MAX_FEATURES:
            raise ValueError(
                f"Cholesky decorrelation forms a p x p covariance; p = {p} exceeds "
                f"{MAX_FEATURES}. Use method='symmetric' (low-rank, no p x p matrix)."
            )
        if n <= n_classes:
            raise ValueError(f"decorrelation needs n > G; got n = {n}, G = {n_classes}")
        R = _within_residuals(X, y_index, n_classes)
        dof = n - n_classes
        d = np.einsum("ij,ij->j", R, R) / dof
        if not np.isfinite(d).all():
            raise ValueError(f"the within-class variance of {int((~np.isfinite(d)).sum())} "
                             "feature(s) overflows (values near 1e154 or beyond): rescale X, "
                             "or standardise it first (the classifiers' standardize=True)")
        # Zero within-class variance up to rounding: a constant column (0.1 six times) leaves
        # residuals of 1e-17 and d of 1e-33, which "d <= 0" let through to be scaled by
        # 1 / sqrt(d), about 1e16.
        constant = ~varies(d, np.abs(X).max(axis=0), n)
        if self.method == "symmetric" and constant.any():
            # A feature constant within every class has zero residuals, so it cannot mix with
            # the others: with D_jj = 1 it passes through unchanged (its F is unaffected).
            d = np.where(constant, (1.0 + self.lam) / self.lam, d)
            R = np.where(constant, 0.0, R)
        elif constant.any():
            bad = np.flatnonzero(constant)
            raise ValueError(
                f"{bad.size} feature(s) have zero within-class variance (first: column {bad[0]}); "
                "the decorrelating transform needs every feature to vary within classes"
            )
        self.n_features_in_ = p
        if self.method == "symmetric":
            self.d_ = self.lam * d / (1.0 + self.lam)
            A = R.T / np.sqrt(dof * (1.0 + self.lam) * self.d_)[:, None]       # (p, n)
            # Thin SVD through the n x n Gram matrix (one O(p n^2) product, several times
            # faster than LAPACK's SVD of the tall p x n matrix). Directions with s^2 below
            # 1e-10 s_max^2 (the G directions removed with the class means, and rounding) are
            # dropped: their coefficient (1 + s^2)^(-1/2) - 1 is about -s^2 / 2.
            w, Q = np.linalg.eigh(A.T @ A)
            keep = w > w.max(initial=0.0) * 1e-10
            s2 = w[keep]
            self.basis_ = np.ascontiguousarray(A @ (Q[:, keep] / np.sqrt(s2)))
            self.coef_ = 1.0 / np.sqrt(1.0 + s2) - 1.0
            return self
        S = R.T @ R / dof
        sigma = (S + self.lam * np.diag(d)) / (1.0 + self.lam)
        try:
            self.chol_ = cholesky(sigma, lower=True)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                f"the shrunk covariance is singular (lambda = {self.lam}, the classifiers' "
                "decorrelate=); with more kept features than within-class degrees of freedom "
                "it needs lambda > 0: use a larger one, e.g. decorrelate=1 or 'auto'"
            ) from exc
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Return W x for every row of X.

        Parameters
        ----------
        X : ndarray of float64, shape (n, p)
            Cases with the same p features as in ``fit``.

        Returns
        -------
        ndarray of float64, shape (n, p)
            The decorrelated features.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        ValueError
            If X is not a finite 2-D matrix with the p features of ``fit``.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 5)) @ rng.normal(size=(5, 5)); y = np.repeat([0, 1], 20)
        >>> dec = Decorrelation(lam=0.0).fit(X, y, 2)
        >>> dec.transform(X).shape
        (40, 5)
        """
        return self._transform(_check_transform_input(self, X, "n_features_in_"))

    def _transform(self, X: np.ndarray) -> np.ndarray:
        if self.method == "symmetric":
            Xd = X / np.sqrt(self.d_)
            return Xd + ((Xd @ self.basis_) * self.coef_) @ self.basis_.T
        return solve_triangular(self.chol_, X.T, lower=True).T

    def rows(self, indices: np.ndarray) -> np.ndarray:
        """The rows of W giving the transformed features ``indices``.

        ``X @ rows(indices).T`` equals ``transform(X)[:, indices]``, so a test set can be
        mapped straight to the selected decorrelated features.

        Parameters
        ----------
        indices : array-like of int, shape (k,)
            Columns of the transformed feature matrix.

        Returns
        -------
        ndarray of float64, shape (k, p)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        TypeError
            If ``indices`` are not integers.
        ValueError
            If ``indices`` is not 1-D or holds a column outside ``0 .. p - 1``.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 5)) @ rng.normal(size=(5, 5)); y = np.repeat([0, 1], 20)
        >>> dec = Decorrelation(lam=0.0).fit(X, y, 2)
        >>> R = dec.rows([3, 1])
        >>> bool(np.allclose(X @ R.T, dec.transform(X)[:, [3, 1]]))
        True
        """
        if not hasattr(self, "n_features_in_"):
            raise NotFittedError("this Decorrelation is not fitted yet: call "
                                 "fit(X, y_index, n_classes) first")
        idx = _column_indices(indices, self.n_features_in_)
        if self.method == "symmetric":
            out = (self.basis_[idx] * self.coef_) @ self.basis_.T
            out[np.arange(idx.size), idx] += 1.0
            return out / np.sqrt(self.d_)[None, :]
        p = self.chol_.shape[0]
        inv = solve_triangular(self.chol_, np.eye(p), lower=True)
        return inv[idx]


def _column_indices(indices, p: int, name: str = "indices") -> np.ndarray:
    """``indices`` as int64 columns of a p-column matrix; TypeError unless integers (1.5 was
    taken as column 1), ValueError unless 1-D and in ``0 .. p - 1``."""
    idx = np.asarray(indices)
    if idx.ndim != 1:
        raise ValueError(f"{name} must be 1-D (column positions); got shape {idx.shape}")
    if idx.size and idx.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer column positions; got dtype {idx.dtype}")
    idx = idx.astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= p):
        raise ValueError(f"{name} must hold column positions in 0..{p - 1}; got values from "
                         f"{idx.min()} to {idx.max()}")
    return idx
