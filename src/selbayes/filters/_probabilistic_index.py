"""Empirical-Bayes selection from pairwise probabilistic indices (Thas 2019 note).

For every feature g and state d the target is the probabilistic index

    p_gd = P(Y_{g,-d} < Y_gd) + 1/2 P(Y_{g,-d} = Y_gd),

where Y_{g,-d} is a draw from the other states mixed by prevalence. It is estimated pairwise,
p_hat_d = sum_{k != d} w_dk P_hat_kd, with P_hat_kd = P(Y_k < Y_d) (+ 1/2 ties) the Mann-Whitney
U / (n_k n_d) and w_dk = pi_k / sum_{l != d} pi_l the prevalences renormalised over the other
states (the note, sections 1-2, weights by pi_k itself; renormalising is a correction made here,
so that p_d is a probability with null value 1/2). Its variance is the DeLong structural-component
estimator, whose k != l covariances are the note's estimator (section 2; exactly so with divisor
n_d, ``ddof=0``); the note leaves the k = l variance to Thas (2010), and combining the two is
derived here. Everything comes from mid-ranks (one sort per feature, then count-table look-ups),
vectorised over features.

Tweedie's formula (Efron 2011) then shrinks the estimates toward the bulk of the features,
p_tilde = p_hat + sigma_hat^2 (log f)'(p_hat), with f the marginal density of p_hat over features
(a Gaussian kernel estimate), which reduces the winner's curse of the top-ranked features.

Known limitation (found in simulation here, not in the note)
-------------------------------------------------------------
When many of the selected features have true p above about 0.95 (or below 0.05) and the classes
are small, p_hat is bounded and piles up at 1, so the model p_hat ~ N(p, sigma^2) behind Tweedie's
formula fails. In a simulation with n = (20, 20, 20), q = 0.1, tau = 1.5 the kernel version
barely reduced the top-k bias (+0.014 -> +0.012; a Lindsey density even raised it to +0.036;
``reports/eb_pairwise/report.md`` reproduces the kernel row: +0.017 -> +0.016).
Tweedie *reduces* the winner's curse in moderate regimes (typically by half to two-thirds), it does
not remove it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import check_labels, check_matrix, check_positive
from ._selection import Selection, selection_from_scores

__all__ = [
    "ProbabilisticIndexResult",
    "probabilistic_index",
    "tweedie_correct",
    "tweedie_bandwidth",
    "tweedie_select",
]

_TIES = ("mid", "strict")
_DIRECTIONS = ("both", "upper", "lower")
_KDE = ("auto", "exact", "binned")
# Above this many features the O(m^2) exact kernel sum is replaced by a binned (FFT) one.
_EXACT_KDE_MAX = 2000
# Elements per chunk of the exact kernel sum (bounds memory at ~16 MB per temporary).
_KDE_CHUNK = 2_000_000
_SMALL_CLASS = 5
_SMALL_P = 500


@dataclass(frozen=True, eq=False)
class ProbabilisticIndexResult:
    """Probabilistic indices of every feature for every state, with their variances.

    Attributes
    ----------
    estimate : ndarray, shape (p, G)
        p_hat_gd, columns in ``classes`` order. Null value 1/2 (with ``ties="mid"``).
    variance : ndarray, shape (p, G)
        DeLong variance estimate sigma_hat^2_gd of ``estimate`` (no floor applied).
    hm_variance : ndarray, shape (p, G)
        Hanley-McNeil variance at the continuity-corrected pairwise estimates, combined with
        weights w_dk^2 (cross-covariances ignored): a variance floor added here (not in the note).
    pairwise : ndarray, shape (p, G, G)
        ``pairwise[g, k, d]`` = P_hat(Y_k < Y_d) (+ 1/2 ties with ``ties="mid"``); NaN on the
        diagonal.
    weights : ndarray, shape (G, G)
        ``weights[d, k]`` = w_dk, prevalences renormalised over k != d (zero diagonal).
    classes : ndarray, shape (G,)
        Sorted state labels.
    class_counts : ndarray of int, shape (G,)
        Samples per state, in ``classes`` order.
    constant : ndarray of bool, shape (p,)
        Features with a single value across all samples (p_hat = 1/2, variance 0).
    ties : str
        ``"mid"`` or ``"strict"``.
    ddof : int
        Divisor offset of the sample (co)variances: 1 is DeLong, 0 the note's divisor.
    covariance : ndarray, shape (p, G, G, G), or None
        With ``return_cov=True``: ``covariance[g, d, k, l]`` = Cov_hat(P_hat_kd, P_hat_ld), NaN
        where k == d or l == d.

    Examples
    --------
    A perfectly separating feature has p_hat 0 / 1 and DeLong variance 0; the Hanley-McNeil
    floor keeps its variance positive:

    >>> import numpy as np
    >>> from selbayes.filters import probabilistic_index
    >>> X = np.column_stack([np.arange(10.0), np.full(10, 5.0)])   # feature 1 is constant
    >>> res = probabilistic_index(X, np.repeat([0, 1], 5))
    >>> res.n_features, res.estimate.tolist(), res.constant.tolist()
    (2, [[0.0, 1.0], [0.5, 0.5]], [False, True])
    >>> res.variance[0].tolist(), bool(np.all(res.floored_variance[0] > 0))
    ([0.0, 0.0], True)
    """

    estimate: np.ndarray
    variance: np.ndarray
    hm_variance: np.ndarray
    pairwise: np.ndarray
    weights: np.ndarray
    classes: np.ndarray
    class_counts: np.ndarray
    constant: np.ndarray
    ties: str = "mid"
    ddof: int = 1
    covariance: np.ndarray | None = None

    @property
    def n_features(self) -> int:
        """Number of features p."""
        return int(self.estimate.shape[0])

    @property
    def floored_variance(self) -> np.ndarray:
        """max(variance, hm_variance), shape (p, G): what :func:`tweedie_select` uses."""
        return np.maximum(self.variance, self.hm_variance)


def _prevalence_weights(prevalences, classes: np.ndarray) -> np.ndarray:
    """(G, G) matrix w[d, k] = pi_k / sum_{l != d} pi_l, zero diagonal."""
    G = classes.shape[0]
    if prevalences is None:
        pi = np.ones(G)
    elif isinstance(prevalences, Mapping):
        missing = [c for c in classes.tolist() if c not in prevalences]
        extra = [c for c in prevalences if c not in set(classes.tolist())]
        if missing or extra:
            raise ValueError(
                f"prevalences must have exactly the labels of y {classes.tolist()}; "
                f"missing {missing}, unknown {extra}"
            )
        pi = np.array([prevalences[c] for c in classes.tolist()], dtype=np.float64)
    else:
        try:
            pi = np.asarray(prevalences, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"prevalences must be numeric; got {prevalences!r}") from exc
        if pi.shape != (G,):
            raise ValueError(
                f"prevalences must have one entry per state (shape ({G},), sorted label order "
                f"{classes.tolist()}); got shape {pi.shape}"
            )
    if not np.all(np.isfinite(pi)) or np.any(pi <= 0):
        raise ValueError(f"prevalences must be finite and > 0; got {pi.tolist()}")
    W = np.tile(pi, (G, 1))
    np.fill_diagonal(W, 0.0)
    return W / W.sum(axis=1, keepdims=True)


def _hanley_mcneil(theta: np.ndarray, n_k: int, n_d: int) -> np.ndarray:
    """Hanley-McNeil (1982) variance of P_hat(Y_k < Y_d) at a continuity-corrected theta."""
    N = n_k * n_d
    t = (N * theta + 0.5) / (N + 1.0)
    q1 = t / (2.0 - t)               # P(Y_k < min(Y_d, Y_d'))
    q2 = 2.0 * t * t / (1.0 + t)     # P(max(Y_k, Y_k') < Y_d)
    v = t * (1.0 - t) + (n_d - 1) * (q1 - t * t) + (n_k - 1) * (q2 - t * t)
    return np.maximum(v, 0.0) / N


def _dense_codes(X: np.ndarray) -> np.ndarray:
    """Per feature, 0-based dense ranks of the samples (equal values share a code): (p, n)."""
    Xt = np.ascontiguousarray(X.T)
    order = np.argsort(Xt, axis=1)
    srt = np.take_along_axis(Xt, order, axis=1)
    dense = np.zeros(Xt.shape, dtype=np.int64)
    np.cumsum(srt[:, 1:] > srt[:, :-1], axis=1, out=dense[:, 1:])
    codes = np.empty_like(dense)
    np.put_along_axis(codes, order, dense, axis=1)
    return codes


def probabilistic_index(X, y, prevalences=None, *, ties: str = "mid", ddof: int = 1,
                        return_cov: bool = False) -> ProbabilisticIndexResult:
    """Rank-based probabilistic index of every feature for every state, with its variance.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Feature values; any scale (only ranks are used), ties allowed.
    y : array-like of shape (n_samples,)
        State labels, G >= 2 states with at least 2 samples each.
    prevalences : array-like of shape (G,) or mapping label -> float, optional
        Population prevalences pi (sorted label order for an array). Need not sum to 1: for
        state d they are renormalised over the other states. Default: equal.
    ties : {"mid", "strict"}
        ``"mid"`` (default) scores a tie as 1/2, so the null value is exactly 1/2;
        ``"strict"`` uses the note's literal I{Y_-d < Y_d}, whose null value is below 1/2 when
        there are ties.
    ddof : {1, 0}
        Divisor offset of the placement (co)variances: 1 is DeLong (slightly conservative,
        default), 0 the note's divisor (anti-conservative for small classes, as simulated in
        ``reports/eb_pairwise/report.md``).
    return_cov : bool
        Also return the (K-1) x (K-1) covariance of the pairwise estimates for every state.

    Returns
    -------
    ProbabilisticIndexResult
        ``estimate`` and ``variance`` of shape (p, G), pairwise estimates of shape (p, G, G), the
        Hanley-McNeil variance floor and the flags described there.

    Raises
    ------
    ValueError
        If ``ties`` or ``ddof`` is not one of the allowed values, ``X`` is not a finite 2-D
        array, ``y`` does not match it or has fewer than 2 states or a state with fewer than
        2 samples, or ``prevalences`` has the wrong labels / shape or a value that is not
        finite and > 0.
    TypeError
        If ``X`` or ``prevalences`` is not numeric.

    Warns
    -----
    UserWarning
        When a state has fewer than 5 samples.

    Notes
    -----
    The placement counts c_kj = #{Y_k < Y_dj} + 1/2 #{Y_k = Y_dj} (the mid-rank difference
    R_pooled(Y_dj) - R_d(Y_dj)) are read from per-state cumulative count tables indexed by each
    feature's dense value codes (one sort per feature). Then
    P_hat_kd = mean_j c_kj / n_k, and with the prevalence-weighted placements
    M_j = sum_k w_dk c_kj / n_k and S_i^(k) = share of state d above Y_ki,

        sigma_hat_d^2 = s^2(M) / n_d + sum_k w_dk^2 s^2(S^(k)) / n_k

    (derived here: the note's covariance for k != l and DeLong's variance for k = l in one
    form; s^2 with divisor n - ddof). Cost O(p n log n + G^2 n p), memory O(n p) (O(G n p) with
    ``return_cov``); no Python loop over features.
    Classes with fewer than 5 samples trigger a warning: the normal approximation is poor there.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.filters import probabilistic_index
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 20)
    >>> X = rng.normal(size=(60, 1000)); X[y == 0, :5] += 2.0
    >>> res = probabilistic_index(X, y)
    >>> res.estimate.shape, bool(res.estimate[:5, 0].min() > 0.8)
    ((1000, 3), True)
    """
    if ties not in _TIES:
        raise ValueError(f"ties must be one of {_TIES}; got {ties!r}")
    if isinstance(ddof, bool) or ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1; got {ddof!r}")
    X = check_matrix(X)
    n, p = X.shape
    classes, y_index, counts = check_labels(y, n)
    G = classes.shape[0]
    W = _prevalence_weights(prevalences, classes)
    if counts.min() < _SMALL_CLASS:
        warnings.warn(
            f"state(s) {classes[counts < _SMALL_CLASS].tolist()} have fewer than {_SMALL_CLASS} "
            "samples: the normal approximation behind the variance and Tweedie's formula is poor",
            UserWarning, stacklevel=2,
        )

    # Dense within-feature value codes turn every placement count into a table look-up:
    # for state s, eq[g, c] = #{Y_s = value coded c} and its cumulative sum #{Y_s <= value}.
    codes = _dense_codes(X)                                   # (p, n)
    offset = (np.arange(p, dtype=np.int64) * n)[:, None]
    keys = [codes[:, y_index == c] + offset for c in range(G)]   # flat table indices, (p, n_c)

    pairwise = np.full((p, G, G), np.nan)
    M = [np.zeros((p, counts[d])) for d in range(G)]       # weighted placements per d-point
    T = np.zeros((G, p))                                     # sum_k w^2 s^2(S^(k)) / n_k
    F_store = [dict() for _ in range(G)] if return_cov else None
    S_var = np.zeros((G, G, p)) if return_cov else None      # S_var[d, k] = s^2(S^(k)) / n_k
    for s in range(G):
        ns = int(counts[s])
        eq = np.bincount(keys[s].ravel(), minlength=p * n).reshape(p, n)
        hi = np.cumsum(eq, axis=1, dtype=np.float64)          # #{Y_s <= value}
        if ties == "mid":
            hi -= 0.5 * eq                                    # #{Y_s < value} + 1/2 #{=}
            lo = hi = hi.ravel()
        else:
            lo = (hi - eq).ravel()                            # #{Y_s < value}
            hi = hi.ravel()
        for o in range(G):
            if o == s:
                continue
            F = lo[keys[o]] / ns          # share of s below each o-point: placements, target o
            U = F if hi is lo else hi[keys[o]] / ns   # share of s at or below: 1 - S, target s
            pairwise[:, s, o] = F.mean(axis=1)
            M[o] += W[o, s] * F
            v = U.var(axis=1, ddof=ddof) / counts[o]
            T[s] += W[s, o] ** 2 * v
            if return_cov:
                F_store[o][s] = F
                S_var[s, o] = v

    estimate = np.empty((p, G))
    variance = np.empty((p, G))
    hm = np.zeros((p, G))
    for d in range(G):
        estimate[:, d] = M[d].mean(axis=1)
        variance[:, d] = M[d].var(axis=1, ddof=ddof) / counts[d] + T[d]
        for k in range(G):
            if k != d:
                hm[:, d] += W[d, k] ** 2 * _hanley_mcneil(pairwise[:, k, d], int(counts[k]),
                                                          int(counts[d]))
    constant = codes.max(axis=1) == 0

    cov = None
    if return_cov:
        cov = np.full((p, G, G, G), np.nan)
        for d in range(G):
            nd = int(counts[d])
            for k, Fk in F_store[d].items():
                ck = Fk - Fk.mean(axis=1, keepdims=True)
                for m, Fl in F_store[d].items():
                    cl = Fl - Fl.mean(axis=1, keepdims=True)
                    c = np.einsum("gj,gj->g", ck, cl) / (nd - ddof) / nd
                    if k == m:
                        c = c + S_var[d, k]
                    cov[:, d, k, m] = c
    return ProbabilisticIndexResult(
        estimate=estimate, variance=variance, hm_variance=hm, pairwise=pairwise, weights=W,
        classes=classes, class_counts=counts, constant=constant, ties=ties, ddof=int(ddof),
        covariance=cov,
    )


def tweedie_bandwidth(values) -> float:
    """Normal-reference bandwidth for the first derivative of a density (Gaussian kernel).

    h = s * (4 / (5 m))^(1/7), s = min(SD, IQR / 1.349) (the normal-reference AMISE rule for f';
    a choice made here, the note names no density estimator); if one of SD and IQR is zero the
    other is used. Returns 0.0 when all ``values`` are equal.

    Parameters
    ----------
    values : array-like of any shape
        The m estimates whose density is smoothed (flattened); finite.

    Returns
    -------
    float
        Bandwidth h >= 0, in the units of ``values``; 0.0 for fewer than 2 values or no spread.

    Examples
    --------
    >>> import numpy as np
    >>> z = np.random.default_rng(0).normal(size=1000)
    >>> round(tweedie_bandwidth(z), 4)                 # about SD (4 / 5000)^(1/7)
    0.3494
    >>> tweedie_bandwidth([0.5, 0.5, 0.5])
    0.0
    """
    z = np.asarray(values, dtype=np.float64).ravel()
    m = z.size
    if m < 2 or np.ptp(z) == 0:
        return 0.0
    sd = float(z.std(ddof=1))
    q75, q25 = np.percentile(z, [75, 25])
    iqr = float(q75 - q25) / 1.349
    positive = [s for s in (sd, iqr) if s > 0]
    if not positive:
        return 0.0
    return min(positive) * (4.0 / (5.0 * m)) ** (1.0 / 7.0)


def _kde_score_exact(z: np.ndarray, data: np.ndarray, h: float) -> np.ndarray:
    """(log f_hat)'(z) of a Gaussian KDE of ``data``, exact, chunked, max-shifted."""
    out = np.empty_like(z)
    step = max(1, _KDE_CHUNK // max(data.size, 1))
    for s in range(0, z.size, step):
        diff = data[None, :] - z[s:s + step, None]           # z_i - z
        e = -0.5 * (diff / h) ** 2
        e -= e.max(axis=1, keepdims=True)                     # avoids 0/0 in far tails
        w = np.exp(e)
        out[s:s + step] = (w * diff).sum(axis=1) / (h * h * w.sum(axis=1))
    return out


def _kde_score_binned(z: np.ndarray, data: np.ndarray, h: float,
                      grid_size: int = 1024) -> np.ndarray:
    """(log f_hat)'(z) from a linearly binned Gaussian KDE (FFT convolution), interpolated."""
    lo = min(data.min(), z.min()) - 4.0 * h
    hi = max(data.max(), z.max()) + 4.0 * h
    # At least 8 grid points per bandwidth keeps the binning error far below the KDE's own.
    M = int(min(max(grid_size, np.ceil((hi - lo) / (h / 8.0)) + 1), 2 ** 20))
    grid = np.linspace(lo, hi, M)
    delta = grid[1] - grid[0]
    pos = (data - lo) / delta
    i0 = np.clip(np.floor(pos).astype(np.int64), 0, M - 2)
    frac = pos - i0
    c = np.bincount(i0, 1.0 - frac, minlength=M) + np.bincount(i0 + 1, frac, minlength=M)
    L = int(min(M - 1, np.ceil(7.0 * h / delta)))
    u = np.arange(-L, L + 1) * delta                          # g_a - g_l
    phi = np.exp(-0.5 * (u / h) ** 2)
    # imported here: scipy.signal costs ~0.1 s, and every estimator imports this package
    from scipy.signal import fftconvolve

    dens = fftconvolve(c, phi, mode="same")
    num = fftconvolve(c, phi * (-u) / (h * h), mode="same")
    # Near any data point dens >= ~0.5 (its own bin mass); elsewhere it is FFT round-off.
    floor = 1e-8 * dens.max()
    score = np.where(dens > floor, num / np.maximum(dens, floor), 0.0)
    return np.interp(z, grid, score)


def tweedie_correct(estimate, variance, *, bandwidth: float | None = None, kde: str = "auto",
                    log_density_derivative: Callable | None = None,
                    clip: tuple[float, float] | None = (0.0, 1.0)) -> np.ndarray:
    """Tweedie's formula E(mu | z) = z + sigma^2 (log f)'(z) for one family of estimates.

    Generic: any estimates z_g ~ N(mu_g, sigma_g^2) with mu_g iid over g, here one column of
    probabilistic indices. f is the marginal density of z over the m features, estimated by a
    Gaussian kernel unless ``log_density_derivative`` is given.

    Parameters
    ----------
    estimate : array-like, shape (m,)
        z_g, one per feature (m should be at least a few hundred; a warning is raised below 500).
    variance : array-like, shape (m,)
        sigma_g^2 >= 0 (in squared units of ``estimate``); apply any variance floor beforehand.
    bandwidth : float, optional
        Kernel bandwidth h in units of ``estimate``; default :func:`tweedie_bandwidth`.
    kde : {"auto", "exact", "binned"}
        ``"exact"`` sums all m^2 kernel terms (chunked); ``"binned"`` bins onto a grid with at
        least 8 points per bandwidth and convolves by FFT; ``"auto"`` is exact up to 2 000
        features.
    log_density_derivative : callable, optional
        A known (log f)' (vectorised); replaces the kernel estimate.
    clip : (float, float) or None
        Bounds for the corrected values ((0, 1) for probabilities).

    Returns
    -------
    ndarray, shape (m,)
        The corrected estimates, in the units of ``estimate``.

    Raises
    ------
    ValueError
        If ``estimate`` is not a non-empty finite 1-D array, ``variance`` does not have its
        shape or is negative / not finite, ``kde`` is unknown, ``clip`` is not an ordered
        pair, ``bandwidth`` is not > 0 and finite, or ``log_density_derivative`` returns the
        wrong shape.
    TypeError
        If ``log_density_derivative`` is not callable or ``bandwidth`` is not a number.

    Warns
    -----
    UserWarning
        When the density is estimated from fewer than 500 values.

    Notes
    -----
    Exact for a common known sigma^2; with feature-specific variances the pooled marginal is an
    approximation (a caveat added here to the note's section 3). The KDE estimates f convolved
    with the kernel, which over-smooths and under-shrinks; p_hat is bounded, so the correction
    fails when many true values are beyond 0.95 with small classes (module docstring).

    Examples
    --------
    With mu ~ N(0, 1) and z | mu ~ N(mu, 1), the marginal is N(0, 2), (log f)'(z) = -z / 2 and
    the posterior mean is z / 2:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=1000) + rng.normal(size=1000)
    >>> exact = tweedie_correct(z, np.ones(1000), log_density_derivative=lambda t: -t / 2,
    ...                         clip=None)
    >>> bool(np.allclose(exact, z / 2))
    True
    >>> kde = tweedie_correct(z, np.ones(1000), clip=None)     # kernel estimate of f instead
    >>> kde.shape, bool(np.corrcoef(kde, z / 2)[0, 1] > 0.98), bool(kde.std() < z.std())
    ((1000,), True, True)
    """
    z = np.asarray(estimate, dtype=np.float64)
    v = np.asarray(variance, dtype=np.float64)
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"estimate must be a non-empty 1-D array; got shape {z.shape}")
    if v.shape != z.shape:
        raise ValueError(f"variance must have the shape of estimate {z.shape}; got {v.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError("estimate contains NaN or infinite values")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError("variance must be finite and >= 0")
    if kde not in _KDE:
        raise ValueError(f"kde must be one of {_KDE}; got {kde!r}")
    if clip is not None and not (len(clip) == 2 and float(clip[0]) <= float(clip[1])):
        raise ValueError(f"clip must be a pair (lo, hi) with lo <= hi, or None; got {clip!r}")
    if log_density_derivative is not None:
        if not callable(log_density_derivative):
            raise TypeError("log_density_derivative must be callable")
        score = np.asarray(log_density_derivative(z), dtype=np.float64)
        if score.shape != z.shape:
            raise ValueError(
                f"log_density_derivative returned shape {score.shape}; expected {z.shape}"
            )
    else:
        if z.size < _SMALL_P:
            warnings.warn(
                f"only {z.size} features: the marginal density behind Tweedie's formula needs "
                f"a few hundred or more (at least {_SMALL_P} recommended)",
                UserWarning, stacklevel=2,
            )
        h = tweedie_bandwidth(z) if bandwidth is None else check_positive(bandwidth,
                                                                          name="bandwidth")
        if h == 0.0:
            score = np.zeros_like(z)                # all estimates equal: nothing to shrink
        elif kde == "exact" or (kde == "auto" and z.size <= _EXACT_KDE_MAX):
            score = _kde_score_exact(z, z, h)
        else:
            score = _kde_score_binned(z, z, h)
    out = z + v * score
    if clip is not None:
        out = np.clip(out, clip[0], clip[1])
    return out


def tweedie_select(X, y=None, k: int | None = None, threshold: float | None = None, *,
                   state=None, direction: str = "both", prevalences=None, ties: str = "mid",
                   ddof: int = 1, var_floor: bool = True, bandwidth: float | None = None,
                   kde: str = "auto") -> tuple[np.ndarray, Selection]:
    """Tweedie-corrected probabilistic indices and the features that best separate a state.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or ProbabilisticIndexResult
        The data, or a precomputed :func:`probabilistic_index` result (then ``y`` must be None
        and ``prevalences``, ``ties``, ``ddof`` are taken from it).
    y : array-like of shape (n_samples,)
        State labels (required with a data matrix).
    k : int, optional
        Number of features to keep, 1 <= k < p. Exactly one of ``k`` and ``threshold``.
    threshold : float, optional
        Keep features whose score is strictly greater (score units below, in [0, 1/2]).
    state : label, optional
        The state d to separate. Default: every state, a feature scoring by its best state.
    direction : {"both", "upper", "lower"}
        Per state, the score is |p_tilde - 1/2| (``"both"``: state high or low),
        p_tilde - 1/2 (``"upper"``: state d high, p_tilde near 1) or 1/2 - p_tilde
        (``"lower"``: state d low, p_tilde near 0).
    prevalences, ties, ddof
        Passed to :func:`probabilistic_index`.
    var_floor : bool
        Replace sigma_hat^2 by max(sigma_hat^2, Hanley-McNeil variance at the continuity-corrected
        estimate) before Tweedie (default True), so perfectly separating features, whose DeLong
        variance is 0, are still shrunk (a safeguard added here, not in the note).
    bandwidth, kde
        Passed to :func:`tweedie_correct` (one density per state).

    Returns
    -------
    corrected : ndarray, shape (p, G)
        p_tilde, Tweedie-corrected estimates, clipped to [0, 1], columns in sorted label order.
        Constant features keep p_hat = 1/2 and are left out of the density estimate.
    selection : Selection
        ``statistic="pi_tweedie"``; ``scores`` (shape (p,)) is the per-state score above for
        ``state`` or, with ``state=None``, its maximum over states. Every omitted feature has
        score <= ``threshold``. ``extra`` holds ``corrected``, ``estimate``, ``variance`` (as
        used, after the floor), ``best_state`` (label index achieving the score, shape (p,)),
        ``state`` and ``direction``.

    Raises
    ------
    ValueError
        If ``direction`` is unknown, not exactly one of ``k`` and ``threshold`` is given,
        ``y`` is given with a precomputed result (or missing with a data matrix), ``state`` is
        not a label, every feature is constant, ``k`` is out of range or ``threshold`` keeps no
        or every feature, plus everything :func:`probabilistic_index` and
        :func:`tweedie_correct` raise.
    TypeError
        If ``k`` is not an integer, plus everything :func:`probabilistic_index` raises.

    Notes
    -----
    The note sets no k or threshold: how many to keep is the user's choice. Tweedie reduces,
    but does not remove, the winner's curse; it can fail when many true p are above 0.95 with
    small classes (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.filters import tweedie_select
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat(["a", "b", "c"], 15)
    >>> X = rng.normal(size=(45, 2000)); X[y == "a", :10] += 2.0
    >>> p_tilde, sel = tweedie_select(X, y, k=10, state="a", direction="upper")
    >>> sel.statistic, p_tilde.shape, bool(np.isin(sel.indices, np.arange(10)).mean() >= 0.8)
    ('pi_tweedie', (2000, 3), True)
    """
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {_DIRECTIONS}; got {direction!r}")
    if (k is None) == (threshold is None):
        raise ValueError("give exactly one of k and threshold")
    if isinstance(X, ProbabilisticIndexResult):
        if y is not None:
            raise ValueError("y must be None when X is a ProbabilisticIndexResult")
        res = X
    else:
        if y is None:
            raise ValueError("y is required when X is a data matrix")
        res = probabilistic_index(X, y, prevalences, ties=ties, ddof=ddof)
    p, G = res.estimate.shape
    classes = res.classes
    if state is None:
        states = np.arange(G)
    else:
        hits = np.flatnonzero(classes == state)
        if hits.size != 1:
            raise ValueError(f"state {state!r} is not one of the labels {classes.tolist()}")
        states = hits
    variance = res.floored_variance if var_floor else res.variance
    corrected = res.estimate.copy()
    keep = ~res.constant
    if keep.sum() == 0:
        raise ValueError("every feature is constant; nothing to select")
    for d in range(G):
        corrected[keep, d] = tweedie_correct(res.estimate[keep, d], variance[keep, d],
                                             bandwidth=bandwidth, kde=kde)

    centred = corrected[:, states] - 0.5
    per_state = {"both": np.abs(centred), "upper": centred, "lower": -centred}[direction]
    best = states[np.argmax(per_state, axis=1)]
    scores = per_state.max(axis=1)

    selection = selection_from_scores(
        scores, k, threshold, "pi_tweedie", res.class_counts, classes,
        extra={"corrected": corrected, "estimate": res.estimate, "variance": variance,
               "best_state": best, "state": state, "direction": direction})
    return corrected, selection
