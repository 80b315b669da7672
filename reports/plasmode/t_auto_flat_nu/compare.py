"""The t prior with its df chosen by the data (``sb_t_auto_wide``) against the default t prior
with df = 2 (``sb_t_wide``), both with the flat prior on the means of centred features, on the
plasmode suite's replicates (seed 0), and the verdict of the rule in README.md (written before
the run, with this script).

Usage (from the repository root): ``python reports/plasmode/t_auto_flat_nu/compare.py``. Reads
``results.jsonl`` beside this script (the candidate), ``../flat_nu/results.jsonl`` (the default
and its uncorrected twin on the same replicates) and ``../grouped_predictive/results.jsonl``
(L2 logistic regression on the same replicates), and writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables)

CANDIDATE, DEFAULT, L2 = "sb_t_auto_wide", "sb_t_wide", "logreg_l2_cv"
SHOWN = [L2, DEFAULT, "sb_t_wide_uncorrected", "sb_normal_wide", CANDIDATE]


def main() -> None:
    rows = {key: row for key, row in
            paired.read_rows(HERE.parent / "grouped_predictive" / "results.jsonl").items()
            if key[0] == L2}
    rows.update(paired.read_rows(HERE.parent / "flat_nu" / "results.jsonl",
                                 HERE / "results.jsonl"))
    scenarios = paired.scenarios_of(rows, CANDIDATE)
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == CANDIDATE and ss == s)
               for s in scenarios}
    lines = ["# t_auto (df chosen by the data) against the default t prior (df = 2), "
             "flat prior on the means of centred features", "",
             "Made by `compare.py` (its docstring has the inputs; the rule is README.md's, "
             "written before the run). Mean over replicates; for the candidate also the "
             "paired difference candidate - default ± SE, * beyond 2 SE.", ""]
    lines += paired.tables(rows, CANDIDATE, DEFAULT, SHOWN, scenarios)

    lines += ["## df chosen (per replicate)", "", "| scenario | df |", "|---|---|"]
    for s in scenarios:
        dfs = [f"{rows[(CANDIDATE, s, r)].get('t_df', float('nan')):g}" for r in reps_of[s]]
        lines.append(f"| {s} | {', '.join(dfs)} |")

    lines += paired.rule_verdict(rows, CANDIDATE, DEFAULT, scenarios, reps_of)
    (HERE / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
