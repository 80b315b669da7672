"""Gaussian-model BEE and conditional MSE of linear classifiers (spec section 3).

References: brute-force Monte Carlo over the exact conjugate posterior (scipy samplers), importance
sampling from the prior (tests the hyperparameter update), simulation from the prior (unbiasedness
and MSE calibration), quadrature and scipy distributions for the special functions.
"""

import numpy as np
import pytest
from scipy import integrate, special, stats

from selbayes.error_estimation import (
    GaussianPrior,
    ImproperPosteriorError,
    gaussian_bee,
    gaussian_bee_result,
    gaussian_conditional_mse,
    gaussian_posterior,
    linear_class_moments,
    posterior_from_statistics,
)
from selbayes.error_estimation._special import owen_r

K = 200_000


def _sigma_draws(post, rng, k=K):
    """Covariance draws from the exact posterior of one class, shape (k, D, D)."""
    D = post.dim
    if post.cov_model == "fixed":
        return np.broadcast_to(post.Sigma, (k, D, D))
    if post.cov_model == "scaled_identity":
        alpha = (float(post.kappa) + D + 1) * D / 2 - 1
        s2 = stats.invgamma(alpha, scale=np.trace(post.S) / 2).rvs(k, random_state=rng)
        return s2[:, None, None] * np.eye(D)
    return stats.invwishart(df=float(post.kappa), scale=post.S).rvs(k, random_state=rng) \
        .reshape(k, D, D)


def _true_class_error(w, b, cls, mu, Sigma):
    """Exact error of 1[w.x + b > 0] on N(mu, Sigma), spec eq 4.7."""
    q = np.einsum("i,...ij,j->...", w, Sigma, w)
    return special.ndtr((-1) ** cls * (mu @ w + b) / np.sqrt(q))


def _close(value, draws, what, weights=None):
    if weights is None:
        se = draws.std() / np.sqrt(draws.size)
        mean = draws.mean()
    else:
        wn = weights / weights.sum()
        mean = np.sum(wn * draws)
        se = np.sqrt(np.sum(wn**2 * (draws - mean) ** 2))
    assert abs(value - mean) <= 4 * se + 1e-12, (what, value, mean, se)


def _problem(D, rng, n0=7, n1=9):
    X = np.vstack([rng.normal(0.0, 1.0, (n0, D)), rng.normal(0.9, 1.3, (n1, D))])
    y = np.repeat([0, 1], [n0, n1])
    return X, y


def _prior(model, D):
    Sigma = 0.8 * np.eye(D) + 0.2
    return GaussianPrior(model, nu=2.0, m=0.3, kappa=D + 1.5, S=0.7 * np.eye(D), Sigma=Sigma)


@pytest.mark.parametrize("model", ["fixed", "scaled_identity", "general"])
@pytest.mark.parametrize("D", [1, 2, 4])
@pytest.mark.parametrize("good", [True, False])
def test_closed_forms_match_posterior_monte_carlo(model, D, good):
    rng = np.random.default_rng(100 * D + len(model) + good)
    X, y = _problem(D, rng)
    prior = _prior(model, D)
    # a sensible LDA-like direction (A < 0 for both classes) or its negation (A > 0)
    w = X[y == 1].mean(0) - X[y == 0].mean(0) + 0.2 * rng.normal(size=D)
    b = -w @ (X[y == 1].mean(0) + X[y == 0].mean(0)) / 2
    if not good:
        w, b = -w, -b
    r = gaussian_bee_result(w, b, X, y, prior=prior, class_prob=(2.0, 3.0))
    errs = []
    for cls in (0, 1):
        post = gaussian_posterior(X[y == cls], prior)
        Sig = _sigma_draws(post, rng)
        L = np.linalg.cholesky(Sig / float(post.nu))
        mu = post.m + np.einsum("kij,kj->ki", L, rng.normal(size=(K, D)))
        e = _true_class_error(w, b, cls, mu, Sig)
        _close(r.class_errors[cls], e, f"eps{cls}")
        _close(r.class_second_moments[cls], e**2, f"M{cls}")
        errs.append(e)
    c = rng.beta(2.0 + 7, 3.0 + 9, size=K)
    eps = c * errs[0] + (1 - c) * errs[1]
    _close(r.estimate, eps, "BEE")
    _close(r.mse, (eps - eps.mean()) ** 2, "MSE")
    assert (r.class_errors[0] < 0.5) == good   # both signs of A are covered


