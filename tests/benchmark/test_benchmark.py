"""The benchmark harness: same folds for every method, everything inside the folds, resumable,
honest metrics, the report, and the command line.

References are independent re-computations: refits of the same scikit-learn estimators on the same
splits, numpy on the stored probabilities, and a stateless preprocessing applied outside the folds.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.naive_bayes import GaussianNB

from selbayes.benchmark import _methods as bm
from selbayes.benchmark import mean_ranks, paired_difference, run_benchmark, summary_frame
from selbayes.benchmark._cli import main as cli_main
from selbayes.benchmark._runner import _data_hash, _make_splits
from selbayes.datasets import BenchmarkDataset
from selbayes.evaluation import calibration_summary

REAL = Path(os.environ.get("SELBAYES_DATA", "/nonexistent"))
HAVE_SORLIE = (REAL / "microarray" / "sorlie_X.csv.gz").is_file()


def _toy(n=45, p=60, seed=0, raw=False, transform="none"):
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b", "c"], n // 3)
    X = rng.normal(size=(n, p))
    X[:, :4] += 1.5 * (y[:, None] == np.array(["a", "b", "c", "a"])[None, :])
    if raw:
        X = 2.0 ** (X + 6.0)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)],
                         index=[f"s{i}" for i in range(n)])
    return BenchmarkDataset(X=frame, y=pd.Series(y, index=frame.index), name="toy",
                            preprocessing={"transform": transform, "floor": 1.0 if
                                           transform == "log2" else None, "ceiling": None})


def test_same_folds_and_sklearn_reference(tmp_path):
    ds = _toy()
    res = run_benchmark([ds], ["gnb", "lda_shrinkage"], folds=3, repeats=2, seed=4,
                        out=tmp_path, progress=False, write_report=False)
    r = res.results
    assert len(r) == 2 * 3 * 2 and r["error_message"].isna().all()
    y_idx = np.unique(ds.y, return_inverse=True)[1]
    splits = dict(_make_splits(y_idx, 3, 2, 4))
    for rep in (0, 1):
        tests = [te for _, te in splits[rep]]
        assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(len(y_idx)))
        for m in ("gnb", "lda_shrinkage"):
            for f, (_tr, te) in enumerate(splits[rep]):
                stored = json.loads((tmp_path / "folds" / "toy" / m /
                                     f"r{rep:02d}_f{f:02d}.json").read_text())["meta"]
                assert stored["test"] == te.tolist()  # same folds for every method
            # independent reference: sklearn on the same splits, same per-fold seeds
            rec = r[(r["method"] == m) & (r["repeat"] == rep)].sort_values("fold")
            for f, (tr, te) in enumerate(splits[rep]):
                with np.load(tmp_path / "folds" / "toy" / m / f"r{rep:02d}_f{f:02d}.npz") as npz:
                    stored = {"proba": npz["proba"]}
                seed = int(np.random.SeedSequence([4, rep, f]).generate_state(1)[0]
                           % (2**31 - 1))
                est = bm.make_method(m, 3, seed, inner_folds=3)
                p = est.fit(ds.X.to_numpy()[tr], y_idx[tr]).predict_proba(ds.X.to_numpy()[te])
                np.testing.assert_allclose(stored["proba"], p, atol=1e-12)
                s = calibration_summary(p, y_idx[te])
                row = rec.iloc[f]
                assert row["amlp"] == pytest.approx(s["amlp"])
                assert row["error"] == pytest.approx(s["error_rate"])
                assert row["gap"] == pytest.approx(s["expected_error_rate"] - s["error_rate"])
    # summary: the mean over the 6 folds (equal fold sizes), the SE with the folds of one
    # repeat as the unit: sqrt(mean over repeats of sd_r^2 / 3)
    sm = res.summary.set_index("method")
    g = r[r["method"] == "gnb"]
    assert sm.at["gnb", "amlp"] == pytest.approx(g["amlp"].mean())
    var_r = g.groupby("repeat")["amlp"].var(ddof=1) / 3
    assert sm.at["gnb", "amlp_se"] == pytest.approx(np.sqrt(var_r.mean()))
    assert res.results["k"].notna().all()  # GridSearchCV over k reports its choice


def test_case_table_matches_refits_by_sample_name(tmp_path):
    ds = _toy(seed=3)
    res = run_benchmark([ds], ["svm_platt"], folds=3, seed=1, out=tmp_path, progress=False,
                        write_report=False)
    y_idx = np.unique(ds.y, return_inverse=True)[1]
    (_, splits), = _make_splits(y_idx, 3, 1, 1)
    c = res.cases.sort_values("sample", key=lambda s: s.str[1:].astype(int))
    assert len(c) == len(y_idx)
    # each fold has its own seed: refit fold by fold and match cases by sample name
    for f, (tr, te) in enumerate(splits):
        seed = int(np.random.SeedSequence([1, 0, f]).generate_state(1)[0] % (2**31 - 1))
        est = bm.make_method("svm_platt", 3, seed).fit(ds.X.to_numpy()[tr], y_idx[tr])
        ref = est.predict_proba(ds.X.to_numpy()[te])
        got = c.set_index("sample").loc[[f"s{i}" for i in te], "p_true"].to_numpy()
        np.testing.assert_allclose(got, ref[np.arange(len(te)), y_idx[te]], atol=1e-10)


def test_svm_platt_scales_on_the_folds_it_is_given():
    """svm_platt's Platt scaling is fitted on the inner folds it is given (a grouped run's),
    with the SVM refitted on all training cases: its probabilities are a sigmoid of that
    SVM's decision value (a monotone map, so the ranking of the cases is the SVM's)."""
    from sklearn.svm import SVC

    ds = _toy(n=48, seed=5)
    X = ds.X.to_numpy()
    y = (np.unique(ds.y, return_inverse=True)[1] > 0).astype(int)
    folds = [(np.setdiff1d(np.arange(48), np.arange(i, 48, 3)), np.arange(i, 48, 3))
             for i in range(3)]
    est = bm.make_method("svm_platt", 2, 0, inner_folds=folds).fit(X, y)
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
               for a, b in zip(est[-1].cv, folds, strict=True))
    Xs = est[0].transform(X)
    f = SVC(kernel="linear", C=1.0).fit(Xs, y).decision_function(Xs)
    p1 = est.predict_proba(X)[:, 1]
    logit = np.log(p1 / (1 - p1))
    slope, intercept = np.polyfit(f, logit, 1)
    np.testing.assert_allclose(logit, slope * f + intercept, atol=1e-8)
    assert slope > 0


def test_preprocessing_inside_folds_equals_outside(tmp_path):
    """log2 is stateless, so fitting it inside each fold equals transforming first."""
    raw = _toy(raw=True, transform="log2")
    logged = _toy(raw=False, transform="none")
    a = run_benchmark([raw], ["gnb"], folds=3, out=tmp_path / "a", progress=False,
                      write_report=False).results
    b = run_benchmark([logged], ["gnb"], folds=3, out=tmp_path / "b", progress=False,
                      write_report=False).results
    np.testing.assert_allclose(a["amlp"], b["amlp"], rtol=1e-9)


class _MarkerNB(GaussianNB):
    """GaussianNB whose fit fails while the file ``marker`` exists (an interrupted fit)."""

    def __init__(self, marker="", var_smoothing=1e-9):
        super().__init__(var_smoothing=var_smoothing)
        self.marker = marker

    def fit(self, X, y, sample_weight=None):
        if Path(self.marker).exists():
            raise RuntimeError("interrupted")
        return super().fit(X, y, sample_weight)


def test_resume_skips_done_and_retries_failures(tmp_path, monkeypatch):
    ds = _toy()
    marker = tmp_path / "fail"
    marker.touch()
    monkeypatch.setitem(bm.METHODS, "flaky", lambda n_classes, random_state, **kw:
                        _MarkerNB(marker=str(marker)))
    out = tmp_path / "out"
    with pytest.warns(RuntimeWarning, match="flaky failed on toy"):
        first = run_benchmark([ds], ["flaky", "gnb"], folds=3, out=out, progress=False,
                              write_report=False)
    assert first.results["error_message"].notna().sum() == 3
    assert first.summary.set_index("method").at["flaky", "n_failed"] == 3
    marker.unlink()
    second = run_benchmark([ds], ["flaky", "gnb"], folds=3, out=out, progress=False,
                           write_report=False)
    assert second.info["n_fitted"] == 3 and second.info["n_resumed"] == 3
    assert second.results["error_message"].isna().all()
    g1 = first.results[first.results["method"] == "gnb"]["amlp"].to_numpy()
    g2 = second.results[second.results["method"] == "gnb"]["amlp"].to_numpy()
    np.testing.assert_array_equal(g1, g2)


def test_a_failure_on_a_fold_with_a_single_case_of_a_class_says_so(tmp_path, monkeypatch):
    """A fit that fails where its training part keeps one case of a class (a class of 2
    samples in 5 folds) says so after the method's own message; elsewhere nothing is added."""
    marker = tmp_path / "fail"
    marker.touch()
    monkeypatch.setitem(bm.METHODS, "flaky", lambda n_classes, random_state, **kw:
                        _MarkerNB(marker=str(marker)))
    ds = _toy()
    y = ds.y.copy()
    y.iloc[:] = np.where(np.arange(y.size) < 2, "rare", np.asarray(y, dtype=object))
    ds.y = y
    with pytest.warns(RuntimeWarning, match="flaky failed on toy"):
        res = run_benchmark([ds], ["flaky"], folds=5, out=tmp_path / "o", progress=False,
                            write_report=False)
    messages = res.results.sort_values("fold")["error_message"]
    hinted = messages.str.contains("holds a single case of 1 class")
    assert messages.str.startswith("RuntimeError: interrupted").all() and hinted.sum() == 2


class _NarrowNB(GaussianNB):
    """GaussianNB that fails on data with more than 50 features (a method that cannot run on
    one of the sets)."""

    def fit(self, X, y, sample_weight=None):
        if X.shape[1] > 50:
            raise RuntimeError("too many features")
        return super().fit(X, y, sample_weight)


