"""Warnings when the posterior sits against a prior (or a grid) it cannot leave (issue 19)."""

import warnings

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from selbayes.estimators.gaussian import prior_boundary_checks
from selbayes.estimators.model_selection import KChoice
from selbayes.evaluation.diagnostics import GridBoundaryWarning, PriorBoundaryWarning
from selbayes.models.priors import GaussianPriors
from tests.estimators._data import two_class_gaussian


def _post(**arrays):
    out = {}
    for name, a in arrays.items():
        a = np.asarray(a, dtype=float)
        dims = ("chain", "draw") + (("feature",) if a.ndim == 3 else ())
        out[name] = (dims, a)
    return xr.Dataset(out)


def _fast(**kw):
    from selbayes import HierarchicalGaussianClassifier

    base = dict(draws=200, tune=200, chains=1, random_state=0, progressbar=False)
    return HierarchicalGaussianClassifier(**{**base, **kw})


def test_checks_use_each_priors_own_quantiles():
    """Reference: the Gamma(shape alpha/2, rate alpha w/2) priors of Li (2009) written out
    with scipy here, the posterior median put just inside and just outside the 0.1% and 99.9%
    quantiles."""
    pri = GaussianPriors()
    tau_mu = stats.gamma(pri.alpha_mu / 2, scale=2 / (pri.alpha_mu * pri.w_mu))
    tau_x = stats.gamma(pri.alpha_x / 2, scale=2 / (pri.alpha_x * pri.w_x))
    ones = np.ones((2, 5))
    inside_low, outside_low = tau_x.ppf(2e-3), tau_x.ppf(5e-4)
    post = _post(tau_mu=ones * tau_mu.ppf(0.9995),
                 tau_x=np.stack([ones * inside_low, ones * outside_low,
                                 ones * tau_x.ppf(0.9995)], axis=-1))
    tab = prior_boundary_checks(post, pri)
    assert tab["parameter"].tolist() == ["tau_mu", "tau_x[0]", "tau_x[1]", "tau_x[2]"]
    assert tab["held"].tolist() == [True, False, True, True]
    np.testing.assert_allclose(tab["prior_low"].iloc[1], tau_x.ppf(1e-3), rtol=1e-12)
    np.testing.assert_allclose(tab["prior_cdf"].iloc[2], 5e-4, rtol=1e-8)
    assert not prior_boundary_checks(_post(tau_mu=ones * tau_mu.median()), pri)["held"].any()


def test_a_w_x_hyperprior_is_checked_instead_of_tau_x():
    pri = GaussianPriors(w_x_alpha=1.0, w_x=1.0)
    # Gamma(shape 1/2, rate 1/2): chi-squared with 1 degree of freedom.
    hi = stats.chi2(1).ppf(0.999)
    post = _post(w_x=np.full((2, 4), 370.0), tau_x=np.full((2, 4, 3), 1e-4))
    tab = prior_boundary_checks(post, pri)
    assert tab["parameter"].tolist() == ["w_x"]            # tau_x's prior depends on w_x
    np.testing.assert_allclose(tab["prior_high"].iloc[0], hi, rtol=1e-10)
    assert tab["held"].iloc[0]


def test_fit_in_other_units_than_the_prior_warns_at_the_users_line():
    """X in thousands of the prior's units, not standardised: the Gamma(2, rate 2) prior of
    tau_x cannot reach the data's precision (~1e-6), and only this check says so."""
    X, y = two_class_gaussian(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = _fast(k=4, temperature=1.0, standardize=False).fit(1000.0 * X, y)
    ours = [w for w in caught if issubclass(w.category, PriorBoundaryWarning)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    msg = str(ours[0].message)
    assert ours[0].filename == __file__
    assert "tau_x" in msg and "4 of 4 features" in msg and "standardize=True" in msg
    assert clf.prior_checks_.query("variable == 'tau_x'")["held"].all()


def test_a_default_fit_does_not_warn():
    X, y = two_class_gaussian(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = _fast(k=4, temperature=1.0).fit(1000.0 * X, y)
    assert not [w for w in caught if issubclass(w.category, PriorBoundaryWarning)]
    assert not clf.prior_checks_["held"].any()


def _choice(k, T, falling=True, ks=(5, 10, 20), ts=(1.0, 2.0, 5.0)):
    """Every other candidate has the same case losses B; the chosen one has B - 0.3 (a curve
    that falls at the chosen end: far more than a paired SE) or B + e with e = +-0.05
    alternating, mean -0.001 (better on average, but well within one paired SE: flat)."""
    grid = [(a, None, t) for a in ks for t in ts]
    base = 1.0 + 0.1 * np.random.default_rng(0).normal(size=30)
    L = np.tile(base, (len(grid), 1))
    e = np.where(np.arange(30) % 2 == 0, 0.05, -0.05) - 0.001
    L[grid.index((k, None, T))] = base - 0.3 if falling else base + e
    return KChoice(k=k, decorrelate=None, temperature=T, grid=grid,
                   score=L.mean(1), se=np.ones(len(grid)), criterion="x", n_splits=5,
                   extra={"case_losses": L})


@pytest.mark.parametrize(("k", "T", "cap", "falling", "expected"), [
    (10, 2.0, 100, True, []),                 # inside both grids
    (10, 1.0, 100, True, []),                 # T = 1: the model's own predictive, no warning
    (20, 2.0, 100, True, ["upper end of k_grid"]),
    (20, 2.0, 100, False, []),                # at the end, but the curve is flat there
    (20, 2.0, 20, True, []),                  # every usable feature: a natural limit
    (5, 2.0, 100, True, ["lower end of k_grid"]),
    (10, 5.0, 100, True, ["upper end of temperature_grid"]),
    (10, 5.0, 100, False, []),
    (20, 5.0, 100, True, ["upper end of k_grid", "upper end of temperature_grid"]),
])
def test_grid_end_choices_warn(k, T, cap, falling, expected):
    clf = _fast(k="auto", temperature="auto")
    clf.k_choice_ = _choice(k, T, falling)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf._warn_grid_ends([5, 10, 20], cap)
    got = [str(w.message) for w in caught]
    assert len(got) == len(expected)
    for text, want in zip(got, expected, strict=True):
        assert want in text
    assert all(w.category is GridBoundaryWarning for w in caught)


def test_grid_end_warning_from_fit_names_the_users_line():
    # The 4 kept features are copies of one signal, so the naive predictive counts it 4 times
    # and wants T near 4; a grid that stops at 2 holds it (T = 2 beats T = 1 by about 0.19
    # nats per case here, against two paired SEs of about 0.07).
    rng = np.random.default_rng(3)
    n = 300
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 400))
    X[:, :30] = (1.0 * y + rng.normal(size=n))[:, None] + 0.05 * rng.normal(size=(n, 30))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = _fast(k=4, temperature="auto", temperature_grid=[1.0, 2.0]).fit(X, y)
    ours = [w for w in caught if w.category is GridBoundaryWarning]
    assert clf.temperature_ == 2.0
    assert len(ours) == 1 and ours[0].filename == __file__
    assert "temperature_grid" in str(ours[0].message)
