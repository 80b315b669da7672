"""Paired comparison of the plasmode suite's selbayes fits before and after the grouped
per-feature MCMC predictive (2026-11-27), same replicates (seed 0), same methods.

Usage (from the repository root): ``python reports/plasmode/grouped_predictive/compare.py``.
Reads ``reports/plasmode/results.jsonl`` (before) and ``results.jsonl`` beside this script
(after: ``python -m selbayes.experiments.plasmode --methods
logreg_l2_cv,sb_t_wide,sb_t_wide_uncorrected,sb_two_groups_wide,sb_two_groups_wide_uncorrected
--replicates 6 --seed 0 --jobs 2 --out <this folder>``)
and writes ``report.md`` beside it. Differences after - before, mean over the 6 replicates
± its standard error (replicates are independent data sets); * beyond 2 SE.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "results.jsonl"
AFTER = HERE / "results.jsonl"
METHODS = ["sb_t_wide", "sb_t_wide_uncorrected", "sb_two_groups_wide",
           "sb_two_groups_wide_uncorrected"]
METRICS = [("kl", "KL (nats)"), ("abs_gap", "|expected - actual|"), ("slope", "slope")]


def _read(path):
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["method"], r["scenario"], r["replicate"]): r for r in rows}


def main() -> None:
    before, after = _read(BEFORE), _read(AFTER)
    scenarios = sorted({s for (_, s, _) in after}, key=lambda s: (s.startswith("plasmode"), s))
    lines = ["# The plasmode suite with the grouped MCMC predictive", "",
             "Before: `reports/plasmode/results.jsonl` (the MCMC predictive averaged the product "
             "of the k feature densities over joint draws). After: the same replicates and "
             "methods with the predictive averaged per feature within groups of tau_mu "
             "(`factorised_predictive_log_proba`). Produced by `compare.py` (its docstring "
             "has the commands). Mean over replicates (after) and paired difference after - "
             "before ± SE; * beyond 2 SE.", ""]
    for metric, label in METRICS:
        lines += [f"## {label}", "", "| method | " + " | ".join(scenarios) + " |",
                  "|---|" + "---:|" * len(scenarios)]
        for m in [m for m in METHODS if any(k[0] == m for k in after)]:
            cells = []
            for s in scenarios:
                keys = [k for k in after if k[0] == m and k[1] == s and k in before]
                a = np.array([after[k][metric] for k in keys], dtype=float)
                b = np.array([before[k][metric] for k in keys], dtype=float)
                d = a - b
                ok = np.isfinite(d)
                if ok.sum() < 2:
                    cells.append("n/a")
                    continue
                se = d[ok].std(ddof=1) / np.sqrt(ok.sum())
                star = "*" if abs(d[ok].mean()) > 2 * se else ""
                cells.append(f"{np.nanmean(a):.3f} ({d[ok].mean():+.3f} ± {se:.3f}{star})")
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        lines.append("")
    ks = {s: [after[k]["k"] for k in after if k[0] == "sb_t_wide" and k[1] == s] for s in scenarios}
    lines += ["Median k of `sb_t_wide` (inner CV, unchanged by this change): " + ", ".join(
        f"{s} {int(np.median(v))}" for s, v in ks.items() if v) + ".", ""]
    (HERE / "report.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
