"""The fast plug-in predictive of the Gaussian classifier and its adjustments: the hyperparameter
mode against the PyMC model's own density and against the mode with the noise precisions
integrated out by quadrature, the tempered and label-noise predictives against
their closed forms, the correlation temperature against the design effect."""

import numpy as np
import pytest

from selbayes.filters import select_features
from selbayes.models import (
    GaussianPriors,
    correlation_temperature,
    plugin_log_proba,
    temper_log_proba,
)
from selbayes.models import _gaussian_plugin as plugin
from selbayes.models._gaussian import sufficient_statistics
from selbayes.models._gaussian_plugin import _hyper_mode

from ._mc_error import log_odds_mc_sd


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
    with pytest.raises(ValueError, match="temperature must be > 0"):
        temper_log_proba(lp, prior, 0.0)


@pytest.mark.parametrize("corrected", [False, True])
def test_hyper_mode_matches_the_pymc_model_logp(corrected):
    """Independent route: the PyMC model's own log density (with its spline adjustment table
    and log-transform Jacobians) maximised on a grid at tau_x fixed to the same value, the
    noise variance 1 / tau_x at its conditional mean given SSW."""
    import pymc as pm

    from selbayes.models import build_model

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 12)
    X = rng.normal(size=(36, 400))
    X[:, :6] += 0.8 * y[:, None]
    sel = select_features(X, y, k=6)
    Xs = X[:, sel.indices]
    pri = GaussianPriors()
    counts, xbar, ssw = sufficient_statistics(Xs, y, 3)
    (u, v), _ = _hyper_mode(xbar, ssw, counts.astype(float), sel, pri, corrected)
    model = build_model(Xs, y, sel, pri, corrected=corrected)
    logp = model.compile_logp()
    n, G = 36, 3
    tau_x = (pri.alpha_x / 2 + (n - G) / 2 - 1) / (pri.alpha_x * pri.w_x / 2 + ssw / 2)
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
    # Five independent unit-variance markers shifted by 2: the Bayes error is
    # Phi(-Delta / 2) with Delta = 2 sqrt(5), 0.013. A rule fitted on 60 cases errs little
    # more than that, and less on its own training cases (resubstitution is optimistic), so
    # the error here stays within 4 binomial standard deviations of the Bayes error
    from scipy.stats import norm

    bayes = norm.cdf(-np.sqrt(5.0))
    error = np.mean(np.argmax(lp, 1) != y)
    assert error < bayes + 4 * np.sqrt(bayes * (1 - bayes) / y.size), error


def _log_odds_mc_sd(X_sel, y, Xte_sel, sel, n_draws, seed):
    """:func:`log_odds_mc_sd` from the plug-in's own draws: shape (m,) each."""
    from selbayes.models import plugin_posterior, predictive_moments

    post = plugin_posterior(X_sel, y, sel, n_draws=n_draws, random_state=seed)
    S = n_draws
    mean, prec = predictive_moments(post["tau_x"], np.full(S, post["tau_mu"]),
                                    np.full(S, post["tau_nu"]), post["xbar"], post["counts"])
    return log_odds_mc_sd(Xte_sel, mean, prec)


