"""A Bayesian probit regression on all features, fitted by expectation propagation (EP).

    P(y = 1 | x) = Phi(b + z'w),   w ~ N(0, (s / p) I),   b ~ N(0, s_b),   log s ~ N(0, sd^2),

z the features standardised by the training means and standard deviations (constant ones
dropped), p their number. The latent values f = b + Zw of the n training cases are
N(0, K) with K = s Z Z' / p + s_b: a Gaussian-process classifier with a linear kernel, so the
fit works with n x n matrices whatever p (Rasmussen and Williams 2006, ch. 3). Given s, EP
approximates the posterior of f (their Algorithm 3.5, sequential site updates) and the
marginal likelihood (their eq. 3.65), which, unlike the Laplace approximation's, stays close
to the exact one at large latent scales (Kuss and Rasmussen 2005); the predictive is their
Algorithm 3.6, Phi(mean / sqrt(1 + var)) of the test latent. s is integrated over its prior on
a grid of log s (weights prior x EP marginal likelihood), not set at the maximum: with more
features than cases the classes are always linearly separable and the marginal likelihood
levels off as s grows, so its maximum runs to the end of any range.

This is the all-genes linear component that :class:`selbayes.estimators.LinearStackedClassifier`
stacks beside the selection-corrected model (reports/plasmode/bayes_linear_ep and
bayes_linear_ep_confirm). Two classes; for more,
:func:`selbayes.models.fit_nested_probit` combines binary fits of this model.

References
----------
Rasmussen, C. E. and Williams, C. K. I. (2006). Gaussian Processes for Machine Learning. MIT
Press, ch. 3. Kuss, M. and Rasmussen, C. E. (2005). Assessing approximate inference for binary
Gaussian process classification. JMLR 6, 1679-1704.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, logsumexp

from .._rounding import column_units, normal_scale, varies
from .._validation import check_matrix, check_positive, check_positive_int, check_real, labels_1d
from ._linear_probit_nb import ep_sweep, site_log_z

__all__ = ["ep_probit", "fit_linear_probit", "LinearProbitFit", "standardise_features",
           "standardise_test",
           "fit_gram", "gram_log_proba", "check_test_matrix", "check_min_weight", "LOG_S_GRID",
           "LOG_S_SD", "INTERCEPT_VARIANCE"]

#: Prior variance s_b of the intercept (probit units).
INTERCEPT_VARIANCE = 4.0
#: The grid of log s on which the prior and the marginal likelihood are evaluated.
LOG_S_GRID = np.arange(-8.0, 10.0 + 1e-9, 0.5)
#: Prior standard deviation of log s (mean 0: a latent standard deviation of 1, a moderate
#: separation of the classes; s from 0.02 to 55 within two standard deviations).
LOG_S_SD = 2.0
#: Site precisions are kept above this: a site that carries no information has precision 0,
#: and its terms of the marginal likelihood vanish in that limit.
MIN_TAU = 1e-10
_LOG_2PI = np.log(2 * np.pi)


def ep_probit(K, y, *, tol: float = 1e-8, max_sweeps: int = 100):
    """Expectation propagation for a Gaussian-process classifier with probit likelihoods.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Prior covariance of the latent values (probit units squared).
    y : ndarray of shape (n,)
        Labels in {-1, 1}.
    tol : float
        Sweeps stop when the log marginal likelihood changes by less than this (relative).
    max_sweeps : int
        At most this many sweeps over the sites.

    Returns
    -------
    nu, tau : ndarray of shape (n,)
        The sites' natural parameters (precision-times-mean and precision).
    L : ndarray of shape (n, n)
        Cholesky factor of I + S^1/2 K S^1/2, S = diag(tau).
    log_z : float
        EP's log marginal likelihood (nats).

    Raises
    ------
    ValueError
        If ``K`` is not a finite square matrix with one row per label, not symmetric, not
        positive semi-definite, or has a prior variance outside (0, ``MAX_PRIOR_VARIANCE``]
        (1e10); if ``y`` holds values other than -1 and 1, ``tol`` is negative or not finite,
        or ``max_sweeps`` is not a positive integer.
    TypeError
        If ``K`` or ``y`` is not numeric, or ``tol`` is not a number.

    Examples
    --------
    >>> import numpy as np
    >>> K = 2.0 * np.eye(3) + 1.0
    >>> nu, tau, L, log_z = ep_probit(K, np.array([1.0, 1.0, -1.0]))
    >>> bool(log_z < 0), nu.shape
    (True, (3,))
    """
    y = labels_1d(y)
    if y.dtype.kind not in "biuf":
        raise TypeError(f"y must hold the numbers -1 and 1; got dtype {y.dtype}")
    if not np.isin(y, (-1, 1)).all():
        raise ValueError("y must hold the labels -1 and 1 (probit sites); got the values "
                         f"{np.unique(y[~np.isin(y, (-1, 1))])[:5].tolist()}")
    K = check_matrix(K, name="K", allow_pandas=False)
    if K.shape != (y.size, y.size):
        raise ValueError(f"K must be the ({y.size}, {y.size}) prior covariance of the latent "
                         f"values of y; got shape {K.shape}")
    _check_covariance(K)
    tol = check_positive(tol, name="tol", strict=False)
    max_sweeps = check_positive_int(max_sweeps, name="max_sweeps")
    return _ep_probit(K, y, tol, max_sweeps)


#: The largest prior variance of a latent value ``ep_probit`` takes (probit units squared):
#: beyond it the site updates lose their digits (log Z off by 0.12 nats at 1e15, NaN from
#: 1e20; 5e-3 at 1e10). fit_linear_probit's kernels reach about e^10 (n - 1): 2e7 at n = 1000.
MAX_PRIOR_VARIANCE = 1e10
#: The largest |z| of a test value, in training SDs, the probit predictives take.
MAX_TEST_Z = 1e100


def _check_covariance(K: np.ndarray) -> None:
    """A prior covariance of the latent values: symmetric, positive semi-definite, with
    variances in (0, MAX_PRIOR_VARIANCE]. EP returned NaN for a zero variance, a negative
    one or a huge one, and finite numbers for an indefinite or non-symmetric K."""
    diag = np.diag(K)
    if not ((diag > 0) & (diag <= MAX_PRIOR_VARIANCE)).all():
        bad = diag[~((diag > 0) & (diag <= MAX_PRIOR_VARIANCE))]
        raise ValueError(f"K's diagonal (the prior variances of the latent values) must be in "
                         f"(0, {MAX_PRIOR_VARIANCE:g}]; {bad.size} are not, e.g. "
                         f"{float(bad[0])}")
    scale = diag.max()
    if not np.allclose(K, K.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError("K must be symmetric (a covariance matrix); K - K.T is up to "
                         f"{float(np.abs(K - K.T).max()):.3g}")
    low = float(np.linalg.eigvalsh(K).min())
    if low < -1e-10 * scale:
        raise ValueError(f"K must be positive semi-definite (a covariance matrix); its "
                         f"smallest eigenvalue is {low:.3g}")


def _ep_probit(K, y, tol: float = 1e-8, max_sweeps: int = 100):
    """:func:`ep_probit` without the checks (:func:`fit_gram` calls it at every grid point)."""
    K = np.ascontiguousarray(K, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.size
    nu, tau = np.zeros(n), np.zeros(n)
    Sigma, mu = K.copy(), np.zeros(n)
    log_z_old = -np.inf
    for _ in range(max_sweeps):
        ep_sweep(Sigma, mu, nu, tau, y, MIN_TAU)      # compiled: the site updates in order
        # recompute the posterior from the sites (their Algorithm 3.5): no drift of rounding
        sq = np.sqrt(tau)
        L = np.linalg.cholesky(np.eye(n) + sq[:, None] * K * sq[None, :])
        # one solve for L^-1 S^1/2 K and b = L^-1 S^-1/2 nu; numpy's, not scipy's triangular
        # solve: numpy and scipy each bring their own OpenBLAS, and alternating calls into the
        # two made every call wait on the other's idle threads (20 times slower at n = 150)
        Vb = np.linalg.solve(L, np.column_stack([sq[:, None] * K, nu / sq]))
        V, b = Vb[:, :n], Vb[:, n]
        Sigma = K - V.T @ V
        mu = Sigma @ nu
        # log Z_EP = sum_i log Z~_i + log N(mu~ | 0, K + Sigma~) (their eqs. 3.59 and 3.65);
        # (K + Sigma~)^-1 = S^1/2 B^-1 S^1/2 and det(K + Sigma~) = det(B) / prod(tau)
        log_z = (site_log_z(y, nu, tau, Sigma, mu) - 0.5 * b @ b - np.log(np.diag(L)).sum()
                 + 0.5 * np.log(tau).sum() - 0.5 * n * _LOG_2PI)
        if abs(log_z - log_z_old) < tol * max(1.0, abs(log_z)):
            break
        log_z_old = log_z
    return nu, tau, L, float(log_z)


@dataclass
class LinearProbitFit:
    """A fitted :func:`fit_linear_probit`: what its predictive needs.

    Attributes
    ----------
    mean, sd : ndarray of shape (p_all,)
        Training means and standard deviations of every feature (data units).
    keep : ndarray of bool, shape (p_all,)
        The features with variation (the others are dropped).
    Z : ndarray of shape (n, p)
        The standardised training values of the kept features.
    y : ndarray of shape (n,)
        Training labels in {-1, 1} (1: the second class).
    log_s : ndarray of shape (n_grid,)
        The grid of log s (:data:`LOG_S_GRID`).
    weights : ndarray of shape (n_grid,)
        Posterior weight of each log s of the grid.
    sites : list of (nu, tau)
        EP's sites at each log s of the grid (None where the weight is negligible).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 15); X = rng.normal(size=(30, 50)) + y[:, None]
    >>> fit = fit_linear_probit(X, y)
    >>> fit.predict_log_proba(X[:4]).shape, fit.s > 0
    ((4, 2), True)
    """

    mean: np.ndarray
    sd: np.ndarray
    keep: np.ndarray
    Z: np.ndarray
    y: np.ndarray
    log_s: np.ndarray
    weights: np.ndarray
    sites: list

    @property
    def s(self) -> float:
        """exp of the posterior mean of log s."""
        return float(np.exp(self.weights @ self.log_s))

    def standardise(self, X) -> np.ndarray:
        """The kept features of ``X`` (m, p_all) standardised as the training ones
        (:func:`standardise_test`)."""
        return standardise_test(X, self.mean, self.sd, self.keep)

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(class | x) of test cases, (m, 2): Algorithm 3.6 of Rasmussen and Williams
        averaged over the grid of s with the posterior weights.

        Raises
        ------
        ValueError
            If ``X`` is not a finite 2-D array with the training data's number of columns,
            or a case lies beyond 1e100 training standard deviations.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.random.default_rng(1).normal(size=(20, 30)); y = np.arange(20) % 2
        >>> X[:, 0] += 3 * y
        >>> lp = fit_linear_probit(X, y).predict_log_proba(X[:2])
        >>> np.exp(lp).sum(axis=1).round(12), lp.argmax(axis=1)
        (array([1., 1.]), array([0, 1]))
        """
        Zs = self.standardise(X)
        p = self.Z.shape[1]
        return gram_log_proba(self.Z @ self.Z.T / p, Zs @ self.Z.T / p, (Zs ** 2).sum(1) / p,
                              self.log_s, self.weights, self.sites)


