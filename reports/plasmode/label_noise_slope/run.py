"""Where the model holds, how much of the default's calibration slope is its label-noise term?

An analysis, not a decision: nothing here changes a default. For the two simulation scenarios
of the plasmode suite (the model holds), the default (``sb_t_auto_wide``, as in
``../t_auto_flat_nu/``: same replicates, same seeds, so its row must reproduce that run's) is
fitted once per replicate and then asked for its probabilities three ways, from the same fit:

* ``default``: as it returns them (tempered by T, mixed with the label-noise share 1/(n + 2));
* ``no_label_noise``: the same with the label-noise share set to 0;
* ``model_predictive``: also T = 1, i.e. the model's own posterior predictive.

Run: ``python reports/plasmode/label_noise_slope/run.py`` (about 10 minutes on 2 cores);
writes ``results.csv`` and ``report.md`` beside this file.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, fit_replicate

HERE = Path(__file__).resolve().parent
METHOD, SEED, REPLICATES = "sb_t_auto_wide", 0, 6
SCENARIO_NAMES = ("sim_sparse_strong", "sim_dense_weak")
VARIANTS = ("default", "no_label_noise", "model_predictive")


def _one(scenario, rep):
    t0 = time.perf_counter()
    est, data = fit_replicate(METHOD, scenario, rep, SEED)      # the suite's seeds
    rows = []
    T, eps = est.temperature_, est.label_noise_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variant, (t, e) in zip(VARIANTS, ((T, eps), (T, 0.0), (1.0, 0.0)), strict=True):
            est.temperature_, est.label_noise_ = t, e
            s = calibration_scores(est.predict_proba(data["X_test"]), data["p_test"])
            rows.append({"scenario": scenario.name, "replicate": rep, "variant": variant,
                         "temperature": t, "label_noise": e, "k": int(est.k_),
                         "t_df": est.t_df_, **s})
    print(f"{scenario.name} {rep}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return rows


def _mean_se(x):
    x = np.asarray(x, dtype=float)
    return x.mean(), x.std(ddof=1) / np.sqrt(len(x))


def report(df: pd.DataFrame) -> str:
    L = ["# The default's calibration slope where the model holds: label noise, temperature",
         "", "Made by `run.py` (see its docstring). Mean ± SE over the six replicates; the",
         "slope is b of P(y = 1) = sigmoid(a + b logit p_hat) against the true probabilities",
         "(1 = calibrated, > 1 underconfident). The variants are the same fit, asked three",
         "ways, so their differences are paired.", "",
         "| scenario | variant | KL (nats) | slope | \\|expected - actual\\| |",
         "|---|---|---|---|---|"]
    for (sc, var), g in df.groupby(["scenario", "variant"], sort=False):
        cells = [f"{m:.3f} ± {s:.3f}" for m, s in (_mean_se(g[c]) for c in
                                                  ("kl", "slope", "abs_gap"))]
        L.append(f"| {sc} | {var} | " + " | ".join(cells) + " |")
    L += ["", "Per replicate (k, df, T, label-noise share of the default's fit):", "",
          "| scenario | replicate | k | df | T | label noise | slope: default / no label noise / "
          "model |", "|---|---|---|---|---|---|---|"]
    for (sc, rep), g in df.groupby(["scenario", "replicate"], sort=False):
        d = g.set_index("variant")
        L.append(f"| {sc} | {rep} | {d.loc['default', 'k']} | {d.loc['default', 't_df']:g} | "
                 f"{d.loc['default', 'temperature']:.2f} | "
                 f"{d.loc['default', 'label_noise']:.4f} | "
                 + " / ".join(f"{d.loc[v, 'slope']:.2f}" for v in VARIANTS) + " |")
    return "\n".join(L) + "\n"


def main() -> int:
    rows = [r for name in SCENARIO_NAMES for rep in range(REPLICATES)
            for r in _one(SCENARIOS[name], rep)]
    df = pd.DataFrame(rows)
    df.to_csv(HERE / "results.csv", index=False)
    (HERE / "report.md").write_text(report(df))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