def test_report_survives_a_set_where_every_fit_failed(tmp_path, monkeypatch):
    """A method that fails on every fold of a set (or every method on a set) still gives a
    report: its cells say so, the ranks compare methods on the sets where all have results."""
    monkeypatch.setitem(bm.METHODS, "narrow", lambda n_classes, random_state, **kw: _NarrowNB())
    wide, narrow = _toy(p=60), _toy(p=40, seed=1)
    narrow.name = "toy_narrow"
    with pytest.warns(RuntimeWarning, match="narrow failed on toy"):
        res = run_benchmark([wide, narrow], ["narrow", "gnb"], folds=3, out=tmp_path / "a",
                            progress=False)
    text = (tmp_path / "a" / "report.md").read_text()
    assert "| toy | failed (3 of 3 fits) | **" in text
    assert "Ranked on 1 of 2 sets" in text
    ranks = text.split("## Mean rank")[1].split("##")[0]
    # one set ranked (toy_narrow): the method with the lower AMLP there has mean rank 1
    amlp = res.summary[res.summary["dataset"] == "toy_narrow"].set_index("method")["amlp"]
    assert amlp["gnb"] != amlp["narrow"]
    assert f"| {amlp.idxmin()} | 1.00 |" in ranks and f"| {amlp.idxmax()} | 2.00 |" in ranks
    # the only method fails on the only set: before, the report step stopped on all-NA values
    with pytest.warns(RuntimeWarning, match="narrow failed on toy"):
        run_benchmark([wide], ["narrow"], folds=3, out=tmp_path / "b", progress=False)
    text = (tmp_path / "b" / "report.md").read_text()
    assert "Not ranked (every fit failed): narrow." in text
    assert "| toy | failed (3 of 3 fits) |" in text and "## Failed fits" in text


class _PartialOracle(ClassifierMixin, BaseEstimator):
    """Knows every sample's class code (from its first value) but cannot be fitted where the
    training part holds a given row: a method that fails on some folds and is excellent on
    the others."""

    def __init__(self, lookup=None, bad_row=None):
        self.lookup = lookup
        self.bad_row = bad_row

    def fit(self, X, y):
        if np.any(np.all(np.asarray(X) == self.bad_row, axis=1)):
            raise RuntimeError("cannot fit this fold")
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        right = [list(self.classes_).index(self.lookup[v]) for v in np.asarray(X)[:, 0]]
        P = np.full((len(right), self.classes_.size), 1e-3)
        P[np.arange(len(right)), right] = 1.0 - 1e-3 * (self.classes_.size - 1)
        return P


def test_a_peer_that_failed_on_some_folds_is_not_compared(tmp_path, monkeypatch):
    """A peer whose fits failed on two of three folds is scored on the third fold's cases
    alone; there it is perfect, so its mean AMLP is the smallest. It must not be the best
    (bold), ranked, or the best peer selbayes is compared with: those compare the methods
    on the same cases."""
    ds = _toy()
    X = ds.X.to_numpy()
    codes = np.unique(ds.y, return_inverse=True)[1]             # the labels as fit sees them
    lookup = dict(zip(X[:, 0], codes, strict=True))
    oracle = _PartialOracle(lookup=lookup, bad_row=X[0])
    monkeypatch.setitem(bm.METHODS, "logreg_l1_cv", lambda n_classes, random_state, **kw: oracle)
    monkeypatch.setitem(bm.METHODS, "selbayes", lambda n_classes, random_state, **kw:
                        GaussianNB())
    with pytest.warns(RuntimeWarning, match="logreg_l1_cv failed on toy"):
        res = run_benchmark([ds], ["selbayes", "logreg_l1_cv", "lda_shrinkage", "gnb"],
                            folds=3, out=tmp_path, progress=False)
    s = res.summary.set_index("method")
    assert s.at["logreg_l1_cv", "n_failed"] == 2
    assert s["amlp"].idxmin() == "logreg_l1_cv"            # smallest, on other cases
    text = (tmp_path / "report.md").read_text()
    amlp_row = text.split("## AMLP")[1].split("\n| toy |")[1].split("\n")[0]
    cells = [c.strip() for c in amlp_row.strip(" |").split("|")]
    best_complete = s.drop(index="logreg_l1_cv")["amlp"].idxmin()
    order = ["selbayes", "logreg_l1_cv", "lda_shrinkage", "gnb"]
    assert cells[order.index("logreg_l1_cv")].endswith("(2 of 3 folds failed)")
    assert [c.startswith("**") for c in cells] == [m == best_complete for m in order]
    ranks = text.split("## Mean rank")[1].split("\n## ")[0]
    assert "| logreg_l1_cv |" not in ranks
    assert "Not ranked (fits failed on some folds of every set" in ranks
    assert f"| {best_complete} | 1.00 |" in ranks
    peers = s.drop(index=["selbayes", "logreg_l1_cv"])["amlp"]
    peer_row = text.split("against the best peer")[1].split("\n| toy | ")[1]
    assert peer_row.startswith(f"{peers.idxmin()} |")


def test_terminal_summary_marks_the_best_complete_method_and_failed_folds():
    """The table the command prints: each method's AMLP ± SE per set, * on the best of the
    methods whose fits all succeeded (not on a lower mean over fewer folds), the failed folds
    counted; the fewer of sets and methods as columns."""
    from selbayes.benchmark._report import terminal_summary

    s = pd.DataFrame({"dataset": "toy", "method": ["a", "b", "c", "d"],
                      "n_folds": [3, 1, 3, 0], "n_failed": [0, 2, 0, 3],
                      "amlp": [0.3, 0.1, 0.5, np.nan], "amlp_se": [0.01, np.nan, 0.02, np.nan]})
    lines = terminal_summary(s, ["a", "b", "c", "d"]).splitlines()
    assert lines[1].split() == ["toy"]
    rows = {line.split()[0]: line.split(None, 1)[1] for line in lines[2:]}
    assert rows == {"a": "0.300 ± 0.010 *", "b": "0.100 (2 of 3 folds failed)",
                    "c": "0.500 ± 0.020", "d": "failed on all 3 folds"}
    wide = pd.concat([s.assign(dataset=f"set{i}") for i in range(6)])
    lines = terminal_summary(wide, ["a", "c"]).splitlines()
    assert lines[1].split() == ["a", "c"] and len(lines) == 2 + 6     # sets as rows


def test_a_benchmark_result_shows_its_table_not_its_frames(tmp_path):
    """repr of run_benchmark's result (what a notebook shows): the fits, the AMLP table and
    where the report is, not three DataFrames in full."""
    res = run_benchmark([_toy()], ["gnb", "lda_shrinkage"], folds=3, out=tmp_path,
                        progress=False)
    text = repr(res)
    assert text.startswith("BenchmarkResult(6 fits") and "AMLP in nats" in text
    assert f"the report: {tmp_path / 'report.md'}" in text
    assert len(text.splitlines()) == 1 + 2 + 2 + 1


def test_report_tables_bold_every_tie_count_zero_probabilities_and_escape_bars():
    """Bold (and the terminal's *) on every method that ties at the digits shown, not the
    first in alphabetical order; an infinite AMLP says how many cases carry it; a '|' in a
    class label or sample id does not end a markdown cell."""
    from selbayes.benchmark._report import _md, _table, terminal_summary

    s = pd.DataFrame({"dataset": "toy", "method": ["a", "b", "c"], "n_folds": 3, "n_failed": 0,
                      "error": [0.1111, 0.1111, 0.2], "error_se": 0.01,
                      "amlp": [0.3001, 0.3004, np.inf], "amlp_se": 0.01})
    row = _table(s, "error", ["a", "b", "c"])[2]
    assert row.count("**") == 4 and "**0.111 ± 0.010** | **0.111 ± 0.010** | 0.200" in row
    zero = pd.Series({("toy", "c"): 2})
    row = _table(s, "amlp", ["a", "b", "c"], zero)[2]
    assert "inf (2 cases with p(true class) = 0)" in row and row.count("**") == 4
    assert [line.endswith(" *") for line in terminal_summary(s).splitlines()[2:]] == \
        [True, True, False]
    assert _md("ER+|HER2-") == "ER+\\|HER2-"


def test_honest_amlp_with_a_certain_mistake(tmp_path):
    """GaussianNB with tiny variances on well separated classes, labels swapped in one case:
    that case's loss is enormous (or inf) and must show up unfloored."""
    ds = _toy(n=30, p=6, seed=2)
    X = ds.X.copy()
    X.iloc[:, :] = np.repeat(np.arange(3), 10)[:, None] * 50.0 + 0.01 * X.to_numpy()
    y = ds.y.copy()
    y.iloc[0] = "b"  # a case sitting in class a's cloud, labelled b
    bad = BenchmarkDataset(X=X, y=y, name="bad", preprocessing=ds.preprocessing)
    res = run_benchmark([bad], ["gnb"], folds=3, out=tmp_path, progress=False,
                        write_report=False)
    worst = res.cases.loc[res.cases["sample"] == "s0", "loss"].item()
    assert worst > 34.6  # -log(1e-15), the old floor
    assert res.results["max_case_loss"].max() == pytest.approx(worst)
    assert res.results["n_over_5_nats"].sum() >= 1


def test_paired_difference_and_ranks():
    r = pd.DataFrame({"dataset": "d", "method": ["a"] * 3 + ["b"] * 3, "repeat": 0,
                      "fold": [0, 1, 2] * 2, "amlp": [1.0, 2.0, 3.0, 0.5, 2.5, 2.0],
                      "error_message": None})
    mean, se, n = paired_difference(r, "d", "a", "b")
    d = np.array([0.5, -0.5, 1.0])
    assert (mean, n) == (pytest.approx(d.mean()), 3)
    assert se == pytest.approx(d.std(ddof=1) / np.sqrt(3))
    s = pd.DataFrame({"dataset": ["x", "x", "y", "y"], "method": ["a", "b", "a", "b"],
                      "amlp": [0.1, 0.2, 0.4, 0.3]})
    assert mean_ranks(s).to_dict() == {"a": 1.5, "b": 1.5}


def test_chosen_k_and_unknown_method():
    from sklearn.feature_selection import SelectKBest

    ds = _toy()                                  # p = 60: the grid's 100 and 200 become 60
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)      # scikit-learn's "k=100 is greater"
        est = bm.make_method("gnb", 3, 0).fit(ds.X.to_numpy(), ds.y.to_numpy())
    tried = [int(k) for k in est.cv_results_["param_select__k"]]
    assert tried == [5, 10, 20, 50, 60] and bm.chosen_k(est) in tried
    assert est.get_params()["param_grid"] == {"select__k": list(bm.K_GRID)}   # as given
    few = ds.X.to_numpy()[:, :30]                # gnb_calibrated keeps k = 50: all 30 here
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        cal = bm.make_method("gnb_calibrated", 3, 0).fit(few, ds.y.to_numpy())
    select = cal.calibrated_classifiers_[0].estimator.steps[0][1]
    assert select.get_support().all() and select.get_params()["k"] == 50
    np.testing.assert_allclose(cal.predict_proba(few).sum(1), 1.0)
    assert isinstance(est.best_estimator_.named_steps["select"], SelectKBest)
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        bm.make_method("nope", 2)
    with pytest.raises(ValueError, match="unknown method"):
        run_benchmark([ds], ["nope"], out="unused")


