"""The look before README.md's rule (decides nothing): what a large k costs where few genes
carry the signal. On six new replicates of each suite scenario (data seed 7900 + 1000 r; for
sim_dense_weak ``../inner_repeats/true_curve.py`` has twelve), the Gaussian model alone is
fitted at each k of the default grid below p (plug-in posterior, label-noise share
1/(n + 2), the correlation rule's T) on all training cases and scored by its KL to the true
probabilities of the replicate's test cases.

Run from the repository root: ``python reports/plasmode/largest_k_within_se/truth_curve.py
SCENARIO 0 6``; one JSON line per replicate (the KL at each k of ``KS`` below p), collected in
``truth_curve.jsonl``; ``--summary`` prints its table (kept in ``truth_curve.md``).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "inner_repeats"))
import true_curve  # noqa: E402  (../inner_repeats/true_curve.py: kl_curve, by_scenario)

KS = [5, 10, 20, 50, 100, 200, 500, 1000, 2000]
DATA_SEED = 7900


def main(name: str, first: int, stop: int) -> None:
    from selbayes.experiments.plasmode import make_replicate, scenario

    warnings.simplefilter("ignore")
    for rep in range(first, stop):
        data = make_replicate(scenario(name), DATA_SEED + 1000 * rep)
        X, y, Xt, pt = data["X_train"], data["y_train"], data["X_test"], data["p_test"]
        ks = [k for k in KS if k < X.shape[1]]
        kl = true_curve.kl_curve(X, y, Xt, pt, ks, rep)
        print(json.dumps({"scenario": name, "rep": rep, "ks": ks, "kl": kl}), flush=True)


def summary() -> None:
    print("| scenario | mean KL at k = " + ", ".join(map(str, KS)) + " (below p: the "
          "simulations' p = 2000 stop at 1000) | best k per replicate "
          "| KL(largest k) - KL(best k) per replicate |\n|---|---|---|---|")
    for name, rows in true_curve.by_scenario(str(HERE / "truth_curve.jsonl")).items():
        kl = np.array([r["kl"] for r in rows])
        ks = rows[0]["ks"]
        print(f"| {name} | {', '.join(f'{v:.3f}' for v in kl.mean(axis=0))} | "
              f"{', '.join(str(ks[i]) for i in kl.argmin(axis=1))} | "
              f"{', '.join(f'{v:.3f}' for v in kl[:, -1] - kl.min(axis=1))} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--summary"]:
        summary()
    else:
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
