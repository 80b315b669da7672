"""Rule M1 of README.md (written before the run, with this script): the stack against the
default, paired over replicates, per three-class scenario; L2 logistic regression beside them.

Usage (from the repository root): ``python reports/plasmode/multiclass_linear_stack/compare.py``.
Reads ``results.jsonl`` beside this script; writes ``report.md`` beside it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)

SCENARIOS = ("multi3_sparse", "multi3_dense", "multi3_module")


def _paired(rows, a, b, scenario, score="kl"):
    """Mean of a - b over the scenario's replicates, its SE (sd / sqrt(n)), and n."""
    va = {r["replicate"]: r[score] for r in rows if r["scenario"] == scenario and r["method"] == a}
    vb = {r["replicate"]: r[score] for r in rows if r["scenario"] == scenario and r["method"] == b}
    d = np.array([va[i] - vb[i] for i in sorted(va.keys() & vb.keys())])
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size)), d.size


def main() -> None:
    rows = [json.loads(x) for x in (HERE / "results.jsonl").read_text().splitlines()]
    out = ["# The three-class stack against the default, with MCMC: rule M1", "",
           "Paired over replicates (mean ± SE; * beyond 2 SE). KL to the true probabilities "
           "(nats); the rule: stack - default not above 0 beyond 2 SE in any scenario.", "",
           "| scenario | n | KL default | KL stack | KL L2 | stack - default | stack - L2 "
           "| weight (median) | k (median) | \\|exp - act\\| default / stack / L2 |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    verdict = []
    for sc in SCENARIOS:
        mean = {m: np.mean([r["kl"] for r in rows if r["scenario"] == sc and r["method"] == m])
                for m in ("default", "stack", "logreg_l2_cv")}
        gap = {m: np.mean([r["abs_gap"] for r in rows if r["scenario"] == sc
                           and r["method"] == m]) for m in ("default", "stack", "logreg_l2_cv")}
        d, se, n = _paired(rows, "stack", "default", sc)
        dl, sel, _ = _paired(rows, "stack", "logreg_l2_cv", sc)
        st = [r for r in rows if r["scenario"] == sc and r["method"] == "stack"]
        out.append(
            f"| {sc} | {n} | {mean['default']:.3f} | {mean['stack']:.3f} | "
            f"{mean['logreg_l2_cv']:.3f} | {d:+.3f} ± {se:.3f}{'*' if abs(d) > 2 * se else ''} "
            f"| {dl:+.3f} ± {sel:.3f}{'*' if abs(dl) > 2 * sel else ''} "
            f"| {np.median([r['weight'] for r in st]):.2f} | {np.median([r['k'] for r in st]):.0f} "
            f"| {gap['default']:.3f} / {gap['stack']:.3f} / {gap['logreg_l2_cv']:.3f} |")
        verdict.append(d > 2 * se)
    worse = [s for s, v in zip(SCENARIOS, verdict, strict=True) if v]
    out += ["", "**Rule M1: " + (f"fails** (worse beyond 2 SE in {', '.join(worse)})." if worse
                                 else "passes** (worse beyond 2 SE nowhere)."), ""]
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
