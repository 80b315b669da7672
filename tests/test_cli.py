"""The command line as a tool: exit statuses, one-line errors, verdicts, fit/predict."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("selbayes: error: ")
    return err[0]


@pytest.mark.parametrize("command", ["reproduce", "sbc"])
def test_missing_spec_exits_2_with_one_line(command, tmp_path, capsys):
    assert main([command, str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml" in _one_line_error(capsys)


def test_bad_toml_exits_2(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text("[experiment\nname = 1\n")
    assert main(["reproduce", str(spec)]) == 2
    _one_line_error(capsys)


def test_wrong_spec_type_exits_2(capsys):
    # an SBC spec given to `reproduce`
    assert main(["reproduce", str(ROOT / "models" / "sbc" / "sbc_gaussian_small.toml")]) == 2
    _one_line_error(capsys)


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(FileNotFoundError):
        main(["--debug", "reproduce", str(tmp_path / "nope.toml")])


def test_console_error_has_no_traceback(tmp_path):
    res = subprocess.run([sys.executable, "-m", "selbayes.cli", "reproduce",
                          str(tmp_path / "nope.toml")], capture_output=True, text=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT / "src")})
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_missing_data_file_exits_2(tmp_path, capsys):
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", "y.csv", "-o",
                 str(tmp_path / "f.nc")]) == 2
    assert "X.csv" in _one_line_error(capsys)


def test_demo_data_choices_have_no_none():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--data", "None"])
    assert build_parser().parse_args(["demo"]).data == "simulated"


def test_failing_reproduction_exits_1_and_prints_the_report(tmp_path, monkeypatch, capsys):
    import selbayes.experiments as rep

    verdict = {"text": "FAIL"}

    def fake(spec_path, out=None, **kwargs):
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(f"# r\n\n**Overall: {verdict['text']}** (1 of 2)\n")
        return rep.ReproductionResult(out, out / "report.md", out / "results.json", {})

    monkeypatch.setattr(rep, "run_reproduction", fake)
    out = tmp_path / "given"
    assert main(["reproduce", "spec.toml", "--quick", "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert f"report: {out / 'report.md'}" in printed
    assert "verdict: FAIL" in printed
    verdict["text"] = "PASS"
    assert main(["reproduce", "spec.toml", "--out", str(out)]) == 0
    assert "verdict: PASS" in capsys.readouterr().out


def test_sbc_verdict_judges_the_corrected_parameters(tmp_path, monkeypatch, capsys):
    import selbayes.sbc._spec as sm

    class Result:
        def __init__(self, passed):
            self._passed = passed

        def summary(self):
            return pd.DataFrame({"passed": self._passed})

    monkeypatch.setattr(sm, "load_sbc_spec", lambda path, quick=False: SimpleNamespace(name="s"))
    monkeypatch.setattr(sm, "run_sbc_spec", lambda *a, **k: Result(
        {"tau_corrected": True, "tau_uncorrected": False}))
    assert main(["sbc", "x.toml", "--out", str(tmp_path / "o")]) == 0
    assert "verdict: PASS" in capsys.readouterr().out
    monkeypatch.setattr(sm, "run_sbc_spec", lambda *a, **k: Result(
        {"tau_corrected": False, "tau_uncorrected": False}))
    assert main(["sbc", "x.toml", "--out", str(tmp_path / "o")]) == 1
    printed = capsys.readouterr().out
    assert "verdict: FAIL" in printed and "tau_corrected" in printed


def test_cache_info_and_clear(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SELBAYES_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache" / "models").mkdir(parents=True)
    (tmp_path / "cache" / "models" / "abc-logp.nbc").write_bytes(b"x" * 10)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "cache") in out and "compiled models: 1" in out
    assert main(["cache", "clear"]) == 0
    assert not (tmp_path / "cache" / "models").exists()


def test_cache_info_says_when_every_process_compiles_the_dependencies(tmp_path, monkeypatch,
                                                                     capsys):
    """Without the dependencies' bytecode, where Python may not write it, `selbayes cache info`
    says why a new process starts slowly and how to fix the install."""
    import importlib.util

    monkeypatch.setenv("SELBAYES_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(importlib.util, "cache_from_source",
                        lambda path: str(tmp_path / "nowhere.pyc"))
    for dont_write, said in ((True, "missing, and not written here (PYTHONDONTWRITEBYTECODE)"),
                             (False, "written on first import")):
        monkeypatch.setattr(sys, "dont_write_bytecode", dont_write)
        assert main(["cache", "info"]) == 0
        assert f"Python bytecode of the dependencies: {said}" in capsys.readouterr().out
    (tmp_path / "here.pyc").touch()
    monkeypatch.setattr(importlib.util, "cache_from_source",
                        lambda path: str(tmp_path / "here.pyc"))
    assert main(["cache", "info"]) == 0
    assert "Python bytecode of the dependencies: present" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore:MCMC diagnostics failed")
def test_fit_predict_round_trip_is_bit_for_bit(tmp_path, monkeypatch, capsys):
    """`selbayes fit` then `selbayes predict` equals predict_proba of the Python API."""
    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(3)
    n, p = 30, 40
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p)) + (y == "b")[:, None] * np.r_[np.ones(4), np.zeros(p - 4)]
    names = [f"gene{j}" for j in range(p)]
    frame = pd.DataFrame(X, columns=names, index=pd.Index([f"s{i}" for i in range(n)],
                                                          name="sample"))
    frame.to_csv(tmp_path / "X.csv", float_format="%.17g")
    # labels with sample ids, in another order than X: matched by id
    pd.DataFrame({"id": frame.index[::-1], "label": y[::-1]}).to_csv(tmp_path / "y.csv",
                                                                      index=False)
    new = pd.DataFrame(rng.normal(size=(7, p)), columns=names)
    # columns in another order: predict must align them by name
    new[names[::-1]].to_csv(tmp_path / "new.tsv", sep="\t", index=False, float_format="%.17g")

    # k = 10: the model of that shape is compiled for tests/evaluation/test_ppc.py,
    # tests/estimators/test_inner_cv.py's invariance test, tests/test_estimator_contract.py
    # and tests/evaluation/test_cross_validation.py as well
    settings = ["--k", "10", "--seed", "11", "--draws", "150", "--tune", "150", "--chains", "2"]
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 *settings, "--no-progress", "-o", str(tmp_path / "fit.nc")]) == 0
    printed = capsys.readouterr().out
    assert "k: 10;" in printed and "threshold gamma:" in printed
    assert "selected (best first): gene" in printed and "diagnostics:" in printed
    assert "label noise: " in printed and "chosen by inner CV" in printed
    assert "labels: none contradicted by the held-out predictions" in printed
    assert "replicates: " in printed
    # -o into a folder that does not exist yet: created
    assert main(["predict", str(tmp_path / "fit.nc"), "--x", str(tmp_path / "new.tsv"),
                 "-o", str(tmp_path / "new_folder" / "proba.csv")]) == 0
    got = pd.read_csv(tmp_path / "new_folder" / "proba.csv", index_col=0)

    clf = HierarchicalGaussianClassifier(k=10, random_state=11, draws=150, tune=150, chains=2,
                                         progressbar=False)
    clf.fit(pd.read_csv(tmp_path / "X.csv", index_col=0).to_numpy(), y)
    want = clf.predict_proba(new.to_numpy())
    assert list(got.columns) == ["a", "b"]
    np.testing.assert_array_equal(got.to_numpy(), want)
    # clf.save into a folder that does not exist: one clear line, not h5py's flags
    with pytest.raises(FileNotFoundError, match=r"no_such_folder: no such folder"):
        clf.save(tmp_path / "no_such_folder" / "f.nc")
    _saved_transform_warns_in_python_only(tmp_path, new)


def _saved_transform_warns_in_python_only(tmp_path, new):
    """A fit made by `selbayes fit --transform log2` (its attribute set on a copy of a CLI
    fit) warns when loaded in Python, where predict_proba does not transform; the CLI's
    predict, which applies the transform, does not warn; a fit without it does not warn."""
    import shutil
    import warnings

    import h5py

    from selbayes import HierarchicalGaussianClassifier
    from selbayes.cli import _TRANSFORM_ATTR
    from selbayes.estimators._persistence import INPUT_TRANSFORM_ATTR, SavedTransformWarning

    assert _TRANSFORM_ATTR == INPUT_TRANSFORM_ATTR
    shutil.copy(tmp_path / "fit.nc", tmp_path / "log2.nc")
    with h5py.File(tmp_path / "log2.nc", "a") as f:
        f.attrs[_TRANSFORM_ATTR] = json.dumps({"transform": "log2", "floor": 1.0,
                                               "ceiling": None})
    with pytest.warns(SavedTransformWarning, match=r"--transform log2 --floor 1'.*"
                                                   r"IntensityLog2\(floor=1\.0, ceiling=None\)"):
        HierarchicalGaussianClassifier.load(tmp_path / "log2.nc")
    (np.exp2(new) + 1.0).to_csv(tmp_path / "raw.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SavedTransformWarning)
        HierarchicalGaussianClassifier.load(tmp_path / "fit.nc")          # no transform
        assert main(["predict", str(tmp_path / "log2.nc"), "--x", str(tmp_path / "raw.csv"),
                     "-o", str(tmp_path / "raw_proba.csv")]) == 0


def test_predict_reports_missing_features(tmp_path, capsys):
    import h5py

    from selbayes.cli import _FEATURES_ATTR, _MODEL_ATTR

    path = tmp_path / "fit.nc"
    with h5py.File(path, "w") as f:
        f.attrs[_FEATURES_ATTR] = '["g1", "g2"]'
        f.attrs[_MODEL_ATTR] = "gaussian"
    pd.DataFrame({"g1": [1.0]}).to_csv(tmp_path / "new.csv", index=False)
    # the file is not a real fit: loading fails first or the feature check does; both exit 2
    assert main(["predict", str(path), "--x", str(tmp_path / "new.csv"), "-o",
                 str(tmp_path / "p.csv")]) == 2
    _one_line_error(capsys)


def test_sbc_quick_out_is_used_as_given(tmp_path, monkeypatch, capsys):
    # --out is honoured as given with --quick (no "_quick" appended to it)
    import selbayes.sbc._spec as sm

    seen = {}

    class Result:
        def summary(self):
            import pandas as pd
            return pd.DataFrame({"passed": [True]}, index=["tau_mu_corrected"])

    def fake_run(spec, out=None, quick=False, **kwargs):
        seen["out"], seen["quick"] = out, quick
        return Result()

    monkeypatch.setattr(sm, "load_sbc_spec", lambda path, quick=False: SimpleNamespace(name="s"))
    monkeypatch.setattr(sm, "run_sbc_spec", fake_run)
    out = tmp_path / "mine"
    assert main(["sbc", "x.toml", "--quick", "--out", str(out)]) == 0
    assert seen == {"out": str(out), "quick": True}
    assert f"report: {out / 'README.md'}" in capsys.readouterr().out


def test_run_sbc_spec_writes_into_the_given_out(tmp_path, monkeypatch):
    import selbayes.sbc._core as sbc
    from selbayes.sbc import run_sbc_spec

    seen = {}

    def fake_run_sbc(*args, out_dir=None, **kwargs):
        seen["out_dir"] = out_dir
        raise RuntimeError("stop")

    monkeypatch.setattr(sbc, "run_sbc", fake_run_sbc)
    with pytest.raises(RuntimeError, match="stop"):
        run_sbc_spec(ROOT / "models" / "sbc" / "sbc_gaussian_small.toml", out=tmp_path / "o",
                     quick=True)
    assert seen["out_dir"] == tmp_path / "o" / "replicates"


def test_unnamed_sample_id_column_is_read_as_the_index(tmp_path):
    """A CSV written by pandas' to_csv has an empty first header cell over the sample ids: the
    ids become the index (so `predict` writes them under "sample", not "Unnamed: 0")."""
    from selbayes.cli import _read_x

    frame = pd.DataFrame(np.arange(6.0).reshape(3, 2), columns=["g1", "g2"],
                         index=["s1", "s2", "s3"])
    frame.to_csv(tmp_path / "x.csv")
    X = _read_x(str(tmp_path / "x.csv"))
    assert list(X.index) == ["s1", "s2", "s3"]
    assert list(X.columns) == ["g1", "g2"]


# ------------------------------------------------------------------------------ user errors
def _two_class_files(tmp_path, n=12, p=6, *, ids=True):
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], n // 2)
    X = pd.DataFrame(rng.normal(size=(n, p)) + (y == "b")[:, None],
                     columns=[f"g{j}" for j in range(p)],
                     index=pd.Index([f"s{i}" for i in range(n)], name="sample"))
    X.to_csv(tmp_path / "X.csv", index=ids)
    pd.DataFrame({"id": X.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    return X, y


class _Stop(ValueError):
    pass


@pytest.fixture
def captured_fit(monkeypatch):
    """The classifier's fit replaced by one that records its settings and data, then stops
    (exit 2) before any sampling."""
    from selbayes.estimators import HierarchicalGaussianClassifier

    seen = {}

    def fake_fit(self, X, y, groups=None):
        seen.update(params=self.get_params(), X=X, y=np.asarray(y), groups=groups)
        raise _Stop("stopped by the test")

    monkeypatch.setattr(HierarchicalGaussianClassifier, "fit", fake_fit)
    return seen


def test_mismatched_sample_ids_exit_2_naming_them(tmp_path, capsys):
    X, y = _two_class_files(tmp_path)
    pd.DataFrame({"id": [f"t{i}" for i in range(len(y))], "label": y}).to_csv(
        tmp_path / "y_other.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y_other.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "y_other.csv" in line and "'s0'" in line and "'t0'" in line
    assert not (tmp_path / "f.nc").exists()


def test_label_and_data_problems_name_the_file(tmp_path, capsys):
    """Class problems name the label file (not 'y' or the X file), one line however many
    classes; the binary models name the X file, a gene and a sample; the benchmark's folds
    are checked against the classes before scikit-learn's splitter."""
    X, y = _two_class_files(tmp_path)
    base = ["fit", "--x", str(tmp_path / "X.csv"), "-o", str(tmp_path / "f.nc")]
    one = y.copy()
    one[-1] = "c"                                              # a class of one case
    pd.DataFrame({"id": X.index, "label": one}).to_csv(tmp_path / "y_one.csv", index=False)
    # the Gaussian model fits a class of one case (its mean is that case), and says so; the
    # mixture model needs two
    assert main([*base, "--y", str(tmp_path / "y_one.csv"), "--plugin"]) == 0   # the stack
    assert "'c' have a single training case" in capsys.readouterr().err
    assert main(["predict", str(tmp_path / "f.nc"), "--x", str(tmp_path / "X.csv"), "-o",
                 str(tmp_path / "p.csv")]) == 0
    assert list(pd.read_csv(tmp_path / "p.csv").columns[1:]) == ["a", "b", "c"]
    assert main([*base, "--y", str(tmp_path / "y_one.csv"), "--model", "mixture"]) == 2
    line = _one_line_error(capsys)
    assert line.startswith("selbayes: error: ") and "y_one.csv: every class needs" in line
    many = [f"c{i}" for i in range(len(y))]                   # every case its own class
    pd.DataFrame({"id": X.index, "label": many}).to_csv(tmp_path / "y_many.csv", index=False)
    assert main([*base, "--y", str(tmp_path / "y_many.csv")]) == 2
    line = _one_line_error(capsys)
    assert "and 7 more of the 12 classes" in line and "'c9'" not in line
    assert main([*base, "--y", str(tmp_path / "y.csv"), "--model", "naive-bayes"]) == 2
    line = _one_line_error(capsys)
    assert "X.csv: --model naive-bayes needs binary (0/1) values" in line
    assert "for gene g0 in sample s0" in line
    assert main(["benchmark", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--folds", "7", "--methods", "gnb", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "y.csv: every class has fewer samples than --folds 7 (the largest 6)" in err
    assert "--folds 6 or fewer" in err and "n_splits" not in err
    # a class smaller than the folds, another that fills them: run (as the named sets' are),
    # each small-class sample tested once, with a warning
    pd.DataFrame({"id": X.index, "label": ["a"] * 3 + ["b"] * 9}).to_csv(
        tmp_path / "y_small.csv", index=False)
    assert main(["benchmark", "--x", str(tmp_path / "X.csv"), "--y",
                 str(tmp_path / "y_small.csv"), "--folds", "5", "--methods", "gnb",
                 "--no-progress", "--out", str(tmp_path / "b2")]) == 0
    err = capsys.readouterr().err
    assert "y_small.csv: class(es) with fewer samples than --folds 5: 'a' (3)" in err
    assert "need 2 cases" not in err
    pd.DataFrame({"id": X.index, "label": ["a"] * 2 + ["b"] * 10}).to_csv(
        tmp_path / "y_two.csv", index=False)
    assert main(["benchmark", "--x", str(tmp_path / "X.csv"), "--y",
                 str(tmp_path / "y_two.csv"), "--folds", "5", "--methods", "gnb",
                 "--no-progress", "--out", str(tmp_path / "b3")]) == 0
    assert "'a' has 2, so the training folds of the two folds that test one of them keep 1: "\
        "there the selbayes models make their inner choices on the other classes" \
        in capsys.readouterr().err
    cases = pd.read_csv(tmp_path / "b2" / "cases.csv")
    assert sorted(cases["sample"].astype(str)) == sorted(X.index)      # every case tested once


def test_benchmark_without_out_writes_to_a_folder_per_data_set(tmp_path, monkeypatch, capsys):
    """`selbayes benchmark --x X.csv --y y.csv --folds 5 --repeats 2` (the command users and
    the issue write, without --out) runs, into selbayes_runs/benchmark_<name> of the working
    directory, which it names; another data set goes to another folder, so no report is
    overwritten."""
    _two_class_files(tmp_path, n=20)
    monkeypatch.chdir(tmp_path)
    assert main(["benchmark", "--x", "X.csv", "--y", "y.csv", "--folds", "5", "--repeats", "2",
                 "--methods", "gnb", "--no-progress"]) == 0
    err = capsys.readouterr().err
    folder = tmp_path / "selbayes_runs" / "benchmark_X"
    assert f"writing to {Path('selbayes_runs') / 'benchmark_X'}/" in err
    assert (folder / "report.md").is_file() and (folder / "summary.csv").is_file()
    (tmp_path / "my data.csv").write_text((tmp_path / "X.csv").read_text())
    assert main(["benchmark", "--x", "my data.csv", "--y", "y.csv", "--methods", "gnb",
                 "--no-progress", "--folds", "2"]) == 0
    assert (tmp_path / "selbayes_runs" / "benchmark_my_data" / "report.md").is_file()
    assert (folder / "report.md").is_file()
    capsys.readouterr()
    # a name that cannot name a folder is refused by name, not by the store's task ids
    assert main(["benchmark", "--x", "X.csv", "--y", "y.csv", "--name", "my set/2",
                 "--methods", "gnb", "--no-progress", "--folds", "2"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "data set name 'my set/2': use letters, digits" in line and "task id" not in line
    assert not (tmp_path / "selbayes_runs" / "benchmark_my set").exists()


def test_label_ids_with_an_id_less_x_exit_2(tmp_path, capsys):
    X, y = _two_class_files(tmp_path, ids=False)
    order = np.random.default_rng(1).permutation(len(y))
    pd.DataFrame({"id": X.index[order], "label": y[order]}).to_csv(tmp_path / "y_shuf.csv",
                                                                    index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y_shuf.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "X.csv has no sample ids" in line and "y_shuf.csv" in line
    assert not (tmp_path / "f.nc").exists()


def test_labels_are_aligned_by_id_in_any_order(tmp_path, captured_fit, capsys):
    X, y = _two_class_files(tmp_path)
    order = np.random.default_rng(1).permutation(len(y))
    pd.DataFrame({"id": X.index[order], "label": y[order]}).to_csv(tmp_path / "y_shuf.csv",
                                                                    index=False)
    main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y_shuf.csv"),
          "-o", str(tmp_path / "f.nc")])
    np.testing.assert_array_equal(captured_fit["y"], y)
    assert list(captured_fit["X"].columns) == list(X.columns)     # names reach the classifier


def test_fit_groups_reach_the_classifier_by_sample_id(tmp_path, captured_fit, capsys):
    """--groups, matched to --x by sample id in any order (or in row order without ids),
    reaches the Gaussian model's fit (inside the default stack) in the rows of X."""
    X, y = _two_class_files(tmp_path)
    pairs = np.array([f"pair{i // 2}" for i in range(len(y))])
    order = np.random.default_rng(2).permutation(len(y))
    pd.DataFrame({"id": X.index[order], "group": pairs[order]}).to_csv(
        tmp_path / "g.csv", index=False)
    pd.DataFrame({"group": pairs}).to_csv(tmp_path / "rows.csv", index=False)
    for file in ("g.csv", "rows.csv"):
        captured_fit.clear()
        main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
              "--groups", str(tmp_path / file), "-o", str(tmp_path / "f.nc")])
        np.testing.assert_array_equal(captured_fit["groups"], pairs)
    for flags, given in (([], "near_copies"), (["--groups", "none"], None),
                         (["--groups", "auto"], "auto")):
        captured_fit.clear()
        main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), *flags,
              "-o", str(tmp_path / "f.nc")])
        assert captured_fit["groups"] == given


