"""The default with lighter inner refits (this run) against the default of 2026-12-03
(``../benchmark_microarray_gated_l1_2026-12-03/``) on the same folds and seeds: per set, AMLP
paired over folds ± SE (folds as the unit; * beyond 2 SE; the benchmark report's own
``paired_by_set``), |expected - actual error| of both, and README.md's two findings.

Usage (from the repository root):
``python reports/benchmark_microarray_light_refits_2026-12-05/compare.py``; writes
``comparison.md`` beside this script.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "benchmark_microarray_gated_l1_2026-12-03" / "results.csv"


def comparison(new_csv: Path, before_csv: Path, title: str, now: str = "light",
               then: str = "full", then_date: str = "2026-12-03") -> list[str]:
    """The lines of the comparison of ``new_csv``'s default (``now``) with ``before_csv``'s
    (``then``, run on ``then_date``) on the same folds: the table and README.md's findings.
    Another report folder's compare.py calls it with its own files and labels."""
    from selbayes.benchmark._report import mean_over_sets, paired_by_set

    new = pd.read_csv(new_csv).query("method == 'selbayes'").assign(method=now)
    old = pd.read_csv(before_csv).query("method == 'selbayes'").assign(method=then)
    per = paired_by_set(pd.concat([new, old]), now, then)
    lines = [f"# {title} (made by compare.py)", "",
             "AMLP case-weighted over the 5 folds; the difference "
             f"{now} - {then} paired over "
             "folds, ± SE with the folds as the unit (* beyond 2 SE); |expected - actual "
             "error| case-weighted over the folds; fit seconds, the median over folds.", "",
             f"| set | {now} (now) | {then} ({then_date}) | difference | \\|e - a\\| {now} | "
             f"\\|e - a\\| {then} | seconds {now} / {then} |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    sec = {m: f.groupby("dataset").fit_seconds.median() for m, f in ((now, new), (then, old))}
    for s, r in per.iterrows():
        lines.append(f"| {s} | {r.amlp_a:.3f} | {r.amlp_b:.3f} | "
                     f"{r['diff']:+.3f} ± {r.se:.3f}{'*' if r.clear else ''} | {r.gap_a:.3f} | "
                     f"{r.gap_b:.3f} | {sec[now][s]:.0f} / {sec[then][s]:.0f} |")
    mean, mean_se = mean_over_sets(per)
    crossed = list(per.index[(per.gap_a > 0.05) & (per.gap_b <= 0.05)])
    lines += [f"| mean over sets | {per.amlp_a.mean():.3f} | {per.amlp_b.mean():.3f} | "
              f"{mean:+.4f} ± {mean_se:.4f} | | | |", "",
              "## Findings (README.md's rule)", "",
              f"* Mean AMLP worse beyond 2 SE: {'yes' if mean > 2 * mean_se else 'no'}.",
              f"* Sets whose |expected - actual| exceeds 0.05 here and not before: "
              f"{', '.join(crossed) or 'none'}.",
              f"* Sets worse beyond 2 SE: {', '.join(per.index[per.clear > 0]) or 'none'}; "
              f"better: {', '.join(per.index[per.clear < 0]) or 'none'}.", ""]
    return lines


def main() -> int:
    lines = comparison(HERE / "results.csv", BEFORE,
                       "The default with lighter inner refits against the run of 2026-12-03")
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
