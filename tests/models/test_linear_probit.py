"""The all-features Bayesian probit regression (expectation propagation) against independent
references: Monte Carlo over the prior for the marginal likelihood and the predictive, and
recovery of the prior scale from data drawn from the model."""

import numpy as np
import pytest
from scipy.special import log_ndtr, ndtr

from selbayes.models import ep_probit, fit_linear_probit
from selbayes.models._linear_probit import INTERCEPT_VARIANCE, LOG_S_SD, fit_gram

from ._importance import BATCH, DRAWS, EP_PREDICTIVE_ALLOWANCE, WeightedMean

N, P = 6, 20
# EP is an approximation: on 6 cases Kuss and Rasmussen (2005) and our own runs put its log
# marginal likelihood within 0.01 nats of the exact one; the Monte Carlo SE is added on top
EP_ALLOWANCE = 0.02


def _kernel(X, s):
    Z = (X - X[:N].mean(0)) / X[:N].std(0, ddof=1)
    return s * Z @ Z.T / X.shape[1] + INTERCEPT_VARIANCE


@pytest.mark.parametrize("s", [0.5, 5.0, 50.0])
def test_marginal_likelihood_and_predictive_match_monte_carlo(s):
    """Reference: E[prod_i Phi(y_i f_i)] and E[Phi(f*) prod_i Phi(y_i f_i)] / E[...] over the
    prior of (f, f*) (draws, not EP)."""
    rng = np.random.default_rng(int(s * 10))
    X = rng.normal(size=(N + 1, P))
    y = np.array([1.0, 1.0, -1.0, 1.0, -1.0, -1.0])
    Kall = _kernel(X, s)
    nu, tau, L, log_z = ep_probit(Kall[:N, :N], y)
    mc = WeightedMean()
    for _ in range(DRAWS // BATCH):
        f = rng.multivariate_normal(np.zeros(N + 1), Kall, size=BATCH)
        mc.add(ndtr(y * f[:, :N]).prod(1), ndtr(f[:, N]))
    assert abs(log_z - mc.log_mean_w) < 4 * mc.log_mean_w_se + EP_ALLOWANCE
    # the predictive of the test row at this s (Algorithm 3.6), against Monte Carlo
    fit = fit_linear_probit(X[:N], (y > 0).astype(int))
    fit.log_s, fit.weights, fit.sites = np.array([np.log(s)]), np.array([1.0]), [(nu, tau)]
    p_ep = float(np.exp(fit.predict_log_proba(X[N:])[0, 1]))
    assert abs(p_ep - mc.mean) < 4 * mc.se + EP_PREDICTIVE_ALLOWANCE


def test_predictive_with_the_scale_integrated_matches_monte_carlo():
    """Reference: log s drawn from its prior, then (f, f*) from the prior given s; the same
    draws estimate the marginal likelihood with s integrated, E[prod_i Phi(y_i f_i)], which
    ``fit_gram(..., return_log_evidence=True)`` gives from EP."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(N + 1, P))
    y01 = np.array([1, 1, 1, 0, 0, 1])
    fit = fit_linear_probit(X[:N], y01)
    p_ep = float(np.exp(fit.predict_log_proba(X[N:])[0, 1]))
    Z = (X - X[:N].mean(0)) / X[:N].std(0, ddof=1)
    e, V = np.linalg.eigh(Z @ Z.T / P)
    e = np.clip(e, 0, None)
    y = 2.0 * y01 - 1
    mc = WeightedMean()
    for _ in range(DRAWS // BATCH):
        log_s = rng.normal(scale=LOG_S_SD, size=BATCH)
        f = np.sqrt(np.exp(log_s))[:, None] * ((rng.normal(size=(log_s.size, N + 1))
                                                 * np.sqrt(e)) @ V.T)
        f += rng.normal(scale=np.sqrt(INTERCEPT_VARIANCE), size=(log_s.size, 1))
        mc.add(ndtr(y * f[:, :N]).prod(1), ndtr(f[:, N]))
    assert abs(p_ep - mc.mean) < 4 * mc.se + EP_PREDICTIVE_ALLOWANCE
    w, _, log_evidence = fit_gram(Z[:N] @ Z[:N].T / P, y, return_log_evidence=True)
    np.testing.assert_allclose(w, fit.weights, rtol=1e-12)
    assert abs(log_evidence - mc.log_mean_w) < 4 * mc.log_mean_w_se + EP_ALLOWANCE


def test_the_posterior_scale_follows_the_scale_the_labels_were_drawn_with():
    """More cases than features, labels drawn from the model with s = 0.3 and s = 30: the
    true log s lies within 4 posterior standard deviations of the posterior mean of log s
    (from the grid's posterior weights; plus half the grid's step, its resolution), and the
    two posteriors are apart (the prior is centred on log s = 0)."""
    rng = np.random.default_rng(3)
    n, p = 150, 30
    means = []
    for s_true in (0.3, 30.0):
        w = rng.normal(scale=np.sqrt(s_true / p), size=p)
        X = rng.normal(size=(n, p))
        f = (X - X.mean(0)) / X.std(0, ddof=1) @ w
        y = (rng.random(n) < ndtr(f)).astype(int)
        fit = fit_linear_probit(X, y)
        mean = fit.weights @ fit.log_s
        sd = np.sqrt(fit.weights @ (fit.log_s - mean) ** 2)
        half_step = (fit.log_s[1] - fit.log_s[0]) / 2
        assert abs(mean - np.log(s_true)) < 4 * sd + half_step, (s_true, mean, sd)
        means.append((mean, sd))
    (m0, sd0), (m1, sd1) = means
    assert m1 - m0 > 4 * np.hypot(sd0, sd1)


def test_bad_labels_and_constant_features():
    X = np.random.default_rng(0).normal(size=(10, 4))
    with pytest.raises(ValueError, match="two classes only"):
        fit_linear_probit(X, np.arange(10) % 3)
    with pytest.raises(ValueError, match="two classes only"):
        fit_linear_probit(X, np.zeros(10, int))
    with pytest.raises(ValueError, match="no feature varies"):
        fit_linear_probit(np.ones((10, 4)), np.arange(10) % 2)
    X[:, 2] = 5.0                                    # a constant feature is dropped
    fit = fit_linear_probit(X, np.arange(10) % 2)
    assert fit.Z.shape == (10, 3)
    assert np.isfinite(fit.predict_log_proba(X)).all()


@pytest.mark.parametrize("value", [-0.11952286093343936, np.log2(100.0), 0.1 * 3, 1e4 / 3])
def test_a_feature_constant_over_the_training_cases_is_dropped_whatever_its_value(value):
    # all training values equal, but not to a number a sum of them reproduces exactly (a
    # floored gene after log2, a standardised gene that varies only in other cases): its
    # computed sd is a rounding residue of about 1e-17, not 0. Standardised by that residue a
    # test case off the constant got z of about 1e17, and the predictive of every test case
    # went to a coin flip (found on the plasmode suite's real X, 2026-12-05). The reference:
    # the same fit without the feature.
    rng = np.random.default_rng(1)
    n = 70
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 30))
    X[:, :5] += 0.8 * y[:, None]
    X[:, 7] = value
    fit = fit_linear_probit(X, y)
    assert not fit.keep[7] and fit.Z.shape == (n, 29)
    Xt = rng.normal(size=(10, 30))
    Xt[:, :5] += 0.8 * (np.arange(10) % 2)[:, None]
    Xt[:, 7] = value + 10.0                         # off the training constant
    without = fit_linear_probit(np.delete(X, 7, axis=1), y)
    np.testing.assert_allclose(fit.predict_log_proba(Xt),
                               without.predict_log_proba(np.delete(Xt, 7, axis=1)),
                               rtol=1e-12, atol=1e-12)
    assert np.ptp(fit.predict_log_proba(Xt)[:, 1]) > 0.5     # not a coin flip everywhere


def _python_sweep(Sigma, mu, nu, tau, y, min_tau):
    """One sweep of site updates as the model had it in numpy (the posterior mean recomputed
    as Sigma @ nu after each site): Sigma, nu and tau updated in place, the new mu returned.
    The reference for _linear_probit_nb.ep_sweep."""
    for i in range(y.size):
        tau_c = 1.0 / Sigma[i, i] - tau[i]
        nu_c = mu[i] / Sigma[i, i] - nu[i]
        m_c, v_c = nu_c / tau_c, 1.0 / tau_c
        z = y[i] * m_c / np.sqrt(1.0 + v_c)
        r = np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - log_ndtr(z))
        mu_hat = m_c + y[i] * v_c * r / np.sqrt(1.0 + v_c)
        var_hat = v_c - v_c ** 2 * r / (1.0 + v_c) * (z + r)
        d_tau = max(1.0 / var_hat - tau_c - tau[i], min_tau - tau[i])
        tau[i] += d_tau
        nu[i] = mu_hat / var_hat - nu_c
        if d_tau != 0.0:
            s = Sigma[:, i].copy()
            Sigma -= np.outer(s, s) / (1.0 / d_tau + s[i])
        mu = Sigma @ nu
    return mu


def _python_ep(K, y, min_tau, tol=1e-8, max_sweeps=100):
    """Algorithm 3.5 and eqs. 3.59 and 3.65 of Rasmussen and Williams as the model had them in
    numpy before they were compiled: the reference for ep_probit."""
    n = y.size
    nu, tau = np.zeros(n), np.zeros(n)
    Sigma, mu = K.copy(), np.zeros(n)
    log_z_old = -np.inf
    for _ in range(max_sweeps):
        mu = _python_sweep(Sigma, mu, nu, tau, y, min_tau)
        sq = np.sqrt(tau)
        L = np.linalg.cholesky(np.eye(n) + sq[:, None] * K * sq[None, :])
        V = np.linalg.solve(L, sq[:, None] * K)
        Sigma = K - V.T @ V
        mu = Sigma @ nu
        d = np.diag(Sigma)
        m_c, v_c = (mu / d - nu) / (1.0 / d - tau), 1.0 / (1.0 / d - tau)
        z = y * m_c / np.sqrt(1.0 + v_c)
        log_site = (log_ndtr(z) + 0.5 * (np.log(2 * np.pi) + np.log(v_c + 1 / tau))
                    + 0.5 * (m_c - nu / tau) ** 2 / (v_c + 1 / tau))
        b = np.linalg.solve(L, nu / np.sqrt(tau))
        log_z = (log_site.sum() - 0.5 * b @ b - np.log(np.diag(L)).sum()
                 + 0.5 * np.log(tau).sum() - 0.5 * n * np.log(2 * np.pi))
        if abs(log_z - log_z_old) < tol * max(1.0, abs(log_z)):
            break
        log_z_old = log_z
    return nu, tau, L, log_z


def test_the_compiled_normal_functions_are_scipys_from_the_centre_to_the_far_lower_tail():
    """log Phi(z) and N(z) / Phi(z) against scipy's log_ndtr on [-40, 35], both sides of the
    switches (z = -30 and 0) included (scipy's log(Phi) near Phi = 1 is exact to an ulp of 1,
    2.2e-16 nats: the absolute tolerance); the ratio's reference exp(-z^2/2 - log Phi(z)) loses up
    to z^2 ulps to cancellation, 3.5e-13 at -40: its tolerance. Beyond, where Phi underflows,
    the ratio against the asymptotic series x / (1 - 1/x^2 + 3/x^4 - 15/x^6 + 105/x^8), x = -z
    (truncation error below 1e-17 from x = 100)."""
    from selbayes.models._linear_probit_nb import log_normal_cdf, normal_ratio

    z = np.r_[np.linspace(-40, 35, 751), -30 + 1e-9, -30 - 1e-9, 1e-9, -1e-9, -1e3]
    np.testing.assert_allclose([log_normal_cdf(v) for v in z], log_ndtr(z), rtol=1e-14,
                               atol=2.3e-16)
    z = z[:-1]
    ref = np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - log_ndtr(z))
    rel = np.abs(np.array([normal_ratio(v) for v in z]) / ref - 1)
    assert np.all(rel <= 1e-15 + np.finfo(float).eps * z ** 2), rel.max()
    x = np.array([100.0, 1e3, 1e6, 1e150])
    series = x / (1 - x ** -2 + 3 * x ** -4 - 15 * x ** -6 + 105 * x ** -8)
    np.testing.assert_allclose([normal_ratio(-v) for v in x], series, rtol=1e-14, atol=0)


@pytest.mark.parametrize("s", [0.05, 5.0, 500.0])
def test_each_compiled_sweep_is_the_numpy_sweep(s):
    """Sweep by sweep from the prior (six, without the recomputation between them), the
    compiled site updates, with the posterior mean updated in O(n) per site, equal the numpy
    sweep that recomputes it: rounding only. A crude bound on that rounding, eps x n per
    update over 25 x 6 updates, is 4e-13 of each array's largest entry (measured: 2e-14); the
    tolerance is 1e-11. The converged comparison below cannot see an error inside a sweep
    that EP's fixed point forgives; this one can."""
    from selbayes.models._linear_probit import MIN_TAU
    from selbayes.models._linear_probit_nb import ep_sweep

    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 40))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=25) > 0, 1.0, -1.0)
    K = _kernel(X, s)[:25, :25]
    got = [K.copy(), np.zeros(25), np.zeros(25), np.zeros(25)]    # Sigma, mu, nu, tau
    ref = [a.copy() for a in got]
    for _ in range(6):
        ep_sweep(*got, y, MIN_TAU)
        ref[1] = _python_sweep(*ref, y, MIN_TAU)
        for a, b in zip(got, ref, strict=True):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-11 * np.abs(b).max())