def _check_training_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """X as a finite 2-D float array and y as a 1-D array of one label per row (the probit
    fits, :func:`fit_linear_probit` and :func:`selbayes.models.fit_nested_probit`)."""
    X = check_matrix(X, name="X")
    y = labels_1d(y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels but X has {X.shape[0]} rows; they must "
                         "match")
    return X, y


def check_test_matrix(X, p_all: int) -> np.ndarray:
    """Test values as a finite 2-D float array with the training data's ``p_all`` columns.

    Parameters
    ----------
    X : array-like of shape (m, p_all)
    p_all : int
        Columns of the training data.

    Returns
    -------
    ndarray of shape (m, p_all)

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array of ``p_all`` columns.
    TypeError
        If ``X`` is not numeric.

    Examples
    --------
    >>> check_test_matrix([[1.0, 2.0]], 2).shape
    (1, 2)
    """
    X = check_matrix(X, name="X")
    if X.shape[1] != p_all:
        raise ValueError(f"X has {X.shape[1]} columns; the model was fitted on {p_all} (pass "
                         "the test cases' values of the training features, in their order)")
    return X


def check_min_weight(min_weight) -> float:
    """``min_weight`` as a float in [0, 1).

    Parameters
    ----------
    min_weight : float

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If it is negative, not finite or >= 1.
    TypeError
        If it is not a number.

    Examples
    --------
    >>> check_min_weight(1e-8)
    1e-08
    """
    # a posterior weight of the grid of s
    return check_real(min_weight, name="min_weight", low=0.0, high=1.0, closed="left")