def test_summary_handles_infinite_amlp():
    r = pd.DataFrame({"dataset": "d", "method": "a", "repeat": 0, "fold": [0, 1],
                      "n_test": 3, "amlp": [np.inf, 1.0], "brier": 0.1, "error": 0.0,
                      "expected_error": 0.0, "gap": 0.0, "n_over_5_nats": [1, 0],
                      "max_case_loss": [np.inf, 2.0], "fit_seconds": 1.0, "fit_cpu_seconds": 1.0,
                      "k": [None, None],
                      "error_message": None})
    s = summary_frame(r).iloc[0]
    assert s["amlp"] == np.inf and np.isnan(s["amlp_se"]) and s["n_over_5_nats"] == 1


def _quick_k_values() -> list:
    """The k the default can choose on the quick design's set: the default grid's values
    below p, then its continuation (while the inner score is best at the end) up to p - 1."""
    from selbayes.benchmark._runner import QUICK_DATASET
    from selbayes.datasets import load_dataset
    from selbayes.estimators._k_grid import DEFAULT_K_GRID, next_k

    p = load_dataset(QUICK_DATASET).X.shape[1]
    allowed = [k for k in DEFAULT_K_GRID if k < p]
    while (k := next_k(allowed[-1], p - 1)) is not None:
        allowed.append(k)
    return allowed


# ------------------------------------------------------------------------------ command line
def _write_pair(tmp_path, raw=True):
    ds = _toy(raw=raw)
    ds.X.to_csv(tmp_path / "X.csv")
    ds.y.rename("label").to_csv(tmp_path / "y.csv")
    return tmp_path / "X.csv", tmp_path / "y.csv"


def test_cli_user_csv_pair(tmp_path, capsys):
    x, y = _write_pair(tmp_path)
    out = tmp_path / "out"
    rc = cli_main(["--x", str(x), "--y", str(y), "--name", "mine", "--transform", "log2",
                   "--floor", "1", "--methods", "gnb,lda_shrinkage", "--folds", "3",
                   "--out", str(out), "--no-progress"])
    assert rc == 0
    res = pd.read_csv(out / "results.csv")
    assert set(res["method"]) == {"gnb", "lda_shrinkage"} and set(res["dataset"]) == {"mine"}
    assert len(res) == 6
    summary = pd.read_csv(out / "summary.csv")
    assert {"amlp", "amlp_se", "brier_se", "error_se", "gap_se"} <= set(summary.columns)
    text = (out / "report.md").read_text()
    for section in ("## AMLP", "## Mean rank", "## Chosen k per fold", "## Pooled reliability",
                    "log2 of values clipped to [1.0, None]", "Whether a gap is more than chance",
                    "Sets with a gap beyond chance (p < 0.05): gnb "):
        assert section in text
    assert (out / "reliability.png").stat().st_size > 1000
    # run again: everything is read back, and the terminal says so (only report.md did)
    capsys.readouterr()
    assert cli_main(["--x", str(x), "--y", str(y), "--name", "mine", "--transform", "log2",
                     "--floor", "1", "--methods", "gnb,lda_shrinkage", "--folds", "3",
                     "--out", str(out), "--no-progress"]) == 0
    assert "; 0 fits run, 6 read back from the folder)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, match", [
    (["nosuchset", "--out", "o"], "unknown data set(s) nosuchset"),
    (["sorlie", "--methods", "gnb,bogus", "--out", "o"], "unknown method(s) bogus"),
    (["--x", "missing.csv", "--y", "missing_y.csv", "--out", "o"], "no such file"),
    (["--x", "a.csv", "--out", "o"], "--x and --y go together"),
    (["--out", "o"], "name at least one data set"),
    (["sorlie", "--folds", "1", "--out", "o"], "--folds must be >= 2"),
])
def test_cli_user_errors_exit_2_with_one_line(argv, match, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and len(err.splitlines()) == 1


def test_cli_bad_labels_file(tmp_path, capsys):
    x, _ = _write_pair(tmp_path)
    pd.DataFrame({"a": [1], "b": [2], "c": [3]}).to_csv(tmp_path / "bad.csv", index=False)
    assert cli_main(["--x", str(x), "--y", str(tmp_path / "bad.csv"), "--out",
                     str(tmp_path / "o")]) == 2
    assert "labels" in capsys.readouterr().err


class _ChoosingNB(GaussianNB):
    """A stand-in for the recommended selbayes fit: says which k, t df and label-noise share
    it chose, as HierarchicalGaussianClassifier does (k_, t_df_, label_noise_), and the weight
    of the all-genes model, as LinearStackedClassifier does (linear_weight_)."""

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight)
        self.k_, self.t_df_, self.label_noise_ = 4, 8.0, 1.0 / (len(y) + 2)
        self.linear_weight_ = 0.25
        return self


def test_chosen_k_df_and_label_noise_are_recorded_per_fold(tmp_path, monkeypatch):
    """What each training fold chose is read off the fitted estimator into results.csv and
    the report (the real fit runs in make slow, test_quick_benchmark_selbayes_runs_and_resumes);
    methods that choose nothing get empty cells."""
    monkeypatch.setitem(bm.METHODS, "selbayes",
                        lambda n_classes, random_state, **kw: _ChoosingNB())
    out = tmp_path / "out"
    res = run_benchmark([_toy()], ["selbayes", "gnb"], folds=3, out=out,
                        progress=False).results
    sb, gnb = res[res["method"] == "selbayes"], res[res["method"] == "gnb"]
    n_train = len(_toy().y) - sb["n_test"]
    assert (sb["k"] == 4).all() and (sb["t_df"] == 8.0).all()
    np.testing.assert_allclose(sb["label_noise"], 1.0 / (n_train + 2))
    assert gnb["t_df"].isna().all() and gnb["label_noise"].isna().all()
    assert (sb["linear_weight"] == 0.25).all() and gnb["linear_weight"].isna().all()
    text = (out / "report.md").read_text()
    assert "t prior's df per fold" in text and "label-noise eps per fold" in text


class _TwoPartStack(GaussianNB):
    """A stand-in for LinearStackedClassifier: two components (the naive Bayes fit and a
    flat one), their inner log probabilities on the training cases and an equal-weight pool."""

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight)
        flat = np.full((len(y), len(self.classes_)), -np.log(len(self.classes_)))
        self.inner_log_proba_ = np.stack([super().predict_log_proba(X), flat])
        return self

    def _component_log_probas(self, X):
        flat = np.full((len(X), len(self.classes_)), -np.log(len(self.classes_)))
        return [super().predict_log_proba(X), flat]

    def predict_proba(self, X):
        return np.mean(np.exp(np.stack(self._component_log_probas(X))), axis=0)


@pytest.mark.parametrize("transform", ["none", "log2"])
def test_a_stack_stores_its_components_log_probabilities_per_fold(tmp_path, monkeypatch,
                                                                   transform):
    """Each fold of a stack keeps its components' inner and test log probabilities (so
    another pool can be scored later without refitting), through a preprocessing pipeline
    too; the stored test components pool back to the stored probabilities; other methods
    store none."""
    monkeypatch.setitem(bm.METHODS, "selbayes",
                        lambda n_classes, random_state, **kw: _TwoPartStack())
    out = tmp_path / "out"
    ds = _toy(raw=transform == "log2", transform=transform)
    run_benchmark([ds], ["selbayes", "gnb"], folds=3, out=out, progress=False)
    n, G = len(ds.y), ds.y.nunique()
    for f in range(3):
        a = np.load(out / "folds" / "toy" / "selbayes" / f"r00_f{f:02d}.npz")
        inner, test = a["stack_inner_log_proba"], a["stack_test_log_proba"]
        n_test = len(a["proba"])
        assert inner.shape == (2, n - n_test, G) and test.shape == (2, n_test, G)
        np.testing.assert_allclose(np.exp(test).mean(axis=0), a["proba"], rtol=1e-12)
        assert "stack_test_log_proba" not in np.load(
            out / "folds" / "toy" / "gnb" / f"r00_f{f:02d}.npz")


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_SORLIE, reason="sorlie not found in $SELBAYES_DATA")
def test_quick_benchmark_selbayes_runs_and_resumes(tmp_path):
    """The --quick design restricted to the recommended configuration and one peer: every
    fit succeeds, k is chosen from the grid inside each fold, and a second run fits nothing
    and reads back identical results. ~60 s from empty caches (three compiled models), so
    make slow; make test keeps its parts: resuming
    (test_resume_skips_done_and_retries_failures), the per-fold choices
    (test_chosen_k_df_and_label_noise_are_recorded_per_fold) and the real fit's choices
    (tests/estimators)."""
    out = tmp_path / "quick"
    argv = ["--quick", "--methods", "selbayes,gnb", "--out", str(out), "--no-progress"]
    assert cli_main(argv) == 0
    res = pd.read_csv(out / "results.csv")
    assert len(res) == 3 * 2 and res["error_message"].isna().all()
    assert np.isfinite(res["amlp"]).all() and (res["amlp"] > 0).all()
    assert res.loc[res["method"] == "selbayes", "k"].isin(_quick_k_values()).all()
    assert "Quick (smoke-test) design" in (out / "report.md").read_text()
    # the default's t prior df, chosen by the data in each training fold, is recorded
    from selbayes.models import T_DF_GRID
    assert res.loc[res["method"] == "selbayes", "t_df"].isin(T_DF_GRID).all()
    assert res.loc[res["method"] == "gnb", "t_df"].isna().all()
    assert "t prior's df per fold" in (out / "report.md").read_text()
    # and so is the label-noise share that the inner cross-validation chose (label_noise="cv")
    from selbayes.estimators import LABEL_NOISE_SHARES
    sb = res[res["method"] == "selbayes"]
    eps, n_train = sb["label_noise"], sb["n_test"].sum() - sb["n_test"]   # one repeat
    c = np.round(eps * (n_train + 2), 9)
    assert c.isin(LABEL_NOISE_SHARES).all(), c
    assert res.loc[res["method"] == "gnb", "label_noise"].isna().all()
    assert "label-noise eps per fold" in (out / "report.md").read_text()
    again = run_benchmark([], ["selbayes", "gnb"], quick=True, out=out, progress=False)
    assert again.info["n_fitted"] == 0
    cols = ["amlp", "brier", "error", "expected_error", "fit_seconds", "t_df", "label_noise"]
    np.testing.assert_array_equal(again.results[cols].to_numpy(float),
                                  pd.read_csv(out / "results.csv")[cols].to_numpy(float))


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_SORLIE, reason="sorlie not found in $SELBAYES_DATA")
def test_quick_benchmark_runs_and_resumes(tmp_path):
    """The whole --quick design (sorlie, 3 folds, 4 methods, few draws): ~50 s on 2 cores, so
    make slow; test_quick_benchmark_selbayes_runs_and_resumes keeps its core in make test."""
    out = tmp_path / "quick"
    assert cli_main(["--quick", "--out", str(out), "--no-progress"]) == 0
    res = pd.read_csv(out / "results.csv")
    assert len(res) == 3 * len(bm.QUICK_METHODS) and res["error_message"].isna().all()
    assert set(res["dataset"]) == {"sorlie"}
    assert np.isfinite(res["amlp"]).all() and (res["amlp"] > 0).all()
    # the recommended configuration chooses k inside each training fold, from its grid
    assert res.loc[res["method"] == "selbayes", "k"].isin(_quick_k_values()).all()
    text = (out / "report.md").read_text()
    assert "Quick (smoke-test) design" in text and "## Corrected against uncorrected" in text
    again = run_benchmark([], quick=True, out=out, progress=False)
    assert again.info["n_fitted"] == 0
    cols = ["amlp", "brier", "error", "expected_error", "fit_seconds"]
    np.testing.assert_array_equal(again.results[cols].to_numpy(float),
                                  pd.read_csv(out / "results.csv")[cols].to_numpy(float))


