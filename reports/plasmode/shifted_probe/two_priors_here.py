"""After the run (reported, decides nothing): ``../probit_two_priors/``'s candidate (not
adopted by its own rule) scored on this probe's stored fits: the default's Gaussian component
as stored, its probit component replaced by the two-prior probit recomputed on the Gaussian
model's inner folds (re-made from the fit's seed; the isotropic part checked against the
stored component) and on all training cases, the stack's own weights, the test cases' pool.
Writes ``two_priors_here.csv`` and prints the paired KL differences.

Run from the repository root: ``python reports/plasmode/shifted_probe/two_priors_here.py``
(seconds).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows, paired)

TWO = offline.load_script(HERE.parent / "probit_two_priors" / "compare.py", "two_priors")
RUN = offline.load_script(HERE / "run.py", "shifted_probe_run")


def one(name: str, rep: int) -> dict:
    from selbayes.experiments.plasmode import (
        SHIFTED_SCENARIOS,
        calibration_scores,
        make_replicate,
    )

    d = make_replicate(SHIFTED_SCENARIOS[name], RUN.DATA_SEED + 1000 * rep)
    stored, A, yi, T = TWO.SHARPENED.stored_parts(HERE / "fits" / f"{name}_{rep}.npz")
    assert np.array_equal(yi, d["y_train"])
    pooled, w, _, p_cov, _, check = TWO.candidate_stack(
        d["X_train"], yi, d["X_test"], A, T, stored["inner"][1], rep)
    s = calibration_scores(np.exp(pooled), d["p_test"])
    return {"method": "two_priors_stack", "scenario": name, "replicate": rep, "kl": s["kl"],
            "abs_gap": s["abs_gap"], "slope": s["slope"], "probit_weight": float(w[1]),
            "p_cov": p_cov, "fold_check": check}


def main() -> None:
    rows = pd.DataFrame([one(s, r) for s in RUN.SCENARIOS for r in range(RUN.REPLICATES)])
    rows.to_csv(HERE / "two_priors_here.csv", index=False)
    run = paired.read_rows(HERE / "results.jsonl")
    both = {**run, **{(r.method, r.scenario, r.replicate): r._asdict()
                      for r in rows.itertuples(index=False)}}
    print(f"largest fold check {rows.fold_check.max():.1e}")
    for s in RUN.SCENARIOS:
        for other in ("selbayes", "logreg_l1_cv", "logreg_l2_cv"):
            m, se, n = paired.paired(both, "two_priors_stack", other, s, "kl")
            print(f"{s}: two_priors_stack - {other}: {m:+.3f} ± {se:.3f} (n = {n})")
        g = rows[rows.scenario == s]
        print(f"  mean KL {g.kl.mean():.3f}, slope {g.slope.mean():.2f}, probit weight "
              f"{g.probit_weight.mean():.2f}, P(cov) {g.p_cov.mean():.2f}")


if __name__ == "__main__":
    main()
