"""The argument parser (``selbayes.cli._parser``): choices, and --debug where users put it."""

from __future__ import annotations

import pytest

from selbayes.cli import build_parser, main

from ._helpers import _one_line_error, _two_class_files


def test_demo_data_choices_have_no_none():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--data", "None"])
    assert build_parser().parse_args(["demo"]).data == "simulated"


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
