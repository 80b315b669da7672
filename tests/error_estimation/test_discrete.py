"""Discrete-model BEE and conditional MSE (spec section 2) against independent references."""

import numpy as np
import pytest

from selbayes.error_estimation import (
    class_prob_moments,
    discrete_bee,
    discrete_bee_result,
    discrete_conditional_mse,
)

K = 400_000  # posterior draws; tolerance 4 standard errors


def _posterior_mc(labels, U, V, a0, a1, class_prob, rng):
    """Brute force: draw (c, p, q) from the exact posterior, compute the true error exactly."""
    labels = np.asarray(labels)
    p = rng.dirichlet(U + a0, size=K)
    q = rng.dirichlet(V + a1, size=K)
    e0 = p @ (labels == 1)
    e1 = q @ (labels == 0)
    n0, n1 = U.sum(), V.sum()
    if isinstance(class_prob, float):
        c = np.full(K, class_prob)
    else:
        a, b = (1.0, 1.0) if class_prob is None else class_prob
        c = rng.beta(a + n0, b + n1, size=K)
    return e0, e1, c * e0 + (1 - c) * e1


def _close(value, draws, what):
    se = draws.std() / np.sqrt(draws.size)
    assert abs(value - draws.mean()) <= 4 * se + 1e-15, (what, value, draws.mean(), se)


PROBLEMS = [
    # labels, counts0, counts1, alpha0, alpha1, class_prob
    ([0, 0, 1, 1, 0, 1], [5, 2, 0, 1, 0, 0], [0, 1, 3, 2, 0, 1], 1.0, 1.0, None),
    ([0, 1, 1, 0, 0, 1], [3, 2, 0, 1, 0, 2], [1, 0, 3, 0, 2, 1],
     [2.0, 0.5, 1.0, 1.0, 0.3, 1.2], [0.2, 1.0, 3.0, 1.0, 1.0, 0.5], (2.0, 1.0)),
    ([1, 0, 1, 0], [0, 0, 0, 0], [2, 0, 1, 0], 0.5, 2.0, 0.3),   # class 0 empty
    ([0, 0, 0, 0, 0], [1, 4, 0, 2, 0], [3, 0, 0, 1, 1], 1.0, 1.0, (1.0, 3.0)),  # constant
]


@pytest.mark.parametrize("problem", PROBLEMS)
def test_closed_forms_match_posterior_monte_carlo(problem):
    labels, U, V, a0, a1, cp = problem
    U, V = np.asarray(U, float), np.asarray(V, float)
    rng = np.random.default_rng(12)
    a0v = np.broadcast_to(np.asarray(a0, float), U.shape)
    a1v = np.broadcast_to(np.asarray(a1, float), U.shape)
    e0, e1, eps = _posterior_mc(labels, U, V, a0v, a1v, cp, rng)
    r = discrete_bee_result(labels, U, V, a0, a1, cp)
    _close(r.class_errors[0], e0, "eps0")
    _close(r.class_errors[1], e1, "eps1")
    _close(r.class_second_moments[0], e0**2, "M0")
    _close(r.class_second_moments[1], e1**2, "M1")
    _close(r.estimate, eps, "BEE")
    _close(r.mse, (eps - eps.mean()) ** 2, "MSE")
    assert discrete_bee(labels, U, V, a0, a1, cp) == r.estimate
    assert discrete_conditional_mse(labels, U, V, a0, a1, cp) == r.mse


def test_mse_equals_corrected_spec_formula_with_beta_prior():
    """Spec section 2 display (with the N factor the dump drops), typed in independently."""
    labels = np.array([0, 1, 1, 0, 1, 0, 0])
    U = np.array([4, 0, 1, 3, 0, 2, 1.0])
    V = np.array([0, 3, 2, 1, 1, 0, 2.0])
    al0, al1 = 2.5, 0.7   # Beta prior on c
    r = discrete_bee_result(labels, U, V, 1.0, 1.0, (al0, al1))
    n0, n1, b = U.sum(), V.sum(), len(U)
    N = al0 + al1 + n0 + n1
    e0 = np.sum((U + 1) * (labels == 1)) / (n0 + b)
    e1 = np.sum((V + 1) * (labels == 0)) / (n1 + b)
    mse = ((al0 + n0) * (al1 + n1) / (N**2 * (N + 1)) * (e0 - e1) ** 2
           + (al0 + n0) * (al0 + n0 + 1) / (N * (N + 1)) * e0 * (1 - e0) / (n0 + b + 1)
           + (al1 + n1) * (al1 + n1 + 1) / (N * (N + 1)) * e1 * (1 - e1) / (n1 + b + 1))
    assert r.estimate == pytest.approx((al0 + n0) / N * e0 + (al1 + n1) / N * e1, rel=1e-13)
    assert r.mse == pytest.approx(mse, rel=1e-12)
    # the dump's display (no N in the E[c^2] denominators) is a different number
    wrong = ((al0 + n0) * (al1 + n1) / (N**2 * (N + 1)) * (e0 - e1) ** 2
             + (al0 + n0) * (al0 + n0 + 1) / (N + 1) * e0 * (1 - e0) / (n0 + b + 1)
             + (al1 + n1) * (al1 + n1 + 1) / (N + 1) * e1 * (1 - e1) / (n1 + b + 1))
    assert abs(r.mse - wrong) > 10 * r.mse


