"""Prior-moment tests of selbayes.datasets._simulate.

Every check compares a sample moment with its exact value under the spec's parameterisation,
with a tolerance of Z standard errors derived from the sample size. Each test also computes
what a plausible wrong parameterisation (rate vs scale, variance vs precision, swapped labels)
would give and asserts that it lies many standard errors away, so the test can fail.
"""

import numpy as np
import pytest
from scipy import stats

from selbayes.datasets import (
    BinaryMixtureData,
    BinaryNaiveBayesData,
    GaussianClassificationData,
    binary_mixture,
    binary_naive_bayes,
    gaussian_classification,
    train_test_split,
)

Z = 4.5          # pass band, in standard errors (seeds are fixed; this band is almost never hit)
Z_WRONG = 10     # a wrong parameterisation must land at least this many standard errors away


def assert_moment(estimate, expected, se, wrong=None):
    """|estimate - expected| < Z se, and (if given) every wrong value is > Z_WRONG se away."""
    assert abs(estimate - expected) < Z * se, (estimate, expected, se)
    for w in np.atleast_1d(wrong if wrong is not None else []):
        assert abs(estimate - w) > Z_WRONG * se, (estimate, w, se)


# ---------------------------------------------------------------------------------------------
# Gaussian classification (seed 000 eqs 4-11)


@pytest.fixture(scope="module")
def gauss_params():
    # Many features, few cases: the parameter moments are what is tested here.
    return gaussian_classification(8, 50_000, n_classes=4, tau_mu=9.0, tau_nu=4.0,
                                   alpha_x=4.0, w_x=0.25, random_state=11)


def test_gaussian_nu_variance_is_one_over_tau_nu(gauss_params):
    nu, p = gauss_params.nu, gauss_params.n_features
    # E[nu^2] = 1/tau_nu = 0.25; Var[nu^2] = 2 / tau_nu^2.
    se = np.sqrt(2.0 / p) * 0.25
    # wrong: tau_nu used as the variance (4) or 1/tau_nu used as the sd (1/16)
    assert_moment(np.mean(nu**2), 0.25, se, wrong=[4.0, 1 / 16])
    assert_moment(np.mean(nu), 0.0, np.sqrt(0.25 / p))


def test_gaussian_between_class_variance_is_one_over_tau_mu(gauss_params):
    mu, nu, p = gauss_params.mu, gauss_params.nu, gauss_params.n_features
    G = mu.shape[0]
    s2 = mu.var(axis=0, ddof=1)          # per feature: (1/tau_mu) chi2_{G-1} / (G-1)
    se = (1 / 9) * np.sqrt(2.0 / ((G - 1) * p))
    assert_moment(s2.mean(), 1 / 9, se, wrong=[9.0, 1 / 81, 1 / 9 + 1 / 4])
    # mu is centred on nu: mean_g mu - nu ~ N(0, 1/(G tau_mu))
    dev = mu.mean(axis=0) - nu
    assert_moment(dev.mean(), 0.0, np.sqrt(1 / (9 * G * p)))
    assert_moment(np.mean(dev**2), 1 / (9 * G), np.sqrt(2 / p) / (9 * G))


def test_gaussian_tau_x_prior_shape_rate(gauss_params):
    tau_x, p = gauss_params.tau_x, gauss_params.n_features
    alpha, w = 4.0, 0.25
    mean, var = 1 / w, 2 / (alpha * w**2)          # Gamma(alpha/2, rate alpha w / 2)
    wrong_scale_mean = (alpha / 2) * (alpha * w / 2)  # rate read as scale: 1.0
    assert_moment(tau_x.mean(), mean, np.sqrt(var / p), wrong=[wrong_scale_mean, w])
    # sample variance: Var[s^2] ~ sigma^4 (2 + 6/shape) / p for a Gamma
    assert_moment(tau_x.var(), var, var * np.sqrt((2 + 6 / (alpha / 2)) / p))
    good = stats.kstest(tau_x, stats.gamma(alpha / 2, scale=2 / (alpha * w)).cdf).pvalue
    bad = stats.kstest(tau_x, stats.gamma(alpha / 2, scale=alpha * w / 2).cdf).pvalue
    assert good > 1e-3 and bad < 1e-12