def _prior_draws(prior, D, rng, k):
    nu, m, kappa, S, Sigma = prior.resolved(D)
    if prior.cov_model == "fixed":
        Sig = np.broadcast_to(Sigma, (k, D, D))
    elif prior.cov_model == "scaled_identity":
        s2 = stats.invgamma((kappa + D + 1) * D / 2 - 1, scale=np.trace(S) / 2).rvs(
            k, random_state=rng)
        Sig = s2[:, None, None] * np.eye(D)
    else:
        Sig = stats.invwishart(df=kappa, scale=S).rvs(k, random_state=rng).reshape(k, D, D)
    mu = m + np.einsum("kij,kj->ki", np.linalg.cholesky(Sig / nu), rng.normal(size=(k, D)))
    return mu, Sig


@pytest.mark.parametrize("model", ["fixed", "scaled_identity", "general"])
def test_posterior_update_by_importance_sampling(model):
    """Prior draws weighted by the likelihood reproduce the moments at (kappa*, nu*, m*, S*)."""
    rng = np.random.default_rng(len(model))
    D = 2
    prior = GaussianPrior(model, nu=1.5, m=[0.2, -0.1], kappa=D + 3.0,
                          S=np.array([[1.0, 0.3], [0.3, 0.8]]), Sigma=np.eye(D) * 0.9)
    Xc = rng.normal([0.4, -0.6], 0.8, size=(6, D))
    w, b = np.array([1.0, -0.5]), 0.1
    mu, Sig = _prior_draws(prior, D, rng, 400_000)
    L = np.linalg.cholesky(Sig)
    z = np.linalg.solve(L[:, None], (Xc[None] - mu[:, None])[..., None])[..., 0]
    loglik = -0.5 * np.sum(z**2, axis=(1, 2)) - 6 * np.log(np.diagonal(L, 0, 1, 2)).sum(1)
    wts = np.exp(loglik - loglik.max())
    post = gaussian_posterior(Xc, prior)
    for cls in (0, 1):
        mean, second = linear_class_moments(w, b, cls, post)
        e = _true_class_error(w, b, cls, mu, Sig)
        _close(mean, e, f"IS eps{cls}", wts)
        _close(second, e**2, f"IS M{cls}", wts)


def _table2_priors(level, D):
    """Dalton's Table 2 priors (spec 7.2): kappa, nu0, nu1 per unit D and the class-1 mean."""
    k, a, b, m1 = {"low": (3, 6, 3, -0.1719), "mid": (9, 18, 9, -0.2281),
                   "high": (54, 108, 54, -0.2406)}[level]
    S = 0.03 * (k * D - D - 1) * np.eye(D)
    return [GaussianPrior("general", nu=a * D, m=0.0, kappa=k * D, S=S),
            GaussianPrior("general", nu=b * D, m=m1, kappa=k * D, S=S)]


