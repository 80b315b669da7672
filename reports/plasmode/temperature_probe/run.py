"""Is the correlation temperature too large across the suite, and would one power of it do?
A probe (nothing chosen; a candidate would need its rules and the protocol).

``../separable_probe/decompose.py`` found the Gaussian model underconfident where a truth is
separable on real X because its correlation temperature T over-corrects (slope 1.76 with T,
0.24 with T = 1). This fits the default's Gaussian model (``sb_t_auto_wide_noise_cv``, the
stack's Gaussian component, MCMC) on the suite's five scenarios, the three held-out ones and
the two separable ones (six replicates each, the suites' seeds) and predicts with T^a for
a in :data:`POWERS` (prediction only; a = 1 is the fit as it is, a = 0 is T = 1), scoring
KL, slope and |expected - actual| against the true probabilities.

Run from the repository root: ``python reports/plasmode/temperature_probe/run.py [jobs]``
(resumes from ``results.jsonl``), then ``python reports/plasmode/temperature_probe/report.py``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

SEED = 0
GAUSSIAN = "sb_t_auto_wide_noise_cv"
POWERS = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0)
SCENARIOS = (*offline.SCENARIO_NAMES, "holdout_sparse", "holdout_dense", "holdout_module",
             "separable_module", "separable_sparse")


def _replicate(name: str, rep: int) -> dict:
    from selbayes.experiments import plasmode

    if name.startswith("separable"):
        sc = offline.load_script(HERE.parent / "separable_probe" / "run.py",
                                 "separable_run").scenarios()[name]
    else:
        sc = {**plasmode.SCENARIOS, **plasmode.HOLDOUT_SCENARIOS}[name]
    return plasmode.make_replicate(sc, SEED + 1000 * rep)


def one_replicate(name: str, rep: int) -> list:
    from selbayes.experiments.plasmode import calibration_scores, make_candidate

    data = _replicate(name, rep)
    clf = make_candidate(GAUSSIAN, random_state=SEED + rep)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data["X_train"], data["y_train"])
        T = float(clf.temperature_)
        for a in POWERS:
            clf.temperature_ = T ** a
            s = calibration_scores(clf.predict_proba(data["X_test"]), data["p_test"])
            rows.append({"scenario": name, "replicate": rep, "method": f"a={a:g}", **s,
                         "T": T, "k": int(clf.k_), "eps": float(clf.label_noise_)})
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("T", "k"),
                           scenarios=SCENARIOS)


if __name__ == "__main__":
    raise SystemExit(main())
