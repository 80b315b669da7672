"""The binary naive Bayes model with a two-groups prior, by quadrature.

The model of Li (2007, section 2.3) with one change: each feature j is null with probability
pi0 (its class probabilities equal, phi_{0,j} = phi_{1,j} = theta_j ~ U(0, 1)) and otherwise a
marker (phi_{y,j} ~ Beta(alpha theta_j, alpha (1 - theta_j)) as before); pi0 ~ Beta(pi0_a,
pi0_b). The indicator of each feature is summed out, so the features stay independent given
(alpha, pi0), and the posterior lives on a two-dimensional grid:

    log w_{m,l} = sum_j log[pi0_l B0_j + (1 - pi0_l) B_{m,j}]
                  + c (p - k) log[pi0_l P0 + (1 - pi0_l) P_keep(alpha_m)]

with B_{m,j} the marker's training marginal (as in the one-group model), B0_j = B(I_j + 1,
O_j + 1) the null's (a beta function of the pooled counts), P_keep(alpha) = P(|COR| <= gamma |
alpha) (Li 2007 eqs 2.52-2.55) and P0 = P(|COR| <= gamma | null), which is a finite sum
(:func:`null_log_omit_prob`). alpha_m are the prior's quantile midpoints, as in the one-group
fit, and pi0_l the midpoints of pi0's prior quantiles. The predictive of feature j mixes the
null's pooled frequency and the marker's class frequency with the feature's posterior
probability of being null at that grid point. With thousands of omitted features pi0 is
sharply determined by the factor; the grid points that carry weight are kept, and the
predictive is stored per distinct count pair (I0, I1), not per feature.

The same idea, for the Gaussian model's class means, is the two-groups prior of
:mod:`selbayes.models._gaussian_two_groups` (Efron 2008).

References
----------
Li, L. (2007). Bayesian classification and regression with high dimensional features. PhD
thesis, University of Toronto, section 2.3.
Efron, B. (2008). Microarrays, empirical Bayes and the two-groups model. Statistical Science
23(1), 1-22.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import betaln, gammaln, logsumexp
from scipy.stats import beta as beta_dist

from .._validation import check_positive_int
from ..adjustment._corr import corr_omit_region
from ._naive_bayes_quadrature import NaiveBayesQuadratureFit, _grid_parts
from ._priors import NaiveBayesPrior

__all__ = ["null_log_omit_prob", "prior_pi0_grid", "fit_naive_bayes_two_groups",
           "NaiveBayesTwoGroupsFit", "DEFAULT_N_PI0"]

#: pi0 nodes (prior quantile midpoints); the posterior sd of pi0 is about
#: sqrt(pi0 (1 - pi0) / p), so with a uniform prior 100 nodes put several within one sd for
#: p up to a few thousand (finer: ``n_pi0``).
DEFAULT_N_PI0 = 100
#: Grid points whose log weight is this far below the largest are dropped before the
#: predictive is built (their total weight is below e^-40 times the number of nodes).
PRUNE_NATS = 25.0


def null_log_omit_prob(n0: int, n1: int, threshold: float) -> float:
    """log P(|COR| <= gamma) of a null feature: phi_0 = phi_1 = theta ~ U(0, 1).

    The counts (I0, I1) of a null feature have probability C(n0, I0) C(n1, I1) B(I0 + I1 + 1,
    n - I0 - I1 + 1) (theta integrated out exactly), so P(COR > gamma) is a finite sum over
    the lattice region of :func:`selbayes.adjustment._corr.corr_omit_region`, and by the
    symmetry 0 <-> 1 P(COR < -gamma) is the same. It is the alpha -> infinity limit of
    :func:`selbayes.adjustment.corr_log_omit_prob`.

    Parameters
    ----------
    n0, n1 : int
        Training cases per class.
    threshold : float
        gamma >= 0 (a correlation).

    Returns
    -------
    float
        log P(|COR| <= gamma | null) <= 0 (nats).

    Examples
    --------
    >>> round(float(np.exp(null_log_omit_prob(4, 4, 0.3))), 6)
    0.596825
    """
    mask, _, _ = corr_omit_region(n0, n1, threshold)
    if not mask.any():
        return 0.0
    n = n0 + n1
    i0 = np.arange(n0 + 1)[:, None]
    i1 = np.arange(n1 + 1)[None, :]
    log_c = (gammaln(n0 + 1) - gammaln(i0 + 1) - gammaln(n0 - i0 + 1)
             + gammaln(n1 + 1) - gammaln(i1 + 1) - gammaln(n1 - i1 + 1)
             + betaln(i0 + i1 + 1, n - i0 - i1 + 1))
    return float(np.log1p(-2.0 * np.exp(logsumexp(log_c[mask]))))


def prior_pi0_grid(n_pi0: int, prior: NaiveBayesPrior) -> np.ndarray:
    """Midpoints of pi0's prior quantiles, Beta(pi0_a, pi0_b).ppf((l - 1/2) / L), l = 1..L.

    Parameters
    ----------
    n_pi0 : int
        L >= 1.
    prior : NaiveBayesPrior
        With ``pi0_a`` and ``pi0_b`` set.

    Returns
    -------
    ndarray of shape (L,)
        Increasing values in (0, 1); each stands for prior mass 1/L.

    Raises
    ------
    ValueError
        If ``prior`` has no pi0 settings.

    Examples
    --------
    >>> prior_pi0_grid(4, NaiveBayesPrior(pi0_a=1.0, pi0_b=1.0)).tolist()
    [0.125, 0.375, 0.625, 0.875]
    """
    if not prior.two_groups:
        raise ValueError("the two-groups grid needs priors pi0_a and pi0_b")
    u = (np.arange(n_pi0) + 0.5) / n_pi0
    return beta_dist(prior.pi0_a, prior.pi0_b).ppf(u)


@dataclass(frozen=True, repr=False)
class NaiveBayesTwoGroupsFit(NaiveBayesQuadratureFit):
    """Posterior of the two-groups naive Bayes model on an (alpha, pi0) grid.

    The grid points kept (those within :data:`PRUNE_NATS` of the largest weight) are the
    "nodes" of the parent class, so its prediction code applies unchanged: ``alpha_grid`` and
    ``pi0_grid`` (M,) give each node's alpha and pi0, ``log_alpha_weights`` (M,) their
    normalised log posterior weights.

    Attributes
    ----------
    pi0_grid : ndarray, shape (M,)
        pi0 of each kept node.
    marker_probabilities : ndarray, shape (k,)
        Posterior probability that each kept feature is a marker (not null), given the data
        and the selection.
    log_p0 : float or None
        log P(|COR| <= gamma | null) (None when uncorrected).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 15); X = rng.integers(0, 2, size=(30, 4)); X[:, 0] = y
    >>> fit = fit_naive_bayes_two_groups(X, y, (200, 0.3), n_pi0=50,
    ...                                  prior=NaiveBayesPrior(pi0_a=1.0, pi0_b=1.0))
    >>> bool(fit.marker_probabilities[0] > 0.99), 0.5 < fit.pi0_posterior_mean < 1
    (True, True)
    """

    pi0_grid: np.ndarray = field(default=None)
    marker_probabilities: np.ndarray = field(default=None)
    log_p0: float | None = None
    # Feature j's count pair: _log_pi is (2, 2, M, U) per distinct pair, not per feature.
    _pair_of_feature: np.ndarray = field(default=None, repr=False)

    @property
    def n_features(self) -> int:
        """k, the number of retained features."""
        return int(self._pair_of_feature.shape[0])

    def _class_scores(self, X: np.ndarray) -> np.ndarray:
        """LSE over the nodes of l(y*), shape (T, 2), summing features by count pair."""
        import math

        U = self._log_pi.shape[-1]
        onehot = np.zeros((self.n_features, U))
        onehot[np.arange(self.n_features), self._pair_of_feature] = 1.0
        ones, zeros = X @ onehot, (1.0 - X) @ onehot                     # (T, U) counts
        log_psi = np.array([math.log1p(-self.psi_hat), math.log(self.psi_hat)])
        out = np.empty((X.shape[0], 2))
        for y in (0, 1):
            ell = ones @ self._log_pi[y, 1].T + zeros @ self._log_pi[y, 0].T
            out[:, y] = log_psi[y] + logsumexp(ell + self.log_alpha_weights, axis=1)
        return out

    @property
    def pi0_posterior_mean(self) -> float:
        """E[pi0 | data, selection]."""
        return float(np.exp(self.log_alpha_weights) @ self.pi0_grid)

    @property
    def log_alpha_density(self) -> np.ndarray:  # pragma: no cover - defined on 1-D grids only
        raise AttributeError("log_alpha_density is defined for the one-group grid; the "
                             "two-groups fit has an (alpha, pi0) grid (alpha_grid, pi0_grid, "
                             "alpha_posterior)")

    def __repr__(self) -> str:
        return (f"NaiveBayesTwoGroupsFit(k={self.n_features}, n_omitted={self.n_omitted}, "
                f"corrected={self.corrected}, nodes={self.alpha_grid.shape[0]}, "
                f"E[pi0]={self.pi0_posterior_mean:.3f})")


#: the one-group fit's settings that ``**grid`` passes on
_GRID_SETTINGS = ("n_alpha", "theta_rule", "n_theta", "adjustment_theta_rule",
                  "adjustment_n_theta")


def fit_naive_bayes_two_groups(X, y, selection=None, *, corrected: bool = True,
                               prior: NaiveBayesPrior | None = None,
                               quadrature: str = "accurate", n_pi0: int = DEFAULT_N_PI0,
                               **grid) -> NaiveBayesTwoGroupsFit:
    """Fit the two-groups binary naive Bayes model on retained features by quadrature.

    Parameters
    ----------
    X : array-like of 0/1, shape (n, k)
        Training values of the k retained features.
    y : array-like of 0/1, shape (n,)
        Training classes.
    selection : Selection or tuple (n_omitted, threshold) or None
        As for :func:`selbayes.models.fit_naive_bayes_quadrature`.
    corrected : bool
        Include the factor [pi0 P0 + (1 - pi0) P_keep(alpha)]^(p - k).
    prior : NaiveBayesPrior
        With ``pi0_a`` and ``pi0_b`` set (the two-groups prior).
    quadrature : {"accurate", "thesis"}
        The alpha and theta rules (as in the one-group fit).
    n_pi0 : int
        pi0 nodes (prior quantile midpoints).
    **grid
        ``n_alpha``, ``theta_rule``, ``n_theta``, ``adjustment_theta_rule``,
        ``adjustment_n_theta`` of the one-group fit.

    Returns
    -------
    NaiveBayesTwoGroupsFit
        ``predict_proba`` / ``predict_log_proba`` as the one-group fit;
        ``marker_probabilities`` (k,); ``pi0_posterior_mean``.

    Raises
    ------
    ValueError
        If ``prior`` has no pi0 settings, ``n_pi0`` is not a positive integer, or any input
        fails the checks of the one-group fit.
    TypeError
        If ``grid`` holds a name other than the one-group fit's settings, or as the one-group
        fit.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(30, 3)); y = np.repeat([0, 1], 15)
    >>> fit = fit_naive_bayes_two_groups(X, y, (97, 0.3), n_pi0=50,
    ...                                  prior=NaiveBayesPrior(pi0_a=1.0, pi0_b=1.0))
    >>> fit.predict_proba(X[:2]).shape, fit.marker_probabilities.shape
    ((2,), (3,))
    """
    prior = NaiveBayesPrior() if prior is None else prior
    if not isinstance(prior, NaiveBayesPrior) or not prior.two_groups:
        raise ValueError("the two-groups fit needs a NaiveBayesPrior with pi0_a and pi0_b "
                         "set (e.g. priors={'pi0_a': 1, 'pi0_b': 1})")
    check_positive_int(n_pi0, name="n_pi0")
    unknown = sorted(set(grid) - set(_GRID_SETTINGS))
    if unknown:
        raise TypeError(f"fit_naive_bayes_two_groups got unknown setting(s) {unknown}; the grid "
                        f"settings are {list(_GRID_SETTINGS)}")
    parts = _grid_parts(X, y, selection, corrected=corrected, prior=prior,
                        quadrature=quadrature, **{key: grid.get(key) for key in _GRID_SETTINGS})
    alpha, pairs, inverse = parts["alpha"], parts["pairs"], parts["inverse"]
    n0, n1 = parts["class_counts"]
    n = n0 + n1
    pi0 = prior_pi0_grid(int(n_pi0), prior)
    log_pi0, log_pi1 = np.log(pi0), np.log1p(-pi0)

    # Per distinct count pair u: the null's marginal and its predictive of a one.
    ones = pairs.sum(axis=1).astype(np.float64)
    log_B0 = betaln(ones + 1.0, n - ones + 1.0)                                 # (U,)
    log_q0 = np.stack([np.log(n - ones + 1.0), np.log(ones + 1.0)]) - np.log(n + 2.0)  # (2, U)
    # Mixed per-feature marginal at each (alpha_m, pi0_l): (K, L, U).
    null_part = log_pi0[None, :, None] + log_B0[None, None, :]
    slab_part = log_pi1[None, :, None] + parts["log_B"][:, None, :]
    log_mix = np.logaddexp(null_part, slab_part)
    count = np.bincount(inverse, minlength=pairs.shape[0]).astype(np.float64)
    log_lik = log_mix @ count                                                    # (K, L)
    log_p0, log_adj = None, np.zeros_like(log_lik)
    if parts["log_pkeep"] is not None:
        log_p0 = null_log_omit_prob(n0, n1, parts["threshold"])
        log_adj = parts["n_omitted"] * np.logaddexp(
            log_pi0[None, :] + log_p0, log_pi1[None, :] + parts["log_pkeep"][:, None])
    log_w = log_lik + log_adj
    log_w = log_w - logsumexp(log_w)

    # Keep the grid points that carry weight (the pi0 posterior is narrow given many omitted).
    m_idx, l_idx = np.nonzero(log_w > log_w.max() - PRUNE_NATS)
    lw = log_w[m_idx, l_idx] - logsumexp(log_w[m_idx, l_idx])
    # log P(feature null | its counts, node): (M, U); the marker's from the slab part, not
    # as 1 - P(null), which would lose every digit for a strong marker.
    log_null = null_part[0, l_idx] - log_mix[m_idx, l_idx]
    log_marker = slab_part[m_idx, l_idx] - log_mix[m_idx, l_idx]
    # Predictive per node: P(x* | y*) = P(null) q0(x*) + P(marker) pi_m(y*, x*).
    log_pi = np.empty((2, 2, lw.shape[0], pairs.shape[0]))
    for cls in (0, 1):
        for x in (0, 1):
            log_pi[cls, x] = np.logaddexp(log_null + log_q0[x][None, :],
                                          log_marker + parts["log_pi"][cls, x][m_idx])
    marker = np.exp(lw) @ np.exp(log_marker)                                     # (U,)
    settings = {**parts["settings"], "n_pi0": int(n_pi0)}
    return NaiveBayesTwoGroupsFit(
        alpha_grid=alpha[m_idx], log_alpha_weights=lw, log_likelihood=log_lik[m_idx, l_idx],
        log_adjustment=log_adj[m_idx, l_idx],
        log_pkeep=None if parts["log_pkeep"] is None else parts["log_pkeep"][m_idx],
        psi_hat=parts["psi_hat"], class_counts=(n0, n1),
        corrected=bool(corrected), n_omitted=parts["n_omitted"], threshold=parts["threshold"],
        prior=prior, settings=settings, _log_pi=log_pi,
        pi0_grid=pi0[l_idx], marker_probabilities=marker[inverse], log_p0=log_p0,
        _pair_of_feature=inverse)
