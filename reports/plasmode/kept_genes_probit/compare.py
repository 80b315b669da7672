"""The rules of README.md (written before the run, with this script): ``three_way`` against
``linear_refit`` (the default, recomputed from the stored fits), T1-T3; whether
``linear_refit`` reproduces the default's committed rows (``../refit_inner/results.jsonl``,
method ``refit``); and whether the re-made inner folds are the default's (``fold_check``).

Usage (from the repository root): ``python reports/plasmode/kept_genes_probit/compare.py``;
writes ``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report, load_script)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: report_header)


def main() -> None:
    lp = offline.load_script(HERE.parent / "log_pool" / "compare.py", "log_pool_compare")
    groups = (("T1, the suite", lp.SUITE), ("T2, the held-out X", lp.HOLDOUT),
              ("T3, three classes", lp.THREE_CLASS))
    rows, reps_of, complete, same = lp.candidate_rows(HERE, "three_way", groups)
    folds = [rows[("three_way", s, r)]["fold_check"] for s in reps_of for r in reps_of[s]]
    shown = [lp.L2, "linear_refit", "three_way"]
    out = third_component.report_header(
        "# A third model in the stack: the probit model of the Gaussian model's kept genes",
        same, folds, complete)

    def weight_table(scen):
        lines = ["| scenario | weights Gaussian / all genes / kept genes (mean) | kept-genes "
                 "weight (median, range) | k (median) |", "|---|---|---:|---:|"]
        for s in scen:
            w = np.array([rows[("three_way", s, r)]["weights"] for r in reps_of[s]])
            kw = w[:, 2]
            k = np.median([rows[("three_way", s, r)]["k"] for r in reps_of[s]])
            lines.append(f"| {s} | {' / '.join(f'{v:.2f}' for v in w.mean(0))} | "
                         f"{np.median(kw):.2f} ({kw.min():.2f} to {kw.max():.2f}) | {k:g} |")
        return lines + [""]

    lines, verdicts = lp.rule_sections(rows, "three_way", "linear_refit", groups, reps_of,
                                       shown, weight_table)
    out += lines
    out += lp.verdict_lines(verdicts, complete,
                            "T1-T3 pass: promising; T4 (development sets) and T5 (new "
                            "replicates, MCMC) decide adoption.",
                            "Not all of T1-T3 pass: not built.")
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
