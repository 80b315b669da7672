"""numba implementations of the selection-adjustment Ops, registered with pytensor's dispatcher.

One compiled kernel per evaluation method (the same arithmetic as
:mod:`selbayes.adjustment.backends._numpy_kernels`, written as loops), closed over the Op's
constants (``spacing``, ``derivative``) by one small function per method, which
:func:`numba_selection_adjustment` picks. Registering
:func:`numba_selection_adjustment` for :class:`~selbayes.adjustment.SelectionAdjustment`
makes pytensor's NUMBA mode, and nutpie, compile every subclass without an object-mode
fallback. Importing this module registers it (the statistic modules import it).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from pytensor.link.numba.dispatch.basic import numba_funcify, numba_njit

from .._base import SelectionAdjustment
from .._mixture_nb import _ALPHA_MAX, _ALPHA_MIN, lattice_kernel, log_factorials
from ._numpy_kernels import LOG_MU_MAX

__all__ = ["numba_selection_adjustment"]


# ------------------------------------------------------------------------------ tails, table
@numba.njit(cache=False)
def _tail_nb(d, l0, dl, r, derivative):
    if r == 0.0:
        return dl if derivative else l0 + dl * d
    return dl * math.exp(r * d) if derivative else l0 + dl * math.expm1(r * d) / r


@numba.njit(cache=False)
def _outside_nb(xi, edges, derivative):
    if xi < edges[0]:
        return _tail_nb(xi - edges[0], edges[2], edges[3], edges[4], derivative)
    return _tail_nb(xi - edges[1], edges[5], edges[6], edges[7], derivative)


@numba.njit(cache=False)
def _table_nb(x, coef, edges, h, derivative):
    out = np.empty_like(x)
    xf = x.ravel()
    of = out.ravel()
    x_lo, x_hi = edges[0], edges[1]
    last = coef.shape[1] - 1
    for i in range(xf.size):
        xi = xf[i]
        if xi < x_lo or xi > x_hi:
            of[i] = _outside_nb(xi, edges, derivative)
            continue
        pos = (xi - x_lo) / h
        k = min(max(int(np.floor(pos)), 0), last)
        t = pos - k
        if derivative:
            v = 5.0 * coef[5, k]
            for j in range(4, 0, -1):
                v = v * t + j * coef[j, k]
            of[i] = v / h
        else:
            v = coef[5, k]
            for j in range(4, -1, -1):
                v = v * t + coef[j, k]
            of[i] = v
    return out.reshape(x.shape)


# ------------------------------------------------------------------------------ Monte Carlo
@numba.njit(cache=False)
def _mc_nb(x, terms, log_half_pool, derivative):
    # Per draw d: L_d = log sum_k Pois(k; mu_d) f_k = -mu_d + log sum_k exp(k log mu_d + t_k),
    # summed in k around its own largest term (mu_d cancels inside a draw, so nothing
    # cancels catastrophically even where mu_d is 1e19), then a log-sum over draws.
    out = np.empty_like(x)
    xf = x.ravel()
    of = out.ravel()
    D, K = log_half_pool.shape[0], terms.shape[1]
    L = np.empty(D)
    Ek = np.empty(D)
    Lm = np.empty(D)
    for i in range(xf.size):
        for d in range(D):
            # clamped as the NumPy kernel clamps it (exp(lm) finite; NaN x stays NaN)
            lm = log_half_pool[d] - xf[i]
            if lm > LOG_MU_MAX:
                lm = LOG_MU_MAX
            elif lm < -LOG_MU_MAX:
                lm = -LOG_MU_MAX
            Lm[d] = lm
            md = terms[0, 0]
            for k in range(1, K):
                md = max(md, terms[1, k] * lm + terms[0, k])
            tot = 0.0
            tk = 0.0
            for k in range(K):
                w = math.exp(terms[1, k] * lm + terms[0, k] - md)
                tot += w
                tk += w * terms[1, k]
            L[d] = md + math.log(tot) - math.exp(lm)
            Ek[d] = tk / tot
        lmax = L[0]
        for d in range(1, D):
            lmax = max(lmax, L[d])
        tot = 0.0
        tot1 = 0.0
        for d in range(D):
            w = math.exp(L[d] - lmax)
            tot += w
            tot1 += w * (math.exp(Lm[d]) - Ek[d])
        of[i] = tot1 / tot if derivative else lmax + math.log(tot) - math.log(D)
    return out.reshape(x.shape)


# ------------------------------------------------------------------------------ convolution
@numba.njit(cache=False)
def _psi_nb(u, prior, derivative):
    a2, d2, lr, const = prior[1], prior[2], prior[3], prior[4]
    if prior[0] == 0.0:
        eu = math.exp(min(u, 700.0))
        return a2 * (1.0 - eu) if derivative else const + a2 * u - a2 * eu
    z = lr + u
    sp = max(z, 0.0) + math.log1p(math.exp(-abs(z)))
    if derivative:
        return a2 - (a2 + d2) * math.exp(z - sp)
    return const + a2 * u - (a2 + d2) * sp


@numba.njit(cache=False)
def _convolution_nb(x, grid, prior, edges, derivative):
    out = np.empty_like(x)
    xf = x.ravel()
    of = out.ravel()
    J = grid.shape[1]
    for i in range(xf.size):
        xi = xf[i]
        if xi < edges[0] or xi > edges[1]:
            of[i] = _outside_nb(xi, edges, derivative)
            continue
        m = _psi_nb(xi + grid[0, 0], prior, False) + grid[1, 0]
        for j in range(J):
            v = _psi_nb(xi + grid[0, j], prior, False) + grid[1, j]
            if v > m:
                m = v
        tot = 0.0
        tot1 = 0.0
        for j in range(J):
            u = xi + grid[0, j]
            w = math.exp(_psi_nb(u, prior, False) + grid[1, j] - m)
            tot += w
            if derivative:
                tot1 += w * _psi_nb(u, prior, True)
        of[i] = tot1 / tot if derivative else m + math.log(tot)
    return out.reshape(x.shape)


# ------------------------------------------------------------------------------ lattice
@numba.njit(cache=False)
def _log_choose_nb(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@numba.njit(cache=False)
def _bb_nb(alpha, th, N, P, D):
    """Beta-binomial pmf BB(m; N, alpha th, alpha (1 - th)) into P and d log P / d alpha
    into D (product form, exact for any alpha; the loop form of
    ``selbayes.adjustment._corr._beta_binomial_logpmf``, which the NumPy kernel uses)."""
    a, b = alpha * th, alpha * (1.0 - th)
    LA = np.zeros(N + 1)
    LB = np.zeros(N + 1)
    DA = np.zeros(N + 1)
    DB = np.zeros(N + 1)
    lab = 0.0
    dab = 0.0
    for i in range(N):
        LA[i + 1] = LA[i] + math.log(a + i)
        LB[i + 1] = LB[i] + math.log(b + i)
        DA[i + 1] = DA[i] + th / (a + i)
        DB[i + 1] = DB[i] + (1.0 - th) / (b + i)
        lab += math.log(alpha + i)
        dab += 1.0 / (alpha + i)
    for m in range(N + 1):
        P[m] = math.exp(_log_choose_nb(N, m) + LA[m] + LB[N - m] - lab)
        D[m] = DA[m] + DB[N - m] - dab


@numba.njit(cache=False)
def _lattice_nb(x, counts, theta, prefix, derivative):
    if counts.shape[0] != 4 or min(counts[0], counts[1], counts[2], counts[3]) < 0 \
            or counts.sum() != prefix.shape[0] - 1:
        raise ValueError("counts must be 4 non-negative integers summing to the design's n")
    K = lattice_kernel(counts[0], counts[1], counts[2], counts[3], prefix,
                       log_factorials(prefix.shape[0] - 1))
    N0, N1 = K.shape[0] - 1, K.shape[1] - 1
    P0 = np.empty(N0 + 1)
    D0 = np.empty(N0 + 1)
    P1 = np.empty(N1 + 1)
    D1 = np.empty(N1 + 1)
    out = np.empty_like(x)
    xf = x.ravel()
    of = out.ravel()
    for i in range(xf.size):
        # clamped as the NumPy kernel and _mixture_nb clamp it: alpha = 0 (x < -745)
        # divided by zero in _bb_nb (a ZeroDivisionError mid-sampling), x > 709 overflowed
        alpha = min(max(math.exp(xf[i]), _ALPHA_MIN), _ALPHA_MAX)
        S = 0.0
        dS = 0.0
        for q in range(theta.shape[1]):
            _bb_nb(alpha, theta[0, q], N0, P0, D0)
            _bb_nb(alpha, theta[0, q], N1, P1, D1)
            s = 0.0
            ds = 0.0
            for m0 in range(N0 + 1):
                kp = 0.0
                kpd = 0.0
                for m1 in range(N1 + 1):
                    kp += K[m0, m1] * P1[m1]
                    kpd += K[m0, m1] * P1[m1] * D1[m1]
                s += P0[m0] * kp
                ds += P0[m0] * (D0[m0] * kp + kpd)
            S += theta[1, q] * s
            dS += theta[1, q] * ds
        of[i] = -2.0 * dS * alpha / (1.0 - 2.0 * S) if derivative \
            else math.log1p(-2.0 * S)
    return out.reshape(x.shape)


# ------------------------------------------------------------------- one function per method
# Each closes its kernel over the Op's constants as plain closure variables with the method's
# explicit inputs: numba freezes them as literals, and the compiled code (fastmath wrapper
# included) is then the same as before the split, bit for bit. A generic ``(x, *inputs)``
# wrapper changes results in the last bits (checked), hence four small functions.
def _funcify_table(op):
    derivative, h = op.derivative, op.spacing

    @numba_njit
    def selection_adjustment_table(x, coef, edges):
        return _table_nb(x, coef, edges, h, derivative)

    return selection_adjustment_table


def _funcify_mc(op):
    derivative = op.derivative

    @numba_njit
    def selection_adjustment_mc(x, terms, pool):
        return _mc_nb(x, terms, pool, derivative)

    return selection_adjustment_mc


def _funcify_convolution(op):
    derivative = op.derivative

    @numba_njit
    def selection_adjustment_convolution(x, grid, prior, edges):
        return _convolution_nb(x, grid, prior, edges, derivative)

    return selection_adjustment_convolution


def _funcify_lattice(op):
    derivative = op.derivative

    @numba_njit
    def selection_adjustment_lattice(x, counts, theta, prefix):
        return _lattice_nb(x, counts, theta, prefix, derivative)

    return selection_adjustment_lattice


_FUNCIFY = {"table": _funcify_table, "mc": _funcify_mc, "convolution": _funcify_convolution,
            "lattice": _funcify_lattice}


@numba_funcify.register(SelectionAdjustment)
def numba_selection_adjustment(op, node=None, **kwargs):
    """The numba function of one selection-adjustment Op (pytensor's ``numba_funcify``).

    Parameters
    ----------
    op : SelectionAdjustment
        Any subclass; its ``evaluation``, ``spacing`` and ``derivative`` fix the function.
    node : pytensor Apply, optional
        Unused (the function takes the inputs of any node of this Op).
    **kwargs
        Ignored (pytensor's dispatcher arguments).

    Returns
    -------
    numba dispatcher
        ``f(x, *inputs) -> ndarray`` with the shape of x, as the Op's ``perform``.

    Examples
    --------
    pytensor finds it for every subclass (``mode="NUMBA"`` compiles the function it returns
    into the graph's; the function has no Python wrapper of its own):

    >>> from pytensor.link.numba.dispatch.basic import numba_funcify
    >>> from selbayes.adjustment import CorrAdjustment, FStatAdjustment
    >>> numba_funcify.dispatch(CorrAdjustment) is numba_selection_adjustment
    True
    >>> numba_funcify.dispatch(FStatAdjustment) is numba_selection_adjustment
    True
    """
    return _FUNCIFY[op.evaluation](op)
