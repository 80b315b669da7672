"""Independent Gaussian OBF model: priors, class statistics and the closed-form log h(f).

Foroughi pour & Dalton, "Theory of Optimal Bayesian Feature Filtering" (Bayesian Analysis),
section 2.3, eqs 2.16-2.19. Every block (good class 0, good class 1, bad) has a
normal-inverse-gamma prior

    sigma ~ InvGamma(kappa / 2, scale s / 2),    mu | sigma ~ N(m, sigma / nu),

where sigma is a *variance*. All quantities are vectorised over features and kept in log space.

Normalising-constant convention
-------------------------------
We follow the paper's eq (2.18): with L = A_0 B_0 A_1 B_1 / (A_B B_B) (the prior normalisers),

    log h = logit pi + log L + 1/2 [log(2 pi) + log nu_B* - log nu_0* - log nu_1*] + ...

The explicit sqrt(2 pi) comes from the (2 pi)^(-(N-1)/2) factors of the three marginal
likelihoods (n_0 + n_1 - n = 0 points, but -1/2 - 1/2 + 1/2 = -1/2 in the exponent). The
authors' MATLAB code (``smc_obf.m``) omits this sqrt(2 pi) in its Jeffreys branch and uses a
fixed weight w in place of L, so its weight w corresponds to our L = w / sqrt(2 pi): "L = 0.1"
in the two conventions differs by a factor sqrt(2 pi) ~= 2.507 in h. With proper priors L is
determined by the hyperparameters and the two conventions cannot differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

__all__ = [
    "NIGPrior",
    "OBFPrior",
    "ClassStats",
    "class_stats",
    "log_marginal_likelihood",
    "obf_log_h_from_stats",
]

_LOG_2PI = float(np.log(2.0 * np.pi))
# Columns per block when forming class statistics: bounds temporaries for very wide X.
_BLOCK = 4096


def _as_hyper(value, name: str, *, nonneg: bool) -> np.ndarray | float:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-D (p,) array; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {value!r}")
    if nonneg and np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0 (0 means improper); got {value!r}")
    return float(arr) if arr.ndim == 0 else arr


@dataclass(frozen=True)
class NIGPrior:
    """Normal-inverse-gamma prior of one OBF block (section 2.3 of the paper).

    ``sigma ~ InvGamma(kappa/2, scale=s/2)`` (a variance; prior mean s/(kappa-2) for kappa > 2)
    and ``mu | sigma ~ N(m, sigma/nu)``. Each field is a scalar or a (p,) array. The block is
    *proper* when s, kappa and nu are all > 0; ``s = kappa = nu = 0`` is the Jeffreys
    (improper) block, whose normaliser is absorbed into the user constant L of
    :class:`OBFPrior`. With ``nu = 0`` the mean ``m`` is irrelevant.

    In PyMC terms: ``pm.InverseGamma("sigma2", alpha=kappa/2, beta=s/2)`` and
    ``pm.Normal("mu", m, sigma=sqrt(sigma2/nu))``.

    Parameters
    ----------
    s : float or ndarray of shape (p,)
        Scale of the variance's prior, >= 0 (units of the feature, squared).
    kappa : float or ndarray of shape (p,)
        Its degrees of freedom, >= 0.
    m : float or ndarray of shape (p,), default 0.0
        Prior mean of the block's mean (units of the feature).
    nu : float or ndarray of shape (p,), default 0.0
        Prior sample size of the mean, >= 0 (0: a flat prior on the mean).

    Raises
    ------
    ValueError
        If a field is negative (``s``, ``kappa``, ``nu``), not finite, or has more than one
        dimension.
    """

    s: float | np.ndarray
    kappa: float | np.ndarray
    m: float | np.ndarray = 0.0
    nu: float | np.ndarray = 0.0

    def __post_init__(self):
        for name in ("s", "kappa", "nu"):
            object.__setattr__(self, name, _as_hyper(getattr(self, name), name, nonneg=True))
        object.__setattr__(self, "m", _as_hyper(self.m, "m", nonneg=False))

    @property
    def proper(self) -> bool:
        """True when s, kappa and nu are all > 0 (for every feature)."""
        return bool(np.all(np.asarray(self.s) > 0) and np.all(np.asarray(self.kappa) > 0)
                    and np.all(np.asarray(self.nu) > 0))

    def log_normaliser(self) -> np.ndarray | float:
        """log(A B) = (kappa/2) log(s/2) - lnGamma(kappa/2) + 1/2 log(nu / (2 pi)).

        Only defined for a proper block.
        """
        if not self.proper:
            raise ValueError("the normaliser of an improper NIG block does not exist")
        s, kappa, nu = self.s, self.kappa, self.nu
        return 0.5 * kappa * np.log(0.5 * s) - gammaln(0.5 * kappa) + 0.5 * (np.log(nu) - _LOG_2PI)


@dataclass(frozen=True)
class OBFPrior:
    """The three NIG blocks of the independent Gaussian OBF model, plus L when improper.

    Parameters
    ----------
    good0, good1 : NIGPrior
        Priors of (mu, sigma) of a marker in class 0 and class 1 (``classes[0]``, ``classes[1]``
        of the sorted labels).
    bad : NIGPrior
        Prior of the shared (mu, sigma) of a non-marker.
    log_L : float or ndarray of shape (p,), optional
        log of the constant L = A_0 B_0 A_1 B_1 / (A_B B_B) of eq (2.18), in the *paper's*
        convention (see the module docstring for the sqrt(2 pi) difference with the authors'
        MATLAB code). Required when any block is improper; must be left None when all blocks
        are proper, since L is then fixed by the hyperparameters.
    """

    good0: NIGPrior
    good1: NIGPrior
    bad: NIGPrior
    log_L: float | np.ndarray | None = None

    def __post_init__(self):
        for name in ("good0", "good1", "bad"):
            if not isinstance(getattr(self, name), NIGPrior):
                raise TypeError(f"{name} must be a NIGPrior; got {type(getattr(self, name))!r}")
        if self.proper:
            if self.log_L is not None:
                raise ValueError(
                    "log_L must be None when every block is proper: L is then fixed by the "
                    "hyperparameters (eq 2.18)"
                )
        else:
            if self.log_L is None:
                raise ValueError(
                    "an improper block (s, kappa or nu = 0) needs the constant log_L "
                    "(e.g. OBFPrior.jeffreys(L=0.1))"
                )
            object.__setattr__(self, "log_L", _as_hyper(self.log_L, "log_L", nonneg=False))

    @property
    def proper(self) -> bool:
        return self.good0.proper and self.good1.proper and self.bad.proper

    def resolved_log_L(self) -> np.ndarray | float:
        """log L: from the normalisers for proper priors, else the user's ``log_L``."""
        if self.proper:
            return (self.good0.log_normaliser() + self.good1.log_normaliser()
                    - self.bad.log_normaliser())
        return self.log_L

    @classmethod
    def jeffreys(cls, L: float = 0.1) -> OBFPrior:
        """Improper Jeffreys prior (s = kappa = nu = 0 in every block), paper's JP with L.

        ``L`` uses the paper's convention; to reproduce the authors' MATLAB weight ``w`` pass
        ``L = w / sqrt(2 pi)``.
        """
        L = float(L)
        if not np.isfinite(L) or L <= 0:
            raise ValueError(f"L must be finite and > 0; got {L!r}")
        jp = NIGPrior(s=0.0, kappa=0.0, m=0.0, nu=0.0)
        return cls(good0=jp, good1=jp, bad=jp, log_L=float(np.log(L)))

    @classmethod
    def paper_pp(cls, m1: float = 0.0) -> OBFPrior:
        """The paper's proper prior (its section 6): s = 0.5, kappa = 3, nu = 0.1, m_0 = m_B = 0.

        m_1 is unreadable in the OCR of the paper; with nu = 0.1 it barely matters. Default 0.
        """
        return cls(good0=NIGPrior(0.5, 3.0, 0.0, 0.1), good1=NIGPrior(0.5, 3.0, float(m1), 0.1),
                   bad=NIGPrior(0.5, 3.0, 0.0, 0.1))


