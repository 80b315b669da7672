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


def predictive_scores(name: str, rep: int, variants) -> tuple:
    """The default's Gaussian model fitted on replicate ``rep`` of ``name`` and its predictive
    scored against the truth under each variant, changing fitted attributes for prediction
    only: ``variants(fitted)`` maps a label to attribute values, given the fitted
    ``temperature_`` and ``label_noise_`` (dict). Returns (fitted, k, {label: scores})."""
    from selbayes.experiments.plasmode import calibration_scores, make_candidate

    data = _replicate(name, rep)
    clf = make_candidate(GAUSSIAN, random_state=SEED + rep)
    scores = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(data["X_train"], data["y_train"])
        fitted = {a: float(getattr(clf, a)) for a in ("temperature_", "label_noise_")}
        for label, attrs in variants(fitted).items():
            for a, v in {**fitted, **attrs}.items():
                setattr(clf, a, v)
            scores[label] = calibration_scores(clf.predict_proba(data["X_test"]), data["p_test"])
    return fitted, int(clf.k_), scores


def one_replicate(name: str, rep: int) -> list:
    fitted, k, scores = predictive_scores(
        name, rep, lambda f: {f"a={a:g}": {"temperature_": f["temperature_"] ** a}
                              for a in POWERS})
    return [{"scenario": name, "replicate": rep, "method": label, **s,
             "T": fitted["temperature_"], "k": k, "eps": fitted["label_noise_"]}
            for label, s in scores.items()]


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("T", "k"),
                           scenarios=SCENARIOS)


if __name__ == "__main__":
    raise SystemExit(main())
