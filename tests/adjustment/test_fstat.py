"""Tests of the F-statistic selection adjustment (issue 3).

References used, all independent of the code under test:
- the closed form of spec fact 2 (balanced designs) integrated over T by scipy's adaptive quad;
- Imhof's inversion formula for a linear combination of chi-squares (spec fact 3), by quad;
- brute-force simulation of omitted-feature data from the prior (sufficient statistics in the fast
  tests, raw data in the slow ones), with tolerances of 4 binomial standard errors;
- central finite differences and pytensor's verify_grad for the derivatives;
- a 1-D posterior computed by quadrature, for the sampler test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import logsumexp

from selbayes.adjustment import FStatOmitLogProb, fstat_log_omit_prob
from selbayes.adjustment._fstat import mc_n_terms
from selbayes.adjustment._fstat_exact import (
    ExactTable,
    _log_cond_prob_series,
    _PriorU,
    between_eigenvalues,
    f_terms,
    log_cond_prob,
    prior_u,
)
from selbayes.adjustment._spline import quintic_hermite_coefficients

PAPER = dict(class_counts=np.array([34, 34, 33, 33, 33, 33]), threshold=3.15, alpha_x=4.0)


# --------------------------------------------------------------------------- references
def balanced_quad(x, m, G, gamma, alpha):
    """log E_T[Fcdf(gamma / (1 + m T / s))] by adaptive quadrature (spec fact 2)."""
    s = np.exp(x)
    n = m * G

    def integrand(T):
        return (stats.f.cdf(gamma / (1.0 + m * T / s), G - 1, n - G)
                * stats.gamma.pdf(T, alpha / 2, scale=2.0 / alpha))

    upper = stats.gamma.isf(1e-18, alpha / 2, scale=2.0 / alpha)
    pts = [p for p in (s / m * c for c in (0.01, 0.1, 1, 10, 100)) if p < upper]
    with warnings.catch_warnings():  # epsrel=1e-13 is near roundoff; the 1e-10 check stands
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        val, _ = integrate.quad(integrand, 0, upper, points=pts or None, epsabs=0, epsrel=1e-13,
                                limit=1000)
    return np.log(val)


def imhof_cond_prob(t, counts, gamma):
    """P(F <= gamma | T / s = t) by Imhof's formula for sum lam_i chi2_1 - c chi2_{n-G} <= 0."""
    counts = np.asarray(counts, dtype=float)
    G, n = counts.size, counts.sum()
    mat = np.diag(counts) - np.outer(counts, counts) / n
    root = np.diag(np.sqrt(t + 1.0 / counts))
    lam = np.sort(np.linalg.eigvalsh(root @ mat @ root))[1:]
    c = gamma * (G - 1) / (n - G)
    b = n - G

    def integrand(u):
        theta = 0.5 * np.arctan(lam * u).sum() - 0.5 * b * np.arctan(c * u)
        rho = np.prod((1 + (lam * u) ** 2) ** 0.25) * (1 + (c * u) ** 2) ** (b / 4)
        return np.sin(theta) / (u * rho)

    val = integrate.quad(integrand, 0, np.inf, epsabs=1e-14, epsrel=1e-12, limit=2000)[0]
    return 0.5 - val / np.pi


def simulate_f_sufficient(x, counts, gamma, alpha, n_draws, rng, w_x=1.0, t_df=None):
    """Fraction of F <= gamma, simulating (class means, within SS) from the prior directly."""
    counts = np.asarray(counts)
    G, n = counts.size, counts.sum()
    tau_mu = np.exp(x) / w_x
    tau_x = rng.gamma(alpha / 2, 2.0 / (alpha * w_x), n_draws)
    if t_df is None:
        mu = rng.normal(0.7, 1 / np.sqrt(tau_mu), (n_draws, G))  # nu = 0.7: F ignores it
    else:  # multivariate t: one variance scale per simulated feature
        lam = rng.gamma(t_df / 2, 2.0 / t_df, n_draws)
        mu = 0.7 + rng.standard_normal((n_draws, G)) / np.sqrt(tau_mu * lam)[:, None]
    xbar = mu + rng.standard_normal((n_draws, G)) / np.sqrt(counts * tau_x[:, None])
    within = rng.chisquare(n - G, n_draws) / tau_x
    grand = xbar @ counts / n
    between = ((xbar - grand[:, None]) ** 2) @ counts
    f = (between / (G - 1)) / (within / (n - G))
    return np.mean(f <= gamma)


def assert_within_binomial_se(p_hat, p_exact, n_draws, k=4.0):
    se = np.sqrt(p_exact * (1 - p_exact) / n_draws)
    assert abs(p_hat - p_exact) <= k * se + 1e-12, (p_hat, p_exact, se)