@dataclass(frozen=True)
class ClassStats:
    """Per-feature sufficient statistics of a two-class sample (all arrays shape (p,)).

    ``ss0``, ``ss1`` and ``ss`` are sums of squared deviations (class 0, class 1, pooled
    ignoring labels), i.e. (n_y - 1) v_y and (n - 1) v.
    """

    n0: int
    n1: int
    mean0: np.ndarray
    mean1: np.ndarray
    ss0: np.ndarray
    ss1: np.ndarray
    mean: np.ndarray
    ss: np.ndarray


def class_stats(X: np.ndarray, y_index: np.ndarray) -> ClassStats:
    """Two-pass centred class means and sums of squares of ``X`` (n, p) for labels 0/1.

    Centring within class avoids the cancellation of E[x^2] - E[x]^2 for features with large
    offsets. The pooled sum of squares uses the exact decomposition
    SS = SS_0 + SS_1 + (n_0 n_1 / n) (mean_0 - mean_1)^2, a sum of non-negative terms.
    """
    in1 = np.asarray(y_index) == 1
    n1 = int(in1.sum())
    n0 = int(in1.shape[0] - n1)
    p = X.shape[1]
    mean0, mean1, ss0, ss1 = (np.empty(p) for _ in range(4))
    X0, X1 = X[~in1], X[in1]
    for start in range(0, p, _BLOCK):
        sl = slice(start, start + _BLOCK)
        for Xc, mu, ss in ((X0, mean0, ss0), (X1, mean1, ss1)):
            block = Xc[:, sl]
            mu[sl] = block.mean(axis=0)
            r = block - mu[sl]
            ss[sl] = np.einsum("ij,ij->j", r, r)
    n = n0 + n1
    mean = (n0 * mean0 + n1 * mean1) / n
    ss = ss0 + ss1 + (n0 * n1 / n) * (mean0 - mean1) ** 2
    return ClassStats(n0, n1, mean0, mean1, ss0, ss1, mean, ss)