def standardise_features(X):
    """Training means and standard deviations of every feature, which features vary, and the
    standardised values of those.

    Parameters
    ----------
    X : ndarray of shape (n, p_all)

    Returns
    -------
    mean : ndarray of shape (p_all,)
    sd : ndarray of shape (p_all,)
        1 where the feature is constant.
    keep : ndarray of bool, shape (p_all,)
        The features that vary. A feature whose training values are all equal is constant
        also where floating point gives its computed variance a rounding residue
        (:func:`selbayes._rounding.varies`): standardised by that residue, a test case off
        the constant would get a z of 1e16 or more and swamp every other feature.
    Z : ndarray of shape (n, p)

    Raises
    ------
    ValueError
        If no feature varies.

    Examples
    --------
    >>> import numpy as np
    >>> mean, sd, keep, Z = standardise_features(np.array([[1.0, 2.0], [3.0, 2.0]]))
    >>> keep.tolist(), Z.ravel().round(3).tolist()
    ([True, False], [-0.707, 0.707])
    """
    X = np.asarray(X, dtype=np.float64)
    # Outside the ordinary range each column is divided by a power of 2 near its largest
    # magnitude (column_units): the variance of values near 1e154 overflowed and of values
    # near 1e-200 underflowed, and either read as "no feature varies". A power of 2 scales
    # exactly, so Z is bit for bit what it was wherever it was computable.
    unit = column_units(X)
    Xs = X if np.all(unit == 1.0) else X / unit
    mean_s = Xs.mean(axis=0)
    var_s = Xs.var(axis=0, ddof=1)
    # a feature constant over the training cases (a floored or clipped gene, a gene that
    # varies only in other cases) can get var of about 1e-33 rather than 0 from rounding
    sd_s = np.sqrt(var_s)
    keep = varies(var_s, mean_s, X.shape[0]) & normal_scale(sd_s * unit)
    if not keep.any():
        raise ValueError("no feature varies over the training cases")
    Z = (Xs[:, keep] - mean_s[keep]) / sd_s[keep]
    return mean_s * unit, np.where(keep, sd_s * unit, 1.0), keep, Z