def test_cli_lists_every_named_set():
    from selbayes.benchmark._cli import SET_NAMES
    from selbayes.datasets import BENCHMARK_SETS

    assert set(SET_NAMES) == set(BENCHMARK_SETS)


def test_cli_method_names_match_the_registry():
    """The parser lists methods without importing scikit-learn; the lists must not drift."""
    from selbayes.benchmark import DEFAULT_METHODS, METHODS
    from selbayes.benchmark._cli import DEFAULT_METHOD_NAMES, METHOD_NAMES

    assert tuple(METHOD_NAMES) == tuple(METHODS)
    assert tuple(DEFAULT_METHOD_NAMES) == tuple(DEFAULT_METHODS)


def test_help_does_not_import_scikit_learn():
    """`selbayes --help` builds every parser: it must stay free of the heavy imports."""
    import subprocess
    import sys

    code = ("import sys, io, contextlib; import selbayes.cli as c\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try: c.main(['--help'])\n"
            "    except SystemExit: pass\n"
            "print('sklearn' in sys.modules, 'scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_report_only_fits_nothing(tmp_path):
    ds = _toy()
    run_benchmark([ds], ["gnb"], folds=3, out=tmp_path, progress=False, write_report=False)
    res = run_benchmark([ds], ["gnb", "lda_shrinkage"], folds=3, out=tmp_path, progress=False,
                        report_only=True)
    assert res.info["n_fitted"] == 0 and res.info["n_missing"] == 3
    assert set(res.results["method"]) == {"gnb"}
    assert "**Partial: 3 of 6 fits" in (tmp_path / "report.md").read_text()
    # a fit stored by another selbayes version is said, not silently reported beside the others
    path = tmp_path / "folds" / "toy" / "gnb" / "r00_f00.json"
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "selbayes_version": "0.0.1"}))
    with pytest.warns(UserWarning, match=r"1 of the 3 results .* selbayes 0\.0\.1"):
        run_benchmark([ds], ["gnb"], folds=3, out=tmp_path, progress=False, report_only=True)


def test_folds_stay_stratified_with_small_classes():
    """A class smaller than the number of folds (nakayama has classes of 3 with 5 folds):
    every training fold keeps at least count - 1 cases of it, and with no small class the
    folds equal cross_validation.make_folds's."""
    from selbayes.evaluation import make_folds

    y = np.repeat([0, 1, 2], [20, 20, 3])
    (_, splits), = _make_splits(y, 5, 1, 0)
    for tr, te in splits:
        assert np.bincount(y[tr], minlength=3)[2] >= 2
        assert np.bincount(y[te], minlength=3)[2] <= 1
    y = np.repeat([0, 1], [12, 9])
    ss = np.random.SeedSequence(3).spawn(1)[0]
    ref = make_folds(y, 4, int(ss.generate_state(1)[0]))
    (_, got), = _make_splits(y, 4, 1, 3)
    for (a, b), (c, d) in zip(ref, got, strict=True):
        assert np.array_equal(a, c) and np.array_equal(b, d)


def test_same_choice_ablation_reuses_the_reference_choices(monkeypatch):
    # The uncorrected refit gets exactly the k, temperature and label noise that the
    # recommended (corrected) configuration chose; only the correction differs.
    import numpy as np

    from selbayes.benchmark import _methods as methods

    made = []

    class Fake:
        def __init__(self, **params):
            self.params = params
            made.append(params)

        def fit(self, X, y, groups=None):
            corrected = self.params.get("correct_selection", True)
            self.k_, self.temperature_, self.label_noise_ = (7, 3.0, 0.01) if corrected \
                else (self.params["k"], self.params["temperature"], self.params["label_noise"])
            self.classes_ = np.unique(y)
            return self

        def predict_proba(self, X):
            return np.full((len(X), 2), 0.5)

    monkeypatch.setattr(methods, "selbayes_default",
                        lambda random_state=None, quick=False, **kw: Fake(**kw))
    est = methods.make_method("selbayes_uncorrected_same_choice", 2, 0)
    est.fit(np.zeros((4, 3)), np.array([0, 0, 1, 1]))
    assert made[0] == {"choice_rule": "best"}
    assert made[1] == {"correct_selection": False, "k": 7, "temperature": 3.0,
                       "label_noise": 0.01, "choice_rule": "best"}
    assert est.k_ == 7 and est.predict_proba(np.zeros((2, 3))).shape == (2, 2)


def test_dask_scheduler_gives_the_serial_results(tmp_path):
    # The benchmark runs through the shared runner, so a dask.distributed cluster is one
    # keyword away; its results must be those of the serial run (same folds, same seeds).
    distributed = pytest.importorskip("distributed")
    ds = _toy()
    serial = run_benchmark([ds], ["gnb", "lda_shrinkage"], folds=3, seed=2,
                           out=tmp_path / "serial", progress=False, write_report=False)
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as lc, \
            distributed.Client(lc) as client:
        on_dask = run_benchmark([ds], ["gnb", "lda_shrinkage"], folds=3, seed=2,
                                out=tmp_path / "dask", progress=False, write_report=False,
                                scheduler=client)
    cols = ["dataset", "method", "repeat", "fold", "amlp", "brier", "error"]
    key = ["method", "repeat", "fold"]
    a = serial.results[cols].sort_values(key).reset_index(drop=True)
    b = on_dask.results[cols].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert on_dask.info["scheduler"] is not None and serial.info["scheduler"] is None


# ------------------------------------------------------------------ repeat-aware errors, report
def _synthetic_results(fold_values: dict, n_test=None) -> pd.DataFrame:
    """A results table from {(dataset, method): [[fold values of repeat 0], [repeat 1], ...]}."""
    rows = []
    for (d, m), reps in fold_values.items():
        for r, vals in enumerate(reps):
            for f, v in enumerate(vals):
                rows.append({"dataset": d, "method": m, "repeat": r, "fold": f,
                             "n_test": 10 if n_test is None else n_test[r][f], "amlp": v,
                             "brier": v / 2, "error": 0.1, "expected_error": 0.1, "gap": 0.0,
                             "n_over_5_nats": 0, "max_case_loss": 2 * v, "fit_seconds": 1.0,
                             "fit_cpu_seconds": 1.0, "predict_seconds": 0.0, "k": 5,
                             "n_warnings": 0, "error_message": None})
    from selbayes.benchmark import results_frame

    return results_frame(rows)


def test_repeat_aware_se_matches_the_formula_by_hand():
    from selbayes.benchmark import repeat_aware_mean_se

    reps = [[0.30, 0.50, 0.40, 0.20], [0.35, 0.45, 0.25]]
    sizes = [[10, 10, 12, 8], [14, 13, 13]]
    values = np.concatenate(reps)
    repeat = np.repeat([0, 1], [4, 3])
    mean, se = repeat_aware_mean_se(values, repeat, np.concatenate(sizes))
    L = [np.dot(v, w) / np.sum(w) for v, w in zip(reps, sizes, strict=True)]
    se_r = [np.std(v, ddof=1) / np.sqrt(len(v)) for v in reps]
    assert mean == pytest.approx(np.mean(L))
    assert se == pytest.approx(np.sqrt(np.mean(np.square(se_r))))
    # an infinite fold loss: the mean is inf, the SE undefined
    m_inf, se_inf = repeat_aware_mean_se([np.inf, 1.0], [0, 0])
    assert m_inf == np.inf and np.isnan(se_inf)


def test_repeats_of_the_same_cases_do_not_shrink_the_se():
    """R copies of one repeat carry no new information: the repeat-aware SE stays that of one
    repeat, where the old sd / sqrt(R K) fell by sqrt(R)."""
    one = [[0.2, 0.6, 0.4, 0.3, 0.5]]
    s1 = summary_frame(_synthetic_results({("d", "a"): one})).iloc[0]
    s3 = summary_frame(_synthetic_results({("d", "a"): one * 3})).iloc[0]
    assert s3["amlp_se"] == pytest.approx(s1["amlp_se"])
    assert s1["amlp_se"] == pytest.approx(np.std(one[0], ddof=1) / np.sqrt(5))
    naive = np.std(np.tile(one[0], 3), ddof=1) / np.sqrt(15)
    assert s3["amlp_se"] > 1.7 * naive


def test_repeat_aware_se_covers_in_simulation():
    """Simulated folds of one case set: per-case losses fixed, R repeats re-split them. Over
    many case sets the repeat-aware SE matches the spread of the estimate (sd of the R-repeat
    mean over case sets), within Monte Carlo error; the independent-repeats SE is too small."""
    rng = np.random.default_rng(0)
    n, K, R, sets = 60, 5, 3, 400
    est, se_aware, se_naive = [], [], []
    for _ in range(sets):
        losses = rng.gamma(1.0, 0.5, size=n)          # one set of cases
        vals, reps = [], []
        for r in range(R):
            folds = np.array_split(rng.permutation(n), K)
            vals += [losses[f].mean() for f in folds]
            reps += [r] * K
        from selbayes.benchmark import repeat_aware_mean_se

        m, s = repeat_aware_mean_se(vals, reps)
        est.append(m)
        se_aware.append(s)
        se_naive.append(np.std(vals, ddof=1) / np.sqrt(len(vals)))
    true_sd = np.std(est, ddof=1)
    # the sd of an sd estimate from 400 sets: about sd / sqrt(2 * 400), 3.5 %; allow 4 of them
    assert np.sqrt(np.mean(np.square(se_aware))) == pytest.approx(true_sd, rel=0.14)
    assert np.sqrt(np.mean(np.square(se_naive))) < 0.7 * true_sd