def _posterior_hyper(prior: NIGPrior, N, mean, ss):
    """Posterior (kappa*, nu*, s*) of one block after N points with this mean and SS."""
    kappa_s = prior.kappa + N
    nu_s = prior.nu + N
    # nu N / (nu + N) (mean - m)^2 shrinkage term; it is exactly 0 when nu = 0.
    s_s = prior.s + ss + (prior.nu * N / nu_s) * (mean - prior.m) ** 2
    return kappa_s, nu_s, s_s


def log_marginal_likelihood(prior: NIGPrior, N, mean, ss) -> np.ndarray:
    """log p(S) of N iid Gaussian points under one *proper* NIG block (the paper's eq 2.16).

    Parameters
    ----------
    prior : NIGPrior
        Proper block (s, kappa, nu > 0).
    N : int
        Number of points (>= 1).
    mean, ss : float or ndarray of shape (p,)
        Sample mean and sum of squared deviations of the points, per feature.

    Returns
    -------
    ndarray of shape (p,)
        log density of the data (natural log, in the data's units^-N).
    """
    kappa_s, nu_s, s_s = _posterior_hyper(prior, N, mean, ss)
    return (prior.log_normaliser() + 0.5 * _LOG_2PI + gammaln(0.5 * kappa_s)
            - 0.5 * N * _LOG_2PI - 0.5 * np.log(nu_s) - 0.5 * kappa_s * np.log(0.5 * s_s))


def obf_log_h_from_stats(stats: ClassStats, prior: OBFPrior, prior_marker_prob) -> np.ndarray:
    """log h(f) of eq (2.18) from class sufficient statistics; shape (p,).

    log h(f) = logit pi*(f) is the posterior log-odds that feature f is a marker. Features whose
    pooled s_B* is 0 (constant features under an improper prior) get NaN; features with
    s_B* > 0 but a class s_y* = 0 (constant within a class) get +inf, the limit of eq (2.18).

    Parameters
    ----------
    stats : ClassStats
    prior : OBFPrior
    prior_marker_prob : float or ndarray of shape (p,)
        pi(f), strictly inside (0, 1) (not validated here).
    """
    n0, n1 = stats.n0, stats.n1
    k0, v0, s0 = _posterior_hyper(prior.good0, n0, stats.mean0, stats.ss0)
    k1, v1, s1 = _posterior_hyper(prior.good1, n1, stats.mean1, stats.ss1)
    kb, vb, sb = _posterior_hyper(prior.bad, n0 + n1, stats.mean, stats.ss)
    pi = np.asarray(prior_marker_prob, dtype=np.float64)
    logit_pi = np.log(pi) - np.log1p(-pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (kb/2) log(sb/2) - (k0/2) log(s0/2) - (k1/2) log(s1/2), rearranged as ratios so that
        # the large n log(scale) parts cancel exactly (and the Jeffreys case is exactly
        # location-scale invariant up to rounding).
        data = (0.5 * k0 * np.log(sb / s0) + 0.5 * k1 * np.log(sb / s1)
                + 0.5 * (kb - k0 - k1) * np.log(0.5 * sb))
        log_h = (logit_pi + prior.resolved_log_L()
                 + 0.5 * (_LOG_2PI + np.log(vb) - np.log(v0) - np.log(v1))
                 + gammaln(0.5 * k0) + gammaln(0.5 * k1) - gammaln(0.5 * kb)
                 + data)
    log_h = np.broadcast_to(log_h, np.shape(stats.ss)).astype(np.float64, copy=True)
    degenerate_class = (sb > 0) & ((s0 <= 0) | (s1 <= 0))
    log_h[np.broadcast_to(degenerate_class, log_h.shape)] = np.inf
    log_h[np.broadcast_to(sb <= 0, log_h.shape)] = np.nan
    return log_h
