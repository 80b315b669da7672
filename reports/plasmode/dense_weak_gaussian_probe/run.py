"""A probe (decides nothing): why the Gaussian model is overconfident at large k with 40
training cases in ``sim_dense_weak_n40``, where its assumptions hold.

``../small_n_probe/dense_weak_parts.csv`` found the default's Gaussian component, where its
inner cross-validation chose k = 500 or 1000, overconfident (expected error 0.25 to 0.33
against actual 0.32 to 0.36; calibration slope 0.60 to 0.77) while the scenario's
Bayes-optimal predictive is calibrated (slope 0.85 to 1.04). This probe fits the Gaussian
classifier alone at a fixed k on new replicates and changes one setting at a time, so that
each part of the default's predictive is seen on its own:

- ``default_k1000``: the default's Gaussian model at k = 1000 (t prior with df chosen,
  temperature from the kept genes' correlation, label-noise share by inner CV);
- ``t1_k1000``: the same, temperature 1 and no label noise;
- ``normal_k1000``, ``two_groups_k1000``: other effect priors, temperature 1, no label noise;
- ``t_uncorrected_k1000``: without the selection factor;
- ``t_k2000``, ``normal_k2000``: all 2000 genes (nothing omitted, so no correction).

New replicates: data seed 15900 + 1000 r (no earlier run drew them), estimator seed r.
Writes ``results.jsonl`` (one line per fit) and prints the means; ``report.md`` by hand.

Run from the repository root: ``python reports/plasmode/dense_weak_gaussian_probe/run.py [jobs]``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

NAME, DATA_SEED, REPLICATES = "sim_dense_weak_n40", 15900, 6



def ablations(k) -> dict:
    """The Gaussian classifier at ``k`` as the default sets it, and with temperature 1 and no
    label noise under its t prior, the normal and the two-groups prior, named by ``k``."""
    plain = dict(k=k, temperature=1.0, label_noise=0.0)
    return {f"default_k{k}": dict(k=k), f"t1_k{k}": plain,
            f"normal_k{k}": dict(plain, effect_prior="normal"),
            f"two_groups_k{k}": dict(plain, effect_prior="two_groups")}


CONFIGS = {
    **ablations(1000),
    "t_uncorrected_k1000": dict(k=1000, temperature=1.0, label_noise=0.0,
                                correct_selection=False),
    "t_k2000": dict(k="all", temperature=1.0, label_noise=0.0),
    "normal_k2000": dict(k="all", temperature=1.0, label_noise=0.0, effect_prior="normal"),
}


def one(rep: int, config: str, name: str = NAME, data_seed: int = DATA_SEED,
        configs: dict = CONFIGS) -> dict:
    """One fit of the Gaussian classifier with ``configs[config]`` on replicate ``rep`` of
    scenario ``name`` (data seed ``data_seed + 1000 rep``, estimator seed ``rep``), scored
    with the scenario's Bayes-optimal predictive beside it (another probe reuses it)."""
    import selbayes
    from selbayes.experiments.plasmode import calibration_scores, make_replicate, scenario

    warnings.simplefilter("ignore")
    sc = scenario(name)
    d = make_replicate(sc, data_seed + 1000 * rep)
    est = selbayes.HierarchicalGaussianClassifier(random_state=rep, progressbar=False,
                                                  **configs[config])
    est.fit(d["X_train"], d["y_train"])
    s = calibration_scores(est.predict_proba(d["X_test"]), d["p_test"])
    o = calibration_scores(probe.bayes_optimal_proba(sc, d), d["p_test"])
    post = est.idata_.posterior
    tau_mu = float(np.median(np.asarray(post["tau_mu"]))) if "tau_mu" in post else None
    return {"config": config, "replicate": rep, "kl": s["kl"], "slope": s["slope"],
            "expected_error": s["expected_error"], "actual_error": s["actual_error"],
            "oracle_kl": o["kl"], "oracle_slope": o["slope"],
            "oracle_expected_error": o["expected_error"], "oracle_actual_error": o["actual_error"],
            "t_df": getattr(est, "t_df_", None), "temperature": getattr(est, "temperature_", None),
            "label_noise": getattr(est, "label_noise_", None), "tau_mu_median": tau_mu}


def run_configs(out: Path, replicates, jobs: int = 2, name: str = NAME,
                data_seed: int = DATA_SEED, configs: dict = CONFIGS):
    """Fit every (configuration, replicate) not yet in ``out`` (one line per fit, appended
    as each ends, so a run resumes) with :func:`one`; returns all of ``out``'s rows as a
    DataFrame with ``gap`` = expected - actual error."""
    import pandas as pd
    from joblib import Parallel, delayed

    done = set()
    if out.exists():
        lines = out.read_text().splitlines()
        done = {(r["config"], r["replicate"]) for r in map(json.loads, lines)}
    todo = [(rep, c) for c in configs for rep in replicates if (c, rep) not in done]
    with out.open("a") as fh:
        for row in Parallel(n_jobs=jobs, return_as="generator")(
                delayed(one)(r, c, name, data_seed, configs) for r, c in todo):
            fh.write(json.dumps(row, default=float) + "\n")
            fh.flush()
            print(row["config"], row["replicate"], round(row["kl"], 4), round(row["slope"], 3),
                  flush=True)
    df = pd.DataFrame(map(json.loads, out.read_text().splitlines()))
    df["gap"] = df.expected_error - df.actual_error
    return df


def main(jobs: int = 2) -> None:
    df = run_configs(HERE / "results.jsonl", range(REPLICATES), jobs)
    print(df.groupby("config")[["kl", "oracle_kl", "slope", "gap", "expected_error",
                                "actual_error", "t_df", "tau_mu_median"]].mean().round(3))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
