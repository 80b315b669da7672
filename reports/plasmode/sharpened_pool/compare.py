"""The rules of README.md (written before the run, with this script): ``sharpened`` against
``linear_refit`` (the default, scored from the same fits), S1-S3; and whether ``linear_refit``
reproduces the default's committed rows (``../refit_inner/results.jsonl``, method ``refit``).

Usage (from the repository root): ``python reports/plasmode/sharpened_pool/compare.py``; writes
``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report, load_script)


def main() -> None:
    lp = offline.load_script(HERE.parent / "log_pool" / "compare.py", "log_pool_compare")
    groups = (("S1, the suite", lp.SUITE), ("S2, the held-out X", lp.HOLDOUT),
              ("S3, three classes", lp.THREE_CLASS))
    rows, reps_of, complete, same = lp.candidate_rows(HERE, "sharpened", groups)
    shown = [lp.L2, "linear_refit", "sharpened"]
    out = ["# The stack's linear pool sharpened by a power fitted on the inner cases", "",
           "Made by `compare.py` (README.md: the rules, written before the run). Mean over "
           "replicates; for `sharpened` also the paired difference sharpened - linear_refit ± "
           "SE (* beyond 2 SE). `linear_refit` is the default, scored from the same fits.", "",
           f"Reproduction: `linear_refit` against the committed default rows "
           f"(`../refit_inner/`), {len(same)} fits: largest |KL difference| "
           f"{max(same) if same else float('nan'):.2e}.", ""]
    if not complete:
        out += ["**INCOMPLETE run**: not every scenario has six replicates; the verdicts "
                "below cover the scenarios run so far.", ""]
    def gamma_table(scen):
        lines = ["| scenario | gamma (median, range) | probit weight: linear_refit -> "
                 "sharpened |", "|---|---:|---:|"]
        for s in scen:
            g = [rows[("sharpened", s, r)]["gamma"] for r in reps_of[s]]
            w0 = np.mean([rows[("linear_refit", s, r)]["linear_weight"] for r in reps_of[s]])
            w1 = np.mean([rows[("sharpened", s, r)]["linear_weight"] for r in reps_of[s]])
            lines.append(f"| {s} | {np.median(g):.2f} ({min(g):.2f} to {max(g):.2f}) | "
                         f"{w0:.2f} -> {w1:.2f} |")
        return lines + [""]

    lines, verdicts = lp.rule_sections(rows, "sharpened", "linear_refit", groups, reps_of,
                                       shown, gamma_table)
    out += lines
    out += lp.verdict_lines(verdicts, complete, "S1-S3 pass: run S4, the development sets.",
                            "Not all of S1-S3 pass: the linear pool stays.")
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