def _simulate_lda(priors, D, n, T, rng):
    """theta from the prior, a non-stratified sample (c = 0.5), LDA (spec 3.2); returns the
    exact true error, the BEE and its conditional MSE (c known = 0.5), each shape (T,)."""
    n0 = rng.binomial(n, 0.5, size=T)
    stats_, thetas = [], []
    for cls, p in enumerate(priors):
        mu, Sig = _prior_draws(p, D, rng, T)
        L = np.linalg.cholesky(Sig)
        Xc = mu[:, None] + np.einsum("tij,tkj->tki", L, rng.normal(size=(T, n, D)))
        mask = (np.arange(n)[None] < (n0 if cls == 0 else n - n0)[:, None]).astype(float)
        cnt = mask.sum(1)
        xbar = np.einsum("tk,tki->ti", mask, Xc) / cnt[:, None]
        R = (Xc - xbar[:, None]) * mask[..., None]
        stats_.append((cnt, xbar, np.einsum("tki,tkj->tij", R, R)))
        thetas.append((mu, Sig))
    (c0, m0, S0), (c1, m1, S1) = stats_
    w = np.linalg.solve((S0 + S1) / (n - 2), (m1 - m0)[..., None])[..., 0]
    b = -0.5 * np.einsum("ti,ti->t", w, m1 + m0) + np.log(c1 / c0)
    eps, mom = 0.0, []
    for cls, p in enumerate(priors):
        mu, Sig = thetas[cls]
        q = np.einsum("ti,tij,tj->t", w, Sig, w)
        eps = eps + 0.5 * special.ndtr((-1) ** cls * (np.einsum("ti,ti->t", w, mu) + b)
                                       / np.sqrt(q))
        mom.append(linear_class_moments(w, b, cls, posterior_from_statistics(*stats_[cls], p)))
    (e0, M0), (e1, M1) = mom
    return eps, 0.5 * (e0 + e1), 0.25 * (M0 - e0**2) + 0.25 * (M1 - e1**2)


def test_unbiased_and_mse_calibrated_over_prior_and_sampling():
    """Fast version of Table 3 (low-info prior, D = 2, n = 30): theta from the prior, a sample,
    LDA; mean(BEE - eps) = 0 and mean((eps - BEE)^2 - MSE) = 0 within 4 standard errors.
    Data come from the prior, so this checks the posterior update independently."""
    T = 4000
    eps, bee, mse = _simulate_lda(_table2_priors("low", 2), 2, 30, T, np.random.default_rng(2024))
    d = eps - bee
    assert abs(d.mean()) <= 4 * d.std() / np.sqrt(T)
    zz = d**2 - mse
    assert abs(zz.mean()) <= 4 * zz.std() / np.sqrt(T)


@pytest.mark.slow
@pytest.mark.parametrize("level, D, paper", [
    ("low", 1, (0.2473811329, 0.0377405474, 0.0377457558)),
    ("mid", 2, (0.1728722842, 0.0294667188, 0.0294413566)),
    ("high", 5, (0.0713487938, 0.0075466705, 0.0075414393)),
])
def test_table3_rows_match_paper(level, D, paper):
    """Dalton Table 3 (n = 60, T = 20,000, t = 1): E[true err], semi-analytical RMS and
    empirical RMS within 4 standard errors (ours, plus the paper's 10^4-distribution bound)."""
    T = 20_000
    eps, bee, mse = _simulate_lda(_table2_priors(level, D), D, 60, T,
                                  np.random.default_rng(D + len(level)))
    infl = np.sqrt(1 + T / 10_000)   # paper's own MC error: at most sqrt(T / 10^4) x ours
    se_e = eps.std() / np.sqrt(T)
    assert abs(eps.mean() - paper[0]) <= 4 * infl * se_e
    for sq, ref in ((mse, paper[1]), ((eps - bee) ** 2, paper[2])):
        rms = np.sqrt(sq.mean())
        se = sq.std() / np.sqrt(T) / (2 * rms)
        assert abs(rms - ref) <= 4 * infl * se, (rms, ref, se)


def test_batched_path_equals_single_sample_api():
    rng = np.random.default_rng(4)
    X, y = _problem(3, rng, 10, 12)
    prior = _prior("general", 3)
    W = rng.normal(size=(5, 3))
    B = rng.normal(size=5)
    r = gaussian_bee_result(W, B, X, y, prior=prior)
    assert r.estimate.shape == (5,)
    for k in range(5):
        rk = gaussian_bee_result(W[k], B[k], X, y, prior=prior)
        assert r.estimate[k] == pytest.approx(rk.estimate, rel=1e-13)
        assert r.mse[k] == pytest.approx(rk.mse, rel=1e-11)