def test_fit_with_groups_says_so(tmp_path, capsys):
    """A real fit (plug-in, for speed) with --groups prints how many groups its inner folds
    kept whole."""
    X, y = _two_class_files(tmp_path, n=24, p=30)
    pd.DataFrame({"id": X.index, "group": [f"p{i // 2}" for i in range(len(y))]}).to_csv(
        tmp_path / "g.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--groups", str(tmp_path / "g.csv"), "--plugin", "--k-grid", "2,5",
                 "--no-progress", "-o", str(tmp_path / "f.nc")]) == 0
    printed = capsys.readouterr().out
    assert "12 groups kept whole" in printed and "replicates:" not in printed   # not looked for


def test_fit_of_twins_names_the_replicates_and_keeps_near_copies_whole(tmp_path, capsys):
    """A real fit (plug-in) of samples measured twice (near-copies): by default, as with
    --groups auto, the summary says how many samples are in groups far more alike than any
    others, kept whole; with --groups none a warning, and the advice to keep them whole."""
    rng = np.random.default_rng(8)
    y = np.repeat(["a", "b"] * 6, 2)
    own = np.repeat(rng.normal(size=(12, 40)), 2, axis=0) + 0.3 * rng.normal(size=(24, 40))
    X = pd.DataFrame(own + (y == "b")[:, None] * (np.arange(40) < 5),
                     index=[f"s{i}" for i in range(24)], columns=[f"g{j}" for j in range(40)])
    X.to_csv(tmp_path / "X.csv")
    pd.DataFrame({"id": X.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--plugin", "--k-grid", "2,5", "--no-progress", "--groups", "none",
                 "-o", str(tmp_path / "f.nc")]) == 0
    out = capsys.readouterr()
    assert "ReplicateWarning: 24 of the 24 samples form 12 pairs" in out.err
    assert "replicates: 24 of 24 samples in 12 group(s)" in out.out
    assert "not kept whole (--groups none" in out.out
    assert "pass --groups auto or --groups FILE" in out.out
    # by default and with --groups auto: the same pairs kept whole by the inner folds
    for flags in ([], ["--groups", "auto"]):
        assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                     "--plugin", "--k-grid", "2,5", "--no-progress", *flags,
                     "-o", str(tmp_path / "f.nc")]) == 0
        out = capsys.readouterr()
        assert "ReplicateWarning" not in out.err and "12 groups kept whole" in out.out
        assert ("replicates: 24 of 24 samples in 12 group(s) far more alike among themselves "
                "than any others, kept whole by the inner folds") in out.out
        assert "not kept whole" not in out.out
    # independent samples: none, or a chance pair below the share that warns
    X.iloc[1::2] = rng.normal(size=(12, 40))
    X.to_csv(tmp_path / "X.csv")
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--plugin", "--k-grid", "2,5", "--no-progress",
                 "-o", str(tmp_path / "f.nc")]) == 0
    out = capsys.readouterr()
    assert "ReplicateWarning" not in out.err
    assert ("replicates: no samples far more alike" in out.out
            or "too few to warn" in out.out), out.out


