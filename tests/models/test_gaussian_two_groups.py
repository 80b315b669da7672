"""The two-groups prior of the Gaussian classifier (a share pi0 of null features, a normal or
t slab): its marginal likelihood, its omitted-feature factor, the marker probabilities and
the predictive, each against an independent reference (limits, scipy densities, simulation
from the prior with Monte Carlo tolerances)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logsumexp

import selbayes
from selbayes.models import (
    GaussianPriors,
    build_model,
    class_log_prior,
    draw_class_means,
    marker_log_odds,
    marker_probabilities,
    model_data,
    null_log_prob,
    null_predictive_moments,
    predictive_log_proba,
    predictive_log_proba_two_groups,
    predictive_moments,
    two_groups_predictive,
)

TWO = {"pi0_a": 1.0, "pi0_b": 1.0}


def _design(k=3, p=60, n=(6, 5, 7), seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(n)), n)
    X = rng.normal(size=(y.size, p))
    X[:, 0] += 2.0 * y                                   # one real marker
    sel = selbayes.select_features(X, y, k=k)
    return X[:, sel.indices], y, sel


def _point(model, **values):
    pt = model.initial_point()
    pt.update({name: np.asarray(v, dtype=np.float64) for name, v in values.items()})
    return pt


def _deterministic(model, name, point):
    out = model.replace_rvs_by_values([model[name]])
    fn = model.compile_fn(out, inputs=model.value_vars, on_unused_input="ignore",
                          point_fn=False)
    return np.asarray(fn(**point)[0])


# ----------------------------------------------------------------------------- priors
def test_priors_fields_and_errors():
    assert GaussianPriors().pi0_a is None and not GaussianPriors().two_groups
    pri = GaussianPriors.from_dict({"pi0_a": 2, "pi0_b": 1, "mu_t_df": 2})
    assert pri.two_groups and pri.pi0_a == 2.0 and pri.mu_t_df == 2.0
    assert GaussianPriors.from_dict(pri.to_dict()) == pri
    with pytest.raises(ValueError, match="give both"):
        GaussianPriors(pi0_a=1.0)
    with pytest.raises(ValueError, match=r"priors\.pi0_b must be > 0"):
        GaussianPriors(pi0_a=1.0, pi0_b=0.0)


def test_model_variables_and_noncentered_refused():
    Xs, y, sel = _design()
    two = build_model(Xs, y, sel, priors=TWO)
    assert sorted(v.name for v in two.free_RVs) == ["pi0", "tau_mu", "tau_nu", "tau_x"]
    assert [v.name for v in two.deterministics] == ["marker_prob"]
    assert model_data(Xs, y, sel, TWO)["log_p_null"] < 0
    # uncorrected: the corrected graph with n_omitted = 0 and zero tables (one compiled model)
    unc_data = model_data(Xs, y, sel, TWO, corrected=False)
    assert unc_data["log_p_null"] == 0 and unc_data["n_omitted"] == 0
    assert "log_p_null" not in model_data(Xs, y, sel)
    unc = build_model(Xs, y, sel, priors=TWO, corrected=False)
    assert [p.name for p in unc.potentials] == ["class_means_likelihood",
                                                 "selection_adjustment"]
    with pytest.raises(NotImplementedError, match="marginal"):
        build_model(Xs, y, sel, priors=TWO, parameterization="noncentered")


# ------------------------------------------------------------------- limits of the logp
@pytest.mark.parametrize("slab", [{}, {"mu_t_df": 2.0}])
def test_pi0_to_zero_is_the_slab_model(slab):
    """With pi0 -> 0 every feature is a slab feature: the compiled log density (less pi0's
    own prior) equals the slab model's at the same point."""
    Xs, y, sel = _design()
    one = build_model(Xs, y, sel, priors=slab)
    two = build_model(Xs, y, sel, priors={**TWO, **slab})
    vals = {"tau_mu_log__": np.log(3.0), "tau_nu_log__": np.log(0.5),
            "tau_x_log__": np.log([0.7, 1.3, 2.0])}
    if slab:
        vals["lambda_mu_log__"] = np.log([0.3, 1.0, 4.0])
    ref = one.compile_logp()(_point(one, **vals))
    pt = _point(two, pi0_logodds__=-40.0, **vals)
    lp = two.compile_logp(vars=[v for v in two.free_RVs if v.name != "pi0"]
                          + list(two.observed_RVs) + list(two.potentials))(pt)
    assert np.isclose(lp, ref, rtol=0, atol=1e-9)