def test_plugin_predictive_is_the_product_of_per_feature_averages():
    """With the hyperparameters fixed the features are independent, so the predictive is the
    product over features of each feature's average over its own tau_x draws. At k = 2 the
    average over joint draws is the same quantity: the two agree within 4 of their
    delta-method Monte Carlo standard deviations (20 000 draws). At k = 300 two seeds of the
    product differ by what its Monte Carlo error predicts: per case d0 - d1 ~ N(0, 2 sd^2), so
    |d0 - d1| / (2 sd / sqrt(pi)) has mean 1 and variance pi/2 - 1, and its average over the
    40 cases lies within 4 standard errors of 1, sqrt((pi/2 - 1) / 40) each (the cases share
    the draws, but their errors are nearly independent: over 10 pairs of seeds the average of
    z^2 had SD 0.21, against 0.22 for independent cases). The joint average's two seeds differ
    by more than three times the factorised one's expected difference."""
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 2000))
    X[:, :300] += 0.3 * y[:, None]
    Xte = rng.normal(size=(40, 2000)) + 0.3 * np.repeat([0, 1], 20)[:, None] * (
        np.arange(2000) < 300)
    sel2 = select_features(X, y, k=2)
    a = plugin_log_proba(X[:, sel2.indices], y, Xte[:, sel2.indices], sel2, n_draws=20000,
                         random_state=0)
    b = plugin_log_proba(X[:, sel2.indices], y, Xte[:, sel2.indices], sel2, n_draws=20000,
                         random_state=0, predictive="joint")
    sd_f, sd_j = _log_odds_mc_sd(X[:, sel2.indices], y, Xte[:, sel2.indices], sel2, 20000, 0)
    d = (a[:, 1] - a[:, 0]) - (b[:, 1] - b[:, 0])
    assert np.all(np.abs(d) <= 4 * (sd_f + sd_j))
    sel = select_features(X, y, k=300)

    def log_odds(seed, how):
        lp = plugin_log_proba(X[:, sel.indices], y, Xte[:, sel.indices], sel, n_draws=200,
                              random_state=seed, predictive=how)
        return lp[:, 1] - lp[:, 0]

    diff = {how: np.abs(log_odds(0, how) - log_odds(1, how)) for how in ("factorised", "joint")}
    sd_f, _ = _log_odds_mc_sd(X[:, sel.indices], y, Xte[:, sel.indices], sel, 200, 0)
    expected = 2 * sd_f / np.sqrt(np.pi)                                 # E|d0 - d1|, (m,)
    ratio = np.mean(diff["factorised"] / expected)
    assert abs(ratio - 1) < 4 * np.sqrt((np.pi / 2 - 1) / expected.size), ratio
    assert diff["joint"].mean() > 3 * expected.mean()
    with pytest.raises(ValueError, match="predictive must be"):
        plugin_log_proba(X[:, sel2.indices], y, Xte[:, sel2.indices], sel2, predictive="x")


def test_label_noise_bounds_the_loss_and_mixes_with_the_prior():
    from selbayes.models import default_label_noise, label_noise_log_proba

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



@pytest.mark.parametrize("df", [1.0, 2.0, 5.0])
def test_t_scale_quadrature_matches_adaptive_quadrature(df):
    """Independent route: scipy's adaptive quadrature of Gamma(df/2, df/2) density times the
    MVN density of the class means, for a null feature, a marker and a very strong marker."""
    from scipy import integrate, stats

    from selbayes.models._gaussian_plugin import _feature_loglik_t, _t_scale_nodes

    counts = np.array([10.0, 12.0, 9.0])
    tau_x = np.array([1.0, 2.0, 0.5])
    xbar = np.array([[0.1, -0.2, 0.05], [3.0, -2.5, 0.1], [10.0, -8.0, 0.0]])
    u, v = np.log(20.0), np.log(0.5)
    lam, log_w = _t_scale_nodes(df)
    np.testing.assert_allclose(np.exp(log_w).sum(), 1.0)
    got = _feature_loglik_t(u, v, xbar, counts, tau_x, lam, log_w)
    for j in range(3):
        cov0 = 1.0 / (counts * tau_x[j])

        def f(lm, cov0=cov0, j=j):
            cov = np.diag(1.0 / (np.exp(u) * lm) + cov0) + np.exp(-v)
            return (stats.gamma(df / 2, scale=2 / df).pdf(lm)
                    * stats.multivariate_normal(np.zeros(3), cov).pdf(xbar[j]))
        ref = np.log(sum(integrate.quad(f, a, b, limit=500)[0] for a, b in
                         [(0, 1e-4), (1e-4, 1e-2), (1e-2, 1), (1, 100), (100, np.inf)]))
        # the very strong marker sits far in the prior's tail for df = 5: looser there
        tol = 1e-5 if (df <= 2 or j < 2) else 1e-2
        assert abs(got[j] - ref) < tol, (df, j, got[j], ref)


