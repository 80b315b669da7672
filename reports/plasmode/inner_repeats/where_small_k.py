"""Seen on the way (decides nothing; written after README.md's rule had failed): the candidate
on the two sim_dense_weak replicates of ``../light_refits/`` (data seed 3900) where the
default's inner cross-validation chose a small k (replicates 3 and 4: k = 20 and 10), beside
the default's committed rows there (``light_refits``: the default as it is now, the lighter
refits). Those data were seen before this check, so this only says what averaging over
splits does where the small k occurs.

Run from the repository root: ``python reports/plasmode/inner_repeats/where_small_k.py``
(two fits, a few minutes); writes ``where_small_k.jsonl`` and prints the comparison.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows)

REPS, DATA_SEED = (3, 4), 3900


def main() -> None:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, make_replicate

    warnings.simplefilter("ignore")
    before = paired.read_rows(HERE.parent / "light_refits" / "results.jsonl")
    out = HERE / "where_small_k.jsonl"
    lines = []
    for rep in REPS:
        data = make_replicate(SCENARIOS["sim_dense_weak"], DATA_SEED + 1000 * rep)
        t0 = time.perf_counter()
        est = make_method("selbayes_inner_repeats", 2, random_state=rep).fit(
            data["X_train"], data["y_train"])
        row = {**calibration_scores(est.predict_proba(data["X_test"]), data["p_test"]),
               "method": "inner_repeats", "scenario": "sim_dense_weak", "replicate": rep,
               "k": int(est.estimator_.k_), "weights": est.weights_.tolist(),
               "fit_seconds": time.perf_counter() - t0}
        lines.append(json.dumps(row))
        d = before[("light_refits", "sim_dense_weak", rep)]
        print(f"replicate {rep}: k {d['k']} -> {row['k']}, KL {d['kl']:.3f} -> "
              f"{row['kl']:.3f}, |e - a| {d['abs_gap']:.3f} -> {row['abs_gap']:.3f}, "
              f"slope {d['slope']:.2f} -> {row['slope']:.2f}", flush=True)
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
