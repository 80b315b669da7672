"""After the run (reported, decides nothing): the stack's all-genes probit regression alone in
the two simulations, where the Gaussian model holds (against the scenario's Bayes-optimal
predictive), and in two plasmode scenarios, where labels are drawn given real X, at 40
training cases (this probe's replicates) and at the suite's 60 to 80 (its run seed 0: data
seed 1000 r). Writes ``probit_alone.csv`` (mean and SE over six
replicates of KL, expected and actual error and the calibration slope), and
``probit_which_way.csv`` (:func:`which_way_round`).

Run from the repository root: ``python reports/plasmode/small_n_probe/probit_alone.py``
(seconds; no MCMC).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
CASES = [("sim_dense_weak_n40", 700), ("sim_dense_weak", 0), ("sim_sparse_strong_n40", 700),
         ("sim_sparse_strong", 0), ("plasmode_sparse_n40", 700), ("plasmode_sparse", 0),
         ("plasmode_dense_n40", 700), ("plasmode_dense", 0)]


def main() -> None:
    from selbayes.experiments.plasmode import (
        bayes_optimal_log_odds,
        calibration_scores,
        make_replicate,
        scenario,
    )
    from selbayes.models import fit_linear_probit

    rows = []
    for name, seed in CASES:
        sc = scenario(name)
        for rep in range(6):
            d = make_replicate(sc, seed + 1000 * rep)
            fit = fit_linear_probit(d["X_train"], d["y_train"])
            parts = [("probit_all_genes", np.exp(fit.predict_log_proba(d["X_test"])))]
            if sc.kind == "simulation":         # a closed-form optimum exists there only
                z = bayes_optimal_log_odds(sc, d["X_train"], d["y_train"], d["X_test"])
                parts.append(("bayes_optimal", np.c_[1 / (1 + np.exp(z)), 1 / (1 + np.exp(-z))]))
            for part, proba in parts:
                s = calibration_scores(proba, d["p_test"])
                rows.append({"scenario": name, "n_train": sc.n_train, "part": part,
                             "replicate": rep, **{k: s[k] for k in
                                                  ("kl", "expected_error", "actual_error",
                                                   "slope")}})
    df = pd.DataFrame(rows)
    g = df.groupby(["scenario", "n_train", "part"], sort=False)[
        ["kl", "expected_error", "actual_error", "slope"]]
    out = g.mean().join(g.sem().add_suffix("_se")).round(3)
    out.to_csv(HERE / "probit_alone.csv")
    print(out.to_string())
    print(which_way_round().to_string())


def which_way_round(replicates: int = 6, seed: int = 0) -> pd.DataFrame:
    """The probit regression alone where the labels generate X (the simulations: each case
    shifted by +-delta / 2) and where X generates the labels (X drawn first, independent
    normal genes with the same variances, labels Bernoulli(sigmoid(x' delta))), with
    sim_dense_weak's delta (1000 of 2000 genes, sd 0.12) and 80 training cases. Writes
    ``probit_which_way.csv``."""
    from selbayes.experiments.plasmode import calibration_scores
    from selbayes.models import fit_linear_probit

    rng = np.random.default_rng(seed)
    p, n, m = 2000, 80, 400
    rows = []
    for truth in ("labels generate X", "X generates labels"):
        for rep in range(replicates):
            delta = np.zeros(p)
            delta[:1000] = rng.normal(0, 0.12, 1000)
            if truth == "labels generate X":
                y = np.r_[np.repeat([0, 1], n // 2), rng.integers(0, 2, m)]
                X = rng.normal(size=(n + m, p)) + np.where(y == 1, 0.5, -0.5)[:, None] * delta
            else:
                X = rng.normal(size=(n + m, p)) * np.sqrt(1 + delta ** 2 / 4)
                y = (rng.random(n + m) < 1 / (1 + np.exp(-X @ delta))).astype(int)
            p1 = 1 / (1 + np.exp(-X[n:] @ delta))
            fit = fit_linear_probit(X[:n], y[:n])
            s = calibration_scores(np.exp(fit.predict_log_proba(X[n:])), np.c_[1 - p1, p1])
            rows.append({"truth": truth, "replicate": rep, "posterior_s": fit.s,
                         **{k: s[k] for k in ("kl", "expected_error", "actual_error",
                                              "slope")}})
    g = pd.DataFrame(rows).drop(columns="replicate").groupby("truth", sort=False)
    out = g.mean().join(g.sem().add_suffix("_se")).round(3)
    out.to_csv(HERE / "probit_which_way.csv")
    return out


if __name__ == "__main__":
    main()