def test_paired_difference_over_repeats_uses_per_fold_differences():
    a = [[0.30, 0.50, 0.40], [0.35, 0.45, 0.42]]
    b = [[0.20, 0.52, 0.30], [0.30, 0.40, 0.30]]
    r = _synthetic_results({("d", "a"): a, ("d", "b"): b})
    mean, se, n = paired_difference(r, "d", "a", "b")
    d = np.subtract(a, b)
    se_r = d.std(axis=1, ddof=1) / np.sqrt(3)
    assert n == 6 and mean == pytest.approx(d.mean())
    assert se == pytest.approx(np.sqrt(np.mean(se_r ** 2)))


def _fake_cases(methods, n=120, seed=0):
    rng = np.random.default_rng(seed)
    parts = []
    for m in methods:
        conf = rng.uniform(0.5, 1.0, size=n)
        parts.append(pd.DataFrame({"dataset": "d", "method": m, "repeat": 0, "fold": 0,
                                   "sample": [f"s{i}" for i in range(n)], "true_class": "a",
                                   "p_true": conf, "confidence": conf,
                                   "correct": rng.uniform(size=n) < conf,
                                   "loss": -np.log(conf)}))
    return pd.concat(parts, ignore_index=True)


def test_report_on_a_synthetic_table(tmp_path, monkeypatch):
    """The report's text: the SE formula, wins only beyond 2 SE, "values as given" for data of
    unknown scale; the figure: one panel per method, shared axes, legend off the axes."""
    import matplotlib.pyplot as plt

    from selbayes.benchmark import BenchmarkResult
    from selbayes.benchmark._report import SE_METHOD, write_report_files

    methods = ["selbayes", "selbayes_uncorrected", "logreg_l2_cv", "gnb_calibrated",
               "random_forest"]
    folds = {
        # set x: corrected lower by much more than 2 SE; set y: lower, within 2 SE
        ("x", "selbayes"): [[0.20, 0.22, 0.21], [0.21, 0.20, 0.22]],
        ("x", "selbayes_uncorrected"): [[0.40, 0.43, 0.41], [0.42, 0.40, 0.43]],
        ("y", "selbayes"): [[0.30, 0.50, 0.40], [0.35, 0.45, 0.40]],
        ("y", "selbayes_uncorrected"): [[0.32, 0.49, 0.43], [0.33, 0.48, 0.41]],
    }
    for d in ("x", "y"):
        for m in methods[2:]:
            folds[d, m] = [[0.5, 0.6, 0.55], [0.52, 0.58, 0.56]]
    results = _synthetic_results(folds)
    summary = summary_frame(results)
    info = {"methods": methods, "folds": 3, "repeats": 2, "seed": 0, "quick": False,
            "n_fits": len(results), "n_fitted": len(results), "n_resumed": 0, "n_missing": 0,
            "n_jobs": 1, "wall_seconds": 1.0,
            "datasets": {"x": {"n": 30, "p": 50, "classes": ["a", "b"],
                               "preprocessing": {"transform": "none"}, "scale": None},
                         "y": {"n": 30, "p": 50, "classes": ["a", "b"],
                               "preprocessing": {"transform": "log2", "floor": 1.0,
                                                 "ceiling": None}}}}
    figs = []
    monkeypatch.setattr(plt, "close", lambda fig=None: figs.append(fig))
    res = BenchmarkResult(results=results, summary=summary, cases=_fake_cases(methods),
                          out=tmp_path, info=info)
    text = write_report_files(res)
    assert SE_METHOD in text and "sqrt(mean_r SE_r^2)" in text
    assert "| x | none (values as given) |" in text.replace("30 | 50 | 2 | ", "")
    assert "log scale" not in text
    assert "Corrected has the lower AMLP on 2 of 2 sets; lower by more than 2 SE on 1, " \
           "higher by more than 2 SE on 0." in text
    fig = figs[-1]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == len(methods)
    assert [ax.get_title().split(" (")[0] for ax in panels] == methods
    assert all(ax.get_shared_x_axes().joined(panels[0], ax) for ax in panels)
    assert all(ax.get_shared_y_axes().joined(panels[0], ax) for ax in panels)
    assert all(ax.get_legend() is None for ax in panels) and len(fig.legends) == 1
    assert (tmp_path / "reliability.png").stat().st_size > 1000


def test_default_methods_are_the_short_list(tmp_path):
    res = run_benchmark([_toy()], folds=3, out=tmp_path, progress=False, report_only=True,
                        write_report=False)
    assert res.info["methods"] == list(bm.DEFAULT_METHODS) == [
        "selbayes", "selbayes_uncorrected", "logreg_l2_cv", "logreg_l1_cv", "lda_shrinkage",
        "gnb_calibrated", "random_forest", "svm_platt"]
    assert set(bm.DEFAULT_METHODS) <= set(bm.METHODS)
    # variants stay available by name
    assert {"selbayes_t_prior", "selbayes_k10", "gnb", "selbayes_uncorrected_same_choice"} \
        <= set(bm.METHODS)


def test_cli_log2_on_z_scored_data_warns(tmp_path, capsys, monkeypatch):
    from selbayes.benchmark import _cli as bcli

    seen = {}

    def fake_run(datasets, methods, **kw):
        seen["datasets"], seen["methods"] = datasets, methods
        raise ValueError("stopped by the test")

    monkeypatch.setattr("selbayes.benchmark._runner.run_benchmark", fake_run)
    x, y = _write_pair(tmp_path, raw=False)                  # standard normal values
    with pytest.warns(Warning, match="do not look like intensities"):
        assert bcli.main(["--x", str(x), "--y", str(y), "--transform", "log2", "--out",
                          str(tmp_path / "o")]) == 2
    assert bcli.main(["--x", str(x), "--y", str(y), "--methods", "all", "--out",
                      str(tmp_path / "o")]) == 2
    assert seen["methods"] == list(bm.METHODS)


def test_cli_raw_intensities_without_transform_warn_once_before_the_fits(tmp_path, monkeypatch):
    # the fits silence their warnings (and run in other processes with --jobs): the check on
    # the user's values is made once when they are read, and only where they look raw
    from selbayes.benchmark import _cli as bcli
    from selbayes.preprocessing import RawIntensityWarning

    def fake_run(datasets, methods, **kw):
        raise ValueError("stopped by the test")

    monkeypatch.setattr("selbayes.benchmark._runner.run_benchmark", fake_run)
    x, y = _write_pair(tmp_path, raw=False)
    X = pd.read_csv(x, index_col=0)
    (2.0 ** (2 * X + 8)).to_csv(x)        # intensities of a log2 sd of 2: 99th pct 25 x median
    with pytest.warns(RawIntensityWarning, match="raw intensities"):
        assert bcli.main(["--x", str(x), "--y", str(y), "--transform", "none",
                          "--out", str(tmp_path / "o")]) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", RawIntensityWarning)   # logged: no warning
        assert bcli.main(["--x", str(x), "--y", str(y), "--transform", "log2",
                          "--out", str(tmp_path / "o")]) == 2
    x, y = _write_pair(tmp_path, raw=False)                  # standard normal values
    with warnings.catch_warnings():
        warnings.simplefilter("error", RawIntensityWarning)
        assert bcli.main(["--x", str(x), "--y", str(y), "--transform", "none",
                          "--out", str(tmp_path / "o")]) == 2


def test_run_benchmark_resolves_transform_auto_on_the_whole_matrix():
    """A data set whose preprocessing says {"transform": "auto"} (the Python spelling of the
    command's default) gets log2 floored at 1 where its values look like raw intensities, and
    keeps them as given otherwise."""
    from selbayes.benchmark._runner import resolve_dataset
    from selbayes.datasets import BenchmarkDataset

    rng = np.random.default_rng(0)
    raw = pd.DataFrame(rng.lognormal(4, 1.5, size=(20, 50)))
    y = pd.Series(np.repeat(["a", "b"], 10))
    for X, want in ((raw, {"transform": "log2", "floor": 1.0}),
                    (np.log2(raw), {"transform": "none", "floor": None})):
        ds = BenchmarkDataset(X=X, y=y, name="toy", preprocessing={"transform": "auto"})
        pre = resolve_dataset(ds).preprocessing
        assert {k: pre[k] for k in want} == want and pre["auto"] is True


def test_cli_transform_auto_logs_raw_intensities_only(tmp_path, monkeypatch, capsys):
    """The default --transform auto gives every method log2 (floor 1) of values that look like
    raw intensities, and says so; other values (log-scale, z-scores) as given, and says so;
    the report's data table names the choice. --floor needs --transform log2."""
    from selbayes.benchmark import _cli as bcli
    from selbayes.benchmark._report import _preprocessing_text
    from selbayes.preprocessing import RawIntensityWarning

    seen = {}

    def fake_run(datasets, methods, **kw):
        seen["pre"] = datasets[-1].preprocessing
        raise ValueError("stopped by the test")

    monkeypatch.setattr("selbayes.benchmark._runner.run_benchmark", fake_run)
    x, y = _write_pair(tmp_path, raw=False)
    X = pd.read_csv(x, index_col=0)
    (2.0 ** (2 * X + 8)).to_csv(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RawIntensityWarning)   # acted on, not warned about
        assert bcli.main(["--x", str(x), "--y", str(y), "--out", str(tmp_path / "o")]) == 2
    assert seen["pre"] == {"transform": "log2", "floor": 1.0, "ceiling": None, "auto": True}
    assert "look like raw intensities: every method gets log2" in capsys.readouterr().err
    assert "auto: the values look like raw intensities" in _preprocessing_text(
        {"preprocessing": seen["pre"]})
    (2.0 ** (2 * X + 8) / 1e4).to_csv(x)                    # the same, in other units
    assert bcli.main(["--x", str(x), "--y", str(y), "--out", str(tmp_path / "o")]) == 2
    values = (2.0 ** (2 * X + 8) / 1e4).to_numpy()
    assert seen["pre"]["floor"] == pytest.approx(np.quantile(values, 0.1), rel=1e-9)
    assert seen["pre"]["floor"] < 1
    assert "floored at" in (err := capsys.readouterr().err) and "10th percentile" in err
    X.to_csv(x)                                              # log-scale values
    assert bcli.main(["--x", str(x), "--y", str(y), "--out", str(tmp_path / "o")]) == 2
    assert seen["pre"] == {"transform": "none", "floor": None, "ceiling": None, "auto": True}
    assert "do not look like raw intensities" in capsys.readouterr().err
    assert bcli.main(["--x", str(x), "--y", str(y), "--floor", "1",
                      "--out", str(tmp_path / "o")]) == 2
    assert "--floor/--ceiling need --transform log2" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# expected minus actual error against chance, per set and method (the report's gap test)
