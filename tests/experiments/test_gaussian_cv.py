"""Tests of the SRBCT reproduction (experiment type "gaussian_cv",
models/experiments/li2009_srbct.toml).

The fast tests run on synthetic files of the SRBCT shape (the real data are third-party and
never copied here) and replace the MCMC fit by a stub whose probabilities are known in closed
form: for every case a class c_i (the truth with probability 3/4), given probability 3/4
("calibrated") or 0.97 ("overconfident"). The expected error rate and the AMLP then follow from
the stub's construction, which checks the evaluation independently of the sampler, and the
acceptance criteria must PASS or FAIL as the construction dictates. A slow test runs the real
``--quick`` design on the real data (skipped when absent).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from selbayes._parallel import TaskResult
from selbayes.experiments import _gaussian_cv as rs
from selbayes.experiments import load_spec, run_reproduction

from .._spec_files import edited_spec_text, write_spec

SPEC = Path(__file__).resolve().parents[2] / "models" / "experiments" / "li2009_srbct.toml"
REAL = Path(os.environ.get("SELBAYES_DATA", "/nonexistent"))
HAVE_SRBCT = all((REAL / f"srbct_{p}.csv.gz").is_file() for p in ("X", "y", "genes"))


def _spec_text(**replace) -> str:
    return edited_spec_text(SPEC, **replace)


# ---------------------------------------------------------------------------------------------
# spec validation
# ---------------------------------------------------------------------------------------------
def test_shipped_spec_holds_the_papers_design():
    spec = load_spec(SPEC)
    d = spec["data"]
    assert (d["source"], d["log_transform"], d["n_groups"], d["groups"]) == ("srbct", True, 10,
                                                                            [])
    assert spec["cv"]["folds"] == 20
    assert spec["transform"] == {"decorrelate": True, "lambda": 10.0}
    assert spec["selection"]["k"] == 10 and spec["selection"]["statistic"] == "f"
    assert spec["selection"]["methods"] == ["corrected", "uncorrected"]
    paper = {"c": 1, "alpha_x": 2, "w_x": 0.3, "alpha_mu": 1.5, "w_mu": 0.01, "alpha_nu": 1.5,
             "w_nu": 0.01}
    assert {k: spec["priors"][k] for k in paper} == paper
    assert spec["acceptance"] == {"amlp_min_fraction": 0.8, "gap_min_fraction": 0.0,
                                  "gap_reduction_claim": 0.5, "alpha": 0.05, "power": 0.8}
    quick = load_spec(SPEC, quick=True)
    assert quick["data"]["groups"] == [0] and quick["cv"]["folds"] == 4
    assert len(rs.plan(spec)) == 10 * 20 * 2 and len(rs.plan(quick)) == 8


@pytest.mark.parametrize("old, new, match", [
    ("k = 10\n", "k = 300\n", "k = 300 must be below"),
    ("groups = []  ", "groups = [10]", "groups must be distinct"),
    ("folds = 20\n", "folds = 1\n", "folds must be between"),
    ("folds = 20\n", "folds = \"five\"\n", "integer or 'loo'"),
    ("n_groups = 10 ", "n_train = 60\nn_groups = 10 ", "n_train is not used"),
    ("lambda = 10.0\n", "lambda = -1.0\n", "lambda must be >= 0"),
    ("methods = [\"corrected\", \"uncorrected\"]", "methods = [\"corrected\", \"corrected\"]",
     "methods must be"),
    ("source = \"srbct\"", "source = \"golub\"", "source must be one of"),
    ("[cv]\n", "[cv]\nfold = 3\n", "unknown key"),
])
def test_spec_errors_name_the_key(tmp_path, old, new, match):
    with pytest.raises(ValueError, match=match):
        load_spec(write_spec(tmp_path, _spec_text(**{old: new})))


def test_plan_pairs_methods_and_gene_groups_partition():
    tasks = rs.plan(load_spec(SPEC))
    by_fold = {}
    for t in tasks:
        by_fold.setdefault((t.params["group"], t.params["fold"]), []).append(t.params["seed"])
    assert all(len(set(s)) == 1 and len(s) == 2 for s in by_fold.values())  # paired seeds
    assert len({s[0] for s in by_fold.values()}) == len(by_fold)           # distinct per fold
    groups = rs.gene_groups(2308, 10, 2308)
    allg = np.concatenate(groups)
    assert sorted(allg.tolist()) == list(range(2308))
    assert {len(g) for g in groups} == {230, 231}


# ---------------------------------------------------------------------------------------------
# stubbed fits on synthetic SRBCT-shaped files
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fake_home(tmp_path_factory):
    from ..datasets.test_loaders import write_fake

    folder = tmp_path_factory.mktemp("fake_srbct")
    write_fake(folder, "srbct", seed=3)
    return folder


def _stub(confident_method: str):
    """fit_one replacement: c_i = truth w.p. 3/4; P(c_i) = 3/4, or 0.97 for one method."""

    def fit_one(settings, task):
        X, y, _, groups, folds = rs.load_data(settings)
        classes = np.unique(y)
        yi = np.searchsorted(classes, y)
        prm = task.params
        _, test = folds[prm["fold"]]
        rng = np.random.default_rng([prm["group"], prm["fold"]])  # same c_i for both methods
        G = len(classes)
        c = np.where(rng.random(len(test)) < 0.75, yi[test],
                     (yi[test] + rng.integers(1, G, len(test))) % G)
        top = 0.97 if prm["method"] == confident_method else 0.75
        proba = np.full((len(test), G), (1 - top) / (G - 1))
        proba[np.arange(len(test)), c] = top
        meta = {"group": prm["group"], "fold": prm["fold"], "method": prm["method"],
                "gamma": 1.0, "fit_s": 0.0, "predict_s": 0.0,
                "diagnostics": {"rhat_max": 1.0, "n_divergent": 0}}
        return TaskResult(task.id, {"proba": proba, "test": np.asarray(test)}, meta)

    return fit_one


def _fake_spec(tmp_path, home) -> Path:
    return write_spec(tmp_path, _spec_text(**{'data_home = ""': f'data_home = "{home}"',
                                          "folds = 20\n": "folds = 4\n"}))


def test_report_matches_the_construction_and_resumes(tmp_path, fake_home, monkeypatch):
    monkeypatch.setattr(rs, "fit_one", _stub("uncorrected"))
    spec = _fake_spec(tmp_path, fake_home)
    res = run_reproduction(spec, out=tmp_path / "out", progressbar=False)
    rows = {(r["group"], r["method"]): r for r in res.results["metrics"]}
    assert len(rows) == 20
    for (_, method), r in rows.items():
        top = 0.75 if method == "corrected" else 0.97
        e = r["error_rate"]
        assert r["expected_error_rate"] == pytest.approx(1 - top, abs=1e-12)
        amlp = (1 - e) * -np.log(top) + e * -np.log((1 - top) / 3)
        assert r["amlp"] == pytest.approx(amlp, rel=1e-12)
    for g in range(10):  # the two methods make the same decisions
        assert rows[(g, "corrected")]["error_rate"] == rows[(g, "uncorrected")]["error_rate"]
    verdicts = [c["verdict"] for c in res.results["acceptance"]]
    assert verdicts == ["PASS", "PASS"] and res.results["acceptance_passed"]
    # the powered gap test: the uncorrected stub is overconfident by 0.22, the corrected one
    # calibrated, so the reduction is large against the spread over groups
    gap = res.results["gap_reduction_test"]
    assert gap["decidable"] and gap["passed"] and gap["mean_reduction"] > 0.15
    direction = res.results["miscalibration_direction"]
    assert direction["uncorrected"]["n_overconfident"] == 10
    assert direction["uncorrected"]["calibration_in_the_large"]["p_value"] < 0.001
    assert direction["corrected"]["calibration_in_the_large"]["p_value"] > 0.01
    assert (tmp_path / "out" / "fig4.png").stat().st_size > 10_000
    report = (tmp_path / "out" / "report.md").read_text()
    assert "**Overall: PASS**" in report and "10 of 10" in report
    json.loads((tmp_path / "out" / "results.json").read_text())

    def boom(settings, task):
        raise AssertionError("finished fits must not be refitted")

    monkeypatch.setattr(rs, "fit_one", boom)
    again = run_reproduction(spec, out=tmp_path / "out", progressbar=False)
    assert again.results["run"]["n_resumed"] == 80 and again.results["run"]["n_fitted"] == 0


def test_overconfident_corrected_fails(tmp_path, fake_home, monkeypatch, no_figures):
    monkeypatch.setattr(rs, "fit_one", _stub("corrected"))
    res = run_reproduction(_fake_spec(tmp_path, fake_home), out=tmp_path / "out",
                           progressbar=False)
    # AMLP count fails; the gap test cannot decide a halving of the calibrated method's
    # small |gap| (noise ~0.05 per group on 83 cases), so it is reported as not decidable
    assert [c["verdict"] for c in res.results["acceptance"]] == ["FAIL", "SKIP"]
    assert "0 of 10" in res.results["acceptance"][0]["value"]
    assert "not decidable with this design" in res.results["acceptance"][1]["value"]
    assert not res.results["acceptance_passed"]


def test_changed_data_is_not_mixed(tmp_path, fake_home, monkeypatch, no_figures):
    import shutil

    from ..datasets.test_loaders import write_fake

    home = tmp_path / "home"
    shutil.copytree(fake_home, home)
    monkeypatch.setattr(rs, "fit_one", _stub("uncorrected"))
    spec = write_spec(tmp_path, _spec_text(**{'data_home = ""': f'data_home = "{home}"',
                                          "folds = 20\n": "folds = 4\n",
                                          "groups = []  ": "groups = [0]"}))
    run_reproduction(spec, out=tmp_path / "out", progressbar=False)
    write_fake(home, "srbct", seed=4)  # same shape, other values
    rs._load_matrix.cache_clear()
    rs.cv_data.cache_clear()
    with pytest.raises(ValueError, match="sha256"):
        run_reproduction(spec, out=tmp_path / "out", progressbar=False)


# ---------------------------------------------------------------------------------------------
# the real quick design (MCMC), on the real data
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.skipif(not HAVE_SRBCT, reason="SRBCT files not found in $SELBAYES_DATA")
def test_quick_run_on_real_data(tmp_path):
    res = run_reproduction(SPEC, out=tmp_path, quick=True, progressbar=False)
    rows = {r["method"]: r for r in res.results["metrics"]}
    assert set(rows) == {"corrected", "uncorrected"}
    # SRBCT is easy: seed 000 reports error 0.024 on all genes; one random group of ~231
    # genes with 10 selected should misclassify few of the 83 cases
    assert all(r["error_rate"] < 0.15 for r in rows.values())
    fits = list((tmp_path / "fits").glob("g00-*.json"))
    assert len(fits) == 8
    selected = {json.loads(f.read_text())["meta"]["gamma"] for f in fits}
    assert len(selected) > 1  # selection (and its threshold) refitted in every fold