@pytest.mark.parametrize("s", [0.05, 5.0, 500.0])
def test_the_compiled_ep_is_the_numpy_ep(s):
    """The compiled EP equals the numpy code it replaced (rounding only): sites, Cholesky
    factor and log marginal likelihood, at small, moderate and separating scales."""
    from selbayes.models._linear_probit import MIN_TAU

    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 40))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=25) > 0, 1.0, -1.0)
    K = _kernel(X, s)[:25, :25]
    got, ref = ep_probit(K, y), _python_ep(K, y, MIN_TAU)
    for a, b in zip(got, ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12 * np.abs(b).max())
    assert np.all(got[1] >= MIN_TAU)


# -------------------------------------------------------------------- bad input is named
def _probit_data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 6)
    return rng.normal(size=(12, 5)) + y[:, None], y


def _with_nan(X):
    X = X.copy()
    X[0, 0] = np.nan
    return X


@pytest.mark.parametrize("call, exc, match", [
    (lambda X, y: fit_linear_probit(_with_nan(X), y), ValueError, "X contains 1 NaN"),
    (lambda X, y: fit_linear_probit(X[:, 0], y), ValueError, "X must be 2-D"),
    (lambda X, y: fit_linear_probit(X, y[:-1]), ValueError, "y has 11 labels but X has 12"),
    (lambda X, y: fit_linear_probit(X, 2 * y), ValueError, "y: the all-features probit"),
    (lambda X, y: fit_linear_probit(X, y, min_weight=-1.0), ValueError, "min_weight"),
    (lambda X, y: fit_linear_probit(X, y, min_weight=np.nan), ValueError, "min_weight"),
    (lambda X, y: fit_linear_probit(X, y, min_weight=1.0), ValueError, "min_weight"),
    (lambda X, y: fit_linear_probit(X, y, min_weight=True), TypeError, "min_weight"),
    (lambda X, y: fit_linear_probit(X, y, min_weight="x"), TypeError, "min_weight"),
    (lambda X, y: fit_linear_probit(X, y).predict_log_proba(X[:, :3]), ValueError,
     "X has 3 columns; the model was fitted on 5"),
    (lambda X, y: fit_linear_probit(X, y).predict_log_proba(_with_nan(X)), ValueError,
     "X contains 1 NaN"),
    (lambda X, y: fit_linear_probit(X, y).predict_log_proba(X[0]), ValueError, "X must be 2-D"),
])
def test_fit_linear_probit_names_bad_input(call, exc, match):
    X, y = _probit_data()
    with pytest.raises(exc, match=match):
        call(X, y)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"K": np.eye(2)}, ValueError, r"K must be the \(3, 3\)"),      # was a heap overrun
    ({"K": np.full((3, 3), np.nan)}, ValueError, "K contains"),
    # these gave NaN (or, indefinite or not symmetric, finite numbers) with no error
    ({"K": -np.eye(3)}, ValueError, "K's diagonal"),
    ({"K": np.zeros((3, 3))}, ValueError, "K's diagonal"),
    ({"K": np.diag([1.0, 0.0, 1.0])}, ValueError, "K's diagonal"),
    ({"K": 1e20 * (2.0 * np.eye(3) + 1.0)}, ValueError, "K's diagonal"),
    ({"K": np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])}, ValueError,
     "positive semi-definite"),
    ({"K": np.array([[1.0, 0.9, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])}, ValueError,
     "symmetric"),
    ({"y": np.array([1.0, 0.0, 1.0])}, ValueError, "y must hold the labels -1 and 1"),
    ({"y": np.array(["a", "b", "a"])}, TypeError, "y must hold the numbers"),
    ({"max_sweeps": 0}, ValueError, "max_sweeps"),
    ({"max_sweeps": 1.5}, ValueError, "max_sweeps"),
    ({"max_sweeps": True}, ValueError, "max_sweeps"),
    ({"tol": -1.0}, ValueError, "tol"),
    ({"tol": np.nan}, ValueError, "tol"),
    ({"tol": "x"}, TypeError, "tol"),
])
def test_ep_probit_names_bad_input(kwargs, exc, match):
    args = {"K": 2.0 * np.eye(3) + 1.0, "y": np.array([1.0, 1.0, -1.0]), **kwargs}
    with pytest.raises(exc, match=match):
        ep_probit(args.pop("K"), args.pop("y"), **args)


