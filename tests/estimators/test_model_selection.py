"""Choosing k and the predictive temperature: the fast plug-in predictive and choose_k."""

import numpy as np
import pytest

from selbayes.estimators.model_selection import (
    _hyper_mode,
    choose_k,
    correlation_temperature,
    plugin_log_proba,
    temper_log_proba,
)
from selbayes.filters.selection import select_features
from selbayes.models.gaussian import sufficient_statistics
from selbayes.models.priors import GaussianPriors
from tests.estimators._data import two_class_gaussian


class _Params:
    """Anything with get_params works as the estimator argument of choose_k."""

    def __init__(self, **kw):
        self.kw = kw

    def get_params(self, deep=False):
        return self.kw


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


def _redundant(seed, copies):
    """One informative signal seen through `copies` nearly identical features, plus noise."""
    rng = np.random.default_rng(seed)
    n = 80
    y = np.repeat([0, 1], n // 2)
    signal = 0.9 * y + rng.normal(size=n)
    X = rng.normal(size=(n, 400))
    X[:, :copies] = signal[:, None] + 0.05 * rng.normal(size=(n, copies))
    return X, y


def test_choose_k_tempers_redundant_features_and_records_the_curve():
    X, y = _redundant(3, copies=30)
    ch = choose_k(_Params(temperature="auto"), X, y, grid=[30], random_state=0)
    # 30 copies of one signal: the naive predictive counts it 30 times; the inner CV must
    # prefer a large temperature (the ideal is near 30)
    assert ch.temperature >= 8
    tab = ch.table()
    assert list(tab.columns) == ["k", "decorrelate", "temperature", "score", "se"]
    assert ch.score[np.argmin(ch.score)] == tab.score.min()
    assert np.all(ch.se > 0) and ch.extra["case_losses"].shape == (len(ch.grid), 80)


def test_choose_k_keeps_temperature_one_for_independent_features():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 40)
    X = rng.normal(size=(80, 400))
    X[:, :10] += 0.7 * y[:, None]
    ch = choose_k(_Params(temperature="auto"), X, y, grid=[10], random_state=0)
    assert ch.temperature <= 2.0


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


def test_choose_k_with_the_correlation_rule_scores_one_temperature_per_k():
    X, y = _redundant(3, copies=30)
    ch = choose_k(_Params(temperature="correlation"), X, y, grid=[10, 30], random_state=0)
    assert [g[0] for g in ch.grid] == [10, 30] and ch.extra["case_losses"].shape == (2, 80)
    # 30 near-copies of one signal: T near the number of copies kept
    t10, t30 = (g[2] for g in ch.grid)
    assert 8 < t10 < 12 and 25 < t30 < 35
    assert ch.criterion.endswith("correlation_T")
    with pytest.raises(ValueError, match="temperature_grid must be numbers or 'correlation'"):
        choose_k(_Params(), X, y, grid=[10], temperature_grid="cv")


def test_choose_k_rejects_bad_grids_and_tiny_classes():
    X, y = _redundant(5, copies=3)
    with pytest.raises(ValueError, match="no candidate k"):
        choose_k(_Params(), X, y, grid=[400, 1000])
    y_bad = y.copy()
    y_bad[0] = 2
    with pytest.raises(ValueError, match="at least 2 cases"):
        choose_k(_Params(), X, y_bad)


# --------------------------------------------------------------------------- the estimator
def _fast(**kw):
    from selbayes import HierarchicalGaussianClassifier

    base = dict(draws=200, tune=200, chains=1, random_state=0, progressbar=False)
    return HierarchicalGaussianClassifier(**{**base, **kw})


def test_default_fit_is_invariant_to_units_and_shifts():
    """Standardisation makes the inputs identical up to rounding, so with the same seed the
    whole fit (selection, MCMC, predictive) must agree to rounding error, not MC error."""
    X, y = two_class_gaussian(1)
    rng = np.random.default_rng(2)
    shift = rng.normal(size=X.shape[1]) * 50
    # the default configuration (k by inner CV, the correlation temperature, label noise)
    ref_clf = _fast(k_grid=[2, 4, 8]).fit(X, y)
    ref = ref_clf.predict_proba(X)
    for c in (1e-4, 1e4):
        clf = _fast(k_grid=[2, 4, 8]).fit(c * X + shift, y)
        assert clf.k_ == ref_clf.k_
        assert np.isclose(clf.temperature_, ref_clf.temperature_, rtol=1e-9)
        np.testing.assert_allclose(clf.predict_proba(c * X + shift), ref, atol=1e-6)