def test_gaussian_data_given_parameters():
    d = gaussian_classification(400, 2000, n_classes=3, tau_mu=1.0, tau_nu=1.0, alpha_x=4.0,
                                w_x=0.25, random_state=5)
    r = (d.X - d.mu[d.y]) * np.sqrt(d.tau_x)           # standardised residuals: iid N(0, 1)
    N = r.size
    assert_moment(r.mean(), 0.0, 1 / np.sqrt(N))
    # wrong: variance 1/tau_x read as sd, i.e. residual var 1/tau_x^2 -> r^2 mean E[1/tau_x]
    wrong = np.mean(((d.X - d.mu[d.y]) * d.tau_x) ** 2)
    assert_moment(np.mean(r**2), 1.0, np.sqrt(2 / N), wrong=wrong)
    # the class decides the mean: shifting the labels inflates the residuals
    shifted = np.mean(((d.X - d.mu[(d.y + 1) % 3]) * np.sqrt(d.tau_x)) ** 2)
    assert shifted > 1 + Z_WRONG * np.sqrt(2 / N)


def test_gaussian_class_probabilities():
    G = 6
    d = gaussian_classification(60_000, 1, n_classes=G, random_state=1)
    frac = np.bincount(d.y, minlength=G) / d.n_samples
    np.testing.assert_allclose(d.psi, np.full(G, 1 / G))
    se = np.sqrt((1 / G) * (1 - 1 / G) / d.n_samples)
    assert np.all(np.abs(frac - 1 / G) < Z * se)

    probs = np.array([0.5, 0.3, 0.2])
    d = gaussian_classification(40_000, 1, n_classes=3, class_probs=probs, random_state=2)
    frac = np.bincount(d.y, minlength=3) / d.n_samples
    assert np.all(np.abs(frac - probs) < Z * np.sqrt(probs * (1 - probs) / d.n_samples))

    d = gaussian_classification(None, 3, n_classes=3, class_counts=[5, 0, 7], random_state=3)
    assert d.psi is None and d.n_samples == 12
    np.testing.assert_array_equal(np.bincount(d.y, minlength=3), [5, 0, 7])


def test_gaussian_dirichlet_class_probabilities():
    c = np.array([1.0, 2.0, 7.0])
    rng = np.random.default_rng(7)
    R = 2000
    psi = np.array([gaussian_classification(1, 1, n_classes=3, dirichlet_c=c,
                                            random_state=rng).psi for _ in range(R)])
    a0 = c.sum()
    mean = c / a0
    se = np.sqrt(c * (a0 - c) / (a0**2 * (a0 + 1)) / R)
    assert np.all(np.abs(psi.mean(axis=0) - mean) < Z * se)
    assert np.all(np.abs(psi.mean(axis=0)[[0, 2]] - 1 / 3) > Z_WRONG * se[[0, 2]])  # not uniform


def test_gaussian_drawn_tau_mu_and_tau_nu():
    rng = np.random.default_rng(3)
    R, p, G = 3000, 40, 3
    am, wm, an, wn = 6.0, 0.5, 3.0, 2.0
    draws = [gaussian_classification(2, p, n_classes=G, tau_mu=None, tau_nu=None,
                                     alpha_mu=am, w_mu=wm, alpha_nu=an, w_nu=wn,
                                     random_state=rng) for _ in range(R)]
    tau_mu = np.array([d.tau_mu for d in draws])
    tau_nu = np.array([d.tau_nu for d in draws])
    for tau, a, w in ((tau_mu, am, wm), (tau_nu, an, wn)):
        mean, var = 1 / w, 2 / (a * w**2)
        assert_moment(tau.mean(), mean, np.sqrt(var / R), wrong=(a / 2) * (a * w / 2))
        assert stats.kstest(tau, stats.gamma(a / 2, scale=2 / (a * w)).cdf).pvalue > 1e-3
    # the drawn tau_mu is the one mu was drawn with: s2_mu * tau_mu ~ chi2_{(G-1)p}/((G-1)p)
    ratio = np.array([d.mu.var(axis=0, ddof=1).mean() * d.tau_mu for d in draws])
    assert_moment(ratio.mean(), 1.0, np.sqrt(2 / ((G - 1) * p * R)))
    ratio_nu = np.array([np.mean(d.nu**2) * d.tau_nu for d in draws])
    assert_moment(ratio_nu.mean(), 1.0, np.sqrt(2 / (p * R)))


