"""The two-groups binary naive Bayes model by quadrature.

References: the null omission probability against the one-group factor at alpha -> infinity
(a different quadrature) and against simulation; the predictive against a second route, the
ratio of marginal likelihoods of the training data with the test case added to each class
(every grid node, no pruning, the marginals from the one-group code and beta functions); the
one-group fit as the limit pi0 -> 0; and (slow) simulation-based calibration of pi0."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import betaln, logsumexp

from selbayes import select_features
from selbayes.adjustment import corr_log_omit_prob
from selbayes.filters import binary_correlation
from selbayes.models import NaiveBayesPrior, fit_naive_bayes_quadrature, fit_naive_bayes_two_groups
from selbayes.models._naive_bayes_quadrature import log_marginal_and_theta_mean, prior_alpha_grid
from selbayes.models._naive_bayes_two_groups import null_log_omit_prob, prior_pi0_grid

PRIOR = NaiveBayesPrior(pi0_a=1.0, pi0_b=1.0)


@pytest.mark.parametrize("n0,n1,gamma", [(4, 4, 0.3), (10, 12, 0.3), (15, 25, 0.45)])
def test_null_omission_is_the_one_group_factor_at_infinite_alpha(n0, n1, gamma):
    at_1e8 = corr_log_omit_prob(1e8, n0, n1, gamma)
    assert abs(null_log_omit_prob(n0, n1, gamma) - at_1e8) < 1e-6


def test_null_omission_matches_simulation():
    """Monte Carlo: null features (theta ~ U(0, 1) shared by both classes), 200 000 draws;
    within 4 binomial standard errors."""
    rng = np.random.default_rng(0)
    n0, n1, gamma, m = 10, 14, 0.35, 200_000
    theta = rng.random(m)
    i0, i1 = rng.binomial(n0, theta), rng.binomial(n1, theta)
    omitted = np.abs(binary_correlation(i0, i1, n0, n1)) <= gamma * (1 + 1e-12)
    p = np.exp(null_log_omit_prob(n0, n1, gamma))
    assert abs(omitted.mean() - p) < 4 * np.sqrt(p * (1 - p) / m)


def _predictive_by_marginal_ratio(X, y, x_star, n_omitted, gamma, n_alpha, n_pi0):
    """P(y* = 1 | x*) as p(D + (x*, 1)) / p(D + (x*, 0)) times the class predictive, over the
    full (alpha, pi0) grid; the selection factor uses the training class counts."""
    n0, n1 = int((y == 0).sum()), int((y == 1).sum())
    alpha = prior_alpha_grid(n_alpha, PRIOR)
    pi0 = prior_pi0_grid(n_pi0, PRIOR)
    lp0 = null_log_omit_prob(n0, n1, gamma)
    lp1 = corr_log_omit_prob(alpha, n0, n1, gamma)
    log_adj = n_omitted * np.logaddexp(np.log(pi0)[None] + lp0,
                                       np.log1p(-pi0)[None] + lp1[:, None])       # (K, L)
    score = []
    for c, (m0, m1) in ((0, (n0 + 1, n1)), (1, (n0, n1 + 1))):
        Xa = np.vstack([X, x_star])
        ya = np.r_[y, c]
        counts = np.stack([Xa[ya == 0].sum(0), Xa[ya == 1].sum(0)], axis=1)
        log_B, _, _ = log_marginal_and_theta_mean(alpha, counts, m0, m1)         # (K, k)
        ones = counts.sum(1)
        log_B0 = betaln(ones + 1.0, m0 + m1 - ones + 1.0)                           # (k,)
        mix = np.logaddexp(np.log(pi0)[None, :, None] + log_B0[None, None, :],
                           np.log1p(-pi0)[None, :, None] + log_B[:, None, :]).sum(-1)
        psi = (PRIOR.f1 + n1) if c == 1 else (PRIOR.f0 + n0)
        score.append(np.log(psi) + logsumexp(mix + log_adj))
    return 1.0 / (1.0 + np.exp(score[0] - score[1]))


def test_predictive_equals_the_ratio_of_marginal_likelihoods():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], [9, 11])
    X = rng.integers(0, 2, size=(20, 4))
    X[:, 0] = y                                          # one perfect marker
    x_star = np.array([[1, 0, 1, 1], [0, 1, 1, 0]])
    fit = fit_naive_bayes_two_groups(X, y, (150, 0.4), prior=PRIOR, n_alpha=60, n_pi0=40)
    got = fit.predict_proba(x_star)
    ref = [_predictive_by_marginal_ratio(X, y, x[None], 150, 0.4, 60, 40) for x in x_star]
    np.testing.assert_allclose(got, ref, rtol=1e-8)


def test_a_prior_without_null_features_gives_the_one_group_fit():
    """pi0 ~ Beta(1e-3, 50): every node has pi0 below 1e-10, so the model is the one-group
    model (its predictive to 1e-6)."""
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 12)
    X = rng.integers(0, 2, size=(24, 6))
    prior = NaiveBayesPrior(pi0_a=1e-3, pi0_b=50.0)
    assert prior_pi0_grid(20, prior).max() < 1e-10
    two = fit_naive_bayes_two_groups(X, y, (80, 0.3), prior=prior, n_alpha=50, n_pi0=20)
    one = fit_naive_bayes_quadrature(X, y, (80, 0.3), n_alpha=50)
    np.testing.assert_allclose(two.predict_proba(X), one.predict_proba(X), atol=1e-6)


def test_a_strong_marker_keeps_its_strength_and_is_called_a_marker():
    """The failure the two-groups prior exists for: one feature equal to the class among
    hundreds of omitted null features. The one-group correction shrinks it to a coin flip;
    the two-groups fit keeps it and gives it marker probability near 1."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    X = rng.integers(0, 2, size=(30, 5))
    X[:, 0] = y
    one = fit_naive_bayes_quadrature(X, y, (200, 0.3))
    two = fit_naive_bayes_two_groups(X, y, (200, 0.3), prior=PRIOR)
    x = np.array([[1, 0, 0, 0, 0]])
    assert abs(one.predict_proba(x)[0] - 0.5) < 0.1
    assert two.predict_proba(x)[0] > 0.85
    assert two.marker_probabilities[0] > 0.99 and two.marker_probabilities[1:].max() < 0.1


