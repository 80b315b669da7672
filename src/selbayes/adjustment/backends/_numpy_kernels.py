"""The NumPy evaluations of the selection-adjustment Ops (``perform``; JAX reuses the first three).

Each kernel evaluates l(x) = log P(an omitted feature fails the selection | x), or dl/dx, for
a float64 array x of any shape, from the numbers of one evaluation method (the inputs after x,
built by the statistics' parameter builders):

``table`` (``coef`` (6, m), ``edges`` (8,))
    A piecewise quintic Hermite table on m equispaced pieces of width ``spacing`` with analytic
    tails. The tails are the 8 numbers of ``edges`` (:data:`EDGE_KEYS`): beyond an end e with
    value l, slope dl and rate r, l(x) = l + dl (exp(r d) - 1) / r with d = x - e (r = 0:
    linear).
``mc`` (``terms`` (2, K), ``log_half_pool`` (D,))
    The paper's Monte Carlo expectation with common random numbers (Li 2009 eq 34):
    l(x) = log mean_d sum_k Pois(k; mu_d) f_k with mu_d = exp(log_half_pool_d - x) and
    ``terms`` = (log f_k - log k!, k).
``convolution`` (``grid`` (2, J), ``prior`` (5,), ``edges`` (8,))
    The trapezoid convolution in log t of the F statistic's exact method:
    l(x) = log sum_j exp(psi(x + w_j) + log g_j) inside [x_lo, x_hi], the tails outside.
``lattice`` (``counts`` (4,) int64, ``theta`` (2, Q), ``prefix`` (n + 1,) int64)
    The theta quadrature of the |correlation| lattice sum, l(x) = log(1 - 2 sum_q w_q BB0_q' K_N
    BB1_q) at alpha = exp(x), with the alpha-free kernel K_N of :mod:`selbayes.adjustment._mixture`.

Nothing here knows the Op: :mod:`selbayes.adjustment._base` calls :data:`KERNELS` from
``perform``, and :mod:`selbayes.adjustment.backends._jax` calls the same functions with
``xp=jax.numpy`` (one arithmetic for both backends, so they cannot drift apart).

References
----------
.. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models, eqs 26-34.
.. [2] Li, L. (2007). Bayesian classification and regression with high dimensional features.
   PhD thesis, University of Toronto, sections 2.3-2.4.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._corr import _beta_binomial_logpmf
from .._mixture import _kernel_from_prefix
from .._mixture_nb import _ALPHA_MAX, _ALPHA_MIN, lattice_design
from .._spline import pieces_numpy

__all__ = ["EDGE_KEYS", "INPUTS", "KERNELS", "evaluate", "table_edges", "zero_table"]

#: Order of the scalars of the ``edges`` input (tails of "table", and of F's "exact").
EDGE_KEYS = ("x_lo", "x_hi", "l_lo", "dl_lo", "r_lo", "l_hi", "dl_hi", "r_hi")

#: Inputs after x of each evaluation: (name, ndim, dtype kind "f" float64 or "i" int64).
INPUTS = {
    "table": (("coef", 2, "f"), ("edges", 1, "f")),
    "mc": (("terms", 2, "f"), ("log_half_pool", 1, "f")),
    "convolution": (("grid", 2, "f"), ("prior", 1, "f"), ("edges", 1, "f")),
    "lattice": (("counts", 1, "i"), ("theta", 2, "f"), ("prefix", 1, "i")),
}


def table_edges(x_lo, x_hi, values, slopes, r_lo, r_hi):
    """The ``edges`` input (:data:`EDGE_KEYS` order) from the function at the two table ends.

    Parameters
    ----------
    x_lo, x_hi : float
        Ends of the tabulated interval (same units as x).
    values, slopes : sequence of float
        l and dl/dx; the first entry is taken at x_lo and the last at x_hi.
    r_lo, r_hi : float
        Tail rates: beyond an end e, l(x) = l(e) + l'(e) (exp(r (x - e)) - 1) / r (r = 0:
        linear).

    Returns
    -------
    ndarray of float64, shape (8,)

    Examples
    --------
    >>> table_edges(-1.0, 2.0, [-3.0, -0.5], [1.0, 0.1], 0.0, -1.0).tolist()
    [-1.0, 2.0, -3.0, 1.0, 0.0, -0.5, 0.1, -1.0]
    """
    return np.array([x_lo, x_hi, values[0], slopes[0], r_lo, values[-1], slopes[-1], r_hi],
                    dtype=np.float64)


def zero_table(x_lo, n_pieces, spacing) -> dict:
    """The ``"table"`` inputs (``coef``, ``edges``) of a function that is 0, with slope 0, at
    every x: a model that omits nothing keeps the adjustment's graph with it (and p - k = 0),
    so that its corrected and uncorrected fits share one compiled model.

    Parameters
    ----------
    x_lo : float
        Start of the table it stands in for.
    n_pieces : int
        Its number of pieces (each table's own rule; the shapes must match).
    spacing : float
        Its knot spacing.

    Returns
    -------
    dict
        ``coef`` float64 zeros (6, n_pieces), ``edges`` float64 (8,).

    Examples
    --------
    >>> t = zero_table(-1.0, 30, 0.1)
    >>> t["coef"].shape, t["edges"].tolist()
    ((6, 30), [-1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    """
    x_hi = x_lo + n_pieces * spacing
    return {"coef": np.zeros((6, n_pieces)),
            "edges": table_edges(x_lo, x_hi, [0.0], [0.0], 0.0, 0.0)}


def _tail(d, l0, dl, r, derivative, xp):
    """l0 + dl (exp(r d) - 1) / r (r = 0: l0 + dl d), or its derivative dl exp(r d).

    At x = -inf (d = -inf) with r = 0, 0 * inf made both NaN (the numba and C backends give
    dl and, for a zero table, l0): r d is read as 0 there, and a slope of 0 adds nothing."""
    d = xp.where(dl == 0.0, 0.0, d)            # a flat tail is l0 wherever x lies
    rd = r * xp.where(r == 0.0, 0.0, d)
    if derivative:
        return dl * xp.exp(rd)
    rs = xp.where(r == 0.0, 1.0, r)
    return l0 + dl * xp.where(r == 0.0, d, xp.expm1(rd) / rs)


def _with_tails(x, mid, edges, derivative, xp):
    x_lo, x_hi, l_lo, dl_lo, r_lo, l_hi, dl_hi, r_hi = (edges[i] for i in range(8))
    low = _tail(xp.minimum(x - x_lo, 0.0), l_lo, dl_lo, r_lo, derivative, xp)
    up = _tail(xp.maximum(x - x_hi, 0.0), l_hi, dl_hi, r_hi, derivative, xp)
    return xp.where(x < x_lo, low, xp.where(x > x_hi, up, mid))


def _eval_table(x, coef, edges, spacing, derivative, xp=np):
    """Quintic pieces inside [x_lo, x_hi], the edges' tails outside."""
    mid, dmid = pieces_numpy(x, coef, edges[0], edges[1], spacing, xp=xp)
    return _with_tails(x, dmid if derivative else mid, edges, derivative, xp)


def _logsumexp_weights(lt, xp):
    """(log sum exp lt, normalised weights) over the last axes of lt (nx, ...)."""
    axes = tuple(range(1, lt.ndim))
    m = xp.max(lt, axis=axes, keepdims=True)
    w = xp.exp(lt - m)
    tot = xp.sum(w, axis=axes, keepdims=True)
    return (m + xp.log(tot)).reshape(lt.shape[0]), w / tot


#: |log mu| of the Monte Carlo kernel's Poisson means is clamped here (exp stays finite).
LOG_MU_MAX = 700.0


def _eval_mc(x, terms, log_half_pool, spacing, derivative, xp=np):
    """log mean_d sum_k Pois(k; mu_d) f_k, mu_d = exp(log_half_pool_d - x); terms = (log f_k -
    log k!, k)."""
    shape = x.shape
    xf = x.reshape(-1)
    # log mu clamped to +-LOG_MU_MAX, as the numba kernel clamps it: beyond, exp(log mu) is
    # 0 or inf and 0 * inf made the value and slope NaN (x below -745 or at +inf)
    log_mu = xp.clip(log_half_pool[None, :, None] - xf[:, None, None], -LOG_MU_MAX,
                     LOG_MU_MAX)                                         # (nx, D, 1)
    mu = xp.exp(log_mu)
    kk = terms[1][None, None, :]
    lt = -mu + kk * log_mu + terms[0][None, None, :]                    # (nx, D, K)
    val, w = _logsumexp_weights(lt, xp)
    if derivative:
        return xp.sum(w * (mu - kk), axis=(1, 2)).reshape(shape)
    return (val - math.log(log_half_pool.shape[0])).reshape(shape)


def _psi(u, prior, derivative, xp):
    """log density of u = log T' (+ log step), or its derivative; prior = (kind, a2, d2,
    log_ratio, const): kind 0 Gamma(a2, rate a2), kind 1 F(2 a2, 2 d2)."""
    kind, a2, d2, lr, const = (prior[i] for i in range(5))
    eu = xp.exp(xp.minimum(u, 700.0))
    z = lr + u
    sp = xp.maximum(z, 0.0) + xp.log1p(xp.exp(-xp.abs(z)))               # softplus
    sig = xp.exp(z - sp)
    if derivative:
        return xp.where(kind == 0.0, a2 * (1.0 - eu), a2 - (a2 + d2) * sig)
    return const + a2 * u - xp.where(kind == 0.0, a2 * eu, (a2 + d2) * sp)


def _eval_convolution(x, grid, prior, edges, spacing, derivative, xp=np):
    """log sum_j exp(psi(x + w_j) + log g_j) inside [x_lo, x_hi], the tails outside."""
    shape = x.shape
    xf = x.reshape(-1)
    xc = xp.clip(xf, edges[0], edges[1])
    u = xc[:, None] + grid[0][None, :]
    lt = _psi(u, prior, False, xp) + grid[1][None, :]
    val, w = _logsumexp_weights(lt, xp)
    mid = xp.sum(w * _psi(u, prior, True, xp), axis=1) if derivative else val
    return _with_tails(xf, mid, edges, derivative, xp).reshape(shape)


@functools.lru_cache(maxsize=256)
def _lattice_kernel(counts: tuple, prefix_bytes: bytes) -> np.ndarray:
    """K[m0, m1] = P(a + c <= t[m0 + m1] | m0, m1), from the antidiagonal prefix t (cached)."""
    K = _kernel_from_prefix(counts, np.frombuffer(prefix_bytes, dtype=np.int64))
    K.setflags(write=False)
    return K


def _eval_lattice(x, counts, theta, prefix, spacing, derivative, xp=np):
    """log(1 - 2 sum_q w_q BB0_q' K BB1_q) at alpha = exp(x), or its derivative in x."""
    shape = np.shape(x)
    c = tuple(int(v) for v in counts)
    if len(c) != 4 or min(c) < 0 or sum(c) != prefix.shape[0] - 1:
        raise ValueError(f"counts {c} must be 4 non-negative integers summing to the design's "
                         f"n = {prefix.shape[0] - 1}")
    if not derivative:
        # the value through the design's compiled evaluation, whose kernels and per-alpha
        # weights are shared with the label sweep (equal to the NumPy form below to ~1e-13)
        design = lattice_design(prefix, theta[0], theta[1])
        if design is not None:
            return design.log_keep(np.asarray(x, dtype=np.float64), c).reshape(shape)
    # alpha clamped as the value's compiled evaluation clamps it (_mixture_nb): exp(x)
    # overflows past x = 709 and is 0 below -745, where the derivative was NaN
    alpha = np.clip(np.exp(np.asarray(x, dtype=np.float64).reshape(-1)), _ALPHA_MIN,
                    _ALPHA_MAX)
    K = _lattice_kernel(c, np.ascontiguousarray(prefix, dtype=np.int64).tobytes())
    N0, N1 = c[0] + c[1], c[2] + c[3]
    al = alpha[:, None, None]
    th = theta[0][None, :, None]
    lp0, d0 = _beta_binomial_logpmf(al, th, N0, derivative)
    lp1, d1 = _beta_binomial_logpmf(al, th, N1, derivative)
    P0, P1 = np.exp(lp0), np.exp(lp1)                             # (A, Q, N + 1)
    KP1 = np.einsum("ij,aqj->aqi", K, P1)
    S = np.einsum("aqi,aqi->aq", P0, KP1) @ theta[1]
    if not derivative:
        return np.log1p(-2.0 * S).reshape(shape)
    dS = (np.einsum("aqi,aqi->aq", P0 * d0, KP1)
          + np.einsum("aqi,ij,aqj->aq", P0, K, P1 * d1)) @ theta[1]
    return (-2.0 * dS * alpha / (1.0 - 2.0 * S)).reshape(shape)


#: evaluation name -> kernel ``f(x, *inputs, spacing, derivative, xp=np)``
KERNELS = {"table": _eval_table, "mc": _eval_mc, "convolution": _eval_convolution,
           "lattice": _eval_lattice}


def evaluate(evaluation, x, inputs, spacing=0.0, derivative=False, xp=np):
    """l(x) (or dl/dx) of one evaluation method, elementwise, in NumPy (or ``xp``).

    Parameters
    ----------
    evaluation : {"table", "mc", "convolution", "lattice"}
        The evaluation method (see the module docstring).
    x : ndarray of float64, any shape
        The Op's first input (log(tau_mu w_x) for the F statistic, log alpha otherwise).
    inputs : sequence of ndarray
        The method's inputs after x, in :data:`INPUTS` order.
    spacing : float
        Knot spacing of a ``"table"`` (units of x); ignored by the other methods.
    derivative : bool
        Return dl/dx instead of l.
    xp : module
        Array namespace (NumPy, or ``jax.numpy`` for every method but ``"lattice"``).

    Returns
    -------
    ndarray of float64 with the shape of x
        l in nats, or dl/dx in nats per unit of x.

    Raises
    ------
    ValueError
        If ``evaluation`` is unknown (the lattice kernel raises for counts that do not match
        the design).

    Examples
    --------
    A one-piece table of l(x) = x on [0, 1] with linear tails:

    >>> import numpy as np
    >>> coef = np.array([[0.0], [1.0], [0.0], [0.0], [0.0], [0.0]])
    >>> edges = table_edges(0.0, 1.0, [0.0, 1.0], [1.0, 1.0], 0.0, 0.0)
    >>> evaluate("table", np.array([-1.0, 0.5, 3.0]), (coef, edges), spacing=1.0).tolist()
    [-1.0, 0.5, 3.0]
    """
    if evaluation not in KERNELS:
        raise ValueError(f"evaluation must be one of {tuple(KERNELS)}; got {evaluation!r}")
    return KERNELS[evaluation](x, *inputs, spacing, derivative, xp=xp)