# --------------------------------------------------------------------------- input checks
@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(threshold=0.0), "threshold"),
        (dict(threshold=-1.0), "threshold"),
        (dict(alpha_x=0.0), "alpha_x"),
        (dict(alpha_x=-2.0), "alpha_x"),
        (dict(class_counts=np.array([10])), "class_counts"),
        (dict(class_counts=np.array([1, 1])), "class_counts"),
        (dict(class_counts=np.array([3.5, 4.0])), "class_counts"),
        (dict(class_counts=np.array([5, -3, 4])), "class_counts"),
        (dict(class_counts=np.array([5, 0, 4])), "class_counts"),
        (dict(mu_t_df=0.0), "mu_t_df"),
        (dict(mu_t_df=-1.0), "mu_t_df"),
    ],
)
def test_bad_input_names_argument(kwargs, word):
    args = dict(PAPER, **kwargs)
    with pytest.raises(ValueError, match=word):
        fstat_log_omit_prob(0.0, **args)
    with pytest.raises(ValueError, match=word):
        FStatOmitLogProb(**args)


def test_bad_method_and_nan():
    with pytest.raises(ValueError, match="method"):
        fstat_log_omit_prob(0.0, **PAPER, method="quadrature")
    with pytest.raises(ValueError, match="method"):
        FStatOmitLogProb(**PAPER, method="nope")
    with pytest.raises(ValueError, match="log_scale"):
        fstat_log_omit_prob([0.0, np.nan], **PAPER)
    with pytest.raises(ValueError, match="n_draws"):
        fstat_log_omit_prob(0.0, **PAPER, method="mc", n_draws=0)


def test_infinite_limits_and_shape():
    out = fstat_log_omit_prob(np.array([[-np.inf, np.inf], [0.0, 3.0]]), **PAPER)
    assert out.shape == (2, 2)
    assert out[0, 0] == -np.inf
    assert out[0, 1] == pytest.approx(stats.f.logcdf(3.15, 5, 194), abs=1e-14)
    assert isinstance(fstat_log_omit_prob(1.0, **PAPER), float)
    # P increases with tau_mu w_x (less between-class spread) towards the no-signal limit.
    x = np.linspace(-20, 30, 200)
    lp = fstat_log_omit_prob(x, **PAPER)
    assert np.all(np.diff(lp) > 0)
    assert np.all(lp < out[0, 1])


# --------------------------------------------------------------------------- exact method
@pytest.mark.parametrize("m, G, gamma, alpha", [(33, 6, 3.15, 4.0), (5, 2, 1.0, 2.0),
                                                (10, 4, 6.2, 1.0), (3, 3, 0.5, 10.0),
                                                (6, 4, 2.0, 0.1), (50, 2, 4.0, 300.0),
                                                (33, 6, 3.15, 1000.0)])
def test_exact_balanced_matches_closed_form_quadrature(m, G, gamma, alpha):
    """alpha_x of 300 and 1000 (noise levels tied closely): a log T prior narrower than the
    log t grid's fixed step aliased the trapezoid (errors 6e-3 and 0.4 at these points, a
    slope of the wrong sign), now the step follows the prior's spread."""
    x = np.array([-8.0, -3.0, -0.5, 1.0, 1.3, 3.0, 5.0, 8.0, 12.0])
    got = fstat_log_omit_prob(x, np.full(G, m), gamma, alpha)
    ref = np.array([balanced_quad(v, m, G, gamma, alpha) for v in x])
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10)


def test_conditional_series_matches_closed_form_balanced():
    log_t = np.linspace(-30, 60, 46)
    for m, G, gamma in [(33, 6, 3.15), (2, 2, 4.0), (7, 9, 1.2)]:
        # The series itself (log_cond_prob dispatches balanced designs to the closed form).
        got = _log_cond_prob_series(log_t, np.full(G, m), gamma)
        arg = gamma / (1.0 + m * np.exp(np.minimum(log_t, 30)))
        ok = log_t <= 30  # where the closed form's cdf does not underflow
        ref = stats.f.logcdf(arg[ok], G - 1, m * G - G)
        np.testing.assert_allclose(got[ok], ref, rtol=0, atol=1e-12)
        # Beyond: log g(t) ~ const - (G-1)/2 log t exactly.
        slope = np.diff(got[-5:]) / np.diff(log_t[-5:])
        np.testing.assert_allclose(slope, -(G - 1) / 2, atol=1e-9)


@pytest.mark.parametrize("counts, gamma", [([10, 10, 10], 300.0), ([30, 30], 3000.0),
                                           ([50, 50, 50, 50], 3000.0), ([4, 4], 30.0)])
