"""Decorrelating transform of seed 000 eq 12, fitted on training data only."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky, solve_triangular

__all__ = ["Decorrelation"]

# A p x p covariance is formed, so the transform is meant for gene groups, not whole genomes.
MAX_FEATURES = 20_000


class Decorrelation:
    """Whitening by the shrunk pooled within-class covariance.

    Sigma(lambda) = (S + lambda diag(S)) / (1 + lambda), Sigma = L L', x -> L^{-1} x, where S is
    the pooled within-class covariance of the training cases. lambda = 0 whitens with S itself
    (needs n - G >= p); large lambda approaches per-feature standardisation.

    Parameters
    ----------
    lam : float
        Shrinkage toward the diagonal, lambda >= 0 (the paper uses 10 on SRBCT).

    Attributes
    ----------
    chol_ : ndarray of shape (p, p)
        Lower Cholesky factor L of Sigma(lambda) (after ``fit``).

    Raises
    ------
    ValueError
        If ``lam`` is negative or not finite.

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

    def __init__(self, lam: float = 10.0):
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"decorrelation lambda must be >= 0 and finite; got {lam!r}")
        self.lam = float(lam)

    def fit(self, X: np.ndarray, y_index: np.ndarray, n_classes: int) -> Decorrelation:
        """Estimate the pooled within-class covariance and its shrunk Cholesky factor.

        Parameters
        ----------
        X : ndarray of float64, shape (n, p)
            Training features (p <= ``MAX_FEATURES``).
        y_index : ndarray of int, shape (n,)
            Class index of each row, in ``0 .. n_classes - 1``.
        n_classes : int
            G; needs n > G.

        Returns
        -------
        self : Decorrelation
            With ``chol_`` set.

        Raises
        ------
        ValueError
            If p exceeds ``MAX_FEATURES``, a feature has zero within-class variance, or the
            shrunk covariance is singular.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 5)) @ rng.normal(size=(5, 5)); y = np.repeat([0, 1], 20)
        >>> dec = Decorrelation(lam=0.0).fit(X, y, 2)
        >>> dec.chol_.shape
        (5, 5)
        """
        n, p = X.shape
        if p > MAX_FEATURES:
            raise ValueError(
                f"decorrelation forms a p x p covariance; p = {p} exceeds {MAX_FEATURES}. "
                "Decorrelate gene groups separately, or pre-filter features."
            )
        onehot = np.zeros((n, n_classes))
        onehot[np.arange(n), y_index] = 1.0
        means = onehot.T @ X / onehot.sum(axis=0)[:, None]
        R = X - means[y_index]
        S = R.T @ R / (n - n_classes)
        d = np.diag(S)
        if np.any(d <= 0):
            bad = np.flatnonzero(d <= 0)
            raise ValueError(
                f"{bad.size} feature(s) have zero within-class variance (first: column {bad[0]}); "
                "the decorrelating transform needs every feature to vary within classes"
            )
        sigma = (S + self.lam * np.diag(d)) / (1.0 + self.lam)
        try:
            self.chol_ = cholesky(sigma, lower=True)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                f"the shrunk covariance is singular (lambda = {self.lam}); use a larger lambda"
            ) from exc
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Return L^{-1} x for every row of X.

        Parameters
        ----------
        X : ndarray of float64, shape (n, p)
            Cases with the same p features as in ``fit``.

        Returns
        -------
        ndarray of float64, shape (n, p)
            The decorrelated features.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 5)) @ rng.normal(size=(5, 5)); y = np.repeat([0, 1], 20)
        >>> dec = Decorrelation(lam=0.0).fit(X, y, 2)
        >>> dec.transform(X).shape
        (40, 5)
        """
        return solve_triangular(self.chol_, X.T, lower=True).T

    def rows(self, indices: np.ndarray) -> np.ndarray:
        """The rows of L^{-1} giving the transformed features ``indices``.

        ``X @ rows(indices).T`` equals ``transform(X)[:, indices]``, so a test set can be
        mapped straight to the selected decorrelated features.

        Parameters
        ----------
        indices : array-like of int, shape (k,)
            Columns of the transformed feature matrix.

        Returns
        -------
        ndarray of float64, shape (k, p)

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
        p = self.chol_.shape[0]
        inv = solve_triangular(self.chol_, np.eye(p), lower=True)
        return inv[np.asarray(indices)]
