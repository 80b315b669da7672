"""After true_curve.py (decides nothing): does the inner cross-validation choose better with
more folds (inner training folds closer to n)? On the same replicates as ``true_curve.py``
(data seed 7900), the default's inner choice of k (``choose_k`` with the Gaussian model's
own settings, plug-in scores, the estimator seed r) with 5, 10 and 20 folds at 80 cases and
5, 10 and 40 (leave-one-out) at 40; each chosen k is scored by the truth curve of
``true_curve.jsonl`` ("full": the fit on all training cases at that k), and the regret is
that KL minus the replicate's best over the grid.

Run from the repository root:
``python reports/plasmode/inner_repeats/more_folds.py sim_dense_weak 5,10,20`` and
``... sim_dense_weak_n40 5,10,40`` (a few minutes each); one JSON line per replicate,
collected in ``more_folds.jsonl``; ``--summary`` prints the table of README.md.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import true_curve  # noqa: E402  (this folder: KS, DATA_SEED)


def main(name: str, cvs) -> None:
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._inner_cv import choose_k
    from selbayes.experiments.plasmode import make_replicate, scenario

    warnings.simplefilter("ignore")
    the_scenario = scenario(name)
    est = HierarchicalGaussianClassifier(progressbar=False)
    for rep in range(12):
        data = make_replicate(the_scenario, true_curve.DATA_SEED + 1000 * rep)
        out = {"scenario": name, "rep": rep}
        for cv in cvs:
            settings = {**est._choice_settings(true_curve.KS), "cv": cv}
            out[f"cv{cv}"] = choose_k(data["X_train"], data["y_train"],
                                      priors=est._prior_object(), random_state=rep,
                                      **settings).k
        print(json.dumps(out), flush=True)


def summary() -> None:
    truth = {name: {r["rep"]: r["full"] for r in rows}
             for name, rows in true_curve.by_scenario("true_curve.jsonl").items()}
    print("| scenario | inner folds | k chosen per replicate | KL at the chosen k | "
          "regret (KL - the best k's) |")
    print("|---|---:|---|---:|---:|")
    for name, rows in true_curve.by_scenario("more_folds.jsonl").items():
        curves = [truth[name][r["rep"]] for r in rows]
        for cv in [c for c in rows[0] if c.startswith("cv")]:
            kl = np.array([c[true_curve.KS.index(r[cv])]
                           for c, r in zip(curves, rows, strict=True)])
            print(f"| {name} | {cv[2:]} | {', '.join(str(r[cv]) for r in rows)} | "
                  f"{kl.mean():.3f} | {true_curve.mean_se(kl - [min(c) for c in curves])} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--summary"]:
        summary()
    else:
        main(sys.argv[1], [int(c) for c in sys.argv[2].split(",")])
