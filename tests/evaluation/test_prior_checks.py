"""The prior-boundary check of the Gaussian classifier's hyperparameters: each prior's own
quantiles (scipy's Gamma as reference), and the allowance for selection by F (the upper limit of
a kept feature's tau_x is that of the largest of p prior draws, checked by simulation)."""

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from selbayes.evaluation import PRIOR_TAIL, prior_boundary_checks, prior_boundary_messages
from selbayes.models import GaussianPriors


def _post(**arrays):
    out = {}
    for name, a in arrays.items():
        a = np.asarray(a, dtype=float)
        dims = ("chain", "draw") + (("feature",) if a.ndim == 3 else ())
        out[name] = (dims, a)
    return xr.Dataset(out)


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


def test_the_upper_limit_of_tau_x_allows_for_selection_of_the_best_of_p():
    """Reference by simulation: the largest of p draws from the tau_x prior exceeds the
    selection-aware limit with probability ``tail`` (binomial SE over the replicates); the
    prior's own 99.9% quantile is exceeded almost always at p = 4000."""
    pri = GaussianPriors()
    p, reps = 4000, 20000
    tau_x = stats.gamma(pri.alpha_x / 2, scale=2 / (pri.alpha_x * pri.w_x))
    post = _post(tau_x=np.ones((1, 2, 1)))
    hi = prior_boundary_checks(post, pri, n_features=p)["prior_high"].iloc[0]
    assert hi > tau_x.ppf(1 - PRIOR_TAIL)
    rng = np.random.default_rng(0)
    # the largest of p draws, drawn exactly by inverting its CDF F^p
    largest = tau_x.ppf(rng.uniform(size=reps) ** (1 / p))
    tail = 0.01                                   # larger than the default: measurable
    hi01 = prior_boundary_checks(post, pri, tail=tail, n_features=p)["prior_high"].iloc[0]
    rate = np.mean(largest > hi01)
    assert abs(rate - tail) < 4 * np.sqrt(tail * (1 - tail) / reps)
    assert np.mean(largest > tau_x.ppf(1 - PRIOR_TAIL)) > 0.9
    # the lower limit and the other hyperparameters are not moved by selection
    tab = prior_boundary_checks(_post(tau_mu=np.ones((1, 2)), tau_x=np.ones((1, 2, 1))), pri,
                                n_features=p)
    own = prior_boundary_checks(_post(tau_mu=np.ones((1, 2)), tau_x=np.ones((1, 2, 1))), pri)
    assert tab["n_from"].tolist() == [1, p] and own["n_from"].tolist() == [1, 1]
    np.testing.assert_allclose(tab["prior_low"], own["prior_low"], rtol=1e-12)
    assert tab["prior_high"].iloc[0] == own["prior_high"].iloc[0]


def test_selected_low_noise_features_are_not_held_but_wrong_units_are():
    # the demo's case: the paper's prior, the best of 4000 features with tau_x medians 5-6.5
    # (above the prior's 99.9% quantile 4.6, below that of the best of 4000)
    pri = GaussianPriors()
    med = np.array([5.3, 6.4, 2.7, 1.0])
    post = _post(tau_x=np.broadcast_to(med, (2, 5, 4)))
    assert prior_boundary_checks(post, pri)["held"].tolist() == [True, True, False, False]
    assert not prior_boundary_checks(post, pri, n_features=4000)["held"].any()
    # X in thousandths of the prior's units: tau_x about 1e6, held whatever the selection
    tab = prior_boundary_checks(_post(tau_x=np.full((2, 5, 4), 1e6)), pri, n_features=4000)
    assert tab["held"].all()
    msg = prior_boundary_messages(tab, 1e-6)[0]
    assert "largest of 4000 draws" in msg and "4 of 4 features" in msg
    with pytest.raises(ValueError, match="n_features must be an integer >= 1"):
        prior_boundary_checks(post, pri, n_features=0)


