"""Exact predictions of the binary naive Bayes model by quadrature (Li 2007 section 2.3.3).

Model (thesis sections 2.3.1-2.3.2): y ~ Bernoulli(psi), psi ~ Beta(f1, f0);
x_j | y ~ Bernoulli(phi_{y,j}); phi_{0,j}, phi_{1,j} ~ Beta(alpha theta_j, alpha (1 - theta_j));
theta_j ~ U(0, 1); alpha ~ InverseGamma(a, scale=b). With psi and phi integrated out analytically,
only alpha and theta_{1:k} remain; they are integrated numerically:

* alpha: the midpoint rule on the prior-CDF scale, alpha_m = F^{-1}((m - 1/2) / K) (thesis
  section 2.3.3);
* theta_j: a one-dimensional rule per retained feature (below).

The corrected posterior multiplies the alpha-weights by P(|COR| <= gamma | alpha)^(p - k)
(eqs 2.41-2.44), computed by :func:`selbayes.adjustment.corr_log_omit_prob`.

Evaluation (eqs 2.34-2.44, arranged so that nothing large is ever exponentiated):

    log w_m    = c (p - k) log P_keep(alpha_m) + sum_j log B_{m,j}     (normalised; c = 0 or 1)
    pi_{m,j}(y*, 1) = (alpha_m E[theta_j | alpha_m, D] + I_{y*,j}) / (alpha_m + N_{y*})
    l_m(y*)    = log psi_hat_{y*} + log w_m + sum_j log pi_{m,j}(y*, x*_j)
    P(y* = 1)  = expit(LSE_m l_m(1) - LSE_m l_m(0))

where B_{m,j} = int prod_y U(alpha theta, alpha (1 - theta), I_{y,j}, O_{y,j}) dtheta is the
training marginal of feature j and E[theta_j | alpha, D] = int theta prod_y U / B_{m,j}. This is
the theta integral of eq 2.40 at alpha_m divided by B_{m,j} (the posterior mean of phi is linear
in theta).

Theta rules for the retained features
-------------------------------------
``"gauss"`` (default)
    Gauss-Legendre in u with theta = sin^2(pi u / 2), shared by all features (spectral
    convergence; node spacing proportional to sqrt(theta (1 - theta)), the width of the
    integrand's peak).
``"transform"``
    The author's R package ``predbayescor``: Simpson on x with theta = T(x), a cubic map that
    clusters nodes at each feature's pooled frequency. With 21 points this is the
    thesis-faithful rule (the thesis, section 2.3.5, says only "Simpson's Rule, evaluating theta
    at 21 points").
``"simpson"``
    Plain composite Simpson on theta (inaccurate at n = 200 for large alpha, as found here:
    ``tests/models/test_naive_bayes_quadrature.py``).

``quadrature="thesis"`` selects K = 30, the transformed 21-point rule for the retained features
and plain 21-point Simpson for the adjustment factor; ``"accurate"`` (default) selects
K = 200 and converged Gauss rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit, logsumexp
from scipy.stats import invgamma

from .._special import log_rising
from .._validation import (
    check_binary,
    check_flag,
    check_int,
    check_matrix,
    check_positive_int,
    check_real,
    labels_1d,
)
from ..adjustment._corr import THETA_RULES, corr_log_omit_prob, default_n_theta, theta_quadrature
from ..filters._selection import Selection
from ._priors import NaiveBayesPrior  # noqa: F401 - its home is models.priors

__all__ = [
    "NaiveBayesPrior",
    "NaiveBayesQuadratureFit",
    "fit_naive_bayes_quadrature",
    "prior_alpha_grid",
    "retained_theta_rule",
    "log_marginal_and_theta_mean",
    "QUADRATURE_PRESETS",
    "RETAINED_THETA_RULES",
]

RETAINED_THETA_RULES = ("gauss", "transform", "simpson")

QUADRATURE_PRESETS = {
    # Converged rules (n_theta None = default_n_theta(n), which grows like sqrt(n)).
    "accurate": {"n_alpha": 200, "theta_rule": "gauss", "n_theta": None,
                 "adjustment_theta_rule": "gauss", "adjustment_n_theta": None},
    # The thesis' rules (section 2.3.5): K = 30, 21 points everywhere.
    "thesis": {"n_alpha": 30, "theta_rule": "transform", "n_theta": 21,
               "adjustment_theta_rule": "simpson", "adjustment_n_theta": 21},
}

# Float64 elements per (alpha, feature, theta) block.
_BLOCK_ELEMS = 4_000_000
_TRANSFORM_POWER = 3


def prior_alpha_grid(n_alpha: int, prior: NaiveBayesPrior | None = None) -> np.ndarray:
    """Midpoint nodes on the prior-CDF scale: alpha_m = F^{-1}((m - 0.5) / K), m = 1..K.

    Each node stands for prior mass 1/K, so the prior weights are uniform and the midpoint rule
    on the CDF scale integrates over alpha's heavy upper tail.

    Parameters
    ----------
    n_alpha : int
        K >= 1, the number of nodes.
    prior : NaiveBayesPrior, optional
        Supplies alpha's InverseGamma(shape, scale); default the thesis' (0.5, 5).

    Returns
    -------
    ndarray of shape (K,)
        Increasing alpha nodes (alpha is a prior sample size: dimensionless).

    Raises
    ------
    ValueError
        If ``n_alpha`` is not a positive integer.

    Examples
    --------
    >>> np.round(prior_alpha_grid(10), 2).tolist()       # the thesis' grid (section 2.4.4)
    [2.6, 4.83, 7.56, 11.45, 17.52, 27.99, 48.57, 98.49, 279.6, 2543.14]
    """
    check_positive_int(n_alpha, name="n_alpha")
    prior = NaiveBayesPrior() if prior is None else prior
    u = (np.arange(n_alpha) + 0.5) / n_alpha
    return invgamma(prior.alpha_shape, scale=prior.alpha_scale).ppf(u)


# ---------------------------------------------------------------------------------------------
# Theta rules for retained features
# ---------------------------------------------------------------------------------------------

def retained_theta_rule(rule: str, n_theta: int, pooled_freq=None):
    """Nodes and weights for the retained-feature theta integrals (2.40).

    Parameters
    ----------
    rule : {"gauss", "transform", "simpson"}
    n_theta : int
        Number of nodes (odd for the Simpson-based rules).
    pooled_freq : array-like of shape (U,), optional
        Pooled training frequency (I0 + I1) / n of each feature, in [0, 1]; needed by
        ``"transform"``.

    Returns
    -------
    theta : ndarray of shape (1, Q) for shared rules or (U, Q) for ``"transform"``
        Nodes in [0, 1].
    weights : ndarray of the same shape
        Weights of int_0^1 f(theta) dtheta (each row sums to 1).

    Raises
    ------
    ValueError
        If ``rule`` is unknown, ``"transform"`` is given no ``pooled_freq``, or ``n_theta`` is
        invalid for the rule.

    Examples
    --------
    >>> theta, w = retained_theta_rule("gauss", 20)
    >>> theta.shape, round(float(w.sum()), 12), round(float(w[0] @ theta[0] ** 2), 12)
    ((1, 20), 1.0, 0.333333333333)
    >>> theta, w = retained_theta_rule("transform", 21, pooled_freq=[0.1, 0.5])
    >>> theta.shape, np.round(w.sum(axis=1), 12).tolist()
    ((2, 21), [1.0, 1.0])
    """
    if rule in ("gauss", "simpson"):
        theta, w = theta_quadrature(rule, n_theta)
        return theta[None, :], w[None, :]
    if rule != "transform":
        raise ValueError(f"theta_rule must be one of {RETAINED_THETA_RULES}; got {rule!r}")
    if pooled_freq is None:
        raise ValueError("the 'transform' rule needs pooled_freq")
    x, wx = theta_quadrature("simpson", n_theta)
    tbar = np.asarray(pooled_freq, dtype=np.float64)[:, None]
    N = _TRANSFORM_POWER
    # a solves T(a) = tbar: the map is stationary where the integrand peaks.
    with np.errstate(divide="ignore"):
        a = 1.0 / (1.0 + np.cbrt(1.0 / tbar - 1.0))
    den = (1.0 - a) ** N + a ** N
    theta = np.clip(((x - a) ** N + a ** N) / den, 0.0, 1.0)
    weights = wx * N * (x - a) ** (N - 1) / den
    return theta, weights


def _cum_log_rising(c, N: int):
    """Table log Gamma(c + j) / Gamma(c) for j = 0..N as cumulative sums of log(c + l).

    ``c`` has shape (...,); returns shape (..., N + 1). Exact at c = 0 (-inf for j >= 1).
    """
    out = np.zeros(c.shape + (N + 1,))
    with np.errstate(divide="ignore"):
        np.cumsum(np.log(c[..., None] + np.arange(N)), axis=-1, out=out[..., 1:])
    return out


def log_marginal_and_theta_mean(alpha, counts, n0: int, n1: int, theta_rule: str = "gauss",
                                n_theta: int | None = None):
    """Per-feature training marginals and posterior moments of theta, at each alpha.

    Parameters
    ----------
    alpha : array-like of shape (K,)
        Values of alpha (> 0), e.g. :func:`prior_alpha_grid`.
    counts : array-like of int, shape (U, 2)
        (I0, I1) of each feature: ones among the n0 class-0 and n1 class-1 training cases.
    n0, n1 : int
        Training cases per class.
    theta_rule : {"gauss", "transform", "simpson"}
        Quadrature rule over theta (see :func:`retained_theta_rule`).
    n_theta : int, optional
        Default :func:`selbayes.adjustment.default_n_theta` for ``"gauss"``, 41
        otherwise.

    Returns
    -------
    log_B : ndarray, shape (K, U)
        log int prod_y U(alpha theta, alpha (1 - theta), I_y, O_y) dtheta (eq 2.33 integrated).
    log_mean1, log_mean0 : ndarray, shape (K, U)
        log E[theta | alpha, x_j] and log E[1 - theta | alpha, x_j] under the same rule.

    Raises
    ------
    ValueError
        If ``theta_rule`` is unknown or ``n_theta`` invalid for it.

    Examples
    --------
    One case per class, a one in class 0 and a zero in class 1: the likelihood is
    theta (1 - theta) whatever alpha, so B = 1/6 and E[theta | data] = 1/2:

    >>> log_B, log_m1, log_m0 = log_marginal_and_theta_mean([1.0, 10.0], [[1, 0]], 1, 1)
    >>> log_B.shape, np.round(np.exp(log_B), 6).tolist(), np.round(np.exp(log_m1), 6).tolist()
    ((2, 1), [[0.166667], [0.166667]], [[0.5], [0.5]])
    """
    alpha = np.asarray(alpha, dtype=np.float64).ravel()
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 2)
    n = n0 + n1
    if n_theta is None:
        n_theta = default_n_theta(n, "gauss") if theta_rule == "gauss" else 41
    theta, w = retained_theta_rule(theta_rule, n_theta, counts.sum(axis=1) / n)
    K, U, Q = alpha.shape[0], counts.shape[0], theta.shape[1]
    with np.errstate(divide="ignore"):
        logw = np.log(w)
    I0, I1 = counts[:, 0], counts[:, 1]
    O0, O1 = n0 - I0, n1 - I1
    # The theta-free part of log prod_y U: - log Gamma(alpha + N_y) / Gamma(alpha).
    # (Summed logs rather than a gammaln difference: exact also at alpha ~ 1e6.)
    const = -(np.log(alpha[:, None] + np.arange(n0)).sum(axis=1)
              + np.log(alpha[:, None] + np.arange(n1)).sum(axis=1))[:, None, None]   # (K, 1, 1)
    out = np.empty((3, K, U))
    shared = theta.shape[0] == 1
    if shared:
        # Rising factorials on the shared nodes, tabulated once and gathered per feature.
        nmax = max(n0, n1)
        LA = _cum_log_rising(alpha[:, None] * theta[0], nmax)          # (K, Q, nmax + 1)
        LB = _cum_log_rising(alpha[:, None] * (1.0 - theta[0]), nmax)
    block = max(1, _BLOCK_ELEMS // max(1, K * Q))
    for s in range(0, U, block):
        sl = slice(s, s + block)
        if shared:
            lu = (LA[:, :, I0[sl]] + LB[:, :, O0[sl]] + LA[:, :, I1[sl]]
                  + LB[:, :, O1[sl]]).transpose(0, 2, 1)               # (K, u, Q)
        else:
            a = alpha[:, None, None] * theta[None, sl]
            b = alpha[:, None, None] * (1.0 - theta[None, sl])
            # exact at every alpha (a log Gamma difference cancels at large alpha)
            lu = (log_rising(a, I0[sl, None]) + log_rising(b, O0[sl, None])
                  + log_rising(a, I1[sl, None]) + log_rising(b, O1[sl, None]))
        lw = lu + (logw if shared else logw[None, sl])
        # One exponentiation serves the three integrals (B, E[theta] B, E[1 - theta] B).
        mx = lw.max(axis=-1, keepdims=True)
        E = np.exp(lw - mx)
        if shared:
            sB, s1, s0 = E.sum(axis=-1), E @ theta[0], E @ (1.0 - theta[0])
        else:
            sB = E.sum(axis=-1)
            s1 = np.einsum("kuq,uq->ku", E, theta[sl])
            s0 = np.einsum("kuq,uq->ku", E, 1.0 - theta[sl])
        log_sB = np.log(sB)
        out[0, :, sl] = mx[..., 0] + log_sB + const[:, :, 0]
        with np.errstate(divide="ignore"):
            out[1, :, sl] = np.log(s1) - log_sB
            out[2, :, sl] = np.log(s0) - log_sB
    return out[0], out[1], out[2]


# ---------------------------------------------------------------------------------------------
# Fit and predict
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class NaiveBayesQuadratureFit:
    """Posterior of the binary naive Bayes model on a K-point alpha grid.

    Attributes
    ----------
    alpha_grid : ndarray, shape (K,)
        alpha_m, the prior midpoint quantiles.
    log_alpha_weights : ndarray, shape (K,)
        Normalised log posterior weights log w_m (logsumexp = 0).
    log_likelihood : ndarray, shape (K,)
        sum_j log B_{m,j}: the retained features' log marginal likelihood at alpha_m (nats,
        per-sequence probabilities, no binomial coefficients).
    log_adjustment : ndarray, shape (K,)
        c (p - k) log P_keep(alpha_m); zeros when uncorrected.
    log_pkeep : ndarray or None, shape (K,)
        log P_keep(alpha_m) (None when uncorrected).
    psi_hat : float
        P(y* = 1 | y_train) = (f1 + n1) / (f0 + f1 + n) (eq 2.32).
    class_counts : tuple of int
        (n0, n1).
    corrected : bool
    n_omitted : int
        p - k.
    threshold : float or None
        gamma.
    prior : NaiveBayesPrior
    settings : dict
        Quadrature settings actually used.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(30, 3)); y = np.repeat([0, 1], 15)
    >>> fit = fit_naive_bayes_quadrature(X, y, (97, 0.3), quadrature="thesis")
    >>> fit
    NaiveBayesQuadratureFit(k=3, n_omitted=97, corrected=True, K=30, E[log alpha]=...)
    >>> round(float(fit.alpha_posterior.sum()), 12), fit.psi_hat
    (1.0, 0.5)
    >>> lp = fit.predict_log_proba(X[:4])
    >>> lp.shape, np.allclose(np.exp(lp[:, 1]), fit.predict_proba(X[:4]))
    ((4, 2), True)
    """

    alpha_grid: np.ndarray
    log_alpha_weights: np.ndarray
    log_likelihood: np.ndarray
    log_adjustment: np.ndarray
    log_pkeep: np.ndarray | None
    psi_hat: float
    class_counts: tuple
    corrected: bool
    n_omitted: int
    threshold: float | None
    prior: NaiveBayesPrior
    settings: dict
    # log pi_{m,j}(y*, x*): shape (2 classes, 2 values of x*, K, k).
    _log_pi: np.ndarray = field(repr=False)

    @property
    def n_features(self) -> int:
        """k, the number of retained features."""
        return int(self._log_pi.shape[-1])

    @property
    def alpha_posterior(self) -> np.ndarray:
        """Posterior probabilities w_m of the grid nodes, shape (K,), summing to 1."""
        return np.exp(self.log_alpha_weights)

    @property
    def log_alpha_density(self) -> np.ndarray:
        """Posterior density of log alpha at the nodes (the recipe of the thesis' Fig 2.7).

        K w_m alpha_m p_IG(alpha_m): node m stands for prior mass 1/K, so K w_m is the
        posterior density on the prior-CDF scale, and alpha p(alpha) = dF / dlog alpha.
        """
        K = self.alpha_grid.shape[0]
        dist = invgamma(self.prior.alpha_shape, scale=self.prior.alpha_scale)
        return K * self.alpha_posterior * self.alpha_grid * dist.pdf(self.alpha_grid)

    def _check_test(self, X_test) -> np.ndarray:
        X = check_matrix(X_test, name="X_test")
        if X.shape[1] != self.n_features:
            raise ValueError(f"X_test has {X.shape[1]} columns; the model was fitted on "
                             f"{self.n_features} retained features")
        check_binary(X, name="X_test")
        return X

    def _class_scores(self, X: np.ndarray) -> np.ndarray:
        """LSE_m l_m(y*) for y* = 0, 1: shape (T, 2)."""
        log_psi = np.array([math.log1p(-self.psi_hat), math.log(self.psi_hat)])
        out = np.empty((X.shape[0], 2))
        Xc = 1.0 - X
        for y in (0, 1):
            lp1, lp0 = self._log_pi[y, 1], self._log_pi[y, 0]           # (K, k)
            ell = X @ lp1.T + Xc @ lp0.T + self.log_alpha_weights       # (T, K)
            out[:, y] = log_psi[y] + logsumexp(ell, axis=1)
        return out

    def predict_logit(self, X_test) -> np.ndarray:
        """log P(y*=1 | x*) - log P(y*=0 | x*), shape (T,); accurate for extreme values.

        Parameters
        ----------
        X_test : array-like of 0/1, shape (T, k)
            Test cases, retained features only, in the training column order.

        Returns
        -------
        ndarray of shape (T,)
            Log odds of class 1 (nats).

        Raises
        ------
        ValueError
            If ``X_test`` is not a 0/1 matrix with k columns.
        """
        s = self._class_scores(self._check_test(X_test))
        return s[:, 1] - s[:, 0]

    def predict_log_proba(self, X_test) -> np.ndarray:
        """log P(y* = c | x*, training data, selection) for c = 0, 1: shape (T, 2).

        Parameters
        ----------
        X_test : array-like of 0/1, shape (T, k)
            Test cases, retained features only, in the training column order.

        Returns
        -------
        ndarray of shape (T, 2)
            Log probabilities (nats); rows log-sum-exp to 0.

        Raises
        ------
        ValueError
            If ``X_test`` is not a 0/1 matrix with k columns.
        """
        s = self._class_scores(self._check_test(X_test))
        return s - logsumexp(s, axis=1, keepdims=True)

    def predict_proba(self, X_test) -> np.ndarray:
        """Predictive probability of class 1, P(y* = 1 | x*_{1:k}, ...): shape (T,).

        Parameters
        ----------
        X_test : array-like of 0/1, shape (T, k)
            Test cases, retained features only, in the training column order.

        Returns
        -------
        ndarray of shape (T,)
            Probabilities in [0, 1].

        Raises
        ------
        ValueError
            If ``X_test`` is not a 0/1 matrix with k columns.
        """
        return expit(self.predict_logit(X_test))

    def __repr__(self) -> str:
        mean_log_alpha = float(self.alpha_posterior @ np.log(self.alpha_grid))
        return (f"NaiveBayesQuadratureFit(k={self.n_features}, n_omitted={self.n_omitted}, "
                f"corrected={self.corrected}, K={self.alpha_grid.shape[0]}, "
                f"E[log alpha]={mean_log_alpha:.3f})")


def _check_y01(y, n: int):
    y = labels_1d(y)
    if y.shape[0] != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}); got shape {y.shape}")
    if y.dtype.kind not in "biuf" or not np.all((y == 0) | (y == 1)):
        vals = np.unique(y)
        raise ValueError(f"y must be a binary class coded 0/1; got values {vals[:5].tolist()}")
    y = y.astype(np.int64)
    n1 = int(y.sum())
    if n1 == 0 or n1 == n:
        raise ValueError(f"y must contain both classes; got only class {int(y[0])}")
    return y, n - n1, n1


def _resolve_selection(selection, k, n0, n1, corrected):
    if selection is None:
        if corrected:
            raise ValueError("corrected=True needs the selection: a Selection or a tuple "
                             "(n_omitted, threshold)")
        return 0, None
    if isinstance(selection, Selection):
        if selection.statistic != "abs_corr":
            raise ValueError("the naive Bayes adjustment needs an 'abs_corr' selection; got "
                             f"statistic {selection.statistic!r}")
        if selection.n_selected != k:
            raise ValueError(f"X has {k} columns but the selection retained "
                             f"{selection.n_selected} features")
        if tuple(int(c) for c in selection.class_counts) != (n0, n1):
            raise ValueError(f"the selection was made with class counts "
                             f"{selection.class_counts.tolist()} but y has ({n0}, {n1})")
        return int(selection.n_omitted), float(selection.threshold)
    try:
        n_omitted, gamma = selection
    except (TypeError, ValueError) as exc:
        raise TypeError("selection must be a Selection, a tuple (n_omitted, threshold) or "
                        f"None; got {selection!r}") from exc
    n_omitted = check_int(n_omitted, name="n_omitted (p - k)", low=0)
    return n_omitted, check_real(gamma, name="threshold (gamma) of the selection", low=0.0)


def fit_naive_bayes_quadrature(X, y, selection=None, *, corrected: bool = True,
                               prior: NaiveBayesPrior | None = None,
                               quadrature: str = "accurate", n_alpha: int | None = None,
                               theta_rule: str | None = None, n_theta: int | None = None,
                               adjustment_theta_rule: str | None = None,
                               adjustment_n_theta: int | None = None) -> NaiveBayesQuadratureFit:
    """Fit binary naive Bayes on retained features by quadrature, with or without correction.

    Parameters
    ----------
    X : array-like of 0/1, shape (n, k)
        Training values of the k retained features.
    y : array-like of 0/1, shape (n,)
        Training classes.
    selection : Selection or tuple (n_omitted, threshold) or None
        What the corrected posterior conditions on: p - k omitted features all had
        |Cor| <= threshold. A :class:`selbayes.Selection` must come from
        ``select_features(..., statistic="abs_corr")`` on the same training cases. ``None`` is
        allowed only when ``corrected=False``.
    corrected : bool
        Include the factor P(|COR| <= gamma | alpha)^(p - k) (eq 2.42).
    prior : NaiveBayesPrior, optional
        Default: the thesis' a = 0.5, b = 5, f0 = f1 = 1.
    quadrature : {"accurate", "thesis"}
        Preset for the settings below (see ``QUADRATURE_PRESETS``); explicit arguments override.
    n_alpha : int, optional
        K, the number of prior-quantile alpha nodes.
    theta_rule : {"gauss", "transform", "simpson"}, optional
        Theta rule for the retained features.
    n_theta : int, optional
        Its node count (default: the preset's, or a converged count growing like sqrt(n)).
    adjustment_theta_rule : {"gauss", "simpson"}, optional
        Theta rule for the adjustment factor.
    adjustment_n_theta : int, optional
        Its node count.

    Returns
    -------
    NaiveBayesQuadratureFit
        ``.predict_proba(X_test)`` gives P(y* = 1 | x*) (shape (T,)), ``.alpha_grid`` and
        ``.alpha_posterior`` the posterior of alpha over the grid.

    Raises
    ------
    ValueError
        If ``quadrature``, ``theta_rule`` or ``adjustment_theta_rule`` is unknown; ``X`` is not
        a finite 0/1 matrix; ``y`` is not 0/1 with one entry per row and both classes present;
        ``selection`` is None while ``corrected``, is a Selection of another statistic, k or
        class counts, or a tuple with a negative or non-integer ``n_omitted`` or a negative or
        non-finite threshold; or ``n_alpha`` is not a positive integer, or ``n_theta`` or
        ``adjustment_n_theta`` is not an integer >= 2.
    TypeError
        If ``prior`` is not a NaiveBayesPrior, ``selection`` is of another type or its
        threshold not a number, ``corrected`` is not a bool, or ``X`` is not numeric.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(30, 3)); y = np.repeat([0, 1], 15)
    >>> fit = fit_naive_bayes_quadrature(X, y, (97, 0.3), quadrature="thesis")
    >>> fit.predict_proba(X[:2]).shape, fit.alpha_grid.shape
    ((2,), (30,))
    """
    parts = _grid_parts(X, y, selection, corrected=corrected, prior=prior,
                        quadrature=quadrature, n_alpha=n_alpha, theta_rule=theta_rule,
                        n_theta=n_theta, adjustment_theta_rule=adjustment_theta_rule,
                        adjustment_n_theta=adjustment_n_theta)
    alpha, inverse = parts["alpha"], parts["inverse"]
    log_lik = parts["log_B"][:, inverse].sum(axis=1)
    log_pkeep = parts["log_pkeep"]
    log_adj = np.zeros_like(alpha) if log_pkeep is None else parts["n_omitted"] * log_pkeep
    log_post = log_lik + log_adj
    log_post = log_post - logsumexp(log_post)
    return NaiveBayesQuadratureFit(
        alpha_grid=alpha, log_alpha_weights=log_post, log_likelihood=log_lik,
        log_adjustment=log_adj, log_pkeep=log_pkeep, psi_hat=parts["psi_hat"],
        class_counts=parts["class_counts"], corrected=bool(corrected),
        n_omitted=parts["n_omitted"], threshold=parts["threshold"], prior=parts["prior"],
        settings=parts["settings"], _log_pi=parts["log_pi"][..., inverse])


def _grid_parts(X, y, selection, *, corrected, prior, quadrature, n_alpha, theta_rule, n_theta,
                adjustment_theta_rule, adjustment_n_theta) -> dict:
    """Checked inputs and the per-feature pieces of the quadrature on the alpha grid, shared by
    :func:`fit_naive_bayes_quadrature` and the two-groups fit
    (:func:`selbayes.models.fit_naive_bayes_two_groups`).

    Features enter only through their counts (I0, I1), so everything is per distinct pair:
    ``log_B`` (K, U) the training marginals, ``log_pi`` (2, 2, K, U) the predictive
    log pi_{m,j}(y*, x*); ``inverse`` (k,) maps each feature to its pair. Also ``alpha`` (K,),
    ``pairs`` (U, 2), ``log_pkeep`` (K,) or None (uncorrected, or nothing omitted),
    ``n_omitted``, ``threshold``, ``class_counts``, ``prior``, ``psi_hat`` (eq 2.32) and
    ``settings``."""
    if quadrature not in QUADRATURE_PRESETS:
        raise ValueError(f"quadrature must be one of {tuple(QUADRATURE_PRESETS)}; "
                         f"got {quadrature!r}")
    preset = QUADRATURE_PRESETS[quadrature]
    n_alpha = preset["n_alpha"] if n_alpha is None else n_alpha
    theta_rule = preset["theta_rule"] if theta_rule is None else theta_rule
    if theta_rule not in RETAINED_THETA_RULES:
        raise ValueError(f"theta_rule must be one of {RETAINED_THETA_RULES}; got {theta_rule!r}")
    if n_theta is None and theta_rule == preset["theta_rule"]:
        n_theta = preset["n_theta"]
    adj_rule = preset["adjustment_theta_rule"] if adjustment_theta_rule is None \
        else adjustment_theta_rule
    if adj_rule not in THETA_RULES:
        raise ValueError(f"adjustment_theta_rule must be one of {THETA_RULES}; got {adj_rule!r}")
    corrected = check_flag(corrected, "corrected")
    for name, value in (("n_theta", n_theta), ("adjustment_n_theta", adjustment_n_theta)):
        if value is not None:
            check_int(value, name=name, low=2, what="theta nodes, or None")
    adj_n = adjustment_n_theta
    if adj_n is None and adj_rule == preset["adjustment_theta_rule"]:
        adj_n = preset["adjustment_n_theta"]
    prior = NaiveBayesPrior() if prior is None else prior
    if not isinstance(prior, NaiveBayesPrior):
        raise TypeError(f"prior must be a NaiveBayesPrior; got {type(prior).__name__}")

    X = check_matrix(X)
    check_binary(X, name="X")
    n, k = X.shape
    y, n0, n1 = _check_y01(y, n)
    n_omitted, gamma = _resolve_selection(selection, k, n0, n1, bool(corrected))

    if n_theta is None:
        n_theta = default_n_theta(n, "gauss") if theta_rule == "gauss" else 41
    if adj_n is None:
        adj_n = default_n_theta(n, adj_rule)
    alpha = prior_alpha_grid(n_alpha, prior)

    # Features enter only through their counts (I0, I1): compute once per distinct pair.
    counts = np.stack([X[y == 0].sum(axis=0), X[y == 1].sum(axis=0)], axis=1).astype(np.int64)
    pairs, inverse = np.unique(counts, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    log_B, log_m1, log_m0 = log_marginal_and_theta_mean(alpha, pairs, n0, n1, theta_rule,
                                                        n_theta)
    log_pkeep = None
    if corrected and n_omitted > 0:
        log_pkeep = np.asarray(corr_log_omit_prob(alpha, n0, n1, gamma, adj_n, adj_rule))

    # log pi_{m,j}(y*, x*) = log(alpha E[theta or 1 - theta] + count) - log(alpha + N_y*).
    la = np.log(alpha)[:, None]
    log_pi = np.empty((2, 2, alpha.shape[0], pairs.shape[0]))
    for cls, N in ((0, n0), (1, n1)):
        ones = pairs[:, cls].astype(np.float64)
        with np.errstate(divide="ignore"):
            log_pi[cls, 1] = np.logaddexp(la + log_m1, np.log(ones))
            log_pi[cls, 0] = np.logaddexp(la + log_m0, np.log(N - ones))
        log_pi[cls] -= np.log(alpha + N)[:, None]

    settings = {"quadrature": quadrature, "n_alpha": int(n_alpha), "theta_rule": theta_rule,
                "n_theta": int(n_theta), "adjustment_theta_rule": adj_rule,
                "adjustment_n_theta": int(adj_n)}
    return {"alpha": alpha, "pairs": pairs, "inverse": inverse, "log_B": log_B,
            "log_pi": log_pi, "log_pkeep": log_pkeep, "n_omitted": n_omitted,
            "threshold": gamma, "class_counts": (n0, n1), "prior": prior,
            "psi_hat": (prior.f1 + n1) / (prior.f0 + prior.f1 + n0 + n1),       # eq 2.32
            "settings": settings}
