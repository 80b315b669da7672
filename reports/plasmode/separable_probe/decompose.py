"""Where the Gaussian model's underconfidence in the separable scenarios comes from: its fitted
predictive asked four ways (a decomposition of the same fit; nothing chosen).

The default's Gaussian component (``run.py``'s stack, the same data and seed, refitted here
alone: the stack's Gaussian model is this fit) predicts
label_noise(temper(posterior predictive, T), eps). For each replicate this records T, eps and k,
and the calibration slope and KL of the predictive as it is, with T set to 1, with eps set to
0, and with both (for prediction only).

Run from the repository root: ``python reports/plasmode/separable_probe/decompose.py``
(a few minutes on 2 cores); writes ``decompose.csv`` and ``decompose.md`` here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils.parallel import Parallel, delayed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)

VARIANTS = {"as is": {}, "T = 1": {"temperature_": 1.0}, "eps = 0": {"label_noise_": 0.0},
            "T = 1, eps = 0": {"temperature_": 1.0, "label_noise_": 0.0}}


def one(name: str, rep: int) -> list:
    # the fit and the scoring under each variant: ../temperature_probe/run.py's
    probe = offline.load_script(HERE.parent / "temperature_probe" / "run.py",
                                "temperature_probe_run")
    fitted, k, scores = probe.predictive_scores(name, rep, lambda f: VARIANTS)
    return [{"scenario": name, "replicate": rep, "variant": variant, "k": k,
             "T": fitted["temperature_"], "eps": fitted["label_noise_"], "slope": s["slope"],
             "kl": s["kl"], "abs_gap": s["abs_gap"]} for variant, s in scores.items()]


def main() -> int:
    run = offline.load_script(HERE / "run.py", "separable_run")
    jobs = [(s, r) for s in run.scenarios() for r in range(6)]
    rows = [row for part in Parallel(n_jobs=2)(delayed(one)(s, r) for s, r in jobs)
            for row in part]
    df = pd.DataFrame(rows)
    df.to_csv(HERE / "decompose.csv", index=False)
    lines = ["# The Gaussian model's predictive in the separable scenarios, four ways "
             "(made by decompose.py)", "",
             "Mean ± SE over six replicates of the same fits; T and eps as fitted (median, "
             "range).", ""]
    for s, g in df.groupby("scenario"):
        one_way = g[g.variant == "as is"]
        lines += [f"## {s}", "", f"T {one_way['T'].median():.2f} ({one_way['T'].min():.2f} to "
                  f"{one_way['T'].max():.2f}); eps {one_way.eps.median():.3f} "
                  f"({one_way.eps.min():.3f} to {one_way.eps.max():.3f}); "
                  f"k {sorted(one_way.k.tolist())}", "",
                  "| variant | slope | KL | \\|expected - actual\\| |", "|---|---:|---:|---:|"]
        for v in VARIANTS:
            h = g[g.variant == v]
            cells = [f"{h[c].mean():.3f} ± {h[c].std(ddof=1) / np.sqrt(len(h)):.3f}"
                     for c in ("slope", "kl", "abs_gap")]
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    (HERE / "decompose.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
