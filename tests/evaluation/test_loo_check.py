"""PSIS-LOO Pareto k of the training cases: an outlier is named, clean data pass."""

import warnings

import numpy as np
import pytest
import xarray as xr

from selbayes.evaluation import InfluentialCaseWarning
from selbayes.evaluation._loo_check import loo_check


def _idata(loglik):
    """A DataTree with a posterior and a log_likelihood group of shape (chain, draw, case)."""
    c, d, n = loglik.shape
    post = xr.Dataset({"theta": (("chain", "draw"), np.zeros((c, d)))},
                      coords={"chain": np.arange(c), "draw": np.arange(d)})
    ll = xr.Dataset({"x": (("chain", "draw", "case"), loglik)},
                    coords={"chain": np.arange(c), "draw": np.arange(d),
                            "case": [f"s{i}" for i in range(n)]})
    return xr.DataTree.from_dict({"posterior": post, "log_likelihood": ll})


def test_an_influential_case_is_named_and_clean_cases_pass():
    """Reference by construction: conjugate normal mean, 40 cases from N(0, 1) and one at 30.
    Draws of mu from its exact posterior; the outlier's 1 / p(x_i | mu) weights have a heavy
    tail (its Pareto k far above 0.7), the others' do not."""
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(size=40), 30.0]
    n = x.size
    mu = rng.normal(x.mean(), 1 / np.sqrt(n + 1), size=(4, 1000))        # N(0, 1) prior
    ll = -0.5 * (x[None, None, :] - mu[..., None]) ** 2 - 0.5 * np.log(2 * np.pi)
    with pytest.warns(InfluentialCaseWarning, match=r"1 of 41 training cases.*s40"):
        table = loo_check(_idata(ll))
    assert table["influential"].tolist() == [False] * 40 + [True]
    assert table["pareto_k"].iloc[:40].max() < 0.7
    # the fit passes its sample ids (a DataFrame's index): the warning names the sample
    ids = [f"patient_{i}" for i in range(n)]
    with pytest.warns(InfluentialCaseWarning, match=r"training cases.*: patient_40 \(k = "):
        named = loo_check(_idata(ll), case_names=ids)
    assert named["sample"].tolist() == ids
    np.testing.assert_array_equal(named["pareto_k"], table["pareto_k"])

    # without the outlier: no warning (an error if one were emitted)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InfluentialCaseWarning)
        mu2 = rng.normal(x[:40].mean(), 1 / np.sqrt(41), size=(4, 1000))
        ll2 = -0.5 * (x[None, None, :40] - mu2[..., None]) ** 2
        assert not loo_check(_idata(ll2))["influential"].any()


def test_when_most_cases_fail_the_warning_blames_the_fit_not_the_cases():
    """Reference by construction: 200 independent features per case, 30 cases, draws of the
    200 means from their exact posterior. Every case's log likelihood sums 200 terms, its
    weights are heavy-tailed for every case, and no case is an outlier: the warning must say
    that the check fails for the fit, not list cases to inspect."""
    rng = np.random.default_rng(2)
    n, k, S = 30, 200, 1000
    x = rng.normal(size=(n, k))
    mu = rng.normal(x.mean(0), 1 / np.sqrt(n + 1), size=(S, k))           # N(0, 1) prior
    ll = (-0.5 * ((x[None] - mu[:, None]) ** 2).sum(-1))[None]             # (1, S, n)
    with pytest.warns(InfluentialCaseWarning, match="cannot judge single training cases"):
        table = loo_check(_idata(ll))
    assert table["influential"].mean() > 0.5


def test_no_log_likelihood_gives_none():
    post = xr.Dataset({"theta": (("chain", "draw"), np.zeros((2, 10)))})
    assert loo_check(xr.DataTree.from_dict({"posterior": post})) is None


def test_too_few_draws_gives_none_not_an_error():
    """Short fits (tests, quick runs) must not fail in a diagnostic."""
    rng = np.random.default_rng(1)
    assert loo_check(_idata(rng.normal(size=(2, 10, 5)))) is None
