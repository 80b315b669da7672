"""The default refitted with the flat prior on the feature means of centred features, against
the same default before (``../factorised_inner_cv/``), on the plasmode suite's replicates
(seed 0).

Usage (from the repository root): ``python reports/plasmode/flat_nu/compare.py``. Reads
``results.jsonl`` beside this script (the run in README.md; its rows get the suffix
``_after`` here), ``../factorised_inner_cv/results.jsonl`` (the default before) and
``../grouped_predictive/results.jsonl`` (L2 logistic regression on the same replicates), and
writes ``report.md`` beside it. The rule is README.md's, written before the run.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables)

AFTER, BEFORE = "sb_t_wide_after", "sb_t_wide"
SHOWN = ["logreg_l2_cv", BEFORE, AFTER, "sb_t_wide_uncorrected_after", "sb_normal_wide_after"]


def main() -> None:
    rows = {key: row for key, row in
            paired.read_rows(HERE.parent / "grouped_predictive" / "results.jsonl").items()
            if key[0] == "logreg_l2_cv"}
    rows.update(paired.read_rows(HERE.parent / "factorised_inner_cv" / "results.jsonl"))
    for (m, s, r), row in paired.read_rows(HERE / "results.jsonl").items():
        rows[(f"{m}_after", s, r)] = {**row, "method": f"{m}_after"}
    scenarios = paired.scenarios_of(rows, AFTER)
    lines = ["# The default with a flat prior on the feature means of centred features", "",
             "Made by `compare.py`. Mean over replicates; for `sb_t_wide_after` (the default "
             "after the change) also the paired difference after - before ± SE, * beyond "
             "2 SE. `_after`: fitted with the change (`sb_normal_wide_after`: the normal "
             "prior on the class means, for information; no rule is attached to it).", ""]
    lines += paired.tables(rows, AFTER, BEFORE, SHOWN, scenarios)
    lines += ["## Corrected against uncorrected (after the change)", "",
              "Paired difference corrected - uncorrected ± SE, * beyond 2 SE (negative KL: "
              "the correction helps).", "", "| scenario | KL | \\|expected - actual\\| |",
              "|---|---:|---:|"]
    for s in scenarios:
        cells = []
        for metric in ("kl", "abs_gap"):
            mean, se, _ = paired.paired(rows, AFTER, "sb_t_wide_uncorrected_after", s, metric)
            cells.append(f"{mean:+.3f} ± {se:.3f}{'*' if abs(mean) > 2 * se else ''}")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    lines += ["", *paired.k_per_replicate(rows, AFTER, BEFORE, scenarios)]
    (HERE / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
