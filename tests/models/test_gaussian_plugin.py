"""The fast plug-in predictive of the Gaussian classifier and its adjustments: the hyperparameter
mode against the PyMC model's own density, the tempered and label-noise predictives against
their closed forms, the correlation temperature against the design effect."""

import numpy as np
import pytest

from selbayes.filters.selection import select_features
from selbayes.models.gaussian import sufficient_statistics
from selbayes.models.gaussian_plugin import (
    _hyper_mode,
    correlation_temperature,
    plugin_log_proba,
    temper_log_proba,
)
from selbayes.models.priors import GaussianPriors


def test_temper_scales_log_odds_against_the_prior():
    rng = np.random.default_rng(0)
    lp = np.log(rng.dirichlet(np.ones(3), size=5))
    prior = np.log([0.2, 0.3, 0.5])
    for T in (0.5, 2.0, 7.0):
        lt = temper_log_proba(lp, prior, T)
        np.testing.assert_allclose(np.exp(lt).sum(1), 1.0)
        # log odds relative to the prior odds shrink by exactly 1/T
        np.testing.assert_allclose((lt[:, 0] - lt[:, 1]) - (prior[0] - prior[1]),
                                   ((lp[:, 0] - lp[:, 1]) - (prior[0] - prior[1])) / T)
    assert temper_log_proba(lp, prior, 1.0) is lp
    with pytest.raises(ValueError, match="temperature must be a positive"):
        temper_log_proba(lp, prior, 0.0)


@pytest.mark.parametrize("corrected", [False, True])
def test_hyper_mode_matches_the_pymc_model_logp(corrected):
    """Independent route: the PyMC model's own log density (with its spline adjustment table
    and log-transform Jacobians) maximised on a grid at tau_x fixed to the same value."""
    import pymc as pm

    from selbayes.models.gaussian import build_model

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 12)
    X = rng.normal(size=(36, 400))
    X[:, :6] += 0.8 * y[:, None]
    sel = select_features(X, y, k=6)
    Xs = X[:, sel.indices]
    pri = GaussianPriors()
    counts, xbar, ssw = sufficient_statistics(Xs, y, 3)
    u, v = _hyper_mode(xbar, ssw, counts.astype(float), sel, pri, corrected)
    model = build_model(Xs, y, sel, pri, corrected=corrected)
    logp = model.compile_logp()
    n, G = 36, 3
    tau_x = (pri.alpha_x / 2 + (n - G) / 2) / (pri.alpha_x * pri.w_x / 2 + ssw / 2)
    us = u + np.linspace(-0.3, 0.3, 61)
    vs = v + np.linspace(-0.3, 0.3, 61)
    vals = np.array([[logp({"tau_mu_log__": a, "tau_nu_log__": b,
                            "tau_x_log__": np.log(tau_x)}) for b in vs] for a in us])
    i, j = np.unravel_index(np.argmax(vals), vals.shape)
    assert abs(us[i] - u) <= 0.011 and abs(vs[j] - v) <= 0.011
    assert 0 < i < 60 and 0 < j < 60          # an interior maximum, not the grid's edge
    _ = pm                                     # the model is a PyMC model


def test_plugin_predictive_is_normalised_and_sensible():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 300))
    X[:, :5] += 2.0 * y[:, None]
    sel = select_features(X, y, k=5)
    lp = plugin_log_proba(X[:, sel.indices], y, X[:, sel.indices], sel, random_state=0)
    np.testing.assert_allclose(np.exp(lp).sum(1), 1.0)
    assert np.mean(np.argmax(lp, 1) == y) > 0.9


