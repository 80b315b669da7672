"""The hierarchical Gaussian classifier: model structure, predictive, persistence, bad input,
and agreement of NUTS with an independent grid integration of the same posterior."""

from __future__ import annotations

import numpy as np
import pytest
from pymc.testing import mock_sample_setup_and_teardown
from scipy.stats import norm

from selbayes import HierarchicalGaussianClassifier, select_features
from selbayes.estimators import EXACT_MODEL
from selbayes.models import GaussianPriors, build_model, class_log_prior, predictive_log_proba
from selbayes.models._gaussian import sufficient_statistics

from ..reference.grid_gaussian import GridPosteriorK1

mock_pymc_sample = pytest.fixture(scope="function")(mock_sample_setup_and_teardown)

PAPER_PRIORS = dict(c=1.0, alpha_x=4.0, w_x=1.0, alpha_mu=1.5, w_mu=0.01, alpha_nu=1.5, w_nu=0.01)


def _data(n=60, p=200, G=3, tau_mu=100.0, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(G), n // G)
    nu = rng.normal(0, 0.1, size=p)
    mu = nu[:, None] + rng.normal(0, 1 / np.sqrt(tau_mu), size=(p, G))
    tau_x = rng.gamma(2.0, 0.5, size=p)
    X = mu.T[y] + rng.normal(size=(len(y), p)) / np.sqrt(tau_x)
    return X, y


# ----------------------------------------------------------------------------- structure
def test_model_has_named_variables_and_potential():
    X, y = _data()
    sel = select_features(X, y, k=5)
    model = build_model(X[:, sel.indices], y, sel, corrected=True)
    names = set(model.named_vars)
    assert {"tau_x", "tau_mu", "tau_nu", "selection_adjustment", "class_means_likelihood"} <= names
    assert [p.name for p in model.potentials] == ["class_means_likelihood", "selection_adjustment"]
    # uncorrected: the same graph with n_omitted = 0 (tests/models/test_nutpie_wrapper.py)
    uncorrected = build_model(X[:, sel.indices], y, sel, corrected=False)
    assert [p.name for p in uncorrected.potentials] == ["class_means_likelihood",
                                                         "selection_adjustment"]
    assert uncorrected["n_omitted"].get_value() == 0
    exact = build_model(X[:, sel.indices], y, sel, corrected=False, adjustment_method="exact")
    assert [p.name for p in exact.potentials] == ["class_means_likelihood"]
    nc = build_model(X[:, sel.indices], y, sel, corrected=True, parameterization="noncentered")
    assert {"mu", "nu", "z_mu", "z_nu"} <= set(nc.named_vars)
    assert nc["mu"].type.ndim == 2
    with pytest.raises(ValueError, match="parameterization must be one of"):
        build_model(X[:, sel.indices], y, sel, parameterization="centred")


@pytest.mark.parametrize("priors", [None, {"mu_t_df": 3.0}, {"w_x_alpha": 4.0, "w_x": 0.5}])
def test_potential_equals_n_omitted_times_reference_log_prob(priors):
    from selbayes.adjustment import fstat_log_omit_prob

    X, y = _data()
    sel = select_features(X, y, k=5)
    model = build_model(X[:, sel.indices], y, sel, priors=priors, corrected=True)
    pr = GaussianPriors.from_dict(priors)
    f = model.compile_fn(model.replace_rvs_by_values([model["selection_adjustment"]])[0],
                         inputs=model.value_vars, on_unused_input="ignore")
    point = model.initial_point()
    for log_tau_mu in (1.0, 4.6, 8.0):
        point["tau_mu_log__"] = np.array(log_tau_mu)
        log_w_x = np.log(pr.w_x)
        if pr.w_x_alpha is not None:
            point["w_x_log__"] = np.array(-0.3)
            log_w_x = -0.3
        ref = sel.n_omitted * fstat_log_omit_prob(log_tau_mu + log_w_x, sel.class_counts,
                                                  sel.threshold, pr.alpha_x, mu_t_df=pr.mu_t_df)
        np.testing.assert_allclose(f(point), ref, rtol=1e-8, atol=1e-6)
    if pr.mu_t_df is not None:
        assert "lambda_mu" in model.named_vars


def test_likelihood_from_sufficient_statistics_equals_casewise_likelihood():
    """The observed sufficient statistics carry the case-wise likelihood's parameter dependence."""
    X, y = _data(n=30, p=40)
    sel = select_features(X, y, k=4)
    Xs = X[:, sel.indices]
    model = build_model(Xs, y, sel, corrected=False, parameterization="noncentered")
    obs = sum(t.sum() for t in model.logp(vars=model.observed_RVs, sum=False))
    obs_fn = model.compile_fn(obs, inputs=model.value_vars, on_unused_input="ignore")
    det_fn = model.compile_fn(model.replace_rvs_by_values([model["mu"], model["tau_x"]]),
                              inputs=model.value_vars, on_unused_input="ignore")
    rng = np.random.default_rng(1)

    def both(point):
        mu, tau = det_fn(point)
        return obs_fn(point), norm.logpdf(Xs, loc=mu.T[y], scale=1 / np.sqrt(tau)).sum()

    points = []
    for _ in range(3):
        ip = model.initial_point()
        ip["z_mu"] = rng.normal(size=ip["z_mu"].shape)
        ip["z_nu"] = rng.normal(size=ip["z_nu"].shape)
        ip["tau_x_log__"] = rng.normal(size=4) * 0.3
        ip["tau_mu_log__"] = np.array(rng.normal() + 3)
        points.append(both(ip))
    # the two differ by a term free of parameters: differences between points must agree
    (a0, b0), *rest = points
    for a, b in rest:
        np.testing.assert_allclose(a - a0, b - b0, rtol=1e-9)


def test_marginal_likelihood_equals_multivariate_normal_of_class_means():
    """The collapsed Potential is the MVN density of the class means with mu, nu integrated out."""
    from scipy.stats import gamma as gamma_dist
    from scipy.stats import multivariate_normal

    X, y = _data(n=30, p=40)
    sel = select_features(X, y, k=4)
    model = build_model(X[:, sel.indices], y, sel, corrected=False)
    terms = model.replace_rvs_by_values([model["class_means_likelihood"]]
                                        + [t.sum() for t in model.logp(vars=model.observed_RVs,
                                                                       sum=False)])
    f = model.compile_fn(terms[0] + terms[1], inputs=model.value_vars, on_unused_input="ignore")
    counts, xbar, ssw = sufficient_statistics(X[:, sel.indices], y, 3)
    rng = np.random.default_rng(2)
    for _ in range(3):
        tau_x = np.exp(rng.normal(size=4) * 0.3)
        tau_mu, tau_nu = np.exp(rng.normal(3, 1)), np.exp(rng.normal(3, 1))
        point = model.initial_point()
        point.update(tau_x_log__=np.log(tau_x), tau_mu_log__=np.array(np.log(tau_mu)),
                     tau_nu_log__=np.array(np.log(tau_nu)))
        ref = 0.0
        for j in range(4):
            cov = np.diag(1 / tau_mu + 1 / (counts * tau_x[j])) + np.ones((3, 3)) / tau_nu
            ref += multivariate_normal(np.zeros(3), cov).logpdf(xbar[j])
            ref += gamma_dist((30 - 3) / 2, scale=2 / tau_x[j]).logpdf(ssw[j])
        np.testing.assert_allclose(f(point), ref, rtol=1e-10)


def test_draw_class_means_is_the_exact_gaussian_conditional():
    """mu, nu drawn after a marginal fit follow the joint Gaussian conditional (linear algebra)."""
    import xarray as xr

    from selbayes.models import draw_class_means

    counts = np.array([4.0, 6.0, 5.0])
    xbar = np.array([[0.3, -0.2, 0.5]])
    tau_x, tau_mu, tau_nu = 2.0, 3.0, 5.0
    S = 40000
    post = xr.Dataset({
        "tau_x": (("chain", "draw", "feature"), np.full((1, S, 1), tau_x)),
        "tau_mu": (("chain", "draw"), np.full((1, S), tau_mu)),
        "tau_nu": (("chain", "draw"), np.full((1, S), tau_nu)),
    }, coords={"class": ["a", "b", "c"]})
    tree = xr.DataTree.from_dict({"posterior": post})
    draw_class_means(tree, {"class_counts": counts, "xbar_obs": xbar}, GaussianPriors(),
                     random_state=0)
    got = np.concatenate([tree.posterior["nu"].values[0, :, 0][:, None],
                          tree.posterior["mu"].values[0, :, 0, :]], axis=1)   # (S, 1 + G)
    # joint prior of (nu, mu) and xbar = mu + noise; condition by linear algebra
    G = 3
    A = np.vstack([np.r_[1.0, np.zeros(G)], np.c_[np.ones(G), np.eye(G)]])  # (nu, mu) from (nu, e)
    prior_cov = A @ np.diag(np.r_[1 / tau_nu, np.full(G, 1 / tau_mu)]) @ A.T
    H = np.c_[np.zeros((G, 1)), np.eye(G)]
    R = np.diag(1 / (counts * tau_x))
    Sxx = H @ prior_cov @ H.T + R
    K = prior_cov @ H.T @ np.linalg.inv(Sxx)
    mean = K @ xbar[0]
    cov = prior_cov - K @ H @ prior_cov
    se = np.sqrt(np.diag(cov) / S)
    np.testing.assert_array_less(np.abs(got.mean(0) - mean), 4 * se)
    emp = np.cov(got.T)
    np.testing.assert_allclose(emp, cov, atol=6 * np.sqrt(2 / S) * np.diag(cov).max())


def test_sufficient_statistics():
    X, y = _data(n=30, p=10)
    counts, means, ssw = sufficient_statistics(X, y, 3)
    for g in range(3):
        np.testing.assert_allclose(means[:, g], X[y == g].mean(axis=0))
    ref = sum(((X[y == g] - X[y == g].mean(0)) ** 2).sum(0) for g in range(3))
    np.testing.assert_allclose(ssw, ref)


# ----------------------------------------------------------------------------- predictive
def test_predictive_log_proba_matches_direct_loop():
    rng = np.random.default_rng(3)
    S, k, G, m = 7, 4, 3, 9
    mu = rng.normal(size=(S, k, G))
    tau = rng.gamma(2.0, 1.0, size=(S, k, G))
    X = rng.normal(size=(m, k))
    prior = class_log_prior(np.array([5, 7, 9]), 1.0)
    got = predictive_log_proba(X, mu, tau, prior, chunk_size=4)
    ref = np.empty((m, G))
    for i in range(m):
        for g in range(G):
            dens = [np.exp(norm.logpdf(X[i], mu[s, :, g], 1 / np.sqrt(tau[s, :, g])).sum())
                    for s in range(S)]
            ref[i, g] = np.log(np.mean(dens)) + prior[g]
        ref[i] -= np.log(np.exp(ref[i]).sum())
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.exp(got).sum(axis=1), 1.0, rtol=1e-12)


