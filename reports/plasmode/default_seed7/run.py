"""The default (``LinearStackedClassifier``, refitted inner predictions) fitted with MCMC on a
third set of new replicates of the suite's five scenarios (run seed 7: data seeds
7 + 1000 r, estimator seeds 7 + r, none shared with the seed-0 or seed-1 replicates), scored as
it predicts (``default``, checked against its own ``predict_proba``), and L2 logistic regression
(``logreg_l2_cv``, the protocol's rule 1) on the same replicates. Each fit's components are
kept in ``fits/`` (npz, as in ``../sharpened_pool/``), so that a later candidate's
confirmatory rule on replicates no earlier rule has seen needs no MCMC. No candidate is scored
here.

Run from the repository root: ``python reports/plasmode/default_seed7/run.py [jobs]``
(resumes from ``results.jsonl``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PLASMODE = HERE.parent
sys.path.insert(0, str(PLASMODE))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

SEED = 7


def one_replicate(name: str, rep: int) -> list:
    from selbayes.estimators._linear_stack import _linear_pool
    from selbayes.experiments.plasmode import calibration_scores

    refit = offline.load_script(PLASMODE / "refit_inner" / "run.py", "refit_inner_run")
    data, binary, clf, seconds, proba, A, T, yi = refit.fit_components(name, rep,
                                                                       HERE / "fits", SEED)
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    w = np.asarray(clf.weights_, float)
    rows = [{**common, "method": "default", **calibration_scores(proba, data["p_test"]),
             "weights": [float(v) for v in w], "k": int(clf.k_), "seconds": seconds,
             "predict_check": float(np.max(np.abs(proba - np.exp(_linear_pool(T, w)))))}]
    return rows + [offline.l2_row(data, common, SEED + rep)]


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "predict_check"),
                           scenarios=offline.SCENARIO_NAMES)


if __name__ == "__main__":
    raise SystemExit(main())