def test_label_noise_bounds_the_loss_and_mixes_with_the_prior():
    from selbayes.models.gaussian_plugin import default_label_noise, label_noise_log_proba

    lp = np.log(np.array([[1e-300, 1.0], [0.3, 0.7]]))
    prior = np.log([0.25, 0.75])
    eps = default_label_noise(48)
    assert eps == 1 / 50
    out = label_noise_log_proba(lp, prior, eps)
    np.testing.assert_allclose(np.exp(out), (1 - eps) * np.exp(lp) + eps * np.exp(prior))
    assert -out[0, 0] <= -np.log(eps * 0.25) + 1e-12
    assert label_noise_log_proba(lp, prior, 0.0) is lp
    with pytest.raises(ValueError, match="label noise"):
        label_noise_log_proba(lp, prior, 1.0)


# ------------------------------------------------------- the temperature from the correlation
def _equicorrelated(rng, n_per_class, k, rho, shifts):
    """Two classes, k features with within-class correlation rho, class-1 means ``shifts``."""
    y = np.repeat([0, 1], n_per_class)
    common = rng.normal(size=(y.size, 1))
    X = np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(size=(y.size, k))
    return X + np.outer(y, shifts), y


@pytest.mark.parametrize("rho,k", [(0.3, 10), (0.6, 25), (0.0, 8)])
def test_correlation_temperature_recovers_the_design_effect(rho, k):
    # closed form: with equal shifts and equicorrelation rho, delta'R delta / delta'delta =
    # 1 + (k - 1) rho (1 for independent features, the floor); the estimate's relative
    # standard error is about sqrt(2 / (n - 2)) (a variance estimated from n - 2 degrees of
    # freedom), so 5 of them bound it
    rng = np.random.default_rng(11)
    n = 4000
    X, y = _equicorrelated(rng, n // 2, k, rho, np.full(k, 0.5))
    exact = 1 + (k - 1) * rho
    T = correlation_temperature(X, y, 2)
    assert T >= 1.0                                    # independent features: the floor
    assert abs(T - exact) < 5 * exact * np.sqrt(2 / n)


def test_correlation_temperature_follows_the_direction_of_the_mean_differences():
    # shifts of opposite signs on positively correlated features: the naive evidence
    # partly cancels within a class, delta'R delta < delta'delta, so T hits its floor of 1;
    # unequal shifts: delta'R delta / delta'delta by the closed form
    rng = np.random.default_rng(12)
    X, y = _equicorrelated(rng, 3000, 2, 0.5, np.array([0.5, -0.5]))
    assert correlation_temperature(X, y, 2) == 1.0
    d = np.array([1.0, 0.2, 0.0, 0.0])
    X, y = _equicorrelated(rng, 3000, 4, 0.4, d)
    R = np.full((4, 4), 0.4) + 0.6 * np.eye(4)
    exact = d @ R @ d / (d @ d)
    assert abs(correlation_temperature(X, y, 2) - exact) < 5 * exact * np.sqrt(2 / 6000)


def test_correlation_temperature_is_invariant_to_units_and_pools_class_pairs():
    rng = np.random.default_rng(13)
    X, y = _equicorrelated(rng, 50, 6, 0.5, np.full(6, 1.0))
    T = correlation_temperature(X, y, 2)
    scale, shift = rng.uniform(1e-3, 1e3, size=6), rng.normal(size=6) * 100
    assert np.isclose(correlation_temperature(X * scale + shift, y, 2), T, rtol=1e-9)
    # three classes: the pairs' inflations pooled with weights n_g n_h (here equal sizes and
    # the same correlation and inflation in every pair, so the pooled T is the common one)
    y3 = np.repeat([0, 1, 2], 2000)
    common = rng.normal(size=(6000, 1))
    X3 = np.sqrt(0.5) * common + np.sqrt(0.5) * rng.normal(size=(6000, 6))
    X3 += np.outer(y3, np.full(6, 0.7))
    assert abs(correlation_temperature(X3, y3, 3) - 3.5) < 5 * 3.5 * np.sqrt(2 / 6000)
    # degenerate inputs keep the model's own predictive
    assert correlation_temperature(np.ones((10, 3)), np.repeat([0, 1], 5), 2) == 1.0