def test_pi0_to_one_is_the_null_model():
    """With pi0 -> 1 every feature is null: the potentials are sum_j log N(xbar_j | 0,
    diag(1/(n_g tau_x_j)) + 11'/tau_nu) (scipy's multivariate normal) plus (p - k) times
    the central F log cdf (scipy)."""
    Xs, y, sel = _design()
    two = build_model(Xs, y, sel, priors=TWO)
    data = model_data(Xs, y, sel, TWO)
    tau_x, tau_nu = np.array([0.7, 1.3, 2.0]), 0.5
    pt = _point(two, pi0_logodds__=40.0, tau_mu_log__=np.log(3.0),
                tau_nu_log__=np.log(tau_nu), tau_x_log__=np.log(tau_x))
    got = two.compile_logp(vars=list(two.potentials))(pt)
    counts = data["class_counts"]
    ref = sum(stats.multivariate_normal(np.zeros(3), np.diag(1 / (counts * t)) + 1 / tau_nu)
              .logpdf(xb) for t, xb in zip(tau_x, data["xbar_obs"], strict=True))
    n, G = counts.sum(), counts.size
    ref += sel.n_omitted * stats.f(G - 1, n - G).logcdf(sel.threshold)
    assert np.isclose(got, ref, rtol=0, atol=1e-8)


# --------------------------------------------------------- marginal densities of features
@pytest.mark.parametrize("lam", [None, np.array([0.2, 1.0, 5.0])])
def test_marker_log_odds_against_multivariate_normal(lam):
    Xs, y, sel = _design()
    data = model_data(Xs, y, sel, TWO)
    xbar, counts = data["xbar_obs"], data["class_counts"]
    tau_x, tau_mu, tau_nu, pi0 = np.array([0.7, 1.3, 2.0]), 3.0, 0.5, 0.8
    got = marker_log_odds(tau_x[None], np.array([tau_mu]), np.array([tau_nu]),
                          np.array([pi0]), xbar, counts,
                          None if lam is None else lam[None])[0]
    scale = np.ones(3) if lam is None else lam
    ref = []
    for j in range(3):
        v = 1 / (counts * tau_x[j])
        slab = stats.multivariate_normal(np.zeros(3), np.diag(v + 1 / (tau_mu * scale[j]))
                                         + 1 / tau_nu).logpdf(xbar[j])
        null = stats.multivariate_normal(np.zeros(3), np.diag(v) + 1 / tau_nu).logpdf(xbar[j])
        ref.append(np.log1p(-pi0) - np.log(pi0) + slab - null)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-10)
    # the model's marker_prob deterministic computes the same number
    pri = TWO if lam is None else {**TWO, "mu_t_df": 2.0}
    two = build_model(Xs, y, sel, priors=pri)
    vals = dict(pi0_logodds__=np.log(pi0 / (1 - pi0)), tau_mu_log__=np.log(tau_mu),
                tau_nu_log__=np.log(tau_nu), tau_x_log__=np.log(tau_x))
    if lam is not None:
        vals["lambda_mu_log__"] = np.log(lam)
    np.testing.assert_allclose(_deterministic(two, "marker_prob", _point(two, **vals)),
                               expit(ref), rtol=1e-10)


def test_null_log_prob_against_simulation():
    """A null feature's F is central F(G-1, n-G) whatever tau_x and the class sizes."""
    rng = np.random.default_rng(3)
    counts, gamma, N = np.array([3, 6, 4]), 2.5, 200_000
    F = _f_statistics(rng, counts, np.zeros((N, 3)), rng.gamma(2.0, 1.0, size=N))
    frac = np.mean(F <= gamma)
    se = np.sqrt(frac * (1 - frac) / N)
    assert abs(np.exp(null_log_prob(counts, gamma)) - frac) < 4 * se


def _f_statistics(rng, counts, mu, tau_x):
    """One-way ANOVA F of simulated features: mu (N, G) class means, tau_x (N,) precisions."""
    y = np.repeat(np.arange(counts.size), counts)
    n, G = y.size, counts.size
    X = mu[:, y] + rng.standard_normal((mu.shape[0], n)) / np.sqrt(tau_x)[:, None]
    means = np.stack([X[:, y == g].mean(1) for g in range(G)], axis=1)
    grand = X.mean(1, keepdims=True)
    between = (counts * (means - grand) ** 2).sum(1) / (G - 1)
    within = ((X - means[:, y]) ** 2).sum(1) / (n - G)
    return between / within


