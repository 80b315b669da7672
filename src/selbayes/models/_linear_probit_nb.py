"""The loops over cases of expectation propagation for the probit model, compiled (numba).

Rasmussen and Williams (2006), Algorithm 3.5: a sweep of site updates (each site in turn, its
cavity, the moments of the tilted distribution, the new site, the rank-one update of the
posterior covariance), and the sites' part of EP's log marginal likelihood (their eq. 3.65).
Each loop is over the n training cases; written with numpy they spent most of their time in the
overhead of a dozen small calls per case, and the all-features probit model runs them at every
point of its grid of s on every inner fold (for the stacked classifier of
:mod:`selbayes.estimators`). :func:`selbayes.models.ep_probit` calls them and keeps the matrix
factorisations (numpy: compiled with numba they took seconds to compile on first use).

log Phi(z) and the ratio N(z) / Phi(z) are written here with :func:`math.erfc` (numba cannot
call scipy's ``log_ndtr``): directly where Phi(z) is a normal number, by Laplace's continued
fraction of the Mills ratio in the far lower tail where it underflows (equal to scipy's to
rounding, tested).

References
----------
Rasmussen, C. E. and Williams, C. K. I. (2006). Gaussian Processes for Machine Learning. MIT
Press, section 3.6, Algorithm 3.5.
"""

from __future__ import annotations

import math

import numba

__all__ = ["normal_ratio", "log_normal_cdf", "ep_sweep", "site_log_z"]

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_LOG_2PI = math.log(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)
# below this z, Phi(z) = erfc(-z / sqrt 2) / 2 (about 1e-198 at -30) is replaced by the
# continued fraction, which has converged to machine precision there with _CF_TERMS terms
_TAIL = -30.0
_CF_TERMS = 40


@numba.njit(cache=True, error_model="numpy")
def normal_ratio(z):
    """N(z) / Phi(z) of a float, stably for very negative z (the inverse Mills ratio of -z)."""
    if z > _TAIL:
        return math.exp(-0.5 * z * z) * _INV_SQRT_2PI / (0.5 * math.erfc(-z * _SQRT_HALF))
    # Phi(z) / N(z) = R(x), x = -z: R(x) = 1 / (x + 1 / (x + 2 / (x + 3 / (x + ...)))),
    # evaluated from the innermost term out
    x = -z
    t = x
    for j in range(_CF_TERMS, 0, -1):
        t = x + j / t
    return t


@numba.njit(cache=True, error_model="numpy")
def log_normal_cdf(z):
    """log Phi(z) of a float (scipy's ``log_ndtr``), accurate in both tails (log1p where Phi is
    near 1)."""
    if z > 0.0:
        return math.log1p(-0.5 * math.erfc(z * _SQRT_HALF))
    if z > _TAIL:
        return math.log(0.5 * math.erfc(-z * _SQRT_HALF))
    return -0.5 * z * z - 0.5 * _LOG_2PI - math.log(normal_ratio(z))


@numba.njit(cache=True, error_model="numpy")
def ep_sweep(Sigma, mu, nu, tau, y, min_tau):
    """Update every site once, in order, in place.

    Parameters
    ----------
    Sigma : ndarray of shape (n, n)
        Posterior covariance of the latent values, updated in place (rank one per site).
    mu : ndarray of shape (n,)
        Posterior mean Sigma @ nu, updated after each site (in O(n), to rounding).
    nu, tau : ndarray of shape (n,)
        The sites' natural parameters, updated in place.
    y : ndarray of shape (n,)
        Labels in {-1, 1}.
    min_tau : float
        Site precisions are kept at or above this.
    """
    n = y.size
    s = Sigma[:, 0].copy()
    for i in range(n):
        tau_c = 1.0 / Sigma[i, i] - tau[i]
        nu_c = mu[i] / Sigma[i, i] - nu[i]
        m_c, v_c = nu_c / tau_c, 1.0 / tau_c
        z = y[i] * m_c / math.sqrt(1.0 + v_c)
        r = normal_ratio(z)
        mu_hat = m_c + y[i] * v_c * r / math.sqrt(1.0 + v_c)
        var_hat = v_c - v_c ** 2 * r / (1.0 + v_c) * (z + r)
        d_tau = max(1.0 / var_hat - tau_c - tau[i], min_tau - tau[i])
        tau[i] += d_tau
        nu_new = mu_hat / var_hat - nu_c
        d_nu = nu_new - nu[i]
        for a in range(n):
            s[a] = Sigma[a, i]
        # mu = Sigma @ nu after the update, in O(n): with Sigma' = Sigma - c s s' (s the old
        # column i) and nu' = nu + d_nu e_i, Sigma' nu' = mu - c (s'nu) s + d_nu (1 - c s_i) s
        c = 0.0
        if d_tau != 0.0:
            c = 1.0 / (1.0 / d_tau + s[i])
            for a in range(n):
                ca = c * s[a]
                for b in range(n):
                    Sigma[a, b] -= ca * s[b]
        s_nu = 0.0
        for a in range(n):
            s_nu += s[a] * nu[a]
        g = d_nu * (1.0 - c * s[i]) - c * s_nu
        for a in range(n):
            mu[a] += g * s[a]
        nu[i] = nu_new


@numba.njit(cache=True, error_model="numpy")
def site_log_z(y, nu, tau, Sigma, mu):
    """sum_i log Z~_i, the sites' part of EP's log marginal likelihood (Rasmussen and Williams,
    eq. 3.65), from the sites and the cavities of the posterior (Sigma, mu)."""
    total = 0.0
    for i in range(y.size):
        tau_c = 1.0 / Sigma[i, i] - tau[i]
        nu_c = mu[i] / Sigma[i, i] - nu[i]
        m_c, v_c = nu_c / tau_c, 1.0 / tau_c
        mu_site, v_site = nu[i] / tau[i], 1.0 / tau[i]
        z = y[i] * m_c / math.sqrt(1.0 + v_c)
        total += (log_normal_cdf(z) + 0.5 * (_LOG_2PI + math.log(v_c + v_site))
                  + 0.5 * (m_c - mu_site) ** 2 / (v_c + v_site))
    return total
