"""The binary mixture's selection factor log P_keep(alpha; N), compiled (numba), with stores.

Li (2007, section 2.4): for the binary mixture after correlation selection, the selection
factor of one omitted feature given alpha and the label counts N = (n00, n01, n10, n11) is
log P_keep(alpha; N) = log(1 - 2 sum_q w_q BB0_q' K_N BB1_q) (the theta quadrature of the
lattice sum; the kernel K_N is alpha- and theta-free). This module evaluates it as
:class:`selbayes.adjustment.MixtureOmitFactor` does (same kernel, same theta rule;
equal to ~1e-13 nats, tested), with three changes that make it cheap inside a sampler:

* the kernel K_N of each configuration is built in compiled code (:func:`lattice_kernel`, also
  called by the numba implementation of ``MixtureAdjustment``) and kept
  in a store per design (prefix of H+, theta rule) that lives across sweeps, steps and fits and
  is shared by the label sweep and the ``MixtureAdjustment`` Op (:func:`lattice_design`);
* the beta-binomial pmfs are computed by their ratio recurrence and normalised by their sum (no
  log-gamma calls), so the alpha-dependent matrix W(alpha, N0) = sum_q w_q BB(N0) BB(n - N0)^T
  costs one small matrix product per component size N0, cached while alpha stays the same;
* the values at the current alpha are remembered per configuration.

References
----------
Li, L. (2007). Bayesian classification and regression with high dimensional features. PhD
thesis, University of Toronto, section 2.4 and appendix 2.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np
from numba import types
from numba.typed import Dict

from .._special import log_rising_nb
from ._mixture import MixtureOmitFactor, _antidiagonal_prefix

__all__ = ["FastMixtureFactor", "LatticeDesign", "compiled_factor", "lattice_design",
           "lattice_kernel", "log_factorials", "mixture_factor"]

# Every cached compiled function of the mixture is in this one file, including the samplers'
# sweeps (used by selbayes.models._mixture_fast) and the kernel that the Op's numba
# implementation also calls: numba's on-disk cache of a function keeps the code of the compiled
# functions it calls but is invalidated only by a change of its own file, so a caller in
# another file would go on running an old copy of a callee changed here.

_RESCALE = 1e250
_ALPHA_MIN, _ALPHA_MAX = 1e-200, 1e200
# kernels kept per design before the store is emptied (memory only: ~ (n/2)^2 floats each)
_MAX_KERNELS = 4096


# ---------------------------------------------------------------------------------------------
# compiled pieces
# ---------------------------------------------------------------------------------------------
@numba.njit(cache=True, error_model="numpy")
def log_factorials(n):
    """lf[i] = log(i!), i = 0..n."""
    lf = np.empty(n + 1)
    for i in range(n + 1):
        lf[i] = math.lgamma(i + 1.0)
    return lf


@numba.njit(cache=True, error_model="numpy")
def lattice_kernel(n00, n01, n10, n11, t, lf):
    """K[m0, m1] = P(lattice point in H+ | m0 ones in component 0, m1 in component 1).

    The compiled form of :func:`selbayes.adjustment._mixture._kernel_from_prefix`: a = ones
    among the y = 0 cases of component 0 (hypergeometric given m0), c = likewise in component
    1, H+ = {a + c <= t[m0 + m1]}; ``lf`` is the table of log factorials
    (:func:`log_factorials`).
    """
    N0 = n00 + n01
    N1 = n10 + n11
    hyp0 = np.zeros((N0 + 1, n00 + 1))
    for m0 in range(N0 + 1):
        for a in range(max(0, m0 - n01), min(n00, m0) + 1):
            hyp0[m0, a] = math.exp(lf[n00] - lf[a] - lf[n00 - a] + lf[n01] - lf[m0 - a]
                                   - lf[n01 - m0 + a] - lf[N0] + lf[m0] + lf[N0 - m0])
    F1 = np.zeros((N1 + 1, n10 + 2))
    for m1 in range(N1 + 1):
        acc = 0.0
        for c in range(n10 + 1):
            if m1 - c >= 0 and m1 - c <= n11:
                acc += math.exp(lf[n10] - lf[c] - lf[n10 - c] + lf[n11] - lf[m1 - c]
                                - lf[n11 - m1 + c] - lf[N1] + lf[m1] + lf[N1 - m1])
            F1[m1, c + 1] = acc
        F1[m1, n10 + 1] = 1.0
    K = np.empty((N0 + 1, N1 + 1))
    for m0 in range(N0 + 1):
        for m1 in range(N1 + 1):
            tt = t[m0 + m1]
            s = 0.0
            for a in range(n00 + 1):
                j = tt - a + 1
                if j < 0:
                    j = 0
                elif j > n10 + 1:
                    j = n10 + 1
                s += hyp0[m0, a] * F1[m1, j]
            K[m0, m1] = s
    return K



@numba.njit(cache=True, error_model="numpy")
def _bb_pmf(alpha, theta, size):
    """BB(m; size, alpha theta_q, alpha (1 - theta_q)), m = 0..size, shape (size + 1, Q).

    Ratio recurrence P(m + 1) / P(m) = (size - m)(a + m) / ((m + 1)(b + size - m - 1)) from an
    unnormalised P(0) = 1, rescaled when it grows past 1e250, then normalised by the sum. The
    recurrence runs along m for all nodes at once (the inner loop over q has no dependency
    between iterations, so it vectorises; along m each step waits for the last division).
    """
    # a slice sampler may probe alpha at exp(+-700): beyond these bounds BB is at its limits
    # (all-or-none at alpha -> 0, binomial at alpha -> inf) to double precision
    alpha = min(max(alpha, _ALPHA_MIN), _ALPHA_MAX)
    Q = theta.shape[0]
    out = np.empty((size + 1, Q))
    a = np.empty(Q)
    b = np.empty(Q)
    s = np.ones(Q)
    for q in range(Q):
        a[q] = alpha * theta[q]
        b[q] = alpha - a[q]
        out[0, q] = 1.0
    for m in range(size):
        cm = (size - m) / (m + 1.0)
        big = 0
        for q in range(Q):
            v = out[m, q] * cm * (a[q] + m) / (b[q] + (size - m - 1.0))
            out[m + 1, q] = v
            s[q] += v
            big |= v > _RESCALE
        if big:
            for q in range(Q):
                if out[m + 1, q] > _RESCALE:
                    for j in range(m + 2):
                        out[j, q] /= _RESCALE
                    s[q] /= _RESCALE
    for q in range(Q):
        s[q] = 1.0 / s[q]
    for m in range(size + 1):
        for q in range(Q):
            out[m, q] *= s[q]
    return out


@numba.njit(cache=True, error_model="numpy")
def _weight_matrix(alpha, N0, n, theta, weights):
    """The lower half of W(alpha, N0): sum over theta_q < 1/2 of w_q BB(m0; N0) BB(m1; n - N0)
    (the middle node, when Q is odd, with half its weight), shape (N0 + 1, n - N0 + 1).

    The theta rule is symmetric about 1/2 (node 1 - theta_q has the weight of theta_q), and
    BB at 1 - theta is BB at theta reversed, so the full matrix is this one plus itself
    reversed in both indices; :func:`_log_keep` folds that reversal into the stored kernels
    (sum K o W = sum (K + K reversed) o W_low) instead of forming W.
    """
    Q = theta.shape[0]
    H = Q // 2 + Q % 2
    B0 = _bb_pmf(alpha, theta[:H], N0)                   # (N0 + 1, H)
    B1 = _bb_pmf(alpha, theta[:H], n - N0)               # (N1 + 1, H)
    for q in range(H):
        wq = weights[q] if (q < Q // 2) else 0.5 * weights[q]
        for m in range(N0 + 1):
            B0[m, q] *= wq
    return B0 @ np.ascontiguousarray(B1.T)


@numba.njit(cache=True, fastmath=True)
def _sum_product(K, W):
    """sum_ij K_ij W_ij (fastmath: the sum may be reassociated, so it vectorises; every term
    is a non-negative probability, so the order changes it by rounding only)."""
    s = 0.0
    for i in range(K.shape[0]):
        for j in range(K.shape[1]):
            s += K[i, j] * W[i, j]
    return s


@numba.njit(cache=True, error_model="numpy")
def _log_keep(alpha, n00, n01, n10, n11, n1, t, lf, theta, weights, kernels, wstore, vstore,
              state):
    """log P_keep(alpha; N) with the design's caches (``state[0]``: the alpha of wstore/vstore;
    ``state[1]``: kernels built)."""
    # canonical configuration: the factor is invariant under swapping the component labels
    if (n10, n11, n00, n01) < (n00, n01, n10, n11):
        n00, n01, n10, n11 = n10, n11, n00, n01
    if alpha != state[0]:
        wstore.clear()
        vstore.clear()
        state[0] = alpha
    code = n00 * (n1 + 1) + n01
    if code in vstore:
        return vstore[code]
    if code in kernels:
        K = kernels[code]
    else:
        K = lattice_kernel(n00, n01, n10, n11, t, lf)
        K = K + K[::-1, ::-1]                            # see _weight_matrix
        kernels[code] = K
        state[1] += 1.0
    N0 = n00 + n01
    n = N0 + n10 + n11
    if N0 in wstore:
        W = wstore[N0]
    else:
        W = _weight_matrix(alpha, N0, n, theta, weights)
        wstore[N0] = W
    v = math.log1p(-2.0 * _sum_product(K, W))
    vstore[code] = v
    return v


# ---------------------------------------------------------------------------------------------
# the samplers' sweeps (their Python entry points: selbayes.models._mixture_fast)
# ---------------------------------------------------------------------------------------------
@numba.njit(cache=True, error_model="numpy")
def _label_counts(z, Xf):
    """Component sizes nz (2,), ones per component and column I (2, k + 1), and the counts
    N = (n00, n01, n10, n11), n_zy = #{i: z_i = z, y_i = y}, of the labels z."""
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
    return nz, I, N


