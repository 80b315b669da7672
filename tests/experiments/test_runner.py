"""Tests of the reproduction runner (``selbayes reproduce``): spec validation, resume, report.

Most tests replace the MCMC fit by a stub whose predictive probabilities are known exactly:
the true class probabilities of the simulated model (calibrated by construction) or a
tempered, overconfident version of them. The acceptance criteria must then PASS or FAIL as the
construction dictates, which tests the evaluation independently of the sampler. One slow test
runs the spec's real ``--quick`` design end to end.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import logsumexp

from selbayes._parallel import TaskResult, jsonable
from selbayes.experiments import _gaussian as rg
from selbayes.experiments import load_spec, run_reproduction

from .._spec_files import write_spec

SPECS = Path(__file__).resolve().parents[2] / "models" / "experiments"
SPEC = SPECS / "li2009_gaussian_simulation.toml"


# ---------------------------------------------------------------------------------------------
# spec validation
# ---------------------------------------------------------------------------------------------
def test_shipped_spec_holds_the_papers_design():
    spec = load_spec(SPEC)
    d = spec["data"]
    assert (d["p"], d["n_classes"], d["n_train"], d["n_test"]) == (4000, 6, 200, 5000)
    assert (d["tau_mu"], d["tau_nu"], d["alpha_x"], d["w_x"]) == (100, 100, 4, 1)
    assert spec["selection"]["k"] == [10, 50, 200, 1000] and spec["selection"]["include_all"]
    paper = {"c": 1, "alpha_x": 4, "w_x": 1, "alpha_mu": 1.5, "w_mu": 0.01,
             "alpha_nu": 1.5, "w_nu": 0.01}
    assert {key: spec["priors"][key] for key in paper} == paper
    # options beyond the paper stay off
    assert all(spec["priors"][key] is None for key in set(spec["priors"]) - set(paper))
    # transcription check of Table 1 against the paper's own arithmetic: every column of
    # counts sums to the same total (4000), and the event fraction is near 1/6
    table1 = spec["reference"]["table1"]
    assert len(table1) == 5
    for label, methods in table1.items():
        for method, cols in methods.items():
            counts = np.array(cols["count"])
            assert counts.sum() == 4000, (label, method)
            empty = counts == 0
            assert np.all(np.isnan(cols["pred"])[empty]) and not np.any(
                np.isnan(cols["pred"])[~empty]), (label, method)
            events = np.nansum(counts * np.array(cols["actual"]))
            assert abs(events / 4000 - 1 / 6) < 0.03, (label, method)
            pred = np.array(cols["pred"])[~empty]
            bins = np.flatnonzero(~empty)
            assert np.all((pred >= bins / 10) & (pred < (bins + 1) / 10)), (label, method)


def test_quick_overrides_are_merged():
    full, quick = load_spec(SPEC), load_spec(SPEC, quick=True)
    assert quick.quick and not full.quick
    assert quick["data"]["p"] < full["data"]["p"] and quick["selection"]["k"] == [5, 20]
    assert quick["data"]["tau_mu"] == full["data"]["tau_mu"]  # untouched keys are kept
    assert quick["priors"] == full["priors"]


@pytest.mark.parametrize("edit, message", [
    (("draws = 1000", "draw = 1000"), r"unknown key\(s\) \['draw'\] in \[sampler\]"),
    (("draws = 1000", 'draws = "many"'), r"\[sampler\] draws must be an integer"),
    (("chains = 4", "chains = 0"), r"\[sampler\] chains must be >= 1"),
    (("k = [10, 50, 200, 1000]", "k = [10, 4000]"), r"\[selection\] k values \[4000\]"),
    (("k = [10, 50, 200, 1000]", "k = [10, 10]"), r"\[selection\] k has repeated"),
    (('model = "gaussian"', 'model = "gausian"'), r"model = 'gausian' is not a known"),
    (("tau_mu = 100.0 ", "tau_mu = -1.0 "), r"\[data\] tau_mu must be > 0"),
    (("w_mu = 0.01", "w_mu = 0"), r"\[priors\] w_mu must be > 0"),
    (("event_class = 0 ", "event_class = 6 "), r"event_class = 6 must be < \[data\] n_classes"),
    (("[seeds]", "[seedz]"), r"unknown section\(s\) \['seedz'\]"),
    (("n_test = 300", "n_tests = 300"), r"unknown key\(s\) \['n_tests'\] in \[quick.data\]"),
    (("[quick.acceptance]", "[quick.experiment]"), r"\[quick.experiment\] cannot be overridden"),
    (("count = [1000, 1827, 839, 237, 80, 15, 2, 0, 0, 0]", "count = [1000]"),
     r"\[reference.table1.k10.corrected\] count must be a list of n_bins = 10"),
    (("n_train = 200 ", "n_train = 2OO "), r"not valid TOML"),
    (('methods = ["corrected", "uncorrected"]', 'methods = ["uncorrected"]'),
     r"\[replicates\] methods must include 'corrected'"),
    (('methods = ["corrected", "uncorrected"]', 'methods = ["both"]'),
     r"\[replicates\] methods"),
])
def test_spec_errors_name_the_key(tmp_path, edit, message):
    text = SPEC.read_text()
    old, new = edit
    assert old in text
    path = write_spec(tmp_path, text.replace(old, new, 1))
    with pytest.raises(ValueError, match=message):
        load_spec(path)


@pytest.mark.parametrize("new, message", [
    ('k = "ten"', r"\[selection\] k must be a list of int"),
    ("", r"missing the required key 'k'"),
    ("k = [10, 50, 200, 100000]", r"\[selection\] k values \[100000\]"),
])
def test_values_quick_replaces_are_checked_in_a_quick_load(tmp_path, new, message):
    """[selection] k under [quick.selection] k = [5, 20]: a typo, a missing k or one beyond
    [data] p passed the quick run ("verdict: PASS"); only the full one refused them."""
    text = SPEC.read_text().replace("k = [10, 50, 200, 1000]", new, 1)
    path = write_spec(tmp_path, text)
    for quick in (False, True):
        with pytest.raises(ValueError, match=message):
            load_spec(path, quick=quick)


def test_missing_section_and_file(tmp_path):
    text = SPEC.read_text()
    start = text.index("[seeds]")
    end = text.index("[evaluation]")
    with pytest.raises(ValueError, match=r"section \[seeds\] is missing"):
        load_spec(write_spec(tmp_path, text[:start] + text[end:]))
    with pytest.raises(ValueError, match=r"missing the required key 'p'"):
        load_spec(write_spec(tmp_path, re.sub(r"\np = 4000[^\n]*", "", text)))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_spec(tmp_path / "nope.toml")
    with pytest.raises(ValueError, match=r"\[experiment\] with the key 'model'"):
        load_spec(write_spec(tmp_path, "[experiment]\nname = 'x'\n"))


def test_run_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="n_jobs"):
        run_reproduction(SPEC, out=tmp_path, n_jobs=0)
    with pytest.raises(TypeError, match="scheduler"):
        run_reproduction(SPEC, out=tmp_path, scheduler=3)


# ---------------------------------------------------------------------------------------------
# stubbed runs
# ---------------------------------------------------------------------------------------------
# A design where the probabilities are decisive enough for overconfidence to show in the error
# rates, and with enough test cases that the sampling error of each check is small: with
# n_test = 20000 the sd of (actual - expected error) is at most sqrt(0.25 / 20000) = 0.0035, so
# the 0.02 tolerance is 5.7 sd; bins use z = 4 (false alarm 6e-5 per bin).
STUB_DESIGN = """
[quick]
[quick.data]
p = 30
n_test = {n_test}
tau_mu = 9.0
[quick.selection]
k = [3, 8]
[quick.sampler]
draws = 50
chains = 2
[quick.evaluation]
n_loss_matrices = 10
calibration_cv = 3
baselines = {baselines}
[quick.replicates]
n = {n_rep}
n_test = 200
[quick.acceptance]
bin_z = 4.0
uncorrected_gap_k = [3, 8, 1000]
"""


def _stub_spec(tmp_path, n_test, baselines, n_rep) -> Path:
    text = SPEC.read_text()
    text = text[:text.index("[quick]")] + STUB_DESIGN.format(
        n_test=n_test, baselines=json.dumps(baselines), n_rep=n_rep)
    return write_spec(tmp_path, text, "stub.toml")


@pytest.fixture
def stub_spec(tmp_path) -> Path:
    """The stub design with enough test cases for the statistical checks (the pooled bins:
    30 replicate data sets x 200 test cases)."""
    return _stub_spec(tmp_path, 20000, list(rg.BASELINES), 30)


@pytest.fixture
def light_spec(tmp_path) -> Path:
    """A cheaper stub design for the bookkeeping tests (resume, back-ends)."""
    return _stub_spec(tmp_path, 1000, ["gnb"], 2)


def _true_log_proba(data, X):
    """log P(y = g | x, true parameters): the exact, hence calibrated, class probabilities."""
    sd = 1 / np.sqrt(data.tau_x)
    z = (X[:, None, :] - data.mu[None, :, :]) / sd            # (n, G, p)
    ll = -0.5 * (z ** 2).sum(axis=2)                          # shared constants cancel
    ll += np.log(np.full(data.mu.shape[0], 1 / data.mu.shape[0]))
    return ll - logsumexp(ll, axis=1, keepdims=True)


def make_stub(calibrated_method="corrected", counter=None):
    """A fit function: calibrated probabilities for ``calibrated_method`` (and all features),
    probabilities tempered by 3 (overconfident) for the other method."""

    def stub(settings, task):
        if counter is not None:
            counter.append(task.id)
        prm = task.params
        train, test = rg.load_data(settings, prm.get("replicate"))
        lp = _true_log_proba(test, test.X)
        good = prm["method"] in (calibrated_method, "no_selection")
        if not good:
            lp = 3 * lp
            lp -= logsumexp(lp, axis=1, keepdims=True)
        rng = np.random.default_rng(prm["seed"])
        shift = 0.0 if good else -2.0
        tau_mu = np.exp(np.log(settings["data"]["tau_mu"]) + shift
                        + 0.1 * rng.standard_normal((2, 50)))
        diag = {"rhat_tau_mu": 1.0, "ess_bulk_tau_mu": 400.0, "ess_tail_tau_mu": 400.0,
                "rhat_max": 1.0, "ess_bulk_min": 400.0, "ess_tail_min": 400.0,
                "n_components": 1, "n_divergent": 0, "bfmi_min": 1.0, "ok": True,
                "failures": []}
        meta = {"k": prm["k"], "method": prm["method"], "n_selected": 0, "gamma": 1.0,
                "fit_s": 0.01, "predict_s": 0.01, "sampler_used": "stub", "diagnostics": diag}
        arrays = {"proba": np.exp(lp), "tau_mu": tau_mu}
        if "replicate" in prm:
            meta["replicate"] = prm["replicate"]
            arrays["y_test"] = test.y
        return TaskResult(task.id, arrays, meta)

    return stub


def _no_time(metrics) -> list[dict]:
    """Metrics without the timings (baselines are refitted for every report)."""
    return [jsonable({k: v for k, v in m.items() if k != "train_s"}) for m in metrics]


def _verdicts(results) -> dict:
    return {(c["criterion"], c["scope"]): c["verdict"] for c in results["acceptance"]}


POOLED_BINS = ("corrected: reliability bins within binomial SE (test cases pooled over 30 "
               "data sets)")


def test_calibrated_stub_passes_and_overconfident_fails(tmp_path, stub_spec, monkeypatch,
                                                        no_figures):
    monkeypatch.setattr(rg, "fit_one", make_stub("corrected"))
    res = run_reproduction(stub_spec, out=tmp_path / "good", quick=True, progressbar=False)
    v = _verdicts(res.results)
    for k in (3, 8):
        assert v[("corrected: |expected - actual error rate|", f"k = {k}")] == "PASS"
        assert v[(POOLED_BINS, f"k = {k}")] == "PASS"
        assert v[("corrected: posterior median log tau_mu near the truth", f"k = {k}")] == "PASS"
        assert v[("uncorrected: expected error below actual", f"k = {k}")] == "PASS"
        assert v[("AMLP: corrected below uncorrected", f"k = {k}")] == "PASS"
        # exact probabilities beat anything trained on 200 cases, in expectation and here
        assert v[("AMLP: corrected below every scikit-learn baseline", f"k = {k}")] == "PASS"
    assert v[("uncorrected: expected error below actual", "k = 1000")] == "SKIP"
    assert res.results["acceptance_passed"]

    # swap the roles: the "corrected" fits are now the overconfident ones
    monkeypatch.setattr(rg, "fit_one", make_stub("uncorrected"))
    res = run_reproduction(stub_spec, out=tmp_path / "bad", quick=True, progressbar=False)
    v = _verdicts(res.results)
    for k in (3, 8):
        assert v[("corrected: |expected - actual error rate|", f"k = {k}")] == "FAIL"
        assert v[("corrected: posterior median log tau_mu near the truth", f"k = {k}")] == "FAIL"
        assert v[(POOLED_BINS, f"k = {k}")] == "FAIL"
        assert v[("AMLP: corrected below every scikit-learn baseline", f"k = {k}")] == "FAIL"
        assert v[("uncorrected: expected error below actual", f"k = {k}")] == "FAIL"
        assert v[("AMLP: corrected below uncorrected", f"k = {k}")] == "FAIL"
    assert not res.results["acceptance_passed"]
    assert "**Overall: FAIL**" in res.report_path.read_text()


def test_resume_skips_finished_fits_and_refuses_changed_settings(tmp_path, light_spec,
                                                                  monkeypatch, no_figures):
    calls: list[str] = []
    monkeypatch.setattr(rg, "fit_one", make_stub(counter=calls))
    out = tmp_path / "run"
    first = run_reproduction(light_spec, out=out, quick=True, progressbar=False)
    main_fits = ["k3-corrected", "k3-uncorrected", "k8-corrected", "k8-uncorrected", "all"]
    replicate_fits = [f"rep{r:03d}-k{k}-{m}" for r in range(2) for k in (3, 8)
                      for m in ("corrected", "uncorrected")]
    assert sorted(calls) == sorted(main_fits + replicate_fits)
    report1 = first.report_path.read_text()

    calls.clear()
    second = run_reproduction(light_spec, out=out, quick=True, progressbar=False)
    assert calls == []
    assert second.results["run"]["n_resumed"] == 13 and second.results["run"]["n_fitted"] == 0
    assert _no_time(second.results["metrics"]) == _no_time(first.results["metrics"])
    table1 = report1[report1.index("## Table 1"):report1.index("## Fig 2")]
    assert table1 in second.report_path.read_text()

    # an unfinished fit (metadata missing) is redone, and only it
    (out / "fits" / "k8-corrected.json").unlink()
    run_reproduction(light_spec, out=out, quick=True, progressbar=False)
    assert calls == ["k8-corrected"]

    # evaluation settings do not touch the fits; sampler settings do, and are refused
    text = light_spec.read_text()
    light_spec.write_text(text.replace("n_loss_matrices = 10", "n_loss_matrices = 12"))
    calls.clear()
    run_reproduction(light_spec, out=out, quick=True, progressbar=False)
    assert calls == []
    light_spec.write_text(text.replace("draws = 50", "draws = 60"))
    with pytest.raises(ValueError, match=r"sampler\.draws: 50 -> 60"):
        run_reproduction(light_spec, out=out, quick=True, progressbar=False)
    assert calls == []
    # a full run never lands in a quick run's folder by default
    assert first.out_dir == out


def test_report_and_results_json_agree(tmp_path, monkeypatch):
    # Bookkeeping only (report vs results.json vs the stored probabilities): every baseline,
    # but 2000 test cases and 3 replicate data sets instead of the statistical design's 20000
    # and 30 (test_calibrated_stub_passes_and_overconfident_fails needs those for power).
    spec = _stub_spec(tmp_path, 2000, list(rg.BASELINES), 3)
    monkeypatch.setattr(rg, "fit_one", make_stub())
    res = run_reproduction(spec, out=tmp_path, quick=True, progressbar=False)
    report = res.report_path.read_text()
    results = json.loads(res.results_path.read_text())     # strict JSON (no NaN)
    assert results["acceptance_passed"] == res.results["acceptance_passed"]
    for sec in ("## Acceptance", "## Table 1", "## Fig 2", "## scikit-learn baselines",
                "## Sampler diagnostics", "## Settings and versions"):
        assert sec in report
    for c in results["acceptance"]:
        line = f"| {c['verdict']} | {c['criterion'].replace('|', chr(92) + '|')} | {c['scope']} |"
        assert line in report
    for name in ("fig1_scatter.png", "fig2_error_vs_k.png", "fig3_trace_log_tau_mu.png",
                 "reliability_k3.png", "reliability_k8.png", "reliability_all.png"):
        assert (tmp_path / name).stat().st_size > 1000

    # Table 1 of results.json against a brute-force binning of the stored probabilities
    by_key = {(m["k"], m["method"]): m for m in results["metrics"]}
    for fid, k, method in (("k3-corrected", 3, "corrected"), ("all", "all", "no_selection")):
        with np.load(tmp_path / "fits" / f"{fid}.npz") as npz:
            p0 = npz["proba"][:, 0]
        counts = np.zeros(10, int)
        for v in p0:
            counts[min(int(v * 10), 9)] += 1
        rel = by_key[(k, method)]["reliability"]
        assert rel["count"] == counts.tolist()
        first = int(np.flatnonzero(counts)[0])
        cells = [f"C{first}", str(counts[first]), f"{rel['mean_predicted'][first]:.3f}",
                 f"{rel['observed_fraction'][first]:.3f}"]
        assert "| " + " | ".join(cells) + " |" in report
    # Fig 2 table row of the report matches results.json
    m = by_key[(8, "uncorrected")]
    assert (f"| 8 | uncorrected | {m['error_rate']:.4f} | {m['expected_error_rate']:.4f} | "
            f"{m['actual_loss']:.4f} | {m['expected_loss']:.4f} | {m['amlp']:.4f} |") in report
    assert {(m["k"], m["method"]) for m in results["metrics"]} >= {
        (k, b) for k in (3, 8, "all") for b in ("gnb", "gnb_calibrated", "logistic")}


def test_parallel_backends_match_in_process(tmp_path, light_spec, monkeypatch, no_figures):
    monkeypatch.setattr(rg, "fit_one", _module_stub)
    serial = run_reproduction(light_spec, out=tmp_path / "s", quick=True, progressbar=False)
    par = run_reproduction(light_spec, out=tmp_path / "p", quick=True, n_jobs=2,
                           progressbar=False)
    assert par.results["run"]["backend"].startswith("joblib")
    assert _no_time(par.results["metrics"]) == _no_time(serial.results["metrics"])
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=None) as client:
        dask = run_reproduction(light_spec, out=tmp_path / "d", quick=True,
                                scheduler=client.scheduler.address, progressbar=False)
    assert dask.results["run"]["backend"].startswith("dask")
    assert _no_time(dask.results["metrics"]) == _no_time(serial.results["metrics"])


def _module_stub(settings, task):  # module level, so that worker processes can unpickle it
    return make_stub()(settings, task)


def test_missing_distributed_names_the_extra(tmp_path, light_spec, monkeypatch):
    monkeypatch.setattr(rg, "fit_one", make_stub())
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"selbayes\[distributed\]"):
        run_reproduction(light_spec, out=tmp_path, quick=True, scheduler="tcp://127.0.0.1:1",
                         progressbar=False)


# ---------------------------------------------------------------------------------------------
# the real quick design, end to end
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_quick_reproduction_end_to_end(tmp_path):
    from scipy.stats import f_oneway

    from selbayes.cli import main

    out = tmp_path / "quick"
    assert main(["reproduce", str(SPEC), "--quick", "--out", str(out), "--no-progress"]) in (0, 1)
    results = json.loads((out / "results.json").read_text())
    spec = load_spec(SPEC, quick=True)
    train, test = rg.load_data(rg.fit_settings(spec))
    assert results["data"]["n_test"] == test.n_samples == spec["data"]["n_test"]
    # gamma is the k-th largest one-way ANOVA F of the training cases (scipy as reference)
    F = f_oneway(*[train.X[train.y == g] for g in range(6)], axis=0).statistic
    for k in spec["selection"]["k"]:
        for method in ("corrected", "uncorrected"):
            fit = results["fits"][f"k{k}-{method}"]
            assert fit["gamma"] == pytest.approx(np.sort(F)[::-1][k - 1], rel=1e-9)
            with np.load(out / "fits" / f"k{k}-{method}.npz") as npz:
                proba, tau_mu = npz["proba"], npz["tau_mu"]
                assert sorted(npz["selected"]) == sorted(np.argsort(-F)[:k])
            assert proba.shape == (test.n_samples, 6)
            np.testing.assert_allclose(proba.sum(axis=1), 1, atol=1e-9)
            assert tau_mu.shape == (spec["sampler"]["chains"], spec["sampler"]["draws"])
    assert len(results["acceptance"]) > 0
    assert "## Table 1" in (out / "report.md").read_text()
    # rerunning does not refit (same results, nothing fitted)
    assert main(["reproduce", str(SPEC), "--quick", "--out", str(out), "--no-progress"]) in (0, 1)
    again = json.loads((out / "results.json").read_text())
    assert again["run"]["n_fitted"] == 0
    assert _no_time(again["metrics"]) == _no_time(results["metrics"])


# ---------------------------------------------------------------------------------------------
# the pooled (replicate) reliability check
# ---------------------------------------------------------------------------------------------
def _clustered_outcomes(rng, n_groups, per_group, shift_sd):
    """Predictions q ~ U(0.25, 0.75) and outcomes ~ Bernoulli(q + delta_g), with a shared shift
    delta_g ~ U(-a, a) per group (sd ``shift_sd``): calibrated on average over groups, but
    cases of one group are dependent, as test cases sharing one training set are."""
    q = rng.uniform(0.25, 0.75, size=(n_groups, per_group))
    a = shift_sd * np.sqrt(3)
    delta = rng.uniform(-a, a, size=(n_groups, 1))
    y = rng.uniform(size=q.shape) < q + delta
    groups = np.repeat(np.arange(n_groups), per_group)
    return q.ravel(), y.ravel(), groups


@pytest.mark.parametrize("shift_sd", [0.0, 0.1])
def test_pooled_reliability_between_se_is_right_whatever_the_dependence(shift_sd):
    # 300 simulated pooled tables of 40 groups x 200 cases, 5 bins (bins 1-3 hold cases).
    # Independent cases (shift 0): both z's are N(0, 1) and the design effect is about 1.
    # Shared shifts: the binomial z is overdispersed by the design effect
    # 1 + m_b Var(delta) / (q (1 - q)) (m_b = cases of a group in the bin), the between z is not.
    rng = np.random.default_rng(7)
    n_sim, n_groups, per_group = 300, 40, 200
    z, zb, deff = [], [], []
    for _ in range(n_sim):
        q, y, g = _clustered_outcomes(rng, n_groups, per_group, shift_sd)
        t = rg._pooled_reliability(q, y, g, n_bins=5)
        assert t.attrs["n_groups"] == n_groups
        t = t.iloc[1:4]
        z.append(t["z"].to_numpy())
        zb.append(t["z_between"].to_numpy())
        deff.append(t["design_effect"].to_numpy())
    z, zb, deff = np.array(z), np.array(zb), np.array(deff)
    # variance of 300 N(0,1) draws: sd of the sample variance is sqrt(2 / 300) = 0.082; the
    # between z is a ratio with an estimated SE (40 clusters), var about 40/38: allow 4 sd
    se_var = np.sqrt(2 / n_sim)
    assert np.all(np.abs(zb.var(axis=0) - 1) < 4 * se_var + 0.06)
    # mean predicted q in the middle bin is 0.5 and the bin spans 0.4-0.6 of U(0.25, 0.75):
    # m_b = 200 * 0.4 = 80 cases per group, so the expected design effect is
    # 1 + 80 * 0.01 / 0.25 = 4.2 with shift_sd 0.1 (about 1 without).
    expected = 1 + per_group * 0.4 * shift_sd**2 / 0.25
    assert z[:, 1].var() == pytest.approx(expected, rel=4 * se_var)
    assert np.median(deff[:, 1]) == pytest.approx(expected, rel=0.15)


def test_replicate_data_sets_are_fresh_and_sized_by_the_spec():
    spec = load_spec(SPEC, quick=True)
    settings = rg.fit_settings(spec)
    train, test = rg.load_data(settings)
    tr0, te0 = rg.load_data(settings, 0)
    tr1, te1 = rg.load_data(settings, 1)
    assert te0.n_samples == te1.n_samples == spec["replicates"]["n_test"]
    assert tr0.n_samples == train.n_samples == spec["data"]["n_train"]
    # new true parameters (class means), not only new cases
    assert not np.allclose(tr0.mu, tr1.mu) and not np.allclose(tr0.mu, train.mu)
    # the same replicate is the same data set every time (seeded)
    again, _ = rg.load_data({**settings}, 1)
    np.testing.assert_array_equal(again.X, tr1.X)
    tasks = [t for t in rg.plan(spec) if "replicate" in t.params]
    assert len(tasks) == (spec["replicates"]["n"] * len(spec["selection"]["k"])
                          * len(spec["replicates"]["methods"]))
    assert len({t.params["seed"] for t in tasks}) == len(tasks)
