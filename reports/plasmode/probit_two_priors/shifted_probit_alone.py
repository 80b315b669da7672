"""After the verdict (reported, decides nothing): the probit model alone, with the isotropic
prior (the default's component) and with the two priors averaged by their evidence (this
folder's candidate), on the "shifted" scenarios (``selbayes.experiments.plasmode.
SHIFTED_SCENARIOS``: classes that shift genes correlated as gravier's are, as separable as the
simulations), beside the simulations and the plasmode scenarios, six replicates each (run
seed 0). Writes ``shifted_probit_alone.csv`` (mean and SE over replicates).

Run from the repository root:
``python reports/plasmode/probit_two_priors/shifted_probit_alone.py`` (a minute).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)

COMPARE = offline.load_script(HERE / "compare.py", "probit_two_priors_compare")
NAMES = ("sim_sparse_strong", "sim_dense_weak", "shifted_sparse_strong", "shifted_dense_weak",
         "shifted_factor",
         "plasmode_sparse", "plasmode_dense")


def main() -> None:
    from selbayes.experiments.plasmode import (
        SCENARIOS,
        SHIFTED_SCENARIOS,
        calibration_scores,
        make_replicate,
    )

    rows = []
    for name in NAMES:
        sc = {**SCENARIOS, **SHIFTED_SCENARIOS}[name]
        for rep in range(6):
            d = make_replicate(sc, 1000 * rep)
            mixed, p_cov, iso = COMPARE.two_priors(d["X_train"], d["y_train"], d["X_test"])
            for prior, lp in (("isotropic", iso), ("two_priors", mixed)):
                s = calibration_scores(np.exp(lp), d["p_test"])
                rows.append({"scenario": name, "prior": prior, "replicate": rep,
                             "p_cov": p_cov, **{k: s[k] for k in (
                                 "kl", "expected_error", "actual_error", "abs_gap", "slope")}})
    g = pd.DataFrame(rows).drop(columns="replicate").groupby(["scenario", "prior"], sort=False)
    out = g.mean().join(g.sem().add_suffix("_se")).round(3)
    out.to_csv(HERE / "shifted_probit_alone.csv")
    print(out[["kl", "kl_se", "expected_error", "actual_error", "slope", "p_cov"]].to_string())


if __name__ == "__main__":
    main()