@numba.njit(cache=True, error_model="numpy")
def _sweep(z, Xf, order, u, A, B, alpha, alpha0, f0, f1, n_omitted, use_adj, n1, t, lf, theta,
           weights, kernels, wstore, vstore, state):
    n, m = Xf.shape
    k = m - 1
    nz, I, N = _label_counts(z, Xf)
    y = Xf[:, 0].astype(np.int64)
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


_MAX_STEPS_OUT = 64      # per side, in units of the width (log alpha: the tail is e^{-a u})
_MAX_SHRINK = 200        # the interval halves on average: 200 shrinks never run out in practice
_LOG_ALPHA_MAX = 690.0   # exp(u) stays finite; beyond, BB is at its binomial limit anyway


@numba.njit(cache=True, error_model="numpy")
def _log_u_theta(a, th, I0, O0, I1, O1):
    """sum over the two components of log U(a th, a (1 - th), I_c, O_c) less the terms free
    of th (log Gamma(a) - log Gamma(a + n_c)). Log rising factorials: a difference of log
    Gamma values cancels catastrophically at large a (:mod:`selbayes._special`)."""
    A = a * th
    B = a - A
    return (log_rising_nb(A, I0) + log_rising_nb(A, I1)
            + log_rising_nb(B, O0) + log_rising_nb(B, O1))