@pytest.mark.parametrize("df", [1.0, 2.0, 16.0])
def test_two_class_flat_nu_t_density_is_the_general_formula(df):
    """Two classes and a flat prior on nu have their own closed form in _feature_loglik_t (the
    contrast's normal density); against the general G-class formula
    (class_means_log_density, determinant lemma and Sherman-Morrison) at every node, and
    against scipy's adaptive quadrature over lambda of the contrast's density. Features from
    null to very strong, small and large noise, a grid of log tau_mu."""
    from scipy import integrate, stats

    from selbayes.models import class_means_log_density
    from selbayes.models._gaussian_plugin import _feature_loglik_t, _t_scale_nodes

    rng = np.random.default_rng(11)
    xbar = np.column_stack([rng.normal(size=6), np.zeros(6)]) * [[0.0], [0.1], [1.0], [3.0],
                                                                  [10.0], [40.0]]
    counts, tau_x = np.array([9.0, 14.0]), rng.gamma(2.0, 1.0, size=6)
    lam, log_w = _t_scale_nodes(df)
    u = np.array([-3.0, 0.0, 2.5, 8.0])
    got = _feature_loglik_t(u, -np.inf, xbar, counts, tau_x, lam, log_w, per_node=True)
    d = (np.exp(-u)[:, None, None, None] / lam[:, None, None]
         + 1.0 / (counts * tau_x[:, None]))                               # (4, Q, k, G)
    general = class_means_log_density(d, None, xbar, 2) + log_w[:, None]   # (4, Q, k)
    np.testing.assert_allclose(got, np.swapaxes(general, -1, -2), rtol=1e-12, atol=1e-12)
    summed = _feature_loglik_t(u, -np.inf, xbar, counts, tau_x, lam, log_w)
    for j in (1, 3):
        def f(lm, j=j):
            var = 2.0 / (np.exp(u[1]) * lm) + (1.0 / (counts * tau_x[j])).sum()
            return (stats.gamma(df / 2, scale=2 / df).pdf(lm)
                    * stats.norm(0.0, np.sqrt(var)).pdf(xbar[j, 0] - xbar[j, 1]))
        ref = np.log(sum(integrate.quad(f, a, b, limit=500)[0] for a, b in
                         [(0, 1e-4), (1e-4, 1e-2), (1e-2, 1), (1, 100), (100, np.inf)]))
        assert abs(summed[1, j] - ref) < 1e-5, (df, j, summed[1, j], ref)


def test_t_plugin_with_one_node_at_one_is_the_normal_likelihood():
    """lambda fixed at 1 (a single node of weight 1) reduces the t likelihood to the normal one."""
    from selbayes.models._gaussian_plugin import _class_means_loglik

    rng = np.random.default_rng(3)
    xbar = rng.normal(size=(7, 2))
    counts, tau_x = np.array([8.0, 11.0]), rng.gamma(2.0, 1.0, size=7)
    U, V = np.meshgrid([0.5, 2.0], [-1.0, 1.0], indexing="ij")
    a = _class_means_loglik(U, V, xbar, counts, tau_x)
    b = _class_means_loglik(U, V, xbar, counts, tau_x, (np.ones(1), np.zeros(1)))
    np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("k", [10, 200])
