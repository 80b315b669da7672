"""Feature preparation of the hierarchical Gaussian classifier, fitted on training data.

:func:`prepare_features` standardises every feature by its pooled within-class standard
deviation and optionally decorrelates (whitens) the standardised features (Li 2009, eq 12);
:class:`AffineFeatures` is the fitted map, applied to new cases feature by feature (only the
selected rows of the whitening matrix are ever formed). The classifier and its inner
cross-validation prepare features through these two, so both see the same transforms.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_flag
from ._decorrelation import (
    MIN_SYMMETRIC_LAMBDA,
    Decorrelation,
    Standardization,
    _check_fit_input,
    _check_lambda,
    _check_method,
    _check_transform_input,
    _column_indices,
)

__all__ = ["prepare_features", "AffineFeatures"]


def prepare_features(X, y_index, n_classes, *, standardize=True, decorrelate=None,
                     method="symmetric"):
    """Fit the feature transforms of the classifier on training data.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    y_index : ndarray of int, shape (n,)
    n_classes : int
    standardize : bool
        Centre and scale every feature (:class:`selbayes.preprocessing.Standardization`).
    decorrelate : float or None
        lambda of the decorrelation (:class:`selbayes.preprocessing.Decorrelation`), or None.
    method : {"symmetric", "cholesky"}
        Whitening of the decorrelation ("cholesky" is used whenever lambda is below
        ``MIN_SYMMETRIC_LAMBDA``, 1e-12, 0 included).

    Returns
    -------
    (ndarray of shape (n, p), AffineFeatures)
        The transformed training features and the fitted map (``.selected(X, indices)``).

    Raises
    ------
    ValueError
        If X is not a finite 2-D matrix, ``y_index`` does not hold one index in
        ``0 .. n_classes - 1`` per row, ``n_classes`` is not a positive int, ``decorrelate``
        is negative or not finite, ``method`` is unknown, or as the transforms' ``fit``.
    TypeError
        If X is not numeric, ``standardize`` is not True or False, or ``decorrelate`` is not
        a number (or None). (A ``y_index`` that does not hold integers is a ValueError.)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 5.0], [3.0, 1.0], [6.0, 2.0], [8.0, 9.0]]); y = np.array([0, 0, 1, 1])
    >>> Z, feats = prepare_features(X, y, 2)
    >>> bool(np.allclose(feats.selected(X, [1]), Z[:, [1]]))
    True
    """
    check_flag(standardize, "standardize")
    if decorrelate is not None:
        decorrelate = _check_lambda(decorrelate, "decorrelate")
    _check_method(method)                                   # checked even when unused
    X, y_index, n_classes = _check_fit_input(X, y_index, n_classes)
    p = X.shape[1]
    mean = np.zeros(p)
    scale = np.ones(p)
    Z = X
    if standardize:
        st = Standardization("within")._fit(X, y_index, n_classes)
        mean, scale = st.mean_, st.scale_
        Z = st._transform(X)
    dec = None
    if decorrelate is not None:
        # below the symmetric route's precision (0 included) the dense Cholesky route, which
        # has no such limit (decorrelate=1e-13 failed inside the inner cross-validation)
        dec = Decorrelation(decorrelate, method=method if decorrelate >= MIN_SYMMETRIC_LAMBDA
                            else "cholesky")
        dec = dec._fit(Z, y_index, n_classes)
        Z = dec._transform(Z)
    return Z, AffineFeatures(mean, scale, dec)


class AffineFeatures:
    """z = W ((x - mean) / scale), W the decorrelation (identity when None).

    Parameters
    ----------
    mean, scale : ndarray of shape (p,)
        Per-feature centre and scale (data units).
    decorrelation : selbayes.preprocessing.Decorrelation, optional
        A fitted decorrelation of the standardised features.

    Examples
    --------
    >>> import numpy as np
    >>> f = AffineFeatures(np.array([1.0, 2.0]), np.array([2.0, 4.0]))
    >>> f.selected(np.array([[3.0, 6.0]]), [1]).tolist()
    [[1.0]]
    """

    def __init__(self, mean, scale, decorrelation=None):
        checked = []
        for name, v in (("mean", mean), ("scale", scale)):
            a = np.asarray(v)
            if a.dtype.kind not in "iuf" or a.ndim != 1 or not np.isfinite(a).all():
                raise ValueError(f"{name} must be a 1-D array of finite numbers (one per "
                                 f"feature); got {v!r}")
            checked.append(a.astype(np.float64))
        mean, scale = checked
        if scale.shape != mean.shape:
            raise ValueError(f"mean and scale must have one entry per feature; got "
                             f"{mean.shape[0]} and {scale.shape[0]}")
        if np.any(scale <= 0):
            raise ValueError(f"scale must be > 0 (it divides); got {float(scale.min())!r} at "
                             f"feature {int(np.argmin(scale))}")
        if decorrelation is not None:
            if not isinstance(decorrelation, Decorrelation):
                raise TypeError(f"decorrelation must be a fitted "
                                f"selbayes.preprocessing.Decorrelation or None; got "
                                f"{type(decorrelation).__name__}")
            fitted = getattr(decorrelation, "n_features_in_", None)
            if fitted != mean.shape[0]:
                raise ValueError(f"decorrelation must be fitted on the {mean.shape[0]} "
                                 f"features of mean and scale; "
                                 + ("it is not fitted" if fitted is None else f"got {fitted}"))
        self.mean = mean
        self.scale = scale
        self.decorrelation = decorrelation

    def selected(self, X, indices):
        """The transformed features ``indices`` of new cases X, shape (m, k).

        Raises
        ------
        ValueError
            If X is not a finite 2-D matrix with the p features of ``mean``, or ``indices``
            is not 1-D or holds a column outside ``0 .. p - 1``.
        TypeError
            If X is not numeric or ``indices`` are not integers.
        """
        # fewer columns would read features by position from the wrong genes
        X = _check_transform_input(self, X, "mean")
        indices = _column_indices(indices, self.mean.shape[0])
        if self.decorrelation is None:
            return (X[:, indices] - self.mean[indices]) / self.scale[indices]
        rows = self.decorrelation.rows(indices)
        return ((X - self.mean) / self.scale) @ rows.T

    def selected_affine(self, indices):
        """(center (k,), scale (k,), rows (k, p) or None) with
        z = ((X @ rows.T if rows is not None else X[:, indices]) - center) / scale."""
        indices = _column_indices(indices, self.mean.shape[0])
        if self.decorrelation is None:
            return self.mean[indices].copy(), self.scale[indices].copy(), None
        rows = self.decorrelation.rows(indices) / self.scale[None, :]
        return rows @ self.mean, np.ones(indices.size), rows