def test_special_function_r_against_quadrature_and_closed_value():
    rng = np.random.default_rng(9)
    x = rng.uniform(0.5, 1.0, 60)
    y = 10 ** rng.uniform(-12, 3, 60)
    a = 10 ** rng.uniform(-1.3, 4, 60)
    got = owen_r(x, y, a)
    for xi, yi, ai, gi in zip(x, y, a, got, strict=True):
        up = np.arcsin(np.sqrt(xi))
        pts = [c * np.sqrt((ai + 1) * yi) for c in (1 / 3, 1, 3, 10, 30, 100)]
        pts = [p for p in pts if p < up] or None
        ref = integrate.quad(lambda t, yi=yi, ai=ai: np.exp(-ai * np.log1p(yi / np.sin(t) ** 2)),
                             0, up, points=pts, limit=400, epsabs=1e-14, epsrel=1e-12)[0] / np.pi
        assert gi == pytest.approx(ref, abs=1e-8)
    assert owen_r(0.75, 0.0, 3.0) == pytest.approx(np.arcsin(np.sqrt(0.75)) / np.pi, abs=1e-14)


def test_second_moment_identities():
    """Fixed covariance: M = Phi_2(d, d; 1/(nu* + 1)). Random covariance: M = bivariate-t CDF."""
    # Fixed covariance, nu* = 3 (three points, flat mean prior): w . mu ~ N(g, q / nu*) with
    # g = w . m* + b and q = w' Sigma w, so eps^0 = Phi((g + sqrt(q / nu*) Z) / sqrt(q)) and
    # E[eps^2] = P(X1 - cZ <= g/sqrt(q), X2 - cZ <= g/sqrt(q)), c^2 = 1/nu*: Phi_2(d, d; rho)
    # with d = g/sqrt(q) sqrt(nu*/(nu*+1)) and rho = 1/(nu*+1). m* is placed so that the
    # standardised argument of class cls equals d (class 1 errs where w . x + b <= 0: -g).
    nu = 3.0
    Sigma = np.array([[1.5, 0.4], [0.4, 0.8]])
    w, b = np.array([0.7, -1.2]), 0.3
    q = w @ Sigma @ w
    z, gh = np.polynomial.hermite_e.hermegauss(80)
    gh = gh / np.sqrt(2 * np.pi)
    for d in (-1.3, 0.4):
        rho = 1 / (nu + 1)
        ref = stats.multivariate_normal([0, 0], [[1, rho], [rho, 1]]).cdf([d, d])
        for cls, sign in ((0, 1.0), (1, -1.0)):
            g = sign * d * np.sqrt(q) * np.sqrt((nu + 1) / nu)
            m_star = (g - b) * w / (w @ w)                      # w . m* + b = g
            post = posterior_from_statistics(3, m_star, np.zeros((2, 2)),
                                             GaussianPrior.known_covariance(Sigma))
            assert float(post.nu) == nu
            mean, second = linear_class_moments(w, b, cls, post)
            # Deterministic on both sides. scipy's 2-D normal CDF: abs 1e-7 is a margin over
            # its accuracy (it matches the quadrature below to 1e-16 in scipy 1.x).
            assert second == pytest.approx(ref, abs=1e-7)
            # Second reference, E[eps^2] by 80-node Gauss-Hermite over Z: the integrand is
            # smooth (Phi^2 of a line), so the rule is exact to rounding; 1e-12 is ~1e4 ulps.
            eps = special.ndtr(sign * (g + np.sqrt(q / nu) * z) / np.sqrt(q))
            assert second == pytest.approx(gh @ eps**2, abs=1e-12)
            assert mean == pytest.approx(special.ndtr(d), abs=1e-12)   # E[eps] = Phi(d)
    # general model, one class: compare with scipy's (randomised) bivariate t CDF
    rng = np.random.default_rng(1)
    Xc = rng.normal(size=(6, 2))
    post = gaussian_posterior(Xc, GaussianPrior("general", nu=2.0, m=0.0, kappa=4.0, S=1.0))
    w, b = np.array([0.6, 0.8]), 1.1
    mean, second = linear_class_moments(w, b, 0, post)
    alpha = (float(post.kappa) - 2 + 1) / 2
    two_beta = w @ post.S @ w
    A = (w @ post.m + b) * np.sqrt(float(post.nu) / (float(post.nu) + 1))
    tau = A * np.sqrt(2 * alpha / two_beta)
    rho = 1 / (float(post.nu) + 1)
    ref = stats.multivariate_t([0, 0], [[1, rho], [rho, 1]], df=2 * alpha).cdf(
        [tau, tau], random_state=0)
    assert second == pytest.approx(ref, abs=2e-4)
    assert mean == pytest.approx(stats.t(2 * alpha).cdf(tau), rel=1e-12)