# ------------------------------------------------------------- the omitted-feature factor
@pytest.mark.parametrize("slab, tau_mu, pi0", [({}, 0.5, 0.7), ({}, 4.0, 0.2),
                                               ({"mu_t_df": 2.0}, 0.5, 0.7)])
def test_omitted_factor_against_simulation_from_the_prior(slab, tau_mu, pi0):
    """The model's selection Potential / (p - k) is log P(F <= gamma | tau_mu, pi0) under
    the two-groups prior: simulate features from it (indicator, lambda, tau_x, class means,
    data) and count F <= gamma; binomial standard error."""
    Xs, y, sel = _design()
    pri = GaussianPriors.from_dict({**TWO, **slab, "alpha_x": 4.0, "w_x": 1.0})
    two = build_model(Xs, y, sel, priors=pri)
    pt = _point(two, pi0_logodds__=np.log(pi0 / (1 - pi0)), tau_mu_log__=np.log(tau_mu))
    got = np.exp(two.compile_logp(vars=[two.potentials[1]])(pt) / sel.n_omitted)

    rng = np.random.default_rng(11)
    N, counts, G = 300_000, np.asarray(sel.class_counts), len(sel.class_counts)
    tau_x = rng.gamma(pri.alpha_x / 2, 2 / (pri.alpha_x * pri.w_x), size=N)
    lam = (rng.gamma(pri.mu_t_df / 2, 2 / pri.mu_t_df, size=N) if pri.mu_t_df
           else np.ones(N))
    marker = rng.uniform(size=N) >= pi0
    mu = marker[:, None] * rng.standard_normal((N, G)) / np.sqrt(tau_mu * lam)[:, None]
    frac = np.mean(_f_statistics(rng, counts, mu, tau_x) <= sel.threshold)
    se = np.sqrt(frac * (1 - frac) / N)
    assert abs(got - frac) < 4 * se
    # and the mixture is not the slab alone (the check can fail)
    one = build_model(Xs, y, sel, priors={**pri.to_dict(), "pi0_a": None, "pi0_b": None})
    slab_only = np.exp(one.compile_logp(vars=[one.potentials[1]])(
        _point(one, tau_mu_log__=np.log(tau_mu))) / sel.n_omitted)
    assert abs(slab_only - frac) > 10 * se


# ------------------------------------------------------------------ marker probabilities
@pytest.mark.parametrize("t_slab", [False, True])
def test_marker_probabilities_are_calibrated_under_the_prior(t_slab):
    """Given the true hyperparameters, r_j = P(marker | xbar_j): simulate features with known
    indicators from the prior; in bins of r the share of markers matches the mean r."""
    rng = np.random.default_rng(5)
    N, counts = 200_000, np.array([4.0, 6.0, 5.0])
    tau_mu, tau_nu, pi0 = 2.0, 0.3, 0.6
    tau_x = rng.gamma(2.0, 0.5, size=N)
    lam = rng.gamma(1.0, 1.0, size=N) if t_slab else np.ones(N)
    marker = rng.uniform(size=N) >= pi0
    nu = rng.standard_normal(N) / np.sqrt(tau_nu)
    mu = nu[:, None] + marker[:, None] * rng.standard_normal((N, 3)) / np.sqrt(
        tau_mu * lam)[:, None]
    xbar = mu + rng.standard_normal((N, 3)) / np.sqrt(counts * tau_x[:, None])
    # the N simulated features as the k features of one draw
    r = expit(marker_log_odds(tau_x[None], np.array([tau_mu]), np.array([tau_nu]),
                              np.array([pi0]), xbar, counts,
                              lam[None] if t_slab else None)[0])
    edges = np.linspace(0, 1, 11)
    which = np.clip(np.digitize(r, edges) - 1, 0, 9)
    for b in range(10):
        inb = which == b
        if inb.sum() < 200:
            continue
        # given the hyperparameters the indicators are independent Bernoulli(r_j): the bin's
        # share is exact up to this binomial SE; 4.5 SE over 10 bins fails by chance < 1e-4
        se = np.sqrt((r[inb] * (1 - r[inb])).sum()) / inb.sum()
        assert abs(marker[inb].mean() - r[inb].mean()) < 4.5 * se, b
    assert abs(marker.mean() - r.mean()) < 4 * np.sqrt((r * (1 - r)).sum()) / N
    # the probabilities separate: markers average well above nulls
    assert r[marker].mean() > r[~marker].mean() + 0.2


