"""A look after the verdict (decides nothing): the probit component of all genes with its
prior scale s fixed at points of its grid instead of integrated over its posterior, scored on
the test cases against the true probabilities; the suite's stored fits of run seed 0 (six
replicates per scenario) and the confirmation replicates of ``../probit_sharpened_gate/``
in plasmode_module. Shows whether the shrinkage L2's cross-validation chooses (strong) would
help the component where its marginal likelihood chooses weak shrinkage.

Run from the repository root: ``python reports/plasmode/probit_projected/s_look.py``
(about a minute); writes ``s_look.csv`` (one row per fit and s) and prints the medians.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py)

COMPARE = offline.load_script(HERE / "compare.py", "probit_projected_compare")
LOG_S = (-6.0, -4.0, -2.0, 0.0, 2.0, 4.0)


def scores(X, y, Xt, p_test) -> list[dict]:
    from selbayes.experiments.plasmode import calibration_scores
    from selbayes.models._linear_probit import (
        INTERCEPT_VARIANCE,
        LOG_S_GRID,
        ep_probit,
        fit_gram,
        gram_log_proba,
    )

    G, Gs, gss = COMPARE.grams(X, Xt)
    y_pm = 2.0 * np.asarray(y, float) - 1.0
    w, sites = fit_gram(G, y_pm)
    out = [{"log_s": "posterior", "posterior_mean_log_s": float(w @ LOG_S_GRID),
            **calibration_scores(np.exp(gram_log_proba(G, Gs, gss, LOG_S_GRID, w, sites)),
                                 p_test)}]
    for log_s in LOG_S:
        nu, tau, _, _ = ep_probit(np.exp(log_s) * G + INTERCEPT_VARIANCE, y_pm)
        lp = gram_log_proba(G, Gs, gss, np.array([log_s]), np.array([1.0]), [(nu, tau)])
        out.append({"log_s": log_s, **calibration_scores(np.exp(lp), p_test)})
    return out


def main() -> None:
    from selbayes.experiments.plasmode import make_replicate, scenario

    rows = []
    for s in offline.SCENARIO_NAMES:
        for r in range(6):
            stored, A, yi, T, X, Xt = COMPARE.TWO.stored_fit(0, s, r)
            rows += [{"scenario": s, "replicate": r, **x}
                     for x in scores(X, yi, Xt, stored["p_test"])]
    for r in range(8):
        d = make_replicate(scenario("plasmode_module"), 11900 + 1000 * r)
        yi = np.searchsorted(np.unique(d["y_train"]), d["y_train"])
        rows += [{"scenario": "plasmode_module@11900", "replicate": r, **x}
                 for x in scores(np.asarray(d["X_train"], float), yi,
                                 np.asarray(d["X_test"], float), d["p_test"])]
    df = pd.DataFrame(rows)
    df.to_csv(HERE / "s_look.csv", index=False, float_format="%.5g")
    df["log_s"] = df["log_s"].astype(str)
    print(df.pivot_table(index="scenario", columns="log_s", values="kl",
                         aggfunc="median").round(3).to_string())
    print(df.pivot_table(index="scenario", columns="log_s", values="slope",
                         aggfunc="median").round(2).to_string())


if __name__ == "__main__":
    main()
