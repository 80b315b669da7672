"""The naive Bayes model's data: one ``model_data(X, y, selection, prior, corrected)`` signature
(issue 29 item 3), the same leading shape as the Gaussian model's, with the old call
``model_data(X, y01, n_omitted, threshold, ...)`` kept for one release behind a FutureWarning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from selbayes import select_features
from selbayes.models import _naive_bayes as nb


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], [13, 17])
    X = rng.integers(0, 2, size=(30, 40))
    sel = select_features(X, y, k=4, statistic="abs_corr")
    return sel.transform(X), y, sel


def _assert_same(a: dict, b: dict):
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_selection_and_tuple_give_the_same_data(problem):
    Xs, y, sel = problem
    by_selection = nb.model_data(Xs, y, sel)
    assert by_selection["n_omitted"] == 36 and np.any(by_selection["adj_coef"] != 0)
    _assert_same(by_selection, nb.model_data(Xs, y, (sel.n_omitted, sel.threshold)))
    # the prior does not enter the data
    _assert_same(by_selection, nb.model_data(Xs, y, sel, {"alpha_scale": 2.0}))


@pytest.mark.parametrize("corrected", [True, False])
def test_old_call_warns_and_gives_the_same_data(problem, corrected):
    Xs, y, sel = problem
    new = nb.model_data(Xs, y, sel, None, corrected)
    with pytest.warns(FutureWarning, match="model_data.*deprecated"):
        old = nb.model_data(Xs, y, sel.n_omitted, sel.threshold, corrected)
    _assert_same(new, old)
    with pytest.warns(FutureWarning):
        old_kw = nb.model_data(Xs, y01=y, n_omitted=int(sel.n_omitted),
                               threshold=sel.threshold, corrected=corrected)
    _assert_same(new, old_kw)


def test_new_call_does_not_warn(problem):
    Xs, y, sel = problem
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nb.model_data(Xs, y, sel)
        nb.model_data(Xs, y, None, corrected=False)
        nb.build_model(Xs, y, sel)


def test_uncorrected_is_nothing_omitted(problem):
    Xs, y, sel = problem
    off = nb.model_data(Xs, y, sel, corrected=False)
    assert off["n_omitted"] == 0 and not np.any(off["adj_coef"])
    _assert_same(off, nb.model_data(Xs, y, None, corrected=False))
    _assert_same(off, nb.model_data(Xs, y, (0, None)))


def test_bad_selections_are_clear_errors(problem):
    Xs, y, sel = problem
    with pytest.raises(ValueError, match="needs the selection"):
        nb.model_data(Xs, y, None)
    with pytest.raises(ValueError, match="needs the threshold"):
        nb.model_data(Xs, y, (36, None))
    with pytest.raises(ValueError, match="retained 4 features"):
        nb.model_data(Xs[:, :3], y, sel)
    with pytest.raises(ValueError, match="class counts"):
        nb.model_data(Xs[1:], y[1:], sel)
    with pytest.raises(ValueError, match="abs_corr"):
        nb.model_data(Xs, y, select_features(np.c_[Xs, Xs].astype(float), y, k=4))
    with pytest.raises(ValueError, match="n_omitted"):
        nb.model_data(Xs, y, (-1, 0.3))
    with pytest.raises(TypeError, match="selection must be"):
        nb.model_data(Xs, y, "abs_corr")


def test_build_model_takes_the_same_leading_arguments(problem):
    Xs, y, sel = problem
    model = nb.build_model(Xs, y, sel, feature_names=list("abcd"))
    assert [v.name for v in model.free_RVs] == ["alpha", "theta"]
    assert model.coords["feature"] == tuple("abcd")
    np.testing.assert_array_equal(model["n_omitted"].get_value(), 36.0)
    with pytest.warns(FutureWarning, match="build_model.*deprecated"):
        old = nb.build_model(Xs, y, 36, sel.threshold, None, False)
    np.testing.assert_array_equal(old["n_omitted"].get_value(), 0.0)


@pytest.mark.parametrize("corrected", [True, False])
def test_model_log_density_is_exact_at_every_alpha(problem, corrected):
    """The beta-binomial counts' log density against sums of logs (Li 2007 eq 2.30), for alpha
    from 1 to 1e17. PyMC's BetaBinomial (a log Gamma difference) was off by up to thousands of
    nats beyond alpha ~ 1e12 and gave the corrected posterior a spurious mode there."""
    import math

    X, y, sel = problem
    model = nb.build_model(X, y, sel, corrected=corrected)
    observed = model.compile_fn(model.observedlogp)
    counts, class_counts = nb.count_statistics(X, y)
    theta = np.array([0.2, 0.45, 0.5, 0.9])
    for log10_alpha in (0.0, 2.0, 6.0, 10.0, 12.0, 14.0, 15.0, 16.0, 16.5, 17.0):
        alpha = 10.0 ** log10_alpha
        ref = 0.0
        for j in range(4):
            a, b = alpha * theta[j], alpha * (1.0 - theta[j])
            for c in range(2):
                n_c, i = int(class_counts[c]), int(counts[j, c])
                ref += (math.lgamma(n_c + 1) - math.lgamma(i + 1) - math.lgamma(n_c - i + 1)
                        + math.fsum(math.log(a + l) for l in range(i))
                        + math.fsum(math.log(b + l) for l in range(n_c - i))
                        - math.fsum(math.log(alpha + l) for l in range(n_c)))
        got = observed({"alpha_log__": math.log(alpha),
                        "theta_interval__": np.log(theta / (1.0 - theta))})
        assert abs(float(got) - ref) < 1e-9 * max(1.0, abs(ref)), (log10_alpha, got, ref)


def test_prior_predictive_counts_are_beta_binomial(problem):
    """The counts' draws (the model's own random function, not PyMC's BetaBinomial): within
    0..n_c, and E[I / n_c | theta] = theta, checked on the draws' mean residual."""
    import pymc as pm

    X, y, sel = problem
    model = nb.build_model(X, y, sel)
    with model, warnings.catch_warnings():
        # the selection Potential is not part of prior draws (expected here), and the random
        # function runs in Python (numba's object mode): neither matters for this check
        warnings.simplefilter("ignore", UserWarning)
        prior = pm.sample_prior_predictive(draws=2000, random_seed=1)
    counts = prior.prior_predictive["I"].values.reshape(-1, 4, 2)
    theta = prior.prior["theta"].values.reshape(-1, 4)
    n_c = np.array([13, 17])
    assert counts.min() >= 0 and np.all(counts <= n_c) and np.all(counts == np.round(counts))
    resid = (counts / n_c - theta[..., None]).ravel()
    assert abs(resid.mean()) < 4 * resid.std() / np.sqrt(resid.size)
    # and their spread is the beta-binomial's, Var = n theta (1 - theta) (alpha + n) / (alpha + 1),
    # not the binomial's (the draws' alpha reach down to ~3, where the two differ by a factor
    # of 2 or more): the scaled squared residuals average 1 given (alpha, theta)
    alpha = prior.prior["alpha"].values.reshape(-1)[:, None, None]
    th = theta[..., None]
    sq = (counts - n_c * th) ** 2 / (n_c * th * (1.0 - th))
    ratio = sq / ((alpha + n_c) / (alpha + 1.0))
    assert abs(ratio.mean() - 1.0) < 4 * ratio.std() / np.sqrt(ratio.size)
    assert sq.mean() - 1.0 > 4 * sq.std() / np.sqrt(sq.size)      # the binomial's: refused
