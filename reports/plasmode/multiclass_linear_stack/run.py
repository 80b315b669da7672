"""Three-class plasmode replicates (README.md: the scenarios and the rules, written before the
run): one MCMC fit of the default stacked with the nested-dichotomy probit regression of all
genes per replicate, scored with its own Gaussian fit (the default) and beside L2 logistic
regression.

Run from the repository root: ``python reports/plasmode/multiclass_linear_stack/run.py [jobs]``
(resumes from ``results.jsonl``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

K, N_TRAIN, SEED = 3, 70, 0
STACK = "sb_t_auto_wide_noise_cv_linear_stack"
SCENARIOS = {
    "multi3_sparse": dict(dataset="gravier", pattern="random", n_effects=5),
    "multi3_dense": dict(dataset="gravier", pattern="random", n_effects=500),
    "multi3_module": dict(dataset="singh", pattern="module", n_effects=40),
}
EFFECT_SD = 3.0


_X_CACHE: dict = {}     # a plain dict: joblib's workers cannot unpickle an lru_cache here


def _X(dataset):
    from selbayes.experiments.plasmode import _standardised_dataset

    if dataset not in _X_CACHE:
        _X_CACHE[dataset] = _standardised_dataset(dataset)
    return _X_CACHE[dataset]


def replicate(name: str, rep: int) -> dict:
    """Training and test data of replicate ``rep``, and the test cases' true probabilities
    (n_test, 3): softmax of three linear predictors drawn by the suite's ``true_logit``."""
    from scipy.special import softmax

    from selbayes.experiments.plasmode import Scenario, true_logit

    cfg = SCENARIOS[name]
    X = _X(cfg["dataset"])
    sc = Scenario(name, "plasmode", n_train=N_TRAIN, n_effects=cfg["n_effects"],
                  effect_sd=EFFECT_SD, pattern=cfg["pattern"], dataset=cfg["dataset"])
    rng = np.random.default_rng(SEED + 1000 * rep)
    p = softmax(np.column_stack([true_logit(sc, X, rng) for _ in range(K)]), axis=1)
    n = X.shape[0]
    for _ in range(1000):
        perm = rng.permutation(n)
        y = (rng.random(n)[:, None] > p.cumsum(axis=1)).sum(axis=1).clip(0, K - 1)
        tr, te = perm[:N_TRAIN], perm[N_TRAIN:]
        if np.bincount(y[tr], minlength=K).min() >= 5:
            break
    else:
        raise ValueError(f"{name}: no draw with 5 training cases of each class")
    return {"X_train": X[tr], "y_train": y[tr], "X_test": X[te], "p_test": p[te]}


def scores(proba, p_true) -> dict:
    """The suite's scores (``calibration_scores``) but its slope, which is binary: KL to the
    true probabilities, log score (nats), expected and actual error and their gap."""
    from selbayes.experiments.plasmode import calibration_scores

    out = calibration_scores(proba, p_true)
    del out["slope"]
    return out


def one_replicate(name: str, rep: int) -> list:
    import warnings

    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import make_candidate

    data = replicate(name, rep)
    t0 = time.perf_counter()
    stack = make_candidate(STACK, random_state=SEED + rep)
    l2 = make_method("logreg_l2_cv", K, random_state=SEED + rep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stack.fit(data["X_train"], data["y_train"])
        seconds = time.perf_counter() - t0
        l2.fit(data["X_train"], data["y_train"])
        probas = {"stack": stack.predict_proba(data["X_test"]),
                  "default": stack.estimator_.predict_proba(data["X_test"]),
                  "logreg_l2_cv": l2.predict_proba(data["X_test"])}
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    rows = [{**common, "method": m, **scores(pr, data["p_test"])} for m, pr in probas.items()]
    rows[0].update(weight=stack.linear_weight_, k=int(stack.k_), seconds=seconds)
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("weight", "k"),
                           scenarios=tuple(SCENARIOS))


if __name__ == "__main__":
    raise SystemExit(main())
