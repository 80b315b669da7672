"""Adjustment factor for the binary mixture model with absolute-correlation selection.

For one omitted binary feature t of the two-component mixture (Li 2007 thesis, section 2.4.3 and
Appendix 2) this module computes

    log P(|COR(x_t, y)| <= gamma | alpha, z, y)                                (eq 2.97)

which depends on the latent labels z and the response y only through the four counts
``N = (n00, n01, n10, n11)``, ``n_zy = #{i: z_i = z, y_i = y}``.

Algorithm
---------
The thesis (Appendix 2) convolves two 2-D tables per theta node, O(n^4) per node. Here the
lattice sum is reorganised so that the only per-(alpha, theta) work is a bilinear form:

* Given (alpha, theta_t), the numbers of ones in the two components, m0 and m1, are
  independent beta-binomials BB(n^[z], alpha theta, alpha (1 - theta)).
* Given m_z, the ones of component z are spread over its y = 0 and y = 1 cases uniformly at
  random (the cases of a component are exchangeable), so a = #{ones among y = 0 cases of
  component 0} is hypergeometric, and likewise c for component 1. Then I0 = a + c and
  I1 = m0 + m1 - I0.
* On the antidiagonal I0 + I1 = s of the (I0, I1) lattice, Cor is non-increasing in I0 (it
  falls with I0 and rises with I1), so the region H+ = {Cor > gamma} is a prefix
  I0 <= t_s (checked on the mask; the rare non-prefix case falls back to a direct sum).
* Hence P(H+ | alpha, theta) = BB0^T K BB1 with the *kernel*
  ``K[m0, m1] = P(a + c <= t_{m0 + m1} | m0, m1)``, which depends on N and gamma but **not**
  on alpha or theta. K costs O(n^3) once per count configuration and is cached (LRU); each
  alpha then costs O(Q n^2) for Q theta nodes.
* As for naive Bayes (thesis eqs 2.52-2.55; for the mixture, section 2.4.3), P(H-) = P(H+)
  after integrating theta over a rule symmetric about 1/2 (flip x <-> 1 - x), so
  ``log P_keep = log1p(-2 S)``.

H+ is classified exactly as for naive Bayes (``corr_omit_region``: Cor > gamma (1 + 1e-12),
computed by :func:`selbayes.filters.binary_correlation`), so ties at gamma count as
omitted.
The factor is invariant under swapping the component labels; the cache key is the canonical
(sorted) configuration.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from scipy.special import gammaln

from .._validation import check_int
from ._corr import (
    THETA_RULES,
    _beta_binomial_logpmf,
    _check_alpha,
    _check_threshold,
    corr_omit_region,
    lattice_theta_rule,
    theta_quadrature,
)

__all__ = ["mixture_log_omit_prob", "MixtureOmitFactor", "mixture_counts", "canonical_counts"]

# Largest number of float64 elements in one gathered (m0, m1, a) block of the kernel.
_BLOCK_ELEMS = 4_000_000


def _check_counts(counts) -> tuple[int, int, int, int]:
    arr = np.asarray(counts)
    if arr.shape != (4,) or arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)) \
            or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError("counts must be 4 non-negative integers (n00, n01, n10, n11) with "
                         f"n_zy = #{{i: z_i = z, y_i = y}}; got {counts!r}")
    n00, n01, n10, n11 = (int(v) for v in arr)
    if n00 + n10 < 1 or n01 + n11 < 1:
        raise ValueError(f"counts {tuple(arr.tolist())} leave a response class empty "
                         "(need n00 + n10 >= 1 and n01 + n11 >= 1)")
    return n00, n01, n10, n11


def canonical_counts(counts) -> tuple[int, int, int, int]:
    """The label-swap invariant key of ``(n00, n01, n10, n11)``: the smaller of N and its swap.

    The factor is unchanged when components 0 and 1 are exchanged (derived here, not stated in the
    thesis: both components draw phi from the same Beta(alpha theta, alpha (1 - theta))).

    Parameters
    ----------
    counts : sequence of 4 ints
        ``(n00, n01, n10, n11)`` with ``n_zy = #{i: z_i = z, y_i = y}``; not validated.

    Returns
    -------
    tuple of 4 ints
        The lexicographically smaller of ``(n00, n01, n10, n11)`` and ``(n10, n11, n00, n01)``.

    Examples
    --------
    >>> canonical_counts((3, 1, 1, 3)), canonical_counts((1, 3, 3, 1))
    ((1, 3, 3, 1), (1, 3, 3, 1))
    """
    n00, n01, n10, n11 = (int(v) for v in counts)
    return min((n00, n01, n10, n11), (n10, n11, n00, n01))


def mixture_counts(z, y) -> tuple[int, int, int, int]:
    """``(n00, n01, n10, n11)`` with ``n_zy = #{i: z_i = z, y_i = y}`` for 0/1 vectors z, y.

    Parameters
    ----------
    z : array_like of {0, 1}, shape (n_samples,)
        Latent mixture component of each training case.
    y : array_like of {0, 1}, shape (n_samples,)
        Response class of each training case.

    Returns
    -------
    tuple of 4 ints
        ``(n00, n01, n10, n11)``; they sum to n_samples.

    Raises
    ------
    ValueError
        If ``z`` and ``y`` are not 1-D of the same length, or hold values other than 0 and 1.

    Examples
    --------
    >>> mixture_counts([0, 0, 1, 1, 1], [0, 1, 1, 0, 1])
    (1, 1, 1, 2)
    """
    z = np.asarray(z)
    y = np.asarray(y)
    if z.shape != y.shape or z.ndim != 1:
        raise ValueError(f"z and y must be 1-D of the same length; got {z.shape} and {y.shape}")
    # Check values first: bincount of 2 z + y would count y = 2 as (z = 1, y = 0).
    if not (np.isin(z, (0, 1)).all() and np.isin(y, (0, 1)).all()):
        raise ValueError("z and y must hold only 0 and 1")
    c = np.bincount(2 * z.astype(np.int64) + y.astype(np.int64), minlength=4)
    return tuple(int(v) for v in c)


# ---------------------------------------------------------------------------------------------
# The kernel K[m0, m1] (alpha- and theta-free)
# ---------------------------------------------------------------------------------------------

def _antidiagonal_prefix(n0: int, n1: int, gamma: float):
    """t[s] = largest I0 with (I0, s - I0) in H+ (lo_s - 1 if none), s = 0..n0 + n1.

    Returns (t, ok): ``ok`` is False if H+ is not a prefix of some antidiagonal.
    """
    mask, _, _ = corr_omit_region(n0, n1, gamma)
    I0 = np.arange(n0 + 1)[:, None]
    s = I0 + np.arange(n1 + 1)[None, :]
    n = n0 + n1
    counts = np.bincount(s[mask], minlength=n + 1)
    lo = np.maximum(0, np.arange(n + 1) - n1)
    t = lo + counts - 1
    ok = bool(np.array_equal(mask, I0 <= t[s]))
    return t, ok, mask


def lattice_inputs(n0: int, n1: int, threshold: float, n_theta: int | None,
                   theta_rule: str) -> tuple[np.ndarray, np.ndarray]:
    """The lattice evaluation's numbers of one design: the theta rule and the prefix of H+.

    The inputs after the counts of the Ops' ``"lattice"`` evaluation (the |correlation|
    factor's ``"exact"`` method and the mixture's factor): ``theta`` (2, Q), the rule's nodes
    and weights without the nodes 0 and 1 (a constant feature has no H+ mass), and ``prefix``
    (n0 + n1 + 1,) int64, t[s] of :func:`_antidiagonal_prefix`. Arguments as
    :class:`MixtureOmitFactor`'s, already validated.
    """
    theta_rule, n_theta = lattice_theta_rule(n0 + n1, n_theta, theta_rule)
    theta, weights = theta_quadrature(theta_rule, n_theta)
    keep = (theta > 0.0) & (theta < 1.0)               # a constant feature has no H+ mass
    t, ok, _ = _antidiagonal_prefix(n0, n1, threshold)
    if not ok:  # pragma: no cover - Cor is monotone along antidiagonals
        raise RuntimeError("H+ is not a prefix of every antidiagonal for this design")
    return np.stack([theta[keep], weights[keep]]), t.astype(np.int64)


def _log_hypergeom(n_a: int, n_b: int) -> np.ndarray:
    """log P(a | m): a ones among n_a cases when m ones are spread over n_a + n_b cases.

    Shape (n_a + n_b + 1, n_a + 1), -inf off the support.
    """
    m = np.arange(n_a + n_b + 1)[:, None]
    a = np.arange(n_a + 1)[None, :]
    b = m - a
    valid = (b >= 0) & (b <= n_b)
    bb = np.clip(b, 0, n_b)
    out = (gammaln(n_a + 1.0) - gammaln(a + 1.0) - gammaln(n_a - a + 1.0)
           + gammaln(n_b + 1.0) - gammaln(bb + 1.0) - gammaln(n_b - bb + 1.0)
           - gammaln(n_a + n_b + 1.0) + gammaln(m + 1.0) + gammaln(n_a + n_b - m + 1.0))
    return np.where(valid, out, -np.inf)


def _kernel(counts: tuple[int, int, int, int], gamma: float) -> np.ndarray:
    """K[m0, m1] = P((I0, I1) in H+ | m0 ones in component 0, m1 in component 1)."""
    n00, n01, n10, n11 = counts
    n0, n1 = n00 + n10, n01 + n11
    t, ok, mask = _antidiagonal_prefix(n0, n1, gamma)
    if not ok:  # pragma: no cover - Cor is monotone along antidiagonals; safety net
        return _kernel_direct(np.exp(_log_hypergeom(n00, n01)),
                              np.exp(_log_hypergeom(n10, n11)), mask, n00, n10)
    return _kernel_from_prefix(counts, t)


def _kernel_from_prefix(counts, t) -> np.ndarray:
    """K[m0, m1] = P(a + c <= t[m0 + m1] | m0, m1): the kernel from the antidiagonal prefix t
    of H+ (:func:`_antidiagonal_prefix`), shape (N0 + 1, N1 + 1)."""
    n00, n01, n10, n11 = (int(v) for v in counts)
    N0, N1 = n00 + n01, n10 + n11
    t = np.asarray(t)
    hyp0 = np.exp(_log_hypergeom(n00, n01))             # (N0 + 1, n00 + 1): P(a | m0)
    hyp1 = np.exp(_log_hypergeom(n10, n11))             # (N1 + 1, n10 + 1): P(c | m1)
    # F1[m1, j] = P(c <= j - 1 | m1), j = 0..n10 + 1
    F1 = np.zeros((N1 + 1, n10 + 2))
    np.cumsum(hyp1, axis=1, out=F1[:, 1:])
    F1[:, -1] = 1.0
    K = np.empty((N0 + 1, N1 + 1))
    a = np.arange(n00 + 1)
    m1 = np.arange(N1 + 1)
    rows = max(1, _BLOCK_ELEMS // ((N1 + 1) * (n00 + 1)))
    for start in range(0, N0 + 1, rows):                # blocks of m0 rows (memory only)
        m0 = np.arange(start, min(N0 + 1, start + rows))
        tt = t[m0[:, None] + m1[None, :]]               # (b, N1 + 1)
        idx = np.clip(tt[:, :, None] - a[None, None, :] + 1, 0, n10 + 1)
        gathered = F1[m1[None, :, None], idx]           # (b, N1 + 1, n00 + 1)
        K[m0] = np.einsum("ba,bma->bm", hyp0[m0], gathered)
    return K


def _kernel_direct(hyp0, hyp1, mask, n00, n10):  # pragma: no cover - safety net
    N0, N1 = hyp0.shape[0] - 1, hyp1.shape[0] - 1
    K = np.zeros((N0 + 1, N1 + 1))
    for m0 in range(N0 + 1):
        for m1 in range(N1 + 1):
            pa = np.outer(hyp0[m0], hyp1[m1])           # (a, c)
            I0 = np.arange(n00 + 1)[:, None] + np.arange(n10 + 1)[None, :]
            I1 = m0 + m1 - I0
            ok = (I1 >= 0) & (I1 < mask.shape[1])
            K[m0, m1] = pa[ok][mask[I0[ok], I1[ok]]].sum()
    return K


# ---------------------------------------------------------------------------------------------
# Evaluator with caches
# ---------------------------------------------------------------------------------------------

class MixtureOmitFactor:
    """log P(|COR| <= gamma | alpha, N) for one training design (n0, n1, gamma), with caches.

    A sampler that updates the latent labels one at a time needs this factor at many count
    configurations N but, between alpha updates, at one alpha. Two caches make that cheap:

    * the alpha-free kernel of each canonical configuration (LRU, ``kernel_cache`` entries);
    * the values at (configuration, alpha) (LRU, ``value_cache`` entries), so revisiting a
      configuration at the current alpha is a dictionary lookup.

    Parameters
    ----------
    n0, n1 : int
        Training cases with y = 0 and y = 1 (fixed; N must satisfy n00 + n10 = n0, n01 + n11
        = n1).
    threshold : float
        gamma >= 0; lattice points with |Cor| <= gamma (1 + 1e-12) are omitted.
    n_theta : int, optional
        Theta nodes (default: see ``theta_rule``).
    theta_rule : {"auto", "gauss", "simpson", "legendre"}
        Theta quadrature. ``"auto"`` (default): Gauss-Legendre with n // 2 + 1 nodes, exact
        for these sums, up to n of about 250, the mapped Gauss rule with 8 sqrt(n) nodes
        (converged to round-off) beyond (:func:`selbayes.adjustment.lattice_theta_rule`);
        ``"simpson"`` with 11 nodes is the thesis'.
    kernel_cache, value_cache : int
        LRU sizes (numbers of kernels and of (configuration, alpha) values kept).

    Attributes
    ----------
    n0, n1 : int
        Class sizes.
    threshold : float
        gamma.
    n_theta : int
        Number of theta nodes.
    theta_rule : str
        Theta quadrature rule.
    n_kernels_built : int
        Kernels computed so far (cache misses).

    Raises
    ------
    ValueError
        If ``n0`` or ``n1`` is not an integer >= 1, ``threshold`` is negative or not finite,
        ``theta_rule`` is unknown, ``n_theta`` is invalid for the rule, or ``kernel_cache``
        or ``value_cache`` is not an integer >= 0. Calls raise
        ValueError for counts that are not 4 non-negative integers matching (n0, n1), and for
        alpha <= 0.
    TypeError
        If ``threshold`` is not a number.

    Examples
    --------
    >>> f = MixtureOmitFactor(4, 4, 0.30)
    >>> round(float(np.exp(f(2.0, (3, 1, 1, 3)))), 6)          # reference value by enumeration
    0.619563
    >>> f.log_keep(2.0, 1, 3, 3, 1) == f(2.0, (3, 1, 1, 3))    # label swap: same value
    True
    >>> f(np.array([1.0, 2.0]), (3, 1, 1, 3)).shape, f.cache_info()["kernels_built"]
    ((2,), 1)
    """

    def __init__(self, n0: int, n1: int, threshold: float, n_theta: int | None = None,
                 theta_rule: str = "auto", kernel_cache: int = 1024, value_cache: int = 65536):
        n0, n1 = check_int(n0, name="n0", low=1), check_int(n1, name="n1", low=1)
        if theta_rule not in THETA_RULES + ("auto",):
            raise ValueError(f"theta_rule must be one of {THETA_RULES + ('auto',)}; "
                             f"got {theta_rule!r}")
        self.n0, self.n1 = int(n0), int(n1)
        self.threshold = _check_threshold(threshold)
        self.theta_rule, self.n_theta = lattice_theta_rule(self.n0 + self.n1, n_theta,
                                                           theta_rule)
        theta, weights = theta_quadrature(self.theta_rule, self.n_theta)
        keep = (theta > 0.0) & (theta < 1.0)            # constant feature: no H+ mass
        self._theta, self._weights = theta[keep], weights[keep]
        corr_omit_region(self.n0, self.n1, self.threshold)   # validate early
        self._kernels: OrderedDict = OrderedDict()
        self._values: OrderedDict = OrderedDict()
        self._kernel_cache, self._value_cache = (
            check_int(v, name=name, low=0, what="an LRU size")
            for name, v in (("kernel_cache", kernel_cache), ("value_cache", value_cache)))
        self._wms: OrderedDict = OrderedDict()
        self.n_kernels_built = 0

    def _counts(self, counts) -> tuple[int, int, int, int]:
        c = _check_counts(counts)
        if c[0] + c[2] != self.n0 or c[1] + c[3] != self.n1:
            raise ValueError(f"counts {c} do not match n0 = {self.n0}, n1 = {self.n1}")
        return canonical_counts(c)

    def kernel(self, counts) -> np.ndarray:
        """The alpha-free kernel K[m0, m1] of a configuration (cached), shape (n^[0]+1, n^[1]+1).

        ``K[m0, m1]`` is the probability (in [0, 1]) that the lattice point lands in H+ given m0
        ones in component 0 and m1 in component 1; n^[z] is the size of component z of the
        canonical configuration. Read-only.
        """
        key = self._counts(counts)
        return self._kernel_key(key)

    def _kernel_key(self, key):
        K = self._kernels.get(key)
        if K is None:
            K = _kernel(key, self.threshold)
            K.setflags(write=False)
            self.n_kernels_built += 1
            self._kernels[key] = K
            if len(self._kernels) > self._kernel_cache:
                self._kernels.popitem(last=False)
        else:
            self._kernels.move_to_end(key)
        return K

    def _bb(self, alpha: float, size: int) -> np.ndarray:
        """Beta-binomial pmfs BB(size, alpha theta_q, alpha (1 - theta_q)), shape (Q, size + 1)."""
        if size == 0:
            return np.ones((self._theta.shape[0], 1))
        lp, _ = _beta_binomial_logpmf(np.array([[[alpha]]]), self._theta[None, :, None], size,
                                      False)
        return np.exp(lp[0])

    def _weight_matrix(self, alpha: float, N0: int) -> np.ndarray:
        """W[m0, m1] = sum_q w_q BB(m0; N0) BB(m1; n - N0) at alpha (cached per (alpha, N0)).

        Then P(H+ | alpha, N) = sum(K_N * W): at a fixed alpha, a label sweep meets only a few
        component sizes N0, so each new configuration costs one O(n^2) product.
        """
        key = (alpha, N0)
        W = self._wms.get(key)
        if W is None:
            B0 = self._bb(alpha, N0) * self._weights[:, None]
            W = B0.T @ self._bb(alpha, self.n0 + self.n1 - N0)
            self._wms[key] = W
            if len(self._wms) > 256:
                self._wms.popitem(last=False)
        else:
            self._wms.move_to_end(key)
        return W

    def _log_keep(self, alpha: float, key) -> float:
        """log P_keep at one alpha (float) and one canonical configuration (no validation)."""
        vkey = (key, alpha)
        v = self._values.get(vkey)
        if v is None:
            K = self._kernel_key(key)
            W = self._weight_matrix(alpha, key[0] + key[1])
            v = float(np.log1p(-2.0 * np.vdot(K, W)))
            self._values[vkey] = v
            if len(self._values) > self._value_cache:
                self._values.popitem(last=False)
        return v

    def log_keep(self, alpha: float, n00: int, n01: int, n10: int, n11: int) -> float:
        """Fast scalar version of :meth:`log_omit_prob` for samplers (no input checks)."""
        return self._log_keep(alpha, min((n00, n01, n10, n11), (n10, n11, n00, n01)))

    def log_omit_prob(self, alpha, counts):
        """log P_keep(alpha; N), nats; ``alpha`` any shape, ``counts`` = (n00, n01, n10, n11).

        Multiply by p - k for the log adjustment factor. Returns a float for a scalar alpha,
        else an array with the shape of ``alpha``. Also available as ``self(alpha, counts)``.
        """
        a = _check_alpha(alpha)
        key = self._counts(counts)
        out = np.array([self._log_keep(float(v), key) for v in a.ravel()]).reshape(a.shape)
        return float(out) if out.ndim == 0 else out

    __call__ = log_omit_prob

    def cache_info(self) -> dict:
        """Numbers of cached kernels and values, and of kernels built so far.

        Returns a dict with integer entries ``"kernels"``, ``"values"`` and ``"kernels_built"``.
        """
        return {"kernels": len(self._kernels), "values": len(self._values),
                "kernels_built": self.n_kernels_built}


def mixture_log_omit_prob(alpha, counts, threshold: float, n_theta: int | None = None,
                          theta_rule: str = "auto"):
    """log P(|COR| <= gamma | alpha, z, y) for one omitted feature of the mixture (eq 2.97).

    Parameters
    ----------
    alpha : float or array-like of any shape
        Feature concentration alpha > 0.
    counts : array-like of 4 ints
        ``(n00, n01, n10, n11)``, ``n_zy = #{i: z_i = z, y_i = y}`` (see :func:`mixture_counts`).
        With ``(n0, 0, 0, n1)`` (z = y) this is the naive Bayes factor.
    threshold : float
        gamma >= 0 (ties at gamma count as omitted).
    n_theta : int, optional
        Theta nodes (default: see ``theta_rule``).
    theta_rule : {"auto", "gauss", "simpson", "legendre"}
        Theta quadrature (as for :class:`MixtureOmitFactor`).

    Returns
    -------
    float or ndarray with the shape of ``alpha``
        log P_keep, nats. The log adjustment factor is (p - k) times this.

    Raises
    ------
    ValueError
        If ``counts`` is not 4 non-negative integers or leaves a response class empty, alpha
        is <= 0 or not finite, ``threshold`` is negative or not finite, or ``theta_rule`` is
        unknown.
    TypeError
        If ``alpha`` or ``threshold`` is not numeric.

    Examples
    --------
    >>> round(float(np.exp(mixture_log_omit_prob(10.0, (2, 2, 1, 3), 0.20))), 6)   # enumeration
    0.486028

    With z = y, i.e. counts ``(n0, 0, 0, n1)``, it is the naive Bayes factor:

    >>> from selbayes.adjustment import corr_log_omit_prob
    >>> bool(np.isclose(mixture_log_omit_prob(2.0, (4, 0, 0, 4), 0.30),
    ...                 corr_log_omit_prob(2.0, 4, 4, 0.30)))
    True
    """
    c = _check_counts(counts)
    f = MixtureOmitFactor(c[0] + c[2], c[1] + c[3], threshold, n_theta, theta_rule,
                          kernel_cache=1, value_cache=1)
    return f.log_omit_prob(alpha, c)