def test_gaussian_fixed_taus_are_recorded_and_reproducible():
    a = gaussian_classification(30, 20, n_classes=3, tau_mu=7.0, tau_nu=3.0, random_state=4)
    b = gaussian_classification(30, 20, n_classes=3, tau_mu=7.0, tau_nu=3.0, random_state=4)
    assert isinstance(a, GaussianClassificationData)
    assert (a.tau_mu, a.tau_nu) == (7.0, 3.0)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.X.shape == (30, 20) and a.y.dtype == np.int64 and a.mu.shape == (3, 20)


# ---------------------------------------------------------------------------------------------
# binary naive Bayes (seed 001 eqs 2.15-2.26)


def test_naive_bayes_theta_uniform_and_phi_given_theta():
    alpha, p = 5.0, 100_000
    d = binary_naive_bayes(None, p, alpha=alpha, class_counts=(1, 1), random_state=21)
    assert isinstance(d, BinaryNaiveBayesData) and d.phi.shape == (2, p)
    th = d.theta
    assert_moment(th.mean(), 0.5, np.sqrt(1 / 12 / p))
    assert_moment(th.var(), 1 / 12, np.sqrt((1 / 80 - 1 / 144) / p))   # E[(U-1/2)^4] = 1/80
    dev = d.phi - th
    assert_moment(dev.mean(), 0.0, np.sqrt(np.mean(dev**2) / (2 * p)))
    # Beta(alpha theta, alpha (1 - theta)): Var = theta (1 - theta) / (alpha + 1), so
    # E[(phi - theta)^2] = E[theta (1 - theta)] / (alpha + 1) = (1/6) / (alpha + 1)   (bounded)
    d2 = (dev**2).ravel()
    se = d2.std() / np.sqrt(d2.size)
    # wrong: precision alpha instead of alpha + 1, or alpha read as a variance
    assert_moment(d2.mean(), (1 / 6) / (alpha + 1), se, wrong=[(1 / 6) / alpha, (1 / 6) / 2])
    # and conditionally on theta (away from 0 and 1, where the ratio has light tails)
    mid = (th > 0.2) & (th < 0.8)
    r = (dev[:, mid] ** 2 / (th[mid] * (1 - th[mid]) / (alpha + 1))).ravel()
    assert_moment(r.mean(), 1.0, r.std() / np.sqrt(r.size), wrong=(alpha + 1) / alpha)
    # phi_0 and phi_1 independent given theta
    cross = dev[0] * dev[1] / (th * (1 - th) / (alpha + 1))
    assert_moment(cross.mean(), 0.0, cross.std() / np.sqrt(p))


def test_naive_bayes_alpha_prior_matches_thesis_grid():
    """Drawn alpha ~ IG(0.5, 5): the fractions below the thesis' K=10 midpoint-quantile grid
    (spec section 2.2, a value from the spec, not from this code) are (m - 0.5)/10."""
    grid = np.array([2.60, 4.83, 7.56, 11.45, 17.52, 27.99, 48.57, 98.49, 279.60, 2543.14])
    levels = (np.arange(1, 11) - 0.5) / 10
    rng = np.random.default_rng(8)
    R = 4000
    alpha = np.array([binary_naive_bayes(2, 1, alpha=None, random_state=rng).alpha
                      for _ in range(R)])
    frac = (alpha[:, None] <= grid).mean(axis=0)
    se = np.sqrt(levels * (1 - levels) / R)
    assert np.all(np.abs(frac - levels) < Z * se), frac
    # rate read as scale (1/alpha ~ Gamma(0.5, scale 5)) would put these fractions elsewhere
    wrong = stats.invgamma(0.5, scale=1 / 5).cdf(grid)
    assert np.max(np.abs(wrong - levels) / se) > Z_WRONG
    assert abs(np.mean(alpha <= 21.98) - 0.5) < Z * np.sqrt(0.25 / R)   # median, spec 2.2


