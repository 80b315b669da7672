"""Adjustment factor for binary naive Bayes with absolute-correlation selection.

For one omitted binary feature t and a binary class with ``n0`` / ``n1`` training cases, this
module computes

    log P(|COR_t| <= gamma | alpha, y)                                   (Li 2007 eq 2.52-2.55)

where, given alpha and theta_t ~ U(0, 1), the class-wise numbers of ones ``I0`` and ``I1`` are
independent beta-binomials with parameters (alpha theta_t, alpha (1 - theta_t)) (eqs 2.60, 2.63).
The correlation depends on the data only through (I0, I1), so the probability is a sum over the
(n0 + 1) x (n1 + 1) lattice, integrated over theta (Li 2007 thesis, section 2.3.4).

Algorithm (after thesis eqs 2.52-2.57)
--------------------------------------
* The lattice point (I0, I1) is "retained, positive" (region H+) iff
  ``binary_correlation(I0, I1, n0, n1) > gamma * (1 + 1e-12) + 1e-14``. Lattice points are scored
  with the *same* function that :func:`selbayes.select_features` uses, so a feature scored exactly
  gamma counts as omitted (as in the regions of thesis eqs 2.47-2.51), like the ties that
  selection leaves at gamma; the tiny tolerance absorbs round-off between a score and its mirror
  image.
* By the 0 <-> 1 flip symmetry, P(H-) = P(H+) after integrating theta over a rule symmetric about
  1/2, so ``P_keep = 1 - 2 S`` with ``S = int P(H+ | alpha, theta) dtheta``, and
  ``log P_keep = log1p(-2 S)`` keeps full precision when S is 1e-7.
* H+ is a staircase (Cor is non-increasing in I0 and non-decreasing in I1), so for each I1 the
  H+ points are I0 = 0..r[I1] and the inner sum is a cumulative sum: O(n) per (alpha, theta)
  node. The staircase property is checked on the mask; if it ever failed, the O(n0 n1) mask
  product is used instead.
* Beta-binomial log-pmfs come from cumulative sums of log(a + l) (the product form 2.30), which
  is exact at theta -> 0 and loses no precision at alpha = 1e8, and gives the derivative with
  respect to alpha as cumulative sums of 1 / (a + l).

Theta quadrature
----------------
The (p - k) power multiplies every error in log P_keep by up to 10^4. The default rule,
``"gauss"``, is Gauss-Legendre in u with theta = sin^2(pi u / 2): node spacing is then
proportional to sqrt(theta (1 - theta)), the scale on which binomial probabilities change, and
convergence is spectral. ``"simpson"`` is the thesis' plain composite Simpson rule on [0, 1]
(21 points in the thesis, which is *not* accurate enough: see
``benchmarks/results/corr_adjustment.md``). ``"legendre"`` is plain Gauss-Legendre on [0, 1];
with n // 2 + 1 nodes it is exact for these sums, which are polynomials of degree n in theta
(:func:`lattice_theta_rule`); the binary mixture uses it where that is no more nodes than the
default rule.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np
from scipy.special import gammaln

from .._validation import check_int, check_real, numeric_array
from ..filters._selection import binary_correlation

__all__ = [
    "corr_log_omit_prob",
    "corr_log_omit_prob_grad",
    "corr_omit_region",
    "theta_quadrature",
    "default_n_theta",
    "THETA_RULES",
    "lattice_theta_rule",
]

THETA_RULES = ("gauss", "simpson", "legendre")

# Relative (and absolute) tolerance for classifying a lattice point as scoring above gamma.
_REL_TOL = 1e-12
_ABS_TOL = 1e-14
# Largest number of float64 elements in one (alpha, theta, count) block.
_BLOCK_ELEMS = 2_000_000


# ---------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------

def _check_count(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer; got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1 (a class with no cases has no correlation); "
                         f"got {value}")
    return int(value)


def _check_threshold(threshold) -> float:
    return check_real(threshold, name="threshold", low=0.0)


def _check_alpha(alpha) -> np.ndarray:
    a = numeric_array(alpha, "alpha", must="be a positive number or array")
    if a.size and (not np.all(np.isfinite(a)) or np.any(a <= 0)):
        bad = a[~(np.isfinite(a) & (a > 0))].ravel()[0]
        raise ValueError(f"alpha must be finite and > 0; got {bad!r}")
    return a


def _check_n(n) -> int:
    if isinstance(n, bool | np.bool_) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be the number of training cases n0 + n1, an integer >= 1; "
                         f"got {n!r}")
    return int(n)


def _check_n_theta(n_theta) -> int | None:
    if n_theta is None:
        return None
    return check_int(n_theta, name="n_theta", low=2, what="theta nodes, or None")


def default_n_theta(n: int, rule: str = "gauss") -> int:
    """Default number of theta nodes for a lattice with ``n = n0 + n1`` training cases.

    Binomial probabilities change on the scale sqrt(theta (1 - theta) / n), and the mapped
    Gauss rule spaces nodes ~ pi sqrt(theta (1 - theta)) / n_theta apart, so the node count
    must grow like sqrt(n). A convergence study (n = 20..2000, alpha = e^-5..e^12) gave errors
    in 10^4 log P_keep of ~1e-3 nats at 3 sqrt(n) nodes, ~1e-6 at 4 sqrt(n) and round-off level
    (1e-9..1e-8) from 6 sqrt(n); the default, 8 sqrt(n), has a margin. ``"simpson"`` converges
    only algebraically and needs far more nodes (see ``benchmarks/results/corr_adjustment.md``).

    Parameters
    ----------
    n : int
        Total number of training cases, ``n0 + n1`` (>= 1).
    rule : {"gauss", "simpson", "legendre"}
        Theta quadrature rule (see :func:`theta_quadrature`).

    Returns
    -------
    int
        Number of theta nodes: ``max(48, ceil(8 sqrt(n)))`` for ``"gauss"``; for ``"simpson"``
        ``max(320, ceil(80 sqrt(n)))`` rounded up to an odd number; for ``"legendre"``
        ``n // 2 + 1`` rounded up to an even number, which makes the lattice sums exact
        (:func:`lattice_theta_rule`).

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 1, or ``rule`` is not one of :data:`THETA_RULES`.

    Examples
    --------
    >>> default_n_theta(200), default_n_theta(200, "simpson")
    (114, 1133)
    >>> default_n_theta(10)                                    # never fewer than 48 Gauss nodes
    48
    """
    _check_n(n)
    if rule == "gauss":
        return int(max(48, math.ceil(8.0 * math.sqrt(n))))
    if rule == "simpson":
        m = int(max(320, math.ceil(80.0 * math.sqrt(n))))
        return m + 1 if m % 2 == 0 else m
    if rule == "legendre":
        # n // 2 + 1 nodes make the lattice sums exact; an even count pairs every node with its
        # mirror image 1 - theta, which the compiled mixture factor uses (no middle node)
        q = int(n) // 2 + 1
        return max(2, q + q % 2)
    raise ValueError(f"theta_rule must be one of {THETA_RULES}; got {rule!r}")


def lattice_theta_rule(n: int, n_theta: int | None = None, rule: str = "auto"):
    """The theta rule (name, number of nodes) of a lattice sum over n = n0 + n1 cases.

    With a uniform prior on theta the lattice sums are integrals of polynomials: the
    beta-binomial pmf BB(m; N, alpha theta, alpha (1 - theta)) = C(N, m) (alpha theta)_m
    (alpha (1 - theta))_(N - m) / (alpha)_N is a polynomial of degree N in theta for every
    alpha (rising factorials), so a sum of products of the pmfs of two groups of sizes N0 +
    N1 = n has degree n, and Gauss-Legendre with n // 2 + 1 nodes integrates it exactly
    (degree 2 Q - 1 >= n); the count is rounded up to an even number. ``rule="auto"`` takes
    that exact rule where it has no more nodes than the mapped Gauss default (n up to about
    250) and the mapped Gauss rule (converged to round-off, :func:`default_n_theta`) beyond;
    an explicit ``n_theta`` with ``"auto"`` keeps the mapped Gauss rule, as before the exact
    rule existed.

    Parameters
    ----------
    n : int
        n0 + n1.
    n_theta : int, optional
    rule : {"auto", "gauss", "simpson", "legendre"}

    Returns
    -------
    (str, int)
        The rule and its number of nodes.

    Raises
    ------
    ValueError
        If ``rule`` is unknown, ``n`` is not an integer >= 1, or ``n_theta`` is not None or
        an integer >= 2.

    Examples
    --------
    >>> lattice_theta_rule(100), lattice_theta_rule(1000), lattice_theta_rule(100, 80)
    (('legendre', 52), ('gauss', 253), ('gauss', 80))
    """
    n = _check_n(n)
    n_theta = _check_n_theta(n_theta)
    if rule == "auto":
        if n_theta is None and default_n_theta(n, "legendre") <= default_n_theta(n, "gauss"):
            return "legendre", default_n_theta(n, "legendre")
        rule = "gauss"
    if rule not in THETA_RULES:
        raise ValueError(f"theta_rule must be one of {THETA_RULES + ('auto',)}; got {rule!r}")
    return rule, default_n_theta(n, rule) if n_theta is None else int(n_theta)


@functools.lru_cache(maxsize=64)
def _theta_quadrature_cached(rule: str, n_theta: int) -> tuple[np.ndarray, np.ndarray]:
    if rule == "gauss":
        x, w = np.polynomial.legendre.leggauss(n_theta)
        u = 0.5 * (x + 1.0)
        # theta = sin^2(pi u / 2); written with sin of half-angles so that theta near 0 and
        # near 1 keep full relative precision and the rule is exactly mirror-symmetric.
        theta = np.sin(0.5 * np.pi * u) ** 2
        one_minus = np.sin(0.5 * np.pi * (1.0 - u)) ** 2
        theta = np.where(u <= 0.5, theta, 1.0 - one_minus)
        weights = 0.5 * w * 0.5 * np.pi * np.sin(np.pi * u)
    elif rule == "legendre":
        # plain Gauss-Legendre on [0, 1], made exactly mirror-symmetric about 1/2
        x, w = np.polynomial.legendre.leggauss(n_theta)
        half = 0.5 * (x + 1.0)
        theta = np.where(np.arange(n_theta) < n_theta // 2, half, 1.0 - half[::-1])
        if n_theta % 2 == 1:
            theta[n_theta // 2] = 0.5
        weights = 0.25 * (w + w[::-1])
    elif rule == "simpson":
        if n_theta < 3 or n_theta % 2 == 0:
            raise ValueError(f"Simpson's rule needs an odd n_theta >= 3; got {n_theta}")
        theta = np.linspace(0.0, 1.0, n_theta)
        h = 1.0 / (n_theta - 1)
        weights = np.full(n_theta, 2.0)
        weights[1::2] = 4.0
        weights[0] = weights[-1] = 1.0
        weights *= h / 3.0
    else:
        raise ValueError(f"theta_rule must be one of {THETA_RULES}; got {rule!r}")
    theta.setflags(write=False)
    weights.setflags(write=False)
    return theta, weights


def theta_quadrature(rule: str = "gauss", n_theta: int = 161) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of a theta rule on [0, 1], symmetric about 1/2.

    Parameters
    ----------
    rule : {"gauss", "simpson", "legendre"}
        ``"gauss"``: Gauss-Legendre in u with theta = sin^2(pi u / 2) (no endpoint nodes);
        ``"simpson"``: composite Simpson on equally spaced theta, endpoints included;
        ``"legendre"``: Gauss-Legendre in theta (exact for polynomials of degree
        2 n_theta - 1).
    n_theta : int
        Number of nodes, >= 2 (odd and >= 3 for Simpson).

    Returns
    -------
    theta : ndarray of shape (n_theta,)
        Nodes in [0, 1] (probabilities), increasing, mirror-symmetric about 1/2. Read-only.
    weights : ndarray of shape (n_theta,)
        Quadrature weights for the U(0, 1) density; ``weights.sum() == 1`` up to round-off.
        Read-only.

    Raises
    ------
    ValueError
        If ``n_theta`` is not an integer >= 2, if ``rule`` is unknown, or if ``rule="simpson"``
        and ``n_theta`` is even.

    Examples
    --------
    >>> theta, weights = theta_quadrature("simpson", 5)
    >>> theta.tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> (12 * weights).round(6).tolist()                          # Simpson's 1-4-2-4-1 / 12
    [1.0, 4.0, 2.0, 4.0, 1.0]
    >>> theta, weights = theta_quadrature("gauss", 8)
    >>> theta.round(4).tolist()                                   # no endpoint nodes
    [0.001, 0.0253, 0.1326, 0.3579, 0.6421, 0.8674, 0.9747, 0.999]
    >>> bool(np.isclose(weights.sum(), 1.0)), bool(np.isclose(weights @ theta**2, 1 / 3))
    (True, True)
    """
    if isinstance(n_theta, bool) or not isinstance(n_theta, numbers.Integral) or n_theta < 2:
        raise ValueError(f"n_theta must be an integer >= 2; got {n_theta!r}")
    return _theta_quadrature_cached(str(rule), int(n_theta))


