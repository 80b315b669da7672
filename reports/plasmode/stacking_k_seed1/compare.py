"""The confirmatory run of the stacked default (``sb_t_auto_wide_stack_k``) against the default
(``sb_t_auto_wide``) on six new replicates per scenario (seed 1), with L2 logistic regression
fitted on the same replicates for rule 1; the verdict of the rule in README.md (written before
the run, with this script). Also, reported and not ruled on: the paired KL over the twelve
replicates of seed 0 (``../stacking_k_mcmc/``, ``../t_auto_flat_nu/``) and seed 1 together.

Usage (from the repository root): ``python reports/plasmode/stacking_k_seed1/compare.py``;
writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, DEFAULT, L2 = "sb_t_auto_wide_stack_k", "sb_t_auto_wide", "logreg_l2_cv"


def main() -> None:
    rows = paired.read_rows(HERE / "results.jsonl")
    scenarios = paired.scenarios_of(rows, CANDIDATE)
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == CANDIDATE and ss == s)
               for s in scenarios}
    lines = ["# The stacked default against the default on new replicates (seed 1)", "",
             "Made by `compare.py`; the rule is README.md's, written before the run. Mean over "
             "replicates; for the candidate also the paired difference candidate - default "
             "± SE, * beyond 2 SE.", ""]
    lines += paired.tables(rows, CANDIDATE, DEFAULT, [L2, DEFAULT, CANDIDATE], scenarios)
    lines += paired.rule_verdict(rows, CANDIDATE, DEFAULT, scenarios, reps_of, L2)
    # Reported, not ruled on: seeds 0 and 1 together (twelve replicates per scenario).
    old = paired.read_rows(HERE.parent / "t_auto_flat_nu" / "results.jsonl",
                           HERE.parent / "stacking_k_mcmc" / "results.jsonl")
    lines += ["", "## Seeds 0 and 1 together (reported, not ruled on)", "",
              "| scenario | n | KL candidate - default |", "|---|---:|---:|"]
    for s in scenarios:
        d = [rows[(CANDIDATE, s, r)]["kl"] - rows[(DEFAULT, s, r)]["kl"] for r in reps_of[s]
             if (DEFAULT, s, r) in rows]
        d += [old[(CANDIDATE, s, r)]["kl"] - old[(DEFAULT, s, r)]["kl"] for r in range(6)
              if (CANDIDATE, s, r) in old and (DEFAULT, s, r) in old]
        d = np.asarray(d)
        se = d.std(ddof=1) / np.sqrt(d.size)
        lines.append(f"| {s} | {d.size} | {d.mean():+.4f} ± {se:.4f}"
                     + ("*" if abs(d.mean()) > 2 * se else "") + " |")
    text = "\n".join(lines) + "\n"
    (HERE / "report.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