def _chi2_ratio(d, labels):
    """Mean of the squared standardised feature counts per group of ``labels`` (1 when the
    features are Bernoulli(phi[group]) given those labels) and its standard error."""
    z2 = []
    for g in (0, 1):
        rows = labels == g
        m = rows.sum()
        ph = d.phi[g]
        ok = (ph > 1e-3) & (ph < 1 - 1e-3)
        counts = d.X[rows][:, ok].sum(axis=0)
        z2.append((counts - m * ph[ok]) ** 2 / (m * ph[ok] * (1 - ph[ok])))
    z2 = np.concatenate(z2)
    return z2.mean(), np.sqrt(2 / z2.size)


def test_naive_bayes_data_given_phi_and_class():
    d = binary_naive_bayes(None, 3000, alpha=2.0, class_counts=(1000, 1000), random_state=4)
    assert d.X.dtype == np.int8 and set(np.unique(d.X)) <= {0, 1}
    np.testing.assert_array_equal(np.bincount(d.y), [1000, 1000])
    assert not np.all(np.diff(d.y) >= 0)           # fixed design, but rows shuffled

    est, se = _chi2_ratio(d, d.y)
    assert_moment(est, 1.0, se)
    wrong, _ = _chi2_ratio(d, 1 - d.y)                 # phi rows swapped
    assert wrong > 1 + Z_WRONG * se


def test_naive_bayes_beta_class_prior_order():
    """dirichlet_c = (f0, f1): P(y = 1) ~ Beta(f1, f0), mean f1 / (f0 + f1)."""
    f0, f1 = 2.0, 6.0
    rng = np.random.default_rng(9)
    R = 3000
    psi1 = np.array([binary_naive_bayes(1, 1, dirichlet_c=(f0, f1), random_state=rng).psi[1]
                     for _ in range(R)])
    se = np.sqrt(f0 * f1 / ((f0 + f1) ** 2 * (f0 + f1 + 1)) / R)
    assert_moment(psi1.mean(), f1 / (f0 + f1), se, wrong=f0 / (f0 + f1))


# ---------------------------------------------------------------------------------------------
# binary mixture (seed 001 eqs 2.64-2.84)


def test_mixture_response_given_z():
    d = binary_mixture(None, 1, class_counts=(20_000, 20_000), random_state=12)
    assert isinstance(d, BinaryMixtureData)
    np.testing.assert_array_equal(d.phi0, [0.1, 0.9])
    for g, target in ((0, 0.1), (1, 0.9)):
        frac = d.y[d.z == g].mean()
        se = np.sqrt(target * (1 - target) / 20_000)
        assert_moment(frac, target, se, wrong=1 - target)


def test_mixture_features_follow_z_not_y():
    d = binary_mixture(None, 2000, alpha=2.0, class_counts=(2000, 2000), random_state=13)

    est, se = _chi2_ratio(d, d.z)
    assert_moment(est, 1.0, se)
    wrong, _ = _chi2_ratio(d, d.y)                     # y differs from z in ~10% of cases
    assert wrong > 1 + Z_WRONG * se


def test_mixture_response_parameters_from_prior():
    alpha0 = 4.0
    rng = np.random.default_rng(14)
    R = 4000
    ds = [binary_mixture(2, 1, phi0=None, alpha0=alpha0, random_state=rng) for _ in range(R)]
    phi0 = np.array([d.phi0 for d in ds])
    theta0 = np.array([d.theta0 for d in ds])
    assert_moment(theta0.mean(), 0.5, np.sqrt(1 / 12 / R))
    assert_moment(phi0.mean(), 0.5, phi0.std() / np.sqrt(2 * R))
    # E[(phi00 - phi10)^2] = 2 E[theta (1 - theta)] / (alpha0 + 1) = (1/3) / (alpha0 + 1)
    d2 = (phi0[:, 0] - phi0[:, 1]) ** 2
    assert_moment(d2.mean(), (1 / 3) / (alpha0 + 1), d2.std() / np.sqrt(R),
                  wrong=[(1 / 3) / alpha0])