def test_fit_group_key_reads_an_obs_column(tmp_path, captured_fit, capsys):
    """--group-key takes the groups from an .h5ad file's obs, as --label-key the labels;
    misuse exits 2 with one line."""
    anndata = pytest.importorskip("anndata")
    X, y = _two_class_files(tmp_path)
    pairs = np.array([f"p{i // 2}" for i in range(len(y))])
    obs = pd.DataFrame({"tissue": y, "patient": pairs,
                        "half": [None if i % 2 else "a" for i in range(len(y))]},
                       index=X.index)
    anndata.AnnData(X=X.to_numpy(), obs=obs,
                    var=pd.DataFrame(index=X.columns)).write_h5ad(tmp_path / "X.h5ad")
    base = ["fit", "--x", str(tmp_path / "X.h5ad"), "--label-key", "tissue", "-o",
            str(tmp_path / "f.nc")]
    main([*base, "--group-key", "patient"])
    np.testing.assert_array_equal(captured_fit["groups"], pairs)
    capsys.readouterr()
    pd.DataFrame({"group": pairs}).to_csv(tmp_path / "g.csv", index=False)
    for extra, expected in ((["--group-key", "donor"], "no obs column 'donor'"),
                            (["--group-key", "patient", "--groups", str(tmp_path / "g.csv")],
                             "give the groups once"),
                            (["--group-key", "patient", "--k", "3"], "--k 3 runs none"),
                            (["--group-key", "half"], "obs column 'half': groups: 6 missing")):
        assert main([*base, *extra]) == 2, extra
        # the last line: reading .h5ad may print anndata's own pandas deprecation warnings
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert last.startswith("selbayes: error: ") and expected in last, extra
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--group-key", "patient", "-o", str(tmp_path / "f.nc")]) == 2
    assert "--group-key applies to .h5ad files" in _one_line_error(capsys)


