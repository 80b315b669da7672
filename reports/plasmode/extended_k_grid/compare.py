"""The default with its k grid continued past 2000 against the same default with the grid
stopping there, on the plasmode suite's replicates (seed 0), and the verdict of the rule in
README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/extended_k_grid/compare.py
--reference sb_t_wide`` (or ``sb_t_auto_wide``: the reference ``run.py`` was given). Reads
``results.jsonl`` beside this script and the reference run's rows, and writes ``report.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables)
from run import SOURCES  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", choices=sorted(SOURCES), required=True)
    a = ap.parse_args()
    name, source = SOURCES[a.reference]
    rows = {key: row for key, row in
            paired.read_rows(HERE.parent / "grouped_predictive" / "results.jsonl").items()
            if key[0] == "logreg_l2_cv"}
    rows.update(paired.read_rows(source, HERE / "results.jsonl"))
    scenarios = paired.scenarios_of(rows, name)
    lines = [f"# The k grid continued past 2000 (`{name}`) against `{a.reference}`", "",
             "Made by `compare.py` (the rule is README.md's, written before the run). Mean "
             "over replicates; for the extended default also the paired difference extended - "
             "reference ± SE, * beyond 2 SE (carried-over replicates count as 0).", ""]
    lines += paired.tables(rows, name, a.reference, ["logreg_l2_cv", a.reference, name],
                           scenarios)
    lines += ["## The refitted replicates", "",
              "| scenario | replicate | k before -> after | KL before -> after | "
              "\\|exp - act\\| before -> after | seconds before -> after |",
              "|---|---:|---|---|---|---|"]
    for (m, s, r), row in sorted(rows.items()):
        if m != name or row.get("carried"):
            continue
        old = rows[(a.reference, s, r)]
        lines.append(f"| {s} | {r} | {old['k']} -> {row['k']} | {old['kl']:.3f} -> "
                     f"{row['kl']:.3f} | {old['abs_gap']:.3f} -> {row['abs_gap']:.3f} | "
                     f"{old['seconds']:.0f} -> {row['seconds']:.0f} |")
    worse = []
    for s in scenarios:
        mean, se, n = paired.paired(rows, name, a.reference, s, "kl")
        if n == 6 and mean > 2 * se:
            worse.append(s)
    complete = all(len([1 for (m, ss, _) in rows if m == name and ss == s]) == 6
                   for s in scenarios) and len(scenarios) == 5
    lines += ["", "## The rule (README.md)", "",
              f"* KL worse beyond 2 SE in: {', '.join(worse) or 'none'}.",
              f"* Verdict: {'revert the extension' if worse else 'the extension stays'}"
              + ("" if complete else " (INCOMPLETE run)"), ""]
    (HERE / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
