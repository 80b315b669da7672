"""Tests for selbayes.adjustment._corr: log P(|COR| <= gamma | alpha) for binary naive Bayes.

References, all independent of the fast algorithm:
* brute-force enumeration of every binary feature vector (n <= 14), with the correlation of
  eq 2.1 computed from the vector and theta integrated by scipy's adaptive quad;
* Monte Carlo simulation from the prior at n = 200;
* the reference values of spec naive_bayes_and_mixture.md section 4.8;
* the alpha -> 0 and alpha -> infinity limits (the latter by an independent binomial sum).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import betaln

from selbayes import select_features
from selbayes.adjustment import corr_log_omit_prob, default_n_theta, lattice_theta_rule
from selbayes.adjustment._corr import corr_log_omit_prob_grad, corr_omit_region, theta_quadrature
from selbayes.filters import binary_correlation

# ---------------------------------------------------------------------------------------------
# Brute force
# ---------------------------------------------------------------------------------------------


def _cor_eq21(x, y):
    """Sample correlation (eq 2.1), 0 when the denominator is 0."""
    xc, yc = x - x.mean(), y - y.mean()
    den = math.sqrt((yc @ yc) * (xc @ xc))
    return 0.0 if den == 0 else float(xc @ yc) / den


def _log_u(a, b, ones, zeros):
    """log U(a, b, ones, zeros) = log B(a + ones, b + zeros) / B(a, b) (eq 2.29)."""
    return betaln(a + ones, b + zeros) - betaln(a, b)


def _vector_prob(alpha, I0, n0, I1, n1):
    """P(one particular x_t | alpha, y) = int prod_y U dtheta by adaptive quadrature."""
    def f(t):
        a, b = alpha * t, alpha * (1 - t)
        return math.exp(_log_u(a, b, I0, n0 - I0) + _log_u(a, b, I1, n1 - I1))
    val, _ = integrate.quad(f, 0.0, 1.0, epsabs=1e-15, epsrel=1e-13, limit=200)
    return val


def brute_force_pkeep(alpha, n0, n1, gamma, tol=1e-9):
    """Sum over all 2^n vectors with |COR| <= gamma (+ tol: ties count as omitted)."""
    y = np.r_[np.zeros(n0), np.ones(n1)]
    cache = {}
    total = 0.0
    for bits in itertools.product((0.0, 1.0), repeat=n0 + n1):
        x = np.array(bits)
        if abs(_cor_eq21(x, y)) <= gamma + tol:
            key = (int(x[:n0].sum()), int(x[n0:].sum()))
            if key not in cache:
                cache[key] = _vector_prob(alpha, key[0], n0, key[1], n1)
            total += cache[key]
    return total


BRUTE_CASES = [
    # (n0, n1, gamma, alphas); gamma None = a lattice value, so that ties occur.
    (4, 4, 0.30, (0.3, 2.0, 40.0)),
    (3, 5, 0.20, (5.0, 0.05)),
    (5, 4, None, (0.7, 20.0)),
    (6, 6, 0.25, (1.0, 200.0)),
    (5, 9, None, (3.0,)),
    (7, 7, 0.45, (10.0,)),
]


@pytest.mark.parametrize("n0,n1,gamma,alphas", BRUTE_CASES)
def test_equals_brute_force_enumeration(n0, n1, gamma, alphas):
    if gamma is None:  # a gamma that lattice points hit exactly (as with top-k selection)
        gamma = float(abs(binary_correlation(1, 3, n0, n1)))
    got = np.exp(corr_log_omit_prob(np.array(alphas), n0, n1, gamma))
    want = np.array([brute_force_pkeep(a, n0, n1, gamma) for a in alphas])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


def test_ties_at_gamma_count_as_omitted():
    n0, n1 = 5, 4
    gamma = float(abs(binary_correlation(0, 2, n0, n1)))    # hit by lattice points
    at = corr_log_omit_prob(3.0, n0, n1, gamma)
    just_above = corr_log_omit_prob(3.0, n0, n1, gamma + 1e-9)
    just_below = corr_log_omit_prob(3.0, n0, n1, gamma - 1e-9)
    assert at == pytest.approx(just_above, abs=1e-14)
    assert at > just_below + 1e-3


def test_region_consistent_with_select_features():
    """Omitted features (ties at gamma included) lie outside H+ and H-; stronger ones inside."""
    rng = np.random.default_rng(3)
    n0, n1, p = 9, 11, 400
    y = np.r_[np.zeros(n0), np.ones(n1)]
    X = (rng.random((n0 + n1, p)) < rng.random(p)).astype(float)
    scores = np.sort(np.abs(binary_correlation(X[y == 0].sum(0), X[y == 1].sum(0), n0, n1)))
    k = int(np.flatnonzero(scores[-41:-1] == scores[-40:])[-1]) + 1   # a k that splits a tie
    sel = select_features(X, y, k=k, statistic="abs_corr")
    assert sel.n_ties_at_threshold > 0            # the case the tie rule is about
    mask, _, _ = corr_omit_region(n0, n1, sel.threshold)
    I0 = X[y == 0].sum(axis=0).astype(int)
    I1 = X[y == 1].sum(axis=0).astype(int)
    high = mask[I0, I1] | mask[n0 - I0, n1 - I1]
    assert not high[sel.omitted_indices].any()
    # Retained features above gamma are in H+ or H-; the weakest retained ones sit at gamma
    # itself (top-k selection) and, like the tied omitted ones, are classified as omitted.
    above = sel.scores[sel.indices] > sel.threshold
    assert above.sum() >= 1 and not above.all()
    np.testing.assert_array_equal(high[sel.indices], above)


def test_region_fig_2_3():
    """Spec 4.4 reference: n = 22, n1 = 14, gamma = 0.2 gives b0 = 2 and the staircase r."""
    mask, counts, staircase = corr_omit_region(8, 14, 0.2)
    assert staircase
    assert int(np.flatnonzero(counts > 0)[0]) == 2
    assert (counts - 1)[2:].tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 7]


def test_staircase_holds_widely():
    for n0, n1 in [(1, 1), (2, 7), (13, 5), (30, 31), (59, 17)]:
        for g in (0.0, 0.05, 0.2, 0.5, 0.9):
            assert corr_omit_region(n0, n1, g)[2]


# ---------------------------------------------------------------------------------------------
# Spec 4.8 reference values
# ---------------------------------------------------------------------------------------------

SMALL_TABLE = [  # alpha, n0, n1, gamma, exact, 21-point Simpson
    (2.0, 4, 4, 0.30, 0.493055, 0.493066),
    (5.0, 3, 5, 0.20, 0.434607, 0.434630),
    (0.7, 5, 4, 0.50, 0.675987, 0.675987),
    (20.0, 6, 6, 0.25, 0.540955, 0.541079),
]


@pytest.mark.parametrize("alpha,n0,n1,gamma,exact,simpson21", SMALL_TABLE)
def test_spec_small_table(alpha, n0, n1, gamma, exact, simpson21):
    assert math.exp(corr_log_omit_prob(alpha, n0, n1, gamma)) == pytest.approx(exact, abs=6e-7)
    thesis = corr_log_omit_prob(alpha, n0, n1, gamma, n_theta=21, theta_rule="simpson")
    assert math.exp(thesis) == pytest.approx(simpson21, abs=6e-7)


# m: {gamma: (P_keep, (p - k) log P_keep)} from the n0 = n1 = 100, K = 30 table of spec 4.8.
BIG_TABLE = {
    1: {0.36: (0.644030, -4399.67), 0.27: (0.535685, -6235.84), 0.21: (0.453140, -7836.39),
        0.13: (0.331455, -9938.38)},
    6: {0.36: (0.822626, -1952.34), 0.27: (0.688844, -3723.67), 0.21: (0.572258, -5525.84),
        0.13: (0.387695, -8527.82)},
    15: {0.36: (0.976065, -242.23), 0.27: (0.904905, -998.25), 0.21: (0.801557, -2189.87),
         0.13: (0.570328, -5053.89)},
    23: {0.36: (0.999829, -1.71), 0.27: (0.994626, -53.83), 0.21: (0.967975, -322.24),
         0.13: (0.808833, -1909.47)},
    26: {0.36: (0.999994, -0.06), 0.27: (0.999230, -7.69), 0.21: (0.990539, -94.11),
         0.13: (0.886703, -1082.20)},
    30: {0.36: (1.000000, -0.00), 0.27: (0.999897, -1.02), 0.21: (0.997309, -26.68),
         0.13: (0.933412, -620.17)},
}
K_OF_GAMMA = {0.36: 1, 0.27: 10, 0.21: 100, 0.13: 1000}


@pytest.mark.parametrize("gamma", sorted(K_OF_GAMMA))
def test_spec_simulation_table(gamma):
    K = 30
    rows = sorted(BIG_TABLE)
    alpha = stats.invgamma(0.5, scale=5.0).ppf((np.array(rows) - 0.5) / K)
    lp = corr_log_omit_prob(alpha, 100, 100, gamma)
    p_minus_k = 10_000 - K_OF_GAMMA[gamma]
    for m, value in zip(rows, lp, strict=True):
        pkeep, adj = BIG_TABLE[m][gamma]
        assert math.exp(value) == pytest.approx(pkeep, abs=6e-7), m
        assert p_minus_k * value == pytest.approx(adj, abs=6e-3), m


# ---------------------------------------------------------------------------------------------
# Simulation from the prior at n = 200
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha,n0,n1,gamma", [(3.0, 100, 100, 0.13), (30.0, 80, 120, 0.2),
                                               (300.0, 100, 100, 0.13)])
def test_matches_simulation_from_prior(alpha, n0, n1, gamma):
    rng = np.random.default_rng(20070)
    draws = 200_000
    theta = rng.random(draws)
    phi0 = rng.beta(alpha * theta, alpha * (1 - theta))
    phi1 = rng.beta(alpha * theta, alpha * (1 - theta))
    I0 = rng.binomial(n0, phi0)
    I1 = rng.binomial(n1, phi1)
    kept = np.abs(binary_correlation(I0, I1, n0, n1)) <= gamma
    p_hat = kept.mean()
    p = math.exp(corr_log_omit_prob(alpha, n0, n1, gamma))
    se = math.sqrt(p * (1 - p) / draws)
    assert abs(p_hat - p) < 4 * se


# ---------------------------------------------------------------------------------------------
# Limits, derivative, quadrature, tabulation
# ---------------------------------------------------------------------------------------------


def test_small_alpha_limit_is_two_thirds():
    # Spec 4.8 item 4: 0.6656 at alpha = 1e-3, n0 = n1 = 100, gamma = 0.13.
    assert math.exp(corr_log_omit_prob(1e-3, 100, 100, 0.13)) == pytest.approx(0.6656, abs=5e-5)
    assert math.exp(corr_log_omit_prob(1e-9, 100, 100, 0.13)) == pytest.approx(2 / 3, abs=1e-7)
    assert math.exp(corr_log_omit_prob(1e-9, 5, 4, 0.3)) == pytest.approx(2 / 3, abs=1e-7)


def _null_pkeep(n0, n1, gamma):
    """int_0^1 P(|Cor| <= gamma) dtheta for x iid Bernoulli(theta), independent of y."""
    I0 = np.arange(n0 + 1)[:, None]
    I1 = np.arange(n1 + 1)[None, :]
    kept = np.abs(binary_correlation(I0, I1, n0, n1)) <= gamma * (1 + 1e-12)

    def f(t):
        return float(stats.binom.pmf(I0[:, 0], n0, t) @ kept @ stats.binom.pmf(I1[0], n1, t))

    pts = np.linspace(0, 1, 41)
    return sum(integrate.quad(f, lo, hi, epsabs=1e-13, epsrel=1e-12)[0]
               for lo, hi in itertools.pairwise(pts))


def test_large_alpha_limit_is_null_value():
    null = _null_pkeep(100, 100, 0.13)
    assert null == pytest.approx(0.93399, abs=2e-4)   # spec: ~2 Phi(gamma sqrt(n)) - 1
    # Beta(alpha theta, alpha (1 - theta)) -> point mass at theta: the deviation is O(n / alpha).
    assert math.exp(corr_log_omit_prob(1e10, 100, 100, 0.13)) == pytest.approx(null, abs=1e-8)
    assert math.exp(corr_log_omit_prob(1e10, 7, 12, 0.3)) == pytest.approx(
        _null_pkeep(7, 12, 0.3), abs=1e-8)


def test_not_monotone_in_alpha_but_increasing_over_the_thesis_grid():
    # P_keep dips below its alpha -> 0 limit 2/3 (spec table: 0.644 at alpha = 1.74) and then
    # rises to the null value; the derivative changes sign accordingly.
    alpha = stats.invgamma(0.5, scale=5.0).ppf((np.arange(30) + 0.5) / 30)
    _, d = corr_log_omit_prob(alpha, 100, 100, 0.36, return_grad=True)
    assert np.all(d > 0)
    _, d_small = corr_log_omit_prob(0.05, 100, 100, 0.36, return_grad=True)
    assert d_small < 0


@pytest.mark.parametrize("n0,n1,gamma", [(100, 100, 0.13), (60, 140, 0.2), (5, 4, 0.5)])
def test_gradient_matches_finite_differences(n0, n1, gamma):
    alpha = np.exp(np.linspace(-4, 11, 25))
    lp, dlp = corr_log_omit_prob(alpha, n0, n1, gamma, return_grad=True)
    h = 1e-5
    fd = (corr_log_omit_prob(alpha * math.exp(h), n0, n1, gamma)
          - corr_log_omit_prob(alpha * math.exp(-h), n0, n1, gamma)) / (2 * h)
    np.testing.assert_allclose(dlp, fd, rtol=1e-6, atol=1e-8)   # FD round-off ~1e-8
    np.testing.assert_allclose(corr_log_omit_prob_grad(alpha, n0, n1, gamma), dlp, rtol=0,
                               atol=0)


@pytest.mark.parametrize("n0,n1,gamma", [(10, 10, 0.3), (100, 100, 0.13), (60, 140, 0.2),
                                         pytest.param(400, 600, 0.08, marks=pytest.mark.slow)])
def test_default_theta_rule_converged_at_p_minus_k_1e4(n0, n1, gamma):
    """The issue's accuracy requirement: |error| x 10^4 < 0.05 nats; we get far below."""
    alpha = np.exp(np.linspace(-5, 12, 30))
    default = corr_log_omit_prob(alpha, n0, n1, gamma)
    fine = corr_log_omit_prob(alpha, n0, n1, gamma, n_theta=3 * default_n_theta(n0 + n1))
    assert np.max(np.abs(default - fine)) * 1e4 < 1e-3