def test_t_plugin_predictive_agrees_with_the_mcmc_predictive(k):
    """The inner CV scores k with the plug-in: for the default t prior it must be the fitted
    model's predictive. Reference: the MCMC posterior predictive of the same model (NUTS,
    seed fixed). With the scales set to 1 (the plug-in before 2026-11-25) the corrected
    plug-in's AMLP was 0.20 / 0.45 against the MCMC's 0.12 / 0.06 here."""
    import warnings

    import selbayes.models._gaussian_plugin as gp
    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(1)
    n, p = 60, 3000
    y = np.repeat([0, 1], n // 2)
    yy = np.r_[y, np.repeat([0, 1], 150)]
    X = rng.normal(size=(n + 300, p))
    X[:, :500] += 0.15 * (2 * yy[:, None] - 1)
    X[:, 500:504] += 1.2 * (2 * yy[:, None] - 1)
    Xtr, Xte, yte = X[:n], X[n:], yy[n:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = HierarchicalGaussianClassifier(k=k, effect_prior="t", temperature=1.0,
                                             label_noise=0.0, standardize=False,
                                             random_state=0, progressbar=False).fit(Xtr, y)
    q_mcmc = clf.predict_proba(Xte)[:, 1]
    sel = select_features(Xtr, y, k=k)
    lp = gp.plugin_log_proba(Xtr[:, sel.indices], y, Xte[:, sel.indices], sel,
                             priors=GaussianPriors(mu_t_df=2), random_state=0)
    q_plug = np.exp(lp[:, 1])

    def amlp(q):
        return -np.mean(np.log(np.where(yte == 1, q, 1 - q)))
    # The plug-in fixes (tau_mu, tau_nu) at their mode: a few hundredths of a nat is its
    # approximation error here; the scales-set-to-1 plug-in was off by 0.09 to 0.39 nats.
    assert abs(amlp(q_plug) - amlp(q_mcmc)) < 0.03


def _mode_with_tau_x_integrated(xbar, ssw, counts, priors, start, n_nodes=16):
    """The reference: the mode of log tau_mu (and log tau_nu, unless its prior is flat) under
    their marginal posterior with each tau_x_j integrated out over its conditional
    Gamma(a, rate_j) given SSW_j by generalised Gauss-Laguerre quadrature (exact to the
    quadrature), the class means' density the model's formula, the Gamma priors of the log
    precisions from scipy; and the posterior sd of log tau_mu from the curvature there."""
    from scipy import optimize, stats
    from scipy.special import gammaln, logsumexp, roots_genlaguerre

    from selbayes.models import class_means_log_density

    n, G = counts.sum(), counts.shape[0]
    a = priors.alpha_x / 2 + (n - G) / 2
    rate = priors.alpha_x * priors.w_x / 2 + ssw / 2
    t, w = roots_genlaguerre(n_nodes, a - 1)              # int tau^(a-1) e^-tau f(tau)
    tau_x = t[:, None] / rate[None, :]                     # (Q, k)
    log_w = (np.log(w) - gammaln(a))[:, None]
    flat = priors.flat_nu

    def log_prior(z, alpha, wgt):          # of log tau, tau ~ Gamma(alpha / 2, rate alpha w / 2)
        return stats.gamma.logpdf(np.exp(z), alpha / 2, scale=2 / (alpha * wgt)) + z

    def minus_log_post(uv):
        d = np.exp(-uv[0]) + 1.0 / (counts[None, None, :] * tau_x[:, :, None])   # (Q, k, G)
        s = None if flat else np.exp(-uv[1])
        per = class_means_log_density(d, s, xbar, G)                           # (Q, k)
        out = logsumexp(per + log_w, axis=0).sum() + log_prior(uv[0], priors.alpha_mu,
                                                                priors.w_mu)
        return -(out if flat else out + log_prior(uv[1], priors.alpha_nu, priors.w_nu))

    start = np.atleast_1d(start[:1] if flat else start)
    mode = optimize.minimize(minus_log_post, start, method="Nelder-Mead",
                             options={"xatol": 1e-5, "fatol": 1e-8}).x
    h, e = 1e-3, np.eye(mode.size) * 1e-3                  # the Hessian by central differences
    H = np.array([[(minus_log_post(mode + e[i] + e[j]) - minus_log_post(mode + e[i] - e[j])
                    - minus_log_post(mode - e[i] + e[j]) + minus_log_post(mode - e[i] - e[j]))
                   / (4 * h * h) for j in range(mode.size)] for i in range(mode.size)])
    return mode[0], float(np.sqrt(np.linalg.inv(H)[0, 0]))


@pytest.mark.parametrize("standardised", [False, True])
def test_hyper_mode_is_the_mode_with_the_noise_precisions_integrated_out(standardised,
                                                                          monkeypatch):
    """With 40 training cases and 2000 features of a dense, weak signal (half the features
    shifted by N(0, 0.12^2)) the plug-in's mode of log tau_mu lies within 0.3 posterior sd of
    the exact one, tau_x integrated out (measured: 0.03 to 0.25), on four data sets, in the
    paper's units and standardised as the classifier fits them (flat prior on nu). With tau_x
    at its conditional mean, as before 2026-12-05 (the noise variances 5% low), it was 0.85
    to 1.3 sd below; the test checks that it still sees that."""
    from selbayes.models import for_centred_features
    from selbayes.preprocessing import Standardization

    pri = for_centred_features(GaussianPriors()) if standardised else GaussianPriors()
    a = pri.alpha_x / 2 + (40 - 2) / 2
    new, old = [], []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        n, p = 40, 2000
        y = np.repeat([0, 1], n // 2)
        delta = np.where(rng.random(p) < 0.5, rng.normal(0.0, 0.12, p), 0.0)
        X = rng.normal(size=(n, p)) + np.outer(y - 0.5, delta)
        if standardised:
            X = Standardization().fit(X, y, 2).transform(X)
        sel = select_features(X, y, k=p - 1)
        counts, xbar, ssw = sufficient_statistics(X[:, sel.indices], y, 2)
        counts = counts.astype(float)
        (u, v), _ = _hyper_mode(xbar, ssw, counts, sel, pri, corrected=False)
        with monkeypatch.context() as m:
            m.setattr(plugin, "_noise_precision", lambda priors, counts, ssw: (
                a, None, a / (pri.alpha_x * pri.w_x / 2 + ssw / 2)))
            (u_old, _), _ = _hyper_mode(xbar, ssw, counts, sel, pri, corrected=False)
        ref, sd = _mode_with_tau_x_integrated(xbar, ssw, counts, pri, [u, v])
        new.append((u - ref) / sd)
        old.append((ref - u_old) / sd)
    assert np.max(np.abs(new)) < 0.3
    assert np.min(old) > 0.8


def test_noise_variance_where_its_mean_is_infinite_keeps_the_plug_in_finite():
    """One within-class degree of freedom and a prior on tau_x vaguer than the default
    (a = alpha_x / 2 + (n - G) / 2 = 0.75 <= 1: E[1 / tau_x | SSW] is infinite): the mode
    search takes tau_x = a / (2 rate) and the predictive stays a finite distribution."""
    rng = np.random.default_rng(0)
    y = np.array([0, 0, 1])
    X = rng.normal(size=(3, 50))
    X[:, 0] += 3.0 * y
    sel = select_features(X, y, k=3)
    pri = GaussianPriors(alpha_x=0.5)
    counts, _, ssw = sufficient_statistics(X[:, sel.indices], y, 2)
    a, rate, tau_x = plugin._noise_precision(pri, counts.astype(float), ssw)
    assert a == 0.75
    np.testing.assert_allclose(tau_x, a / (2 * rate))
    lp = plugin_log_proba(X[:, sel.indices], y, X[:, sel.indices], sel, pri, random_state=0)
    assert np.all(np.isfinite(lp))
    np.testing.assert_allclose(np.exp(lp).sum(1), 1.0)


# -------------------------------------------------------------------- bad input is named
def _plugin_problem():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    X = rng.normal(size=(20, 50))
    X[:, :3] += y[:, None]
    sel = select_features(X, y, k=3)
    return X[:, sel.indices], y, sel


def _nan_first(X):
    X = X.copy()
    X[0, 0] = np.nan
    return X


@pytest.mark.parametrize("change, exc, match", [
    (lambda a: {"X_train_selected": _nan_first(a["X_train_selected"])}, ValueError,
     "X_train_selected contains 1 NaN"),
    (lambda a: {"X_train_selected": a["X_train_selected"][:, :2]}, ValueError,
     "X_train_selected has 2 columns but the selection retained 3"),
    (lambda a: {"y_index": a["y_index"][:-1]}, ValueError,
     "y_index has 19 entries but X has 20 rows"),
    (lambda a: {"y_index": a["y_index"] + 1}, ValueError, "y_index must hold class indices 0..1"),
    (lambda a: {"y_index": np.array(["a", "b"] * 10)}, ValueError,
     "y_index must hold integer class indices"),
    (lambda a: {"y_index": np.zeros(20, dtype=int)}, ValueError, r"y_index lacks class\(es\)"),
    (lambda a: {"selection": None}, TypeError, "selection must be a Selection"),
    (lambda a: {"n_draws": 0}, ValueError, "n_draws"),
    (lambda a: {"n_draws": 1.5}, ValueError, "n_draws"),
    (lambda a: {"n_draws": True}, ValueError, "n_draws"),
    (lambda a: {"random_state": -1}, ValueError, "random_state must be None, an int >= 0"),
    (lambda a: {"random_state": "x"}, TypeError, "random_state"),
    (lambda a: {"corrected": "no"}, TypeError, "corrected must be True or False"),
    (lambda a: {"mode": (1.0,)}, ValueError, "mode must be two numbers"),
    (lambda a: {"mode": (np.nan, 0.0)}, ValueError, "mode must be two numbers"),
    (lambda a: {"mode": (0.0, np.inf)}, ValueError, "mode must be two numbers"),
])
def test_plugin_posterior_names_bad_input(change, exc, match):
    X, y, sel = _plugin_problem()
    args = {"X_train_selected": X, "y_index": y, "selection": sel, "n_draws": 5}
    with pytest.raises(exc, match=match):
        plugin.plugin_posterior(**{**args, **change(args)})


def test_plugin_log_proba_names_the_test_columns():
    X, y, sel = _plugin_problem()
    with pytest.raises(ValueError, match="X_test_selected has 2 columns"):
        plugin_log_proba(X, y, X[:, :2], sel, n_draws=5)


@pytest.mark.parametrize("call, exc, match", [
    (lambda lp, pr: temper_log_proba(lp, pr, 0.0), ValueError, "temperature"),
    (lambda lp, pr: temper_log_proba(lp, pr, np.nan), ValueError, "temperature"),
    (lambda lp, pr: temper_log_proba(lp, pr, True), TypeError, "temperature"),
    (lambda lp, pr: temper_log_proba(lp, pr, "2"), TypeError, "temperature"),
    (lambda lp, pr: temper_log_proba(lp, np.log([0.3, 0.3, 0.4]), 2.0), ValueError,
     "class_log_prior_ must have shape"),
    (lambda lp, pr: plugin.label_noise_log_proba(lp, pr, -0.1), ValueError, "eps"),
    (lambda lp, pr: plugin.label_noise_log_proba(lp, pr, 1.0), ValueError, "eps"),
    (lambda lp, pr: plugin.label_noise_log_proba(lp, pr, True), TypeError, "eps"),
    (lambda lp, pr: plugin.label_noise_log_proba(lp, pr, "0.1"), TypeError, "eps"),
    (lambda lp, pr: plugin.label_noise_log_proba(lp[0], pr, 0.1), ValueError,
     r"log_proba must have shape \(m, G\)"),
    (lambda lp, pr: plugin.default_label_noise(-1), ValueError, "n must be"),
    (lambda lp, pr: plugin.default_label_noise(1.5), ValueError, "n must be"),
    (lambda lp, pr: plugin.default_label_noise(True), ValueError, "n must be"),
])
def test_predictive_adjustments_name_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call(np.log([[0.9, 0.1]]), np.log([0.5, 0.5]))


@pytest.mark.parametrize("change, exc, match", [
    (lambda X, y, G: (np.full_like(X, np.nan), y, G), ValueError, "X_selected contains"),
    (lambda X, y, G: (X, y[:-1], G), ValueError, "y_index has 19 entries"),
    (lambda X, y, G: (X, y + 5, G), ValueError, "y_index must hold class indices 0..1"),
    (lambda X, y, G: (X, y - 1, G), ValueError, "y_index must hold class indices 0..1"),
    (lambda X, y, G: (X, y, 1), ValueError, "n_classes must be an integer >= 2"),
    (lambda X, y, G: (X, y, "2"), ValueError, "n_classes"),
])
def test_correlation_temperature_names_bad_input(change, exc, match):
    X, y, _ = _plugin_problem()
    with pytest.raises(exc, match=match):
        correlation_temperature(*change(X, y, 2))


# ------------------------------------------------------------- inputs it used to take silently
def _simulated(scale=1.0):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 200))
    y = np.repeat([0, 1], 20)
    X[:, :5] += y[:, None]
    sel = select_features(X, y, k=5)
    return X * scale, y, sel


def test_a_selection_of_another_statistic_or_other_cases_is_refused():
    """An |COR| selection's threshold was read as an F threshold, and a selection made on 14
    of the 20 cases gave the factor of a design the data never had, both without a word
    (model_data refused the first; neither refused the second)."""
    from selbayes.models import model_data

    X, y, sel = _simulated()
    Xs = X[:, sel.indices]
    binary = (X > 0).astype(float)
    by_corr = select_features(binary, y, k=5, statistic="abs_corr")
    with pytest.raises(ValueError, match="F-statistic selection; got statistic 'abs_corr'"):
        plugin.plugin_log_proba(binary[:, by_corr.indices], y, binary[:2, by_corr.indices],
                                by_corr)
    part = select_features(X[:30], y[:30], k=5)
    for call in (lambda: plugin.plugin_log_proba(X[:, part.indices], y, Xs[:2], part),
                 lambda: model_data(X[:, part.indices], y, part)):
        with pytest.raises(ValueError, match=r"made on \[20, 10\] cases per class, the "
                                             r"training data have \[20, 20\]"):
            call()


@pytest.mark.parametrize("scale, warns", [(0.3, True), (1.0, False), (3.0, True)])
def test_features_far_from_the_priors_scale_are_warned_of(scale, warns):
    """The priors put the noise variance near w_x = 1: features in units 3 times larger gave
    corrected probabilities of 0.51 to 0.53 (0.77 to 0.94 at unit scale), silently."""
    import warnings

    X, y, sel = _simulated(scale)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        plugin.plugin_log_proba(X[:, sel.indices], y, X[:3, sel.indices], sel)
    assert any("not scale-free" in str(w.message) for w in seen) == warns


@pytest.mark.parametrize("log_proba, prior, match", [
    ([[0.9, 0.1]], np.log([0.5, 0.5]), r"row 0 sums to 3\.56"),
    (np.log([[0.9, 0.1]]), [0.5, 0.5], "class_log_prior_ must hold log probabilities"),
    (np.log([[0.5, 0.2]]), np.log([0.5, 0.5]), r"row 0 sums to 0\.7"),
    ([[np.nan, 0.0]], np.log([0.5, 0.5]), "holds NaN"),
])
def test_adjustments_take_normalised_log_probabilities_only(log_proba, prior, match):
    """Probabilities given for their logs, or rows not summing to 1, came back unchanged at
    T = 1 or eps = 0 and unnormalised otherwise."""
    for call in (lambda: plugin.temper_log_proba(log_proba, prior, 1.0),
                 lambda: plugin.label_noise_log_proba(log_proba, prior, 0.1)):
        with pytest.raises(ValueError, match=match):
            call()