# ---------------------------------------------------------------------------------------------
# The H+ region
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=128)
def _region_cached(n0: int, n1: int, gamma: float):
    I0 = np.arange(n0 + 1, dtype=np.float64)[:, None]
    I1 = np.arange(n1 + 1, dtype=np.float64)[None, :]
    cor = binary_correlation(I0, I1, n0, n1)
    mask = cor > gamma * (1.0 + _REL_TOL) + _ABS_TOL          # (n0 + 1, n1 + 1)
    counts = mask.sum(axis=0)                                  # H+ points in each I1 column
    # Staircase: column I1 of H+ is I0 = 0..counts[I1] - 1.
    prefix = np.arange(n0 + 1)[:, None] < counts[None, :]
    staircase = bool(np.array_equal(prefix, mask))
    mask.setflags(write=False)
    counts.setflags(write=False)
    return mask, counts, staircase


def corr_omit_region(n0: int, n1: int, threshold: float):
    """The lattice region H+ = {(I0, I1): Cor(I0, I1) > gamma} (thesis eqs 2.50, 2.56-2.57).

    Parameters
    ----------
    n0, n1 : int
        Training cases in class 0 and class 1.
    threshold : float
        gamma >= 0 (a correlation, dimensionless). Points with Cor <= gamma (1 + 1e-12) count
        as omitted.

    Returns
    -------
    mask : ndarray of bool, shape (n0 + 1, n1 + 1)
        ``mask[I0, I1]`` is True on H+.
    counts : ndarray of int, shape (n1 + 1,)
        Number of H+ points in each column; r[I1] of the thesis is ``counts[I1] - 1`` and
        b0 is the first I1 with ``counts[I1] > 0``.
    staircase : bool
        Whether every column of H+ is a prefix I0 = 0..r[I1] (expected always).
    The arrays are cached and read-only.

    Raises
    ------
    TypeError
        If ``n0`` or ``n1`` is not an integer, or ``threshold`` is not a number.
    ValueError
        If ``n0`` or ``n1`` is < 1, or ``threshold`` is negative or not finite.

    Examples
    --------
    >>> mask, counts, _ = corr_omit_region(8, 14, 0.2)       # the thesis' Fig 2.3 setting
    >>> (counts - 1)[2:].tolist()                              # r[I1] for I1 = 2..14
    [0, 0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 7]
    """
    n0 = _check_count(n0, "n0")
    n1 = _check_count(n1, "n1")
    g = _check_threshold(threshold)
    return _region_cached(n0, n1, g)


