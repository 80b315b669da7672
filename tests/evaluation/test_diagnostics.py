"""Tests for selbayes.evaluation._diagnostics: ArviZ as reference, hand-built bad chains, a real
PyMC run."""

import warnings

import numpy as np
import pytest
import xarray as xr

from selbayes.evaluation import SamplingWarning, check, sampler_summary
from selbayes.evaluation import _diagnostics as diagnostics


def _tree(posterior: dict, sample_stats: dict | None = None, dims: dict | None = None):
    from arviz_base import from_dict

    groups = {"posterior": posterior}
    if sample_stats is not None:
        groups["sample_stats"] = sample_stats
    return from_dict(groups, dims=dims or {})


def _ar1(rng, shape, phi):
    """Converged chains along the last axis: stationary AR(1) from the first draw, unit
    variance."""
    x = rng.normal(size=shape)
    x[..., 1:] *= np.sqrt(1 - phi ** 2)
    for t in range(1, shape[-1]):
        x[..., t] = phi * x[..., t - 1] + x[..., t]
    return x


# ---------------------------------------------------------------------------------------------
# the vectorised diagnostics equal ArviZ's
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_chain,n_draw", [(4, 301), (2, 200), (1, 120), (3, 40)])
def test_numpy_engine_matches_arviz(n_chain, n_draw):
    rng = np.random.default_rng(n_chain * 1000 + n_draw)
    M = 24
    x = rng.normal(size=(M, n_chain, n_draw))
    for i, phi in enumerate(np.linspace(0.0, 0.97, 8)):
        x[8 + i] = _ar1(rng, (n_chain, n_draw), phi)
    x[16:18] = np.round(x[16:18])  # ties
    x[18] += np.arange(n_chain)[:, None]  # shifted chains
    x[19] = 2.5  # constant: R-hat NaN, ESS = size
    x[20] = rng.poisson(0.2, size=(n_chain, n_draw))  # mostly zeros
    x[21] = np.cumsum(rng.normal(size=(n_chain, n_draw)), axis=1)  # random walk
    fast = diagnostics._diagnostics_numpy(x, (0.05, 0.95))
    ref = diagnostics._diagnostics_arviz(x, (0.05, 0.95))
    for a, b in zip(fast, ref, strict=True):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_allclose(a, b, rtol=1e-8)


def test_tail_prob_is_passed_through():
    rng = np.random.default_rng(0)
    x = _ar1(rng, (1, 4, 400), 0.6)
    a = diagnostics._diagnostics_numpy(x, (0.2, 0.8))[2]
    b = diagnostics._diagnostics_arviz(x, (0.2, 0.8))[2]
    c = diagnostics._diagnostics_numpy(x, (0.05, 0.95))[2]
    np.testing.assert_allclose(a, b, rtol=1e-8)
    assert a[0] != c[0]


# ---------------------------------------------------------------------------------------------
# hand-built chains
# ---------------------------------------------------------------------------------------------
def _good_tree(rng, C=4, D=500, K=3, G=2, stats=True):
    post = {"mu": rng.normal(size=(C, D, K, G)), "tau_mu": rng.gamma(3.0, size=(C, D))}
    ss = None
    if stats:
        ss = {"energy": rng.normal(size=(C, D)), "diverging": np.zeros((C, D), bool)}
    return post, ss