# ---------------------------------------------------------------------------------------------
def _cases(conf, correct, repeats=1):
    n = len(conf)
    return pd.DataFrame({"dataset": "a", "method": "m",
                         "repeat": np.repeat(np.arange(repeats), n),
                         "sample": np.tile([f"s{i}" for i in range(n)], repeats),
                         "confidence": np.tile(conf, repeats),
                         "correct": np.tile(np.asarray(correct, dtype=bool), repeats)})


def test_gap_tests_with_identical_repeats_is_the_one_repeat_test():
    """Repeats whose outcomes agree are one repeat: the exact p of 3 errors in 20 guesses at
    0.95 (binomial, two-sided: P(S <= 17)), not a smaller normal one."""
    from scipy import stats

    from selbayes.benchmark._report import gap_tests

    correct = [False] * 3 + [True] * 17
    one = gap_tests(_cases(np.full(20, 0.95), correct))
    two = gap_tests(_cases(np.full(20, 0.95), correct, repeats=2))
    expected = stats.binom.cdf(17, 20, 0.95)     # 19 and 20 right are closer to the mean 19
    assert one.loc[0, "p_value"] == pytest.approx(expected, rel=1e-10)
    assert two.loc[0, "p_value"] == pytest.approx(expected, rel=1e-10)
    assert two.loc[0, "gap"] == pytest.approx(0.05 - 0.15)


def test_gap_tests_with_repeats_is_conservative_under_calibration():
    """Calibrated outcomes that two repeats share (perfectly correlated repeats, the hardest
    case): p < 0.05 in at most 5% of 2000 draws, within Monte Carlo error. A normal test of
    the mean gap rejects about 9% here (confidences near 1, as on easy sets, make the
    Poisson-binomial skewed)."""
    from selbayes.benchmark._report import gap_tests

    rng = np.random.default_rng(0)
    n, reps = 100, 2000
    conf = rng.uniform(0.99, 1.0, (reps, n))
    right = rng.random((reps, n)) < conf
    both = lambda a: np.repeat(a[:, None, :], 2, axis=1).ravel()   # noqa: E731 (repeat 0, 1)
    draws = pd.DataFrame({"dataset": np.repeat([f"d{r:04d}" for r in range(reps)], 2 * n),
                          "method": "m", "repeat": np.tile(np.repeat([0, 1], n), reps),
                          "sample": np.tile([f"s{i}" for i in range(n)], 2 * reps),
                          "confidence": both(conf), "correct": both(right)})
    tests = gap_tests(draws)                # each draw its own data set, tested on its own
    for r in (0, 1, reps - 1):
        alone = gap_tests(_cases(conf[r], right[r], repeats=2))
        assert tests.loc[r, "p_value"] == alone.loc[0, "p_value"]
    rejected = int((tests["p_value"] < 0.05).sum())
    assert rejected / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize("change, match", [
    (lambda c: c.assign(confidence=[np.nan, 0.8, 0.7, 0.6]), "probabilities in"),
    (lambda c: c.assign(confidence=[1.5, 0.8, 0.7, 0.6]), "probabilities in"),
    (lambda c: c.assign(correct=["True", "False", "False", "False"]), "boolean"),
    (lambda c: c.drop(columns="confidence"), "no column"),
    (lambda c: pd.concat([c, c.assign(repeat=1)]).iloc[:-1], "same cases"),
    (lambda c: pd.concat([c, c.assign(repeat=1)]).drop(columns="sample"), "'sample'"),
])
def test_gap_tests_refuses_what_it_cannot_test(change, match):
    from selbayes.benchmark._report import gap_tests

    with pytest.raises(ValueError, match=match):
        gap_tests(change(_cases(np.array([0.9, 0.8, 0.7, 0.6]), [True] * 4)))


def test_report_says_when_the_gap_test_cannot_run():
    """Sample ids repeated in a user's file: the report says why, and is still written."""
    from selbayes.benchmark._report import _gap_test_lines

    cases = _cases(np.array([0.9, 0.8]), [True, True], repeats=2).assign(sample="same")
    (line,) = [x for x in _gap_test_lines(cases, ["m"]) if x]
    assert line.startswith("(The test of each gap against chance could not be run")
    assert "same cases" in line


@pytest.mark.slow
def test_a_class_of_two_samples_is_fitted_by_selbayes_in_every_fold(tmp_path):
    """A class of 2 samples in 5-fold cross-validation: the two folds that test one of them
    train on the other alone. The default fits those folds (its inner choices are made on the
    other classes) and, where the rare class has markers of its own, gives its held-out
    samples a high probability of their class; scikit-learn's L1 search cannot fit them
    (counted as failures). About 30 s on 2 cores (MCMC fits), so make slow."""
    rng = np.random.default_rng(1)
    y = np.array(["a"] * 2 + ["b"] * 14 + ["c"] * 14)
    X = rng.normal(size=(y.size, 200))
    X[y == "b", :5] += 1.5
    X[y == "a", 5:10] += 3.0
    ds = BenchmarkDataset(X=pd.DataFrame(X, index=[f"s{i}" for i in range(y.size)],
                                         columns=[f"g{j}" for j in range(200)]),
                          y=pd.Series(y, index=[f"s{i}" for i in range(y.size)]),
                          description="a class of two", name="rare")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_benchmark([ds], ["selbayes", "logreg_l1_cv"], folds=5, repeats=1, seed=0,
                            out=tmp_path, progress=False, write_report=False)
    r = res.results.set_index("method")
    assert r.loc["selbayes", "error_message"].isna().all()
    assert np.isfinite(r.loc["selbayes", "amlp"]).all()
    failed = r.loc["logreg_l1_cv", "error_message"].dropna()
    assert len(failed) == 2                   # the two folds with one training case of "a"
    assert failed.str.contains("holds a single case of 1 class").all()     # said why
    cases = res.cases
    rare = cases[(cases["method"] == "selbayes") & (cases["true_class"] == "a")]
    assert len(rare) == 2 and (rare["p_true"] > 0.5).all()
    # the stored stack arrays say which training cases the inner arrays are of
    for f in rare["fold"]:
        with np.load(tmp_path / "folds" / "rare" / "selbayes" / f"r00_f{int(f):02d}.npz") as z:
            inner, idx = z["stack_inner_log_proba"], z["stack_inner_cases"]
        assert inner.shape[1:] == (y.size - 6 - 1, 2) and idx.size == inner.shape[1]


# ------------------------------------------------------------------------------ grouped samples
def _twin_pair(tmp_path):
    """A user's pair of files in which samples 2i and 2i + 1 are twins (the second a noisy
    copy of the first), and a groups file naming the pairs by sample id, in shuffled order."""
    ds = _toy(n=48, p=30, seed=4)
    X = ds.X.copy()
    X.iloc[1::2] = X.iloc[0::2].to_numpy() + 0.05
    y = ds.y.copy()
    y.iloc[1::2] = y.iloc[0::2].to_numpy()
    X.to_csv(tmp_path / "X.csv")
    y.rename("label").to_csv(tmp_path / "y.csv")
    pairs = pd.Series([f"pair{i // 2}" for i in range(len(y))], index=X.index, name="group")
    pairs.sample(frac=1.0, random_state=0).to_csv(tmp_path / "groups.csv")
    return tmp_path / "X.csv", tmp_path / "y.csv", tmp_path / "groups.csv", pairs


def test_cli_drop_missing_runs_on_what_is_left_and_says_so(tmp_path, capsys):
    """Missing values in --x: one line naming them and --drop-missing (exit 2); with
    --drop-missing genes or samples the run uses the rest, and settings.json and the report's
    data-set table say how many were dropped; files without gaps record nothing."""
    ds = _toy(n=30, p=8)
    X = ds.X.copy()
    X.iloc[2, 5] = np.nan
    X.to_csv(tmp_path / "X.csv")
    ds.y.rename("label").to_frame().to_csv(tmp_path / "y.csv")
    args = ["--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "--name", "gaps",
            "--methods", "gnb", "--folds", "3", "--no-progress"]
    assert cli_main([*args, "--out", str(tmp_path / "no")]) == 2
    out_err = capsys.readouterr()
    assert "AMLP in nats" not in out_err.out
    err = out_err.err
    assert "1 missing expression value(s) in 1 gene(s) ('g5')" in err
    assert "--drop-missing genes or samples" in err and "drop_missing=" not in err
    for how, n, p, counts in (("genes", 30, 7, {"genes": 1, "samples": 0}),
                              ("samples", 29, 8, {"genes": 0, "samples": 1})):
        out = tmp_path / how
        with pytest.warns(UserWarning, match=f"drop_missing='{how}' dropped 1 {how[:-1]}"):
            assert cli_main([*args, "--drop-missing", how, "--out", str(out)]) == 0
        info = json.loads((out / "settings.json").read_text())["datasets"]["gaps"]
        assert (info["n"], info["p"], info["preprocessing"]["dropped"]) == (n, p, counts)
        printed = capsys.readouterr().out               # the AMLP table, then where the rest is
        assert "AMLP in nats" in printed and "\ngnb " in printed and "report.md" in printed
        report = (out / "report.md").read_text()
        assert f"dropped for missing values before the folds: 1 {how[:-1]}" in report
        # what was said while the data were read is repeated in the report
        said = report.split("Said about the data when they were read:")[1].split("\n## ")[0]
        assert "- gaps: UserWarning: " in said and f"dropped 1 {how[:-1]}" in said
    # groups are read against the file's samples (by id or in its row order), then the
    # dropped sample's removed: 29 samples in 15 pairs, each pair in one fold
    pairs = np.array([f"pair{i // 2}" for i in range(30)])
    pd.DataFrame({"id": X.index, "group": pairs}).to_csv(tmp_path / "g.csv", index=False)
    pd.DataFrame({"group": pairs}).to_csv(tmp_path / "g_rows.csv", index=False)
    for file in ("g.csv", "g_rows.csv"):
        out = tmp_path / f"grouped_{file}"
        with pytest.warns(UserWarning, match="dropped 1 sample "):
            assert cli_main([*args, "--drop-missing", "samples", "--groups",
                             str(tmp_path / file), "--out", str(out)]) == 0
        assert json.loads((out / "settings.json").read_text())["groups"] == {"gaps": 15}
        cases = pd.read_csv(out / "cases.csv")
        assert "s2" not in set(cases["sample"])
        of = dict(zip(X.index, pairs, strict=True))
        for _, test in cases.groupby("fold"):
            train = cases[~cases["fold"].isin(test["fold"].unique())]
            assert {of[s] for s in test["sample"]}.isdisjoint(of[s] for s in train["sample"])
    ds.X.to_csv(tmp_path / "X_full.csv")
    full = ["--x", str(tmp_path / "X_full.csv"), *args[2:]]
    assert cli_main([*full, "--drop-missing", "genes", "--out", str(tmp_path / "full")]) == 0
    info = json.loads((tmp_path / "full" / "settings.json").read_text())["datasets"]["gaps"]
    assert "dropped" not in info["preprocessing"]


