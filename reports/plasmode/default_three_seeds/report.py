"""The default since 2026-12-03 (the gated L1 stack) against the issue's plasmode targets over
eighteen replicates per suite scenario: its rows (``three_way``) in ``../gated_l1_stack/``
for run seeds 0, 1 and 7 (replicates 0-5, 6-11, 12-17), each with L2 logistic regression on
the same replicates (seed 0: ``../grouped_predictive/``; seed 1:
``../kept_genes_probit/seed1/``; seed 7: ``../default_seed7/``). Reported, decides nothing;
the table is ``../default_two_seeds/``'s.

Usage (from the repository root): ``python reports/plasmode/default_three_seeds/report.py``;
writes ``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report, SCENARIO_NAMES)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows)

L2 = "logreg_l2_cv"
GATED = HERE.parent / "gated_l1_stack"
#: run seed -> (the default's rows, L2's rows)
SEEDS = {0: (GATED / "results.jsonl", HERE.parent / "grouped_predictive" / "results.jsonl"),
         1: (GATED / "seed1" / "results.jsonl",
             HERE.parent / "kept_genes_probit" / "seed1" / "results.jsonl"),
         7: (GATED / "seed7" / "results.jsonl", HERE.parent / "default_seed7" / "results.jsonl")}


def rows_of_three_seeds() -> dict:
    """(method, scenario, replicate) -> row, methods ``default`` and L2; the seeds'
    replicates numbered 0..5, 6..11 and 12..17."""
    out = {}
    for i, (default, l2) in enumerate(SEEDS.values()):
        d, l = paired.read_rows(default), paired.read_rows(l2)
        for s in offline.SCENARIO_NAMES:
            for r in range(6):
                out[("default", s, 6 * i + r)] = d[("three_way", s, r)]
                out[(L2, s, 6 * i + r)] = l[(L2, s, r)]
    return out


def main() -> None:
    two = offline.load_script(HERE.parent / "default_two_seeds" / "report.py",
                              "default_two_seeds_report")
    out = two.target_table(rows_of_three_seeds(), 18, "# The default (the gated L1 stack) "
                           "against the plasmode targets over eighteen replicates (seeds 0, 1 "
                           "and 7)", "eighteen")
    offline.write_report(HERE, "\n".join(out) + "\n")


if __name__ == "__main__":
    main()
