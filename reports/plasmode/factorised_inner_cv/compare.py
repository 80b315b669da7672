"""The default refitted after the inner cross-validation's predictive became the product of
per-feature averages, against the same default before (``../grouped_predictive/``), on the
plasmode suite's replicates (seed 0).

Usage (from the repository root): ``python reports/plasmode/factorised_inner_cv/compare.py``.
Reads ``results.jsonl`` beside this script (the run in README.md; its rows are renamed
``sb_t_wide_after`` here) and ``../grouped_predictive/results.jsonl``, and writes
``report.md`` beside it. The rule is README.md's, written before the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables)

AFTER, BEFORE = "sb_t_wide_after", "sb_t_wide"
SHOWN = ["logreg_l2_cv", "sb_t_wide_uncorrected", BEFORE, AFTER]


def main() -> None:
    rows = paired.read_rows(HERE.parent / "grouped_predictive" / "results.jsonl")
    for (_m, s, r), row in paired.read_rows(HERE / "results.jsonl").items():
        rows[(AFTER, s, r)] = {**row, "method": AFTER}
    scenarios = paired.scenarios_of(rows, AFTER)
    lines = ["# The default with the inner predictive that the fit returns", "",
             "Made by `compare.py`. Mean over replicates; for `sb_t_wide_after` (the default "
             "after the change) also the paired difference after - before ± SE, * beyond "
             "2 SE.", ""]
    lines += paired.tables(rows, AFTER, BEFORE, SHOWN, scenarios)
    lines += paired.k_per_replicate(rows, AFTER, BEFORE, scenarios)
    (HERE / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