def test_cli_groups_keep_twins_in_one_fold(tmp_path):
    x, y, g, pairs = _twin_pair(tmp_path)
    out = tmp_path / "out"
    args = ["--x", str(x), "--y", str(y), "--name", "twins", "--methods", "gnb",
            "--folds", "4", "--repeats", "2", "--no-progress"]
    assert cli_main([*args, "--groups", str(g), "--out", str(out)]) == 0
    cases = pd.read_csv(out / "cases.csv")
    for (_, fold), test in cases.groupby(["repeat", "fold"]):
        train = cases[(cases["repeat"] == test["repeat"].iloc[0]) & (cases["fold"] != fold)]
        assert set(pairs[test["sample"]]).isdisjoint(pairs[train["sample"]])
    assert "twins: 24 groups" in (out / "report.md").read_text()
    assert json.loads((out / "settings.json").read_text())["groups"] == {"twins": 24}
    # without the groups some twin is tested with its pair among the training cases (so the
    # check above can fail)
    plain = tmp_path / "plain"
    assert cli_main([*args, "--out", str(plain)]) == 0
    cases = pd.read_csv(plain / "cases.csv")
    split = [not set(pairs[t["sample"]]).isdisjoint(
        pairs[cases[(cases["repeat"] == r) & (cases["fold"] != f)]["sample"]])
        for (r, f), t in cases.groupby(["repeat", "fold"])]
    assert any(split)


def test_cli_groups_auto_keeps_the_twins_found_in_one_fold(tmp_path):
    """--groups auto: the twins the replicate check finds are the groups, kept in one fold
    (checked against the true pairs), said in report.md and settings.json, and no
    ReplicateWarning; a set of independent samples finds none and runs ungrouped."""
    from selbayes.evaluation import ReplicateWarning

    x, y, _, pairs = _twin_pair(tmp_path)
    out = tmp_path / "auto"
    args = ["--x", str(x), "--y", str(y), "--name", "twins", "--methods", "gnb",
            "--folds", "4", "--no-progress"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicateWarning)
        assert cli_main([*args, "--groups", "auto", "--out", str(out)]) == 0
    cases = pd.read_csv(out / "cases.csv")
    for (_, fold), test in cases.groupby(["repeat", "fold"]):
        train = cases[(cases["repeat"] == test["repeat"].iloc[0]) & (cases["fold"] != fold)]
        assert set(pairs[test["sample"]]).isdisjoint(pairs[train["sample"]])
    settings = json.loads((out / "settings.json").read_text())
    assert settings["groups"] == {"twins": 24} and settings["groups_found"] == {"twins": 48}
    assert "48 samples in groups of more than one found" in (out / "report.md").read_text()
    alone = run_benchmark([_toy()], ["gnb"], folds=3, out=tmp_path / "alone", progress=False,
                          write_report=False, groups={"toy": "auto"})
    assert alone.info["groups"] == {} and alone.info["groups_found"] == {"toy": 0}


class _GroupRecorder(GaussianNB):
    """GaussianNB that writes what a method is given (its inner folds; the groups in fit) to
    a JSON-lines file, one line per fit."""

    def __init__(self, inner_folds=3, path=""):
        super().__init__()
        self.inner_folds = inner_folds
        self.path = path

    def fit(self, X, y, groups=None):
        folds = self.inner_folds
        with open(self.path, "a") as f:
            f.write(json.dumps({
                "n": len(y), "groups": None if groups is None else np.asarray(groups).tolist(),
                "folds": folds if isinstance(folds, int)
                else [[np.asarray(tr).tolist(), np.asarray(te).tolist()] for tr, te in folds]})
                + "\n")
        return super().fit(X, y)


def test_groups_reach_the_methods_inner_cross_validation(tmp_path, monkeypatch):
    """In a grouped run every method keeps the groups whole inside too: a method whose fit
    takes groups gets the training cases' groups, and its inner folds (the scikit-learn
    peers' searches) are folds of the training cases with each group in one fold; ungrouped,
    it gets neither."""
    from selbayes.evaluation._cross_validation import fit_groups_kwargs as _groups_to_fit

    log = tmp_path / "log.jsonl"
    monkeypatch.setitem(bm.METHODS, "recorder",
                        lambda n_classes, random_state, *, quick=False, inner_folds=3:
                        _GroupRecorder(inner_folds, str(log)))
    ds = _toy(n=48)
    pairs = np.arange(48) // 2
    ds.y.iloc[1::2] = ds.y.iloc[0::2].to_numpy()          # twins share a class
    run_benchmark([ds], ["recorder"], folds=4, repeats=2, out=tmp_path / "g", progress=False,
                  write_report=False, groups={"toy": [f"p{g}" for g in pairs]})
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 8
    for rec in lines:
        g = np.asarray(rec["groups"])
        assert g.size == rec["n"] and np.all(np.unique(g, return_counts=True)[1] == 2)
        assert len(rec["folds"]) == 3
        for tr, te in rec["folds"]:
            assert set(g[tr]).isdisjoint(g[te])
        assert sorted(i for _, te in rec["folds"] for i in te) == list(range(rec["n"]))
    log.unlink()
    run_benchmark([ds], ["recorder"], folds=4, out=tmp_path / "u", progress=False,
                  write_report=False)
    assert all(r["groups"] is None and r["folds"] == 3
               for r in map(json.loads, log.read_text().splitlines()))
    # a method last in a preprocessing pipeline gets them as the pipeline's model__groups
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    rec = _GroupRecorder(path=str(tmp_path / "p.jsonl"))
    pipe = Pipeline([("preprocess", StandardScaler()), ("model", rec)])
    pipe.fit(np.zeros((4, 2)), [0, 0, 1, 1], **_groups_to_fit(pipe, np.array([0, 0, 1, 1])))
    assert json.loads((tmp_path / "p.jsonl").read_text())["groups"] == [0, 0, 1, 1]
    assert _groups_to_fit(GaussianNB(), np.array([0, 1])) == {}


def test_a_set_of_twins_run_without_groups_is_warned_of(tmp_path):
    """Twins and no groups: a ReplicateWarning names the set and the first pairs by sample
    id, and report.md and settings.json say how many samples are in such groups; with the
    groups, or without twins, nothing."""
    from selbayes.evaluation import ReplicateWarning

    x, y, g, pairs = _twin_pair(tmp_path)
    ds = BenchmarkDataset(X=pd.read_csv(x, index_col=0),
                          y=pd.read_csv(y, index_col=0)["label"], name="twins",
                          preprocessing={"transform": "none", "floor": None, "ceiling": None})
    with pytest.warns(ReplicateWarning, match=r"twins: 48 of the 48 samples form 24 pairs "
                                              r".*'s(\d+)' and 's\d+'.*groups=\{'twins'"):
        res = run_benchmark([ds], ["gnb"], folds=3, out=tmp_path / "a", progress=False)
    assert res.info["samples_in_replicates"] == {"twins": 48}
    assert "twins: 48 of 48 samples in groups" in (tmp_path / "a" / "report.md").read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicateWarning)
        grouped = run_benchmark([ds], ["gnb"], folds=3, out=tmp_path / "b", progress=False,
                                write_report=False, groups={"twins": pairs.to_numpy()})
        alone = run_benchmark([_toy()], ["gnb"], folds=3, out=tmp_path / "c", progress=False,
                              write_report=False)
    assert grouped.info["samples_in_replicates"] == {} == alone.info["samples_in_replicates"]


def test_cli_groups_in_row_order_equal_groups_by_id(tmp_path):
    x, y, g, pairs = _twin_pair(tmp_path)
    pd.Series(pairs.to_numpy(), name="group").to_frame().to_csv(tmp_path / "rows.csv",
                                                                   index=False)
    args = ["--x", str(x), "--y", str(y), "--methods", "gnb", "--folds", "3",
            "--no-progress"]
    assert cli_main([*args, "--groups", str(g), "--out", str(tmp_path / "a")]) == 0
    assert cli_main([*args, "--groups", str(tmp_path / "rows.csv"),
                     "--out", str(tmp_path / "b")]) == 0
    a, b = (pd.read_csv(tmp_path / d / "cases.csv") for d in "ab")
    pd.testing.assert_frame_equal(a, b)


def test_cli_groups_errors_exit_2_with_one_line(tmp_path, capsys):
    x, y, g, pairs = _twin_pair(tmp_path)
    base = ["--x", str(x), "--y", str(y), "--transform", "none", "--methods", "gnb",
            "--out", str(tmp_path / "o")]
    pairs.iloc[:-1].to_csv(tmp_path / "short.csv")               # one sample without a group
    pd.Series(["one"] * 2 + ["two"] * 46).to_frame("group").to_csv(tmp_path / "two.csv",
                                                                 index=False)
    for argv, match in (
            (["sorlie", "--groups", str(g), "--out", "o"], "--groups applies to --x data"),
            ([*base, "--groups", str(tmp_path / "short.csv")], "sample ids do not match"),
            ([*base, "--groups", str(tmp_path / "two.csv")],
             "two.csv: 2 groups, fewer than --folds 5 (each fold tests whole groups); give "
             "--folds 2 or fewer"),
            ([*base, "--groups", str(tmp_path / "none.csv")], "--groups " + str(
                tmp_path / "none.csv") + ": no such file")):
        assert cli_main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert match in err and len(err.splitlines()) == 1, err


