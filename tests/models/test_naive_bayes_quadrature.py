"""Tests for selbayes.models._naive_bayes_quadrature (exact predictions by quadrature).

The main reference is an independent, loop-based implementation of eqs 2.34-2.44 on a tiny
problem: every theta integral by scipy's adaptive quad, P_keep by a direct lattice sum with
binomial coefficients, and the alpha integral over the same prior-quantile grid. A second
reference integrates alpha continuously (nested adaptive quadrature over (alpha, theta)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import comb, expit, logsumexp

from selbayes import select_features
from selbayes.filters import binary_correlation
from selbayes.models import NaiveBayesPrior, fit_naive_bayes_quadrature
from selbayes.models._naive_bayes_quadrature import log_marginal_and_theta_mean, prior_alpha_grid

# ---------------------------------------------------------------------------------------------
# Independent reference
# ---------------------------------------------------------------------------------------------


def _u(a, b, ones, zeros):
    """U(a, b, ones, zeros) by the product form (2.30), exact for any a, b >= 0."""
    out = 1.0
    for ell in range(ones):
        out *= (a + ell) / (a + b + ell)
    for ell in range(zeros):
        out *= (b + ell) / (a + b + ones + ell)
    return out


def _quad(f):
    return integrate.quad(f, 0.0, 1.0, epsabs=0.0, epsrel=1e-13, limit=200)[0]


def _ref_A(alpha, I, N, ystar, xstar):
    """int Bern(x*; (alpha theta + I_{y*}) / (alpha + N_{y*})) prod_y U dtheta (eq 2.40)."""
    (I0, I1), (n0, n1) = I, N

    def f(t):
        a, b = alpha * t, alpha * (1 - t)
        phi = (a + (I0, I1)[ystar]) / (alpha + (n0, n1)[ystar])
        bern = phi if xstar == 1 else 1 - phi
        return bern * _u(a, b, I0, n0 - I0) * _u(a, b, I1, n1 - I1)

    return _quad(f)


def _ref_pkeep(alpha, n0, n1, gamma):
    """1 - sum over lattice points with |Cor| > gamma (both signs, no symmetry used)."""
    total = 0.0
    for I0 in range(n0 + 1):
        for I1 in range(n1 + 1):
            if abs(binary_correlation(I0, I1, n0, n1)) > gamma * (1 + 1e-12):
                def f(t, I0=I0, I1=I1):
                    a, b = alpha * t, alpha * (1 - t)
                    return _u(a, b, I0, n0 - I0) * _u(a, b, I1, n1 - I1)
                total += comb(n0, I0) * comb(n1, I1) * _quad(f)
    return 1.0 - total


def reference_predictions(X, y, X_test, alpha_grid, n_omitted, gamma, corrected,
                          f0=1.0, f1=1.0):
    n0, n1 = int((y == 0).sum()), int((y == 1).sum())
    counts = [(int(X[y == 0, j].sum()), int(X[y == 1, j].sum())) for j in range(X.shape[1])]
    psi = (f1 + n1) / (f0 + f1 + n0 + n1)
    log_psi = (math.log(1 - psi), math.log(psi))
    ell = np.zeros((X_test.shape[0], 2, alpha_grid.size))
    log_w = np.zeros(alpha_grid.size)
    for m, alpha in enumerate(alpha_grid):
        adj = n_omitted * math.log(_ref_pkeep(alpha, n0, n1, gamma)) if corrected else 0.0
        A = {(j, ys, xs): _ref_A(alpha, counts[j], (n0, n1), ys, xs)
             for j in range(X.shape[1]) for ys in (0, 1) for xs in (0, 1)}
        log_w[m] = adj + sum(math.log(A[j, 0, 0] + A[j, 0, 1]) for j in range(X.shape[1]))
        for t, x in enumerate(X_test):
            for ys in (0, 1):
                ell[t, ys, m] = log_psi[ys] + adj + sum(
                    math.log(A[j, ys, int(x[j])]) for j in range(X.shape[1]))
    lse = logsumexp(ell, axis=2)
    return expit(lse[:, 1] - lse[:, 0]), np.exp(log_w - logsumexp(log_w))


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(11)
    y = np.r_[np.zeros(4), np.ones(5)].astype(int)
    X = rng.integers(0, 2, size=(9, 2)).astype(float)
    X[:, 0] = y                       # one strongly related feature
    X[0, 0] = 1
    X_test = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    gamma = float(abs(binary_correlation(1, 3, 4, 5)))     # a lattice value: ties at gamma
    return X, y, X_test, gamma


@pytest.mark.parametrize("corrected", [True, False])
@pytest.mark.parametrize("quadrature", ["accurate", "transform201"])
def test_matches_independent_reference(tiny, corrected, quadrature):
    X, y, X_test, gamma = tiny
    K, n_omitted = 8, 25
    kwargs = {"n_alpha": K}
    if quadrature == "transform201":
        kwargs |= {"theta_rule": "transform", "n_theta": 201}
    fit = fit_naive_bayes_quadrature(X, y, (n_omitted, gamma), corrected=corrected, **kwargs)
    alpha = stats.invgamma(0.5, scale=5.0).ppf((np.arange(K) + 0.5) / K)
    np.testing.assert_allclose(fit.alpha_grid, alpha, rtol=1e-12)
    want_p, want_w = reference_predictions(X, y, X_test, alpha, n_omitted, gamma, corrected)
    tol = 1e-9 if quadrature == "accurate" else 1e-6       # Simpson: algebraic convergence
    np.testing.assert_allclose(fit.predict_proba(X_test), want_p, rtol=0, atol=tol)
    np.testing.assert_allclose(fit.alpha_posterior, want_w, rtol=0, atol=tol)


def test_continuous_alpha_reference():
    """K-point midpoint rule vs nested adaptive quadrature over (alpha, theta), k = 1."""
    n0, n1, I = 6, 6, (1, 5)
    X = np.zeros((12, 1))
    X[:I[0], 0] = 1
    X[n0:n0 + I[1], 0] = 1
    y = np.r_[np.zeros(n0), np.ones(n1)].astype(int)
    prior = stats.invgamma(0.5, scale=5.0)

    def integrand(log_alpha, ys, xs):
        alpha = math.exp(log_alpha)
        return alpha * prior.pdf(alpha) * _ref_A(alpha, I, (n0, n1), ys, xs)

    psi = (1 + n1) / (2 + n0 + n1)
    top = 25.0          # beyond e^25 the integrand is A(inf) p(alpha) to O(n / alpha)
    want = []
    for xs in (0, 1):
        num = [integrate.quad(integrand, -25, top, args=(ys, xs), epsabs=0, epsrel=1e-10,
                              limit=400, points=[0, 5, 10])[0]
               + prior.sf(math.exp(top)) * _ref_A(math.exp(top), I, (n0, n1), ys, xs)
               for ys in (0, 1)]
        want.append(psi * num[1] / (psi * num[1] + (1 - psi) * num[0]))
    got = fit_naive_bayes_quadrature(X, y, corrected=False, n_alpha=2000).predict_proba(
        [[0.0], [1.0]])
    # The midpoint rule on the prior-CDF scale converges only like O(1/K) here (the integrand
    # is not smooth at u = 0, 1): successive differences for K = 250..4000 halve, 1.3e-5 to
    # 1.5e-6, so the error at K = 2000 is ~2e-6.
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-5)


# ---------------------------------------------------------------------------------------------
# Properties on simulated data
# ---------------------------------------------------------------------------------------------


def _simulate(rng, alpha, p, n_per_class, n_test_per_class):
    theta = rng.random(p)
    phi = rng.beta(alpha * theta, alpha * (1 - theta), size=(2, p))
    def draw(m):
        y = np.repeat([0, 1], m)
        return (rng.random((2 * m, p)) < phi[y]).astype(float), y
    return draw(n_per_class), draw(n_test_per_class)


@pytest.fixture(scope="module")
def selected_problem():
    rng = np.random.default_rng(2007)
    (X, y), (Xt, yt) = _simulate(rng, 300.0, 1000, 20, 150)
    sel = select_features(X, y, k=5, statistic="abs_corr")
    fits = {c: fit_naive_bayes_quadrature(sel.transform(X), y, sel, corrected=c)
            for c in (True, False)}
    return sel, fits, sel.transform(Xt), yt


def test_corrected_less_extreme_and_alpha_larger(selected_problem):
    sel, fits, Xt, yt = selected_problem
    pc, pu = fits[True].predict_proba(Xt), fits[False].predict_proba(Xt)
    for p in (pc, pu):
        assert np.all((p >= 0) & (p <= 1))
    assert np.mean(np.abs(pc - 0.5)) < np.mean(np.abs(pu - 0.5))
    # Same side of 1/2 in most cases, corrected closer to 1/2 case by case.
    assert np.mean(np.abs(pc - 0.5) <= np.abs(pu - 0.5) + 1e-12) > 0.95
    mean_log_alpha = {c: fits[c].alpha_posterior @ np.log(fits[c].alpha_grid) for c in fits}
    assert mean_log_alpha[True] > mean_log_alpha[False] + 1.0
    # The selected features look predictive, so the uncorrected fit is overconfident: its
    # minus average log probability on test data is worse.
    def amlp(p):
        return -np.mean(yt * np.log(p) + (1 - yt) * np.log1p(-p))
    assert amlp(pc) < amlp(pu)


def test_log_proba_logit_and_density(selected_problem):
    _, fits, Xt, _ = selected_problem
    fit = fits[True]
    lp = fit.predict_log_proba(Xt)
    np.testing.assert_allclose(logsumexp(lp, axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.exp(lp[:, 1]), fit.predict_proba(Xt), rtol=1e-12)
    np.testing.assert_allclose(fit.predict_logit(Xt), lp[:, 1] - lp[:, 0], atol=1e-10)
    assert fit.alpha_posterior.sum() == pytest.approx(1.0, abs=1e-12)
    # Fig 2.7 density of log alpha integrates to ~1 over the (fine, K = 200) grid.
    la = np.log(fit.alpha_grid)
    assert np.trapezoid(fit.log_alpha_density, la) == pytest.approx(1.0, abs=0.02)
    assert fit.n_features == 5 and "corrected=True" in repr(fit)


def test_selection_object_equals_tuple(selected_problem):
    sel, fits, Xt, _ = selected_problem
    rng = np.random.default_rng(2007)
    (X, y), _ = _simulate(rng, 300.0, 1000, 20, 150)
    X_sel = sel.transform(X)
    tup = fit_naive_bayes_quadrature(X_sel, y, (sel.n_omitted, sel.threshold))
    np.testing.assert_array_equal(tup.predict_proba(Xt), fits[True].predict_proba(Xt))
    assert fits[True].n_omitted == 995 and fits[True].threshold == sel.threshold


def test_accurate_rules_converged_and_agree():
    """Gauss default vs a 4x finer Gauss rule vs the transform rule with many points."""
    rng = np.random.default_rng(5)
    (X, y), (Xt, _) = _simulate(rng, 300.0, 400, 100, 50)
    sel = select_features(X, y, k=40, statistic="abs_corr")
    Xs, Xts = sel.transform(X), sel.transform(Xt)
    base = fit_naive_bayes_quadrature(Xs, y, sel, n_alpha=60)
    fine = fit_naive_bayes_quadrature(Xs, y, sel, n_alpha=60, n_theta=4 * base.settings[
        "n_theta"], adjustment_n_theta=4 * base.settings["adjustment_n_theta"])
    trans = fit_naive_bayes_quadrature(Xs, y, sel, n_alpha=60, theta_rule="transform",
                                       n_theta=401)
    np.testing.assert_allclose(base.log_likelihood, fine.log_likelihood, atol=1e-8)
    np.testing.assert_allclose(base.predict_proba(Xts), fine.predict_proba(Xts), atol=1e-10)
    np.testing.assert_allclose(base.log_likelihood, trans.log_likelihood, atol=1e-4)
    np.testing.assert_allclose(base.predict_proba(Xts), trans.predict_proba(Xts), atol=1e-6)


def test_thesis_preset():
    grid30 = [1.74, 2.60, 3.33, 4.06, 4.83, 5.65, 6.55, 7.56, 8.69, 9.97, 11.45, 13.16, 15.16,
              17.52, 20.35, 23.78, 27.99, 33.24, 39.91, 48.57, 60.10, 75.92, 98.49, 132.25,
              186.06, 279.60, 464.38, 913.40, 2543.14, 22914.98]     # spec 3.3
    np.testing.assert_allclose(prior_alpha_grid(30), grid30, atol=0.006)
    X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [1, 1], [0, 1]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1])
    fit = fit_naive_bayes_quadrature(X, y, (50, 0.3), quadrature="thesis")
    assert fit.settings == {"quadrature": "thesis", "n_alpha": 30, "theta_rule": "transform",
                            "n_theta": 21, "adjustment_theta_rule": "simpson",
                            "adjustment_n_theta": 21}
    np.testing.assert_allclose(fit.alpha_grid, grid30, atol=0.006)


def test_plain_simpson_21_is_biased_at_n200():
    """Spec 3.5: 21-point plain Simpson misjudges the training marginal at large alpha."""
    alpha = prior_alpha_grid(30)[-5:]                        # alpha ~ 186 .. 22915
    counts = np.array([[50, 50], [2, 0], [20, 25]])
    exact = log_marginal_and_theta_mean(alpha, counts, 100, 100, "gauss")[0]
    plain = log_marginal_and_theta_mean(alpha, counts, 100, 100, "simpson", 21)[0]
    trans = log_marginal_and_theta_mean(alpha, counts, 100, 100, "transform", 21)[0]
    assert np.max(np.abs(plain - exact)) > 0.5      # (2, 0): -2.8 to -3.6 nats in the spec
    assert np.max(np.abs(trans - exact)) < 0.05


def test_no_omitted_means_no_correction():
    rng = np.random.default_rng(9)
    X = rng.integers(0, 2, size=(20, 3)).astype(float)
    y = np.repeat([0, 1], 10)
    a = fit_naive_bayes_quadrature(X, y, (0, 0.2), n_alpha=40)
    b = fit_naive_bayes_quadrature(X, y, corrected=False, n_alpha=40)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=1e-14)
    assert a.log_pkeep is None and np.all(a.log_adjustment == 0)


def test_prior_changes_class_term():
    X = np.array([[0.0], [1.0], [1.0], [0.0], [1.0]])
    y = np.array([0, 0, 1, 1, 1])
    fit = fit_naive_bayes_quadrature(X, y, corrected=False, n_alpha=20,
                                     prior=NaiveBayesPrior(f0=2.0, f1=3.0))
    assert fit.psi_hat == pytest.approx((3 + 3) / (5 + 5))


@pytest.mark.parametrize("args,kwargs,exc,match", [
    ((np.full((4, 1), 0.5), [0, 0, 1, 1], (3, 0.2)), {}, ValueError, "binary"),
    ((np.eye(4)[:, :1], [0, 1, 2, 1], (3, 0.2)), {}, ValueError, "0/1"),
    ((np.eye(4)[:, :1], [1, 1, 1, 1], (3, 0.2)), {}, ValueError, "both classes"),
    ((np.eye(4)[:, :1], [0, 0, 1], (3, 0.2)), {}, ValueError, "one label per row"),
    ((np.eye(4)[:, :1], [0, 0, 1, 1], None), {}, ValueError, "corrected=True needs"),
    ((np.eye(4)[:, :1], [0, 0, 1, 1], "x"), {}, TypeError, "selection"),
    ((np.eye(4)[:, :1], [0, 0, 1, 1], (-1, 0.2)), {}, ValueError, "n_omitted"),
    ((np.eye(4)[:, :1], [0, 0, 1, 1], (3, -0.2)), {}, ValueError, "threshold"),
    ((np.eye(4)[:, :1], [0, 0, 1, 1], (3, 0.2)), {"quadrature": "fast"}, ValueError,
     "quadrature"),
    ((np.eye(4)[:, :1], [0, 0, 1, 1], (3, 0.2)), {"theta_rule": "x"}, ValueError, "theta_rule"),
    ((np.eye(4)[:, :1], [0, 0, 1, 1], (3, 0.2)), {"prior": {"f0": 1}}, TypeError, "prior"),
])
def test_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fit_naive_bayes_quadrature(*args, **kwargs)


def test_bad_selection_object_and_test_input():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(20, 30)).astype(float)
    y = np.repeat([0, 1], 10)
    sel_f = select_features(X, y, k=3, statistic="f")
    with pytest.raises(ValueError, match="abs_corr"):
        fit_naive_bayes_quadrature(sel_f.transform(X), y, sel_f)
    sel = select_features(X, y, k=3, statistic="abs_corr")
    with pytest.raises(ValueError, match="retained"):
        fit_naive_bayes_quadrature(X[:, :2], y, sel)
    fit = fit_naive_bayes_quadrature(sel.transform(X), y, sel, n_alpha=10)
    with pytest.raises(ValueError, match="columns"):
        fit.predict_proba(X[:, :2])
    with pytest.raises(ValueError, match="binary"):
        fit.predict_proba(np.full((2, 3), 0.3))
    with pytest.raises(ValueError, match="alpha_scale"):
        NaiveBayesPrior(alpha_scale=0.0)


@pytest.mark.slow
def test_alpha_posterior_calibrated_only_when_corrected():
    """Simulation-based calibration of alpha: draw alpha from the prior, simulate, select with
    a fixed threshold (so that the conditioning event is exactly |Cor| <= gamma; with top-k
    selection the tie-breaking at gamma carries extra information the model ignores), fit;
    the posterior CDF at the true alpha (PIT) is Uniform(0, 1) for the corrected posterior,
    and piles up near 1 (alpha underestimated) for the uncorrected one. Replicates where the
    threshold keeps no feature are skipped: calibration holds given any event of the data."""
    rng = np.random.default_rng(31)
    prior = stats.invgamma(0.5, scale=5.0)
    K, reps, p, m = 100, 200, 300, 15
    edges = np.arange(K) / K
    pit = {True: [], False: []}
    for _ in range(reps):
        alpha = prior.rvs(random_state=rng)
        (X, y), _ = _simulate(rng, alpha, p, m, 1)
        try:
            sel = select_features(X, y, threshold=0.5, statistic="abs_corr")
        except ValueError:            # keeps no feature (or all): a data event, skip
            continue
        u_true = prior.cdf(alpha)
        for c in (True, False):
            fit = fit_naive_bayes_quadrature(sel.transform(X), y, sel, corrected=c, n_alpha=K)
            # Node m carries the posterior mass of the prior-CDF cell [(m-1)/K, m/K].
            pit[c].append(fit.alpha_posterior @ np.clip((u_true - edges) * K, 0.0, 1.0))
    assert len(pit[True]) > 150
    assert stats.kstest(pit[True], "uniform").pvalue > 0.01
    assert np.mean(pit[False]) > 0.8
    assert stats.kstest(pit[False], "uniform").pvalue < 1e-6
