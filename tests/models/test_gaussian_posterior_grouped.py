"""The grouped per-feature predictive (``factorised_predictive_log_proba`` with ``groups``) and
``hyperparameter_groups``: against their definition written with loops, against the joint
average in its limits, and against a closed form where the posterior is known exactly."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import norm

from selbayes.models import (
    factorised_predictive_log_proba,
    hyperparameter_groups,
    predictive_log_proba,
)


def _random_moments(seed, S=12, k=5, G=3, m=4):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(m, k)), rng.normal(size=(S, k, G)), rng.gamma(2.0, size=(S, k, G)),
            np.log(rng.dirichlet(np.ones(G))))


def test_grouped_predictive_is_its_definition():
    """Reference: sum over groups of (size / S) prod_j mean over the group's draws, by loops."""
    X, mean, prec, prior = _random_moments(0)
    S, k, G = mean.shape
    groups = np.array([0, 0, 1, 2, 1, 1, 0, 2, 2, 2, 1, 0])
    ref = np.empty((X.shape[0], G))
    for i in range(X.shape[0]):
        for g in range(G):
            total = 0.0
            for b in np.unique(groups):
                draws = np.flatnonzero(groups == b)
                prod = 1.0
                for j in range(k):
                    prod *= np.mean([norm.pdf(X[i, j], mean[s, j, g], prec[s, j, g] ** -0.5)
                                     for s in draws])
                total += len(draws) / S * prod
            ref[i, g] = np.log(total) + prior[g]
    ref -= logsumexp(ref, axis=1, keepdims=True)
    got = factorised_predictive_log_proba(X, mean, prec, prior, max_draws=None, groups=groups,
                                          max_bytes=8 * 3 * 2)       # many small blocks
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_one_draw_per_group_is_the_joint_average_and_one_group_the_product():
    X, mean, prec, prior = _random_moments(1)
    S = mean.shape[0]
    joint = predictive_log_proba(X, mean, prec, prior)
    np.testing.assert_allclose(factorised_predictive_log_proba(
        X, mean, prec, prior, max_draws=None, groups=np.arange(S)), joint, atol=1e-12)
    np.testing.assert_allclose(factorised_predictive_log_proba(
        X, mean, prec, prior, max_draws=None, groups=np.zeros(S, dtype=int)),
        factorised_predictive_log_proba(X, mean, prec, prior, max_draws=None), atol=1e-14)


def test_grouped_predictive_recovers_a_known_posterior_where_the_joint_average_cannot():
    """A posterior known exactly: a global hyperparameter theta in {0, 1} (half the draws
    each); given theta, each feature's predictive mean is drawn independently, m_sjg ~
    N(a_jg(theta), s^2), precision P. Then E[N(x | m, 1/P) | theta] = N(x | a, 1/P + s^2) and
    p(x | g) = (1/2) sum_theta prod_j N(x_j | a_jg(theta), 1/P + s^2) exactly. With k = 200
    features the grouped estimate must sit within 4 of its own Monte Carlo standard errors of
    the truth (delta method: per feature the variance of a mean of densities over its mean
    squared, summed over features), and the joint average must be far worse."""
    rng = np.random.default_rng(2)
    S, k, G, s, P = 2000, 200, 2, 0.5, 1.0
    theta = np.repeat([0, 1], S // 2)
    a = rng.normal(scale=0.3, size=(2, k, G))
    mean = a[theta] + s * rng.normal(size=(S, k, G))
    prec = np.full((S, k, G), P)
    X = rng.normal(scale=1.2, size=(30, k))
    prior = np.log([0.5, 0.5])

    sd = np.sqrt(1 / P + s**2)
    per_theta = norm.logpdf(X[None, :, :, None], a[:, None], sd).sum(2)        # (2, m, G)
    exact = logsumexp(per_theta, axis=0) - np.log(2)
    exact_odds = exact[:, 1] - exact[:, 0]

    got = factorised_predictive_log_proba(X, mean, prec, prior, max_draws=None, groups=theta)
    joint = predictive_log_proba(X, mean, prec, prior)
    err = np.abs((got[:, 1] - got[:, 0]) - exact_odds)
    err_joint = np.abs((joint[:, 1] - joint[:, 0]) - exact_odds)

    # Monte Carlo standard error of each log density, per class, from the draws themselves
    dens = norm.pdf(X[None, :, :, None], mean[:, None], 1 / np.sqrt(P))      # (S, m, k, G)
    var = np.zeros((X.shape[0], G))
    for b in (0, 1):
        d = dens[theta == b]
        rel = d.var(0, ddof=1) / (d.shape[0] * d.mean(0) ** 2)                # (m, k, G)
        # weight of group b in the mixture over theta, per case and class
        w = np.exp(per_theta[b] - logsumexp(per_theta, axis=0))
        var += w**2 * rel.sum(1)
    se_odds = np.sqrt(var.sum(1))
    assert np.all(err < 4 * se_odds), (err / se_odds).max()
    assert err_joint.mean() > 5 * err.mean()


def test_hyperparameter_groups():
    tau = np.random.default_rng(3).gamma(2.0, size=103)
    labels = hyperparameter_groups(tau, n_groups=10)
    sizes = np.bincount(labels)
    assert sizes.size == 10 and sizes.max() - sizes.min() <= 1
    order = np.argsort(tau)
    assert np.all(np.diff(labels[order]) >= 0)          # groups are intervals of tau_mu
    assert np.array_equal(hyperparameter_groups(tau[:3], n_groups=10), np.argsort(np.argsort(
        tau[:3])))                                      # fewer draws than groups: one each
    with pytest.raises(ValueError, match="n_groups"):
        hyperparameter_groups(tau, n_groups=0)
    with pytest.raises(ValueError, match="1-D"):
        hyperparameter_groups(tau.reshape(1, -1))


def test_groups_must_label_every_draw():
    X, mean, prec, prior = _random_moments(4)
    with pytest.raises(ValueError, match="one int label per draw"):
        factorised_predictive_log_proba(X, mean, prec, prior, groups=np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="one int label per draw"):
        factorised_predictive_log_proba(X, mean, prec, prior, groups=np.zeros(12))
