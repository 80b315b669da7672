"""The separable probe's table from ``results.jsonl`` (see ``run.py``): per scenario and method,
mean ± SE over the six replicates of KL, slope and |expected - actual|, and the default's KL
paired against L1 and L2 logistic regression (* beyond 2 SE). Writes ``report.md``.

Usage (from the repository root): ``python reports/plasmode/separable_probe/report.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences)

METHODS = ("default", "logreg_l1_cv", "logreg_l2_cv")


def main() -> None:
    rows = paired.read_rows(HERE / "results.jsonl")
    out = ["# A truth as separable as chowdary's, on its X (made by report.py)", "",
           "Mean ± SE over six replicates; KL to the true probabilities (nats), calibration "
           "slope (> 1 underconfident), |expected - actual| error. Paired: the default's KL "
           "minus the peer's (negative: the default is closer to the truth; * beyond 2 SE).",
           ""]
    for scenario in sorted({s for (_, s, _) in rows}):
        out += [f"## {scenario}", "", "| method | KL | slope | \\|expected - actual\\| | "
                "default - method (KL) |", "|---|---:|---:|---:|---:|"]
        for m in METHODS:
            cells = []
            for metric in ("kl", "slope", "abs_gap"):
                v = np.array([rows[(m, scenario, r)][metric] for r in range(6)])
                cells.append(f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(v.size):.3f}")
            if m == "default":
                cells.append("")
            else:
                d, se, _ = paired.paired(rows, "default", m, scenario, "kl")
                cells.append(f"{d:+.3f} ± {se:.3f}" + ("*" if abs(d) > 2 * se else ""))
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        w = [rows[("default", scenario, r)]["linear_weight"] for r in range(6)]
        k = [rows[("default", scenario, r)]["k"] for r in range(6)]
        parts = {p: np.mean([rows[("default", scenario, r)][f"{p}_kl"] for r in range(6)])
                 for p in ("gaussian", "probit")}
        out += ["", f"The default's probit weight {np.mean(w):.2f} (mean), k {sorted(k)}; its "
                f"components alone: KL {parts['gaussian']:.3f} (Gaussian), "
                f"{parts['probit']:.3f} (probit of all genes).", ""]
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
