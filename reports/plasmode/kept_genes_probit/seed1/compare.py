"""Rule T5 of ``../README.md`` (written before the run, with this script): rule T1 (the
suite's rule) for ``three_way`` against ``linear_refit`` on the seed-1 replicates alone; the
twelve replicates of seeds 0 and 1 together are reported and decide nothing. Checks: the
default's two-way pool recomputed from its components against its own ``predict_proba``
(``predict_check``), and L2 logistic regression's rows against those of
``../../stacking_k_seed1/`` (the same seed-1 replicates, fitted 2026-11-28), which shows
whether the replicates are the ones drawn then.

Usage (from the repository root): ``python reports/plasmode/kept_genes_probit/seed1/compare.py``;
writes ``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PLASMODE = HERE.parent.parent
sys.path.insert(0, str(PLASMODE))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report, load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows, paired, tables)


def main() -> None:
    lp = offline.load_script(PLASMODE / "log_pool" / "compare.py", "log_pool_compare")
    rows = paired.read_rows(HERE / "results.jsonl") if (HERE / "results.jsonl").exists() else {}
    have = {s for (m, s, _) in rows if m == "three_way"}
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == "three_way" and ss == s)
               for s in have}
    complete = all(len(reps_of.get(s, [])) == 6 for s in lp.SUITE)
    checks = [rows[("linear_refit", s, r)]["predict_check"] for s in reps_of for r in reps_of[s]]
    old_l2 = paired.read_rows(PLASMODE / "stacking_k_seed1" / "results.jsonl")
    l2_same = [abs(rows[(lp.L2, s, r)]["kl"] - old_l2[(lp.L2, s, r)]["kl"])
               for s in reps_of for r in reps_of[s] if (lp.L2, s, r) in old_l2]
    out = ["# Rule T5: the kept-genes probit on new replicates of the suite (seed 1, MCMC)", "",
           "Made by `compare.py` (../README.md: rule T5, written before the run). Mean over "
           "replicates; for `three_way` also the paired difference three_way - linear_refit ± "
           "SE (* beyond 2 SE). `linear_refit` is the default as fitted (MCMC) on these "
           "replicates.", "",
           f"Checks: the default's two-way pool from its stored components against its own "
           f"predict_proba, largest |difference| "
           f"{max(checks) if checks else float('nan'):.1e} ({len(checks)} fits); L2 logistic "
           f"regression against `../../stacking_k_seed1/` on the same replicates, largest "
           f"|KL difference| {max(l2_same) if l2_same else float('nan'):.1e} "
           f"({len(l2_same)} fits).", ""]
    if not complete:
        out += ["**INCOMPLETE run**: not every scenario has six replicates; the verdict below "
                "covers the scenarios run so far.", ""]
    groups = (("T5, the suite on new replicates (seed 1)", lp.SUITE),)

    def weight_table(scen):
        lines = ["| scenario | weights Gaussian / all genes / kept genes (mean) | kept-genes "
                 "weight (median, range) | k (median) |", "|---|---|---:|---:|"]
        for s in scen:
            w = np.array([rows[("three_way", s, r)]["weights"] for r in reps_of[s]])
            k = np.median([rows[("three_way", s, r)]["k"] for r in reps_of[s]])
            lines.append(f"| {s} | {' / '.join(f'{v:.2f}' for v in w.mean(0))} | "
                         f"{np.median(w[:, 2]):.2f} ({w[:, 2].min():.2f} to "
                         f"{w[:, 2].max():.2f}) | {k:g} |")
        return lines + [""]

    lines, verdicts = lp.rule_sections(rows, "three_way", "linear_refit", groups, reps_of,
                                       [lp.L2, "linear_refit", "three_way"], weight_table)
    out += lines
    out += lp.verdict_lines(verdicts, complete,
                            "T5 passes: with T1-T4, the candidate is adopted (built into "
                            "`LinearStackedClassifier` and run on the development sets "
                            "through `selbayes benchmark`).",
                            "T5 fails: not adopted.")
    # Reported, not ruled: both seeds together (seed 0 from ../results.jsonl).
    seed0 = paired.read_rows(HERE.parent / "results.jsonl")
    both = {}
    for (m, s, r), row in seed0.items():
        if m in ("three_way", "linear_refit") and s in lp.SUITE:
            both[(m, s, r)] = row
    for (m, s, r), row in rows.items():
        if m in ("three_way", "linear_refit"):
            both[(m, s, r + 6)] = row
    out += ["# Both seeds together (twelve replicates; reported, decides nothing)", "",
            "| scenario | replicates | KL three_way - linear_refit |", "|---|---:|---:|"]
    for s in lp.SUITE:
        mean, se, n = paired.paired(both, "three_way", "linear_refit", s, "kl")
        if n:
            star = "*" if abs(mean) > 2 * se else ""
            out.append(f"| {s} | {n} | {mean:+.4f} ± {se:.4f}{star} |")
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
