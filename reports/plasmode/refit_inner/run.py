"""One MCMC fit of LinearStackedClassifier(inner_predictive="refit") per replicate (README.md:
the candidate, the data and the rules, written before the run), scored against the true
probabilities. The replicates are those of ``../log_pool/run.py`` (its ``replicate``).

Run from the repository root: ``python reports/plasmode/refit_inner/run.py [jobs]`` (resumes
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


def _log_pool_run():
    """``../log_pool/run.py`` (its name is this script's)."""
    return offline.load_script(HERE.parent / "log_pool" / "run.py", "log_pool_run")


def fit_stack(name: str, rep: int, seed: int = SEED):
    """Replicate ``rep`` of scenario ``name`` and the refit stack fitted to it (warnings
    silenced), ``seed`` the run seed (data seed ``seed + 1000 rep``, estimator seed
    ``seed + rep``): (data, whether it has two classes, the fitted classifier, fit seconds)."""
    import warnings

    from selbayes.experiments.plasmode import make_candidate

    data, binary = _log_pool_run().replicate(name, rep, seed)
    t0 = time.perf_counter()
    clf = make_candidate(STACK, random_state=seed + rep).set_params(inner_predictive="refit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data["X_train"], data["y_train"])
    return data, binary, clf, time.perf_counter() - t0


def fit_components(name: str, rep: int, fits, seed: int = SEED):
    """:func:`fit_stack`, then the stack's predictive of the test cases and its two
    components' log probabilities, kept in ``fits/{name}_{rep}.npz`` (``inner`` (2, n, G),
    ``y_inner``, ``test`` (2, m, G), ``p_test``, ``weights``) so that other pools or a third
    component can be scored later without refitting. Returns (data, whether it has two
    classes, the fitted classifier, fit seconds, its predict_proba of the test cases, inner
    log probabilities A, test log probabilities T, training class indices)."""
    import warnings

    import probe  # reports/plasmode/probe.py (this folder's parent is on the path)

    data, binary, clf, seconds = fit_stack(name, rep, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = clf.predict_proba(data["X_test"])
    A, T, yi = probe.store_components(clf, data, fits / f"{name}_{rep}.npz")
    return data, binary, clf, seconds, proba, A, T, yi


def one_replicate(name: str, rep: int) -> dict:
    import warnings

    from selbayes.experiments.plasmode import _calibration_slope, calibration_scores

    data, binary, clf, seconds = fit_stack(name, rep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = clf.predict_proba(data["X_test"])
    s = calibration_scores(proba, data["p_test"])
    row = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"]), "method": "refit",
           **s, "linear_weight": float(clf.weights_[1]), "k": int(clf.k_), "seconds": seconds,
           "inner": clf.inner_scores_}
    if binary:
        yi = np.searchsorted(clf.classes_, data["y_train"]).astype(float)
        row["inner_gauss_slope"] = _calibration_slope(np.exp(clf.inner_log_proba_[0][:, 1]), yi)
    else:
        del row["slope"]            # the suite's slope is binary
    return row


def main() -> int:
    lp = _log_pool_run()
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("linear_weight", "k", "inner_gauss_slope"),
                           scenarios=lp.SUITE + lp.HOLDOUT + lp.THREE_CLASS)


if __name__ == "__main__":
    raise SystemExit(main())
