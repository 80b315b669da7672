"""log P(an omitted feature's F statistic <= gamma | tau_mu * w_x): the reference implementation.

The hierarchical Gaussian classifier (Li 2009, section 3) conditioned on an F-statistic
selection carries the factor P(F <= gamma | tau_mu, w_x)^(p - k) (eqs 24, 26). It depends on
tau_mu and w_x only through s = tau_mu * w_x (derived here: with tau_x = T / w_x and T free of
w_x, the Poisson mean in eq 33 is Lambda(z) T / (2 s); checked by simulation in
tests/adjustment/test_fstat.py), so everything here is a function of ``log_scale = log(s)``.

Two methods:

``"exact"``
    Deterministic, accurate to about 1e-12 absolute in log P (see ``_fstat_exact``): the noncentral
    F given T is expanded as a positive mixture of central F terms whose Poisson index has a
    closed-form generating function (negative binomials, one per between-class eigenvalue), and T
    is integrated by a trapezoid rule in log T, which converges geometrically.
``"mc"``
    The paper's recipe (Li 2009, eq 34 and the remarks after it), kept for comparison: one fixed
    pool of ``n_draws`` (Z, T) draws reused at every log_scale (common random numbers), the series
    over k truncated after the last f_k >= e^-10, Poisson weights by recurrence (carried out in log
    space so that large noncentralities do not underflow), the sum over k swapped with the average.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._validation import (
    check_class_counts,
    check_positive,
    check_positive_int,
    check_random_state,
    check_real,
    numeric_array,
)
from ._fstat_exact import ExactTable, f_terms

__all__ = ["fstat_log_omit_prob", "validate_design", "validate_t_df"]

METHODS = ("exact", "mc")
# The paper's truncation of the series over k: keep every f_k >= e^-10.
MC_CUTOFF = float(np.exp(-10.0))


def validate_design(class_counts, threshold, alpha_x):
    """Check and normalise (class_counts, threshold, alpha_x); raise ValueError naming the argument.

    Parameters
    ----------
    class_counts : array_like of int, shape (G,)
        Training cases per class; G >= 2 classes, each >= 1 case, and n - G >= 1 where
        n = sum(class_counts).
    threshold : float
        gamma > 0, the F-statistic threshold (dimensionless).
    alpha_x : float
        Shape parameter of the tau_x prior, > 0.

    Returns
    -------
    counts : ndarray of int64, shape (G,)
        The class counts.
    threshold : float
        gamma as a float.
    alpha_x : float
        alpha_x as a float.

    Raises
    ------
    ValueError
        If ``class_counts`` is not 1-D, has fewer than 2 classes, holds non-integers or
        non-positive counts, or leaves no within-class degree of freedom (n - G < 1); if
        ``threshold`` or ``alpha_x`` is <= 0 or not finite.
    TypeError
        If ``threshold`` or ``alpha_x`` is not a number.

    Examples
    --------
    >>> counts, gamma, alpha_x = validate_design([5, 5], 2, 1)
    >>> counts.tolist(), gamma, alpha_x
    ([5, 5], 2.0, 1.0)
    >>> validate_design([1, 1], 2.0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: class_counts must leave at least one within-class degree of freedom ...
    """
    counts = check_class_counts(class_counts, name="class_counts")
    G = counts.shape[0]
    n = int(counts.sum())
    if n - G < 1:
        raise ValueError(
            f"class_counts must leave at least one within-class degree of freedom (n - G >= 1); "
            f"got n = {n}, G = {G}"
        )
    threshold = check_positive(threshold, name="threshold")
    alpha_x = check_positive(alpha_x, name="alpha_x")
    return counts, threshold, alpha_x


def _as_log_scale(log_scale) -> np.ndarray:
    x = numeric_array(log_scale, "log_scale")
    if np.isnan(x).any():
        raise ValueError("log_scale contains NaN")
    return x


def fstat_log_omit_prob(log_scale, class_counts, threshold, alpha_x, method="exact",
                        n_draws=1000, seed=0, *, mc_cutoff=MC_CUTOFF, mu_t_df=None):
    """log P(F <= threshold) for one omitted feature, as a function of log(tau_mu * w_x).

    Parameters
    ----------
    log_scale : float or array_like of any shape
        log(tau_mu * w_x). +inf gives the limit log Fcdf(threshold; G-1, n-G) (no signal),
        -inf gives -inf. NaN is rejected.
    class_counts : array_like of int, shape (G,)
        Training cases per class; G >= 2 and n - G >= 1.
    threshold : float
        gamma > 0: omitted features have F <= gamma.
    alpha_x : float
        Shape parameter of the prior of tau_x, Gamma(alpha_x / 2, rate alpha_x w_x / 2); > 0.
    method : {"exact", "mc"}
        ``"exact"`` (default): deterministic, about 1e-12 absolute accuracy in log P.
        ``"mc"``: the paper's fixed-pool Monte Carlo estimate (for comparison only).
    n_draws : int
        Size of the (Z, T) pool for ``"mc"``.
    seed : int, numpy Generator or None
        Seed of the ``"mc"`` pool (the same seed gives the same pool, hence common random
        numbers across calls).
    mc_cutoff : float
        ``"mc"`` only: keep the terms k with f_k >= mc_cutoff (the paper: e^-10). The cut biases
        the expected log P downwards only slightly (in the paper's design -2e-7 at
        tau_mu w_x = 20, -4e-5 at 0.05): the error of ``"mc"`` is its Monte Carlo noise, which
        grows without bound as tau_mu w_x -> 0 (the pool average is then dominated by its few
        draws with the smallest Lambda * T). 0 removes the cut.
    mu_t_df : float or None
        None (default): the paper's normal prior mu_g | nu ~ N(nu, 1 / tau_mu). A number
        df > 0: the multivariate-t prior of BCBCSF, mu_g | nu, lambda ~ N(nu, 1/(tau_mu lambda))
        with one lambda ~ Gamma(df/2, rate df/2) per feature shared by its G class means (a
        per-feature variance scale 1/lambda ~ InvGamma(df/2, df/2)). Same accuracy.

    Returns
    -------
    float or ndarray of shape log_scale.shape
        log P, in nats (<= 0).

    Raises
    ------
    ValueError
        If ``method`` is unknown, ``log_scale`` contains NaN, the design is invalid (see
        :func:`validate_design`; ``mu_t_df`` <= 0), or with ``"mc"`` ``n_draws`` is not a
        positive integer, ``seed`` is a negative int or ``mc_cutoff`` is not in [0, 1).
    TypeError
        If ``log_scale`` is not numeric, a scalar argument is not a number, or ``seed`` is not
        None, an int or a Generator.

    Examples
    --------
    A larger tau_mu * w_x (weaker class-mean signal) makes omission more likely; as it grows
    the probability tends to the central F cdf:

    >>> import numpy as np
    >>> from scipy import stats
    >>> from selbayes.adjustment import fstat_log_omit_prob
    >>> counts = [34, 34, 33, 33, 33, 33]                     # G = 6, n = 200
    >>> lp = fstat_log_omit_prob(np.log([20.0, 100.0]), counts, 3.15, 4.0)
    >>> lp.shape, bool(lp[0] < lp[1] < 0)
    ((2,), True)
    >>> no_signal = fstat_log_omit_prob(np.inf, counts, 3.15, 4.0)
    >>> bool(np.isclose(no_signal, stats.f.logcdf(3.15, 5, 194)))
    True
    """
    counts, threshold, alpha_x = validate_design(class_counts, threshold, alpha_x)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    mu_t_df = validate_t_df(mu_t_df)
    x = _as_log_scale(log_scale)
    out = np.empty(x.shape)
    G = counts.shape[0]
    n = int(counts.sum())
    out[np.isposinf(x)] = np.log(f_terms(1, G, n, threshold)[0])
    out[np.isneginf(x)] = -np.inf
    fin = np.isfinite(x)
    if fin.any():
        xf = x[fin]
        if method == "exact":
            table = ExactTable.build(counts, threshold, alpha_x, float(xf.min()), float(xf.max()),
                                     mu_t_df=mu_t_df)
            out[fin] = table.evaluate(xf)
        else:
            out[fin] = _mc_log_prob(xf, counts, threshold, alpha_x, n_draws, seed, mc_cutoff,
                                    mu_t_df=mu_t_df)[0]
    return float(out) if out.ndim == 0 else out


def validate_t_df(mu_t_df):
    """None, or the degrees of freedom of the t prior on the class means (> 0).

    Parameters
    ----------
    mu_t_df : float or None
        Degrees of freedom of the multivariate-t prior on the class means, or None for the
        normal prior.

    Returns
    -------
    float or None
        ``mu_t_df`` as a float, or None.

    Raises
    ------
    ValueError
        If ``mu_t_df`` is <= 0 or not finite.
    TypeError
        If ``mu_t_df`` is neither None nor a number.

    Examples
    --------
    >>> validate_t_df(None) is None, validate_t_df(3)
    (True, 3.0)
    """
    if mu_t_df is None:
        return None
    return check_positive(mu_t_df, name="mu_t_df")


def mc_pool(class_counts, alpha_x, n_draws, seed, mu_t_df=None, *, seed_name="seed"):
    """The paper's fixed pool: Lambda(Z) T for ``n_draws`` draws, shape (n_draws,).

    Lambda(z) = sum_g n_g (z_g - z~)^2 with z~ the count-weighted mean (eq 27);
    T ~ Gamma(alpha_x / 2, rate alpha_x / 2), so that tau_x = T / w_x. With a t prior on the
    class means, T is divided by lambda ~ Gamma(df/2, rate df/2) (drawn after T, so the normal
    pool of a seed is unchanged). ``seed_name``: the seed's name in the messages.
    """
    check_positive_int(n_draws, name="n_draws")
    rng = check_random_state(seed, seed_name)
    counts = np.asarray(class_counts, dtype=np.float64)
    z = rng.standard_normal((int(n_draws), counts.shape[0]))
    zbar = z @ counts / counts.sum()
    lam = ((z - zbar[:, None]) ** 2) @ counts
    t = rng.gamma(alpha_x / 2.0, 2.0 / alpha_x, size=int(n_draws))
    if mu_t_df is not None:
        t = t / rng.gamma(mu_t_df / 2.0, 2.0 / mu_t_df, size=int(n_draws))
    return lam * t


def mc_n_terms(counts, threshold, cutoff=MC_CUTOFF) -> int:
    """Number of series terms the paper's recipe keeps: every k with f_k >= cutoff.

    ``cutoff = 0`` keeps terms down to 1e-300 (no practical truncation). f_k is decreasing in k.
    """
    # the terms f_k are probabilities: at 1 none would be kept
    cutoff = check_real(cutoff, name="mc_cutoff", low=0.0, high=1.0, closed="left")
    cutoff = max(cutoff, 1e-300)
    G = counts.shape[0]
    n = int(counts.sum())
    n_terms = 64
    while True:
        f = f_terms(n_terms, G, n, threshold)
        if f[-1] < cutoff:
            break
        if n_terms > 1_000_000:
            raise ValueError("mc_cutoff is too small for this design: the series does not end")
        n_terms *= 2
    return int(np.count_nonzero(f >= cutoff)) or 1


def _mc_log_prob(x, counts, threshold, alpha_x, n_draws, seed, cutoff=MC_CUTOFF,
                 derivatives=False, mu_t_df=None):
    """Paper's estimator of log P at each x, and optionally its exact x-derivatives (1st, 2nd).

    The Poisson mean for draw d is mu_d = Lambda_d T_d / (2 s), s = e^x. d log Pois(k; mu)/dx
    = mu - k, which gives the derivatives of the same estimator (used to tabulate it).
    """
    G = counts.shape[0]
    n = int(counts.sum())
    k_max = mc_n_terms(counts, threshold, cutoff) - 1
    log_f = np.log(f_terms(k_max + 1, G, n, threshold))
    k = np.arange(k_max + 1, dtype=np.float64)
    lam_t = mc_pool(counts, alpha_x, n_draws, seed, mu_t_df)
    log_half = np.log(0.5 * lam_t)
    chunk = max(1, int(4_000_000 // (lam_t.size * (k_max + 1))))
    res = np.empty((3, x.size))
    for start in range(0, x.size, chunk):
        xs = x[start : start + chunk]
        log_mu = log_half[None, :] - xs[:, None]  # (nx, nd)
        mu = np.exp(log_mu)
        # log Pois(k; mu): the recurrence p_k = p_{k-1} mu / k, in log space.
        log_p = (-mu[:, :, None] + k[None, None, :] * log_mu[:, :, None]
                 - special.gammaln(k + 1.0)[None, None, :])  # (nx, nd, K)
        log_terms = log_p + log_f[None, None, :]
        lmax = log_terms.max(axis=(1, 2), keepdims=True)
        wts = np.exp(log_terms - lmax)
        tot = wts.sum(axis=(1, 2))
        res[0, start : start + chunk] = lmax[:, 0, 0] + np.log(tot) - np.log(lam_t.size)
        if derivatives:
            dlp = mu[:, :, None] - k[None, None, :]
            e1 = (wts * dlp).sum(axis=(1, 2)) / tot
            e2 = (wts * (dlp**2 - mu[:, :, None])).sum(axis=(1, 2)) / tot
            res[1, start : start + chunk] = e1
            res[2, start : start + chunk] = e2 - e1**2
    return res
