"""Tests of the colon reproduction (experiment type "naive_bayes_cv",
models/experiments/li2007_colon.toml).

The fast tests run on synthetic files of the colon shape (the real data are third-party and
never copied here). The evaluation and the acceptance lines are checked with a stub fit whose
probabilities are known in closed form: for every case a class c_i (the truth with probability
3/4) given probability 3/4 ("calibrated") or 0.97 ("overconfident"). The real fit is checked
against the protocol done by hand (medians from sorted training values, the classifier fitted
directly). A quick run on the real data (skipped when absent) checks the thesis' qualitative
claims.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from selbayes._parallel import TaskResult
from selbayes.experiments import _naive_bayes_cv as rc
from selbayes.experiments import experiment_types, load_spec, run_reproduction

from .._spec_files import edited_spec_text, write_spec

SPEC = Path(__file__).resolve().parents[2] / "models" / "experiments" / "li2007_colon.toml"
REAL = Path(os.environ.get("SELBAYES_DATA", "/nonexistent"))
HAVE_COLON = all((REAL / f"colon_{p}.csv.gz").is_file() for p in ("X", "y", "genes"))


def _spec_text(**replace) -> str:
    return edited_spec_text(SPEC, **replace)


# ---------------------------------------------------------------------------------------------
# spec validation
# ---------------------------------------------------------------------------------------------
def test_shipped_spec_holds_the_thesis_design():
    assert "naive_bayes_cv" in experiment_types()
    spec = load_spec(SPEC)
    d = spec["data"]
    assert (d["source"], d["median_cases"], d["n_groups"], d["groups"]) == ("colon", "train", 10,
                                                                           [])
    assert spec["cv"]["folds"] == "loo"
    assert spec["selection"] == {"statistic": "abs_corr", "k": 5,
                                 "methods": ["corrected", "uncorrected"]}
    assert spec["priors"] == {"alpha_shape": 0.5, "alpha_scale": 5.0, "f0": 1.0, "f1": 1.0}
    assert spec["fit"] == {"method": "quadrature", "quadrature": ["accurate", "thesis"]}
    assert spec["acceptance"]["amlp_min_fraction"] == 0.9
    th = spec["reference"]["thesis"]
    assert (th["amlp_corrected_lower"], th["squared_error_corrected_lower"]) == (10, 8)
    assert (th["amlp_t_test_p"], th["squared_error_t_test_p"]) == (0.00007, 0.019)
    quick = load_spec(SPEC, quick=True)
    assert quick["data"]["groups"] == [0, 1] and quick["fit"]["quadrature"] == ["thesis"]
    assert len(rc.plan(spec)) == 2 * 10 * 2 and len(rc.plan(quick)) == 2 * 2
    ids = [t.id for t in rc.plan(spec)]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("old, new, match", [
    ("k = 5\n", "k = 200\n", "k = 200 must be below"),
    ("groups = []  ", "groups = [10]", "groups must be distinct"),
    ("folds = \"loo\"", "folds = 1", "folds must be between"),
    ("folds = \"loo\"", "folds = \"five\"", "integer or 'loo'"),
    ("n_groups = 10 ", "n_train = 60\nn_groups = 10 ", "n_train is not used"),
    ("median_cases = \"train\"", "median_cases = \"mean\"", "median_cases must be one of"),
    ("methods = [\"corrected\", \"uncorrected\"]", "methods = [\"corrected\", \"corrected\"]",
     "methods must be"),
    ("source = \"colon\"", "source = \"golub\"", "source must be one of"),
    ("quadrature = [\"accurate\", \"thesis\"]", "quadrature = [\"thesis\", \"thesis\"]",
     "distinct presets"),
    ("gamma = 0.5\n", "gama = 0.5\n", r"unknown key\(s\) \['gama'\] in \[reference.thesis\]"),
    ("gamma = 0.5\n", "gamma = \"half\"\n", "gamma must be a finite number"),
    ("[cv]\n", "[cv]\nfold = 3\n", "unknown key"),
])
def test_spec_errors_name_the_key(tmp_path, old, new, match):
    with pytest.raises(ValueError, match=match):
        load_spec(write_spec(tmp_path, _spec_text(**{old: new})))


# ---------------------------------------------------------------------------------------------
# binarisation
# ---------------------------------------------------------------------------------------------
def _median_by_sorting(col: np.ndarray) -> float:
    s = np.sort(col)
    m = len(s)
    return s[m // 2] if m % 2 else 0.5 * (s[m // 2 - 1] + s[m // 2])


def test_binarize_at_median_against_sorting():
    rng = np.random.default_rng(5)
    X = rng.lognormal(size=(62, 7))
    X[:, 3] = np.repeat([1.0, 2.0], 31)          # ties: the median 1.5 splits them 31/31
    X[:, 4] = np.r_[np.ones(40), np.arange(22.0)]  # median among tied values: they code 0
    train = np.delete(np.arange(62), 17)
    for rows in (None, train):
        ref = X if rows is None else X[train]
        expect = np.stack([X[:, j] > _median_by_sorting(ref[:, j]) for j in range(7)], axis=1)
        got = rc.binarize_at_median(X, rows=rows)
        assert got.dtype == np.int8 and np.array_equal(got, expect.astype(np.int8))
    # distinct values: exactly half above the median (62 cases), (61 - 1) / 2 among 61 training
    assert np.all(rc.binarize_at_median(X)[:, [0, 1, 2, 5, 6]].sum(axis=0) == 31)
    assert np.all(rc.binarize_at_median(X, train)[train][:, [0, 1, 2, 5, 6]].sum(axis=0) == 30)
    # column 4: 41 values tie at the median 1.0 and code 0; only 2..21 exceed it
    assert rc.binarize_at_median(X)[:, 4].sum() == 20
    # the held-out case takes no part in the training medians
    X2 = X.copy()
    X2[17] = 1e6
    assert np.array_equal(rc.binarize_at_median(X2, train)[train],
                          rc.binarize_at_median(X, train)[train])
    with pytest.raises(ValueError, match="2-d"):
        rc.binarize_at_median(X[0])
    with pytest.raises(ValueError, match="at least one case"):
        rc.binarize_at_median(X, rows=[])


# ---------------------------------------------------------------------------------------------
# synthetic colon-shaped files
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fake_home(tmp_path_factory):
    from ..datasets.test_loaders import write_fake

    folder = tmp_path_factory.mktemp("fake_colon")
    write_fake(folder, "colon", seed=11)
    return folder


def _fake_spec(tmp_path, home, **replace) -> Path:
    return write_spec(tmp_path,
                      _spec_text(**{'data_home = ""': f'data_home = "{home}"', **replace}))


def _stub(confident_method: str):
    """fit_one replacement: c_i = truth w.p. 3/4; P(c_i) = 3/4, or 0.97 for one method."""

    def fit_one(settings, task):
        _, y, _, _, folds = rc.load_data(settings)
        yi = np.searchsorted(np.unique(y), y)
        prm = task.params
        test = np.concatenate([t for _, t in folds])
        rng = np.random.default_rng(prm["group"])  # the same c_i for both methods
        c = np.where(rng.random(len(test)) < 0.75, yi[test], 1 - yi[test])
        top = 0.97 if prm["method"] == confident_method else 0.75
        proba = np.full((len(test), 2), 1 - top)
        proba[np.arange(len(test)), c] = top
        nf = len(folds)
        meta = {"quadrature": prm["quadrature"], "group": prm["group"], "method": prm["method"],
                "n_folds": nf, "gamma_median": 0.4, "gamma_min": 0.4, "gamma_max": 0.4,
                "fit_s": 0.0, "warnings": []}
        return TaskResult(task.id, {"proba": proba, "test": test, "gamma": np.full(nf, 0.4),
                                       "n_ties": np.zeros(nf), "fit_s": np.zeros(nf)}, meta)

    return fit_one


def test_report_matches_the_construction_and_resumes(tmp_path, fake_home, monkeypatch):
    monkeypatch.setattr(rc, "fit_one", _stub("uncorrected"))
    spec = _fake_spec(tmp_path, fake_home)
    res = run_reproduction(spec, out=tmp_path / "out", progressbar=False)
    rows = {(r["quadrature"], r["group"], r["method"]): r for r in res.results["metrics"]}
    assert len(rows) == 2 * 10 * 2
    for (_, _, method), r in rows.items():
        top = 0.75 if method == "corrected" else 0.97
        e = r["error_rate"]
        assert 0 < e < 0.5
        assert r["expected_error_rate"] == pytest.approx(1 - top, abs=1e-12)
        assert r["amlp"] == pytest.approx(-(1 - e) * np.log(top) - e * np.log(1 - top),
                                          rel=1e-12)
        assert r["brier"] == pytest.approx((1 - e) * (1 - top) ** 2 + e * top ** 2, rel=1e-12)
    for g in range(10):  # the two methods make the same decisions
        assert rows[("accurate", g, "corrected")]["error_rate"] == \
            rows[("accurate", g, "uncorrected")]["error_rate"]
    assert [c["verdict"] for c in res.results["acceptance"]] == ["PASS"]
    assert res.results["acceptance"][0]["value"] == "10 of 10"
    assert res.results["acceptance"][0]["threshold"] == ">= 9 of 10"
    assert res.results["acceptance_passed"]
    # the calibrated 3/4 beats 0.97 only when the group's error rate e is large enough:
    # squared error (1 - e)(1 - top)^2 + e top^2 needs e > 0.14, AMLP needs e > 0.108
    e = np.array([rows[("accurate", g, "corrected")]["error_rate"] for g in range(10)])

    def sq(top):
        return (1 - e) * (1 - top) ** 2 + e * top ** 2

    def amlp(top):
        return -(1 - e) * np.log(top) - e * np.log(1 - top)

    tests = res.results["paired_t_tests"]["accurate"]
    assert tests["squared_error"]["n_corrected_lower"] == int(np.sum(sq(0.75) < sq(0.97)))
    assert tests["amlp"]["n_corrected_lower"] == int(np.sum(amlp(0.75) < amlp(0.97))) == 10
    assert res.results["decision_changes"] == {str(g): 0 for g in range(10)}
    for fig in ("fig4.png", "fig2_8_predictive.png", "fig2_10_amlp_squared_error.png"):
        assert (tmp_path / "out" / fig).stat().st_size > 10_000
    report = (tmp_path / "out" / "report.md").read_text()
    assert "**Overall: PASS**" in report and "| 10 of 10 | 10 of 10 |" in report
    assert "training cases of each fold only" in report
    json.loads((tmp_path / "out" / "results.json").read_text())

    def boom(settings, task):
        raise AssertionError("finished fits must not be refitted")

    monkeypatch.setattr(rc, "fit_one", boom)
    again = run_reproduction(spec, out=tmp_path / "out", progressbar=False)
    assert again.results["run"]["n_resumed"] == 40 and again.results["run"]["n_fitted"] == 0


def test_overconfident_corrected_fails(tmp_path, fake_home, monkeypatch, no_figures):
    monkeypatch.setattr(rc, "fit_one", _stub("corrected"))
    spec = _fake_spec(tmp_path, fake_home, **{"gap_min_fraction = 0.0": "gap_min_fraction = 0.8"})
    res = run_reproduction(spec, out=tmp_path / "out", progressbar=False)
    # with gap_min_fraction > 0 the |expected - actual| count is a criterion too
    assert [c["verdict"] for c in res.results["acceptance"]] == ["FAIL", "FAIL"]
    assert res.results["acceptance"][0]["value"] == "0 of 10"
    assert not res.results["acceptance_passed"]
    assert "**Overall: FAIL**" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.parametrize("median_cases", ["train", "all"])
def test_fit_one_is_the_protocol_done_by_hand(tmp_path, fake_home, median_cases):
    """Stored out-of-fold probabilities equal a direct fit on hand-binarised data."""
    from selbayes import BinaryNaiveBayesClassifier
    from selbayes.datasets import load_colon

    spec = load_spec(_fake_spec(tmp_path, fake_home, **{
        "folds = \"loo\"": "folds = 4", "groups = []  ": "groups = [3]",
        "median_cases = \"train\"": f"median_cases = \"{median_cases}\""}))
    settings = rc.fit_settings(spec)
    task = next(t for t in rc.plan(spec) if t.params["quadrature"] == "thesis"
                and t.params["method"] == "uncorrected")
    res = rc.fit_one(settings, task)
    ds = load_colon(fake_home)
    X, y = ds.X.to_numpy(), ds.y.to_numpy()
    cols = np.sort(np.random.default_rng(spec["seeds"]["data"]).permutation(2000)[600:800])
    _, _, _, groups, folds = rc.load_data(settings)
    assert np.array_equal(groups[3], cols)
    assert sorted(res.arrays["test"].tolist()) == list(range(62))
    for i, (train, test) in enumerate(folds):
        ref = X[train][:, cols] if median_cases == "train" else X[:, cols]
        med = np.array([_median_by_sorting(ref[:, j]) for j in range(200)])
        Xb = (X[:, cols] > med).astype(int)
        clf = BinaryNaiveBayesClassifier(k=5, correct_selection=False, quadrature="thesis",
                                         progressbar=False).fit(Xb[train], y[train])
        rows = res.arrays["fold"] == i
        assert np.array_equal(res.arrays["test"][rows], test)
        np.testing.assert_allclose(res.arrays["proba"][rows], clf.predict_proba(Xb[test]),
                                   rtol=1e-12)
        assert np.array_equal(res.arrays["selected"][i], clf.selection_.indices)
        assert res.arrays["gamma"][i] == pytest.approx(clf.selection_.threshold)
    assert np.allclose(res.arrays["proba"].sum(axis=1), 1.0)


def test_changed_data_is_not_mixed(tmp_path, fake_home, monkeypatch, no_figures):
    import shutil

    from ..datasets.test_loaders import write_fake

    home = tmp_path / "home"
    shutil.copytree(fake_home, home)
    monkeypatch.setattr(rc, "fit_one", _stub("uncorrected"))
    spec = write_spec(tmp_path, _spec_text(**{'data_home = ""': f'data_home = "{home}"',
                                          "groups = []  ": "groups = [0]"}))
    run_reproduction(spec, out=tmp_path / "out", progressbar=False)
    write_fake(home, "colon", seed=12)  # same shape, other values
    rc._load_matrix.cache_clear()
    rc._cv.cv_data.cache_clear()     # the shared per-process cache of the CV data
    with pytest.raises(ValueError, match="sha256"):
        run_reproduction(spec, out=tmp_path / "out", progressbar=False)


# ---------------------------------------------------------------------------------------------
# the real quick design on the real data (about 10 s)
# ---------------------------------------------------------------------------------------------
@pytest.mark.skipif(not HAVE_COLON, reason="colon files not found in $SELBAYES_DATA")
def test_quick_run_on_real_data_shows_the_thesis_pattern(tmp_path):
    res = run_reproduction(SPEC, out=tmp_path, quick=True, progressbar=False)
    r = res.results
    assert r["data"]["n_samples"] == 62 and r["data"]["class_counts"] == [22, 40]
    assert r["data"]["class_1"] == "tumour"  # the thesis' class 1 is cancer
    m = {(x["group"], x["method"]): x for x in r["metrics"]}
    for g in (0, 1):
        c, u = m[(g, "corrected")], m[(g, "uncorrected")]
        # thesis Fig 2.9: the uncorrected expected error is below the actual error everywhere
        assert u["expected_error_rate"] < u["error_rate"]
        # the correction makes the predictions less confident (thesis Fig 2.8)
        assert c["expected_error_rate"] > u["expected_error_rate"]
        # issue 9 / thesis Fig 2.10: corrected AMLP lower (10 of 10 subsets in the thesis)
        assert c["amlp"] < u["amlp"]
    fits = {f.stem: json.loads(f.read_text())["meta"]
            for f in (tmp_path / "fits").glob("*-g*.json")}
    assert len(fits) == 4
    assert all(0 < f["gamma_min"] <= f["gamma_max"] < 1 for f in fits.values())
    # selection refitted in every fold: gamma varies across the 62 folds of some group
    assert any(f["gamma_min"] < f["gamma_max"] for f in fits.values())


def test_models_readme_documents_every_registered_schema_key():
    """models/README.md has a section per experiment type naming each of its SCHEMA keys."""
    import importlib
    import re

    from selbayes.experiments import _EXPERIMENTS, COMMON_SCHEMA

    text = (SPEC.parents[1] / "README.md").read_text()
    common = {k for keys in COMMON_SCHEMA.values() for k in keys}
    assert all(f"`{k}`" in text for k in common), sorted(k for k in common
                                                         if f"`{k}`" not in text)
    for model, (module, _) in _EXPERIMENTS.items():
        parts = re.split(r"\n### `", text)
        section = next((p for p in parts if p.startswith(f"{model}`")), None)
        assert section is not None, f"no '### `{model}`' section in models/README.md"
        schema = importlib.import_module(module).SCHEMA
        missing = [f"[{s}] {k}" for s, keys in schema.items() for k in keys
                   if f"`{k}`" not in section and k not in common]
        assert not missing, f"{model}: undocumented keys {missing}"
