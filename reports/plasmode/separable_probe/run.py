"""Can a plasmode scenario show the development set chowdary's regime? A probe (nothing chosen).

On chowdary a few genes separate the classes almost perfectly; L1 logistic regression's AMLP is
0.083 and the default's 0.178, and neither of the default's components is sharp there
(``../../chowdary_probe/``, ``../../benchmark_microarray_components_2026-12-03/``). None of the
suite's scenarios has a truth that separable (their linear predictors have an SD of 3 over the
cases). Two scenarios, fixed before any run, on the X of chowdary (22 283 genes; its labels are
not used, the truth is drawn as in every plasmode scenario):

- ``separable_module``: the log odds are a module of 10 correlated genes (a hub and its 9 most
  correlated genes, coefficients +-1 by the sign of the correlation), scaled to an SD of 8;
- ``separable_sparse``: 3 random genes with normal coefficients, scaled to an SD of 8.

Six replicates each (data seed 1000 rep, run seed 0, 70 training cases), three methods: the
default (``LinearStackedClassifier``, refitted inner predictive, MCMC), L1 and L2 logistic
regression (the benchmark's). Each default fit's components (inner and test log probabilities)
are kept in ``fits/`` so that a candidate component or pool can be scored later without
refitting.

Run from the repository root: ``python reports/plasmode/separable_probe/run.py [jobs]``
(resumes from ``results.jsonl``), then ``python reports/plasmode/separable_probe/report.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)
import probe  # noqa: E402  (reports/plasmode/probe.py: store_components)

SEED = 0
STACK = "sb_t_auto_wide_noise_cv_linear_stack"
PEERS = ("logreg_l1_cv", "logreg_l2_cv")


def scenarios() -> dict:
    from selbayes.experiments.plasmode import Scenario

    return {"separable_module": Scenario("separable_module", "plasmode", n_train=70,
                                         n_effects=10, effect_sd=8.0, pattern="module",
                                         dataset="chowdary"),
            "separable_sparse": Scenario("separable_sparse", "plasmode", n_train=70,
                                         n_effects=3, effect_sd=8.0, dataset="chowdary")}


def one_replicate(name: str, rep: int) -> list:
    import warnings

    from selbayes.experiments.plasmode import calibration_scores, make_candidate, make_replicate

    data = make_replicate(scenarios()[name], SEED + 1000 * rep)
    rows = []
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    for method in (STACK, *PEERS):
        t0 = time.perf_counter()
        clf = make_candidate(method, random_state=SEED + rep)
        if method == STACK:
            clf.set_params(inner_predictive="refit")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(data["X_train"], data["y_train"])
            proba = clf.predict_proba(data["X_test"])
        row = {**common, "method": "default" if method == STACK else method,
               **calibration_scores(proba, data["p_test"]),
               "seconds": time.perf_counter() - t0}
        if method == STACK:
            _, test_lp, _ = probe.store_components(clf, data, HERE / "fits" / f"{name}_{rep}.npz")
            row.update(linear_weight=float(clf.weights_[1]), k=int(clf.k_))
            for m, part in enumerate(("gaussian", "probit")):
                s = calibration_scores(np.exp(test_lp[m]), data["p_test"])
                row.update({f"{part}_kl": s["kl"], f"{part}_slope": s["slope"]})
        rows.append(row)
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "linear_weight"),
                           scenarios=tuple(scenarios()))


if __name__ == "__main__":
    raise SystemExit(main())