def test_marker_probabilities_from_stored_or_recomputed_draws():
    Xs, y, sel = _design()
    data = model_data(Xs, y, sel, TWO)
    rng = np.random.default_rng(0)
    draws = {"tau_x": rng.gamma(2.0, 0.5, size=(2, 7, 3)), "tau_mu": rng.gamma(2.0, size=(2, 7)),
             "tau_nu": rng.gamma(2.0, size=(2, 7)), "pi0": rng.uniform(size=(2, 7))}
    got = marker_probabilities(draws, data)
    ref = expit(marker_log_odds(draws["tau_x"], draws["tau_mu"], draws["tau_nu"],
                                draws["pi0"], data["xbar_obs"], data["class_counts"]))
    np.testing.assert_allclose(got, ref.reshape(-1, 3).mean(0), rtol=1e-12)
    assert marker_probabilities({"marker_prob": ref}).tolist() == got.tolist()
    with pytest.raises(ValueError, match="two-groups prior"):
        marker_probabilities({"tau_mu": draws["tau_mu"]})
    with pytest.raises(ValueError, match="model_data"):
        marker_probabilities(draws)


def test_draw_class_means_two_groups():
    """Null draws have equal class means; the share of marker draws per feature matches the
    mean marker probability (binomial tolerance)."""
    import xarray as xr

    Xs, y, sel = _design()
    data = model_data(Xs, y, sel, TWO)
    S = 40_000
    post = xr.Dataset({"tau_mu": (("chain", "draw"), np.full((1, S), 0.5)),
                       "tau_nu": (("chain", "draw"), np.full((1, S), 0.5)),
                       "pi0": (("chain", "draw"), np.full((1, S), 0.5)),
                       "tau_x": (("chain", "draw", "feature"), np.full((1, S, 3), 1.0))})
    idata = draw_class_means(xr.DataTree.from_dict({"posterior": post}), data,
                             GaussianPriors(**TWO), random_state=1)
    mu = idata["posterior"]["mu"].values[0]                               # (S, k, G)
    null = np.ptp(mu, axis=-1) == 0
    r = marker_probabilities({name: post[name].values for name in post}, data)
    se = np.sqrt(r * (1 - r) / S)
    assert np.all(np.abs((~null).mean(0) - r) < 4 * se)
    nu = idata["posterior"]["nu"].values[0]
    np.testing.assert_array_equal(mu[null], np.broadcast_to(nu[..., None], mu.shape)[null])


