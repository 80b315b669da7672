"""draw_class_means in blocks of draws: the same values as the formulas written in one piece.

The exactness of the conditional itself is tested against a Gaussian-conditioning reference in
tests/estimators/test_gaussian.py; here the reference is the unblocked computation (the code as
it was before the blocks), so a block that reorders the random numbers or mixes draws fails.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from selbayes.models import GaussianPriors
from selbayes.models._gaussian_posterior import (
    class_log_prior,
    draw_class_means,
    factorised_predictive_log_proba,
    hyperparameter_groups,
    marker_log_odds,
    null_predictive_moments,
    predictive_log_proba,
    predictive_moments,
)


def _unblocked(post: dict, data: dict, seed: int):
    """nu and mu as draw_class_means computed them before 2026-11-28 (one piece)."""
    rng = np.random.default_rng(seed)
    tau_mu = post["tau_mu"][..., None]
    tau_nu = post.get("tau_nu", np.zeros(post["tau_mu"].shape))[..., None]
    tau_x = post["tau_x"]
    a = 1.0 / tau_mu
    if "lambda_mu" in post:
        a = a / post["lambda_mu"]
    a = np.broadcast_to(a, tau_x.shape)[..., None]
    v = 1.0 / (data["class_counts"] * tau_x[..., None])
    xbar = data["xbar_obs"]
    w = 1.0 / (a + v)
    var_nu = 1.0 / (tau_nu + w.sum(-1))
    mean_nu = var_nu * (w * xbar).sum(-1)
    nu = mean_nu + np.sqrt(var_nu) * rng.standard_normal(var_nu.shape)
    prec = 1.0 / a + 1.0 / v
    mean_mu = (nu[..., None] / a + xbar / v) / prec
    mu = mean_mu + rng.standard_normal(mean_mu.shape) / np.sqrt(prec)
    return nu, mu


def _posterior(rng, chains, draws, k, *, t_prior: bool, flat_nu: bool) -> dict:
    post = {"tau_mu": rng.gamma(2.0, 1.0, (chains, draws)),
            "tau_x": rng.gamma(3.0, 1.0, (chains, draws, k))}
    if not flat_nu:
        post["tau_nu"] = rng.gamma(2.0, 0.5, (chains, draws))
    if t_prior:
        post["lambda_mu"] = rng.gamma(1.0, 1.0, (chains, draws, k))
    return post


@pytest.mark.parametrize("t_prior", [False, True])
@pytest.mark.parametrize("flat_nu", [False, True])
@pytest.mark.parametrize("max_bytes", [1.0, 500.0, 2e8])    # one draw a block, a few, one
def test_blocks_of_draws_give_the_unblocked_values(t_prior, flat_nu, max_bytes):
    rng = np.random.default_rng(3)
    chains, draws, k, G = 2, 7, 5, 3
    post = _posterior(rng, chains, draws, k, t_prior=t_prior, flat_nu=flat_nu)
    data = {"xbar_obs": rng.normal(size=(k, G)), "class_counts": np.array([4.0, 6.0, 9.0])}
    dims = {"tau_mu": ("chain", "draw"), "tau_nu": ("chain", "draw"),
            "tau_x": ("chain", "draw", "feature"), "lambda_mu": ("chain", "draw", "feature")}
    ds = xr.Dataset({name: (dims[name], value) for name, value in post.items()})
    tree = draw_class_means(xr.DataTree.from_dict({"posterior": ds}), data, GaussianPriors(),
                            random_state=np.random.default_rng(11), max_bytes=max_bytes)
    nu, mu = _unblocked(post, data, 11)
    got = tree["posterior"]
    assert got["mu"].shape == (chains, draws, k, G)
    np.testing.assert_array_equal(got["nu"].values, nu)
    np.testing.assert_array_equal(got["mu"].values, mu)


# -------------------------------------------------------------------- bad input is named
def _moments():
    rng = np.random.default_rng(0)
    from selbayes.models import predictive_moments

    mean, prec = predictive_moments(rng.gamma(2, size=(4, 3)), rng.gamma(2, size=4),
                                    rng.gamma(2, size=4), rng.normal(size=(3, 2)),
                                    np.array([10.0, 10.0]))
    return rng.normal(size=(2, 3)), mean, prec, np.log([0.5, 0.5])


@pytest.mark.parametrize("call, exc, match", [
    (lambda X, m, P, lp: predictive_log_proba(X, m, P, np.array([np.nan, 0.0])), ValueError,
     "class_log_prior_ must hold log probabilities"),
    (lambda X, m, P, lp: predictive_log_proba(X, m, -P, lp), ValueError,
     "precision must be finite and > 0"),
    (lambda X, m, P, lp: predictive_log_proba(X, m * np.nan, P, lp), ValueError,
     "mean contains NaN"),
    (lambda X, m, P, lp: predictive_log_proba(X[:, :2], m, P, lp), ValueError,
     "X_test_selected has 2 columns"),
    (lambda X, m, P, lp: predictive_log_proba(X, m, P, lp, chunk_size=0), ValueError,
     "chunk_size"),
    (lambda X, m, P, lp: predictive_log_proba(X, m, P, lp, chunk_size=1.5), ValueError,
     "chunk_size"),
    (lambda X, m, P, lp: predictive_log_proba(X, m, P, lp, max_bytes=0), ValueError,
     "max_bytes"),
    (lambda X, m, P, lp: predictive_log_proba(X, m, P, lp, max_bytes=np.nan), ValueError,
     "max_bytes"),
    (lambda X, m, P, lp: predictive_log_proba(X, m, P, lp, max_bytes="1e8"), TypeError,
     "max_bytes"),
    (lambda X, m, P, lp: factorised_predictive_log_proba(X, m, P, lp, max_draws=0), ValueError,
     "max_draws"),
    (lambda X, m, P, lp: factorised_predictive_log_proba(X, m, P, lp, max_draws=True),
     ValueError, "max_draws"),
    (lambda X, m, P, lp: factorised_predictive_log_proba(X, m, P, lp, max_bytes=-1),
     ValueError, "max_bytes"),
])
def test_predictive_functions_name_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call(*_moments())


@pytest.mark.parametrize("call, exc, match", [
    (lambda: class_log_prior([5, 5], 0.0), ValueError, "c must be > 0"),
    (lambda: class_log_prior([5, 5], np.nan), ValueError, "c must be > 0"),
    (lambda: class_log_prior([5, 5], True), TypeError, "c must be a number"),
    (lambda: class_log_prior([-5, 5], 1.0), ValueError, "class_counts"),
    (lambda: class_log_prior([np.nan, 5], 1.0), ValueError, "class_counts"),
    (lambda: class_log_prior([[5, 5]], 1.0), ValueError, "class_counts"),
    (lambda: hyperparameter_groups(np.ones(5), 1.5), ValueError, "n_groups"),
    (lambda: hyperparameter_groups(np.ones(5), True), ValueError, "n_groups"),
    (lambda: hyperparameter_groups(np.ones(5), "3"), ValueError, "n_groups"),
    (lambda: hyperparameter_groups(np.r_[np.ones(4), np.nan]), ValueError,
     "tau_mu contains NaN"),
    (lambda: hyperparameter_groups(np.ones(4), pi0=np.r_[np.ones(3), np.nan]), ValueError,
     "pi0 contains NaN"),
])
def test_class_prior_and_groups_name_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def _draws(**change):
    """Two draws, two features, two classes: the inputs of the closed forms given draws."""
    kw = {"tau_x": np.ones((2, 2)), "tau_mu": np.ones(2), "tau_nu": np.ones(2),
          "xbar": np.array([[1.0, -1.0], [0.0, 0.5]]), "class_counts": np.array([5.0, 5.0])}
    kw.update(change)
    return kw


_MARKER = {"pi0": np.full(2, 0.5)}


_IMPOSSIBLE = [
    ({"tau_x": np.array([[1.0, -1.0], [1.0, 1.0]])}, "tau_x must be finite and > 0"),
    ({"tau_x": np.array([[1.0, np.nan], [1.0, 1.0]])}, "tau_x must be finite and > 0"),
    ({"tau_mu": np.array([1.0, 0.0])}, "tau_mu must be finite and > 0"),
    ({"tau_nu": np.array([1.0, -2.0])}, "tau_nu must be finite and >= 0"),
    ({"class_counts": np.array([5.0, -1.0])}, "class_counts must be finite and >= 0"),
    ({"xbar": np.array([[1.0, np.inf], [0.0, 0.5]])}, "xbar .* NaN or infinite"),
    ({"tau_x": np.ones((2, 3))}, "tau_x must have shape"),
    ({"class_counts": np.ones(3)}, "class_counts must have shape"),
    ({"lambda_mu": np.array([[1.0, -1.0], [1.0, 1.0]])}, "lambda_mu must be finite and > 0"),
]


@pytest.mark.parametrize("function, change, match", [
    *[(f, c, m) for f in ("predictive_moments", "marker_log_odds") for c, m in _IMPOSSIBLE],
    # the null predictive takes no tau_mu or lambda_mu
    *[("null_predictive_moments", c, m) for c, m in _IMPOSSIBLE
      if not {"tau_mu", "lambda_mu"} & set(c)],
])
def test_closed_forms_refuse_impossible_draws(function, change, match):
    """A negative, zero or NaN precision gave NaN means, precisions or log odds (no error)."""
    kw = _draws(**change)
    if function == "marker_log_odds":
        kw.update(_MARKER)
    if function == "null_predictive_moments":
        kw.pop("tau_mu")
    fn = {"predictive_moments": predictive_moments, "marker_log_odds": marker_log_odds,
          "null_predictive_moments": null_predictive_moments}[function]
    with pytest.raises(ValueError, match=match):
        fn(**kw)


@pytest.mark.parametrize("pi0", [-0.1, 1.5, np.nan])
def test_marker_log_odds_refuses_pi0_outside_unit_interval(pi0):
    with pytest.raises(ValueError, match="pi0 must be a probability"):
        marker_log_odds(**_draws(), pi0=np.full(2, pi0))


def test_marker_log_odds_at_the_ends_of_pi0():
    """pi0 = 0 (every feature a marker) and 1 (every feature null): infinite log odds of the
    right sign, as the limits of log((1 - pi0) / pi0), not NaN, and no divide warning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo = marker_log_odds(**_draws(), pi0=np.array([0.0, 1.0]))
    assert np.all(lo[0] == np.inf) and np.all(lo[1] == -np.inf)


def test_marker_log_odds_refuses_a_flat_prior_in_some_draws_only():
    """tau_nu = 0 in one draw and 1 in another gave NaN log odds for the first."""
    with pytest.raises(ValueError, match="tau_nu must be 0 in every draw .* 0 in 1 of 2"):
        marker_log_odds(**_draws(tau_nu=np.array([0.0, 1.0])), pi0=np.full(2, 0.5))


def test_draw_class_means_refuses_negative_noise_precision():
    post = xr.Dataset({"tau_mu": (("chain", "draw"), np.ones((1, 2))),
                       "tau_x": (("chain", "draw", "feature"),
                                 np.array([[[1.0, -1.0], [1.0, 1.0]]]))})
    idata = xr.DataTree.from_dict({"posterior": post})
    data = {"xbar_obs": np.array([[1.0, -1.0], [0.0, 0.5]]), "class_counts": np.array([5, 5])}
    with pytest.raises(ValueError, match="tau_x must be finite and > 0"):
        draw_class_means(idata, data, GaussianPriors(), random_state=0)
