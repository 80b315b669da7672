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
    """

    def __init__(self, lam: float = 10.0):
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"decorrelation lambda must be >= 0 and finite; got {lam!r}")
        self.lam = float(lam)

    def fit(self, X: np.ndarray, y_index: np.ndarray, n_classes: int) -> Decorrelation:
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
        """Return L^{-1} x for every row of X (shape (n, p))."""
        return solve_triangular(self.chol_, X.T, lower=True).T

    def rows(self, indices: np.ndarray) -> np.ndarray:
        """The rows of L^{-1} giving the transformed features ``indices`` (shape (k, p))."""
        p = self.chol_.shape[0]
        inv = solve_triangular(self.chol_, np.eye(p), lower=True)
        return inv[np.asarray(indices)]
