"""After the run: nakayama's rows with the inner refits of rare classes against the one-run
report of 2026-12-06 (the plug-in kept on such folds), paired over the same folds, by the rule
of this folder's README. Writes ``comparison.md``.

Run from the repository root:
``python reports/benchmark_microarray_refit_rare_classes_2026-12-06/compare.py``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from selbayes.benchmark import paired_difference, summary_frame

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "benchmark_microarray_2026-12-06" / "results.csv"
METHODS = ("selbayes", "selbayes_uncorrected")


def main() -> None:
    lines = ["# Nakayama with the inner refits of rare classes (made by compare.py)", "",
             "Paired over the 10 folds (5 folds, 2 repeats; the folds of one repeat as the "
             "unit); * beyond 2 SE. Before: `../benchmark_microarray_2026-12-06/`.", "",
             "| method | AMLP before | AMLP after | after - before | \\|exp - act\\| before "
             "| \\|exp - act\\| after |", "|---|---:|---:|---:|---:|---:|"]
    verdict = None
    # the rows before as methods of their own ("..._before") beside this run's
    before = pd.read_csv(BEFORE).query("dataset == 'nakayama'")
    after = pd.read_csv(HERE / "results.csv")
    both = pd.concat([after, before.assign(method=before.method + "_before")])
    summary = summary_frame(both).set_index("method")
    for method in METHODS:
        old = f"{method}_before"
        d, se, n_pairs = paired_difference(both, "nakayama", method, old)
        assert n_pairs == 10, (method, n_pairs)          # the same 2 x 5 folds
        a_old, a_new = summary.loc[old, "amlp"], summary.loc[method, "amlp"]
        g_old, g_new = abs(summary.loc[old, "gap"]), abs(summary.loc[method, "gap"])
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