def test_known_special_cases():
    rng = np.random.default_rng(21)
    X, y = _problem(1, rng, 8, 8)
    # D = 1: scaled identity = general
    pg = GaussianPrior("general", nu=1.0, m=0.1, kappa=2.5, S=0.5)
    ps = GaussianPrior("scaled_identity", nu=1.0, m=0.1, kappa=2.5, S=0.5)
    rg = gaussian_bee_result([1.3], -0.4, X, y, prior=pg)
    rs = gaussian_bee_result([1.3], -0.4, X, y, prior=ps)
    assert rg.estimate == pytest.approx(rs.estimate, rel=1e-12)
    assert rg.mse == pytest.approx(rs.mse, rel=1e-9)
    X, y = _problem(3, rng, 9, 11)
    w, b = rng.normal(size=3), 0.3
    for model in ("fixed", "scaled_identity", "general"):
        p = _prior(model, 3)
        r = gaussian_bee_result(w, b, X, y, prior=p, class_prob=(1.0, 1.0))
        # positive rescaling of (w, b) changes nothing
        r2 = gaussian_bee_result(7.5 * w, 7.5 * b, X, y, prior=p, class_prob=(1.0, 1.0))
        assert r2.estimate == pytest.approx(r.estimate, rel=1e-12)
        assert r2.mse == pytest.approx(r.mse, rel=1e-9)
        # swapping labels, negating the rule and c -> 1 - c gives the same error
        rsw = gaussian_bee_result(-w, -b, X, 1 - y, prior=p, class_prob=(1.0, 1.0))
        assert rsw.estimate == pytest.approx(r.estimate, rel=1e-10)
        assert rsw.mse == pytest.approx(r.mse, rel=1e-8)
        # constant classifier: MSE = Var(c)
        rc = gaussian_bee_result(np.zeros(3), 1.0, X, y, prior=p, class_prob=(2.0, 1.0))
        assert rc.estimate == pytest.approx(rc.class_prob.mean)
        assert rc.mse == pytest.approx(rc.class_prob.var, rel=1e-12)
        # known c: MSE = c^2 Var0 + (1 - c)^2 Var1
        rk = gaussian_bee_result(w, b, X, y, prior=p, class_prob=0.3)
        v = [m - e**2 for e, m in zip(rk.class_errors, rk.class_second_moments, strict=True)]
        assert rk.mse == pytest.approx(0.09 * v[0] + 0.49 * v[1], rel=1e-12)
        # (5.8)
        assert r.mse_of(0.2) == pytest.approx(r.mse + (r.estimate - 0.2) ** 2)
    # A = 0: BEE = 1/2 and M = arctan(sqrt((nu* + 2)/nu*))/pi
    Xc = rng.normal(size=(5, 2))
    for model in ("fixed", "scaled_identity", "general"):
        post = gaussian_posterior(Xc, _prior(model, 2))
        w = np.array([1.0, 2.0])
        mean, second = linear_class_moments(w, -w @ post.m, 1, post)
        nu = float(post.nu)
        assert mean == pytest.approx(0.5, abs=1e-12)
        assert second == pytest.approx(np.arctan(np.sqrt((nu + 2) / nu)) / np.pi, abs=1e-9)


