"""The default's posterior-predictive check on each replicate of one plasmode scenario.

``python reports/plasmode/ppc_collapse_probe/probe.py plasmode_module > module.jsonl``: one
JSON line per replicate (the suite's seeds, so KL and slope reproduce
``../label_noise_cv_mcmc/results.jsonl``) with the check's smallest ppp and m x min ppp, the
quantity the fit's warning compares with 1e-3. See README.md.
"""

import json
import sys
import warnings

from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, fit_replicate

DEFAULT = "sb_t_auto_wide_noise_cv"


def main(scenario: str) -> None:
    for rep in range(6):
        est, data = fit_replicate(DEFAULT, SCENARIOS[scenario], rep, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = calibration_scores(est.predict_proba(data["X_test"]), data["p_test"])
        table = est.ppc_checks_
        print(json.dumps({"sc": scenario, "rep": rep, "k": int(est.k_), "t_df": float(est.t_df_),
                          "kl": scores["kl"], "slope": scores["slope"],
                          "min_ppp": float(table["ppp"].min()),
                          "bonf": float(table["ppp"].min() * len(table)),
                          "cols": list(table.columns)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