def test_balanced_closed_form_dispatch_matches_series_at_large_threshold(counts, gamma):
    """log_cond_prob uses the closed form for balanced designs (cost independent of gamma);
    it must agree with the positive series, an independent algorithm, across log t."""
    log_t = np.array([-40.0, -10.0, -3.0, 0.0, 2.0, 5.0])
    got = log_cond_prob(log_t, np.array(counts), gamma)
    ref = _log_cond_prob_series(log_t, np.array(counts), gamma)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-11)


@pytest.mark.parametrize("counts, gamma", [([5, 10, 15], 300.0), ([5, 20, 12, 3], 3.15),
                                           ([8, 2, 15, 6, 9, 4], 30.0), ([2, 40, 40], 10.0)])
def test_rescaled_series_matches_unit_scale_series_unbalanced(counts, gamma):
    """Unbalanced designs use Ruben's expansion with scale min(lambda_i) (length bounded in
    gamma); it must agree with the scale-1 series, including at infinite log t."""
    log_t = np.r_[np.linspace(-50.0, 45.0, 20), -np.inf, np.inf]
    got = log_cond_prob(log_t, np.array(counts), gamma)
    ref = _log_cond_prob_series(log_t, np.array(counts), gamma)
    np.testing.assert_array_equal(got[-2:], ref[-2:])
    np.testing.assert_allclose(got[:-2], ref[:-2], rtol=0, atol=1e-11)


@pytest.mark.parametrize("counts, gamma", [([5, 20, 12, 3], 2.0), ([3, 30], 4.0),
                                           ([8, 2, 15, 6, 9, 4], 3.15)])
@pytest.mark.parametrize("t", [0.003, 0.05, 1.0, 30.0])
def test_conditional_series_matches_imhof_unbalanced(counts, gamma, t):
    got = np.exp(log_cond_prob(np.log([t]), np.array(counts), gamma)[0])
    assert got == pytest.approx(imhof_cond_prob(t, counts, gamma), abs=1e-9)


@pytest.mark.parametrize("counts, gamma, alpha", [
    ([5, 20, 12, 3], 2.0, 4.0),
    pytest.param([3, 30], 4.0, 1.5, marks=pytest.mark.slow),
    pytest.param([8, 2, 15, 6, 9, 4], 3.15, 7.0, marks=pytest.mark.slow)])
def test_log_t_trapezoid_matches_adaptive_quadrature(counts, gamma, alpha):
    """The T integral (trapezoid in log T) against scipy quad in T, incl. tau_mu w_x << 1."""
    counts = np.array(counts)
    a2 = alpha / 2

    def ref(x):
        def integrand(T):
            g = np.exp(log_cond_prob(np.log([T]) - x, counts, gamma)[0])
            return g * stats.gamma.pdf(T, a2, scale=1 / a2)

        s = np.exp(x)
        upper = stats.gamma.isf(1e-18, a2, scale=1 / a2)
        pts = [p for p in (s * c for c in (1e-3, 1e-2, 0.1, 1, 10)) if p < upper]
        v = integrate.quad(integrand, 0, upper, points=pts, epsabs=0, epsrel=1e-12,
                           limit=500)[0]
        return np.log(v)

    x = np.array([-6.0, -0.5, 4.0])
    got = fstat_log_omit_prob(x, counts, gamma, alpha)
    np.testing.assert_allclose(got, [ref(v) for v in x], rtol=0, atol=1e-9)


def test_exact_independent_of_grid_spacing_and_range():
    x = np.linspace(-25, 20, 37)
    a = fstat_log_omit_prob(x, **PAPER)
    # A finer log t grid and a wider x range (different grid offsets) give the same numbers.
    t = ExactTable.build(PAPER["class_counts"], 3.15, 4.0, -60.0, 70.0, step=0.07)
    np.testing.assert_allclose(t.evaluate(x), a, rtol=0, atol=1e-12)