def test_bad_settings_are_refused():
    X = np.eye(4, dtype=int)[[0, 1, 2, 3, 0, 1]]
    y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="pi0_a and pi0_b"):
        fit_naive_bayes_two_groups(X, y, (10, 0.2), prior=NaiveBayesPrior())
    with pytest.raises(ValueError, match="n_pi0 must be a positive integer"):
        fit_naive_bayes_two_groups(X, y, (10, 0.2), prior=PRIOR, n_pi0=0)
    with pytest.raises(ValueError, match=r"prior\.pi0_a and prior\.pi0_b switch"):
        NaiveBayesPrior(pi0_a=1.0)
    with pytest.raises(ValueError, match=r"prior\.pi0_b must be > 0"):
        NaiveBayesPrior(pi0_a=1.0, pi0_b=0.0)


def _sbc_ranks(corrected, n_rep=150, n=24, p=120, k=6, seed=0):
    """PIT of pi0 in the two-groups posterior, data simulated from the prior (pi0 ~ U(0, 1),
    alpha ~ IG(0.5, 5), null features phi ~ U(0, 1), markers phi_y ~ Beta(alpha theta,
    alpha (1 - theta))), the k features of largest |COR| kept."""
    from scipy.stats import invgamma

    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    out = []
    for _ in range(n_rep):
        pi0 = rng.random()
        alpha = invgamma(0.5, scale=5.0).rvs(random_state=rng)
        theta = rng.random(p)
        null = rng.random(p) < pi0
        phi = np.where(null[:, None], theta[:, None],
                       rng.beta(np.maximum(alpha * theta, 1e-300)[:, None],
                                np.maximum(alpha * (1 - theta), 1e-300)[:, None],
                                size=(p, 2)))
        X = (rng.random((n, p)) < phi[:, y].T).astype(int)
        sel = select_features(X, y, k=k, statistic="abs_corr")
        fit = fit_naive_bayes_two_groups(X[:, sel.indices], y, sel, corrected=corrected,
                                         prior=PRIOR, n_alpha=60, n_pi0=100)
        w = np.exp(fit.log_alpha_weights)
        out.append(w[fit.pi0_grid < pi0].sum() + 0.5 * w[fit.pi0_grid == pi0].sum())
    return np.asarray(out)


@pytest.mark.slow
def test_sbc_pi0_is_calibrated_only_with_the_correction():
    """Simulation-based calibration (Talts et al. 2018) of pi0: with the correction the
    posterior CDF at the true pi0 is uniform (KS p > 0.01); without it the kept features, all
    chosen for looking like markers, pull pi0 down and the PIT piles up near 1 (KS p < 1e-6)."""
    from scipy.stats import kstest

    assert kstest(_sbc_ranks(True), "uniform").pvalue > 0.01
    unc = _sbc_ranks(False)
    assert kstest(unc, "uniform").pvalue < 1e-6 and unc.mean() > 0.7