def test_fit_groups_errors_exit_2_with_one_line(tmp_path, capsys):
    X, y = _two_class_files(tmp_path)
    pairs = pd.DataFrame({"id": X.index, "group": [f"p{i // 2}" for i in range(len(y))]})
    pairs.to_csv(tmp_path / "g.csv", index=False)
    pairs.iloc[:-1].to_csv(tmp_path / "short.csv", index=False)
    base = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
            str(tmp_path / "f.nc")]
    for extra, expected in (
            (["--groups", str(tmp_path / "g.csv"), "--k", "3"], "--k 3 runs none"),
            (["--groups", str(tmp_path / "g.csv"), "--model", "naive-bayes"],
             "--groups applies to the gaussian model only"),
            (["--groups", str(tmp_path / "short.csv")], "sample ids do not match"),
            (["--groups", str(tmp_path / "none.csv")], "no such file")):
        assert main([*base, *extra]) == 2, extra
        assert expected in _one_line_error(capsys), extra
    assert not (tmp_path / "f.nc").exists()


def test_fit_transposes_a_genes_by_samples_x_as_read_xy_does(tmp_path, captured_fit, capsys):
    """selbayes fit and selbayes benchmark read X and labels alike: a genes x samples X whose
    column names are the label file's ids reaches the classifier as samples x genes, with the
    warning printed."""
    X, y = _two_class_files(tmp_path)
    X.T.to_csv(tmp_path / "Xt.csv")
    main(["fit", "--x", str(tmp_path / "Xt.csv"), "--y", str(tmp_path / "y.csv"), "-o",
          str(tmp_path / "f.nc")])
    assert list(captured_fit["X"].columns) == list(X.columns)
    np.testing.assert_array_equal(np.asarray(captured_fit["X"], dtype=float), X.to_numpy())
    np.testing.assert_array_equal(captured_fit["y"], y)
    assert "read as genes x samples (6 genes, 12 samples) and transposed" in \
        capsys.readouterr().err