def test_predictive_moments_integrate_mu_out():
    """The Rao-Blackwellised predictive equals the average over exact conditional draws of mu."""
    import xarray as xr

    from selbayes.models import draw_class_means, predictive_moments

    counts = np.array([4.0, 6.0, 5.0])
    xbar = np.array([[0.3, -0.2, 0.5], [1.0, 0.0, -1.0]])
    tau_x, tau_mu, tau_nu = np.array([[2.0, 0.5]]), np.array([3.0]), np.array([5.0])
    mean, prec = predictive_moments(tau_x, tau_mu, tau_nu, xbar, counts)
    S = 40000
    post = xr.Dataset({
        "tau_x": (("chain", "draw", "feature"), np.broadcast_to(tau_x, (1, S, 2)).copy()),
        "tau_mu": (("chain", "draw"), np.full((1, S), 3.0)),
        "tau_nu": (("chain", "draw"), np.full((1, S), 5.0)),
    }, coords={"class": ["a", "b", "c"]})
    tree = xr.DataTree.from_dict({"posterior": post})
    draw_class_means(tree, {"class_counts": counts, "xbar_obs": xbar}, GaussianPriors(),
                     random_state=1)
    mu = tree.posterior["mu"].values[0]                                   # (S, k, G)
    x_new = mu + rng_normal(mu.shape) / np.sqrt(tau_x[0][None, :, None])  # predictive draws
    se = x_new.std(0) / np.sqrt(S)
    np.testing.assert_array_less(np.abs(x_new.mean(0) - mean[0]), 4 * se)
    np.testing.assert_allclose(1 / x_new.var(0), prec[0], rtol=5 * np.sqrt(2 / S))