def standardise_test(X, mean, sd, keep) -> np.ndarray:
    """Test cases' kept features standardised as the training ones (the probit fits'
    ``standardise``), checked so that the predictive can square them: a value 1e153
    training SDs out overflowed there and gave NaN probabilities.

    Parameters
    ----------
    X : array-like of shape (m, p_all)
        Test values (data units).
    mean, sd : ndarray of shape (p_all,)
        Training means and standard deviations (data units).
    keep : ndarray of bool, shape (p_all,)
        The features that vary over the training cases.

    Returns
    -------
    ndarray of shape (m, keep.sum())

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array of p_all columns, or a case lies beyond
        ``MAX_TEST_Z`` (1e100) training SDs on some feature (its predictive would overflow).
    TypeError
        If ``X`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> standardise_test([[3.0, 1.0]], np.array([1.0, 0.0]), np.array([2.0, 1.0]),
    ...                  np.array([True, False])).tolist()
    [[1.0]]
    """
    X = check_test_matrix(X, mean.size)
    Zs = (X[:, keep] - mean[keep]) / sd[keep]
    # The predictive squares sums of p such values times s (up to e^10): 1e100 leaves room
    # for any p; past about 1e152 it overflowed to NaN.
    far = ~(np.abs(Zs) <= MAX_TEST_Z).all(axis=1)
    if far.any():
        raise ValueError(f"{int(far.sum())} test case(s) (first: row {int(np.argmax(far))}) lie "
                         f"beyond {MAX_TEST_Z:g} training standard deviations on some feature: "
                         "their predictive would overflow (values in other units than the "
                         "training data?)")
    return Zs