def test_fixed_covariance_limits_to_plugin_and_t_form_limits_to_normal():
    rng = np.random.default_rng(8)
    Xc = rng.normal(size=(4, 2))
    w, b = np.array([1.0, -1.0]), 0.7
    Sigma = np.array([[1.0, 0.2], [0.2, 0.5]])
    # nu* -> infinity: BEE -> plug-in Phi(g(m*) / sqrt(w' Sigma w))
    post = gaussian_posterior(Xc, GaussianPrior.known_covariance(Sigma, nu=1e12, m=[0.3, 0.1]))
    mean, second = linear_class_moments(w, b, 0, post)
    plug = special.ndtr((w @ np.array([0.3, 0.1]) + b) / np.sqrt(w @ Sigma @ w))
    assert mean == pytest.approx(plug, rel=1e-6)
    assert second == pytest.approx(plug**2, rel=1e-5)
    # kappa* -> infinity with S*/kappa* fixed: general -> fixed-covariance form
    k = 1e8
    pg = GaussianPrior("general", nu=2.0, m=0.0, kappa=k, S=k * Sigma)
    pf = GaussianPrior.known_covariance(Sigma, nu=2.0, m=0.0)
    for prior_g, prior_f in ((pg, pf),):
        mg = linear_class_moments(w, b, 1, gaussian_posterior(Xc, prior_g))
        mf = linear_class_moments(w, b, 1, gaussian_posterior(Xc, prior_f))
        np.testing.assert_allclose(mg, mf, rtol=1e-4)


def test_tails_keep_relative_accuracy():
    """The Student-t form keeps digits where (1 - I)/2 loses them all (spec 8.3)."""
    X = np.vstack([np.linspace(-0.1, 0.1, 30)[:, None], np.linspace(9.9, 10.1, 30)[:, None]])
    y = np.repeat([0, 1], 30)
    prior = GaussianPrior("general", nu=1.0, m=0.0, kappa=1.0, S=0.01)
    r = gaussian_bee_result([1.0], -5.0, X, y, prior=prior, class_prob=0.5)
    post = gaussian_posterior(X[y == 0], prior)
    alpha = float(post.kappa) / 2
    A = (float(post.m[0]) - 5.0) * np.sqrt(float(post.nu) / (float(post.nu) + 1))
    two_beta = float(post.S[0, 0])
    ref = 0.5 * special.betainc(alpha, 0.5, two_beta / (A * A + two_beta))
    assert 0 < ref < 1e-12
    assert r.class_errors[0] == pytest.approx(ref, rel=1e-9)
    assert np.isfinite(r.mse) and r.mse >= 0


def test_extreme_inputs():
    rng = np.random.default_rng(3)
    D = 2
    # perfectly separated classes under a flat prior: finite and tiny
    X = np.vstack([rng.normal(0, 0.01, (8, D)), rng.normal(50, 0.01, (8, D))])
    y = np.repeat([0, 1], 8)
    w, b = np.ones(D), -50.0
    r = gaussian_bee_result(w, b, X, y, prior="flat")
    assert np.isfinite(r.estimate) and 0 <= r.estimate < 1e-10
    # heavy (Student-t) tails: E[eps^2] is not negligible against E[eps], but bounded by it
    assert np.isfinite(r.mse) and 0 <= r.mse <= r.estimate
    # flat general prior needs n_y >= 2D + 2; one point fewer is improper
    X5 = np.vstack([rng.normal(size=(5, D)), rng.normal(size=(8, D))])
    y5 = np.repeat([0, 1], [5, 8])
    with pytest.raises(ImproperPosteriorError, match="class 0"):
        gaussian_bee(w, 0.0, X5, y5, prior="flat")
    assert np.isnan(gaussian_bee(w, 0.0, X5, y5, prior="flat", on_invalid="nan"))
    half = gaussian_bee_result(w, 0.0, X5, y5, prior="flat", on_invalid="half")
    assert half.class_errors[0] == 0.5 and np.isnan(half.mse)
    assert np.isfinite(gaussian_bee(w, 0.0, X5, y5, prior="jeffreys"))
    # kappa at its limit: kappa* = D - 1 + tiny is proper; kappa* = D - 1 is not
    p_ok = GaussianPrior("general", nu=1.0, kappa=D - 1 - 5 + 1e-6, S=1.0)
    p_bad = GaussianPrior("general", nu=1.0, kappa=D - 1 - 5, S=1.0)
    ok = gaussian_bee_result(w, 0.0, X5, y5, prior=(p_ok, "flat"))
    assert np.isfinite(ok.estimate) and np.isfinite(ok.mse)
    with pytest.raises(ImproperPosteriorError):
        gaussian_bee(w, 0.0, X5, y5, prior=(p_bad, "flat"))
    # an empty class: posterior = prior, fine when the prior is proper
    Xe = rng.normal(size=(6, D))
    ye = np.ones(6, dtype=int)
    proper = GaussianPrior("general", nu=2.0, m=0.0, kappa=D + 2.0, S=1.0)
    assert np.isfinite(gaussian_conditional_mse(w, 0.0, Xe, ye, prior=(proper, proper)))
    with pytest.raises(ImproperPosteriorError):
        gaussian_bee(w, 0.0, Xe, ye, prior=("flat", proper))
    # scaled identity with identical points and S = 0: trace(S*) = 0
    Xs = np.vstack([np.ones((4, D)), rng.normal(size=(4, D))])
    with pytest.raises(ImproperPosteriorError, match="trace"):
        gaussian_bee(w, 0.0, Xs, np.repeat([0, 1], 4),
                     prior=GaussianPrior.flat(D, cov_model="scaled_identity"))