def test_uniform_prior_plugin_form_and_two_bins():
    rng = np.random.default_rng(3)
    for _ in range(20):
        b = int(rng.integers(2, 9))
        U, V = rng.integers(0, 5, b), rng.integers(0, 5, b)
        lab = rng.integers(0, 2, b)
        n0, n1, n = U.sum(), V.sum(), U.sum() + V.sum()
        plug = ((n0 + 1) / (n + 2) * np.sum((U + 1) / (n0 + b) * (lab == 1))
                + (n1 + 1) / (n + 2) * np.sum((V + 1) / (n1 + b) * (lab == 0)))
        assert discrete_bee(lab, U, V) == pytest.approx(plug, rel=1e-13)
    # b = 2 (III.A.1): eps0_hat = (U_1 + 1)/(n0 + 2) when bin 1 (0-based) is labelled 1
    r = discrete_bee_result([0, 1], [4, 3], [2, 5])
    assert r.class_errors[0] == pytest.approx(4 / 9)
    assert r.class_errors[1] == pytest.approx(3 / 9)


def test_class_variance_is_beta_variance():
    U, V = np.array([2, 0, 5, 1.0]), np.array([0, 4, 1, 1.0])
    lab = np.array([0, 1, 0, 1])
    alpha0 = np.array([0.5, 1, 2, 1.0])
    r = discrete_bee_result(lab, U, V, alpha0, 1.0, 0.5)
    for y, (n, A) in enumerate([(U.sum(), alpha0.sum()), (V.sum(), 4.0)]):
        e = r.class_errors[y]
        var = r.class_second_moments[y] - e**2
        assert var == pytest.approx(e * (1 - e) / (n + A + 1), rel=1e-12)
    # known c: Var(c) = 0, so MSE = c^2 Var0 + (1 - c)^2 Var1
    v0 = r.class_second_moments[0] - r.class_errors[0] ** 2
    v1 = r.class_second_moments[1] - r.class_errors[1] ** 2
    assert r.mse == pytest.approx(0.25 * v0 + 0.25 * v1, rel=1e-12)