@numba.njit(cache=True, error_model="numpy")
def _log_cond_alpha(u, first, stop, theta, I, nz, shape, scale, n_omitted, use_adj, N, fa):
    """Conditional log density of u = log alpha_j shared by features first..stop-1 (with the
    Jacobian): IG(shape, scale) prior, their collapsed likelihood and, with ``use_adj``, the
    selection factor (p - k) log P_keep(alpha; N); ``fa``: the trailing arguments of
    :func:`_log_keep` (n1 and the design's arrays and stores)."""
    if not (-_LOG_ALPHA_MAX < u < _LOG_ALPHA_MAX):
        return -np.inf
    a = math.exp(u)
    s = -shape * u - scale * math.exp(-u)
    for j in range(first, stop):
        s += _log_u_theta(a, theta[j], I[0, j], nz[0] - I[0, j], I[1, j], nz[1] - I[1, j])
    s -= (stop - first) * (log_rising_nb(a, nz[0]) + log_rising_nb(a, nz[1]))
    if use_adj:
        s += n_omitted * _log_keep(a, N[0], N[1], N[2], N[3], *fa)
    return s


@numba.njit(cache=True, error_model="numpy")
def _step_out(x, step, logy, ca, evals):
    """Move the slice edge x by ``step`` until the density there is at most exp(logy) (at
    most ``_MAX_STEPS_OUT`` steps); ``ca``: the arguments of :func:`_log_cond_alpha` after
    u."""
    for _ in range(_MAX_STEPS_OUT):
        evals[0] += 1
        if _log_cond_alpha(x, *ca) <= logy:
            break
        x += step
    return x