def fit_gram(G0, y_pm, *, min_weight: float = 1e-8, return_log_evidence: bool = False):
    """EP at every log s of :data:`LOG_S_GRID` for the kernel s G0 + s_b, and the posterior
    weights of the grid (prior x EP marginal likelihood).

    Parameters
    ----------
    G0 : ndarray of shape (n, n)
        Z Z' / p of the training cases (or any other prior covariance of the latent values
        over s).
    y_pm : ndarray of shape (n,)
        Labels in {-1, 1}.
    min_weight : float
        Grid points with a smaller posterior weight get no sites (None).
    return_log_evidence : bool
        Also return the log marginal likelihood of the labels with s integrated over its
        prior, log of the integral of p(y | s) N(log s; 0, LOG_S_SD^2) d log s (EP's p(y | s)
        at each grid point, the rectangle rule over the grid; nats): what weighs two
        kernels, i.e. two priors on the coefficients, against each other.

    Returns
    -------
    weights : ndarray of shape (n_grid,)
    sites : list of (nu, tau) or None
    log_evidence : float
        Only with ``return_log_evidence``.

    Examples
    --------
    >>> import numpy as np
    >>> w, sites = fit_gram(np.eye(4), np.array([1.0, 1.0, -1.0, -1.0]))
    >>> w.shape, bool(abs(w.sum() - 1) < 1e-12)
    ((37,), True)
    """
    log_post, sites = [], []
    for log_s in LOG_S_GRID:
        nu, tau, _, log_z = _ep_probit(np.exp(log_s) * G0 + INTERCEPT_VARIANCE, y_pm)
        sites.append((nu, tau))
        log_post.append(log_z - 0.5 * (log_s / LOG_S_SD) ** 2)
    log_post = np.asarray(log_post)
    w = np.exp(log_post - log_post.max())
    w /= w.sum()
    # the grid point of the largest weight is always kept: a min_weight above it would leave
    # the predictive no point at all
    kept = [site if wt >= min_weight or i == int(np.argmax(w)) else None
            for i, (site, wt) in enumerate(zip(sites, w, strict=True))]
    if not return_log_evidence:
        return w, kept
    # the prior density's constant and the grid step, which the weights did not need
    step = float(LOG_S_GRID[1] - LOG_S_GRID[0])
    log_evidence = (float(logsumexp(log_post)) + np.log(step)
                    - 0.5 * np.log(2 * np.pi * LOG_S_SD ** 2))
    return w, kept, log_evidence


