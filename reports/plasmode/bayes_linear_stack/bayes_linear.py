"""A Bayesian logistic regression on all genes, its prior scale by the marginal likelihood: the
candidate all-genes linear component of ``README.md`` (binary classes only).

    logit P(y = 1 | x) = b + z'w,   w ~ N(0, (s / p) I),   b ~ N(0, S_B),

z the genes standardised by the training means and standard deviations (constant genes
dropped), p their number. With f = b + Zw the latent values of the n training cases,
f ~ N(0, K), K = s Z Z' / p + S_B: a Gaussian-process classifier with a linear kernel, so
everything is n x n whatever p (Rasmussen and Williams 2006, ch. 3). The posterior of f is
approximated by Laplace's method at its mode (their Algorithm 3.1), s maximises the Laplace
approximation of the marginal likelihood (their eq. 3.32; no cross-validation), and the
predictive averages the logistic over the Gaussian latent of a test case (their
Algorithm 3.2, the integral by Gauss-Hermite quadrature). The mode is the L2-penalised
logistic regression with C = s / p (checked against scikit-learn in ``check.py``).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize
from scipy.special import expit, log_expit

#: Prior variance of the intercept (log odds): class proportions up to about 0.02 / 0.98
#: within two prior standard deviations.
S_B = 4.0
#: Search range of log s.
LOG_S = (-8.0, 12.0)
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(40)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def _mode(K, y, f0=None, tol=1e-10, max_iter=100):
    """Laplace mode of f given K (Rasmussen and Williams, Algorithm 3.1): (f, a, W, L, log
    marginal likelihood)."""
    n = y.size
    f = np.zeros(n) if f0 is None else f0.copy()
    obj_old = -np.inf
    for _ in range(max_iter):
        pi = expit(f)
        W = pi * (1 - pi)
        sw = np.sqrt(W)
        L = np.linalg.cholesky(np.eye(n) + sw[:, None] * K * sw[None, :])
        b = W * f + (y - pi)
        c = np.linalg.solve(L.T, np.linalg.solve(L, sw * (K @ b)))
        a = b - sw * c
        f = K @ a
        obj = -0.5 * a @ f + np.sum(y * log_expit(f) + (1 - y) * log_expit(-f))
        if abs(obj - obj_old) < tol * max(1.0, abs(obj)):
            break
        obj_old = obj
    pi = expit(f)
    W = pi * (1 - pi)
    sw = np.sqrt(W)
    L = np.linalg.cholesky(np.eye(n) + sw[:, None] * K * sw[None, :])
    a = y - pi                                   # K^-1 f at the mode
    log_ml = (-0.5 * a @ f + np.sum(y * log_expit(f) + (1 - y) * log_expit(-f))
              - np.log(np.diag(L)).sum())
    return f, a, W, L, log_ml


class BayesLinearClassifier:
    """Binary Bayesian logistic regression on all features (module docstring).

    Attributes after ``fit``: ``s_`` (the prior scale), ``log_ml_`` (its Laplace log marginal
    likelihood), ``classes_``.
    """

    def fit(self, X, y):
        X = np.asarray(X, dtype=np.float64)
        self.classes_, yi = np.unique(y, return_inverse=True)
        if self.classes_.size != 2:
            raise ValueError("BayesLinearClassifier is binary only")
        self.mean_ = X.mean(0)
        sd = X.std(0, ddof=1)
        self.keep_ = sd > 0
        self.sd_ = sd[self.keep_]
        Z = (X[:, self.keep_] - self.mean_[self.keep_]) / self.sd_
        self.Z_ = Z
        self.p_ = Z.shape[1]
        self.G0_ = Z @ Z.T / self.p_
        self.y_ = yi.astype(np.float64)

        def neg(log_s):
            return -_mode(np.exp(log_s) * self.G0_ + S_B, self.y_)[4]

        grid = np.arange(LOG_S[0], LOG_S[1] + 1e-9, 1.0)
        vals = [neg(g) for g in grid]
        i = int(np.argmin(vals))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
        res = optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-4})
        self.s_ = float(np.exp(res.x))
        K = self.s_ * self.G0_ + S_B
        self.f_, self.a_, self.W_, self.L_, self.log_ml_ = _mode(K, self.y_)
        return self

    def latent(self, X):
        """Mean and variance of the latent log odds of test cases, (m,) each."""
        X = np.asarray(X, dtype=np.float64)
        Zs = (X[:, self.keep_] - self.mean_[self.keep_]) / self.sd_
        Ks = self.s_ * Zs @ self.Z_.T / self.p_ + S_B            # (m, n)
        kss = self.s_ * (Zs ** 2).sum(1) / self.p_ + S_B
        mean = Ks @ self.a_
        v = np.linalg.solve(self.L_, (np.sqrt(self.W_)[:, None] * Ks.T))   # (n, m)
        var = np.maximum(kss - (v ** 2).sum(0), 1e-12)
        return mean, var

    def predict_log_proba(self, X):
        """log P(class | x), (m, 2), the logistic averaged over the latent's Gaussian."""
        mean, var = self.latent(X)
        f = mean[:, None] + np.sqrt(var)[:, None] * _NODES[None, :]
        lp1 = np.log(np.exp(log_expit(f)) @ _WEIGHTS)
        lp0 = np.log(np.exp(log_expit(-f)) @ _WEIGHTS)
        return np.column_stack([lp0, lp1])