@numba.njit(cache=True, error_model="numpy")
def _slice_log_alpha(rng, u0, width, first, stop, theta, I, nz, shape, scale, n_omitted,
                     use_adj, N, fa, evals):
    """One slice-sampling update of u = log alpha (stepping out, then shrinkage; Neal 2003)."""
    ca = (first, stop, theta, I, nz, shape, scale, n_omitted, use_adj, N, fa)
    logy = _log_cond_alpha(u0, *ca) - rng.standard_exponential()
    start = u0 - width * rng.random()          # the initial interval [start, start + width]
    L = _step_out(start, -width, logy, ca, evals)
    R = _step_out(start + width, width, logy, ca, evals)
    for _ in range(_MAX_SHRINK):
        u1 = L + rng.random() * (R - L)
        evals[0] += 1
        if _log_cond_alpha(u1, *ca) > logy:
            return u1
        if u1 < u0:
            L = u1
        else:
            R = u1
    return u0


@numba.njit(cache=True, error_model="numpy")
def _conditional_sweep(rng, z, Xf, theta, log_alpha, f_prior, n_omitted, use_adj, width,
                       n1, t, lf, nodes, weights, kernels, wstore, vstore, state):
    """theta_j (j = 0..k, each on (0, 1) given the rest), then log alpha0, then log alpha, by
    slice sampling from their exact conditionals given the labels z; in place.

    ``log_alpha`` = [log alpha0, log alpha]; ``f_prior`` = (alpha0 shape, alpha0 scale,
    alpha shape, alpha scale); ``n1`` .. ``state``: the trailing arguments of
    :func:`_log_keep`. Returns the number of density evaluations.

    The factor's arguments come one by one and are packed here: numba types a tuple argument
    in Python on every call (about 40 us for this one, 0.25 s of a default fit), while it
    types arrays and typed dicts in its C fast path.
    """
    fa = (n1, t, lf, nodes, weights, kernels, wstore, vstore, state)
    m = Xf.shape[1]
    nz, I, N = _label_counts(z, Xf)
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
                                    f_prior[1], 0.0, False, N, fa, evals)
    log_alpha[1] = _slice_log_alpha(rng, log_alpha[1], width, 1, m, theta, I, nz, f_prior[2],
                                    f_prior[3], n_omitted, use_adj, N, fa, evals)
    return evals[0]


# ---------------------------------------------------------------------------------------------
# the factor with compiled evaluation and persistent kernels
# ---------------------------------------------------------------------------------------------
def _new_stores():
    kernels = Dict.empty(key_type=types.int64, value_type=types.float64[:, :])
    wstore = Dict.empty(key_type=types.int64, value_type=types.float64[:, :])
    vstore = Dict.empty(key_type=types.int64, value_type=types.float64)
    return kernels, wstore, vstore