def test_thesis_simpson_21_is_not_accurate_enough():
    """Spec 3.5: 21-point Simpson tilts (p - k) log P by ~10 nats at n = 200, gamma = 0.13."""
    alpha = stats.invgamma(0.5, scale=5.0).ppf((np.arange(30) + 0.5) / 30)
    exact = corr_log_omit_prob(alpha, 100, 100, 0.13)
    s21 = corr_log_omit_prob(alpha, 100, 100, 0.13, n_theta=21, theta_rule="simpson")
    err = 9000 * (s21 - exact)
    assert 5 < err.max() - err.min() < 20
    s161 = corr_log_omit_prob(alpha, 100, 100, 0.13, n_theta=161, theta_rule="simpson")
    assert np.max(np.abs(9000 * (s161 - exact))) < 0.05


@pytest.mark.parametrize("n0,n1,gamma", [(4, 4, 0.3), (10, 7, 0.25), (50, 50, 0.2),
                                         (30, 70, 0.15), (120, 130, 0.1)])
def test_legendre_rule_with_n_over_2_nodes_is_exact(n0, n1, gamma):
    # The lattice sums are polynomials of degree n = n0 + n1 in theta (the beta-binomial pmf
    # is one of degree N for every alpha), so Gauss-Legendre with n // 2 + 1 nodes is exact:
    # it equals a far finer mapped Gauss rule to round-off, at any alpha. A quarter of the
    # nodes is visibly off (the comparison can fail).
    from selbayes.adjustment import lattice_theta_rule

    n = n0 + n1
    rule, q = lattice_theta_rule(n)
    assert rule == "legendre" and q in (n // 2 + 1, n // 2 + 2) and q % 2 == 0
    alpha = np.array([1e-3, 0.3, 3.0, 30.0, 3e3, 3e6])
    fine = corr_log_omit_prob(alpha, n0, n1, gamma, n_theta=max(400, 12 * int(math.sqrt(n))))
    exact = corr_log_omit_prob(alpha, n0, n1, gamma, n_theta=q, theta_rule="legendre")
    np.testing.assert_allclose(exact, fine, rtol=0, atol=1e-12)
    short = corr_log_omit_prob(alpha, n0, n1, gamma, n_theta=max(2, q // 4),
                               theta_rule="legendre")
    assert np.max(np.abs(short - fine)) > 1e-9
    t, w = theta_quadrature("legendre", q)
    assert w @ t**n == pytest.approx(1.0 / (n + 1), rel=1e-12)     # degree n: exact


def test_auto_theta_rule_keeps_the_mapped_rule_where_it_has_fewer_nodes():
    from selbayes.adjustment import lattice_theta_rule

    assert lattice_theta_rule(250)[0] == "legendre"
    assert lattice_theta_rule(256) == ("gauss", default_n_theta(256))
    assert lattice_theta_rule(100, 80) == ("gauss", 80)            # explicit n_theta
    with pytest.raises(ValueError, match="theta_rule"):
        lattice_theta_rule(100, None, "trapezoid")


def test_theta_rules_are_symmetric_and_normalised():
    for rule, n in [("gauss", 40), ("gauss", 41), ("simpson", 21), ("legendre", 20),
                    ("legendre", 51)]:
        t, w = theta_quadrature(rule, n)
        np.testing.assert_allclose(t, 1 - t[::-1], atol=1e-15)
        np.testing.assert_allclose(w, w[::-1], rtol=1e-12)
        assert w.sum() == pytest.approx(1.0, abs=1e-13)


def test_shapes_and_trivial_thresholds():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = corr_log_omit_prob(a, 10, 12, 0.3)
    assert out.shape == (2, 2)
    assert isinstance(corr_log_omit_prob(2.0, 10, 12, 0.3), float)
    assert out[0, 1] == pytest.approx(corr_log_omit_prob(2.0, 10, 12, 0.3), abs=1e-15)
    # gamma >= 1: nothing can be retained.
    assert np.all(corr_log_omit_prob(a, 10, 12, 1.0) == 0.0)
    # gamma = 0: only Cor = 0 features are omitted; P_keep is still in (0, 1).
    assert -5 < corr_log_omit_prob(2.0, 10, 10, 0.0) < 0


@pytest.mark.parametrize("kwargs,exc,match", [
    ({"alpha": 0.0}, ValueError, "alpha"),
    ({"alpha": [1.0, np.nan]}, ValueError, "alpha"),
    ({"alpha": "x"}, TypeError, "alpha"),
    ({"n0": 0}, ValueError, "n0"),
    ({"n1": 2.5}, TypeError, "n1"),
    ({"threshold": -0.1}, ValueError, "threshold"),
    ({"threshold": None}, TypeError, "threshold"),
    ({"theta_rule": "trapezoid"}, ValueError, "theta_rule"),
    ({"theta_rule": "simpson", "n_theta": 20}, ValueError, "odd"),
    ({"n_theta": 1}, ValueError, "n_theta"),
])
def test_bad_input(kwargs, exc, match):
    args = {"alpha": 1.0, "n0": 5, "n1": 5, "threshold": 0.3} | kwargs
    with pytest.raises(exc, match=match):
        corr_log_omit_prob(**args)


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("call, exc, match", [
    (lambda: corr_log_omit_prob(1.0, 5, 5, True), TypeError, "threshold must be a number"),
    (lambda: corr_log_omit_prob(1.0, 5, 5, "0.5"), TypeError, "threshold must be a number"),
    (lambda: corr_log_omit_prob(True, 5, 5, 0.5), TypeError, "alpha must be a positive"),
    (lambda: corr_log_omit_prob("2", 5, 5, 0.5), TypeError, "alpha must be a positive"),
    (lambda: corr_log_omit_prob(np.array([True]), 5, 5, 0.5), TypeError, "alpha"),
    (lambda: default_n_theta(0), ValueError, "n must be the number of training cases"),
    (lambda: default_n_theta(1.5), ValueError, "n must be"),
    (lambda: default_n_theta(True), ValueError, "n must be"),
    (lambda: lattice_theta_rule(0), ValueError, "n must be"),
    (lambda: lattice_theta_rule(10, 1), ValueError, "n_theta must be an integer >= 2"),
    (lambda: lattice_theta_rule(10, 1.5), ValueError, "n_theta"),
    (lambda: lattice_theta_rule(10, True), ValueError, "n_theta"),
    (lambda: lattice_theta_rule(10, "5"), ValueError, "n_theta"),
])
def test_corr_factor_names_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