# ---------------------------------------------------------------------------- prediction
def test_predictive_moments_with_indicators():
    rng = np.random.default_rng(2)
    S, k, G = 4, 3, 2
    tau_x, tau_mu, tau_nu = rng.gamma(2.0, size=(S, k)), rng.gamma(2.0, size=S), \
        rng.gamma(2.0, size=S)
    xbar, counts = rng.normal(size=(k, G)), np.array([5.0, 7.0])
    mean, prec = predictive_moments(tau_x, tau_mu, tau_nu, xbar, counts)
    m1, p1 = predictive_moments(tau_x, tau_mu, tau_nu, xbar, counts, slab=np.ones((S, k)))
    np.testing.assert_array_equal(mean, m1)
    np.testing.assert_array_equal(prec, p1)
    slab = rng.uniform(size=(S, k)) < 0.5
    m2, p2 = predictive_moments(tau_x, tau_mu, tau_nu, xbar, counts, slab=slab)
    m0, p0 = null_predictive_moments(tau_x, tau_nu, xbar, counts)
    np.testing.assert_array_equal(m2[~slab], np.repeat(m0[~slab][:, None], G, 1))
    np.testing.assert_array_equal(p2[~slab], np.repeat(p0[~slab][:, None], G, 1))
    np.testing.assert_array_equal(m2[slab], mean[slab])
    # the null predictive is the tau_mu -> infinity limit of the slab one
    mi, pi = predictive_moments(tau_x, np.full(S, 1e12), tau_nu, xbar, counts)
    np.testing.assert_allclose(mi, np.repeat(m0[..., None], G, -1), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(pi, np.repeat(p0[..., None], G, -1), rtol=1e-8)
    with pytest.raises(ValueError, match="slab must have the shape"):
        predictive_moments(tau_x, tau_mu, tau_nu, xbar, counts, slab=np.ones(k))


def test_two_groups_log_proba_against_direct_sum():
    rng = np.random.default_rng(4)
    S, k, G, m = 5, 4, 3, 6
    mean, prec = rng.normal(size=(S, k, G)), rng.gamma(2.0, size=(S, k, G))
    m0, p0 = rng.normal(size=(S, k)), rng.gamma(2.0, size=(S, k))
    r = rng.uniform(size=(S, k))
    r[0, 0], r[1, 2] = 0.0, 1.0                       # sure null / sure marker are fine
    X = rng.normal(size=(m, k))
    lp = np.log([0.2, 0.3, 0.5])
    got = predictive_log_proba_two_groups(X, mean, prec, m0, p0, r, lp)
    small = predictive_log_proba_two_groups(X, mean, prec, m0, p0, r, lp, max_bytes=1)
    np.testing.assert_allclose(small, got, rtol=1e-12, atol=1e-13)
    ref = np.empty((m, G))
    for i in range(m):
        for g in range(G):
            dens = [np.prod([r[s, j] * stats.norm(mean[s, j, g], prec[s, j, g] ** -0.5)
                             .pdf(X[i, j]) + (1 - r[s, j]) * stats.norm(m0[s, j], p0[s, j]
                                                                        ** -0.5).pdf(X[i, j])
                             for j in range(k)]) for s in range(S)]
            ref[i, g] = np.log(np.mean(dens)) + lp[g]
    ref -= logsumexp(ref, axis=1, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    # every marker: the slab predictive
    ones = predictive_log_proba_two_groups(X, mean, prec, m0, p0, np.ones((S, k)), lp)
    np.testing.assert_allclose(ones, predictive_log_proba(X, mean, prec, lp), atol=1e-10)
    with pytest.raises(ValueError, match="marker_prob must have shape"):
        predictive_log_proba_two_groups(X, mean, prec, m0, p0, r[:, :2], lp)


def test_grouped_two_groups_log_proba_against_direct_sum():
    """With groups: per group, the product over features of each feature's mixture density
    averaged over the group's draws; groups averaged by size. One draw per group is the
    joint average."""
    from selbayes.models import hyperparameter_groups

    rng = np.random.default_rng(8)
    S, k, G, m = 9, 4, 2, 5
    mean, prec = rng.normal(size=(S, k, G)), rng.gamma(2.0, size=(S, k, G))
    m0, p0 = rng.normal(size=(S, k)), rng.gamma(2.0, size=(S, k))
    r = rng.uniform(size=(S, k))
    X = rng.normal(size=(m, k))
    lp = np.log([0.4, 0.6])
    groups = hyperparameter_groups(rng.gamma(2.0, size=S), n_groups=4,
                                   pi0=rng.uniform(size=S))
    got = predictive_log_proba_two_groups(X, mean, prec, m0, p0, r, lp, groups=groups)
    small = predictive_log_proba_two_groups(X, mean, prec, m0, p0, r, lp, groups=groups,
                                            max_bytes=1)
    np.testing.assert_allclose(small, got, rtol=1e-12, atol=1e-13)
    ref = np.empty((m, G))
    for i in range(m):
        for g in range(G):
            total = 0.0
            for b in np.unique(groups):
                draws = np.flatnonzero(groups == b)
                prod = 1.0
                for j in range(k):
                    prod *= np.mean([r[s, j] * stats.norm(mean[s, j, g], prec[s, j, g] ** -0.5)
                                     .pdf(X[i, j]) + (1 - r[s, j])
                                     * stats.norm(m0[s, j], p0[s, j] ** -0.5).pdf(X[i, j])
                                     for s in draws])
                total += len(draws) / S * prod
            ref[i, g] = np.log(total) + lp[g]
    ref -= logsumexp(ref, axis=1, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    joint = predictive_log_proba_two_groups(X, mean, prec, m0, p0, r, lp)
    np.testing.assert_allclose(predictive_log_proba_two_groups(
        X, mean, prec, m0, p0, r, lp, groups=np.arange(S)), joint, atol=1e-12)
    with pytest.raises(ValueError, match="one int label per draw"):
        predictive_log_proba_two_groups(X, mean, prec, m0, p0, r, lp, groups=groups[:3])


def test_two_groups_predictive_is_calibrated_under_the_prior():
    """Given the true hyperparameters (one 'draw'), the predictive class probabilities of
    test cases simulated from the two-groups prior are calibrated (binned, MC tolerance)."""
    rng = np.random.default_rng(8)
    R, k, counts = 4000, 4, np.array([5.0, 5.0])
    tau_mu, tau_nu, pi0 = 1.0, 1.0, 0.6
    lp = class_log_prior(counts, 1.0)                 # equal classes: log 1/2 each
    p1, y1 = np.empty(R), np.empty(R, dtype=int)
    for i in range(R):
        tau_x = rng.gamma(2.0, 0.5, size=k)
        marker = rng.uniform(size=k) >= pi0
        nu = rng.standard_normal(k) / np.sqrt(tau_nu)
        mu = nu[:, None] + marker[:, None] * rng.standard_normal((k, 2)) / np.sqrt(tau_mu)
        xbar = mu + rng.standard_normal((k, 2)) / np.sqrt(counts * tau_x[:, None])
        y1[i] = rng.integers(2)
        x = mu[:, y1[i]] + rng.standard_normal(k) / np.sqrt(tau_x)
        pred = two_groups_predictive(tau_x[None], np.array([tau_mu]), np.array([tau_nu]),
                                     np.array([pi0]), xbar, counts)
        p1[i] = np.exp(predictive_log_proba_two_groups(
            x[None], pred["mean"], pred["precision"], pred["null_mean"],
            pred["null_precision"], pred["marker_prob"], lp)[0, 1])
    which = np.clip((p1 * 5).astype(int), 0, 4)
    for b in range(5):
        inb = which == b
        # labels are independent Bernoulli(p1_i) given the simulated truth: binomial SE only;
        # 4 SE over 5 bins fails by chance < 4e-4
        se = np.sqrt((p1[inb] * (1 - p1[inb])).sum()) / inb.sum()
        assert abs((y1[inb] == 1).mean() - p1[inb].mean()) < 4 * se, b


# ------------------------------------------------------------------------------- sampling
@pytest.mark.slow
def test_fit_finds_the_markers():
    """A nutpie fit on 3 strong markers among 200 null features: the kept markers get marker
    probabilities near 1, the kept null features low ones; pi0 is near its truth."""
    from selbayes.models._gaussian import sample_nutpie

    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 200))
    X[:, :3] += 2.0 * y[:, None]
    sel = selbayes.select_features(X, y, k=10)
    data = model_data(X[:, sel.indices], y, sel, TWO)
    coords = {"feature": sel.indices.tolist(), "class": ["0", "1"]}
    idata, _ = sample_nutpie(data, GaussianPriors(**TWO), coords, draws=500, tune=500,
                             chains=2, seed=1, target_accept=0.9, progressbar=False)
    r = marker_probabilities(idata)
    is_marker = sel.indices < 3
    assert is_marker.sum() == 3
    assert np.all(r[is_marker] > 0.9)
    assert np.mean(r[~is_marker]) < 0.3
    assert idata["posterior"]["pi0"].mean() > 0.9


@pytest.mark.parametrize("change, match", [
    ({"precision": -np.ones((1, 1, 2))}, r"precision must be finite and > 0"),
    ({"mean": np.full((1, 1, 2), np.nan)}, "mean contains NaN"),
    ({"null_mean": np.full((1, 1), np.inf)}, "null_mean contains NaN"),
    ({"null_precision": np.zeros((1, 1))}, r"null_precision must be finite and > 0"),
    ({"marker_prob": np.full((1, 1), 1.5)}, r"marker_prob must hold probabilities in \[0, 1\]"),
    ({"marker_prob": np.full((1, 1), np.nan)}, r"marker_prob must hold probabilities"),
    ({"max_bytes": 0}, "max_bytes must be > 0"),
])
def test_two_groups_predictive_names_moments_it_cannot_use(change, match):
    """A negative precision, a NaN mean or a marker probability outside [0, 1] came out as
    NaN probabilities; its sibling predictive_log_proba refused them."""
    from selbayes.models import predictive_log_proba_two_groups

    args = dict(mean=np.array([[[-1.0, 1.0]]]), precision=np.ones((1, 1, 2)),
                null_mean=np.zeros((1, 1)), null_precision=np.ones((1, 1)),
                marker_prob=np.ones((1, 1)), class_log_prior_=np.log([0.5, 0.5]))
    with pytest.raises(ValueError, match=match):
        predictive_log_proba_two_groups([[1.0]], **{**args, **change})
