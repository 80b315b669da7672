"""The flat prior on the feature means (``GaussianPriors(alpha_nu=None)``), which centred
features get: its density against an independent contrast density, its invariance to the
features' levels, its plug-in mode against the PyMC model's own density, the conditional draws
of nu against their closed form, and the bias of the normal prior on centred features that it
removes (the mode of tau_mu against the simulation's truth)."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from selbayes.filters import select_features
from selbayes.models import GaussianPriors, for_centred_features, plugin_posterior
from selbayes.models._gaussian import sufficient_statistics
from selbayes.models._gaussian_plugin import _hyper_mode
from selbayes.models._gaussian_posterior import class_means_log_density

FLAT = GaussianPriors(alpha_nu=None)


@pytest.mark.parametrize("G", [2, 3, 5])
def test_flat_density_is_the_density_of_the_contrasts(G):
    """Second computation: the density of C xbar, C orthonormal contrasts, under N(0, C D C').
    The two differ by one constant whatever d and xbar are: rotating xbar to (C xbar,
    1'xbar / sqrt(G)) and integrating the last coordinate's density over nu (flat) leaves
    1 / sqrt(G)."""
    from scipy.linalg import helmert

    rng = np.random.default_rng(G)
    C = helmert(G)                           # G - 1 orthonormal rows orthogonal to 1
    diffs = []
    for _ in range(6):
        d = rng.gamma(2.0, 0.5, size=(1, G))
        xbar = rng.normal(size=(1, G)) * 3 + rng.normal() * 50     # any level
        ref = multivariate_normal(np.zeros(G - 1), C @ np.diag(d[0]) @ C.T).logpdf(C @ xbar[0])
        diffs.append(class_means_log_density(d, None, xbar, G)[0] - ref)
    np.testing.assert_allclose(diffs, diffs[0], atol=1e-10)
    np.testing.assert_allclose(diffs[0], -0.5 * np.log(G), atol=1e-10)


def test_flat_density_is_the_limit_of_the_normal_prior():
    rng = np.random.default_rng(0)
    d, xbar = rng.gamma(2.0, 0.5, size=(4, 3)), rng.normal(size=(4, 3))
    for s in (1e6, 1e8):
        # the N(0, s) prior density of nu near 0 is 1 / sqrt(2 pi s) times the flat one
        np.testing.assert_allclose(class_means_log_density(d, s, xbar, 3)
                                   + 0.5 * np.log(2 * np.pi * s),
                                   class_means_log_density(d, None, xbar, 3), atol=1e-5)


def _data(seed=0, n=36, p=300, k=8, G=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(G), n // G)
    X = rng.normal(size=(n, p))
    X[:, :6] += 0.8 * y[:, None]
    sel = select_features(X, y, k=k)
    return X[:, sel.indices], y, sel


def test_flat_prior_does_not_see_the_levels_of_the_features():
    """Adding a constant to each feature moves nothing under the flat prior (and moves the
    normal prior's mode: the check can fail)."""
    Xs, y, sel = _data()
    shifted = Xs + np.random.default_rng(1).normal(scale=20.0, size=Xs.shape[1])
    a = plugin_posterior(Xs, y, sel, FLAT, n_draws=4, random_state=0)
    b = plugin_posterior(shifted, y, sel, FLAT, n_draws=4, random_state=0)
    assert a["tau_mu"] == pytest.approx(b["tau_mu"], rel=1e-6)
    assert a["tau_nu"] == b["tau_nu"] == 0.0
    c = plugin_posterior(Xs, y, sel, GaussianPriors(), n_draws=4, random_state=0)
    e = plugin_posterior(shifted, y, sel, GaussianPriors(), n_draws=4, random_state=0)
    assert abs(np.log(c["tau_mu"] / e["tau_mu"])) > 1e-3


@pytest.mark.parametrize("corrected", [False, True])
def test_flat_hyper_mode_matches_the_pymc_model_logp(corrected):
    """Independent route: the PyMC model's own log density (no tau_nu in it) maximised on a
    grid at tau_x fixed to the same value, the noise variance 1 / tau_x at its conditional
    mean given SSW."""
    from selbayes.models import build_model

    Xs, y, sel = _data(seed=2)
    counts, xbar, ssw = sufficient_statistics(Xs, y, 3)
    (u, v), _ = _hyper_mode(xbar, ssw, counts.astype(float), sel, FLAT, corrected)
    assert v == -np.inf
    model = build_model(Xs, y, sel, FLAT, corrected=corrected)
    assert "tau_nu" not in model.named_vars
    logp = model.compile_logp()
    n, G = Xs.shape[0], 3
    tau_x = (FLAT.alpha_x / 2 + (n - G) / 2 - 1) / (FLAT.alpha_x * FLAT.w_x / 2 + ssw / 2)
    us = u + np.linspace(-0.3, 0.3, 121)
    vals = [logp({"tau_mu_log__": a, "tau_x_log__": np.log(tau_x)}) for a in us]
    assert abs(us[int(np.argmax(vals))] - u) <= 0.006


def test_flat_nu_draws_follow_their_closed_form():
    """nu_j | xbar, precisions is N(sum_g w_g xbar_g / sum_g w_g, 1 / sum_g w_g) with
    w_g = 1 / (1/tau_mu + 1/(n_g tau_x)) under the flat prior: checked on 20 000 draws (4 SE)."""
    import xarray as xr

    from selbayes.models._gaussian_posterior import draw_class_means

    S = 20000
    xbar, counts = np.array([[1.0, -0.5, 3.0]]), np.array([5.0, 8.0, 3.0])
    post = xr.Dataset({"tau_mu": (("chain", "draw"), np.full((1, S), 2.0)),
                       "tau_x": (("chain", "draw", "feature"), np.full((1, S, 1), 4.0))},
                      coords={"chain": [0], "draw": np.arange(S), "feature": [0]})
    tree = draw_class_means(xr.DataTree.from_dict({"posterior": post}),
                            {"xbar_obs": xbar, "class_counts": counts}, FLAT, random_state=0)
    nu = tree["posterior"]["nu"].values.ravel()
    w = 1.0 / (1 / 2.0 + 1.0 / (counts * 4.0))
    mean, sd = (w * xbar[0]).sum() / w.sum(), 1 / np.sqrt(w.sum())
    assert abs(nu.mean() - mean) < 4 * sd / np.sqrt(S)
    assert abs(nu.std() / sd - 1) < 4 / np.sqrt(2 * S)


def test_centred_features_give_the_true_tau_mu_only_under_the_flat_prior():
    """Data from the model (n = 80, p = 2000, every feature with class-mean difference
    N(0, 0.085^2): tau_mu = 2 / 0.085^2 = 278), centred, k = 1900. The mode of log tau_mu must
    be within 3 posterior SD of the truth under the flat prior, and is not under the normal
    prior. The SD comes from the Fisher information of the contrasts: per feature
    0.5 (a / (a + b))^2 with a = 2 / tau_mu and b = 4 / n (unit noise), about 0.008, so over
    2000 features SD(log tau_mu) = 0.25; 3 SD = 0.75."""
    from selbayes.experiments.plasmode import Scenario, make_replicate

    sc = Scenario("normal", "simulation", n_train=80, p=2000, n_effects=2000,
                  effect_sd=0.085, model_holds=True)
    truth = 2 / 0.085 ** 2
    a, b = 2 / truth, 4 / 80
    sd = 1 / np.sqrt(2000 * 0.5 * (a / (a + b)) ** 2)
    for rep in (0, 1):
        data = make_replicate(sc, rep)
        X, y = data["X_train"], data["y_train"]
        sel = select_features(X, y, k=1900)
        Xc = X[:, sel.indices] - X[:, sel.indices].mean(axis=0)
        flat = plugin_posterior(Xc, y, sel, for_centred_features(None), n_draws=2,
                                random_state=0)
        normal = plugin_posterior(Xc, y, sel, GaussianPriors(), n_draws=2, random_state=0)
        assert abs(np.log(flat["tau_mu"] / truth)) < 3 * sd
        assert np.log(normal["tau_mu"] / truth) > 3 * sd


def test_estimator_gives_centred_features_the_flat_prior():
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._gaussian import EXACT_MODEL
    from tests.estimators._data import two_class_gaussian

    X, y = two_class_gaussian(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = HierarchicalGaussianClassifier(k=4, method="plugin", random_state=0).fit(X, y)
    assert clf._fitted_priors().flat_nu
    assert "tau_nu" not in clf.idata_.posterior
    assert np.isfinite(clf.predict_proba(X)).all()
    exact = HierarchicalGaussianClassifier(k=4, method="plugin", **EXACT_MODEL)
    assert not exact._prior_object().flat_nu


def test_for_centred_features_keeps_the_other_settings():
    pri = for_centred_features({"w_mu": 0.1, "mu_t_df": 2.0})
    assert pri.flat_nu and pri.w_mu == 0.1 and pri.mu_t_df == 2.0
    assert GaussianPriors.from_dict(pri.to_dict()) == pri            # saved and read back