def test_prior_pull_tells_a_posterior_the_data_pin_from_one_the_prior_holds():
    """Reference: for a normal posterior and a log-linear prior density (an exponential prior,
    log density -b x), the likelihood alone is normal with its mean shifted by b sd^2 (the
    conjugate update undone): the pull is b sd. A posterior that is the prior truncated at a
    point (the data flat beyond it) has no likelihood peak to return to: infinite."""
    from scipy import stats as st

    from selbayes.evaluation._prior_checks import PRIOR_PULL, prior_pull

    rng = np.random.default_rng(3)
    sd, b = 2.0, 0.15                                   # expected pull: b * sd = 0.3
    draws = 100 + sd * rng.standard_normal((3, 4000))
    pull = prior_pull(draws, lambda x: -b * x)
    se = 1.2533 / np.sqrt(4000)                         # SE of a median, in SDs, roughly
    np.testing.assert_allclose(pull, b * sd, atol=5 * se)
    prior = st.expon(scale=1 / b)
    truncated = prior.ppf(rng.uniform(prior.cdf(20), 1 - 1e-12, (1, 4000)))
    assert prior_pull(truncated, prior.logpdf)[0] > PRIOR_PULL
    assert np.isnan(prior_pull(draws[:, :10], lambda x: -b * x)).all()      # too few draws
    assert np.isinf(prior_pull(np.ones((1, 100)), lambda x: -b * x)).all()  # no spread


def test_the_message_says_whether_the_prior_or_the_data_put_it_there():
    """The same median beyond the 99.9% quantile of tau_mu's prior: a narrow posterior the prior
    hardly moves reads 'the data put it there', the prior truncated at that point 'the prior
    holds it there'."""
    pri = GaussianPriors()
    prior = stats.gamma(pri.alpha_mu / 2, scale=2 / (pri.alpha_mu * pri.w_mu))
    rng = np.random.default_rng(4)
    edge = prior.ppf(0.9995)
    pinned = _post(tau_mu=edge * np.exp(0.03 * rng.standard_normal((2, 1000))))
    held = _post(tau_mu=prior.ppf(rng.uniform(0.9995, 1 - 1e-12, (2, 1000))))
    for post, words in ((pinned, "the data put it there against the prior"),
                        (held, "the prior holds it there")):
        tab = prior_boundary_checks(post, pri)
        assert tab["held"].all()
        (msg,) = prior_boundary_messages(tab, 1.0)
        assert words in msg and "tau_mu" in msg, msg
    assert prior_boundary_checks(pinned, pri)["prior_pull"].iloc[0] < 1
    assert prior_boundary_checks(held, pri)["prior_pull"].iloc[0] > 1


def test_boundary_checks_take_a_fits_posterior_node_and_name_bad_settings():
    """``idata_["posterior"]`` (a DataTree node, which the docstring allows) raised xarray's
    "Could not find node at posterior"; tail = 0.7 flagged every component and NaN none,
    n_features = 1.5 or True was read as 1, all without a word."""
    import xarray as xr

    from selbayes.evaluation._prior_checks import prior_boundary_checks

    post = xr.Dataset({"tau_mu": (("chain", "draw"), np.full((1, 4), 2.0)),
                       "tau_x": (("chain", "draw", "feature"), np.full((1, 4, 2), 1e-4))})
    tree = xr.DataTree.from_dict({"posterior": post})
    want = prior_boundary_checks(post)
    for given in (tree, tree["posterior"]):
        assert prior_boundary_checks(given).equals(want)
    for bad in (0.7, 0.0, np.nan):
        with pytest.raises(ValueError, match=r"tail must be in \(0, 0\.5\)"):
            prior_boundary_checks(post, tail=bad)
    for bad in (1.5, True, 0):
        with pytest.raises(ValueError, match="n_features must be an integer >= 1"):
            prior_boundary_checks(post, n_features=bad)
