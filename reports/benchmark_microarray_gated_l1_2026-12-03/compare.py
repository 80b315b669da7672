"""The new default (``selbayes`` with the gated L1 model, this run) against the default before
it (the two-model stack, ``../benchmark_microarray_components_2026-12-03/``) on the same folds
and seeds: per set, AMLP paired over folds ± SE (folds as the unit; * beyond 2 SE; the
benchmark report's own ``paired_by_set``), |expected - actual error| of both, L1 and L2
logistic regression's AMLP (``../calibration_gap/peers/``); and whether each fold's AMLP is
what ``../plasmode/gated_l1_stack/dev_sets.csv`` computed offline from the stored components.

Usage (from the repository root):
``python reports/benchmark_microarray_gated_l1_2026-12-03/compare.py``; writes
``comparison.md`` beside this script.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "benchmark_microarray_components_2026-12-03" / "results.csv"
OFFLINE = HERE.parent / "plasmode" / "gated_l1_stack" / "dev_sets.csv"
PEERS = HERE.parent / "calibration_gap" / "peers" / "summary.csv"


def main() -> int:
    from selbayes.benchmark._report import mean_over_sets, paired_by_set

    new = pd.read_csv(HERE / "results.csv").assign(method="gated")
    old = pd.read_csv(BEFORE)
    results = pd.concat([new, old[old.method == "selbayes"].assign(method="two_model")])
    offline = pd.read_csv(OFFLINE).set_index(["dataset", "fold"])
    check = (new.set_index(["dataset", "fold"]).amlp - offline.three_way).abs()
    peers = pd.read_csv(PEERS).pivot(index="dataset", columns="method", values="amlp")
    lines = ["# The gated L1 stack (the new default) against the two-model stack on the "
             "development sets (made by compare.py)", "",
             f"Each fold's AMLP against the offline score of the same fold "
             f"(`../plasmode/gated_l1_stack/dev_sets.csv`): largest |difference| "
             f"{check.max():.1e} over {check.size} folds.", "",
             "AMLP case-weighted over the 5 folds; the difference gated - two-model paired "
             "over folds, ± SE with the folds as the unit (* beyond 2 SE); |expected - actual "
             "error| case-weighted over the folds.", "",
             "| set | gated (new default) | two-model (before) | difference | \\|e - a\\| gated "
             "| \\|e - a\\| two-model | L1 | L2 |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    per = paired_by_set(results, "gated", "two_model")
    for s, r in per.iterrows():
        lines.append(f"| {s} | {r.amlp_a:.3f} | {r.amlp_b:.3f} | "
                     f"{r['diff']:+.3f} ± {r.se:.3f}{'*' if r.clear else ''} | {r.gap_a:.3f} | "
                     f"{r.gap_b:.3f} | {peers.loc[s, 'logreg_l1_cv']:.3f} | "
                     f"{peers.loc[s, 'logreg_l2_cv']:.3f} |")
    worse, better = list(per.index[per.clear > 0]), list(per.index[per.clear < 0])
    amlp, gaps = per.amlp_a, per.gap_a
    mean, mean_se = mean_over_sets(per)
    lines += [f"| mean over sets | {np.mean(amlp):.3f} | | {mean:+.4f} ± "
              f"{mean_se:.4f} | | | {peers.logreg_l1_cv.mean():.3f} | "
              f"{peers.logreg_l2_cv.mean():.3f} |", "",
              f"* Gated worse beyond 2 SE on: {', '.join(worse) or 'none'}; better beyond "
              f"2 SE on: {', '.join(better) or 'none'}.",
              f"* Largest |expected - actual error| of the new default: {max(gaps):.3f} "
              f"({gaps.idxmax()}).", ""]
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
