"""The default with the correction chosen by inner cross-validation
(``sb_t_auto_wide_correction_cv``) against the default (``sb_t_auto_wide``) on the plasmode
suite's replicates (seed 0), and the verdict of the rule in README.md (written before the
run, with this script).

Usage (from the repository root): ``python reports/plasmode/correction_cv/compare.py``.
Reads ``results.jsonl`` beside this script (the candidate), ``../t_auto_flat_nu/results.jsonl``
(the default on the same replicates), ``../flat_nu/results.jsonl`` (read, not shown) and ``../grouped_predictive/results.jsonl`` (L2 logistic regression),
and writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, DEFAULT, L2 = "sb_t_auto_wide_correction_cv", "sb_t_auto_wide", "logreg_l2_cv"
SHOWN = [L2, DEFAULT, CANDIDATE]


def main() -> None:
    rows = {key: row for key, row in
            paired.read_rows(HERE.parent / "grouped_predictive" / "results.jsonl").items()
            if key[0] == L2}
    rows.update(paired.read_rows(HERE.parent / "flat_nu" / "results.jsonl",
                                 HERE.parent / "t_auto_flat_nu" / "results.jsonl",
                                 HERE / "results.jsonl"))
    scenarios = paired.scenarios_of(rows, CANDIDATE)
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == CANDIDATE and ss == s)
               for s in scenarios}
    lines = ["# The default with the correction chosen by inner cross-validation against the default", "",
             "Made by `compare.py` (its docstring has the inputs; the rule is README.md's, "
             "written before the run). Mean over replicates; for the candidate also the "
             "paired difference candidate - default ± SE, * beyond 2 SE.", ""]
    lines += paired.tables(rows, CANDIDATE, DEFAULT, SHOWN, scenarios)
    lines += paired.rule_verdict(rows, CANDIDATE, DEFAULT, scenarios, reps_of, L2)
    (HERE / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
