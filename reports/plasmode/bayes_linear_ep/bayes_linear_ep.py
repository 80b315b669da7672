"""A Bayesian probit regression on all genes, its prior scale integrated over with the
marginal likelihood of expectation propagation (EP): the all-genes linear component of
``README.md`` (binary classes only).

    P(y = 1 | x) = Phi(b + z'w),   w ~ N(0, (s / p) I),   b ~ N(0, S_B),
    log s ~ N(0, LOG_S_SD^2),

z the genes standardised by the training means and standard deviations (constant genes
dropped), p their number: a Gaussian-process classifier with the linear kernel
K = s Z Z' / p + S_B, so everything is n x n whatever p. Given s, EP approximates the posterior
of the latent f (Rasmussen and Williams 2006, Algorithm 3.5, sequential site updates) and the
marginal likelihood,

    log Z_EP = sum_i log Z~_i + log N(mu~ | 0, K + Sigma~)     (their eqs. 3.59, 3.65),

which is close to the exact one at every latent scale (Kuss and Rasmussen 2005, JMLR 6,
1679-1704; ``check.py`` compares it with Monte Carlo). s is not set at the maximum of Z_EP:
with more genes than cases the classes are always linearly separable, Z_EP levels off as s
grows and its maximum runs to the end of any range (``check.py``, 3). Instead s is integrated
over its prior on a grid of log s (weights prior x Z_EP), and the predictive is the weighted
average over the grid of their Algorithm 3.6, Phi(mean / sqrt(1 + var)) of the test latent.
The prior on log s is centred on a latent standard deviation of 1 (moderate separation of the
classes in probit units) and allows 0.02 to 55 for s within two standard deviations.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr, ndtr

#: Prior variance of the intercept (probit units): class proportions up to about 0.02 / 0.98
#: within one prior standard deviation.
S_B = 4.0
#: The grid of log s the prior and the marginal likelihood are evaluated on.
LOG_S_GRID = np.arange(-8.0, 10.0 + 1e-9, 0.5)
#: Prior standard deviation of log s (mean 0).
LOG_S_SD = 2.0
#: Site precisions are kept above this (a site that carries no information has precision 0,
#: and its log Z~ term is then 0 in the limit).
MIN_TAU = 1e-10
_LOG_2PI = np.log(2 * np.pi)


def _ratio(z):
    """N(z) / Phi(z), stably for very negative z."""
    return np.exp(-0.5 * z * z - 0.5 * _LOG_2PI - log_ndtr(z))


def ep(K, y, tol=1e-8, max_sweeps=100):
    """EP for probit likelihoods Phi(y_i f_i), y in {-1, 1}: (nu~, tau~, L, log Z_EP)."""
    n = y.size
    nu, tau = np.zeros(n), np.zeros(n)
    Sigma, mu = K.copy(), np.zeros(n)
    logZ_old = -np.inf
    for _ in range(max_sweeps):
        for i in range(n):
            tau_c = 1.0 / Sigma[i, i] - tau[i]
            nu_c = mu[i] / Sigma[i, i] - nu[i]
            m_c, v_c = nu_c / tau_c, 1.0 / tau_c
            z = y[i] * m_c / np.sqrt(1.0 + v_c)
            r = _ratio(z)
            mu_hat = m_c + y[i] * v_c * r / np.sqrt(1.0 + v_c)
            var_hat = v_c - v_c ** 2 * r / (1.0 + v_c) * (z + r)
            d_tau = max(1.0 / var_hat - tau_c - tau[i], MIN_TAU - tau[i])
            tau[i] += d_tau
            nu[i] = mu_hat / var_hat - nu_c
            s = Sigma[:, i].copy()
            Sigma -= np.outer(s, s) / (1.0 / d_tau + s[i]) if d_tau != 0 else 0.0
            mu = Sigma @ nu
        sq = np.sqrt(tau)
        L = np.linalg.cholesky(np.eye(n) + sq[:, None] * K * sq[None, :])
        V = np.linalg.solve(L, sq[:, None] * K)
        Sigma = K - V.T @ V
        mu = Sigma @ nu
        logZ = _log_z(K, y, nu, tau, Sigma, mu, L)
        if abs(logZ - logZ_old) < tol * max(1.0, abs(logZ)):
            break
        logZ_old = logZ
    return nu, tau, L, logZ


def _log_z(K, y, nu, tau, Sigma, mu, L):
    """log Z_EP from the sites and the cavities at the current posterior."""
    d = np.diag(Sigma)
    tau_c = 1.0 / d - tau
    nu_c = mu / d - nu
    m_c, v_c = nu_c / tau_c, 1.0 / tau_c
    mu_site = nu / tau
    v_site = 1.0 / tau
    z = y * m_c / np.sqrt(1.0 + v_c)
    # log Z~_i = log Z^_i + log sqrt(2 pi (v_c + v_site)) + (m_c - mu_site)^2 / (2 (v_c + v_site))
    log_site = (log_ndtr(z) + 0.5 * (_LOG_2PI + np.log(v_c + v_site))
                + 0.5 * (m_c - mu_site) ** 2 / (v_c + v_site))
    # log N(mu~ | 0, K + Sigma~): (K + Sigma~)^-1 = S^1/2 B^-1 S^1/2, det = det(B) / prod tau
    b = np.linalg.solve(L, nu / np.sqrt(tau))
    log_norm = (-0.5 * b @ b - np.log(np.diag(L)).sum() + 0.5 * np.log(tau).sum()
                - 0.5 * tau.size * _LOG_2PI)
    return float(log_site.sum() + log_norm)


class BayesLinearEPClassifier:
    """Binary Bayesian probit regression on all features (module docstring).

    Attributes after ``fit``: ``weights_`` (posterior weight of each log s of
    :data:`LOG_S_GRID`), ``s_`` (the posterior mean of log s, exponentiated), ``classes_``.
    """

    def fit(self, X, y):
        X = np.asarray(X, dtype=np.float64)
        self.classes_, yi = np.unique(y, return_inverse=True)
        if self.classes_.size != 2:
            raise ValueError("BayesLinearEPClassifier is binary only")
        self.mean_ = X.mean(0)
        sd = X.std(0, ddof=1)
        self.keep_ = sd > 0
        self.sd_ = sd[self.keep_]
        self.Z_ = (X[:, self.keep_] - self.mean_[self.keep_]) / self.sd_
        self.p_ = self.Z_.shape[1]
        G0 = self.Z_ @ self.Z_.T / self.p_
        y_pm = 2.0 * yi - 1.0
        self.fits_ = []
        log_post = []
        for log_s in LOG_S_GRID:
            K = np.exp(log_s) * G0 + S_B
            nu, tau, L, logZ = ep(K, y_pm)
            self.fits_.append((np.exp(log_s), K, nu, tau, L))
            log_post.append(logZ - 0.5 * (log_s / LOG_S_SD) ** 2)
        log_post = np.asarray(log_post)
        w = np.exp(log_post - log_post.max())
        self.weights_ = w / w.sum()
        self.s_ = float(np.exp(self.weights_ @ LOG_S_GRID))
        return self

    def _latent(self, Zs, fit):
        s, K, nu, tau, L = fit
        Ks = s * Zs @ self.Z_.T / self.p_ + S_B                  # (m, n)
        kss = s * (Zs ** 2).sum(1) / self.p_ + S_B
        sq = np.sqrt(tau)
        z = sq * np.linalg.solve(L.T, np.linalg.solve(L, sq * (K @ nu)))
        mean = Ks @ (nu - z)
        v = np.linalg.solve(L, sq[:, None] * Ks.T)
        return mean, np.maximum(kss - (v ** 2).sum(0), 1e-12)

    def predict_log_proba(self, X):
        """log P(class | x), (m, 2): Algorithm 3.6 averaged over the grid of s."""
        X = np.asarray(X, dtype=np.float64)
        Zs = (X[:, self.keep_] - self.mean_[self.keep_]) / self.sd_
        p1 = np.zeros(X.shape[0])
        for wt, fit in zip(self.weights_, self.fits_, strict=True):
            if wt < 1e-12:
                continue
            mean, var = self._latent(Zs, fit)
            p1 += wt * ndtr(mean / np.sqrt(1.0 + var))
        p1 = np.clip(p1 / self.weights_[self.weights_ >= 1e-12].sum(), 1e-300, 1.0)
        return np.column_stack([np.log1p(-np.minimum(p1, 1 - 1e-16)), np.log(p1)])


__all__ = ["BayesLinearEPClassifier", "ep"]
