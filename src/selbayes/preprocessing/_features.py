"""Feature preparation of the hierarchical Gaussian classifier, fitted on training data.

:func:`prepare_features` standardises every feature by its pooled within-class standard
deviation and optionally decorrelates (whitens) the standardised features (Li 2009, eq 12);
:class:`AffineFeatures` is the fitted map, applied to new cases feature by feature (only the
selected rows of the whitening matrix are ever formed). The classifier and its inner
cross-validation prepare features through these two, so both see the same transforms.
"""

from __future__ import annotations

import numpy as np

from ._decorrelation import Decorrelation, Standardization

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
        Whitening of the decorrelation ("cholesky" is used whenever lambda = 0).

    Returns
    -------
    (ndarray of shape (n, p), AffineFeatures)
        The transformed training features and the fitted map (``.selected(X, indices)``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 5.0], [3.0, 1.0], [6.0, 2.0], [8.0, 9.0]]); y = np.array([0, 0, 1, 1])
    >>> Z, feats = prepare_features(X, y, 2)
    >>> bool(np.allclose(feats.selected(X, [1]), Z[:, [1]]))
    True
    """
    p = X.shape[1]
    mean = np.zeros(p)
    scale = np.ones(p)
    Z = X
    if standardize:
        st = Standardization("within").fit(X, y_index, n_classes)
        mean, scale = st.mean_, st.scale_
        Z = st.transform(X)
    dec = None
    if decorrelate is not None:
        dec = Decorrelation(decorrelate, method=method if decorrelate > 0 else "cholesky")
        dec = dec.fit(Z, y_index, n_classes)
        Z = dec.transform(Z)
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
        self.mean = mean
        self.scale = scale
        self.decorrelation = decorrelation

    def selected(self, X, indices):
        """The transformed features ``indices`` of new cases X, shape (m, k)."""
        indices = np.asarray(indices, dtype=np.int64)
        if self.decorrelation is None:
            return (X[:, indices] - self.mean[indices]) / self.scale[indices]
        rows = self.decorrelation.rows(indices)
        return ((X - self.mean) / self.scale) @ rows.T

    def selected_affine(self, indices):
        """(center (k,), scale (k,), rows (k, p) or None) with
        z = ((X @ rows.T if rows is not None else X[:, indices]) - center) / scale."""
        indices = np.asarray(indices, dtype=np.int64)
        if self.decorrelation is None:
            return self.mean[indices].copy(), self.scale[indices].copy(), None
        rows = self.decorrelation.rows(indices) / self.scale[None, :]
        return rows @ self.mean, np.ones(indices.size), rows