def test_fit_defaults_and_options_reach_the_classifier(tmp_path, captured_fit, capsys):
    from selbayes.cli import PRIOR_FAMILIES

    _two_class_files(tmp_path)
    base = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
            str(tmp_path / "f.nc")]
    main(base)
    assert captured_fit["params"]["k"] == "auto"                   # the recommended default
    assert captured_fit["params"]["priors"] is None
    assert captured_fit["params"]["effect_prior"] == HierarchicalGaussianClassifier().effect_prior
    main([*base, "--prior", "normal", "--k-grid", "20,5,10", "--k", "auto"])
    assert captured_fit["params"]["effect_prior"] == "normal"
    assert set(PRIOR_FAMILIES) == {"t", "t_auto", "two_groups", "normal"}
    assert captured_fit["params"]["k_grid"] == [5, 10, 20]
    assert captured_fit["params"]["method"] == "mcmc"
    main([*base, "--plugin"])
    assert captured_fit["params"]["method"] == "plugin"
    capsys.readouterr()
    assert main([*base, "--plugin", "--model", "naive-bayes", "--k", "5"]) == 2
    assert "--plugin applies to the gaussian model only" in _one_line_error(capsys)
    assert main([*base, "--floor", "2"]) == 2
    assert "--transform log2" in _one_line_error(capsys)
    assert main([*base, "--k-grid", "5,x"]) == 2
    assert "--k-grid" in _one_line_error(capsys)
    # options that would be ignored are refused, in command-line terms
    assert main([*base, "--mcmc"]) == 2
    assert "--mcmc applies to --model naive-bayes" in _one_line_error(capsys)
    assert main([*base, "--k", "10", "--k-grid", "5,10"]) == 2
    assert "--k-grid applies with --k auto" in _one_line_error(capsys)
    assert main([*base, "--plugin", "--prior", "two_groups"]) == 2
    assert "drop --plugin" in _one_line_error(capsys)


def test_debug_works_after_the_command_too(tmp_path, capsys):
    """The hint "(run with --debug ...)" is followed where users put the flag."""
    _two_class_files(tmp_path)
    argv = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "--mcmc",
            "-o", str(tmp_path / "f.nc")]
    assert main(argv) == 2
    assert "(run with --debug for the traceback)" in _one_line_error(capsys)
    for debug_argv in (["--debug", *argv], [*argv, "--debug"]):
        with pytest.raises(Exception, match="--mcmc applies"):
            main(debug_argv)


def test_raw_intensity_advice_is_given_in_command_line_terms(capsys):
    from selbayes.cli import _warning_printer
    from selbayes.preprocessing import RawIntensityWarning

    _warning_printer("fit")(RawIntensityWarning("X looks like raw intensities"),
                            RawIntensityWarning, "f.py", 1)
    assert "--transform log2 --floor 1" in capsys.readouterr().err
    _warning_printer("predict")(RawIntensityWarning("X looks like raw intensities"),
                                RawIntensityWarning, "f.py", 1)
    assert "--transform" not in capsys.readouterr().err


def test_a_plugin_fit_runs_and_says_what_it_is(tmp_path, capsys):
    """No sampler runs, so the real fit is quick; the summary says why there is no R-hat."""
    _two_class_files(tmp_path)
    out = tmp_path / "plugin.nc"
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--k", "5", "--plugin", "--no-progress", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "diagnostics: none (plug-in" in text and out.is_file()
    assert "degrees of freedom (chosen by the data)" in text     # the default, t_auto
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--k", "5", "--plugin", "--prior", "t", "--no-progress",
                 "-o", str(out)]) == 0
    assert "t prior:" not in capsys.readouterr().out     # df fixed at 2: nothing was chosen
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--k", "5", "--plugin", "--prior", "auto", "--no-progress",
                 "-o", str(out)]) == 0
    assert ("prior on the class means: " in (text := capsys.readouterr().out)
            and "(chosen by inner CV from t (df = 1), t (df = 2), t (df = 4), normal)" in text)


def _raw_intensity_files(tmp_path) -> pd.DataFrame:
    """raw.csv (20 samples x 30 genes of log-normal intensities, no ids) and y.csv (one
    column of labels); returns the intensities."""
    rng = np.random.default_rng(2)
    raw = pd.DataFrame(rng.lognormal(6, 1.5, size=(20, 30)),
                       columns=[f"g{j}" for j in range(30)])
    raw.to_csv(tmp_path / "raw.csv", index=False)
    pd.DataFrame({"label": np.repeat(["a", "b"], 10)}).to_csv(tmp_path / "y.csv", index=False)
    return raw


def test_log2_on_intensities_transforms_and_on_z_scores_warns(tmp_path, captured_fit, capsys):
    raw = _raw_intensity_files(tmp_path)
    main(["fit", "--x", str(tmp_path / "raw.csv"), "--y", str(tmp_path / "y.csv"),
          "--transform", "log2", "--floor", "1", "-o", str(tmp_path / "f.nc")])
    np.testing.assert_allclose(captured_fit["X"].to_numpy(),
                               np.log2(np.clip(raw.to_numpy(), 1, None)), rtol=1e-12)
    assert "Log2InputWarning" not in capsys.readouterr().err
    z = (raw - raw.mean()) / raw.std()
    z.to_csv(tmp_path / "z.csv", index=False)
    main(["fit", "--x", str(tmp_path / "z.csv"), "--y", str(tmp_path / "y.csv"),
          "--transform", "log2", "-o", str(tmp_path / "f.nc")])
    err = capsys.readouterr().err
    # the warning names the command and the file, not a Python source line
    assert "selbayes fit: Log2InputWarning: " in err and "z.csv" in err
    assert "do not look like intensities" in err and "--transform none" in err
    assert "sys.exit" not in err and "warnings.warn" not in err


