"""The default (``selbayes``, ``../benchmark_microarray_components_2026-12-03/``) against its
uncorrected twin (``selbayes_uncorrected``, this run) on the same folds: per set, AMLP
corrected - uncorrected paired over folds ± SE (folds as the unit; * beyond 2 SE), and both
methods' |expected - actual error| (case-weighted over the folds); the pairing is the
benchmark report's own (``selbayes.benchmark``'s ``paired_by_set``). README.md says why.

Usage (from the repository root):
``python reports/benchmark_microarray_uncorrected_2026-12-03/compare.py``; writes
``comparison.md`` beside this script.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent / "benchmark_microarray_components_2026-12-03" / "results.csv"


def main() -> int:
    from selbayes.benchmark._report import mean_over_sets, paired_by_set

    a = pd.read_csv(DEFAULT)
    results = pd.concat([a[a.method == "selbayes"], pd.read_csv(HERE / "results.csv")])
    lines = ["# The default against its uncorrected twin on the development sets "
             "(made by compare.py)", "",
             "AMLP case-weighted over the 5 folds; the difference corrected - uncorrected "
             "paired over folds, ± SE with the folds as the unit (* beyond 2 SE); "
             "|expected - actual error| case-weighted over the folds.", "",
             "| set | corrected | uncorrected | difference | \\|e - a\\| corrected | "
             "\\|e - a\\| uncorrected |", "|---|---:|---:|---:|---:|---:|"]
    per = paired_by_set(results, "selbayes", "selbayes_uncorrected")
    for s, r in per.iterrows():
        lines.append(f"| {s} | {r.amlp_a:.3f} | {r.amlp_b:.3f} | "
                     f"{r['diff']:+.3f} ± {r.se:.3f}{'*' if r.clear else ''} | {r.gap_a:.3f} | "
                     f"{r.gap_b:.3f} |")
    worse, better = list(per.index[per.clear > 0]), list(per.index[per.clear < 0])
    mean, mean_se = mean_over_sets(per)
    lines += [f"| mean over sets | | | {mean:+.3f} ± {mean_se:.3f} | | |", "",
              f"* Corrected worse beyond 2 SE on: {', '.join(worse) or 'none'}; better beyond "
              f"2 SE on: {', '.join(better) or 'none'}.", ""]
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