# ---------------------------------------------------------------------------------------------
# Core computation
# ---------------------------------------------------------------------------------------------

def _beta_binomial_logpmf(alpha, theta, N: int, grad: bool):
    """log P(I | alpha, theta) for I = 0..N under BetaBinomial(N, alpha theta, alpha (1 - theta)).

    alpha has shape (A, 1, 1), theta shape (1, Q, 1). Returns logP of shape (A, Q, N + 1) and,
    if ``grad``, d logP / d alpha of the same shape. Uses the product form (2.30):
    log U = sum_{l<I} log(a + l) + sum_{l<N-I} log(b + l) - sum_{l<N} log(a + b + l).
    """
    ell = np.arange(N, dtype=np.float64)
    a = alpha * theta
    b = alpha * (1.0 - theta)
    shape = np.broadcast_shapes(a.shape[:2], b.shape[:2]) + (N + 1,)
    with np.errstate(divide="ignore"):
        LA = np.zeros(shape)
        np.cumsum(np.log(a + ell), axis=-1, out=LA[..., 1:])
        LB = np.zeros(shape)
        np.cumsum(np.log(b + ell), axis=-1, out=LB[..., 1:])
    LAB = np.sum(np.log(alpha + ell), axis=-1, keepdims=True)
    I = np.arange(N + 1)
    logC = gammaln(N + 1.0) - gammaln(I + 1.0) - gammaln(N - I + 1.0)
    logP = logC + LA + LB[..., ::-1] - LAB
    if not grad:
        return logP, None
    DA = np.zeros(shape)
    np.cumsum(theta / (a + ell), axis=-1, out=DA[..., 1:])
    DB = np.zeros(shape)
    np.cumsum((1.0 - theta) / (b + ell), axis=-1, out=DB[..., 1:])
    DAB = np.sum(1.0 / (alpha + ell), axis=-1, keepdims=True)
    return logP, DA + DB[..., ::-1] - DAB


