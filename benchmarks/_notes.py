"""Rewrite a results file while keeping the hand-written reading after its table.

A benchmark rewrites its results file after every row (a run stopped early keeps what it
measured); the section from ``heading`` on is written by hand once the numbers are in, and a
rerun must not lose it.
"""

from __future__ import annotations

from pathlib import Path

NOTES_HEADING = "## Notes"


def write_keeping_notes(out: Path, lines: list[str], heading: str = NOTES_HEADING) -> None:
    """Write ``lines`` to ``out``, followed by the section of the old file from ``heading`` on
    (if the old file has one)."""
    _, sep, notes = (out.read_text() if out.is_file() else "").partition(heading)
    out.write_text("\n".join(lines) + "\n" + ("\n" + sep + notes if sep else ""))