def test_good_chains_pass_silently():
    post, ss = _good_tree(np.random.default_rng(1))
    dt = _tree(post, ss, dims={"mu": ["k", "g"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingWarning)
        t = check(dt)
    assert len(t) == 3 * 2 + 1
    assert t["ok"].all() and t.attrs["ok"] and t.attrs["failures"] == []
    assert t["parameter"].tolist()[:3] == ["mu[0, 0]", "mu[0, 1]", "mu[1, 0]"]
    assert t["parameter"].iloc[-1] == "tau_mu"
    assert set(t.columns) >= {"variable", "parameter", "rhat", "ess_bulk", "ess_tail", "ok"}
    s = t.attrs["sampler"]
    assert s["n_divergent"] == 0 and s["n_chains"] == 4 and s["n_draws"] == 500
    # iid energies: BFMI = E[(dE)^2] / Var(E) = 2
    np.testing.assert_allclose(s["bfmi"], 2.0, atol=0.3)


def test_chains_with_different_means_fail_rhat():
    rng = np.random.default_rng(2)
    post, ss = _good_tree(rng)
    post["mu"][1, :, 2, 0] += 1.0  # one chain of mu[2, 0] sits elsewhere
    dt = _tree(post, ss, dims={"mu": ["k", "g"]})
    with pytest.warns(SamplingWarning, match=r"R-hat > 1.01.*mu\[2, 0\]"):
        t = check(dt)
    bad = t.loc[~t["rhat_ok"], "parameter"].tolist()
    assert bad == ["mu[2, 0]"]
    assert t.set_index("parameter").loc["mu[2, 0]", "rhat"] > 1.1
    assert not t.attrs["ok"]


def test_coordinates_label_components():
    rng = np.random.default_rng(3)
    post, ss = _good_tree(rng, K=4, G=3)
    post["mu"][:2, :, 3, 1] += 2.0
    from arviz_base import from_dict

    dt = from_dict({"posterior": post, "sample_stats": ss}, dims={"mu": ["feature", "cls"]},
                   coords={"feature": ["f1", "f2", "f3", "f4"], "cls": ["a", "b", "c"]})
    with pytest.warns(SamplingWarning):
        t = check(dt, var_names="mu")
    assert len(t) == 12
    assert t.loc[~t["ok"], "parameter"].tolist() == ["mu[f4, b]"]


def test_autocorrelated_chain_fails_ess():
    rng = np.random.default_rng(4)
    post = {"tau_mu": _ar1(rng, (2, 400), 0.98)}
    with pytest.warns(SamplingWarning, match="bulk ESS < 400.*; too few effective draws: "
                                             "more draws"):
        t = check(_tree(post))
    assert not t.loc[0, "ess_bulk_ok"]
    # passes a lower bar on ESS... unless R-hat catches the slow mixing
    t2 = check(_tree(post), ess_min=5, rhat_max=10, warn=False)
    assert t2["ok"].all()


def test_divergences_and_low_bfmi_reported():
    rng = np.random.default_rng(5)
    post, ss = _good_tree(rng)
    ss["diverging"][2, [10, 20, 30]] = True
    ss["energy"][1] = np.cumsum(rng.normal(size=500))  # random-walk energy: BFMI ~ 0
    dt = _tree(post, ss, dims={"mu": ["k", "g"]})
    with pytest.warns(SamplingWarning) as rec:
        t = check(dt)
    msg = str(rec[0].message)
    assert "3 divergent transitions" in msg and "by chain [0, 0, 3, 0]" in msg
    assert "BFMI < 0.3 in chain(s) 1" in msg
    # each with what to do
    assert "raise target_accept" in msg and "longer tuning (more tune)" in msg
    assert t["ok"].all()  # the per-parameter table is fine; the sampler is not
    assert t.attrs["sampler"]["n_divergent"] == 3
    assert t.attrs["sampler"]["bfmi"][1] < 0.3
    # allowed divergences
    t2 = check(dt, max_divergences=3, bfmi_min=0.0, warn=False)
    assert t2.attrs["ok"]
    assert sampler_summary(dt)["divergent_by_chain"] == [0, 0, 3, 0]


def test_dataset_input_and_missing_sample_stats():
    rng = np.random.default_rng(6)
    ds = xr.Dataset({"tau_mu": (("chain", "draw"), rng.normal(size=(3, 300))),
                     "flag": (("chain", "draw"), rng.random((3, 300)) < 0.5)})
    t = check(ds, ess_min=100)
    assert t["variable"].tolist() == ["tau_mu", "flag"]
    assert t.attrs["sampler"]["n_divergent"] is None and t.attrs["sampler"]["bfmi"] is None
    post, _ = _good_tree(rng, stats=False)
    assert check(_tree(post), warn=False).attrs["sampler"]["bfmi"] is None


def test_constant_parameter_is_a_failure():
    rng = np.random.default_rng(7)
    ds = xr.Dataset({"a": (("chain", "draw"), np.ones((2, 200))),
                     "b": (("chain", "draw"), rng.normal(size=(2, 200)))})
    with pytest.warns(SamplingWarning, match="NaN"):
        t = check(ds, ess_min=50)
    assert not t.loc[0, "ok"] and np.isnan(t.loc[0, "rhat"])


def test_arviz_engine_and_short_chains_agree():
    rng = np.random.default_rng(8)
    post, ss = _good_tree(rng, C=2, D=120)
    dt = _tree(post, ss, dims={"mu": ["k", "g"]})
    a = check(dt, warn=False)
    b = check(dt, engine="arviz", warn=False)
    np.testing.assert_allclose(a[["rhat", "ess_bulk", "ess_tail"]],
                               b[["rhat", "ess_bulk", "ess_tail"]], rtol=1e-8)
    short = _tree({"x": rng.normal(size=(2, 10))})
    assert len(check(short, warn=False)) == 1  # falls back to ArviZ


def test_bad_arguments():
    rng = np.random.default_rng(9)
    post, ss = _good_tree(rng)
    dt = _tree(post, ss, dims={"mu": ["k", "g"]})
    with pytest.raises(ValueError, match="not in the posterior"):
        check(dt, var_names=["nope"])
    with pytest.raises(ValueError, match="rhat_max"):
        check(dt, rhat_max=0.5)
    with pytest.raises(ValueError, match="engine"):
        check(dt, engine="stan")
    with pytest.raises(ValueError, match="tail_prob"):
        check(dt, tail_prob=(0.9, 0.1))
    with pytest.raises(ValueError, match="chain"):
        check(xr.Dataset({"x": (("draw",), np.zeros(10))}))
    with pytest.raises(ValueError, match="posterior"):
        check(xr.DataTree.from_dict({"/prior": xr.Dataset({"x": ("draw", np.zeros(3))})}))


@pytest.mark.parametrize("kwargs, error, match", [
    ({"var_names": 3}, TypeError, "var_names must be a variable name"),
    ({"var_names": ["x", 1]}, TypeError, "var_names must be a variable name"),
    ({"tail_prob": 0.05}, TypeError, "tail_prob must be two probabilities"),
    ({"tail_prob": ("0.05", "0.95")}, TypeError, "tail_prob must be two probabilities"),
    ({"tail_prob": (0.05, 0.5, 0.95)}, ValueError, "tail_prob must be two increasing"),
    ({"rhat_max": "1.01"}, TypeError, "rhat_max must be a number"),
    ({"rhat_max": True}, TypeError, "rhat_max must be a number"),
    ({"rhat_max": np.nan}, ValueError, "rhat_max must be a finite number >= 1"),
    ({"ess_min": "400"}, TypeError, "ess_min must be a number"),
    ({"ess_min": -1}, ValueError, "ess_min must be >= 0"),
    ({"bfmi_min": np.inf}, ValueError, "bfmi_min must be >= 0 and finite"),
    ({"max_divergences": np.nan}, ValueError, "max_divergences must be an integer >= 0"),
    ({"max_divergences": -1}, ValueError, "max_divergences must be an integer >= 0"),
    ({"max_divergences": 2.0}, ValueError, "max_divergences must be an integer >= 0"),
    ({"max_listed": 1.5}, ValueError, "max_listed must be a positive integer"),
    ({"max_listed": 0}, ValueError, "max_listed must be a positive integer"),
    ({"max_listed": -1}, ValueError, "max_listed must be a positive integer"),
    ({"warn": 1}, TypeError, "warn must be True or False"),
    ({"rhat_components": "no"}, TypeError, "rhat_components must be True or False"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match):
    post = xr.Dataset({"x": (("chain", "draw"),
                             np.random.default_rng(0).normal(size=(4, 100)))})
    with pytest.raises(error, match=match):
        check(post, **kwargs)


def test_var_names_may_be_any_iterable_of_names():
    post = xr.Dataset({"x": (("chain", "draw"), np.random.default_rng(0).normal(size=(4, 100)))})
    table = check(post, var_names=(v for v in ["x"]), warn=False)
    assert table["parameter"].tolist() == ["x"]


# ---------------------------------------------------------------------------------------------
# many components: R-hat judged against what converged chains reach by chance
# ---------------------------------------------------------------------------------------------
def _family(x):
    return xr.Dataset({"tau_x": (("chain", "draw", "feature"), np.moveaxis(x, 0, 2))})


# the null model's fit over 2000 simulated components (3 s each): a level check, make slow
@pytest.mark.slow
@pytest.mark.parametrize("phi", [0.0, 0.5])
def test_split_rhat_of_converged_chains_follows_its_null_model(phi):
    """The bar's model: (m - 1)(e - 1)(R^2 - 1 + 1/n) ~ chi-squared(m - 1) for the bulk split
    R-hat of converged chains, e a split chain's own ESS (the folded half alike, with its
    own e; the bar takes the smaller e of the two). Reference: the chi-squared
    distribution, by a Kolmogorov-Smirnov test on 2000 simulated components (fixed seed)."""
    from scipy import stats

    rng = np.random.default_rng(57930 + int(10 * phi))
    x = _ar1(rng, (2000, 4, 1000), phi)
    split = diagnostics._split(x)
    z = diagnostics._z_scale(split)
    r = diagnostics._rhat_classic(z)
    n, m = 500, 8
    e = diagnostics._ess_raw(z, between=False) / m      # the split chains' own ESS, each
    stat = (m - 1) * (e - 1) * (r ** 2 - 1 + 1 / n)
    assert stats.kstest(stat, stats.chi2(m - 1).cdf).pvalue > 1e-3


def test_one_component_keeps_the_plain_bar_and_many_raise_it():
    e = np.array([30.0, 125.0, 500.0])
    one = diagnostics._rhat_limit(1.01, e, 500, 8, 1)
    np.testing.assert_allclose(one, 1.01, rtol=1e-9)           # exactly the usual rule
    many = diagnostics._rhat_limit(1.01, e, 500, 8, 2000)
    assert (many > 1.01).all() and (many[:-1] > many[1:]).all()  # higher where mixing is slow
    # where p0 underflows in scipy (a very long chain) the bar is still just above 1.01:
    # R^2 = 1.01^2 + (chi-squared quantile - q1) / (7 e), the quantile about 2 log(2000)
    # above q1, so R - 1.01 is about 1e-6
    far = diagnostics._rhat_limit(1.01, np.array([1e6]), 500, 8, 2000)[0]
    assert 1.01 + 5e-7 < far < 1.01 + 2e-6


@pytest.mark.parametrize("df", [7, 15, 63])
def test_chi2_log_tail_series_matches_scipy_where_both_are_finite_and_goes_on_beyond(df):
    """The asymptotic series behind R-hat's bar where scipy's log tail underflows: equal to
    scipy's where both are finite and x is far beyond df (x >= 1000: the terms fall by
    df / x <= 0.063, so the ninth is below 1e-10 of the sum and the log is good to 1e-12),
    and finite and falling beyond."""
    from scipy.stats import chi2

    x = np.array([1000.0, 1200.0, 1400.0])
    np.testing.assert_allclose(diagnostics._chi2_logsf_series(x, df), chi2.logsf(x, df),
                               rtol=1e-12)
    far = diagnostics._chi2_logsf(np.array([2e3, 1e5, 1e7]), df)
    assert np.isfinite(far).all() and (np.diff(far) < 0).all()


@pytest.mark.slow        # five fits of 500 components each (7 s): a level check, make slow
def test_many_converged_components_do_not_fail_by_chance():
    """Converged chains of about 1000 effective draws: with 500 components the plain rule
    (R-hat > 1.01 anywhere) fails almost every fit (1 - (1 - 0.015)^500), though every chain
    is converged; judged together the chance of a failure is that of one component, about
    1.5% here (p0 at 125 effective draws per split chain, both halves of R-hat), so at most
    1 of 5 fits (2 or more: probability about 0.002)."""
    rng = np.random.default_rng(57931)
    plain = together = 0
    for _ in range(5):
        post = _family(_ar1(rng, (500, 4, 1000), 0.6))
        plain += not check(post, rhat_components=False, warn=False)["rhat_ok"].all()
        t = check(post, warn=False)
        together += not t["rhat_ok"].all()
    assert plain >= 4 and together <= 1
    assert t.attrs["thresholds"]["rhat_components"] and (t["rhat_limit"] > 1.01).all()


def test_a_chain_elsewhere_still_fails_among_many():
    rng = np.random.default_rng(57932)
    x = _ar1(rng, (1000, 4, 1000), 0.6)
    x[:3, 1] += 1.0                                   # one chain of three components elsewhere
    with pytest.warns(SamplingWarning, match=r"above what converged chains reach by chance"):
        t = check(_family(x))
    assert not t["rhat_ok"].iloc[:3].any()
    y = _ar1(rng, (1000, 4, 1000), 0.6)
    y[:, 1] += 0.5                                    # one chain elsewhere everywhere
    assert (~check(_family(y), warn=False)["rhat_ok"]).mean() > 0.5


# ---------------------------------------------------------------------------------------------
# a real (small) PyMC run
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pymc_idata():
    pm = pytest.importorskip("pymc")
    rng = np.random.default_rng(10)
    coords = {"k": range(3), "g": ["a", "b"]}
    with pm.Model(coords=coords):
        tau = pm.Gamma("tau_mu", 2.0, 1.0)
        mu = pm.Normal("mu", 0.0, 1.0 / pm.math.sqrt(tau), dims=("k", "g"))
        pm.Normal("x", mu, 1.0, observed=rng.normal(size=(5, 3, 2)))
        return pm.sample(draws=200, tune=200, chains=2, cores=1, random_seed=11,
                         progressbar=False, compute_convergence_checks=False)


def test_real_pymc_run(pymc_idata):
    assert isinstance(pymc_idata, xr.DataTree)
    t = check(pymc_idata, ess_min=100, warn=False)
    assert t["parameter"].tolist()[:2] == ["mu[0, a]", "mu[0, b]"]
    assert len(t) == 7 and np.isfinite(t[["rhat", "ess_bulk", "ess_tail"]]).all().all()
    s = t.attrs["sampler"]
    assert s["n_chains"] == 2 and s["n_draws"] == 200
    assert s["n_divergent"] is not None and len(s["bfmi"]) == 2
    # the same numbers as ArviZ's own functions on the same DataTree
    from arviz_stats import ess, rhat

    post = pymc_idata["posterior"].to_dataset()[["mu"]]
    r = rhat(post)["mu"].transpose("k", "g").values.ravel()
    e = ess(post, method="tail", prob=(0.05, 0.95))["mu"].transpose("k", "g").values.ravel()
    np.testing.assert_allclose(t["rhat"].iloc[:6], r, rtol=1e-8)
    np.testing.assert_allclose(t["ess_tail"].iloc[:6], e, rtol=1e-8)
    # a 2 x 200 run cannot reach 400 effective draws for every component: warned
    with pytest.warns(SamplingWarning, match="ESS < 400"):
        check(pymc_idata, ess_min=400)


def test_warning_names_the_callers_line():
    # The SamplingWarning points at the user's code, not at a selbayes source line.
    rng = np.random.default_rng(2)
    post, ss = _good_tree(rng)
    post["mu"][1, :, 2, 0] += 1.0
    dt = _tree(post, ss, dims={"mu": ["k", "g"]})
    with pytest.warns(SamplingWarning) as record:
        check(dt)
    assert record[0].filename == __file__