def rng_normal(shape, seed=5):
    return np.random.default_rng(seed).standard_normal(shape)


def test_class_log_prior_is_polya_urn():
    np.testing.assert_allclose(np.exp(class_log_prior([3, 1], 1.0)), [4 / 6, 2 / 6])


# ----------------------------------------------------------------------------- agreement with grid
def _batch_se(per_draw: np.ndarray, n_batches: int = 20) -> np.ndarray:
    """Batch-means standard error of the mean of per-draw values (draws along axis 0)."""
    batches = np.array_split(per_draw, n_batches, axis=0)
    means = np.stack([b.mean(axis=0) for b in batches])
    return means.std(axis=0, ddof=1) / np.sqrt(n_batches)


# The uncorrected variant is the corrected model with n_omitted = 0: one compiled model, so the
# pair costs one compilation and two short samplings.
@pytest.mark.parametrize("corrected", [True, False])
def test_nuts_matches_grid_integration_k1(corrected):
    from selbayes.adjustment import fstat_log_omit_prob

    X, y = _data(n=40, p=60, G=2, tau_mu=30.0, seed=11)
    sel = select_features(X, y, k=1)
    clf = HierarchicalGaussianClassifier(
        k=1, correct_selection=corrected, draws=1500, tune=1000, chains=4, sampler="nutpie",
        random_state=5, progressbar=False, max_predict_draws=None, **EXACT_MODEL)
    clf.fit(X, y)
    x = X[:, sel.indices[0]]

    def lop(u):
        return fstat_log_omit_prob(u, sel.class_counts, sel.threshold, 4.0)

    grid = GridPosteriorK1(x, y, 2, PAPER_PRIORS, log_omit_prob=lop if corrected else None,
                           n_omitted=sel.n_omitted)
    assert grid.edge_mass() < 1e-6
    # posterior mean of log tau_mu, with its Monte Carlo standard error from ArviZ
    import arviz as az

    log_tau = np.log(clf.idata_.posterior["tau_mu"])
    mcse = float(az.mcse(log_tau.to_dataset(name="lt"))["lt"])
    est = float(log_tau.mean())
    ref = grid.mean("log_tau_mu")
    assert abs(est - ref) < 4 * mcse + 1e-3, (est, ref, mcse)

    # predictive probabilities at a few test points, with batch-means standard errors
    x_star = np.array([-0.6, -0.2, 0.0, 0.3, 0.7])
    X_star = np.zeros((len(x_star), X.shape[1]))
    X_star[:, sel.indices[0]] = x_star
    got = clf.predict_proba(X_star)
    ref = grid.predict_proba(x_star)
    # per-draw class densities to get a Monte Carlo error of the ratio estimate
    mean, prec = clf.pred_mean_, clf.pred_precision_
    dens = norm.pdf(x_star[None, :, None], mean[:, None, 0, :], 1 / np.sqrt(prec[:, None, 0, :]))
    w = np.exp(class_log_prior(sel.class_counts, 1.0))
    num = dens * w
    p1 = num[..., 1].mean(0) / num.sum(-1).mean(0)
    np.testing.assert_allclose(p1, got[:, 1], rtol=1e-8)
    # delta method: se of ratio of means
    d = num.sum(-1)
    infl = (num[..., 1] - p1 * d) / d.mean(0)
    se = _batch_se(infl)
    assert np.all(np.abs(got[:, 1] - ref[:, 1]) < 4 * se + 1e-4), (got[:, 1], ref[:, 1], se)


