"""The default's label-noise share on the suite's six sim_sparse_strong replicates, and what the
slope is with and without it (a probe; nothing is chosen).

``run.py`` finds that the Bayes-optimal predictor with a label-noise component of c / (n + 2)
has slope 1.20 (c = 1/4) or 1.39 (c = 1) on these replicates, against 1.08 without. This refits
the default (``../refit_inner/run.py``'s ``fit_stack``: the same fit, data and seeds as the
committed rows) and records, per replicate: the share eps its inner cross-validation chose, its
slope and KL as committed (checked: the refit reproduces them), the same with the Gaussian
model's label-noise component removed after the fit (eps set to 0 for prediction only: a
decomposition, not a candidate), and the oracle with the same eps.

Run: ``python reports/plasmode/bayes_oracle_probe/default_share.py`` (about 2 minutes); writes
``default_share.csv`` here.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py)

from selbayes.experiments.plasmode import (  # noqa: E402
    SCENARIOS,
    bayes_optimal_log_odds,
    calibration_scores,
)
from selbayes.models import label_noise_log_proba  # noqa: E402


def main() -> pd.DataFrame:
    refit = offline.load_script(HERE.parent / "refit_inner" / "run.py", "refit_inner_run")
    oracle = offline.load_script(HERE / "run.py", "bayes_oracle_run")
    sc = SCENARIOS["sim_sparse_strong"]
    rows = []
    for rep in range(oracle.SUITE_REPLICATES):
        data, _, clf, _ = refit.fit_stack(sc.name, rep)
        gauss = clf.estimator_
        eps = float(gauss.label_noise_)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with_noise = calibration_scores(clf.predict_proba(data["X_test"]), data["p_test"])
            gauss.label_noise_ = 0.0                   # prediction only: the decomposition
            without = calibration_scores(clf.predict_proba(data["X_test"]), data["p_test"])
            gauss.label_noise_ = eps
        n = len(data["y_train"])
        z = bayes_optimal_log_odds(sc, data["X_train"], data["y_train"], data["X_test"])
        lp = np.column_stack([-np.logaddexp(0, z), -np.logaddexp(0, -z)])
        z_eps = np.diff(label_noise_log_proba(lp, np.log([0.5, 0.5]), eps), axis=1)[:, 0]
        orc = calibration_scores(np.column_stack([1 - expit(z), expit(z)]), data["p_test"])
        orc_eps = calibration_scores(np.column_stack([1 - expit(z_eps), expit(z_eps)]),
                                     data["p_test"])
        rows.append({"replicate": rep, "eps": eps, "c": eps * (n + 2),
                     "linear_weight": float(clf.weights_[1]), "k": int(clf.k_),
                     "default_slope": with_noise["slope"], "default_kl": with_noise["kl"],
                     "default_no_noise_slope": without["slope"],
                     "default_no_noise_kl": without["kl"],
                     "oracle_slope": orc["slope"], "oracle_kl": orc["kl"],
                     "oracle_same_eps_slope": orc_eps["slope"],
                     "oracle_same_eps_kl": orc_eps["kl"]})
        print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(HERE / "default_share.csv", index=False)
    return df


if __name__ == "__main__":
    df = main()
    cols = [c for c in df.columns if c.endswith("slope") or c.endswith("kl")]
    d = df[cols]
    print((d.mean().round(4).astype(str) + " ± " +
           (d.std(ddof=1) / np.sqrt(len(d))).round(4).astype(str)).to_string())
