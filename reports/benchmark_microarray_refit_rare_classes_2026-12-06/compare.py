"""After the run: nakayama's rows with the inner refits of rare classes against the one-run
report of 2026-12-06 (the plug-in kept on such folds), paired over the same folds, by the rule
of this folder's README. Writes ``comparison.md``.

Run from the repository root:
``python reports/benchmark_microarray_refit_rare_classes_2026-12-06/compare.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from selbayes.benchmark import repeat_aware_mean_se

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "benchmark_microarray_2026-12-06" / "results.csv"
METHODS = ("selbayes", "selbayes_uncorrected")


def rows(path, method) -> pd.DataFrame:
    df = pd.read_csv(path)
    df = df[(df.dataset == "nakayama") & (df.method == method)]
    return df.sort_values(["repeat", "fold"]).reset_index(drop=True)


def main() -> None:
    lines = ["# Nakayama with the inner refits of rare classes (made by compare.py)", "",
             "Paired over the 10 folds (5 folds, 2 repeats; the folds of one repeat as the "
             "unit); * beyond 2 SE. Before: `../benchmark_microarray_2026-12-06/`.", "",
             "| method | AMLP before | AMLP after | after - before | \\|exp - act\\| before "
             "| \\|exp - act\\| after |", "|---|---:|---:|---:|---:|---:|"]
    verdict = None
    for method in METHODS:
        old, new = rows(BEFORE, method), rows(HERE / "results.csv", method)
        assert np.array_equal(old[["repeat", "fold", "n_test"]].values,
                              new[["repeat", "fold", "n_test"]].values), method
        a_old = repeat_aware_mean_se(old.amlp, old.repeat, old.n_test)[0]
        a_new = repeat_aware_mean_se(new.amlp, new.repeat, new.n_test)[0]
        d, se = repeat_aware_mean_se(new.amlp.values - old.amlp.values, new.repeat,
                                     new.n_test)
        g_old = abs(repeat_aware_mean_se(old.gap, old.repeat, old.n_test)[0])
        g_new = abs(repeat_aware_mean_se(new.gap, new.repeat, new.n_test)[0])
        star = "*" if abs(d) > 2 * se else ""
        lines.append(f"| {method} | {a_old:.3f} | {a_new:.3f} | {d:+.3f} ± {se:.3f}{star} | "
                     f"{g_old:.3f} | {g_new:.3f} |")
        if method == "selbayes":
            worse = d > 2 * se
            verdict = ("**not adopted**: " + ("AMLP worse beyond 2 SE" if worse else
                                             f"|expected - actual| {g_new:.3f} above 0.05")
                       if worse or g_new > 0.05 else
                       "**adopted**: the default's AMLP is not worse beyond 2 SE and its "
                       f"|expected - actual| is {g_new:.3f} (at most 0.05)")
    lines += ["", f"By the rule: {verdict}.", ""]
    text = "\n".join(lines)
    (HERE / "comparison.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