def test_auto_choice_is_stored_and_survives_save_load(tmp_path):
    from selbayes import HierarchicalGaussianClassifier

    X, y = two_class_gaussian(3)
    clf = _fast(k="auto", temperature="auto", k_grid=[2, 4, 8]).fit(X, y)
    assert clf.k_ in (2, 4, 8) and clf.selection_.n_selected == clf.k_
    assert clf.k_choice_.k == clf.k_ and clf.k_choice_.temperature == clf.temperature_
    from selbayes.estimators.model_selection import DEFAULT_T_GRID

    assert len(clf.k_choice_.grid) == 3 * len(DEFAULT_T_GRID)
    assert 0 < clf.label_noise_ == 1 / (len(y) + 2)
    proba = clf.predict_proba(X)
    path = clf.save(tmp_path / "m.nc")
    back = HierarchicalGaussianClassifier.load(path)
    np.testing.assert_allclose(back.predict_proba(X), proba, atol=1e-12)
    assert back.temperature_ == clf.temperature_ and back.k_ == clf.k_
    np.testing.assert_allclose(back.k_choice_.score, clf.k_choice_.score)


def test_default_temperature_is_the_correlation_rule_of_the_selected_features():
    from selbayes.preprocessing.decorrelation import Standardization

    X, y = _redundant(6, copies=12)
    clf = _fast(k=12).fit(X, y)
    assert clf.temperature == "correlation"
    Xs = X[:, clf.selection_.indices]
    assert np.isclose(clf.temperature_, correlation_temperature(
        Standardization("within").fit(Xs, y, 2).transform(Xs), y, 2), rtol=1e-9)
    assert 9 < clf.temperature_ < 15                    # 12 near-copies of one signal
    auto = _fast(k="auto", k_grid=[4, 12]).fit(X, y)
    assert auto.k_choice_.temperature == auto.temperature_


def test_decorrelated_fit_predicts_through_the_stored_rows():
    X, y = two_class_gaussian(4, p=60)
    clf = _fast(k=4, temperature=1.0, decorrelate=5.0).fit(X, y)
    assert clf.transform_rows_.shape == (4, 60)
    from selbayes.estimators.model_selection import prepare_features

    Z, _ = prepare_features(X, y, 2, decorrelate=5.0)
    np.testing.assert_allclose(clf._select_test_columns(X), Z[:, clf.selection_.indices],
                               atol=1e-10)


def test_label_noise_bounds_the_loss_and_mixes_with_the_prior():
    from selbayes.estimators.model_selection import default_label_noise, label_noise_log_proba

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


def test_exact_model_settings_give_the_untransformed_model():
    """EXACT_MODEL: no standardisation, no tempering, no label noise: the predictive is the
    model's own, computed on the raw selected columns."""
    from selbayes.estimators.gaussian import EXACT_MODEL
    from selbayes.models.gaussian import class_log_prior, predictive_log_proba

    X, y = two_class_gaussian(5)
    clf = _fast(k=4, **EXACT_MODEL).fit(3.0 * X + 1.0, y)
    assert clf.k_choice_ is None and clf.temperature_ == 1.0 and clf.label_noise_ == 0.0
    raw = (3.0 * X + 1.0)[:, clf.selection_.indices]
    ref = predictive_log_proba(raw, clf.pred_mean_, clf.pred_precision_,
                               class_log_prior(clf.selection_.class_counts, 1.0))
    np.testing.assert_allclose(clf.predict_log_proba(3.0 * X + 1.0), ref, atol=1e-12)


def test_choose_k_works_with_a_class_of_two_training_cases():
    # A rare class (2 training cases, as in 5-fold CV on a class of 3) leaves one case of it in
    # each inner training fold; the F statistic and the model still apply (n - G >= 1).
    X, y = _redundant(6, copies=5)
    y = y.copy()
    y[:2] = 2                                   # class 2: two cases
    ch = choose_k(_Params(), X, y, grid=[5, 20], random_state=0)
    assert ch.n_splits == 2 and ch.k in (5, 20)
    assert np.all(np.isfinite(ch.score))


def test_one_se_rule_takes_the_smallest_temperature_within_a_paired_se():
    """Reference: the rule recomputed here from the stored case losses by brute force."""
    X, y = _redundant(3, copies=30)
    ref = choose_k(_Params(temperature="auto"), X, y, grid=[10, 30], random_state=0)
    ch = choose_k(_Params(temperature="auto"), X, y, grid=[10, 30], random_state=0,
                  rule="one_se")
    np.testing.assert_array_equal(ch.score, ref.score)        # same curve, other pick
    L = ref.extra["case_losses"]
    b = int(np.argmin(ref.score))
    within = [i for i in range(len(ref.grid))
              if ref.score[i] <= ref.score[b] + np.std(L[i] - L[b], ddof=1) / np.sqrt(L.shape[1])]
    t_min = min(ref.grid[i][2] for i in within)
    expected = min((i for i in within if ref.grid[i][2] == t_min), key=lambda i: ref.score[i])
    assert (ch.k, ch.temperature) == (ref.grid[expected][0], ref.grid[expected][2])
    assert ch.temperature <= ref.temperature
    assert ch.extra["rule"] == "one_se"
    with pytest.raises(ValueError, match="rule must be"):
        choose_k(_Params(temperature="auto"), X, y, grid=[10], random_state=0, rule="min")
