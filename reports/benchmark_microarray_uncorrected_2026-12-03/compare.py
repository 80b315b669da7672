"""The default (``selbayes``, ``../benchmark_microarray_components_2026-12-03/``) against its
uncorrected twin (``selbayes_uncorrected``, this run) on the same folds: per set, AMLP
corrected - uncorrected paired over folds ± SE (folds as the unit; * beyond 2 SE), and both
methods' |expected - actual error| (case-weighted over the folds). README.md says why.

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
    a = pd.read_csv(DEFAULT)
    b = pd.read_csv(HERE / "results.csv")
    both = a[a.method == "selbayes"].merge(b[b.method == "selbayes_uncorrected"],
                                           on=["dataset", "repeat", "fold"],
                                           suffixes=("_c", "_u"))
    assert (both.n_test_c == both.n_test_u).all()
    lines = ["# The default against its uncorrected twin on the development sets "
             "(made by compare.py)", "",
             "AMLP case-weighted over the 5 folds; the difference corrected - uncorrected "
             "paired over folds, ± SE with the folds as the unit (* beyond 2 SE); "
             "|expected - actual error| case-weighted over the folds.", "",
             "| set | corrected | uncorrected | difference | \\|e - a\\| corrected | "
             "\\|e - a\\| uncorrected |", "|---|---:|---:|---:|---:|---:|"]
    worse, better, ses, diffs = [], [], [], []
    for s, g in both.groupby("dataset"):
        w = g.n_test_c / g.n_test_c.sum()
        d = (g.amlp_c - g.amlp_u).to_numpy()
        se = d.std(ddof=1) / np.sqrt(d.size)
        diff = float((w * (g.amlp_c - g.amlp_u)).sum())
        star = "*" if abs(d.mean()) > 2 * se else ""
        if star:
            (worse if d.mean() > 0 else better).append(s)
        ses.append(se)
        diffs.append(diff)
        gap = {c: abs(float((w * (g[f"expected_error_{c}"] - g[f"error_{c}"])).sum()))
               for c in "cu"}
        lines.append(f"| {s} | {(w * g.amlp_c).sum():.3f} | {(w * g.amlp_u).sum():.3f} | "
                     f"{diff:+.3f} ± {se:.3f}{star} | {gap['c']:.3f} | {gap['u']:.3f} |")
    mean_se = float(np.sqrt(np.sum(np.square(ses)))) / len(ses)
    lines += [f"| mean over sets | | | {np.mean(diffs):+.3f} ± {mean_se:.3f} | | |", "",
              f"* Corrected worse beyond 2 SE on: {', '.join(worse) or 'none'}; better beyond "
              f"2 SE on: {', '.join(better) or 'none'}.", ""]
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
