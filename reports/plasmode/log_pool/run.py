"""One MCMC fit of LinearStackedClassifier(pooling="log") per replicate (README.md: the
candidates, the data and the rules, written before the run), scored three ways from that one
fit: the log pool itself, the linear pool of the same two fitted models with the stacking
weights of the same (correctly paired) inner cases, and the Gaussian model alone.

Scenarios: the suite's five, the three held-out ones and the three three-class ones of
``../multiclass_linear_stack/run.py`` (its ``replicate``), six replicates each, seed 0.

Run from the repository root: ``python reports/plasmode/log_pool/run.py [jobs]`` (resumes
from ``results.jsonl``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

SEED = 0
STACK = "sb_t_auto_wide_noise_cv_linear_stack"
SUITE = offline.SCENARIO_NAMES
HOLDOUT = ("holdout_sparse", "holdout_dense", "holdout_module")
THREE_CLASS = ("multi3_sparse", "multi3_dense", "multi3_module")


def _three_class_module():
    """``../multiclass_linear_stack/run.py`` (its name is this script's)."""
    return offline.load_script(HERE.parent / "multiclass_linear_stack" / "run.py",
                               "multiclass_linear_stack_run")


def replicate(name: str, rep: int, seed: int = SEED) -> tuple[dict, bool]:
    """(the replicate's data, whether it has two classes); ``seed`` the run seed (data seed
    ``seed + 1000 rep``; the three-class scenarios have run seed 0 only)."""
    from selbayes.experiments import plasmode

    if name in THREE_CLASS:
        if seed != SEED:
            raise ValueError(f"the three-class scenarios have run seed {SEED} only, not {seed}")
        return _three_class_module().replicate(name, rep), False
    sc = {**plasmode.SCENARIOS, **plasmode.HOLDOUT_SCENARIOS}[name]
    return plasmode.make_replicate(sc, seed + 1000 * rep), True


def one_replicate(name: str, rep: int) -> list:
    import warnings

    from selbayes.estimators import stacking_weights
    from selbayes.experiments.plasmode import calibration_scores, make_candidate

    data, binary = replicate(name, rep)
    t0 = time.perf_counter()
    clf = make_candidate(STACK, random_state=SEED + rep).set_params(pooling="log")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data["X_train"], data["y_train"])
        seconds = time.perf_counter() - t0
        gauss, probit = clf._component_probas(data["X_test"])
        log_pooled = clf.predict_proba(data["X_test"])
    yi = np.searchsorted(clf.classes_, data["y_train"])
    A = clf.inner_log_proba_
    w_lin = stacking_weights(A[:, np.arange(yi.size), yi])
    probas = {"log_pool": log_pooled, "linear_pool": w_lin[0] * gauss + w_lin[1] * probit,
              "default": gauss}
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    rows = []
    for method, proba in probas.items():
        s = calibration_scores(proba, data["p_test"])
        if not binary:
            del s["slope"]          # the suite's slope is binary
        rows.append({**common, "method": method, **s})
    rows[0].update(w_gauss=float(clf.weights_[0]), w_probit=float(clf.weights_[1]),
                   k=int(clf.k_), seconds=seconds,
                   inner=clf.inner_scores_)
    rows[1].update(linear_weight=float(w_lin[1]), k=int(clf.k_))
    rows[2].update(k=int(clf.k_))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("w_gauss", "w_probit", "linear_weight", "k"),
                           scenarios=SUITE + HOLDOUT + THREE_CLASS)


if __name__ == "__main__":
    raise SystemExit(main())
