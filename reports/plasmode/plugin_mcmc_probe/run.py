"""Probe (nothing is chosen here): is the stack's underconfidence in sim_dense_weak the
mismatch between the predictive its weights are fitted on and the one it predicts with?

The stack's weights come from the inner test cases' *plug-in* predictive of the Gaussian
model (what ``choose_k`` scores); the stack predicts with the Gaussian model's *MCMC*
predictive. If the plug-in is sharper than MCMC, the weights hedge an overconfidence the
final model does not have, and the stack comes out underconfident. Per replicate, from one
fit of the default (MCMC) and one plug-in fit at the k and label-noise share it chose:
the calibration slope against the truth of both on the test cases, the slope of the inner
plug-in predictions against the inner labels (the same logistic fit with 0/1 outcomes), and
the stacking weight of the probit model of all genes.

Run from the repository root: ``python reports/plasmode/plugin_mcmc_probe/run.py [jobs]``
(resumes from ``results.jsonl``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

SEED = 0
SCENARIOS = ("sim_dense_weak", "sim_sparse_strong", "plasmode_dense")


def one_replicate(name: str, rep: int) -> list:
    import warnings

    from sklearn.base import clone

    from selbayes.estimators import LinearStackedClassifier
    from selbayes.experiments import plasmode

    data = plasmode.make_replicate(plasmode.SCENARIOS[name], SEED + 1000 * rep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stack = LinearStackedClassifier(
            plasmode.make_candidate("sb_t_auto_wide_noise_cv", random_state=SEED + rep))
        stack.fit(data["X_train"], data["y_train"])
        mcmc = stack.estimator_
        plug = clone(mcmc).set_params(method="plugin", k=int(mcmc.k_),
                                      label_noise=float(mcmc.label_noise_))
        plug.fit(data["X_train"], data["y_train"])
        X_test = data["X_test"]
        probas = {"mcmc": mcmc.predict_proba(X_test), "plugin": plug.predict_proba(X_test),
                  "stack": stack.predict_proba(X_test),
                  "probit": np.exp(stack.linear_.predict_log_proba(X_test))}
    yi = np.searchsorted(stack.classes_, data["y_train"])
    inner = np.exp(stack.inner_log_proba_[:, :, 1])
    row = {"scenario": name, "replicate": rep, "method": "probe", "k": int(mcmc.k_),
           "linear_weight": float(stack.weights_[1])}
    for what, proba in probas.items():
        s = plasmode.calibration_scores(proba, data["p_test"])
        row[f"{what}_slope"], row[f"{what}_kl"] = s["slope"], s["kl"]
    row["inner_plugin_slope"] = plasmode._calibration_slope(inner[0], yi.astype(float))
    row["inner_probit_slope"] = plasmode._calibration_slope(inner[1], yi.astype(float))
    # the sharpness of the two Gaussian predictives on the same test cases
    lo = {w: np.log(p[:, 1] / p[:, 0]) for w, p in probas.items()}
    row["sd_logodds_mcmc"], row["sd_logodds_plugin"] = float(lo["mcmc"].std()), float(
        lo["plugin"].std())
    return row


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("k", "linear_weight", "mcmc_slope", "plugin_slope",
                            "inner_plugin_slope", "inner_probit_slope", "stack_slope",
                            "probit_slope"), scenarios=SCENARIOS)


if __name__ == "__main__":
    raise SystemExit(main())
