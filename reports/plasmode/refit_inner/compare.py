"""The rules of README.md (written before the run, with this script): ``refit`` against
``linear_pool`` (the current stack; its rows, and L2's, as ``../log_pool/compare.py`` reads
them), R1-R3.

Usage (from the repository root): ``python reports/plasmode/refit_inner/compare.py``; writes
``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences, rule 1)


def _log_pool_compare():
    return offline.load_script(HERE.parent / "log_pool" / "compare.py", "log_pool_compare")


def main() -> None:
    lp = _log_pool_compare()
    rows = lp.all_rows()
    if (HERE / "results.jsonl").exists():
        rows.update(paired.read_rows(HERE / "results.jsonl"))
    have = {s for (m, s, _) in rows if m == "refit"}
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == "refit" and ss == s) for s in have}
    groups = (("R1, the suite", lp.SUITE), ("R2, the held-out X", lp.HOLDOUT),
              ("R3, three classes", lp.THREE_CLASS))
    complete = all(len(reps_of.get(s, [])) == 6 for _, g in groups for s in g)
    shown = [lp.L2, "default", "linear_pool", "refit"]
    out = ["# The stack's weights fitted on the MCMC predictive of refitted inner folds", "",
           "Made by `compare.py` (README.md: the rules, written before the run). Mean over "
           "replicates; for `refit` also the paired difference refit - linear_pool ± SE "
           "(* beyond 2 SE).", ""]
    if not complete:
        out += ["**INCOMPLETE run**: not every scenario has six replicates; the verdicts "
                "below cover the scenarios run so far.", ""]
    lines, verdicts = lp.rule_sections(rows, "refit", "linear_pool", groups, reps_of, shown)
    out += lines
    out += lp.verdict_lines(verdicts, complete, "R1-R3 pass: run R4, the development sets.",
                            "Not all of R1-R3 pass: the plug-in inner predictive stays.")
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
