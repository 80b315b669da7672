"""The prior on the class means chosen by inner cross-validation (``effect_prior="auto"``)
against the default t prior with df = 2, on the plasmode suite's replicates (seed 0).

Usage (from the repository root): ``python reports/plasmode/prior_cv/compare.py``. Reads
``results.jsonl`` beside this script (the run in README.md) and
``../grouped_predictive/results.jsonl`` (the default ``sb_t_wide``, its uncorrected twin and L2
logistic regression on the same replicates), and writes ``report.md`` beside it. The rule is
README.md's, written before the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables)

CANDIDATE, DEFAULT = "sb_prior_cv_wide", "sb_t_wide"
SHOWN = ["logreg_l2_cv", "sb_t_wide", "sb_t_wide_uncorrected", CANDIDATE]


def main() -> None:
    rows = paired.read_rows(HERE.parent / "grouped_predictive" / "results.jsonl",
                            HERE / "results.jsonl")
    scenarios = paired.scenarios_of(rows, CANDIDATE)
    lines = ["# The prior on the class means chosen by inner cross-validation", "",
             "Made by `compare.py`. Mean over replicates; for the candidate also the paired "
             "difference candidate - default (t prior, df = 2) ± SE, * beyond 2 SE.", ""]
    lines += paired.tables(rows, CANDIDATE, DEFAULT, SHOWN, scenarios)
    lines += ["## Prior chosen (per replicate)", "", "| scenario | prior (k) |", "|---|---|"]
    for s in scenarios:
        got = [f"{row['prior']} ({row['k']})" for (m, ss, r), row in sorted(rows.items())
               if m == CANDIDATE and ss == s]
        lines.append(f"| {s} | {'; '.join(got)} |")
    (HERE / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
