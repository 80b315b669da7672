"""Where the corrected fits are underconfident on correlated real X: the correction, or T?

An analysis, not a decision: nothing here changes a default. In the plasmode scenarios on
real X (plasmode_sparse, plasmode_module; the model does not hold: the genes are correlated)
the corrected fits of every prior have calibration slopes far above 1 in some replicates,
while the uncorrected twins do not (``../two_groups_ridge_check/README.md``). For each
replicate (the suite's seeds) the default (``sb_t_auto_wide``, as in ``../t_auto_flat_nu/``:
its rows must reproduce that run's) and its uncorrected twin are fitted once each and asked
for their probabilities two ways from the same fit:

* ``as_fitted``: as returned (tempered by T, mixed with the label-noise share 1/(n + 2));
* ``T1``: the same with T = 1 (the label-noise share kept).

Also recorded: k, T, the chosen df, the posterior median of the effect scale 1/sqrt(tau_mu)
and the sd of the predicted log odds against the true ones on the test cases.

Run: ``python reports/plasmode/correlated_underconfidence/run.py [--jobs 2]`` (about 10
minutes on 2 cores); writes ``results.csv`` and ``report.md`` beside this file.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, fit_replicate

HERE = Path(__file__).resolve().parent
SEED, REPLICATES = 0, 6
SCENARIO_NAMES = ("plasmode_sparse", "plasmode_module")
METHODS = ("sb_t_auto_wide", "sb_t_auto_wide_uncorrected")


def _logit(p):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)


def _one(method: str, name: str, rep: int) -> list[dict]:
    t0 = time.perf_counter()
    est, data = fit_replicate(method, SCENARIOS[name], rep, SEED)
    T = est.temperature_
    tau_mu = est.idata_.posterior["tau_mu"].values
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variant, t in (("as_fitted", T), ("T1", 1.0)):
            est.temperature_ = t
            proba = est.predict_proba(data["X_test"])
            s = calibration_scores(proba, data["p_test"])
            rows.append({"scenario": name, "replicate": rep, "method": method,
                         "variant": variant, "k": int(est.k_), "temperature": T,
                         "t_df": est.t_df_, "effect_scale": float(np.median(tau_mu ** -0.5)),
                         "sd_logit_pred": float(np.std(_logit(proba[:, 1]))),
                         "sd_logit_true": float(np.std(_logit(np.asarray(data["p_test"])[:, 1]))),
                         **s})
    print(f"{method} {name} {rep}: {time.perf_counter() - t0:.0f} s", file=sys.stderr,
          flush=True)
    return rows


def _mean_se(x):
    x = np.asarray(x, dtype=float)
    return x.mean(), x.std(ddof=1) / np.sqrt(len(x))


def report(df: pd.DataFrame) -> str:
    L = ["# Corrected fits on correlated real X: the correction, or the temperature?", "",
         "Made by `run.py` (see its docstring). Mean ± SE over the six replicates; slope as in "
         "the suite (1 = calibrated, > 1 underconfident).", "",
         "| scenario | method | variant | KL (nats) | slope | \\|expected - actual\\| |",
         "|---|---|---|---|---|---|"]
    for (sc, m, v), g in df.groupby(["scenario", "method", "variant"], sort=False):
        cells = [f"{a:.3f} ± {b:.3f}" for a, b in (_mean_se(g[c]) for c in
                                                  ("kl", "slope", "abs_gap"))]
        L.append(f"| {sc} | {m} | {v} | " + " | ".join(cells) + " |")
    L += ["", "Per replicate (as fitted, then T = 1):", "",
          "| scenario | replicate | method | k | T | df | effect scale | sd logit pred / true "
          "| KL | slope | slope T = 1 |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (sc, rep, m), g in df.groupby(["scenario", "replicate", "method"], sort=False):
        d = g.set_index("variant")
        a = d.loc["as_fitted"]
        L.append(f"| {sc} | {rep} | {m} | {a['k']} | {a['temperature']:.2f} | "
                 f"{a['t_df']:g} | {a['effect_scale']:.3f} | "
                 f"{a['sd_logit_pred']:.2f} / {a['sd_logit_true']:.2f} | {a['kl']:.3f} | "
                 f"{a['slope']:.2f} | {d.loc['T1', 'slope']:.2f} |")
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    from joblib import Parallel, delayed

    tasks = [(m, n, r) for n in SCENARIO_NAMES for r in range(REPLICATES) for m in METHODS]
    rows = [row for out in Parallel(n_jobs=args.jobs)(delayed(_one)(*t) for t in tasks)
            for row in out]
    df = pd.DataFrame(rows)
    df.to_csv(HERE / "results.csv", index=False)
    (HERE / "report.md").write_text(report(df))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
