"""The default (``selbayes``, ``../benchmark_microarray_components_2026-12-03/``) against its
uncorrected twin (``selbayes_uncorrected``, this run) on the same folds: per set, AMLP
corrected - uncorrected paired over folds ± SE (folds as the unit; * beyond 2 SE), and both
methods' |expected - actual error| (case-weighted over the folds); the pairing is the
benchmark report's own (``selbayes.benchmark``'s ``paired_difference``). README.md says why.

Usage (from the repository root):
``python reports/benchmark_microarray_uncorrected_2026-12-03/compare.py``; writes
``comparison.md`` beside this script.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent / "benchmark_microarray_components_2026-12-03" / "results.csv"


def main() -> int:
    from selbayes.benchmark._report import clear_difference, paired_difference

    a = pd.read_csv(DEFAULT)
    results = pd.concat([a[a.method == "selbayes"], pd.read_csv(HERE / "results.csv")])
    lines = ["# The default against its uncorrected twin on the development sets "
             "(made by compare.py)", "",
             "AMLP case-weighted over the 5 folds; the difference corrected - uncorrected "
             "paired over folds, ± SE with the folds as the unit (* beyond 2 SE); "
             "|expected - actual error| case-weighted over the folds.", "",
             "| set | corrected | uncorrected | difference | \\|e - a\\| corrected | "
             "\\|e - a\\| uncorrected |", "|---|---:|---:|---:|---:|---:|"]
    worse, better, ses, diffs = [], [], [], []
    for s, g in results.groupby("dataset"):
        diff, se, _ = paired_difference(results, s, "selbayes", "selbayes_uncorrected")
        clear = clear_difference(diff, se)
        if clear:
            (worse if clear > 0 else better).append(s)
        ses.append(se)
        diffs.append(diff)
        cells = []
        for m in ("selbayes", "selbayes_uncorrected"):
            f = g[g.method == m]
            w = f.n_test / f.n_test.sum()
            cells.append(((w * f.amlp).sum(), abs((w * (f.expected_error - f.error)).sum())))
        lines.append(f"| {s} | {cells[0][0]:.3f} | {cells[1][0]:.3f} | "
                     f"{diff:+.3f} ± {se:.3f}{'*' if clear else ''} | {cells[0][1]:.3f} | "
                     f"{cells[1][1]:.3f} |")
    mean_se = float(np.sqrt(np.sum(np.square(ses)))) / len(ses)
    lines += [f"| mean over sets | | | {np.mean(diffs):+.3f} ± {mean_se:.3f} | | |", "",
              f"* Corrected worse beyond 2 SE on: {', '.join(worse) or 'none'}; better beyond "
              f"2 SE on: {', '.join(better) or 'none'}.", ""]
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