def test_a_positive_semi_definite_scale_passes_at_any_size_and_a_small_indefinite_one_not():
    """The check's tolerance follows the eigenvalues' rounding (D and the largest eigenvalue):
    a rank-one S of D = 1000 passes (its smallest eigenvalue is -3e-12 in float64), an
    indefinite S of scale 1e-14 is refused (an absolute floor of 1e-12 let it through)."""
    ones = 3.3 * np.ones((1000, 1000))
    GaussianPrior("general", nu=1, kappa=1005, S=ones).resolved(1000)
    with pytest.raises(ValueError, match="prior S must be positive semi-definite"):
        GaussianPrior("general", nu=1, kappa=5, S=1e-14 * np.array([[1.0, 2.0], [2.0, 1.0]])
                      ).resolved(2)


@pytest.mark.parametrize("call, exc, match", [
    (lambda X, y: gaussian_bee([1.0], 0.0, X, y), ValueError, "weights"),
    (lambda X, y: gaussian_bee([1.0, 1.0], 0.0, X, y + 1), ValueError, "0 and 1"),
    (lambda X, y: gaussian_bee([1.0, 1.0], 0.0, X, y[:-1]), ValueError, "y"),
    (lambda X, y: gaussian_bee([1.0, 1.0], 0.0, X, y, prior="laplace"), ValueError, "prior"),
    (lambda X, y: gaussian_bee([1.0, 1.0], 0.0, X, y, prior=3), TypeError, "prior"),
    (lambda X, y: gaussian_bee([1.0, 1.0], 0.0, X, y, on_invalid="x"), ValueError, "on_invalid"),
    (lambda X, y: gaussian_bee([np.nan, 1.0], 0.0, X, y), ValueError, "finite"),
    (lambda X, y: GaussianPrior("diagonal"), ValueError, "cov_model"),
    (lambda X, y: GaussianPrior("fixed"), ValueError, "Sigma"),
    (lambda X, y: GaussianPrior(nu=-1.0), ValueError, "nu"),
    (lambda X, y: gaussian_bee([1.0, 1.0], 0.0, X, y,
                               prior=GaussianPrior.known_covariance([[1, 2], [2, 1]])),
     ValueError, "positive definite"),
    (lambda X, y: gaussian_bee([1.0, 1.0], 0.0, X, y, prior=GaussianPrior(m=[1.0, 2.0, 3.0])),
     ValueError, "prior m"),
    # a prior scale that is no covariance: the data made the posterior proper and the
    # estimate came back as if valid (0.18 and 0.20 here)
    (lambda X, y: gaussian_bee([1.0, 1.0], -1.0, X, y,
                               prior=GaussianPrior("general", nu=1, kappa=5, S=-0.1)),
     ValueError, r"prior S must be positive semi-definite .* smallest eigenvalue is -0\.1"),
    (lambda X, y: gaussian_bee([1.0, 1.0], -1.0, X, y,
                               prior=GaussianPrior("general", nu=1, kappa=5,
                                                   S=[[1.0, 2.0], [2.0, 1.0]])),
     ValueError, "prior S must be positive semi-definite"),
    (lambda X, y: gaussian_bee([1.0, 1.0], -1.0, X, y,
                               prior=GaussianPrior("scaled_identity", nu=1, kappa=5, S=-0.1)),
     ValueError, "prior S must be positive semi-definite"),
])
def test_bad_input_raises(call, exc, match):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.repeat([0, 1], 10)
    with pytest.raises(exc, match=match):
        call(X, y)