def _hplus_mass(alpha, n0, n1, gamma, theta, weights, grad):
    """S(alpha) = sum_q w_q P(H+ | alpha, theta_q) and dS/dalpha, for a 1-D alpha array."""
    mask, counts, staircase = _region_cached(n0, n1, gamma)
    A = alpha.shape[0]
    S = np.zeros(A)
    dS = np.zeros(A) if grad else None
    if not mask.any() or A == 0:
        return S, dS
    # Constant-feature nodes (theta in {0, 1}) have no H+ mass (Cor := 0): skip them.
    keep = (theta > 0.0) & (theta < 1.0)
    theta, weights = theta[keep], weights[keep]
    Q = theta.shape[0]
    # Only the I1 columns that touch H+ matter.
    cols = np.flatnonzero(counts > 0)
    block = max(1, _BLOCK_ELEMS // (Q * (max(n0, n1) + 1) * (3 if grad else 2)))
    th = theta[None, :, None]
    for start in range(0, A, block):
        al = alpha[start:start + block, None, None]
        lp0, d0 = _beta_binomial_logpmf(al, th, n0, grad)
        lp1, d1 = _beta_binomial_logpmf(al, th, n1, grad)
        P0 = np.exp(lp0)
        P1 = np.exp(lp1[..., cols])
        if staircase:
            C0 = np.zeros(P0.shape[:2] + (n0 + 2,))
            np.cumsum(P0, axis=-1, out=C0[..., 1:])
            C0r = C0[..., counts[cols]]                         # sum_{I0 <= r[I1]} P0
            Sq = np.einsum("aqj,aqj->aq", P1, C0r)
        else:  # pragma: no cover - Cor is monotone; kept as a safety net
            M = mask[:, cols].astype(np.float64)
            C0r = np.einsum("aqi,ij->aqj", P0, M)
            Sq = np.einsum("aqj,aqj->aq", P1, C0r)
        S[start:start + block] = Sq @ weights
        if grad:
            if staircase:
                CD0 = np.zeros_like(C0)
                np.cumsum(P0 * d0, axis=-1, out=CD0[..., 1:])
                CD0r = CD0[..., counts[cols]]
            else:  # pragma: no cover
                CD0r = np.einsum("aqi,ij->aqj", P0 * d0, M)
            dSq = np.einsum("aqj,aqj->aq", P1 * d1[..., cols], C0r) + np.einsum(
                "aqj,aqj->aq", P1, CD0r)
            dS[start:start + block] = dSq @ weights
    return S, dS


def _prepare(alpha, n0, n1, threshold, n_theta, theta_rule):
    a = _check_alpha(alpha)
    n0 = _check_count(n0, "n0")
    n1 = _check_count(n1, "n1")
    g = _check_threshold(threshold)
    if theta_rule not in THETA_RULES:
        raise ValueError(f"theta_rule must be one of {THETA_RULES}; got {theta_rule!r}")
    if n_theta is None:
        n_theta = default_n_theta(n0 + n1, theta_rule)
    theta, weights = theta_quadrature(theta_rule, n_theta)
    return a, n0, n1, g, theta, weights


def _finish(a, values):
    out = values.reshape(a.shape)
    return float(out) if out.ndim == 0 else out


def corr_log_omit_prob(alpha, n0: int, n1: int, threshold: float, n_theta: int | None = None,
                       theta_rule: str = "gauss", *, return_grad: bool = False):
    """log P(|COR| <= gamma | alpha) for one omitted binary feature (Li 2007 eq 2.52-2.55).

    Parameters
    ----------
    alpha : float or array-like of any shape
        The naive Bayes concentration alpha > 0 (phi_{y,t} ~ Beta(alpha theta_t,
        alpha (1 - theta_t)), theta_t ~ U(0, 1)).
    n0, n1 : int
        Training cases in class 0 and in class 1 (the class vector is fixed).
    threshold : float
        gamma >= 0: the feature is omitted iff |Cor| <= gamma (ties at gamma are omitted, with a
        relative tolerance of 1e-12), Cor computed by
        :func:`selbayes.filters.binary_correlation`.
    n_theta : int, optional
        Number of theta nodes; default :func:`default_n_theta` (spectrally converged for
        ``"gauss"``).
    theta_rule : {"gauss", "simpson"}
        Theta quadrature (see :func:`theta_quadrature`). ``"simpson"`` with ``n_theta=21`` is the
        thesis' rule.
    return_grad : bool
        Also return d log P / d log alpha.

    Returns
    -------
    log_p : float or ndarray with the shape of ``alpha``
        log P_keep(alpha) <= 0, in nats. Multiply by p - k for the log adjustment factor.
    dlog_p_dlog_alpha : float or ndarray, only if ``return_grad``
        Its derivative with respect to log alpha (exact for the chosen quadrature rule).

    Raises
    ------
    TypeError
        If ``alpha`` is not numeric, ``n0`` / ``n1`` are not integers, or ``threshold`` is not a
        number.
    ValueError
        If any alpha is <= 0 or not finite, ``n0`` or ``n1`` is < 1, ``threshold`` is negative
        or not finite, ``theta_rule`` is unknown, or ``n_theta`` is invalid for the rule.

    Examples
    --------
    >>> round(float(np.exp(corr_log_omit_prob(2.0, 4, 4, 0.30))), 6)     # by enumeration
    0.493055
    >>> from scipy.stats import invgamma    # K = 30 nodes m = 1, 26; ref.: 2001-point Simpson
    >>> alpha = invgamma(0.5, scale=5.0).ppf(np.array([0.5, 25.5]) / 30)
    >>> np.round(9000 * corr_log_omit_prob(alpha, 100, 100, 0.13), 1).tolist()
    [-9938.4, -1082.2]
    """
    a, n0, n1, g, theta, weights = _prepare(alpha, n0, n1, threshold, n_theta, theta_rule)
    flat = a.ravel()
    S, dS = _hplus_mass(flat, n0, n1, g, theta, weights, return_grad)
    log_p = np.log1p(-2.0 * S)
    if not return_grad:
        return _finish(a, log_p)
    dlog = -2.0 * dS * flat / (1.0 - 2.0 * S)
    return _finish(a, log_p), _finish(a, dlog)


def corr_log_omit_prob_grad(alpha, n0: int, n1: int, threshold: float,
                            n_theta: int | None = None, theta_rule: str = "gauss"):
    """d log P(|COR| <= gamma | alpha) / d log alpha (Li 2007 eq 2.52-2.55).

    The derivative that a gradient-based sampler needs when it moves on log alpha; it is the
    second output of ``corr_log_omit_prob(..., return_grad=True)``.

    Parameters
    ----------
    alpha : float or array-like of any shape
        Naive Bayes concentration alpha > 0.
    n0, n1 : int
        Training cases in class 0 and in class 1.
    threshold : float
        gamma >= 0, the |correlation| threshold.
    n_theta : int, optional
        Number of theta nodes; default :func:`default_n_theta`.
    theta_rule : {"gauss", "simpson"}
        Theta quadrature (see :func:`theta_quadrature`).

    Returns
    -------
    float or ndarray with the shape of ``alpha``
        d log P_keep / d log alpha (nats per unit of log alpha).

    Raises
    ------
    TypeError, ValueError
        For invalid arguments, as :func:`corr_log_omit_prob`.

    Examples
    --------
    The derivative agrees with a central finite difference in log alpha:

    >>> g = corr_log_omit_prob_grad(2.0, 4, 4, 0.30)
    >>> h = 1e-5
    >>> fd = (corr_log_omit_prob(2.0 * np.exp(h), 4, 4, 0.30)
    ...       - corr_log_omit_prob(2.0 * np.exp(-h), 4, 4, 0.30)) / (2 * h)
    >>> round(g, 6), bool(abs(g - fd) < 1e-8)
    (0.043601, True)
    >>> corr_log_omit_prob_grad([0.5, 2.0, 50.0], 4, 4, 0.30).shape
    (3,)
    """
    return corr_log_omit_prob(alpha, n0, n1, threshold, n_theta, theta_rule,
                              return_grad=True)[1]
