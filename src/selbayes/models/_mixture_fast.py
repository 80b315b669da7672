"""Compiled (numba) collapsed-z Gibbs sweep and adjustment factor of the binary mixture.

The exact label update of Li (2007, section 2.4, eq 2.95 with the selection factor) needs, for
every case i, log P_keep(alpha; N) at the two count configurations N = (n00, n01, n10, n11)
that assigning case i to component 0 or 1 would give. :class:`FastMixtureFactor` evaluates the
same quantity as :class:`selbayes.adjustment.mixture.MixtureOmitFactor` (same kernel, same
theta rule; equal to ~1e-13 nats, tested) with three changes that make it cheap inside a
sampler:

* the alpha- and theta-free kernel K_N[m0, m1] of each configuration is built in compiled code
  and kept in a per-design store that lives across sweeps, steps and fits (module-level cache of
  designs (n0, n1, gamma, n_theta): :func:`mixture_factor`);
* the beta-binomial pmfs are computed by their ratio recurrence and normalised by their sum (no
  log-gamma calls), so the alpha-dependent matrix W(alpha, N0) = sum_q w_q BB(N0) BB(n - N0)^T
  costs one small matrix product per component size N0, cached while alpha stays the same;
* the per-case loop of the label sweep runs in numba, consuming the random numbers exactly as the
  Python reference (:class:`selbayes.models.mixture._Chain`): uniforms first, then the order.

References
----------
Li, L. (2007). Bayesian classification and regression with high dimensional features. PhD
thesis, University of Toronto, section 2.4 and appendix 2.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ..adjustment._mixture_nb import (  # noqa: F401  (re-exported: the sweep's factor)
    FastMixtureFactor,
    _log_keep,
    _new_stores,
    mixture_factor,
)

__all__ = ["FastMixtureFactor", "mixture_factor", "z_sweep"]


@numba.njit(cache=True, error_model="numpy")
def _sweep(z, Xf, order, u, A, B, alpha, alpha0, f0, f1, n_omitted, use_adj, n1, t, lf, theta,
           weights, kernels, wstore, vstore, state):
    n, m = Xf.shape
    k = m - 1
    nz = np.zeros(2)
    I = np.zeros((2, m))
    N = np.zeros(4, dtype=np.int64)
    y = np.empty(n, dtype=np.int64)
    for i in range(n):
        y[i] = int(Xf[i, 0])
        c = z[i]
        nz[c] += 1.0
        N[2 * c + y[i]] += 1
        for j in range(m):
            I[c, j] += Xf[i, j]
    lp = np.empty(2)
    for i in order:
        c = z[i]
        yi = y[i]
        nz[c] -= 1.0
        N[2 * c + yi] -= 1
        for j in range(m):
            I[c, j] -= Xf[i, j]
        # log P(x_i | z_i = zz, other cases), phi integrated out (eq 2.95)
        for zz in range(2):
            s = math.log(f0 + nz[0]) if zz == 0 else math.log(f1 + nz[1])
            for j in range(m):
                if Xf[i, j] != 0.0:
                    s += math.log(A[j] + I[zz, j])
                else:
                    s += math.log(B[j] + (nz[zz] - I[zz, j]))
            s -= math.log(alpha0 + nz[zz]) + k * math.log(alpha + nz[zz])
            lp[zz] = s
        if use_adj:
            for zz in range(2):
                N[2 * zz + yi] += 1
                lp[zz] += n_omitted * _log_keep(alpha, N[0], N[1], N[2], N[3], n1, t, lf,
                                                theta, weights, kernels, wstore, vstore, state)
                N[2 * zz + yi] -= 1
        new = 1 if u[i] < 1.0 / (1.0 + math.exp(lp[0] - lp[1])) else 0
        z[i] = new
        nz[new] += 1.0
        N[2 * new + yi] += 1
        for j in range(m):
            I[new, j] += Xf[i, j]
    return z


_EMPTY_T = np.zeros(1, dtype=np.int64)
_EMPTY_F = np.zeros(1)


def z_sweep(z, Xf, A, B, alpha, alpha0, f0, f1, rng, n_omitted=0, factor=None):
    """One collapsed Gibbs sweep over the labels in random order (compiled), in place.

    Parameters
    ----------
    z : ndarray of int64, shape (n,)
        Labels, updated in place and returned.
    Xf : ndarray of float64, shape (n, k + 1)
        Column 0 the response, then the k retained features (0/1).
    A, B : ndarray, shape (k + 1,)
        alpha_j theta_j and alpha_j (1 - theta_j).
    alpha, alpha0 : float
        Feature and response concentrations.
    f0, f1 : float
        Beta prior of psi.
    rng : numpy.random.Generator
        Draws n uniforms, then the visiting order (as the reference sampler).
    n_omitted : int
        p - k; with ``factor`` the conditional includes (p - k) log P_keep(alpha; N).
    factor : FastMixtureFactor or None

    Returns
    -------
    ndarray
        ``z``.
    """
    n = Xf.shape[0]
    u = rng.random(n)
    order = rng.permutation(n).astype(np.int64)
    use_adj = factor is not None and n_omitted > 0
    if use_adj:
        factor._trim()
        args = (factor.n1, *factor._args())
    else:
        kern, ws, vs = _new_stores() if _NOADJ[0] is None else _NOADJ[0]
        _NOADJ[0] = (kern, ws, vs)
        args = (1, _EMPTY_T, _EMPTY_F, _EMPTY_F, _EMPTY_F, kern, ws, vs, np.zeros(2))
    return _sweep(z, Xf, order, u, A, B, float(alpha), float(alpha0), float(f0), float(f1),
                  float(n_omitted), use_adj, *args)


_NOADJ: list = [None]


# ---------------------------------------------------------------------------------------------
# the continuous variables: theta, alpha0, alpha by exact one-dimensional slice sampling
# ---------------------------------------------------------------------------------------------
_MAX_STEPS_OUT = 64      # per side, in units of the width (log alpha: the tail is e^{-a u})
_MAX_SHRINK = 200        # the interval halves on average: 200 shrinks never run out in practice
_LOG_ALPHA_MAX = 690.0   # exp(u) stays finite; beyond, BB is at its binomial limit anyway


@numba.njit(cache=True, error_model="numpy")
def _log_u_theta(a, th, I0, O0, I1, O1):
    """sum over the two components of log U(a th, a (1 - th), I_c, O_c) less the terms free
    of th (log Gamma(a) - log Gamma(a + n_c))."""
    A = a * th
    B = a * (1.0 - th)
    la = math.lgamma(A)
    lb = math.lgamma(B)
    return (math.lgamma(A + I0) + math.lgamma(A + I1) - 2.0 * la
            + math.lgamma(B + O0) + math.lgamma(B + O1) - 2.0 * lb)


@numba.njit(cache=True, error_model="numpy")
def _log_cond_alpha(u, first, stop, theta, I, nz, shape, scale, n_omitted, use_adj, N, n1, t,
                    lf, qt, qw, kernels, wstore, vstore, state):
    """Conditional log density of u = log alpha_j shared by features first..stop-1 (with the
    Jacobian): IG(shape, scale) prior, their collapsed likelihood and, with ``use_adj``, the
    selection factor (p - k) log P_keep(alpha; N)."""
    if not (-_LOG_ALPHA_MAX < u < _LOG_ALPHA_MAX):
        return -np.inf
    a = math.exp(u)
    s = -shape * u - scale * math.exp(-u)
    for j in range(first, stop):
        s += _log_u_theta(a, theta[j], I[0, j], nz[0] - I[0, j], I[1, j], nz[1] - I[1, j])
    s += (stop - first) * (2.0 * math.lgamma(a) - math.lgamma(a + nz[0])
                           - math.lgamma(a + nz[1]))
    if use_adj:
        s += n_omitted * _log_keep(a, N[0], N[1], N[2], N[3], n1, t, lf, qt, qw, kernels,
                                   wstore, vstore, state)
    return s


@numba.njit(cache=True, error_model="numpy")
def _slice_log_alpha(rng, u0, width, first, stop, theta, I, nz, shape, scale, n_omitted,
                     use_adj, N, n1, t, lf, qt, qw, kernels, wstore, vstore, state, evals):
    """One slice-sampling update of u = log alpha (stepping out, then shrinkage; Neal 2003)."""
    f0 = _log_cond_alpha(u0, first, stop, theta, I, nz, shape, scale, n_omitted, use_adj, N,
                         n1, t, lf, qt, qw, kernels, wstore, vstore, state)
    logy = f0 - rng.standard_exponential()
    L = u0 - width * rng.random()
    R = L + width
    J = _MAX_STEPS_OUT
    while J > 0:
        evals[0] += 1
        if _log_cond_alpha(L, first, stop, theta, I, nz, shape, scale, n_omitted, use_adj, N,
                           n1, t, lf, qt, qw, kernels, wstore, vstore, state) <= logy:
            break
        L -= width
        J -= 1
    J = _MAX_STEPS_OUT
    while J > 0:
        evals[0] += 1
        if _log_cond_alpha(R, first, stop, theta, I, nz, shape, scale, n_omitted, use_adj, N,
                           n1, t, lf, qt, qw, kernels, wstore, vstore, state) <= logy:
            break
        R += width
        J -= 1
    for _ in range(_MAX_SHRINK):
        u1 = L + rng.random() * (R - L)
        evals[0] += 1
        if _log_cond_alpha(u1, first, stop, theta, I, nz, shape, scale, n_omitted, use_adj,
                           N, n1, t, lf, qt, qw, kernels, wstore, vstore, state) > logy:
            return u1
        if u1 < u0:
            L = u1
        else:
            R = u1
    return u0


@numba.njit(cache=True, error_model="numpy")
def _conditional_sweep(rng, z, Xf, theta, log_alpha, f_prior, n_omitted, use_adj, width, n1, t,
                       lf, qt, qw, kernels, wstore, vstore, state):
    """theta_j (j = 0..k, each on (0, 1) given the rest), then log alpha0, then log alpha, by
    slice sampling from their exact conditionals given the labels z; in place.

    ``log_alpha`` = [log alpha0, log alpha]; ``f_prior`` = (alpha0 shape, alpha0 scale,
    alpha shape, alpha scale). Returns the number of density evaluations.
    """
    n, m = Xf.shape
    nz = np.zeros(2)
    I = np.zeros((2, m))
    N = np.zeros(4, dtype=np.int64)
    for i in range(n):
        c = z[i]
        nz[c] += 1.0
        N[2 * c + int(Xf[i, 0])] += 1
        for j in range(m):
            I[c, j] += Xf[i, j]
    evals = np.zeros(1, dtype=np.int64)
    # theta_j: uniform prior on (0, 1), so the slice is searched by shrinking (0, 1) itself
    for j in range(m):
        a = math.exp(log_alpha[0] if j == 0 else log_alpha[1])
        I0, I1 = I[0, j], I[1, j]
        O0, O1 = nz[0] - I0, nz[1] - I1
        x0 = theta[j]
        logy = _log_u_theta(a, x0, I0, O0, I1, O1) - rng.standard_exponential()
        L, R = 0.0, 1.0
        for _ in range(_MAX_SHRINK):
            x1 = L + rng.random() * (R - L)
            evals[0] += 1
            if 0.0 < x1 < 1.0 and _log_u_theta(a, x1, I0, O0, I1, O1) > logy:
                theta[j] = x1
                break
            if x1 < x0:
                L = x1
            else:
                R = x1
    log_alpha[0] = _slice_log_alpha(rng, log_alpha[0], width, 0, 1, theta, I, nz, f_prior[0],
                                    f_prior[1], 0.0, False, N, n1, t, lf, qt, qw, kernels,
                                    wstore, vstore, state, evals)
    log_alpha[1] = _slice_log_alpha(rng, log_alpha[1], width, 1, m, theta, I, nz, f_prior[2],
                                    f_prior[3], n_omitted, use_adj, N, n1, t, lf, qt, qw,
                                    kernels, wstore, vstore, state, evals)
    return evals[0]


def conditional_sweep(z, Xf, theta, log_alpha, prior, rng, n_omitted=0, factor=None,
                      width=1.0):
    """Update theta, log alpha0 and log alpha from their exact conditionals given z (compiled).

    Each theta_j (uniform prior; conditionally independent given z and the alphas) is drawn
    by slice sampling on (0, 1) with shrinkage from the whole interval; log alpha0 and log
    alpha by slice sampling with stepping out (width ``width``; Neal 2003, Ann. Statist. 31,
    705-767). The alpha conditional includes (p - k) log P_keep(alpha; N(z)) when ``factor``
    is given and ``n_omitted > 0``. Leaves the collapsed posterior of Li (2007, section 2.4)
    invariant.

    Parameters
    ----------
    z : ndarray of int64, shape (n,)
        Labels (not changed).
    Xf : ndarray of float64, shape (n, k + 1)
        Response, then the k retained features (0/1).
    theta : ndarray of float64, shape (k + 1,)
        Updated in place.
    log_alpha : ndarray of float64, shape (2,)
        [log alpha0, log alpha], updated in place.
    prior : MixturePrior
    rng : numpy.random.Generator
        Consumed by the compiled code (numba draws from the Generator itself).
    n_omitted : int
    factor : FastMixtureFactor or None
    width : float
        Initial slice width on the log alpha scale.

    Returns
    -------
    int
        Density evaluations made.
    """
    use_adj = factor is not None and n_omitted > 0
    if use_adj:
        factor._trim()
        args = (factor.n1, *factor._args())
    else:
        kern, ws, vs = _new_stores() if _NOADJ[0] is None else _NOADJ[0]
        _NOADJ[0] = (kern, ws, vs)
        args = (1, _EMPTY_T, _EMPTY_F, _EMPTY_F, _EMPTY_F, kern, ws, vs, np.zeros(2))
    f_prior = np.array([prior.alpha0_shape, prior.alpha0_scale, prior.alpha_shape,
                        prior.alpha_scale], dtype=np.float64)
    return int(_conditional_sweep(rng, z, Xf, theta, log_alpha, f_prior, float(n_omitted),
                                  use_adj, float(width), *args))
