"""Errors and warnings on the command line (``selbayes.cli._errors`` and ``main``): one line
and exit status 2 for a user error, the traceback with --debug, warnings naming the command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from selbayes.cli import main

from ._helpers import ROOT, _one_line_error, _Stop, _two_class_files


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


def test_raw_intensity_advice_is_given_in_command_line_terms(capsys):
    from selbayes.cli._errors import _warning_printer
    from selbayes.preprocessing import RawIntensityWarning

    _warning_printer("fit")(RawIntensityWarning("X looks like raw intensities"),
                            RawIntensityWarning, "f.py", 1)
    assert "--transform log2 --floor 1" in capsys.readouterr().err
    _warning_printer("predict")(RawIntensityWarning("X looks like raw intensities"),
                                RawIntensityWarning, "f.py", 1)
    assert "--transform" not in capsys.readouterr().err


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


def test_plain_message_drops_numpy_reprs():
    from selbayes.cli._errors import _error_line, plain_message

    assert plain_message("np.float64(0.25) and np.int64(3)") == "0.25 and 3"
    assert _error_line(ValueError("k = np.int64(3)\nsecond line")) == "k = 3"


def test_a_killed_worker_exits_1_with_one_line_and_no_traceback(monkeypatch, capsys):
    from selbayes._parallel import WorkerKilledError
    from selbayes.benchmark import _cli as bench_cli

    def killed(args):
        raise WorkerKilledError("a worker process was killed by the operating system")

    monkeypatch.setattr(bench_cli, "run", killed)
    assert main(["benchmark", "golub", "--methods", "selbayes", "--out", "unused"]) == 1
    assert "killed by the operating system" in _one_line_error(capsys)


def test_ctrl_c_and_sigterm_stop_with_one_line_and_status_130(monkeypatch, capsys, tmp_path):
    """Ctrl-C printed the traceback of wherever the fit was (83 lines inside scipy); now one
    line that says whether the command resumes. SIGTERM (kill PID) stops a command the same
    way, so that joblib's pool is unwound (its workers were left running, then idle), and
    main() gives the process its SIGTERM handler back."""
    import os
    import signal

    from selbayes.benchmark import _cli as bench_cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench_cli, "run", interrupted)
    before = signal.getsignal(signal.SIGTERM)
    assert main(["benchmark", "golub", "--methods", "selbayes", "--out", "unused"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == ("selbayes benchmark: interrupted (the fits that finished are kept "
                           "in its output folder: the same command resumes from them)")

    def terminated(args):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the command")

    monkeypatch.setattr(bench_cli, "run", terminated)
    assert main(["benchmark", "golub", "--methods", "selbayes", "--out", "unused"]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) is before
    with pytest.raises(KeyboardInterrupt):                  # --debug: the traceback
        main(["--debug", "benchmark", "golub", "--methods", "selbayes", "--out", "unused"])
