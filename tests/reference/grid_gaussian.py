"""Test-only reference: the k = 1 Gaussian classifier's posterior by brute-force grid integration.

With k = 1 the class means mu and the feature mean nu are Gaussian given the three precisions
(tau_x, tau_mu, tau_nu), so they integrate out in closed form; what is left is a 3-D integral,
done here on a fine grid in log space. It shares no code with the PyMC model: a second
algorithm for the same posterior, corrected (with a given log P(F <= gamma | tau_mu w_x)) or not.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp


def _log_gamma_prior_on_log(u, alpha, w):
    """log density of u = log(tau) when tau ~ Gamma(alpha/2, rate alpha*w/2), up to a constant."""
    shape, rate = alpha / 2, alpha * w / 2
    return shape * u - rate * np.exp(u)


class GridPosteriorK1:
    """Posterior of the k = 1 classifier on a (log tau_x, log tau_mu, log tau_nu) grid.

    Parameters
    ----------
    x : ndarray (n,)
        The single retained feature.
    y_index : ndarray (n,) of class indices 0..G-1
    priors : dict with c, alpha_x, w_x, alpha_mu, w_mu, alpha_nu, w_nu
    log_omit_prob : callable or None
        log P(F <= gamma | log(tau_mu w_x)) vectorised; None for the uncorrected posterior.
    n_omitted : int
    """

    def __init__(self, x, y_index, n_classes, priors, log_omit_prob=None, n_omitted=0,
                 n_t=61, n_a=161, n_b=141, a_range=(-16.0, 16.0), b_range=(-16.0, 12.0)):
        x = np.asarray(x, float)
        G = n_classes
        n = x.shape[0]
        counts = np.bincount(y_index, minlength=G).astype(float)
        xbar = np.bincount(y_index, weights=x, minlength=G) / counts
        ssw = float(np.sum((x - xbar[y_index]) ** 2))
        t0 = np.log((n - G) / ssw)
        self.lt = np.linspace(t0 - 2.0, t0 + 2.0, n_t)
        self.la = np.linspace(*a_range, n_a)
        self.lb = np.linspace(*b_range, n_b)
        LT, LA, LB = np.meshgrid(self.lt, self.la, self.lb, indexing="ij")
        t, a, b = np.exp(LT), np.exp(LA), np.exp(LB)

        # Cov(mu) = I/a + 11'/b ; Cov(xbar) = Cov(mu) + diag(1/(n_g t)).
        eye = np.eye(G)
        ones = np.ones((G, G))
        cov_mu = eye / a[..., None, None] + ones / b[..., None, None]
        cov_x = cov_mu + eye * (1.0 / (counts * t[..., None]))[..., None, :]
        inv = np.linalg.inv(cov_x)
        _, logdet = np.linalg.slogdet(cov_x)
        quad = np.einsum("i,...ij,j->...", xbar, inv, xbar)
        loglik = -0.5 * logdet - 0.5 * quad + 0.5 * (n - G) * LT - 0.5 * t * ssw
        logprior = (_log_gamma_prior_on_log(LT, priors["alpha_x"], priors["w_x"])
                    + _log_gamma_prior_on_log(LA, priors["alpha_mu"], priors["w_mu"])
                    + _log_gamma_prior_on_log(LB, priors["alpha_nu"], priors["w_nu"]))
        logpost = loglik + logprior
        if log_omit_prob is not None:
            adj = n_omitted * np.asarray(log_omit_prob(self.la + np.log(priors["w_x"])))
            logpost = logpost + adj[None, :, None]
        self.logw = logpost - logsumexp(logpost)
        w = np.exp(self.logw)
        # conditional posterior of mu given the precisions, in precision form (stable when
        # 1/tau_mu is huge): prec = inv(I/a + 11'/b) + diag(n_g t), by Sherman-Morrison.
        prec_prior = (a[..., None, None] * eye
                      - (a * a / (b + G * a))[..., None, None] * ones)
        data_prec = counts * t[..., None]                               # (..., G)
        post_cov = np.linalg.inv(prec_prior + eye * data_prec[..., None, :])
        self.m = np.einsum("...ij,...j->...i", post_cov, data_prec * xbar)
        self.v = np.einsum("...ii->...i", post_cov)
        self.t = t
        self.w = w
        self.class_log_prior = np.log(counts + priors["c"]) - np.log(n + G * priors["c"])
        self.G = G

    def mean(self, which: str) -> float:
        """Posterior mean of log tau_x / log tau_mu / log tau_nu."""
        axis = {"log_tau_x": 0, "log_tau_mu": 1, "log_tau_nu": 2}[which]
        grid = [self.lt, self.la, self.lb][axis]
        marg = self.w.sum(axis=tuple(i for i in range(3) if i != axis))
        return float(marg @ grid)

    def edge_mass(self) -> float:
        """Posterior mass in the outermost grid slices (must be negligible)."""
        w = self.w
        return float(w[[0, -1]].sum() + w[:, [0, -1]].sum() + w[:, :, [0, -1]].sum())

    def predict_proba(self, x_star) -> np.ndarray:
        out = np.empty((len(x_star), self.G))
        var = 1.0 / self.t[..., None] + self.v
        for i, xs in enumerate(np.asarray(x_star, float)):
            dens = np.exp(-0.5 * (xs - self.m) ** 2 / var) / np.sqrt(2 * np.pi * var)
            lp = np.log(np.einsum("abcg,abc->g", dens, self.w)) + self.class_log_prior
            out[i] = np.exp(lp - logsumexp(lp))
        return out
