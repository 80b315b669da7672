"""Rewrite a results file while keeping the hand-written reading after its table.

A benchmark rewrites its results file after every row (a run stopped early keeps what it
measured); the section from ``heading`` on is written by hand once the numbers are in, and a
rerun must not lose it. :func:`run_line` and :func:`write_results` are the provenance line and
the closing lines that the results files share.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
import time
from pathlib import Path

NOTES_HEADING = "## Notes"


def write_keeping_notes(out: Path, lines: list[str], heading: str = NOTES_HEADING) -> None:
    """Write ``lines`` to ``out``, followed by the section of the old file from ``heading`` on
    (if the old file has one)."""
    _, sep, notes = (out.read_text() if out.is_file() else "").partition(heading)
    out.write_text("\n".join(lines) + "\n" + ("\n" + sep + notes if sep else ""))


def run_line(command: str, t_start: float) -> str:
    """How, when and where the results were measured: the command, the time (UTC), selbayes's
    version, the machine, its cores and load average, and the seconds since ``t_start``
    (``time.perf_counter()``)."""
    from selbayes import __version__

    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"`{command}`, {now}, selbayes {__version__}, {platform.machine()}, "
            f"{os.cpu_count()} cores, load average at the end {os.getloadavg()[0]:.1f}; "
            f"{time.perf_counter() - t_start:.0f} s in all.")


def write_results(out: Path, lines: list[str]) -> None:
    """``lines`` and the Python version written to ``out`` (:func:`write_keeping_notes`), and
    the path printed."""
    write_keeping_notes(out, [*lines, "", "Python " + sys.version.split()[0]])
    print(out)