def gram_log_proba(G0, G0s, g0ss, log_s, weights, sites) -> np.ndarray:
    """log P(class | x) of test cases from Gram matrices: Algorithm 3.6 of Rasmussen and
    Williams at each s of the grid, averaged with the posterior weights (in log space).

    Parameters
    ----------
    G0 : ndarray of shape (n, n)
        Z Z' / p of the training cases.
    G0s : ndarray of shape (m, n)
        Zs Z' / p, test against training cases.
    g0ss : ndarray of shape (m,)
        Each test case's z'z / p.
    log_s, weights : ndarray of shape (n_grid,)
    sites : list of (nu, tau) or None
        :func:`fit_gram`'s sites (None: skipped).

    Returns
    -------
    ndarray of shape (m, 2)
        log P(y = -1), log P(y = 1) (nats).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, 1.0, -1.0, -1.0]); G0 = np.eye(4)
    >>> w, sites = fit_gram(G0, y)
    >>> lp = gram_log_proba(G0, G0[:1], np.ones(1), LOG_S_GRID, w, sites)
    >>> bool(lp[0, 1] > lp[0, 0]), float(np.exp(lp).sum().round(12))
    (True, 1.0)
    """
    terms, total = [], 0.0    # log(weight x P(class | x, s)) at each s of the grid
    for log_s_i, wt, site in zip(log_s, weights, sites, strict=True):
        if site is None:
            continue
        nu, tau = site
        s = np.exp(log_s_i)
        K = s * G0 + INTERCEPT_VARIANCE
        sq = np.sqrt(tau)
        L = np.linalg.cholesky(np.eye(tau.size) + sq[:, None] * K * sq[None, :])
        Ks = s * G0s + INTERCEPT_VARIANCE
        z = sq * np.linalg.solve(L.T, np.linalg.solve(L, sq * (K @ nu)))
        mean = Ks @ (nu - z)
        v = np.linalg.solve(L, sq[:, None] * Ks.T)
        var = np.maximum(s * g0ss + INTERCEPT_VARIANCE - (v ** 2).sum(0), 0.0)
        t = mean / np.sqrt(1.0 + var)
        # both classes in log space: 1 - Phi(t) would round to 0 where Phi(t) rounds to 1
        terms.append(np.log(wt) + np.column_stack([log_ndtr(-t), log_ndtr(t)]))
        total += wt
    return logsumexp(np.stack(terms), axis=0) - np.log(total)


def fit_linear_probit(X, y, *, min_weight: float = 1e-8) -> LinearProbitFit:
    """Fit the all-features Bayesian probit regression (module docstring).

    Parameters
    ----------
    X : array-like of shape (n, p_all)
        Training values (any units: each feature is standardised).
    y : array-like of shape (n,)
        Class index 0 or 1 of each training case (both present).
    min_weight : float
        Grid points of s with a smaller posterior weight are dropped from the predictive.

    Returns
    -------
    LinearProbitFit

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array, ``y`` is not 0/1 with both classes and one label
        per row of ``X``, no feature varies, or ``min_weight`` is not in [0, 1).
    TypeError
        If ``X`` is not numeric or ``min_weight`` is not a number.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 15); X = rng.normal(size=(30, 50)) + y[:, None]
    >>> fit = fit_linear_probit(X, y)
    >>> fit.Z.shape, bool(abs(fit.weights.sum() - 1) < 1e-12)
    ((30, 50), True)
    """
    X, y = _check_training_data(X, y)
    if not np.isin(y, (0, 1)).all() or np.unique(y).size != 2:
        raise ValueError("y: the all-features probit regression needs class indices 0 and 1, "
                         "both present (two classes only; fit_nested_probit takes more)")
    min_weight = check_min_weight(min_weight)
    mean, sd, keep, Z = standardise_features(X)
    y_pm = 2.0 * y.astype(np.float64) - 1.0
    w, sites = fit_gram(Z @ Z.T / Z.shape[1], y_pm, min_weight=min_weight)
    return LinearProbitFit(mean=mean, sd=sd, keep=keep, Z=Z, y=y_pm, log_s=LOG_S_GRID.copy(),
                           weights=w, sites=sites)