@pytest.mark.parametrize("counts", [np.array([22, 15]), np.array([30, 10, 12])])
def test_tables_for_several_priors_share_one_grid_and_give_each_priors_values(counts):
    """ExactTable.build_for_dfs tabulates G once on a grid wide enough for every prior (the
    plug-in's search over the t prior's df): each prior's values equal its own table's
    (fstat_log_omit_prob, tested against the integral above) to rounding, although the grid
    is wider and offset differently."""
    dfs = [1.0, 2.0, 16.0, 64.0, None]
    tables = ExactTable.build_for_dfs(counts, 6.0, 4.0, -10.0, 14.0, dfs)
    assert len({id(t.log_g) for t in tables.values()}) == 1          # one tabulation
    x = np.linspace(-10.0, 14.0, 49)
    for df in dfs:
        np.testing.assert_allclose(tables[df].evaluate(x),
                                   fstat_log_omit_prob(x, counts, 6.0, 4.0, mu_t_df=df),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("counts, alpha", [(np.array([34, 34, 33, 33, 33, 33]), 4.0),
                                           (np.array([10, 3, 7]), 4.0),
                                           (np.array([4, 9]), 3.0),
                                           (np.array([6, 6, 6, 6, 6]), 8.0)])
def test_asymptotic_slope_at_minus_infinity(counts, alpha):
    """log P ~ min(alpha_x, G - 1)/2 * log(tau_mu w_x) as tau_mu w_x -> 0 (derived here)."""
    G = counts.size
    kappa = min(alpha, G - 1) / 2
    x = np.array([-60.0, -59.0])
    lp = fstat_log_omit_prob(x, counts, 2.0, alpha)
    assert (lp[1] - lp[0]) == pytest.approx(kappa, abs=2e-3)


@pytest.mark.parametrize("alpha", [4.0, 300.0])
def test_exact_derivatives_match_finite_differences(alpha):
    x = np.linspace(-20, 25, 19)
    table = ExactTable.build(PAPER["class_counts"], 3.15, alpha, -25.0, 30.0)
    _, d1, d2 = table.evaluate(x, derivatives=True)
    h = 1e-4
    lp = lambda v: table.evaluate(v)  # noqa: E731
    fd1 = (lp(x + h) - lp(x - h)) / (2 * h)
    fd2 = (lp(x + h) - 2 * lp(x) + lp(x - h)) / h**2
    np.testing.assert_allclose(d1, fd1, atol=2e-8)
    np.testing.assert_allclose(d2, fd2, atol=2e-4)


DESIGNS_FAST = [np.array([20, 20]), np.array([4, 25]), np.array([12, 12, 12, 12]),
                np.array([3, 20, 8, 14]), np.array([34, 34, 33, 33, 33, 33]),
                np.array([5, 30, 12, 9, 20, 3])]


@pytest.mark.parametrize("counts", DESIGNS_FAST, ids=lambda c: "-".join(map(str, c)))
def test_exact_matches_brute_force_simulation_fast(counts):
    rng = np.random.default_rng(12345 + counts.sum())
    n_draws = 200_000
    xs = np.log([1.0, 30.0, 1e4])
    exact = np.exp(fstat_log_omit_prob(xs, counts, 3.15, 4.0))
    for x, p in zip(xs, exact, strict=True):
        p_hat = simulate_f_sufficient(x, counts, 3.15, 4.0, n_draws, rng)
        assert_within_binomial_se(p_hat, p, n_draws)


def test_scale_invariance_tau_mu_times_w_x():
    """Spec fact 1: only tau_mu * w_x matters; simulate with w_x = 0.3 and w_x = 5."""
    rng = np.random.default_rng(7)
    counts = np.array([3, 20, 8, 14])
    x = np.log(12.0)
    p = np.exp(fstat_log_omit_prob(x, counts, 2.0, 3.0))
    for w_x in (0.3, 5.0):
        p_hat = simulate_f_sufficient(x, counts, 2.0, 3.0, 200_000, rng, w_x=w_x)
        assert_within_binomial_se(p_hat, p, 200_000)


@pytest.mark.slow
@pytest.mark.parametrize("G", [2, 4, 6])
@pytest.mark.parametrize("balanced", [True, False])
def test_exact_matches_raw_data_simulation_slow(G, balanced):
    """>= 1e6 simulated data sets per design, raw cases, tau_mu w_x from 1 to 1e4."""
    rng = np.random.default_rng(1000 * G + balanced)
    counts = np.full(G, 10) if balanced else rng.integers(3, 25, size=G)
    n, gamma, alpha = counts.sum(), 2.5, 4.0
    labels = np.repeat(np.arange(G), counts)
    xs = np.log([1.0, 10.0, 100.0, 1e3, 1e4])
    n_draws, chunk = 1_000_000, 50_000
    hits = np.zeros(xs.size)
    for _ in range(n_draws // chunk):
        tau_x = rng.gamma(alpha / 2, 2 / alpha, chunk)  # w_x = 1
        z = rng.standard_normal((chunk, G))
        eps = rng.standard_normal((chunk, n)) / np.sqrt(tau_x)[:, None]
        # Raw cases: x_i = nu + z_{y_i} / sqrt(tau_mu) + eps_i; F ignores nu.
        ebar = np.stack([eps[:, labels == g].mean(axis=1) for g in range(G)], axis=1)
        within = ((eps - ebar[:, labels]) ** 2).sum(axis=1)
        for i, x in enumerate(xs):
            xbar = z * np.exp(-x / 2) + ebar
            grand = xbar @ counts / n
            between = ((xbar - grand[:, None]) ** 2) @ counts
            hits[i] += np.sum(between / (G - 1) <= gamma * within / (n - G))
    exact = np.exp(fstat_log_omit_prob(xs, counts, gamma, alpha))
    for h, p in zip(hits, exact, strict=True):
        assert_within_binomial_se(h / n_draws, p, n_draws)


# --------------------------------------------------------------------------- mc method
def test_mc_truncation_follows_the_paper():
    counts = PAPER["class_counts"]
    K = mc_n_terms(counts, 3.15)
    f = f_terms(K + 1, 6, 200, 3.15)
    assert f[K - 1] >= np.exp(-10) > f[K]


def test_mc_common_random_numbers_and_unbiasedness():
    x = np.log([20.0, 100.0, 500.0])
    a = fstat_log_omit_prob(x, **PAPER, method="mc", n_draws=500, seed=3)
    b = fstat_log_omit_prob(x[::-1], **PAPER, method="mc", n_draws=500, seed=3)
    np.testing.assert_array_equal(a, b[::-1])  # same pool whatever the other arguments
    # The average of exp(mc) over independent pools is unbiased for the truncated series.
    K = mc_n_terms(PAPER["class_counts"], 3.15)
    trunc = np.exp(ExactTable.build(PAPER["class_counts"], 3.15, 4.0, 2.0, 7.0,
                                    n_terms=K).evaluate(x))
    est = np.exp([fstat_log_omit_prob(x, **PAPER, method="mc", n_draws=500, seed=s)
                  for s in range(40)])
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(est.shape[0])
    assert np.all(np.abs(mean - trunc) <= 4 * se)


def test_mc_error_shrinks_like_one_over_sqrt_draws():
    x = np.log([20.0, 100.0])
    exact = fstat_log_omit_prob(x, **PAPER)

    def rms(n_draws):
        err = [fstat_log_omit_prob(x, **PAPER, method="mc", n_draws=n_draws, seed=s,
                                   mc_cutoff=0.0) - exact for s in range(30)]
        return np.sqrt(np.mean(np.square(err), axis=0))

    ratio = rms(100) / rms(1600)  # expected sqrt(16) = 4
    # With 30 seeds the RMS has ~13% relative noise each: 4 * (1 -+ 0.4) is a wide, safe band.
    assert np.all((ratio > 2.4) & (ratio < 6.7)), ratio


# --------------------------------------------------------------------------- the pytensor Op
@pytest.fixture(scope="module")
def op():
    return FStatOmitLogProb(**PAPER)


def test_quintic_hermite_reproduces_quintics():
    rng = np.random.default_rng(0)
    c = rng.normal(size=6)
    p = np.polynomial.Polynomial(c)
    x = np.linspace(-1.0, 2.0, 7)
    h = x[1] - x[0]
    coef = quintic_hermite_coefficients(p(x), p.deriv(1)(x), p.deriv(2)(x), h)
    for i in range(x.size - 1):
        for t in (0.13, 0.5, 0.91):
            val = sum(coef[j, i] * t**j for j in range(6))
            assert val == pytest.approx(p(x[i] + t * h), abs=1e-12)


def test_op_attributes(op):
    lo, hi = op.table_range
    assert lo == -30.0 and hi > np.log(200) + 29
    assert op.interp_error < 1e-10 and op.error_bound < 1e-8
    assert op.limit_high == pytest.approx(stats.f.logcdf(3.15, 5, 194), abs=1e-14)
    assert op.asymptotic_slope == 2.0
    assert op.edge_values["dl_lo"] == pytest.approx(2.0, abs=1e-3)
    assert op.limit_high - op.edge_values["l_hi"] < 1e-11


@pytest.mark.parametrize("counts, gamma, alpha", [
    (PAPER["class_counts"], 3.15, 4.0), (np.array([3, 30]), 4.0, 1.5),
    (np.array([8, 2, 15, 6, 9, 4]), 6.2, 2.0)])
def test_op_value_matches_reference_over_table(counts, gamma, alpha):
    op = FStatOmitLogProb(counts, gamma, alpha)
    rng = np.random.default_rng(1)
    lo, hi = op.table_range
    # Random points plus the interval midpoints, where the Hermite error peaks.
    mids = lo + op.spacing * (np.arange(int(round((hi - lo) / op.spacing))) + 0.5)
    x = np.concatenate([rng.uniform(lo, hi, 400), mids])
    ref = fstat_log_omit_prob(x, counts, gamma, alpha)
    np.testing.assert_allclose(op.evaluate(x), ref, rtol=0, atol=1e-8)
    assert np.max(np.abs(op.evaluate(x) - ref)) <= op.error_bound


@pytest.mark.parametrize("mu_t_df", [None, 4.0])
def test_table_past_its_own_range_is_the_exact_factor(mu_t_df):
    """The models tabulate every df >= 1 over df = 1's range (to x = 75 at n < e^15, where
    the Op's own range for df >= 2 ends at 45), so that fits of every df share one compiled
    model: there too the table is the exact factor within its own error bound, and inside
    the shorter range it is the shorter table's function within the two bounds."""
    from selbayes.adjustment.backends._numpy_kernels import evaluate

    counts, gamma, h = np.array([12, 9]), 3.4, 0.1
    short, long_ = (FStatOmitLogProb(counts, gamma, 2.0, table_range=(-30.0, hi), spacing=h,
                                     mu_t_df=mu_t_df) for hi in (45.0, 75.0))
    params = long_.spline_parameters()
    assert params["coef"].shape == (6, 1050)
    rng = np.random.default_rng(3)
    past = rng.uniform(45.0, 75.0, 60)
    exact = fstat_log_omit_prob(past, counts, gamma, 2.0, mu_t_df=mu_t_df)
    np.testing.assert_allclose(evaluate("table", past, tuple(params.values()), spacing=h),
                               exact, rtol=0, atol=long_.error_bound)
    inside = rng.uniform(-35.0, 45.0, 300)
    np.testing.assert_allclose(long_.evaluate(inside), short.evaluate(inside), rtol=0,
                               atol=long_.error_bound + short.error_bound)


def test_op_graph_equals_numpy_interpolant(op):
    import pytensor
    import pytensor.tensor as pt

    x = np.concatenate([np.linspace(-40, 45, 501), op.table_range])
    xv = pt.dvector("x")
    f = pytensor.function([xv], op(xv))
    np.testing.assert_allclose(f(x), op.evaluate(x), rtol=0, atol=1e-13)


def test_op_gradient_verify_grad_and_finite_differences(op):
    import pytensor

    rng = np.random.default_rng(2)
    for x0 in (-3.3, np.log(100.0), -45.0, 50.0):
        pytensor.gradient.verify_grad(op, [np.array(x0)], rng=rng, abs_tol=1e-7, rel_tol=1e-6)
    import pytensor.tensor as pt

    xv = pt.dvector("x")
    lp = op(xv)
    grad = pytensor.function([xv], pytensor.grad(lp.sum(), xv))
    x = np.linspace(-28, 33, 62)
    h = 1e-5
    fd = (fstat_log_omit_prob(x + h, **PAPER) - fstat_log_omit_prob(x - h, **PAPER)) / (2 * h)
    np.testing.assert_allclose(grad(x), fd, rtol=0, atol=1e-7)


@pytest.mark.parametrize("mode", ["NUMBA", "C", "CVM", "JAX"])
def test_op_backends_and_huge_exponent(op, mode):
    """(p - k) = 1e6 times the Op: finite value and gradient everywhere, C1 at the table ends."""
    if mode == "JAX":
        pytest.importorskip("jax")
    import pytensor
    import pytensor.tensor as pt

    xv = pt.dscalar("x")
    total = 1e6 * op(xv)
    f = pytensor.function([xv], [total, pytensor.grad(total, xv)], mode=mode)
    lo, hi = op.table_range
    prev = -np.inf
    for x0 in (-1e5, -300.0, lo - 1e-9, lo, lo + 1e-9, 0.0, hi - 1e-9, hi, hi + 1e-9, 80.0,
               1e5):
        v, g = (float(a) for a in f(x0))
        assert np.isfinite(v) and np.isfinite(g) and g >= 0
        assert v >= prev
        prev = v
    for edge in (lo, hi):  # value and slope continuous across the ends of the table
        (v0, g0), (v1, g1) = f(edge - 1e-9), f(edge + 1e-9)
        assert abs(v1 - v0) < 1e-6 * 1e6 and abs(g1 - g0) < 1e-4 * 1e6
    # Below the table the extrapolation keeps the asymptotic slope (within 1e-3 here).
    assert float(f(-300.0)[1]) / 1e6 == pytest.approx(op.asymptotic_slope, abs=1e-3)


def test_op_float32_and_vector_input(op):
    import pytensor
    import pytensor.tensor as pt

    xv = pt.fvector("x")
    out = op(xv)
    assert out.dtype == "float64"
    x = np.array([-2.0, 1.5, 4.5], dtype=np.float32)
    np.testing.assert_allclose(pytensor.function([xv], out)(x), op.evaluate(x.astype(float)),
                               atol=1e-13)
    # Numbers and numpy arrays are accepted too.
    assert float(op(np.log(100.0)).eval()) == pytest.approx(op.evaluate(np.log(100.0)))


def test_op_mc_method_tabulates_the_paper_recipe():
    op_mc = FStatOmitLogProb(**PAPER, method="mc", n_draws=300, seed=5)
    assert op_mc.table_range[0] == -10.0
    x = np.linspace(-5.0, 8.0, 27)
    ref = fstat_log_omit_prob(x, **PAPER, method="mc", n_draws=300, seed=5)
    np.testing.assert_allclose(op_mc.evaluate(x), ref, atol=1e-8)
    # A different pool is a different function (the whole point of the error study).
    other = fstat_log_omit_prob(x, **PAPER, method="mc", n_draws=300, seed=6)
    assert np.max(np.abs(other - ref)) > 1e-3


def _posterior_moments_by_quadrature(n_omitted, prior_mu, prior_sd):
    """Mean, sd and fourth central moment of the 1-D posterior, on a fine grid."""
    x = np.linspace(prior_mu - 8 * prior_sd, prior_mu + 8 * prior_sd, 8001)
    logpost = (stats.norm.logpdf(x, prior_mu, prior_sd)
               + n_omitted * fstat_log_omit_prob(x, **PAPER))
    w = np.exp(logpost - logpost.max())
    w /= w.sum()
    mean = np.sum(w * x)
    sd = np.sqrt(np.sum(w * (x - mean) ** 2))
    m4 = np.sum(w * (x - mean) ** 4)
    return mean, sd, m4


def _check_samples(draws, n_omitted, prior_mu, prior_sd):
    import arviz as az

    mean, sd, m4 = _posterior_moments_by_quadrature(n_omitted, prior_mu, prior_sd)
    ess = float(az.ess(draws.reshape(draws.shape[0], -1)))
    mcse = sd / np.sqrt(ess)
    assert abs(draws.mean() - mean) < 4 * mcse, (draws.mean(), mean, mcse)
    # MC s.e. of the sample sd by the delta method: Var(s^2) ~ (m4 - sd^4) / ESS_sq, with
    # ESS_sq the ESS of the squared deviations and m4 from the quadrature (normal: sd/sqrt(2
    # ESS)); se(s) = se(s^2) / (2 sd). Tolerance 4 s.e.
    ess_sq = float(az.ess((draws.reshape(draws.shape[0], -1) - mean) ** 2))
    se_sd = np.sqrt((m4 - sd**4) / ess_sq) / (2 * sd)
    assert abs(draws.std() - sd) < 4 * se_sd, (draws.std(), sd, se_sd)


def test_op_in_pymc_nuts_posterior():
    """1-D posterior N(2, 1.5) x P^3800 sampled by PyMC's NUTS vs quadrature."""
    import pymc as pm

    op = FStatOmitLogProb(**PAPER)
    with pm.Model():
        x = pm.Normal("x", 2.0, 1.5)
        pm.Potential("selection_adjustment", 3800 * op(x))
        idata = pm.sample(draws=800, tune=500, chains=2, cores=1, random_seed=11,
                          progressbar=False, compute_convergence_checks=False)
    draws = np.asarray(idata.posterior["x"])
    _check_samples(draws, 3800, 2.0, 1.5)


@pytest.mark.slow
def test_op_in_nutpie_posterior():
    import pymc as pm

    nutpie = pytest.importorskip("nutpie")
    op = FStatOmitLogProb(**PAPER)
    with pm.Model() as model:
        x = pm.Normal("x", 2.0, 1.5)
        pm.Potential("selection_adjustment", 3800 * op(x))
    compiled = nutpie.compile_pymc_model(model, backend="numba")
    idata = nutpie.sample(compiled, draws=1000, tune=500, chains=2, seed=3, progress_bar=False)
    draws = np.asarray(idata.posterior["x"])
    _check_samples(draws, 3800, 2.0, 1.5)


def test_between_eigenvalues_balanced():
    np.testing.assert_allclose(between_eigenvalues(np.full(5, 7)), np.full(4, 7.0), rtol=1e-12)


# --------------------------------------------------------------------------- t prior on mu
@pytest.mark.parametrize("alpha, df", [(4.0, 3.0), (0.1, 4.0)])
def test_t_prior_is_an_average_over_the_variance_scale(alpha, df):
    """mu | lambda ~ N(nu, 1/(tau_mu lambda)): P_t(x) = E_lambda[P(x + log lambda)] by quad.
    alpha_x = 0.1: scipy's F quantile at 1e-19 is no quantile there (a tiny number whose cdf
    is 1e-15), and until 2026-12-07 the grid's lower end taken from it was too narrow (an
    internal error)."""
    counts, gamma = np.array([5, 20, 12, 3]), 2.0
    x = np.array([-5.0, 0.5, 8.0])
    got = fstat_log_omit_prob(x, counts, gamma, alpha, mu_t_df=df)

    # E over v = log lambda, lambda ~ Gamma(df/2, rate df/2): composite Gauss-Legendre, 48
    # nodes on each unit panel of [-60, 30], the normal-prior factor evaluated at all nodes at
    # once (scipy's adaptive quad of the same integrand, epsrel 1e-12, agrees to 1e-15 and
    # takes 30 times longer, a scalar call per node)
    nodes, weights = np.polynomial.legendre.leggauss(48)
    mid = np.arange(-60.0, 30.0) + 0.5
    v = (mid[:, None] + 0.5 * nodes).ravel()
    log_w = np.log(np.tile(0.5 * weights, mid.size))
    log_mix = stats.gamma.logpdf(np.exp(v), df / 2, scale=2 / df) + v + log_w
    ref = [logsumexp(fstat_log_omit_prob(x0 + v, counts, gamma, alpha) + log_mix) for x0 in x]
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10)
    # df -> inf recovers the normal prior (the difference is O(1/df)).
    big = fstat_log_omit_prob(x, counts, gamma, alpha, mu_t_df=1e7)
    np.testing.assert_allclose(big, fstat_log_omit_prob(x, counts, gamma, alpha), atol=1e-6)


@pytest.mark.parametrize("df", [1.0, 4.0])
def test_t_prior_matches_brute_force_simulation(df):
    rng = np.random.default_rng(int(10 * df))
    counts = np.array([3, 20, 8, 14])
    xs = np.log([1.0, 30.0, 1e3])
    exact = np.exp(fstat_log_omit_prob(xs, counts, 2.5, 4.0, mu_t_df=df))
    for x, p in zip(xs, exact, strict=True):
        p_hat = simulate_f_sufficient(x, counts, 2.5, 4.0, 200_000, rng, t_df=df)
        assert_within_binomial_se(p_hat, p, 200_000)


@pytest.mark.parametrize("df", [0.5, 3.0])
def test_op_with_t_prior(df):
    counts = np.array([8, 2, 15, 6, 9, 4])
    op = FStatOmitLogProb(counts, 3.15, 2.0, mu_t_df=df)
    lo, hi = op.table_range
    assert op.rate_high == min(1.0, df / 2)
    x = np.linspace(lo, hi, 701)
    ref = fstat_log_omit_prob(x, counts, 3.15, 2.0, mu_t_df=df)
    np.testing.assert_allclose(op.evaluate(x), ref, rtol=0, atol=1e-8)
    assert op.limit_high - op.edge_values["l_hi"] < 1e-10
    # Beyond the table the value keeps rising to (within 1e-10 of) the limit, C1 at the edge.
    v, d = op.evaluate(np.array([hi - 1e-9, hi + 1e-9, hi + 50.0]), derivative=True)
    assert abs(v[1] - v[0]) < 1e-12 and abs(d[1] - d[0]) < 1e-12
    assert v[0] <= v[2] <= op.limit_high + 1e-12


@pytest.mark.parametrize("df", [None, 2.0, 7.5])
def test_tables_share_one_prior_per_alpha_and_df_with_the_values_of_a_new_one(df):
    """The prior's tail limits (scipy root finding) are made once per (alpha, df)."""
    a = ExactTable.build(PAPER["class_counts"], 3.15, 4.0, -5.0, 5.0, mu_t_df=df)
    b = ExactTable.build(PAPER["class_counts"], 2.0, np.float64(4.0), -3.0, 8.0, mu_t_df=df)
    assert a.prior is b.prior is prior_u(4.0, df)
    fresh = _PriorU(4.0, df)
    assert (a.prior.u_lo, a.prior.u_hi) == (fresh.u_lo, fresh.u_hi)
    u = np.linspace(-10.0, 10.0, 7)
    np.testing.assert_array_equal(a.prior.log_density(u), fresh.log_density(u))
    assert prior_u(4.5, df) is not a.prior


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("kwargs, exc, match", [
    ({"log_scale": True}, TypeError, "log_scale must be numeric"),
    ({"log_scale": "a"}, TypeError, "log_scale must be numeric"),
    ({"log_scale": np.nan}, ValueError, "log_scale contains NaN"),
    ({"method": "mc", "seed": -1}, ValueError, "seed must be None, an int >= 0"),
    ({"method": "mc", "seed": 1.5}, TypeError, "seed must be None"),
    ({"method": "mc", "seed": "x"}, TypeError, "seed must be None"),
    ({"method": "mc", "mc_cutoff": 1.5}, ValueError, "mc_cutoff"),
    ({"threshold": True}, TypeError, "threshold must be a number"),
    ({"threshold": 0.0}, ValueError, "threshold must be > 0"),
])
def test_fstat_log_omit_prob_names_bad_input(kwargs, exc, match):
    args = {"log_scale": np.array([0.0, 1.0]), "class_counts": [10, 10], "threshold": 2.0,
            "alpha_x": 4.0, **kwargs}
    with pytest.raises(exc, match=match):
        fstat_log_omit_prob(**args)