def test_min_weight_above_every_weight_keeps_the_best_grid_point():
    X, y = _probit_data()
    fit = fit_linear_probit(X, y, min_weight=0.99)
    assert sum(site is not None for site in fit.sites) == 1
    assert np.allclose(np.exp(fit.predict_log_proba(X[:2])).sum(axis=1), 1.0)


def test_standardised_values_are_those_of_the_textbook_formula():
    """Scaling each column by a power of 2 before the moments (against overflow) changes no
    bit of the standardised values, means or SDs."""
    from selbayes.models._linear_probit import standardise_features

    X = np.random.default_rng(4).normal(size=(15, 6)) * np.array([1e-3, 1, 7, 1e4, 3e-8, 1])
    mean, sd, keep, Z = standardise_features(X)
    assert keep.all()
    assert np.array_equal(mean, X.mean(axis=0))
    assert np.array_equal(sd, np.sqrt(X.var(axis=0, ddof=1)))
    assert np.array_equal(Z, (X - X.mean(axis=0)) / np.sqrt(X.var(axis=0, ddof=1)))


@pytest.mark.parametrize("scale", [1e154, 1e-200])
def test_fit_is_the_same_in_any_units(scale):
    """The probit fit standardises every feature, so its probabilities do not depend on the
    units; at 1e154 the variance overflowed and at 1e-200 it underflowed, and both read as
    "no feature varies over the training cases"."""
    X, y = _probit_data()
    ref = fit_linear_probit(X, y).predict_log_proba(X[:4])
    got = fit_linear_probit(X * scale, y).predict_log_proba(X[:4] * scale)
    # the scaling (not a power of 2) rounds each value by 1 ulp; standardised, Z moves by a
    # few ulp, and EP and the predictive are smooth in Z: 1e-12 (measured 2e-14)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_a_test_case_too_far_out_to_square_is_named():
    """A value 1e153 training SDs out overflowed the predictive: NaN probabilities."""
    from selbayes.models import fit_nested_probit

    X, y = _probit_data()
    far = X[:2].copy()
    far[1, 0] = 1e153         # NaN probabilities before (the check there began at 1e154)
    with pytest.raises(ValueError, match=r"1 test case\(s\) \(first: row 1\) lie beyond 1e\+100"):
        fit_linear_probit(X, y).predict_log_proba(far)
    y3 = np.arange(12) % 3
    with pytest.raises(ValueError, match=r"lie beyond 1e\+100"):
        fit_nested_probit(X, y3).predict_log_proba(far)


def test_features_at_the_ends_of_the_double_range():
    """A feature near 1e308 is standardised (its unit overflowed: NaN mean, the feature
    dropped); one of subnormal spread is constant (training and test z disagreed)."""
    from selbayes.models._linear_probit import standardise_features, standardise_test

    X, _ = _probit_data()
    X = np.column_stack([X[:, :2], 1e308 * np.linspace(-0.9, 0.9, 12),
                         np.r_[np.zeros(11), 5e-324]])
    mean, sd, keep, Z = standardise_features(X)
    assert keep.tolist() == [True, True, True, False]
    # the 1e308 feature is standardised, not only kept: its Z is linspace's own
    ref = np.linspace(-0.9, 0.9, 12)
    np.testing.assert_allclose(Z[:, 2], (ref - ref.mean()) / ref.std(ddof=1), rtol=1e-14,
                               atol=1e-14)
    # training and test scaling agree to rounding: Z is computed in the column's unit, the
    # test values in data units (a few ulp)
    np.testing.assert_allclose(standardise_test(X, mean, sd, keep), Z, rtol=1e-14, atol=1e-14)