def test_cli_options_errors_name_the_option(tmp_path, capsys):
    """Each bad option is one line in the command's own terms: no method named, a method named
    twice, --out an existing file, --x a folder, a '..' name, --label-column without --x, a
    negative floor and a ceiling below the floor; and the default name keeps what is before
    the table suffix, so two files of one stem write to two folders."""
    ds = _toy(n=30, p=8)
    ds.X.to_csv(tmp_path / "b1.raw.csv")
    ds.y.rename("label").to_frame().to_csv(tmp_path / "y.csv")
    (tmp_path / "afile").write_text("x")
    base = ["--x", str(tmp_path / "b1.raw.csv"), "--y", str(tmp_path / "y.csv"),
            "--folds", "3", "--no-progress"]
    for argv, match in (
            ([*base, "--methods", ","], "--methods ',' names no method"),
            ([*base, "--methods", "gnb,lda_shrinkage,gnb"], "--methods names gnb more than once"),
            ([*base, "--out", str(tmp_path / "afile")], "afile: a file, not a folder"),
            (["--x", str(tmp_path), "--y", str(tmp_path / "y.csv")], ": a folder, not a file"),
            ([*base, "--name", ".."], "and not '.' or '..' alone"),
            (["sorlie", "--label-column", "label"], "--label-column applies to --x data only"),
            ([*base, "--transform", "log2", "--floor", "-1"], "--floor/--ceiling: floor must"),
            ([*base, "--transform", "log2", "--floor", "5", "--ceiling", "2"],
             "--ceiling 2 must exceed --floor 5"),
            # NumPy's 'expected non-negative integer' after the output folder was made
            ([*base, "--seed", "-1", "--out", str(tmp_path / "never")], "and --seed >= 0"),
            # --quick replaced --folds 5 by its 3 without a word
            (["--quick", "--folds", "5"], "--quick runs its own design of 3 folds; leave out "
                                          "--folds 5")):
        assert cli_main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert match in err[-1] and err[-1].startswith("selbayes benchmark: error:"), err
    assert not (tmp_path / "never").exists()
    from selbayes.benchmark._cli import _file_stem

    assert _file_stem(tmp_path / "b1.raw.csv") == "b1.raw"
    assert _file_stem("b1.norm.tsv.gz") == "b1.norm" and _file_stem("X.csv") == "X"
    cwd = os.getcwd()
    try:                                # the default folder of each: its own
        os.chdir(tmp_path)
        assert cli_main([*base, "--methods", "gnb"]) == 0
    finally:
        os.chdir(cwd)
    assert (tmp_path / "selbayes_runs" / "benchmark_b1.raw" / "report.md").is_file()


def test_run_benchmark_aligns_labels_and_groups_keyed_by_sample_id(tmp_path):
    """A Dataset whose y lists the samples of X in another order, and groups given as a
    Series or dict keyed by sample id in another order, are aligned by id (a warning for the
    reordered y), and give the results of the aligned data; ids that are not X's are an
    error; a y or groups without ids (a RangeIndex, an array) stay in row order."""
    from selbayes.datasets import Dataset

    ds = _toy(n=30, p=8)
    X, y = ds.X, ds.y
    pairs = pd.Series([f"p{i // 2}" for i in range(30)], index=X.index)
    order = np.random.default_rng(3).permutation(30)
    ref = run_benchmark([Dataset(X=X, y=y, name="s")], ["lda_shrinkage"], folds=3,
                        out=tmp_path / "ref", progress=False, write_report=False,
                        groups={"s": pairs.to_numpy()})
    with pytest.warns(UserWarning, match="y lists the samples of X in another order"):
        got = run_benchmark([Dataset(X=X, y=y.iloc[order], name="s")], ["lda_shrinkage"],
                            folds=3, out=tmp_path / "got", progress=False, write_report=False,
                            groups={"s": pairs.iloc[order]})
    np.testing.assert_array_equal(got.results["amlp"], ref.results["amlp"])
    got = run_benchmark([Dataset(X=X, y=y, name="s")], ["lda_shrinkage"], folds=3,
                        out=tmp_path / "dict", progress=False, write_report=False,
                        groups={"s": dict(pairs.iloc[order])})
    np.testing.assert_array_equal(got.results["amlp"], ref.results["amlp"])
    bad = y.iloc[order].rename(index={X.index[order[0]]: "stranger"})
    with pytest.raises(ValueError, match=r"y is keyed by sample id, but not by exactly the "
                                         r"samples of X: 1 only in X .* 1 only in it "
                                         r"\('stranger'\)"):
        run_benchmark([Dataset(X=X, y=bad, name="s")], ["gnb"], folds=3,
                      out=tmp_path / "bad", progress=False)
    plain = Dataset(X=X, y=y.reset_index(drop=True), name="s")          # no ids: row order
    got = run_benchmark([plain], ["lda_shrinkage"], folds=3, out=tmp_path / "plain",
                        progress=False, write_report=False, groups={"s": pairs.to_numpy()})
    np.testing.assert_array_equal(got.results["amlp"], ref.results["amlp"])


def test_run_benchmark_logs_raw_intensities_of_a_dataset_without_preprocessing(tmp_path):
    """A Dataset from read_xy (no preprocessing of its own) is preprocessed as the command
    line does by default: raw intensities are logged (said in a warning and the report) and
    give the results of the same data given as log2 values; other values stay as given."""
    from selbayes.datasets import Dataset
    from selbayes.evaluation import ReplicateWarning

    ds = _toy(n=30, p=8)
    logged = Dataset(X=2 * ds.X + 8.0, y=ds.y, name="s")
    raw = Dataset(X=2.0 ** (2 * ds.X + 8.0), y=ds.y, name="s")
    ref = run_benchmark([logged], ["lda_shrinkage"], folds=3, out=tmp_path / "log",
                        progress=False, write_report=False)
    assert ref.info["datasets"]["s"]["preprocessing"]["transform"] == "none"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReplicateWarning)     # toy genes: a few alike pairs
        with pytest.warns(UserWarning, match="the values look like raw intensities: every "
                                             "method gets log2 of them"):
            got = run_benchmark([raw], ["lda_shrinkage"], folds=3, out=tmp_path / "raw",
                                progress=False)
    np.testing.assert_allclose(got.results["amlp"], ref.results["amlp"], rtol=1e-9)
    assert "log2 of values clipped to" in (tmp_path / "raw" / "report.md").read_text()


def test_run_benchmark_refuses_values_every_method_would_fail_on(tmp_path):
    """Missing values (named) and a matrix of constant genes are refused before any fit, in
    one line, instead of every method failing in its own words (scikit-learn's multi-line
    'All the fits failed', or 'proba contains NaN'); a failed fit's record is one line without
    NumPy reprs."""
    from selbayes.benchmark._runner import _one_line
    from selbayes.datasets import Dataset

    ds = _toy(n=30, p=8)
    X = ds.X.copy()
    X.iloc[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"data set 's': 1 missing value\(s\) in 1 gene\(s\) "
                                         r"\('g2'\) of 1 sample\(s\) \('s3'\)"):
        run_benchmark([Dataset(X=X, y=ds.y, name="s")], ["gnb"], folds=3, out=tmp_path / "a",
                      progress=False)
    with pytest.raises(ValueError, match="every gene has the same value in every sample"):
        run_benchmark([Dataset(X=ds.X * 0 + 3.0, y=ds.y, name="s")], ["gnb"], folds=3,
                      out=tmp_path / "b", progress=False)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    text = "All the 6 fits failed.\nIt is very likely...\n\nValueError: only one class: np.int64(1)"
    assert _one_line(text) == "All the 6 fits failed. (ValueError: only one class: 1)"


def test_run_benchmark_refuses_groups_of_a_set_not_run(tmp_path):
    with pytest.raises(ValueError, match=r"groups given for data set\(s\) not run: \['other'\]"):
        run_benchmark([_toy()], ["gnb"], out=tmp_path / "o", groups={"other": [0, 1]})


def test_a_rerun_with_other_settings_says_it_replaces_the_stored_fits(tmp_path):
    """The folder keeps one record per (data set, method, repeat, fold): a rerun with another
    seed replaces the earlier run's records and report. Before, without a word; now warned of
    before fitting. Adding a method, or resuming with the same settings, says nothing."""
    ds, out = _toy(), tmp_path / "out"
    run_benchmark([ds], ["gnb"], folds=3, out=out, progress=False, write_report=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_benchmark([ds], ["gnb", "logreg_l2_cv"], folds=3, out=out, progress=False,
                      write_report=False)
    with pytest.warns(UserWarning, match=r"holds 6 fit\(s\) of these data sets and methods "
                                         r"made with other settings"):
        run_benchmark([ds], ["gnb", "logreg_l2_cv"], folds=3, seed=1, out=out,
                      progress=False, write_report=False)


def test_a_damaged_fold_file_is_fitted_again(tmp_path):
    """A fold's arrays damaged on disk (an interrupted copy, a full disk) are fitted again,
    as a damaged record is; before, every rerun stopped in zipfile's BadZipFile."""
    ds, out = _toy(), tmp_path / "out"
    first = run_benchmark([ds], ["gnb"], folds=3, out=out, progress=False, write_report=False)
    npz = sorted((out / "folds").rglob("*.npz"))[0]
    npz.write_bytes(npz.read_bytes()[:40])
    again = run_benchmark([ds], ["gnb"], folds=3, out=out, progress=False, write_report=False)
    assert again.info["n_fitted"] == 1 and again.info["n_resumed"] == 2
    np.testing.assert_array_equal(first.results["amlp"], again.results["amlp"])


def test_the_record_holds_what_a_rerun_needs(tmp_path):
    """settings.json records the package versions, each method's settings and each data
    set's hash beside the seed, folds and repeats; report.md the versions."""
    import json
    from importlib import metadata

    res = run_benchmark([_toy()], ["gnb", "logreg_l2_cv"], folds=3, out=tmp_path / "out",
                        progress=False)
    info = json.loads((tmp_path / "out" / "settings.json").read_text())
    assert info["versions"]["numpy"] == metadata.version("numpy")
    assert info["versions"]["scikit-learn"] == metadata.version("scikit-learn")
    assert set(info["method_settings"]) == {"gnb", "logreg_l2_cv"}
    assert not any(k.endswith("random_state") for s in info["method_settings"].values()
                   for k in s)
    ds = _toy()
    y_idx = np.unique(ds.y.astype(str), return_inverse=True)[1]
    assert info["datasets"]["toy"]["data_hash"] == _data_hash(ds.X.to_numpy(float), y_idx)
    assert f"scipy {metadata.version('scipy')}" in (res.out / "report.md").read_text()


def test_the_stacks_new_random_state_leaves_the_stored_fits_keys_alone():
    """The stacks' random_state (2026-12-07) at None seeds nothing and stays out of the key of
    a stored fit, so that the fits stored before (reports/benchmark_microarray_2026-12-06/
    folds) still resume; another estimator's random_state at None stays in (its key as it
    was)."""
    import json

    from selbayes.benchmark._runner import _build, _settings

    for pre in ({"transform": "none"}, {"transform": "log2", "floor": 1.0, "ceiling": None}):
        stack = json.loads(_settings(_build("selbayes", pre, 2, 123, False, 5)))
        assert not [k for k, v in stack.items() if k.endswith("random_state") and v is None]
        assert 123 in [v for k, v in stack.items() if k.endswith("random_state")]
    peer = json.loads(_settings(_build("logreg_l2_cv", {"transform": "none"}, 2, 123, False,
                                       5)))
    assert peer["pca__random_state"] is None
