"""README.md's second check (its rule written before this run): the candidate against the
default where the signal is dense and weak, on new replicates of sim_dense_weak (80 training
cases) and sim_dense_weak_n40 (40), where a small k choice was seen before.

Run from the repository root: ``python reports/plasmode/inner_repeats/run_dense.py [jobs]``;
writes ``dense_results.jsonl`` (resumable) and ``dense_report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import paired  # noqa: E402  (reports/plasmode/paired.py: rule2, read_rows)
import run  # noqa: E402  (this folder's first check: one fit, its methods)

SCENARIOS, REPLICATES, DATA_SEED = ("sim_dense_weak", "sim_dense_weak_n40"), 8, 5900


def report(rows) -> str:
    lines = ["# Repeated inner cross-validation where the signal is dense and weak "
             "(second check, new replicates)", "",
             "Made by `run_dense.py`; README.md's second rule, written before the run. Paired "
             "differences candidate - default over replicates (mean ± SE, * beyond 2 SE).", "",
             "| scenario | KL default | KL difference | \\|e - a\\| default | "
             "\\|e - a\\| difference | slope default → candidate (median) | k default | "
             "k candidate |", "|---|---:|---:|---:|---:|---|---|---|"]
    kl, gap, better, worse, worse_gap = paired.rule2(rows, run.NAME, run.DEFAULT, SCENARIOS)
    for s in SCENARIOS:
        (d, se), (g, gse) = kl[s], gap[s]
        get = {m: [rows[(m, s, r)] for r in range(REPLICATES)] for m in run.METHODS}
        lines.append(
            f"| {s} | {np.mean([r['kl'] for r in get[run.DEFAULT]]):.3f} | "
            f"{d:+.4f} ± {se:.4f}{'*' if abs(d) > 2 * se else ''} | "
            f"{np.mean([r['abs_gap'] for r in get[run.DEFAULT]]):.3f} | "
            f"{g:+.4f} ± {gse:.4f}{'*' if abs(g) > 2 * gse else ''} | "
            f"{np.median([r['slope'] for r in get[run.DEFAULT]]):.2f} → "
            f"{np.median([r['slope'] for r in get[run.NAME]]):.2f} | "
            f"{', '.join(str(r['k']) for r in get[run.DEFAULT])} | "
            f"{', '.join(str(r['k']) for r in get[run.NAME])} |")
    ok = bool(better) and not worse and not worse_gap
    lines += ["", "## Verdict (README.md's second rule)", "",
              f"- KL better beyond 2 SE in: {', '.join(better) or 'none'}; worse beyond 2 SE "
              f"in: {', '.join(worse) or 'none'}.",
              f"- |expected - actual| worse beyond 2 SE in: {', '.join(worse_gap) or 'none'}.",
              "", "**Promising where the signal is dense and weak**: next, the development "
              "sets (README.md)." if ok else "**Not promising**: nothing changes."]
    return "\n".join(lines) + "\n"


def main(jobs: int = 2) -> None:
    rows = run.fit_all(HERE / "dense_results.jsonl", SCENARIOS, REPLICATES, DATA_SEED, jobs)
    (HERE / "dense_report.md").write_text(report(rows))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
