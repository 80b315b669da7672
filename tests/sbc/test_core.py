"""Tests of the SBC harness on conjugate models with exact posterior draws (no MCMC)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from selbayes.sbc import (
    chi2_uniformity,
    ecdf_band,
    ecdf_uniformity,
    load_sbc,
    run_sbc,
    sbc_rank,
    thin_draws,
)
from selbayes.sbc._core import _child_seed

try:  # tests/ may or may not be a package
    from .. import _sbc_toy as toy
except ImportError:
    import _sbc_toy as toy

PARAMS = ["mu", "lam"]


def _run(fitter=toy.fit_exact, n=300, **kw):
    kw.setdefault("random_state", 11)
    kw.setdefault("thin_to", toy.N_DRAWS)
    return run_sbc(toy.simulate, fitter, n, PARAMS, progressbar=False, **kw)


@pytest.fixture(scope="module")
def exact20():
    """Reference: 20 uninterrupted replicates, serial."""
    return _run(n=20)


# ---------------------------------------------------------------------------- building blocks
def test_child_seeds_equal_seedsequence_spawn():
    root = np.random.SeedSequence(123)
    spawned = np.random.SeedSequence(123).spawn(5)
    for i, s in enumerate(spawned):
        np.testing.assert_array_equal(_child_seed(root, i).generate_state(4), s.generate_state(4))


def test_rank_counts_draws_below_truth():
    rng = np.random.default_rng(0)
    rank, u = sbc_rank(0.5, [0.1, 0.7, 0.3, 0.9], rng)
    assert rank == 2
    assert 2 / 5 <= u < 3 / 5


def test_ties_are_broken_uniformly():
    # truth equal to all 4 draws: rank must be uniform on 0..4
    rng = np.random.default_rng(1)
    out = [sbc_rank(1.0, np.ones(4), rng) for _ in range(5000)]
    ranks = np.array([r for r, _ in out])
    u = np.array([f for _, f in out])
    counts = np.bincount(ranks, minlength=5)
    assert counts.size == 5
    assert stats.chisquare(counts).pvalue > 0.001
    assert np.all((u >= ranks / 5) & (u < (ranks + 1) / 5))


def test_thin_to_keeps_equally_spaced_draws():
    draws = np.arange(20.0).reshape(2, 10)
    np.testing.assert_array_equal(thin_draws(draws, 4), [0.0, 6.0, 13.0, 19.0])
    with pytest.raises(ValueError, match="thin_to=21 exceeds the 20"):
        thin_draws(draws, 21)


def test_ess_thinning_stride_matches_autocorrelation():
    # AR(1) with rho = 0.9: ESS ~ n (1 - rho) / (1 + rho) = n / 19, so about n / 19 draws remain
    rng = np.random.default_rng(2)
    n, rho = 20_000, 0.9
    x = np.empty(n)
    x[0] = rng.standard_normal()
    e = rng.standard_normal(n) * np.sqrt(1 - rho**2)
    for t in range(1, n):
        x[t] = rho * x[t - 1] + e[t]
    kept = thin_draws(x)
    assert n / 19 * 0.75 < kept.size < n / 19 * 1.25
    assert thin_draws(np.zeros(50)).size == 50  # constant draws: no ESS, no thinning


# ---------------------------------------------------------------------------- uniformity tests
def test_chi2_hand_example():
    with pytest.warns(UserWarning, match="expected count"):
        stat, df, p = chi2_uniformity([0.05, 0.15, 0.15, 0.95], n_bins=2)
    # counts (3, 1), expected (2, 2): (1 + 1) / 2 = 1, df 1, p = 2 (1 - Phi(1))
    assert stat == pytest.approx(1.0)
    assert df == 1
    assert p == pytest.approx(2 * stats.norm.sf(1.0))


def test_chi2_default_bins_keep_expected_counts_at_least_5():
    _, df, _ = chi2_uniformity(np.linspace(0.01, 0.99, 300))
    assert df == 19
    _, df, _ = chi2_uniformity(np.linspace(0.01, 0.99, 37))
    assert df == 37 // 5 - 1


def test_ecdf_statistic_exact_small_case():
    # n = 2, one evaluation point z = 1/2: c = 2 gives 2 P(X >= 2) = 0.5, the smallest value,
    # whose null probability is P(c = 0) + P(c = 2) = 0.5
    stat, p = ecdf_uniformity([0.1, 0.2], n_eval=2, n_simulations=10_000)
    assert stat == pytest.approx(0.5)
    assert p == pytest.approx(0.5, abs=4 * np.sqrt(0.25 / 10_000))


def test_ecdf_test_has_nominal_size_and_power():
    rng = np.random.default_rng(3)
    p_null = np.array([ecdf_uniformity(rng.random(60), n_simulations=4000)[1]
                       for _ in range(400)])
    se = np.sqrt(0.05 * 0.95 / 400)
    assert abs((p_null < 0.05).mean() - 0.05) < 4 * se
    se = np.sqrt(0.2 * 0.8 / 400)
    assert abs((p_null < 0.2).mean() - 0.2) < 4 * se
    assert ecdf_uniformity(rng.random(200) ** 1.5)[1] < 0.001


def test_ecdf_band_covers_uniform_ecdfs_at_its_level():
    n, prob = 80, 0.9
    z, lower, upper = ecdf_band(n, prob, n_simulations=4000)
    rng = np.random.default_rng(4)
    u = rng.random((2000, n))
    ecdf = (u[:, :, None] <= z[None, None, :]).mean(axis=1)
    inside = np.all((ecdf >= lower - 1e-12) & (ecdf <= upper + 1e-12), axis=1).mean()
    assert abs(inside - prob) < 4 * np.sqrt(prob * (1 - prob) / 2000) + 0.01


# ---------------------------------------------------------------------------- SBC end to end
def test_exact_posterior_passes_with_ess_thinning():
    res = _run(thin_to=None)
    assert res.ranks.shape == (300, 2)
    assert (res.ranks >= 0).all().all() and (res.ranks <= res.n_draws).all().all()
    # iid draws: ESS ~ n (estimated with noise), so typically half or more are kept
    assert (res.n_draws.median() >= toy.N_DRAWS // 2).all()
    assert (res.p_values > 0.01).all().all(), res.p_values
    summ = res.summary()
    assert summ["passed"].all()
    # sd of Uniform(0, 1) = 0.2887; sd of the sample sd over 300 values ~ 0.0075
    assert np.allclose(summ["sd_frac_rank"], 12**-0.5, atol=4 * 0.0075)


@pytest.mark.parametrize("fitter", [toy.fit_narrow, toy.fit_shifted])
def test_wrong_posterior_fails(fitter):
    res = _run(fitter)
    assert (res.p_values < 0.001).all().all(), res.p_values
    assert not res.summary()["passed"].any()


def test_autocorrelated_draws_need_thinning():
    kw = {"random_state": 11, "progressbar": False}
    raw = run_sbc(toy.simulate, toy.fit_ar1, 300, ["mu"], thin_to=1000, **kw)
    thinned = run_sbc(toy.simulate, toy.fit_ar1, 300, ["mu"], **kw)
    assert raw.p_values.loc["mu", "ecdf_p"] < 0.001
    assert thinned.p_values.loc["mu", "ecdf_p"] > 0.01
    assert thinned.n_draws["mu"].mean() < 50


def test_datatree_output_matches_dict(exact20):
    res = _run(toy.fit_datatree, n=20)
    pd.testing.assert_frame_equal(res.ranks, exact20.ranks)
    pd.testing.assert_frame_equal(res.frac_ranks, exact20.frac_ranks)


def test_same_seed_reproduces_and_other_seed_differs(exact20):
    again = _run(n=20)
    pd.testing.assert_frame_equal(again.ranks, exact20.ranks)
    other = _run(n=20, random_state=12)
    assert not other.ranks.equals(exact20.ranks)
    seeded = _run(n=20, random_state=np.random.SeedSequence(11))
    pd.testing.assert_frame_equal(seeded.ranks, exact20.ranks)


# ---------------------------------------------------------------------------- resume
def test_resume_loads_finished_replicates(tmp_path, exact20):
    first = toy.CountingFitter()
    _run(first, n=10, out_dir=tmp_path)
    assert first.calls == 10
    assert len(list(tmp_path.glob("rep_*.json"))) == 10
    second = toy.CountingFitter()
    res = _run(second, n=20, out_dir=tmp_path)
    assert second.calls == 10  # only replicates 10..19 ran
    pd.testing.assert_frame_equal(res.ranks, exact20.ranks)
    pd.testing.assert_frame_equal(res.frac_ranks, exact20.frac_ranks)
    pd.testing.assert_frame_equal(load_sbc(tmp_path).ranks, exact20.ranks)
    # random_state=None resumes with the stored seed; nothing left to run
    third = toy.CountingFitter()
    res = run_sbc(toy.simulate, third, 20, PARAMS, thin_to=toy.N_DRAWS, out_dir=tmp_path,
                  progressbar=False)
    assert third.calls == 0
    pd.testing.assert_frame_equal(res.ranks, exact20.ranks)


def test_resume_after_crash(tmp_path, exact20):
    crashing = toy.CountingFitter(fail_at=8)
    with pytest.raises(RuntimeError, match="simulated crash"):
        _run(crashing, n=20, out_dir=tmp_path)
    assert len(list(tmp_path.glob("rep_*.json"))) == 7
    assert not list(tmp_path.glob("*.tmp*"))
    again = toy.CountingFitter()
    res = _run(again, n=20, out_dir=tmp_path)
    assert again.calls == 13
    pd.testing.assert_frame_equal(res.ranks, exact20.ranks)


def test_resume_detects_changed_settings(tmp_path):
    _run(toy.CountingFitter(), n=3, out_dir=tmp_path)
    with pytest.raises(ValueError, match="different settings.*params"):
        run_sbc(toy.simulate, toy.CountingFitter(), 3, ["mu"], random_state=11,
                thin_to=toy.N_DRAWS, out_dir=tmp_path, progressbar=False)
    with pytest.raises(ValueError, match="different settings.*entropy"):
        _run(toy.CountingFitter(), n=3, out_dir=tmp_path, random_state=12)
    with pytest.raises(ValueError, match="different settings.*thin_to"):
        _run(toy.CountingFitter(), n=3, out_dir=tmp_path, thin_to=50)
    with pytest.raises(ValueError, match="different settings.*fitter"):
        _run(toy.fit_narrow, n=3, out_dir=tmp_path)
    # a replicate file that does not belong to the run
    rec = json.loads((tmp_path / "rep_000001.json").read_text())
    rec["task"]["index"] = 2  # replicate 2's record under replicate 1's name
    (tmp_path / "rep_000001.json").write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="does not belong to this run"):
        _run(toy.CountingFitter(), n=3, out_dir=tmp_path)


def test_resume_detects_changed_fitter_and_simulator_settings(tmp_path):
    """A dataclass fitter's fields are settings: a resume with another shift (or design,
    priors, sampler) reused the stored ranks of the first run and reported the new settings."""
    args = dict(random_state=11, thin_to=toy.N_DRAWS, out_dir=tmp_path, progressbar=False)
    import functools
    import threading

    def stored(folder):             # the replicates' files as written: a resume rewrites none
        return {f.name: f.stat().st_mtime_ns for f in folder.glob("rep_*.json")}

    run_sbc(toy.simulate, toy.ShiftedFitter(0.0), 3, PARAMS, **args)
    first = stored(tmp_path)
    with pytest.raises(ValueError, match="different settings.*fitter_settings"):
        run_sbc(toy.simulate, toy.ShiftedFitter(3.0), 3, PARAMS, **args)
    # the same settings resume: nothing fitted again
    run_sbc(toy.simulate, toy.ShiftedFitter(0.0), 3, PARAMS, **args)
    assert len(first) == 3 and stored(tmp_path) == first
    # a simulator's partial arguments are settings too
    other = dict(args, out_dir=args["out_dir"] / "partial")
    run_sbc(functools.partial(toy.simulate_n, n_obs=10), toy.fit_exact, 3, PARAMS, **other)
    with pytest.raises(ValueError, match="different settings.*simulator_settings"):
        run_sbc(functools.partial(toy.simulate_n, n_obs=30), toy.fit_exact, 3, PARAMS, **other)
    # a field that is neither copied nor written as JSON (a lock): recorded by its type
    locked = dict(args, out_dir=args["out_dir"] / "locked")
    run_sbc(toy.simulate, toy.LockedFitter(threading.Lock()), 3, PARAMS, **locked)
    first = stored(locked["out_dir"])
    run_sbc(toy.simulate, toy.LockedFitter(threading.Lock()), 3, PARAMS, **locked)
    assert len(first) == 3 and stored(locked["out_dir"]) == first


def test_resume_of_a_store_without_recorded_settings_warns(tmp_path):
    """A run stored before the settings were recorded is reused, saying it cannot check them."""
    from selbayes._parallel import Task, TaskStore

    args = dict(random_state=11, thin_to=toy.N_DRAWS, out_dir=tmp_path, progressbar=False)
    first = run_sbc(toy.simulate, toy.ShiftedFitter(0.0), 3, PARAMS, **args)
    manifest = tmp_path / "sbc_manifest.json"
    rec = json.loads(manifest.read_text())
    for key in ("simulator_settings", "fitter_settings"):
        del rec["settings"][key]
    old = TaskStore(tmp_path, rec["settings"])
    rec["settings_hash"] = old.hash
    manifest.write_text(json.dumps(rec))
    for i in range(3):
        path = tmp_path / f"rep_{i:06d}.json"
        rep = json.loads(path.read_text())
        rep["settings_hash"] = old.task_hash(Task(rep["fit_id"], rep["task"]))
        path.write_text(json.dumps(rep))
    with pytest.warns(UserWarning, match="stored without its simulator's and fitter's"):
        again = run_sbc(toy.simulate, toy.ShiftedFitter(0.0), 3, PARAMS, **args)
    pd.testing.assert_frame_equal(again.ranks, first.ranks)


# ---------------------------------------------------------------------------- parallel
def test_joblib_processes_give_identical_ranks(exact20, tmp_path):
    res = _run(n=20, n_jobs=2, out_dir=tmp_path)
    pd.testing.assert_frame_equal(res.ranks, exact20.ranks)
    pd.testing.assert_frame_equal(res.frac_ranks, exact20.frac_ranks)
    assert len(list(tmp_path.glob("rep_*.json"))) == 20


def test_dask_cluster_gives_identical_ranks(exact20):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            res = _run(n=20, client=client)
        pd.testing.assert_frame_equal(res.ranks, exact20.ranks)
        res = _run(n=20, scheduler=cluster.scheduler_address)
        pd.testing.assert_frame_equal(res.frac_ranks, exact20.frac_ranks)


@pytest.mark.slow
def test_dask_worker_processes_give_identical_ranks(exact20):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        res = _run(n=20, scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(res.ranks, exact20.ranks)


def test_missing_distributed_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"selbayes\[distributed\]"):
        _run(n=2, scheduler="tcp://127.0.0.1:1")


# ---------------------------------------------------------------------------- outputs, errors
def test_save_and_plot(tmp_path, exact20):
    paths = exact20.save(tmp_path / "report")
    long = pd.read_csv(paths["csv"])
    assert len(long) == 40 and set(long["param"]) == set(PARAMS)
    wide = long.pivot(index="replicate", columns="param", values="rank")
    pd.testing.assert_frame_equal(wide[PARAMS], exact20.ranks, check_names=False)
    text = paths["summary"].read_text()
    assert "| mu |" in text and "ecdf_p" in text
    assert paths["png"].stat().st_size > 1000


def test_builtin_plot_for_varying_draw_counts():
    res = _run(n=20, thin_to=None)
    assert res.n_draws.nunique().max() > 1  # ESS thinning: L differs between replicates
    fig = res.plot()
    assert np.shape(fig.axes) == (4,)
    bars = fig.axes[0].patches[-4:]  # 20 // 5 = 4 bins, after the band
    assert sum(b.get_height() for b in bars) == 20
    assert [b.get_x() for b in bars] == pytest.approx([0, 0.25, 0.5, 0.75])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"n_replicates": 0}, ValueError, "n_replicates"),
        ({"params": []}, ValueError, "params"),
        ({"params": ["mu", "mu"]}, ValueError, "duplicate"),
        ({"params": ["sigma"]}, ValueError, "truth lacks.*sigma"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
        ({"thin_to": 0}, ValueError, "thin_to"),
        ({"thin_to": 500}, ValueError, "thin_to=500 exceeds"),
        ({"random_state": "a"}, TypeError, "random_state"),
        ({"client": object(), "scheduler": "tcp://x"}, ValueError, "client or scheduler"),
    ],
)
def test_bad_arguments(kwargs, exc, match):
    args = {"simulator": toy.simulate, "fitter": toy.fit_exact, "n_replicates": 2,
            "params": PARAMS, "progressbar": False, **kwargs}
    with pytest.raises(exc, match=match):
        run_sbc(**args)


def _fit_vector(data, seed):
    return {"mu": np.zeros((1, 10, 3)), "lam": np.ones(10)}


def _fit_missing(data, seed):
    return {"mu": np.zeros(10)}


@pytest.mark.parametrize("fitter, match", [(_fit_vector, "shape"),
                                           (_fit_missing, "no posterior variable 'lam'")])
def test_bad_fitter_output(fitter, match):
    with pytest.raises(ValueError, match=match):
        run_sbc(toy.simulate, fitter, 2, PARAMS, progressbar=False)


# -------------------------------------------------------------------- bad input is named
_U = np.random.default_rng(0).uniform(size=50)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: chi2_uniformity(_U, "5"), ValueError, "n_bins must be an integer >= 2"),
    (lambda: chi2_uniformity(_U, np.nan), ValueError, "n_bins"),
    (lambda: chi2_uniformity(_U, 1), ValueError, "n_bins"),
    (lambda: chi2_uniformity("ab"), TypeError, "frac_ranks must be numeric"),
    (lambda: ecdf_uniformity(_U, "5", 100), ValueError, "n_eval must be an integer >= 2"),
    (lambda: ecdf_uniformity(_U, None, 1.5), ValueError, "n_simulations"),
    (lambda: ecdf_uniformity(_U, None, True), ValueError, "n_simulations"),
    (lambda: ecdf_uniformity(_U, None, "5"), ValueError, "n_simulations"),
    (lambda: ecdf_uniformity(_U, None, 100, -1), ValueError, "random_state must be an int >= 0"),
    (lambda: ecdf_uniformity(_U, None, 100, True), TypeError, "random_state"),
    (lambda: ecdf_band(0, n_simulations=100), ValueError, "n must be an integer >= 2"),
    (lambda: ecdf_band(50.5, n_simulations=100), ValueError, "n must be an integer"),
    (lambda: ecdf_band(50, "0.9", n_simulations=100), TypeError, "prob must be a number"),
    (lambda: ecdf_band(50, True, n_simulations=100), TypeError, "prob must be a number"),
    (lambda: ecdf_band(50, n_simulations=0), ValueError, "n_simulations"),
    (lambda: ecdf_band(50, n_simulations=100, random_state=-1), ValueError, "random_state"),
    (lambda: thin_draws(np.arange(20.0), 0), ValueError, "thin_to must be None or a positive"),
    (lambda: thin_draws(np.arange(20.0), True), ValueError, "thin_to"),
    (lambda: thin_draws(np.arange(20.0), 1.5), ValueError, "thin_to"),
    (lambda: thin_draws(np.r_[np.arange(20.0), np.nan]), ValueError, "draws contain NaN"),
    (lambda: thin_draws(np.zeros((2, 3, 4))), ValueError, "draws must have shape"),
    (lambda: thin_draws("abc"), TypeError, "draws must be numeric"),
    (lambda: sbc_rank(np.nan, [1.0, 2.0], np.random.default_rng(0)), ValueError,
     "truth must be finite"),
    (lambda: sbc_rank("a", [1.0, 2.0], np.random.default_rng(0)), TypeError,
     "truth must be a number"),
    (lambda: sbc_rank(1.0, [], np.random.default_rng(0)), ValueError, "draws is empty"),
    (lambda: sbc_rank(1.0, [np.nan, 1.0], np.random.default_rng(0)), ValueError,
     "draws contain NaN"),
    (lambda: sbc_rank(1.0, [1.0, 2.0], 0), TypeError, "rng must be a numpy Generator"),
    (lambda: load_sbc(5), TypeError, "out_dir must be a path"),
])
def test_uniformity_and_rank_functions_name_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"n_replicates": True}, ValueError, "n_replicates must be an integer >= 2"),
    ({"thin_to": True}, ValueError, "thin_to must be None or a positive integer"),
    ({"progressbar": "no"}, TypeError, "progressbar must be True or False"),
    ({"out_dir": 5}, TypeError, "out_dir must be a path"),
])
def test_run_sbc_names_bad_settings(kwargs, exc, match):
    args = {"n_replicates": 2, "progressbar": False, **kwargs}
    with pytest.raises(exc, match=match):
        run_sbc(toy.simulate, toy.fit_exact, args.pop("n_replicates"), PARAMS, **args)


def test_sbc_schema_names_an_unknown_model():
    from selbayes.sbc import sbc_schema

    with pytest.raises(ValueError, match="model must be one of"):
        sbc_schema("gausian")


def test_a_few_replicates_warn_once_for_all_parameters():
    """Too few ranks per chi-square bin is the same for every parameter: one warning, not one
    per parameter (selbayes sbc printed it six times on a quick run)."""
    import warnings

    from selbayes.sbc import run_sbc

    def simulator(rng):
        mu = rng.normal(size=3)
        return rng.normal(mu), {f"mu{i}": mu[i] for i in range(3)}

    def fitter(x, seed):
        rng = np.random.default_rng(seed)
        return {f"mu{i}": rng.normal(x[i] / 2, np.sqrt(0.5), size=19) for i in range(3)}

    res = run_sbc(simulator, fitter, 12, ("mu0", "mu1", "mu2"), random_state=0, thin_to=19,
                  progressbar=False)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        table = res.uniformity(n_bins=4, n_simulations=50)
    assert len(table) == 3
    few = [w for w in said if "expected count per bin" in str(w.message)]
    assert len(few) == 1 and few[0].category is UserWarning


def test_ecdf_band_of_one_rank_names_n():
    """It said "n_eval must be >= 2", a parameter the caller never gave."""
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        ecdf_band(1, n_simulations=100)


def test_fitters_refuse_settings_that_would_fail_in_the_first_replicate():
    from selbayes.sbc import GaussianSBCFitter, NaiveBayesSBCFitter

    with pytest.raises(ValueError, match=r"threshold must be .*1"):
        NaiveBayesSBCFitter(threshold=1.5)       # keeps no feature: the prior, "corrected"
    with pytest.raises(ValueError, match="sampler must be one of"):
        GaussianSBCFitter(sampler="bogus")


def _simulate_text_truth(rng):
    data, truth = toy.simulate(rng)
    return data, {**truth, "mu": "0.5"}


def _fit_text_draws(data, seed):
    return {**toy.fit_exact(data, seed), "mu": ["a"] * toy.N_DRAWS}


@pytest.mark.parametrize("simulator, fitter, match", [
    (_simulate_text_truth, toy.fit_exact, "true value of 'mu' must be one finite number"),
    (toy.simulate, _fit_text_draws, "posterior draws of 'mu' must be numbers"),
])
def test_truth_and_draws_that_are_not_numbers_are_named(simulator, fitter, match):
    """A truth of "0.5" or True was read as a number; text draws gave numpy's "could not
    convert string to float", naming no parameter."""
    with pytest.raises(TypeError, match=match):
        run_sbc(simulator, fitter, 2, PARAMS, thin_to=toy.N_DRAWS, progressbar=False)


def test_few_ranks_per_bin_are_warned_of_once_per_result():
    """save, summary and the command line's verdict each ran the tests again, and printed
    the chi-square's warning each time (three times in one `selbayes sbc`)."""
    import warnings as w

    res = run_sbc(toy.simulate, toy.fit_exact, 6, PARAMS, random_state=3,
                  thin_to=toy.N_DRAWS, progressbar=False)
    with w.catch_warnings(record=True) as said:
        w.simplefilter("always")
        res.summary()
        res.summary()
        _ = res.p_values
    assert sum("chi-square p-value is approximate" in str(x.message) for x in said) == 1