def test_mixture_alpha_and_alpha0_inverse_gamma():
    a, b, a0, b0 = 2.0, 3.0, 1.5, 0.5
    rng = np.random.default_rng(15)
    R = 3000
    ds = [binary_mixture(2, 1, alpha=None, phi0=None, a=a, b=b, a0=a0, b0=b0, random_state=rng)
          for _ in range(R)]
    for vals, sh, sc in (([d.alpha for d in ds], a, b), ([d.alpha0 for d in ds], a0, b0)):
        vals = np.asarray(vals)
        levels = np.array([0.1, 0.25, 0.5, 0.75, 0.9])
        q = stats.invgamma(sh, scale=sc).ppf(levels)           # scipy as the reference
        frac = (vals[:, None] <= q).mean(axis=0)
        se = np.sqrt(levels * (1 - levels) / R)
        assert np.all(np.abs(frac - levels) < Z * se)
        wrong = (vals[:, None] <= stats.invgamma(sh, scale=1 / sc).ppf(levels)).mean(axis=0)
        assert np.max(np.abs(wrong - levels) / se) > Z_WRONG


# ---------------------------------------------------------------------------------------------
# train / test split


def test_split_stratified_reproduces_thesis_design():
    d = binary_naive_bayes(None, 50, class_counts=(1100, 1100), random_state=1)
    train, test = d.split(200, stratify="y", random_state=2)
    np.testing.assert_array_equal(np.bincount(train.y), [100, 100])
    np.testing.assert_array_equal(np.bincount(test.y), [1000, 1000])
    assert train.phi is d.phi and test.theta is d.theta

    m = binary_mixture(None, 5, class_counts=(1100, 1100), random_state=3)
    train, test = train_test_split(m, 200, stratify="z", random_state=4)
    np.testing.assert_array_equal(np.bincount(train.z), [100, 100])
    np.testing.assert_array_equal(np.bincount(test.z), [1000, 1000])


def test_split_random_keeps_rows_aligned_and_disjoint():
    d = gaussian_classification(60, 7, n_classes=3, random_state=5)
    train, test = d.split(20, random_state=6)
    assert train.n_samples == 20 and test.n_samples == 40
    both = np.vstack([train.X, test.X])
    idx = [int(np.flatnonzero(np.all(d.X == row, axis=1))[0]) for row in both]
    assert sorted(idx) == list(range(60))                     # a partition of the rows
    np.testing.assert_array_equal(np.concatenate([train.y, test.y]), d.y[idx])

    m = binary_mixture(100, 3, random_state=7)
    tr, te = m.split(30, random_state=8)
    assert tr.z.shape == (30,) and te.z.shape == (70,)


# ---------------------------------------------------------------------------------------------
# argument errors


