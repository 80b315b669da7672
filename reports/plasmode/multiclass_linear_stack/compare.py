"""Rule M1 of README.md (written before the run, with this script): the stack against the
default, paired over replicates, per three-class scenario; L2 logistic regression beside them.

Usage (from the repository root): ``python reports/plasmode/multiclass_linear_stack/compare.py``.
Reads ``results.jsonl`` beside this script; writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows, paired)

SCENARIOS = ("multi3_sparse", "multi3_dense", "multi3_module")


def _values(rows, method, scenario, metric):
    return [r[metric] for (m, s, _), r in rows.items() if m == method and s == scenario]


def main() -> None:
    rows = paired.read_rows(HERE / "results.jsonl")
    out = ["# The three-class stack against the default, with MCMC: rule M1", "",
           "Paired over replicates (mean ± SE; * beyond 2 SE). KL to the true probabilities "
           "(nats); the rule: stack - default not above 0 beyond 2 SE in any scenario.", "",
           "| scenario | n | KL default | KL stack | KL L2 | stack - default | stack - L2 "
           "| weight (median) | k (median) | \\|exp - act\\| default / stack / L2 |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    verdict = []
    for sc in SCENARIOS:
        methods = ("default", "stack", "logreg_l2_cv")
        mean = {m: np.mean(_values(rows, m, sc, "kl")) for m in methods}
        gap = {m: np.mean(_values(rows, m, sc, "abs_gap")) for m in methods}
        d, se, n = paired.paired(rows, "stack", "default", sc, "kl")
        dl, sel, _ = paired.paired(rows, "stack", "logreg_l2_cv", sc, "kl")
        out.append(
            f"| {sc} | {n} | {mean['default']:.3f} | {mean['stack']:.3f} | "
            f"{mean['logreg_l2_cv']:.3f} | {d:+.3f} ± {se:.3f}{'*' if abs(d) > 2 * se else ''} "
            f"| {dl:+.3f} ± {sel:.3f}{'*' if abs(dl) > 2 * sel else ''} "
            f"| {np.median(_values(rows, 'stack', sc, 'weight')):.2f} "
            f"| {np.median(_values(rows, 'stack', sc, 'k')):.0f} "
            f"| {gap['default']:.3f} / {gap['stack']:.3f} / {gap['logreg_l2_cv']:.3f} |")
        verdict.append(d > 2 * se)
    worse = [s for s, v in zip(SCENARIOS, verdict, strict=True) if v]
    out += ["", "**Rule M1: " + (f"fails** (worse beyond 2 SE in {', '.join(worse)})." if worse
                                 else "passes** (worse beyond 2 SE nowhere)."), ""]
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
