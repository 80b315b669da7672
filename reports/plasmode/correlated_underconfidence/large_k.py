"""Why do the corrected fits stay near coin flips at large k too? An offline check on the
plug-in posterior, no decision.

For the three collapsed replicates of ``run.py`` (plasmode_module 0 and 3, plasmode_sparse 2,
the suite's seeds) the default classifier is fitted at fixed k in (5, 50, 500, 2000),
corrected and uncorrected, with ``method="plugin"`` (the hyperparameters at their posterior
mode; the MCMC fits of ``run.py`` agree with it in the effect scale at the chosen k) and
``label_noise=0`` (so that only the model and T shape the probabilities). Each fit is asked
for its probabilities as fitted (T from the kept genes' correlation, the default
``temperature="correlation"``) and with T = 1, and the report gives the effect scale
1/sqrt(tau_mu), T, the sd of the predicted log odds (the true ones' sd beside it) and the
calibration slope against the true probabilities.

Run: ``python reports/plasmode/correlated_underconfidence/large_k.py`` (under a minute);
writes ``large_k.md`` beside this file.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from selbayes import HierarchicalGaussianClassifier
from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, make_replicate

HERE = Path(__file__).resolve().parent
SEED = 0
CASES = [("plasmode_module", 0), ("plasmode_module", 3), ("plasmode_sparse", 2)]
KS = (5, 50, 500, 2000)


def _logit(p):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)


def rows(scenario: str, rep: int):
    data = make_replicate(SCENARIOS[scenario], SEED + 1000 * rep)
    sd_true = float(np.std(_logit(np.asarray(data["p_test"])[:, 1])))
    for k in KS:
        for corrected in (True, False):
            est = HierarchicalGaussianClassifier(
                k=k, method="plugin", label_noise=0.0, correct_selection=corrected,
                random_state=SEED + rep, progressbar=False).fit(data["X_train"], data["y_train"])
            scale = float(np.median(est.idata_.posterior["tau_mu"].values ** -0.5))
            T = float(est.temperature_)
            out = {}
            for variant, t in (("fitted", T), ("T1", 1.0)):
                est.temperature_ = t
                proba = est.predict_proba(data["X_test"])
                out[variant] = (calibration_scores(proba, data["p_test"]),
                                float(np.std(_logit(proba[:, 1]))))
            yield (scenario, rep, k, corrected, est.t_df_, scale, T, sd_true, out)


def main() -> int:
    warnings.simplefilter("ignore")
    L = ["# Corrected and uncorrected plug-in fits at fixed k on the collapsed replicates", "",
         "Made by `large_k.py` (see its docstring). label_noise = 0; T from the kept genes' "
         "correlation; slope 1 = calibrated, > 1 underconfident.", "",
         "| scenario | rep | k | corrected | df | effect scale | T | sd logit true | "
         "sd logit pred (T / T = 1) | KL (T / T = 1) | slope (T / T = 1) |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for scenario, rep in CASES:
        for sc, r, k, corr, df, scale, T, sd_true, out in rows(scenario, rep):
            (sf, lf), (s1, l1) = out["fitted"], out["T1"]
            L.append(f"| {sc} | {r} | {k} | {'yes' if corr else 'no'} | {df:g} | {scale:.3f} | "
                     f"{T:.1f} | {sd_true:.2f} | {lf:.2f} / {l1:.2f} | "
                     f"{sf['kl']:.3f} / {s1['kl']:.3f} | {sf['slope']:.2f} / {s1['slope']:.2f} |")
            print(L[-1], flush=True)
    (HERE / "large_k.md").write_text("\n".join(L) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
