"""Is the probit model of all genes underconfident because of its prior on the latent scale s,
or because of its kernel? A probe on the plasmode suite's data (nothing is chosen).

The stack's linear component, ``selbayes.models.fit_linear_probit``, integrates the latent scale
s over a grid of log s with the prior log s ~ N(0, 2^2) (``LOG_S_SD``). With more genes than
cases the classes are separable and the marginal likelihood levels off as s grows, so the prior
decides how large s, and how sharp the predictive, may get. Where the truth is sparse (a few
genes carry it) the component is underconfident (``../../chowdary_probe/``; the stack's slope
1.65 in plasmode_sparse and 5.8 in holdout_sparse with the probit's weight 0.7 to 0.8,
``../refit_inner/``). This asks, on the suite's replicates (same seeds as the suite: data
seed 1000 rep), for the probit model alone:

- at each single s of the grid: KL to the true probabilities and calibration slope (is there an
  s at which the component is calibrated and sharp? if not, no prior on s can make it so, and
  the kernel, one exchangeable scale for all genes, is what limits it);
- with the prior as it is (mean 0, sd 2: checked against ``fit_linear_probit``), a wider prior
  (sd 4), a prior centred higher (mean 2, sd 2) and a flat prior on the grid: KL, slope and the
  posterior mean of log s.

Run: ``python reports/plasmode/probit_scale_probe/run.py [replicates]`` (default 6; minutes on
2 cores); writes ``results.csv`` (one row per scenario, replicate and prior or grid point) and
``report.md`` here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from selbayes.experiments.plasmode import (
    _ALL_SCENARIOS,
    _standardised_dataset,
    calibration_scores,
    make_replicate,
)
from selbayes.models import fit_linear_probit
from selbayes.models._linear_probit import INTERCEPT_VARIANCE, LOG_S_GRID, ep_probit, gram_log_proba

HERE = Path(__file__).resolve().parent
SCENARIOS = ("sim_sparse_strong", "sim_dense_weak", "plasmode_sparse", "plasmode_dense",
             "plasmode_module", "holdout_sparse", "holdout_dense", "holdout_module")
PRIORS = {"N(0, 2^2) (as is)": (0.0, 2.0), "N(0, 4^2)": (0.0, 4.0), "N(2, 2^2)": (2.0, 2.0),
          "flat on the grid": (0.0, np.inf)}


def per_grid(data, own):
    """EP at every grid point: log marginal likelihoods (n_grid,) and the test log
    probabilities at each single s (n_grid, m, 2); ``own`` is the package's fit, whose
    standardisation is used."""
    Z = own.Z
    p = Z.shape[1]
    Zs = own.standardise(data["X_test"])
    G0, G0s, g0ss = Z @ Z.T / p, Zs @ Z.T / p, (Zs ** 2).sum(1) / p
    y_pm = 2.0 * data["y_train"] - 1.0
    log_z, lps = [], []
    for log_s in LOG_S_GRID:
        nu, tau, _, lz = ep_probit(np.exp(log_s) * G0 + INTERCEPT_VARIANCE, y_pm)
        log_z.append(lz)
        lps.append(gram_log_proba(G0, G0s, g0ss, [log_s], [1.0], [(nu, tau)]))
    return np.asarray(log_z), np.stack(lps)


def main(argv) -> int:
    reps = int(argv[0]) if argv else 6
    rows = []
    for name in SCENARIOS:
        sc = _ALL_SCENARIOS[name]
        X_real = None if sc.kind == "simulation" else _standardised_dataset(sc.dataset)
        for rep in range(reps):
            data = make_replicate(sc, 1000 * rep, X_real=X_real)
            own = fit_linear_probit(data["X_train"], data["y_train"])
            log_z, lps = per_grid(data, own)
            for i, log_s in enumerate(LOG_S_GRID):
                s = calibration_scores(np.exp(lps[i]), data["p_test"])
                rows.append({"scenario": name, "rep": rep, "what": "grid", "log_s": log_s,
                             "kl": s["kl"], "slope": s["slope"]})
            for label, (m, sd) in PRIORS.items():
                log_post = log_z - (0.0 if np.isinf(sd) else 0.5 * ((LOG_S_GRID - m) / sd) ** 2)
                w = np.exp(log_post - logsumexp(log_post))
                lp = logsumexp(lps + np.log(np.maximum(w, 1e-300))[:, None, None], axis=0)
                if label.endswith("(as is)"):      # the package's own fit, as a check
                    diff = np.abs(np.exp(own.predict_log_proba(data["X_test"])) - np.exp(lp))
                    assert diff.max() < 1e-6, diff.max()
                s = calibration_scores(np.exp(lp), data["p_test"])
                rows.append({"scenario": name, "rep": rep, "what": label,
                             "log_s": float(w @ LOG_S_GRID), "kl": s["kl"],
                             "slope": s["slope"]})
            print(name, rep, flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(HERE / "results.csv", index=False)
    write_report(table, reps)
    return 0


def write_report(table, reps):
    L = ["# The probit model of all genes: KL and slope by the prior on its scale s", "",
         f"Made by `run.py` ({reps} replicates per scenario, the suite's data seeds). Mean "
         "over replicates (± SE); slope: 1 is calibrated, > 1 underconfident.", "",
         "## With each prior on log s (integrated over the grid)", "",
         "| scenario | prior | KL | slope | posterior mean log s |", "|---|---|---:|---:|---:|"]
    pri = table[table["what"] != "grid"]
    for (sc, what), g in pri.groupby(["scenario", "what"], sort=False):
        L.append(f"| {sc} | {what} | {g.kl.mean():.3f} ± {g.kl.std(ddof=1) / np.sqrt(len(g)):.3f}"
                 f" | {g.slope.mean():.2f} ± {g.slope.std(ddof=1) / np.sqrt(len(g)):.2f} | "
                 f"{g.log_s.mean():.1f} |")
    L += ["", "## At the single s with the lowest mean KL (an oracle no prior can beat)", "",
          "| scenario | log s | KL | slope | slope at log s + 2 | KL at log s + 2 |",
          "|---|---:|---:|---:|---:|---:|"]
    grid = table[table["what"] == "grid"]
    for sc, g in grid.groupby("scenario", sort=False):
        m = g.groupby("log_s")[["kl", "slope"]].mean()
        best = m["kl"].idxmin()
        up = m.loc[min(best + 2, m.index.max())]
        L.append(f"| {sc} | {best:.1f} | {m.at[best, 'kl']:.3f} | {m.at[best, 'slope']:.2f} | "
                 f"{up['slope']:.2f} | {up['kl']:.3f} |")
    (HERE / "report.md").write_text("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