# -------------------------------------------------------------------- bad input is named
def _two_classes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(1, 1, (20, 2))])
    return X, np.repeat([0, 1], 20)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"nu": True}, TypeError, "nu must be a number"),
    ({"nu": "1"}, TypeError, "nu must be a number"),
    ({"nu": -1.0}, ValueError, "nu must be >= 0"),
    ({"kappa": True}, TypeError, "kappa must be a number"),
    ({"kappa": "1"}, TypeError, "kappa must be a number"),
    ({"kappa": [1, 2]}, TypeError, "kappa must be a number"),
    ({"kappa": np.nan}, ValueError, "kappa must be finite"),
])
def test_gaussian_prior_names_bad_settings(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        GaussianPrior(**kwargs)


@pytest.mark.parametrize("field", ["m", "S"])
@pytest.mark.parametrize("value", ["a", True])
def test_gaussian_prior_names_non_numeric_arrays(field, value):
    with pytest.raises(TypeError, match=f"prior {field} must be numeric"):
        GaussianPrior(**{field: value}).resolved(2)


@pytest.mark.parametrize("call, exc, match", [
    (lambda X, y: gaussian_posterior(np.where(X == X[0, 0], np.nan, X), GaussianPrior.flat(2)),
     ValueError, "X_y .* contains NaN"),
    (lambda X, y: gaussian_posterior(X[:, 0], GaussianPrior.flat(2)), ValueError,
     "X_y .* must be 2-D"),
    (lambda X, y: gaussian_posterior("abc", GaussianPrior.flat(2)), TypeError,
     "X_y must be numeric"),
    (lambda X, y: gaussian_posterior(X, "flat"), TypeError, "prior must be a GaussianPrior"),
    (lambda X, y: posterior_from_statistics(-3, [0.0, 0.0], np.eye(2), GaussianPrior.flat(2)),
     ValueError, "n must hold class sizes"),
    (lambda X, y: posterior_from_statistics(3, [np.nan, 0.0], np.eye(2), GaussianPrior.flat(2)),
     ValueError, "mean must be a finite array"),
    (lambda X, y: posterior_from_statistics(3, [0.0, 0.0], np.eye(3), GaussianPrior.flat(2)),
     ValueError, r"scatter must be a finite array of shape \(\.\.\., 2, 2\)"),
    (lambda X, y: posterior_from_statistics(3, [0.0, 0.0], np.eye(2), "flat"), TypeError,
     "prior must be a GaussianPrior"),
    (lambda X, y: gaussian_bee([1.0, 1.0], "0", X, y), TypeError, "bias must be numeric"),
    (lambda X, y: gaussian_bee([1.0, 1.0], np.nan, X, y), ValueError, "bias must be finite"),
    (lambda X, y: gaussian_bee(["a", 1.0], 0.0, X, y), TypeError, "weights must be numeric"),
    (lambda X, y: gaussian_bee([np.nan, 1.0], 0.0, X, y), ValueError, "weights must be finite"),
])
def test_gaussian_model_functions_name_bad_input(call, exc, match):
    X, y = _two_classes()
    with pytest.raises(exc, match=match):
        call(X, y)


@pytest.mark.parametrize("cls", [True, 0.0, 1.0, "0", 2])
def test_linear_class_moments_names_cls(cls):
    X, _ = _two_classes()
    post = gaussian_posterior(X[:20], GaussianPrior("general", nu=1.0, kappa=5.0, S=1.0))
    with pytest.raises(ValueError, match="cls must be the int 0 or 1"):
        linear_class_moments([1.0, 1.0], 0.0, cls, post)


def test_linear_class_moments_names_a_posterior_of_another_type():
    with pytest.raises(TypeError, match="posterior must be a GaussianPosterior"):
        linear_class_moments([1.0, 1.0], 0.0, 0, "post")