# ----------------------------------------------------------------------------- estimator API
def test_estimator_structural_with_mock_sampling(mock_pymc_sample, tmp_path):
    X, y = _data()
    labels = np.array(["a", "b", "c"])[y]
    clf = HierarchicalGaussianClassifier(k=5, draws=20, chains=1, sampler="pymc",
                                         progressbar=False)
    with pytest.warns(Warning):
        clf.fit(X, labels)
    assert list(clf.classes_) == ["a", "b", "c"]
    proba = clf.predict_proba(X[:7])
    assert proba.shape == (7, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(clf.predict(X[:7])) <= {"a", "b", "c"}
    attrs = clf.idata_.attrs
    assert attrs["selection_n_features"] == 200 and attrs["selection_n_selected"] == 5
    assert attrs["selection_threshold"] == pytest.approx(clf.selection_.threshold)
    # Bayes decision under a loss matrix that makes guessing "c" free picks "c" always
    loss = np.ones((3, 3))
    loss[:, 2] = 0.0
    assert set(clf.predict(X[:7], loss=loss)) == {"c"}
    # round trip through netCDF
    path = clf.save(tmp_path / "fit.nc")
    back = HierarchicalGaussianClassifier.load(path)
    np.testing.assert_allclose(back.predict_proba(X[:7]), proba)
    assert back._config() == clf._config()
    assert back.selection_.threshold == clf.selection_.threshold


def test_load_rejects_other_versions_and_altered_settings(mock_pymc_sample, tmp_path):
    import xarray as xr

    X, y = _data()
    clf = HierarchicalGaussianClassifier(k=5, draws=10, chains=1, sampler="pymc",
                                         progressbar=False)
    with pytest.warns(Warning):
        clf.fit(X, y)
    path = clf.save(tmp_path / "fit.nc")
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    tree.attrs["selbayes_version"] = "0.0.1"
    tree.to_netcdf(tmp_path / "old.nc", engine="h5netcdf")
    with pytest.raises(ValueError, match="written by selbayes 0.0.1"):
        HierarchicalGaussianClassifier.load(tmp_path / "old.nc")
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    tree.attrs["selbayes_config"] = tree.attrs["selbayes_config"].replace('"k": 5', '"k": 6')
    tree.to_netcdf(tmp_path / "altered.nc", engine="h5netcdf")
    with pytest.raises(ValueError, match="model id mismatch"):
        HierarchicalGaussianClassifier.load(tmp_path / "altered.nc")


def test_bad_input(mock_pymc_sample):
    X, y = _data()
    clf = HierarchicalGaussianClassifier(k=5, draws=10, chains=1, sampler="pymc",
                                         progressbar=False)
    Xn = X.copy()
    Xn[3, 7] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(Xn, y)
    y1 = np.ones_like(y)
    y1[0] = 0                   # a class of one case beside a single class to spread from
    with pytest.raises(ValueError, match="at least 2 classes need 2 cases or more"):
        clf.fit(X, y1)
    with pytest.raises(ValueError, match="sampler must be one of"):
        HierarchicalGaussianClassifier(sampler="stan").fit(X, y)
    with pytest.warns(Warning):
        clf.fit(X, y)
    with pytest.raises(ValueError, match="199 features"):
        clf.predict_proba(X[:, :199])
    with pytest.raises(ValueError, match="loss must have shape"):
        clf.predict(X, loss=np.ones((2, 2)))


def test_evaluate_rejects_unseen_labels(mock_pymc_sample):
    X, y = _data()
    clf = HierarchicalGaussianClassifier(k=5, draws=10, chains=1, sampler="pymc",
                                         progressbar=False)
    with pytest.warns(Warning):
        clf.fit(X, y)
    summary = clf.evaluate(X, y)
    assert 0 <= summary["error_rate"] <= 1 and summary["amlp"] > 0
    with pytest.raises(ValueError, match=r"label\(s\) \[7\]"):
        clf.evaluate(X, np.where(y == 0, 7, y))


def test_decorrelation_whitens_pooled_within_class_covariance():
    from selbayes.preprocessing import Decorrelation

    rng = np.random.default_rng(4)
    G, n, p = 3, 90, 6
    y = np.repeat(np.arange(G), n // G)
    A = rng.normal(size=(p, p))
    X = rng.normal(size=(n, p)) @ A + y[:, None]
    t = Decorrelation(lam=0.0).fit(X, y, G)
    Z = t.transform(X)
    means = np.stack([Z[y == g].mean(0) for g in range(G)])
    R = Z - means[y]
    np.testing.assert_allclose(R.T @ R / (n - G), np.eye(p), atol=1e-10)
    # lambda -> large: per-feature standardisation (diagonal Sigma)
    t_big = Decorrelation(lam=1e12).fit(X, y, G)
    d = np.diag(t_big.chol_)
    np.testing.assert_allclose(t_big.chol_, np.diag(d), atol=1e-5 * d.max())
    np.testing.assert_allclose(t.rows(np.array([2, 4])) @ X.T, Z[:, [2, 4]].T, atol=1e-10)
    with pytest.raises(ValueError, match="lambda must be >= 0"):
        Decorrelation(-1.0)


def test_missing_sampler_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "numpyro" else real(name, *a))
    X, y = _data()
    with pytest.raises(ImportError, match=r"selbayes\[numpyro\]"):
        HierarchicalGaussianClassifier(sampler="numpyro").fit(X, y)


def test_priors_object_validates():
    with pytest.raises(ValueError, match="priors.alpha_x"):
        GaussianPriors(alpha_x=-1.0)
    with pytest.raises(ValueError, match="unknown prior setting"):
        GaussianPriors.from_dict({"alpha": 1.0})


def test_sklearn_clone_and_params():
    from sklearn.base import clone

    clf = HierarchicalGaussianClassifier(k=7, priors={"alpha_x": 2.0, "w_x": 0.3})
    c2 = clone(clf)
    assert c2.get_params()["k"] == 7 and c2.get_params()["priors"] == {"alpha_x": 2.0, "w_x": 0.3}


def test_model_data_and_prediction_check_their_inputs():
    from selbayes.models import model_data

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 30))
    y = np.repeat([0, 1], 10)
    Xb = (X > 0).astype(int)
    corr_sel = select_features(Xb, y, k=3, statistic="abs_corr")
    with pytest.raises(ValueError, match="needs an F-statistic selection"):
        model_data(X[:, corr_sel.indices], y, corr_sel)
    mean = np.zeros((4, 3, 2))
    prec = np.ones((4, 3))
    with pytest.raises(ValueError, match=r"class_log_prior_ must have shape \(G,\)"):
        predictive_log_proba(X[:, :3], mean, prec, np.log([0.2, 0.3, 0.5]))
    with pytest.raises(ValueError, match="precision must have shape"):
        predictive_log_proba(X[:, :3], mean, np.ones((4, 2)), np.log([0.5, 0.5]))
    with pytest.raises(ValueError, match="X_test_selected"):
        predictive_log_proba(np.full((2, 3), np.nan), mean, prec, np.log([0.5, 0.5]))
    # a list is as good as an array
    lp = predictive_log_proba(X[:2, :3], mean, prec, [np.log(0.5), np.log(0.5)])
    np.testing.assert_allclose(np.exp(lp), 0.5)
