"""``HierarchicalGaussianClassifier(method="plugin")``: the hyperparameters at their mode, no
sampler. Checked against the plug-in predictive computed directly, against the closed-form
conditional of tau_x, against the exact grid search of the mode, and (slow) against NUTS."""

import warnings

import numpy as np
import pytest

import selbayes.models._gaussian_plugin as gp
from selbayes import HierarchicalGaussianClassifier
from selbayes.filters import select_features
from selbayes.models import GaussianPriors, with_effect_prior
from selbayes.models._gaussian import sufficient_statistics

from ..models._mc_error import log_odds_mc_sd


def _data(n=40, p=400, n_test=20, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    yt = np.repeat([0, 1], n_test // 2)
    X = rng.normal(size=(n + n_test, p))
    X[:, :20] += 0.8 * np.r_[y, yt][:, None]
    return X[:n], y, X[n:], yt


def _fit(**kw):
    X, y, Xt, _ = _data()
    settings = dict(k=15, method="plugin", temperature=1.0, label_noise=0.0,
                    standardize=False, draws=300, random_state=3, progressbar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return HierarchicalGaussianClassifier(**{**settings, **kw}).fit(X, y), X, y, Xt


@pytest.mark.parametrize("prior", ["t", "normal"])
def test_plugin_fit_predicts_the_factorised_plugin_predictive(prior):
    """Wiring: the estimator's prediction is the per-feature (factorised) predictive of the
    plug-in posterior on the same selection and draws (same seed), with the model's own
    predictive (no temperature, no label noise)."""
    from selbayes.models import class_log_prior, factorised_predictive_log_proba, predictive_moments

    clf, X, y, Xt = _fit(effect_prior=prior)
    sel = select_features(X, y, k=15)
    post = gp.plugin_posterior(X[:, sel.indices], y, sel, with_effect_prior(None, prior),
                               n_draws=300, random_state=3)
    mean, prec = predictive_moments(post["tau_x"], np.full(300, post["tau_mu"]),
                                    np.full(300, post["tau_nu"]), post["xbar"], post["counts"],
                                    lambda_mu=post["lambda_mu"])
    ref = factorised_predictive_log_proba(Xt[:, sel.indices], mean, prec,
                                          class_log_prior(post["counts"], 1.0))
    np.testing.assert_allclose(clf.predict_log_proba(Xt), ref, rtol=0, atol=1e-10)
    # of the 300 draws only the 200 evenly spaced ones the predictive averages are stored
    assert clf.pred_mean_.shape[0] == 200 < clf.idata_.posterior.sizes["draw"]


def test_factorised_predictive_is_the_product_of_per_feature_averages():
    """Reference: the definition, written with loops over features and draws."""
    from selbayes.models import factorised_predictive_log_proba

    rng = np.random.default_rng(5)
    S, k, G = 7, 4, 3
    mean, prec = rng.normal(size=(S, k, G)), rng.gamma(2.0, size=(S, k, G))
    X = rng.normal(size=(5, k))
    prior = np.log([0.2, 0.3, 0.5])
    ref = np.empty((5, G))
    for i in range(5):
        for g in range(G):
            total = prior[g]
            for j in range(k):
                dens = [np.sqrt(prec[s, j, g] / (2 * np.pi))
                        * np.exp(-0.5 * prec[s, j, g] * (X[i, j] - mean[s, j, g]) ** 2)
                        for s in range(S)]
                total += np.log(np.mean(dens))
            ref[i, g] = total
    ref -= np.log(np.exp(ref).sum(1, keepdims=True))
    got = factorised_predictive_log_proba(X, mean, prec, prior, max_bytes=8 * S * 3 * 2)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_factorised_predictive_has_far_less_monte_carlo_error_than_the_joint_one():
    """Two seeds of the plug-in at k = 1000 with the t prior. Given the fixed hyperparameters
    every feature's draws are independent of the others', so the factorised log odds
    sum_j [log m_j1 - log m_j0] (m_jg: feature j's average density over its S draws) has Monte
    Carlo variance v = sum_j Var_s(d_j1s / m_j1 - d_j0s / m_j0) / S by the delta method
    (:func:`log_odds_mc_sd`), and two seeds differ by about N(0, v_1 + v_2). The factorised
    odds stay within that (4.5 SD for each of the 30 test cases: by Bonferroni a chance
    failure below 2e-4, whatever their correlation). The joint average over draws of a
    product of 1000 densities is dominated by a few draws: its seed-to-seed differences lie
    far outside the factorised one's band (median |z| > 4.5, where the factorised error would
    put nearly all within 2)."""
    from selbayes.models import (
        class_log_prior,
        factorised_predictive_log_proba,
        predictive_log_proba,
        predictive_moments,
    )

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(90, 2001))
    X[:, :300] += 0.4 * np.r_[y, np.repeat([0, 1], 15)][:, None]
    sel = select_features(X[:60], y, k=1000)
    x_test = X[60:, sel.indices]
    odds = {"joint": [], "factorised": []}
    variance = np.zeros(len(x_test))
    S = 200
    for seed in (1, 2):
        post = gp.plugin_posterior(X[:60, sel.indices], y, sel, with_effect_prior(None, "t"),
                                   n_draws=S, random_state=seed)
        mean, prec = predictive_moments(post["tau_x"], np.full(S, post["tau_mu"]),
                                        np.full(S, post["tau_nu"]), post["xbar"],
                                        post["counts"], lambda_mu=post["lambda_mu"])
        lp = class_log_prior(post["counts"], 1.0)
        for name, fn in (("joint", predictive_log_proba),
                         ("factorised", factorised_predictive_log_proba)):
            out = fn(x_test, mean, prec, lp)
            odds[name].append(out[:, 1] - out[:, 0])
        variance += log_odds_mc_sd(x_test, mean, prec)[0] ** 2
    sd = np.sqrt(variance)
    z_fact = np.subtract(*odds["factorised"]) / sd
    z_joint = np.subtract(*odds["joint"]) / sd
    assert np.all(np.abs(z_fact) < 4.5), z_fact
    assert np.median(np.abs(z_joint)) > 4.5, z_joint


def test_plugin_fit_has_one_chain_of_independent_draws_and_no_convergence_diagnostics():
    clf, X, y, Xt = _fit()
    post = clf.idata_.posterior
    assert dict(post.sizes)["chain"] == 1 and dict(post.sizes)["draw"] == 300
    assert np.ptp(post["tau_mu"].values) == 0 and np.ptp(post["tau_nu"].values) == 0
    assert {"tau_x", "lambda_mu", "mu", "nu"} <= set(post.data_vars)
    assert "sample_stats" not in clf.idata_.children and clf.diagnostics_ is None
    assert not hasattr(clf, "model_")
    assert clf.idata_.attrs["selbayes_method"] == "plugin"


def test_plugin_tau_x_draws_follow_their_closed_form_conditional():
    """tau_x_j | SSW_j ~ Gamma(alpha_x/2 + (n - G)/2, rate alpha_x w_x/2 + SSW_j/2): the draws'
    mean per feature within 4 Monte Carlo standard errors of the closed form, and their
    whole distribution: the draws' probability integral transforms under that Gamma, pooled
    over the features (independent draws), are uniform by a Kolmogorov-Smirnov test at 1e-3
    (a Gamma of the same mean and an 18% smaller spread fails it)."""
    from scipy import stats

    clf, X, y, Xt = _fit(draws=2000)
    pri = GaussianPriors()
    _, _, ssw = sufficient_statistics(X[:, clf.selection_.indices], y, 2)
    a = pri.alpha_x / 2 + (40 - 2) / 2
    rate = pri.alpha_x * pri.w_x / 2 + ssw / 2
    draws = clf.idata_.posterior["tau_x"].values[0]
    se = np.sqrt(a) / rate / np.sqrt(draws.shape[0])
    assert np.all(np.abs(draws.mean(0) - a / rate) < 4 * se)
    pit = stats.gamma.cdf(draws * rate, a).ravel()
    assert stats.kstest(pit, "uniform").pvalue > 1e-3


def test_plugin_fit_survives_save_and_load(tmp_path):
    clf, X, y, Xt = _fit()
    path = clf.save(tmp_path / "plugin.nc")
    back = HierarchicalGaussianClassifier.load(path)
    assert back.method == "plugin"
    np.testing.assert_allclose(back.predict_proba(Xt), clf.predict_proba(Xt), rtol=1e-12)


@pytest.mark.parametrize("kw,match", [
    ({"effect_prior": "two_groups"}, "does not cover effect_prior='two_groups'"),
    ({"priors": {"w_x_alpha": 2.0}}, "does not cover a hyperprior on w_x"),
    ({"method": "vi"}, "method"),
])
def test_plugin_refuses_what_it_does_not_cover_before_any_work(kw, match):
    X, y, _, _ = _data()
    clf = HierarchicalGaussianClassifier(k=5, **{"method": "plugin", **kw})
    with pytest.raises(ValueError, match=match):
        clf.fit(X, y)


@pytest.mark.parametrize("prior", ["normal", "t"])
def test_mode_above_grid_features_matches_the_exact_grid_search(prior, monkeypatch):
    """Above GRID_FEATURES features the coarse grid uses an evenly spaced subset and BFGS
    refines on every feature; reference: the exact grid over every feature with Nelder-Mead
    (the route below GRID_FEATURES), on the same data."""
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 25)
    X = rng.normal(size=(50, 1500))
    X[:, :300] += 0.3 * y[:, None]
    sel = select_features(X, y, k=1200)
    counts, xbar, ssw = sufficient_statistics(X[:, sel.indices], y, 2)
    pri = with_effect_prior(None, prior)
    nodes = None if pri.mu_t_df is None else gp._t_scale_nodes(pri.mu_t_df)
    exact = gp._hyper_mode(xbar, ssw, counts.astype(float), sel, pri, True, nodes)[0]
    monkeypatch.setattr(gp, "GRID_FEATURES", 200)
    fast = gp._hyper_mode(xbar, ssw, counts.astype(float), sel, pri, True, nodes)[0]
    np.testing.assert_allclose(fast, exact, atol=2e-3)


@pytest.mark.slow
def test_plugin_against_nuts_at_k_1000():
    """Reference: NUTS on the same model (default t prior and settings) at k = 1000 of 3000,
    run with two seeds. NUTS now predicts with the grouped per-gene average, whose Monte Carlo
    error is small: the two seeds' log odds must differ by a mean below 0.3 (observed
    2026-11-27 0.09 with the model's own predictive; the average over joint draws it used
    before: 0.9-1.1, benchmarks/results/predictive_mc_error.md). Against that reference the
    plug-in's own approximation shows (it fixes tau_mu and tau_nu at their mode and draws
    tau_x_j given the within-class sum of squares alone): its log odds differ from NUTS's by
    a mean 0.57 in that benchmark. Checked here: that difference stays below 1 (a guard on a
    known approximation error, not a Monte Carlo tolerance), the plug-in's tau_mu lies within
    two posterior sd of NUTS's, and its log score on 200 new cases is no more than 0.05 nats
    worse than NUTS's (observed: plug-in better, 0.295 against 0.31)."""
    rng = np.random.default_rng(0)
    n, p = 60, 3001
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :300] += 0.4 * y[:, None]
    Xt = rng.normal(size=(200, p))
    yt = np.repeat([0, 1], 100)
    Xt[:, :300] += 0.4 * yt[:, None]

    def fit(inference, seed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = HierarchicalGaussianClassifier(k=1000, method=inference, random_state=seed,
                                                 progressbar=False).fit(X, y)
        lp = clf.predict_log_proba(Xt)
        return clf, lp[:, 1] - lp[:, 0], -lp[np.arange(200), yt].mean()

    plug, odds_plug, score_plug = fit("plugin", 1)
    nuts1, odds1, score1 = fit("mcmc", 1)
    _, odds2, _ = fit("mcmc", 2)
    assert np.abs(odds1 - odds2).mean() < 0.3
    assert np.abs(odds_plug - odds1).mean() < 1.0
    log_tau = np.log(nuts1.idata_.posterior["tau_mu"].values)
    assert abs(np.log(plug.idata_.posterior["tau_mu"].values[0, 0]) - log_tau.mean()) \
        < 2 * log_tau.std()
    assert score_plug < score1 + 0.05


def test_plugin_with_t_auto_reuses_the_mode_its_df_search_found():
    """With effect_prior="t_auto" the df search finds the mode at every df; the fit uses the
    chosen df's mode instead of searching it again. It must be that df's mode: a fresh search
    at the fixed df finds the same (log tau_mu within the optimiser's tolerance). Data where
    the chosen df is not 2, the df whose search starts from scratch in both."""
    from dataclasses import replace

    from ._data import sparse_strong

    X, y = sparse_strong(2, n=60, p=800, effect=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = HierarchicalGaussianClassifier(k=5, method="plugin", random_state=0,
                                             progressbar=False).fit(X, y)
    assert clf.t_df_ != 2.0
    Z = (X[:, clf.selection_.indices] - clf.feature_center_) / clf.feature_scale_
    fixed = replace(clf._prior_object(), mu_t_df=clf.t_df_, mu_t_df_grid=None)
    fresh = gp.plugin_posterior(Z, y, clf.selection_, fixed, corrected=True, n_draws=5,
                                random_state=0)
    used = float(clf.idata_.posterior["tau_mu"].values.ravel()[0])
    assert abs(np.log(used / fresh["tau_mu"])) < 1e-3


def test_a_given_mode_needs_a_fixed_df():
    X, y, _, _ = _data()
    sel = select_features(X, y, k=5)
    grid = GaussianPriors(mu_t_df_grid=(2.0, 4.0))
    with pytest.raises(ValueError, match="fixed df"):
        gp.plugin_posterior(X[:, sel.indices], y, sel, grid, mode=(0.0, 0.0))
