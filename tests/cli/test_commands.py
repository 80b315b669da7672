"""The commands ``reproduce``, ``sbc``, ``cache`` (``selbayes.cli._commands``) and
``benchmark`` (registered by ``selbayes.benchmark._cli``): exit statuses, verdicts, where the
output goes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from selbayes.cli import build_parser, main

from ._helpers import ROOT, _one_line_error, _two_class_files


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


def test_cache_info_and_clear(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SELBAYES_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache" / "models").mkdir(parents=True)
    (tmp_path / "cache" / "models" / "abc-logp.nbc").write_bytes(b"x" * 10)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "cache") in out and "compiled models: 1" in out
    assert main(["cache", "clear"]) == 0
    assert not (tmp_path / "cache" / "models").exists()


def test_cache_clear_removes_only_selbayes_own_folders(tmp_path, monkeypatch, capsys):
    """SELBAYES_CACHE_DIR may name a folder with other things in it (~/.cache, a project's
    folder): `cache clear` removed everything there; now only selbayes's own folders go, and
    one of their names that holds anything else (a project's own models/) is left whole;
    `cache info` counts only selbayes's and names the rest. A file named as the folder is one
    line."""
    from selbayes import _compile_cache as cc

    root = tmp_path / "shared"
    monkeypatch.setenv("SELBAYES_CACHE_DIR", str(root))
    for own in ("models/abc-logp.nbc", "models/abc-meta.pkl", "pytensor/compiledir_x/a.so",
                "pytensor/numba/b.nbi", "generated_src/m01.py", "locks/a.lock"):
        (root / own).parent.mkdir(parents=True, exist_ok=True)
        (root / own).write_bytes(b"x" * 10)
    (root / "mydata").mkdir()
    (root / "mydata" / "keep.txt").write_text("important")
    (root / "notes.txt").write_text("mine")
    info = cc.cache_info()
    assert info["bytes"] == 60 and info["models"] == 1 and info["other"] == ["mydata",
                                                                              "notes.txt"]
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "not selbayes's (left alone by 'cache clear'): mydata, notes.txt" in out
    assert main(["cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert "removed 6 files" in out and "left alone, not selbayes's: mydata, notes.txt" in out
    assert sorted(p.name for p in root.iterdir()) == ["mydata", "notes.txt"]
    assert (root / "mydata" / "keep.txt").read_text() == "important"

    # a project's own models/ beside selbayes's entries: not selbayes's alone, left whole
    (root / "models").mkdir()
    (root / "models" / "abc-logp.nbc").write_bytes(b"x")
    (root / "models" / "classifier.pkl").write_bytes(b"mine")
    assert "models/ (not only selbayes's)" in cc.cache_info()["other"]
    assert cc.clear_cache() == 0 and (root / "models" / "classifier.pkl").read_bytes() == b"mine"

    monkeypatch.setenv("SELBAYES_CACHE_DIR", str(root / "notes.txt"))
    for action in ("info", "clear"):
        assert main(["cache", action]) == 2
        err = capsys.readouterr().err
        assert "notes.txt is a file, not a folder: point SELBAYES_CACHE_DIR to a folder" in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


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


@pytest.mark.parametrize("command, spec", [
    ("sbc", ROOT / "models" / "sbc" / "sbc_naive_bayes_small.toml"),
    ("reproduce", ROOT / "models" / "experiments" / "li2007_naive_bayes_simulation.toml"),
])
def test_out_that_is_a_file_exits_2_naming_it(command, spec, tmp_path, capsys):
    """--out naming a file was a traceback ending in pathlib's FileExistsError or
    NotADirectoryError (of a subfolder the user never gave), exit status 1."""
    out = tmp_path / "a_file"
    out.write_text("")
    assert main([command, str(spec), "--quick", "--out", str(out)]) == 2
    assert "a_file" in _one_line_error(capsys)
    assert out.read_text() == ""