def test_rms_bound_over_random_problems():
    """VI.B: with alpha^y <= A_y, MSE <= bee(1 - bee)/(alpha0 + alpha1 + n + 1) <= 1/(4n)."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(300):
        b = int(rng.integers(2, 17))
        n = int(rng.integers(1, 40))
        U = rng.multinomial(int(rng.integers(0, n + 1)), rng.dirichlet(np.ones(b)))
        V = rng.multinomial(n - U.sum(), rng.dirichlet(np.ones(b)))
        labels = rng.integers(0, 2, size=(8, b))   # batch of classifiers on one sample
        a0, a1 = rng.uniform(0.1, 3, b), rng.uniform(0.1, 3, b)
        cp = (rng.uniform(0.05, min(a0.sum(), 5)), rng.uniform(0.05, min(a1.sum(), 5)))
        r = discrete_bee_result(labels, U, V, a0, a1, cp)
        bound = r.estimate * (1 - r.estimate) / (cp[0] + cp[1] + n + 1)
        assert np.all(r.mse <= bound * (1 + 1e-12))
        assert np.all(np.sqrt(r.mse) <= np.sqrt(1 / (4 * n)))
        worst = max(worst, float(np.max(r.mse * 4 * n)))
    assert worst > 0.3   # the bound is not vacuous for these problems


def test_unbiased_and_calibrated_over_prior_and_sampling():
    """Draw (c, p, q) from the prior, then a sample: E[BEE] = E[eps], E[MSE] = E[(eps - BEE)^2]."""
    rng = np.random.default_rng(11)
    b, n, T = 8, 16, 6000
    i = np.arange(1, b + 1)
    a0 = (2 * b - 2 * i + 1) / np.sum(2 * b - 2 * i + 1) * b   # VI.C.1 priors
    a1 = (2 * i - 1) / np.sum(2 * i - 1) * b
    c = rng.uniform(size=T)
    p, q = rng.dirichlet(a0, T), rng.dirichlet(a1, T)
    n0 = rng.binomial(n, c)
    U = rng.multinomial(n0, p)
    V = rng.multinomial(n - n0, q)
    labels = (V > U).astype(int)   # histogram rule, ties to class 0
    eps = c * np.sum(p * (labels == 1), 1) + (1 - c) * np.sum(q * (labels == 0), 1)
    res = [discrete_bee_result(labels[t], U[t], V[t], a0, a1) for t in range(T)]
    bee = np.array([r.estimate for r in res])
    mse = np.array([r.mse for r in res])
    d = eps - bee
    assert abs(d.mean()) <= 4 * d.std() / np.sqrt(T)
    z = d**2 - mse
    assert abs(z.mean()) <= 4 * z.std() / np.sqrt(T)


def test_batch_matches_loop_and_mse_of_other_estimates():
    U, V = np.array([3, 0, 2, 1]), np.array([0, 2, 2, 3])
    labels = np.array([[0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 0, 0]])
    r = discrete_bee_result(labels, U, V, 1.0, 1.0, (1.0, 2.0))
    assert r.estimate.shape == (3,)
    for k in range(3):
        rk = discrete_bee_result(labels[k], U, V, 1.0, 1.0, (1.0, 2.0))
        assert r.estimate[k] == pytest.approx(rk.estimate, rel=1e-14)
        assert r.mse[k] == pytest.approx(rk.mse, rel=1e-14)
    # (5.8): MSE of another estimate = E[(eps - other)^2], checked by posterior Monte Carlo
    rng = np.random.default_rng(5)
    _, _, eps = _posterior_mc(labels[0], U.astype(float), V.astype(float), np.ones(4),
                              np.ones(4), (1.0, 2.0), rng)
    _close(float(r.mse_of(0.1)[0]), (eps - 0.1) ** 2, "MSE of 0.1")


def test_extreme_inputs_finite():
    # no data at all: posterior = prior
    r = discrete_bee_result([0, 1, 1], [0, 0, 0], [0, 0, 0])
    assert r.estimate == pytest.approx(0.5 * 2 / 3 + 0.5 * 1 / 3)
    assert np.isfinite(r.mse) and r.mse > 0
    # known c at its limits
    assert discrete_bee([0, 1], [3, 1], [1, 3], class_prob=1.0) == pytest.approx(2 / 6)
    assert discrete_bee([0, 1], [3, 1], [1, 3], class_prob=0.0) == pytest.approx(2 / 6)
    # tiny Dirichlet parameters and large counts stay finite and in [0, 1]
    r = discrete_bee_result([0, 1, 0], [10**6, 0, 0], [0, 10**6, 0], 1e-12, 1e-12)
    assert 0 <= r.estimate <= 1e-6 and 0 <= r.mse < 1e-12
    assert class_prob_moments(3, 4, 0.25).var == 0.0


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(labels=[0, 2], counts0=[1, 1], counts1=[1, 1]), ValueError, "labels"),
    (dict(labels=[0, 1, 1], counts0=[1, 1], counts1=[1, 1]), ValueError, "labels"),
    (dict(labels=[0, 1], counts0=[1, -1], counts1=[1, 1]), ValueError, "counts0"),
    (dict(labels=[0, 1], counts0=[1, 1], counts1=[1.5, 1]), ValueError, "counts1"),
    (dict(labels=[0, 1], counts0=[1, 1], counts1=[1, 1, 1]), ValueError, "same number"),
    (dict(labels=[0, 1], counts0=[1, 1], counts1=[1, 1], alpha0=0.0), ValueError, "alpha0"),
    (dict(labels=[0, 1], counts0=[1, 1], counts1=[1, 1], alpha1=[1, 1, 1]), ValueError, "alpha1"),
    (dict(labels=[0, 1], counts0=[1, 1], counts1=[1, 1], class_prob=1.5), ValueError, "class_prob"),
    (dict(labels=[0, 1], counts0=[1, 1], counts1=[1, 1], class_prob=(1, 0)), ValueError,
     "class_prob"),
    (dict(labels=[0, 1], counts0=[1, 1], counts1=[1, 1], class_prob="u"), TypeError, "class_prob"),
    (dict(labels=[0, 1], counts0=["a", "b"], counts1=[1, 1]), TypeError, "counts0"),
])
def test_bad_input_raises(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        discrete_bee_result(**kwargs)


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("n0, n1, class_prob, exc, match", [
    (-1, 5, None, ValueError, "n0 must be a whole number >= 0"),
    (1.5, 5, None, ValueError, "n0 must be a whole number"),
    (True, 5, None, ValueError, "n0 must be a whole number"),
    ("x", 5, None, ValueError, "n0 must be a whole number"),
    (5, np.nan, None, ValueError, "n1 must be a whole number"),
    (5, 5, (True, 1), TypeError, "class_prob must be None"),
    (5, 5, ("1", "1"), TypeError, "class_prob must be None"),
    (5, 5, "0.5", TypeError, "class_prob must be None"),
])
def test_class_prob_moments_names_bad_input(n0, n1, class_prob, exc, match):
    with pytest.raises(exc, match=match):
        class_prob_moments(n0, n1, class_prob)


@pytest.mark.parametrize("alpha", [True, "1", ["1", "1"]])
def test_discrete_alpha_must_be_numeric(alpha):
    with pytest.raises(TypeError, match="alpha0 .* must be numeric"):
        discrete_bee([0, 1], [3, 1], [0, 4], alpha0=alpha)
