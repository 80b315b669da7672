"""The command line as a tool: exit statuses, one-line errors, verdicts, fit/predict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

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
    import selbayes.sbc.gaussian as sm

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


@pytest.mark.filterwarnings("ignore:MCMC diagnostics failed")
def test_fit_predict_round_trip_is_bit_for_bit(tmp_path, monkeypatch):
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
    pd.DataFrame({"label": y}).to_csv(tmp_path / "y.csv", index=False)
    new = pd.DataFrame(rng.normal(size=(7, p)), columns=names)
    # columns in another order: predict must align them by name
    new[names[::-1]].to_csv(tmp_path / "new.tsv", sep="\t", index=False, float_format="%.17g")

    settings = ["--k", "4", "--seed", "11", "--draws", "150", "--tune", "150", "--chains", "2"]
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 *settings, "--no-progress", "-o", str(tmp_path / "fit.nc")]) == 0
    assert main(["predict", str(tmp_path / "fit.nc"), "--x", str(tmp_path / "new.tsv"),
                 "-o", str(tmp_path / "proba.csv")]) == 0
    got = pd.read_csv(tmp_path / "proba.csv", index_col=0)

    clf = HierarchicalGaussianClassifier(k=4, random_state=11, draws=150, tune=150, chains=2,
                                         progressbar=False)
    clf.fit(pd.read_csv(tmp_path / "X.csv", index_col=0).to_numpy(), y)
    want = clf.predict_proba(new.to_numpy())
    assert list(got.columns) == ["a", "b"]
    np.testing.assert_array_equal(got.to_numpy(), want)


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
    import selbayes.sbc.gaussian as sm

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
    import selbayes.sbc.core as sbc
    from selbayes.sbc.gaussian import run_sbc_spec

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
    from selbayes.cli import _read_matrix

    frame = pd.DataFrame(np.arange(6.0).reshape(3, 2), columns=["g1", "g2"],
                         index=["s1", "s2", "s3"])
    frame.to_csv(tmp_path / "x.csv")
    X, _ = _read_matrix(str(tmp_path / "x.csv"))
    assert list(X.index) == ["s1", "s2", "s3"] and X.index.name is None
    assert list(X.columns) == ["g1", "g2"]