def _is_symmetric(theta, weights) -> bool:
    """Whether the theta rule is symmetric about 1/2 (what :func:`_weight_matrix` uses)."""
    Q = theta.shape[0]
    return bool(Q > 0 and np.allclose(theta + theta[::-1], 1.0, rtol=0, atol=1e-14)
                and np.allclose(weights, weights[::-1], rtol=1e-9, atol=0)
                and np.all(np.diff(theta) > 0)
                and (Q % 2 == 0 or abs(theta[Q // 2] - 0.5) < 1e-14))


class LatticeDesign:
    """The compiled evaluation of log P_keep(alpha; N) for one design, with its stores.

    A design is the antidiagonal prefix ``t`` of H+ (which fixes n and gamma) and the theta
    rule (nodes and weights, symmetric about 1/2). Get one with :func:`lattice_design`, which
    returns the same object for equal inputs, so the label sweep and the ``MixtureAdjustment``
    Op of one design share the kernels built.

    Parameters
    ----------
    t : ndarray of int64, shape (n + 1,)
        H+ = {a + c <= t[m0 + m1]} (``selbayes.adjustment._mixture._antidiagonal_prefix``).
    theta, weights : ndarray of float64, shape (Q,)
        Theta rule.
    """

    def __init__(self, t, theta, weights):
        self.t = np.ascontiguousarray(t, dtype=np.int64)
        self.theta = np.ascontiguousarray(theta, dtype=np.float64)
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        if not _is_symmetric(self.theta, self.weights):
            raise ValueError("the theta rule must be symmetric about 1/2; use MixtureOmitFactor")
        self.n = self.t.shape[0] - 1
        self.lf = log_factorials(self.n)
        self.kernels, self.wstore, self.vstore = _new_stores()
        self.state = np.array([np.nan, 0.0])     # alpha of wstore / vstore; kernels built
        self._calls = 0

    def trim(self):
        """Empty the kernel store when it holds more than ``_MAX_KERNELS`` (memory only)."""
        # len() of a typed dict is a call into compiled code: check every 256 calls only
        self._calls += 1
        if self._calls % 256 == 0 and len(self.kernels) > _MAX_KERNELS:
            self.kernels.clear()

    def args(self, n1: int) -> tuple:
        """The trailing arguments of the compiled ``_log_keep`` (n1: cases with y = 1)."""
        return (int(n1), self.t, self.lf, self.theta, self.weights, self.kernels, self.wstore,
                self.vstore, self.state)

    def log_keep(self, log_alpha, counts) -> np.ndarray:
        """log P_keep(exp(log_alpha); counts) elementwise in log_alpha (float array, any
        shape); counts = (n00, n01, n10, n11), non-negative and summing to n (not checked)."""
        x = np.asarray(log_alpha, dtype=np.float64)
        n00, n01, n10, n11 = (int(c) for c in counts)
        self.trim()
        return _log_keep_many(np.exp(x.reshape(-1)), n00, n01, n10, n11,
                              *self.args(n01 + n11)).reshape(x.shape)


@numba.njit(cache=True, error_model="numpy")
def _log_keep_many(alphas, n00, n01, n10, n11, n1, t, lf, theta, weights, kernels, wstore,
                   vstore, state):
    out = np.empty(alphas.shape[0])
    for i in range(alphas.shape[0]):
        out[i] = _log_keep(alphas[i], n00, n01, n10, n11, n1, t, lf, theta, weights, kernels,
                           wstore, vstore, state)
    return out


def lattice_design(t, theta, weights) -> LatticeDesign | None:
    """The shared :class:`LatticeDesign` of (t, theta, weights), or None when the theta rule
    is not symmetric about 1/2 (the caller then evaluates in NumPy). Up to 8 designs are kept
    (least recently used dropped)."""
    return _lattice_design(np.ascontiguousarray(t, dtype=np.int64).tobytes(),
                           np.ascontiguousarray(theta, dtype=np.float64).tobytes(),
                           np.ascontiguousarray(weights, dtype=np.float64).tobytes())


@functools.lru_cache(maxsize=8)
def _lattice_design(t: bytes, theta: bytes, weights: bytes) -> LatticeDesign | None:
    # copies: arrays over bytes are read-only, a different type to numba (a new compile)
    theta_a, weights_a = np.frombuffer(theta).copy(), np.frombuffer(weights).copy()
    if not _is_symmetric(theta_a, weights_a):
        return None
    return LatticeDesign(np.frombuffer(t, dtype=np.int64).copy(), theta_a, weights_a)


class FastMixtureFactor(MixtureOmitFactor):
    """:class:`~selbayes.adjustment.MixtureOmitFactor` evaluated in compiled code.

    Same parameters, attributes and values (to ~1e-13 nats); ``log_keep``, the label sweep
    (``selbayes.models._mixture_fast.z_sweep``) and the ``MixtureAdjustment`` Op share one
    kernel store per design (:func:`lattice_design`), kept across sweeps, steps and fits.
    Pickles without its caches.

    Examples
    --------
    >>> f = FastMixtureFactor(4, 4, 0.30)
    >>> round(float(np.exp(f(2.0, (3, 1, 1, 3)))), 6)          # reference value by enumeration
    0.619563
    """

    def __init__(self, n0, n1, threshold, n_theta=None, theta_rule="auto"):
        super().__init__(n0, n1, threshold, n_theta, theta_rule, kernel_cache=1, value_cache=1)
        t, ok, _ = _antidiagonal_prefix(self.n0, self.n1, self.threshold)
        if not ok:  # pragma: no cover - Cor is monotone along antidiagonals; safety net
            raise ValueError("H+ is not a prefix of every antidiagonal; use MixtureOmitFactor")
        self._t = t
        self._reset()
        if self._design is None:
            raise ValueError("the theta rule must be symmetric about 1/2; use MixtureOmitFactor")

    def _reset(self):
        self._design = lattice_design(self._t, self._theta, self._weights)
        self._memo, self._memo_alpha = {}, None

    def __getstate__(self):
        state = self.__dict__.copy()
        for name in ("_design", "_memo", "_memo_alpha"):
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._reset()

    @property
    def n_kernels_built(self) -> int:
        """Kernels computed so far (cache misses) in this process, by every user of the
        design."""
        d = self.__dict__.get("_design")
        return 0 if d is None else int(d.state[1])

    @n_kernels_built.setter
    def n_kernels_built(self, value):   # the base class initialises the counter
        pass

    def compiled_args(self) -> tuple:
        """The trailing arguments of the compiled ``_log_keep`` (n1, then the design's arrays
        and stores), after keeping the kernel store within its bound."""
        self._design.trim()
        return self._design.args(self.n1)

    def log_keep(self, alpha: float, n00: int, n01: int, n10: int, n11: int) -> float:
        """log P_keep(alpha; N) (no input checks), compiled."""
        alpha = float(alpha)
        key = (int(n00), int(n01), int(n10), int(n11))
        # a model's log density asks again and again at one (alpha, N) (every gradient step
        # of theta): answer from a small Python-level memo before entering compiled code
        if alpha != self._memo_alpha:
            self._memo.clear()
            self._memo_alpha = alpha
        v = self._memo.get(key)
        if v is None:
            v = _log_keep(alpha, *key, *self.compiled_args())
            self._memo[key] = v
        return v

    def _log_keep(self, alpha: float, key) -> float:
        return self.log_keep(alpha, *key)

    def cache_info(self) -> dict:
        """Numbers of kept kernels, of values at the current alpha, and of kernels built."""
        d = self._design
        return {"kernels": len(d.kernels), "values": len(d.vstore),
                "kernels_built": self.n_kernels_built}


def mixture_factor(n0: int, n1: int, threshold: float, n_theta: int | None = None,
                   theta_rule: str = "auto") -> FastMixtureFactor:
    """The :class:`FastMixtureFactor` of a design, shared by all fits of this process.

    Kernels depend only on the counts and gamma, so a refit of the same design (another
    chain, the uncorrected twin, a bootstrap of the same class sizes and gamma) reuses them.
    Up to 8 designs are kept (least recently used dropped).
    """
    return _mixture_factor(int(n0), int(n1), float(threshold), n_theta, theta_rule)


@functools.lru_cache(maxsize=8)
def _mixture_factor(n0, n1, threshold, n_theta, theta_rule) -> FastMixtureFactor:
    return FastMixtureFactor(n0, n1, threshold, n_theta, theta_rule)


def compiled_factor(factor: MixtureOmitFactor) -> FastMixtureFactor:
    """``factor`` itself if compiled, else the shared :class:`FastMixtureFactor` of its design
    (same n0, n1, gamma, theta rule and nodes: the same values)."""
    if isinstance(factor, FastMixtureFactor):
        return factor
    return mixture_factor(factor.n0, factor.n1, factor.threshold, factor.n_theta,
                          factor.theta_rule)