def test_fit_transform_auto_logs_raw_intensities_as_the_benchmark_does(tmp_path,
                                                                       captured_fit, capsys):
    """By default (--transform auto) values that look like raw intensities are fitted as
    log2 floored at 1, and the command says so; --transform none keeps them; values that do
    not look raw are fitted as given, without a word; the binary models are never logged."""
    raw = _raw_intensity_files(tmp_path)
    base = ["fit", "--y", str(tmp_path / "y.csv"), "-o", str(tmp_path / "f.nc")]
    main([*base, "--x", str(tmp_path / "raw.csv")])
    np.testing.assert_allclose(captured_fit["X"].to_numpy(),
                               np.log2(np.clip(raw.to_numpy(), 1, None)), rtol=1e-12)
    assert "the values look like raw intensities: fitting log2 of them, floored at 1" in \
        capsys.readouterr().err
    (raw / 1000).to_csv(tmp_path / "thousands.csv", index=False)   # other units: own floor
    main([*base, "--x", str(tmp_path / "thousands.csv")])
    floor = np.quantile(raw.to_numpy() / 1000, 0.1)
    assert floor < 1
    np.testing.assert_allclose(captured_fit["X"].to_numpy(),
                               np.log2(np.clip(raw.to_numpy() / 1000, floor, None)), rtol=1e-9)
    assert f"floored at {floor:.3g} (the 10th percentile" in capsys.readouterr().err
    main([*base, "--x", str(tmp_path / "raw.csv"), "--transform", "none"])
    np.testing.assert_array_equal(captured_fit["X"].to_numpy(), raw.to_numpy())
    assert "fitting log2" not in capsys.readouterr().err
    logged = np.log2(raw)
    logged.to_csv(tmp_path / "logged.csv", index=False)
    main([*base, "--x", str(tmp_path / "logged.csv")])
    np.testing.assert_allclose(captured_fit["X"].to_numpy(), logged.to_numpy(), rtol=1e-12)
    assert "log2" not in capsys.readouterr().err
    main([*base, "--x", str(tmp_path / "raw.csv"), "--floor", "2"])
    assert "--floor/--ceiling need --transform log2" in _one_line_error(capsys)
    # a binary model with the default: no transform (and the binary check speaks)
    main([*base, "--x", str(tmp_path / "raw.csv"), "--model", "naive-bayes"])
    err = capsys.readouterr().err
    assert "fitting log2" not in err and "needs binary (0/1) values" in err


def test_log2_by_the_cli_silences_the_fits_raw_intensity_check(tmp_path, monkeypatch,
                                                                capsys):
    """Data the command logged itself are not called raw intensities by the fit (the audit
    saw both warnings, the second saying 'inf x the median'); the check itself no longer
    calls them raw (zeros are left out of its statistics)."""
    from selbayes.estimators import HierarchicalGaussianClassifier
    from selbayes.preprocessing._intensity import RawIntensityWarning, warn_if_raw_intensities

    def fake_fit(self, X, y, groups=None):
        warn_if_raw_intensities(np.asarray(X))
        raise _Stop("stopped by the test")

    monkeypatch.setattr(HierarchicalGaussianClassifier, "fit", fake_fit)
    rng = np.random.default_rng(4)
    # z-scores: logged with the floor 1 they are mostly 0 with a right tail, which the
    # fit's check read as raw intensities while it counted the zeros
    z = pd.DataFrame(rng.standard_normal((20, 30)), columns=[f"g{j}" for j in range(30)])
    z.to_csv(tmp_path / "z.csv", index=False)
    pd.DataFrame({"label": np.repeat(["a", "b"], 10)}).to_csv(tmp_path / "y.csv", index=False)
    main(["fit", "--x", str(tmp_path / "z.csv"), "--y", str(tmp_path / "y.csv"),
          "--transform", "log2", "-o", str(tmp_path / "f.nc")])
    err = capsys.readouterr().err
    assert "Log2InputWarning" in err and "RawIntensityWarning" not in err
    with warnings.catch_warnings():
        warnings.simplefilter("error", RawIntensityWarning)
        assert not warn_if_raw_intensities(np.log2(np.clip(z.to_numpy(), 1, None)))


def test_warnings_name_the_command_not_a_source_line(tmp_path, monkeypatch, capsys):
    from selbayes.estimators import HierarchicalGaussianClassifier
    from selbayes.evaluation import warn_from_user_line

    def fake_fit(self, X, y, groups=None):
        warn_from_user_line("gamma = np.float64(2.5) looks odd", UserWarning)
        raise _Stop("stopped")

    monkeypatch.setattr(HierarchicalGaussianClassifier, "fit", fake_fit)
    _two_class_files(tmp_path)
    main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
          str(tmp_path / "f.nc")])
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "selbayes fit: UserWarning: gamma = 2.5 looks odd"