@pytest.mark.parametrize(
    "call, exc, phrase",
    [
        (lambda: gaussian_classification(0, 5), ValueError, "n must be >= 1"),
        (lambda: gaussian_classification(10, 2.5), TypeError, "p must be an integer"),
        (lambda: gaussian_classification(10, 5, n_classes=1), ValueError, "n_classes"),
        (lambda: gaussian_classification(10, 5, tau_mu=-1.0), ValueError, "tau_mu"),
        (lambda: gaussian_classification(10, 5, tau_mu=None, w_mu=0.0), ValueError, "w_mu"),
        (lambda: gaussian_classification(10, 5, n_classes=2, class_probs=[0.5, 0.6]),
         ValueError, "class_probs"),
        (lambda: gaussian_classification(10, 5, n_classes=2, class_probs=[0.5, 0.5],
                                         class_counts=[5, 5]), ValueError, "at most one"),
        (lambda: gaussian_classification(11, 5, n_classes=2, class_counts=[5, 5]),
         ValueError, "sum to 10"),
        (lambda: gaussian_classification(None, 5), ValueError, "n is required"),
        (lambda: binary_naive_bayes(10, 5, alpha=0.0), ValueError, "alpha"),
        (lambda: binary_naive_bayes(10, 5, dirichlet_c=(1.0, -1.0)), ValueError, "dirichlet_c"),
        (lambda: binary_mixture(10, 5, phi0=(0.1, 1.5)), ValueError, "phi0"),
        (lambda: binary_mixture(10, 5, alpha0=3.0), ValueError, "alpha0"),
        (lambda: gaussian_classification(10, 5).split(10), ValueError, "n_train must be < n"),
        (lambda: gaussian_classification(10, 5).split(4, stratify="z"), ValueError, "stratify"),
    ],
)
def test_argument_errors(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


_D = binary_naive_bayes(20, 3, random_state=0)


@pytest.mark.parametrize(
    "call, exc, phrase",
    [
        # prior parameters checked even when unused (a bad value was accepted silently)
        (lambda: gaussian_classification(10, 5, w_mu=-1.0), ValueError, "w_mu must be > 0"),
        (lambda: gaussian_classification(10, 5, alpha_nu=np.nan), ValueError, "alpha_nu"),
        (lambda: gaussian_classification(10, 5, alpha_mu=True), TypeError,
         "alpha_mu must be a number"),
        (lambda: binary_naive_bayes(10, 5, a=0.0), ValueError, "a must be > 0"),
        (lambda: binary_naive_bayes(10, 5, b="5"), TypeError, "b must be a number"),
        (lambda: binary_mixture(10, 5, b0=np.inf), ValueError, "b0 must be > 0"),
        (lambda: binary_mixture(10, 5, a0=True), TypeError, "a0 must be a number"),
        # bools and text in the class choices (True was read as 1, text was NumPy's message)
        (lambda: binary_naive_bayes(10, 5, class_probs=[True, False]), TypeError,
         "class_probs must hold numbers"),
        (lambda: binary_naive_bayes(10, 5, dirichlet_c=["1", "2"]), TypeError,
         "dirichlet_c must hold numbers"),
        (lambda: binary_naive_bayes(None, 5, class_counts=[True, True]), TypeError,
         "class_counts must hold numbers"),
        (lambda: binary_naive_bayes(None, 5, class_counts=[0, 0]), ValueError,
         "class_counts must hold at least one case"),
        (lambda: binary_mixture(10, 5, phi0=["a", "b"]), TypeError, "phi0 must hold numbers"),
        (lambda: binary_mixture(10, 5, phi0=[True, False]), TypeError, "phi0 must hold numbers"),
        # random_state: -1 was NumPy's 'expected non-negative integer', True was seed 1
        (lambda: gaussian_classification(10, 5, random_state=-1), ValueError,
         "random_state must be None, an int >= 0"),
        (lambda: binary_naive_bayes(10, 5, random_state=1.5), TypeError, "random_state"),
        (lambda: binary_mixture(10, 5, random_state="x"), TypeError, "random_state"),
        (lambda: binary_mixture(10, 5, random_state=True), TypeError, "random_state"),
        (lambda: train_test_split(_D, 5, random_state=-1), ValueError, "random_state"),
        (lambda: _D.split(5, random_state="x"), TypeError, "random_state"),
        # train_test_split of arrays was an AttributeError on n_samples
        (lambda: train_test_split(np.zeros((4, 2)), 2), TypeError,
         "data must be a simulated dataset"),
        (lambda: train_test_split(_D, True), TypeError, "n_train must be an integer"),
        # take(): NumPy's IndexError named no argument
        (lambda: _D.take("x"), ValueError, "rows must be 1-D"),
        (lambda: _D.take(np.ones(5, dtype=bool)), ValueError, "boolean mask must have length"),
        (lambda: _D.take([0, 25]), ValueError, r"rows must be indices in -20\.\.19"),
        (lambda: _D.take([0.5]), TypeError, "rows must be integer indices"),
    ],
)
def test_bad_arguments_name_the_argument(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


def test_checking_unused_priors_leaves_the_draws_unchanged():
    # the checks draw nothing: the same seed gives the same data as before
    a = gaussian_classification(12, 4, n_classes=2, random_state=3)
    b = gaussian_classification(12, 4, n_classes=2, random_state=3, w_mu=5.0, alpha_nu=2.0)
    np.testing.assert_array_equal(a.X, b.X)
    d = _D.take(np.arange(20) < 4)
    assert d.n_samples == 4 and _D.take([-1]).n_samples == 1


def test_a_precision_drawn_as_zero_is_refused():
    """alpha_x = 1e-3 draws noise precisions that underflow to 0: the data were inf or NaN
    with only numpy's RuntimeWarning."""
    with pytest.raises(ValueError, match="alpha_x = 0.001"):
        gaussian_classification(2, 500, alpha_x=1e-3, random_state=0)