@pytest.mark.parametrize("content, expect", [
    ("", "is empty"),
    ("g1,g1,g2\n1,2,3\n4,5,6\n", "duplicated gene name(s): 'g1'"),
    ("id,g1,g2\ns1,1,\ns2,3,4\n", "missing value(s) in 1 gene(s) ('g2')"),
    ("id,g1,g2\ns1,1,abc\ns2,3,4\n", "non-numeric gene column(s): 'g2'"),
])
def test_bad_matrix_files_exit_2_naming_file_and_gene(tmp_path, capsys, content, expect):
    (tmp_path / "X.csv").write_text(content)
    pd.DataFrame({"label": ["a", "b"]}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "X.csv" in line and expect in line
    assert "No columns to parse" not in line and "position" not in line


def test_duplicated_gene_names_alike_in_cli_and_read_table(tmp_path, capsys):
    from selbayes.datasets import read_table

    (tmp_path / "X.csv").write_text("label,g1,g1,g2\na,1,2,3\na,2,2,3\nb,4,5,6\nb,4,5,7\n")
    with pytest.raises(ValueError, match=r"1 duplicated gene name\(s\): 'g1'"):
        read_table(tmp_path / "X.csv", label_column="label")
    (tmp_path / "Xcli.csv").write_text("id,g1,g1,g2\ns1,1,2,3\ns2,2,2,3\n")
    pd.DataFrame({"label": ["a", "b"]}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "Xcli.csv"), "--y", str(tmp_path / "y.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    assert "1 duplicated gene name(s): 'g1'" in _one_line_error(capsys)


def test_h5ad_without_anndata_exits_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "X.h5ad").write_bytes(b"not really")
    monkeypatch.setitem(sys.modules, "anndata", None)          # import anndata fails
    assert main(["fit", "--x", str(tmp_path / "X.h5ad"), "--label-key", "cell_type",
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "X.h5ad" in line and "anndata" in line and "pip install" in line


def test_output_paths_errors_are_sentences(tmp_path, capsys):
    (tmp_path / "not_a_fit.nc").write_text("hello")
    pd.DataFrame({"g": [1.0]}).to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", str(tmp_path / "not_a_fit.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p.csv")]) == 2
    line = _one_line_error(capsys)
    assert "not_a_fit.nc" in line and "o_flags" not in line and "errno" not in line
    # an output folder that cannot be created (a file is in the way)
    (tmp_path / "blocker").write_text("x")
    _two_class_files(tmp_path)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
                 str(tmp_path / "blocker" / "sub" / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "blocker" in line and "o_flags" not in line


def test_plain_message_drops_numpy_reprs():
    from selbayes.cli import _error_line, plain_message

    assert plain_message("np.float64(0.25) and np.int64(3)") == "0.25 and 3"
    assert _error_line(ValueError("k = np.int64(3)\nsecond line")) == "k = 3"


@pytest.mark.filterwarnings("ignore:MCMC diagnostics failed")
@pytest.mark.parametrize("with_names", [True, False])
def test_predict_accepts_a_save_from_python(tmp_path, capsys, with_names):
    """A file from clf.save() (no CLI attributes) predicts as the Python object does; a fit on
    an array takes the columns in file order, and says so."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = _two_class_files(tmp_path, n=20, p=12)
    clf = HierarchicalGaussianClassifier(k=10, draws=100, tune=100, chains=1, random_state=0,
                                         progressbar=False)
    clf.fit(X if with_names else X.to_numpy(), y)
    clf.save(tmp_path / "py.nc")
    new = X.iloc[:5]
    (new[new.columns[::-1]] if with_names else new).to_csv(tmp_path / "new.csv")
    assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p.csv")]) == 0
    got = pd.read_csv(tmp_path / "p.csv", index_col=0)
    want = clf.predict_proba(new if with_names else new.to_numpy())
    np.testing.assert_array_equal(got.to_numpy(), want)
    assert list(got.index) == list(new.index)
    assert ("file order" in capsys.readouterr().err) is (not with_names)
    if with_names:                     # genes as rows: the error says the file is transposed
        new.T.to_csv(tmp_path / "new_t.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new_t.csv"),
                     "-o", str(tmp_path / "p_t.csv")]) == 2
        assert "is the file transposed?" in _one_line_error(capsys)
        # genes the fit did not see are ignored, with a note
        new.assign(extra_gene=1.0).to_csv(tmp_path / "new_x.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new_x.csv"),
                     "-o", str(tmp_path / "p_x.csv")]) == 0
        assert "1 column(s) of" in capsys.readouterr().err
        np.testing.assert_array_equal(pd.read_csv(tmp_path / "p_x.csv", index_col=0), want)


def test_dir_of_selbayes_lists_the_lazy_public_names():
    import selbayes

    names = dir(selbayes)
    assert set(selbayes.__all__) <= set(names)
    assert {"HierarchicalGaussianClassifier", "cross_validate", "datasets"} <= set(names)
    for name in selbayes.__all__:             # every listed name resolves
        assert getattr(selbayes, name) is not None


# --------------------------------------------------------------- reproductions and reports/
@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                    reason="git not installed")
def test_rerunning_a_reproduction_leaves_committed_reports_alone(tmp_path, monkeypatch,
                                                                  capsys):
    """A quick reproduction run twice from a checkout: nothing under reports/ changes (the
    default output is selbayes_runs/), the second run says it resumes; --update-report writes
    into reports/ only when asked: the reports/ of the spec's project, from any folder."""
    import shutil

    name = "li2007_naive_bayes_simulation"
    spec = tmp_path / "models" / "experiments" / f"{name}.toml"   # a checkout of its own
    spec.parent.mkdir(parents=True)
    shutil.copy(ROOT / "models" / "experiments" / f"{name}.toml", spec)
    monkeypatch.chdir(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    committed = tmp_path / "reports" / f"{name}_quick" / "report.md"
    committed.parent.mkdir(parents=True)
    committed.write_text("# committed report\n\nA hand-written paragraph.\n")
    subprocess.run([*git, "add", "reports"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "reports"], check=True)

    for _ in range(2):
        assert main(["reproduce", str(spec), "--quick", "--no-progress"]) in (0, 1)
    out = capsys.readouterr().out
    assert f"report: {Path('selbayes_runs') / (name + '_quick') / 'report.md'}" in out
    assert "resuming: " in out and " fits found in selbayes_runs" in out
    n_found, n_total = out.split("resuming: ")[1].split(" fits")[0].split(" of ")
    assert n_found == n_total                      # every fit of the first run was reused
    status = subprocess.run(["git", "status", "--porcelain", "reports/"], capture_output=True,
                            text=True, check=True).stdout
    assert status == ""
    assert "hand-written" in committed.read_text()
    # asked explicitly, from another folder: the report in the spec's reports/ is regenerated
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["reproduce", str(spec), "--quick", "--no-progress", "--update-report"]) \
        in (0, 1)
    assert "hand-written" not in committed.read_text()
    assert not (elsewhere / "reports").exists()
    # a spec outside a checkout's models/ has no committed report to update: one line, exit 2
    loose = elsewhere / f"{name}.toml"
    shutil.copy(spec, loose)
    capsys.readouterr()
    assert main(["reproduce", str(loose), "--quick", "--no-progress", "--update-report"]) == 2
    err = capsys.readouterr().err
    assert "give --out" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit):                # --out and --update-report exclude
        build_parser().parse_args(["reproduce", str(spec), "--out", "o", "--update-report"])


def test_a_killed_worker_exits_1_with_one_line_and_no_traceback(monkeypatch, capsys):
    from selbayes._parallel import WorkerKilledError
    from selbayes.benchmark import _cli as bench_cli

    def killed(args):
        raise WorkerKilledError("a worker process was killed by the operating system")

    monkeypatch.setattr(bench_cli, "run", killed)
    assert main(["benchmark", "golub", "--methods", "selbayes", "--out", "unused"]) == 1
    assert "killed by the operating system" in _one_line_error(capsys)


def test_fit_summary_shows_marker_probabilities_and_one_parenthesis():
    """The two-groups prior's P(real marker) of the kept genes is printed (it was available in
    Python only); the label-noise line has one parenthetical."""
    from types import SimpleNamespace as NS

    from selbayes.cli import _fit_summary

    clf = NS(selection_=NS(indices=np.array([2, 0]), statistic="f", threshold=3.5),
             selected_features_=np.array(["g2", "g0"]), k="auto", k_choice_=None,
             prior_choice_=None, t_df_=None, temperature_=1.0, label_noise="cv",
             label_noise_=0.02, marker_probabilities_=np.array([0.97, 0.41]),
             diagnostics_=None, method="plugin")
    lines = _fit_summary(clf, NS(model="gaussian"), np.zeros((6, 5)), ["a"] * 3 + ["b"] * 3)
    assert "P(real marker), two-groups prior: g2 0.97, g0 0.41" in lines
    noise = next(line for line in lines if line.startswith("label noise"))
    assert noise.count("(") == 1 and "share chosen by inner CV" in noise


def test_fit_linear_stack_round_trip_and_its_refusals(tmp_path, capsys):
    """`selbayes fit --linear-stack` (plug-in, for speed) fits LinearStackedClassifier, says its
    weights and the L1 model's gate, and `selbayes predict` gives its predict_proba;
    --l1-gate off fits the two-model stack; without the flag (k auto) it is
    the same fit, and --no-linear-stack fits the Gaussian model alone; three classes fit
    (nested dichotomies); --k N with the flag is refused with a line that names the
    problem."""

    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators import LinearStackedClassifier

    rng = np.random.default_rng(4)
    n, p = 40, 60
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p)) + (y == "b")[:, None] * np.r_[np.ones(5), np.zeros(p - 5)]
    names = [f"gene{j}" for j in range(p)]
    frame = pd.DataFrame(X, columns=names, index=pd.Index([f"s{i}" for i in range(n)],
                                                          name="sample"))
    frame.to_csv(tmp_path / "X.csv", float_format="%.17g")
    pd.DataFrame({"id": frame.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    common = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
              "--plugin", "--k-grid", "5,20", "--seed", "3", "--no-progress"]
    assert main([*common, "--linear-stack", "-o", str(tmp_path / "stack.nc")]) == 0
    printed = capsys.readouterr().out
    assert "stacked with a Bayesian probit regression of all 60 features: weights" in printed
    assert "inner predictions: refitted on each inner fold" in printed
    assert "k: " in printed and "saved:" in printed
    again = LinearStackedClassifier.load(tmp_path / "stack.nc")
    want = LinearStackedClassifier(HierarchicalGaussianClassifier(
        k_grid=(5, 20), method="plugin", random_state=3, progressbar=False)).fit(
        frame.to_numpy(), y)
    np.testing.assert_array_equal(again.weights_, want.weights_)
    frame.iloc[:5].to_csv(tmp_path / "new.csv", float_format="%.17g")
    assert main(["predict", str(tmp_path / "stack.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p.csv")]) == 0
    got = pd.read_csv(tmp_path / "p.csv", index_col=0)
    np.testing.assert_allclose(got.to_numpy()[:, -2:], want.predict_proba(X[:5]), rtol=1e-9)

    # the default, with k auto: the same stack; --no-linear-stack: the Gaussian model alone
    assert main([*common, "-o", str(tmp_path / "default.nc")]) == 0
    assert "stacked with a Bayesian probit regression" in capsys.readouterr().out
    np.testing.assert_array_equal(
        LinearStackedClassifier.load(tmp_path / "default.nc").weights_, want.weights_)
    assert main([*common, "--no-linear-stack", "-o", str(tmp_path / "alone.nc")]) == 0
    assert "stacked with" not in capsys.readouterr().out
    alone = HierarchicalGaussianClassifier.load(tmp_path / "alone.nc")
    np.testing.assert_array_equal(alone.predict_proba(X[:5]),
                                  want.estimator_.predict_proba(X[:5]))

    # --inner-predictive plugin: the stack weighted on the inner CV's plug-in predictions
    assert main([*common, "--inner-predictive", "plugin", "-o", str(tmp_path / "pi.nc")]) == 0
    assert "inner predictions: the inner cross-validation's plug-in" in capsys.readouterr().out
    plug = LinearStackedClassifier.load(tmp_path / "pi.nc")
    assert plug.inner_predictive == "plugin"
    # the same Gaussian and linear fits as `want`; the Gaussian model's inner cases scored by
    # the inner cross-validation's plug-in predictive instead of refits
    np.testing.assert_array_equal(plug.inner_log_proba_[0],
                                  want.estimator_.k_choice_._chosen_case_log_proba())
    np.testing.assert_array_equal(plug.inner_log_proba_[1:], want.inner_log_proba_[1:])

    # the L1 model's gate: reported by default; --l1-gate off: the two-model stack
    assert "L1 logistic regression: inner log loss" in printed
    assert main([*common, "--l1-gate", "off", "-o", str(tmp_path / "two.nc")]) == 0
    assert "L1 logistic regression" not in capsys.readouterr().out
    two = LinearStackedClassifier.load(tmp_path / "two.nc")
    assert two.l1_gate is None and two.weights_.size == 2
    # the gate stayed closed in `want` (its line says "not in the stack"), so its weights are
    # the two-model stack's with L1 at 0
    assert not want.l1_gate_["open"] and want.weights_[2] == 0
    np.testing.assert_array_equal(two.weights_, want.weights_[:2])
    assert main([*common, "--l1-gate=-1e9", "-o", str(tmp_path / "open.nc")]) == 0
    printed = capsys.readouterr().out
    assert "against the gate's -1e+09: " in printed and "not in the stack" not in printed
    assert LinearStackedClassifier.load(tmp_path / "open.nc").l1_gate_["open"]
    with pytest.raises(SystemExit):                 # argparse's usage error, exit 2
        main([*common, "--l1-gate", "high", "-o", str(tmp_path / "x.nc")])
    assert "must be a number or 'off'; got 'high'" in capsys.readouterr().err

    no_grid = [c for c in common if c not in ("--k-grid", "5,20")]
    assert main([*no_grid, "--linear-stack", "--k", "10", "-o", str(tmp_path / "x.nc")]) == 2
    assert "--linear-stack needs --k auto" in capsys.readouterr().err
    for argv in (["--k", "10"], ["--no-linear-stack"]):
        for flag in (["--inner-predictive", "plugin"], ["--l1-gate", "3"]):
            assert main([*no_grid, *argv, *flag, "-o", str(tmp_path / "x.nc")]) == 2
            assert f"{flag[0]} chooses how the stack is fitted; without the stack" in (
                capsys.readouterr().err)
    pd.DataFrame({"id": frame.index, "label": np.resize(["a", "b", "c"], n)}).to_csv(
        tmp_path / "y3.csv", index=False)
    three = [c if c != str(tmp_path / "y.csv") else str(tmp_path / "y3.csv") for c in common]
    assert main([*three, "--linear-stack", "-o", str(tmp_path / "three.nc")]) == 0
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "three.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p3.csv")]) == 0
    got = pd.read_csv(tmp_path / "p3.csv", index_col=0)
    np.testing.assert_allclose(got.to_numpy()[:, -3:].astype(float).sum(axis=1), 1.0,
                               atol=1e-9)
    for flag in ("--linear-stack", "--no-linear-stack"):
        assert main([*common[:5], "--model", "naive-bayes", flag, "-o",
                     str(tmp_path / "x.nc")]) == 2
        assert "gaussian model only" in capsys.readouterr().err


def test_fit_names_training_labels_its_inner_cv_contradicts(tmp_path, capsys):
    """Two labels exchanged among cases that eight strong markers (3.5 SD) separate: the fit
    summary names both sample ids in its labels line, and the SuspectLabelWarning is
    printed (selbayes.evaluation._label_check)."""
    rng = np.random.default_rng(3)
    n, p = 60, 200
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p)) + 3.5 * (y == "b")[:, None] * (np.arange(p) < 8)
    y[[5, 40]] = y[[40, 5]]
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)],
                         index=pd.Index([f"s{i}" for i in range(n)], name="sample"))
    frame.to_csv(tmp_path / "X.csv")
    pd.DataFrame({"id": frame.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--plugin", "--no-linear-stack", "--k-grid", "2,5,20", "--seed", "0",
                 "--no-progress", "-o", str(tmp_path / "fit.nc")]) == 0
    out, err = capsys.readouterr()
    line = next(t for t in out.splitlines() if t.startswith("labels:"))
    assert line.startswith("labels: 2 contradicted") and "s5" in line and "s40" in line
    assert "selbayes fit: SuspectLabelWarning: 2 of 60 training cases" in err
