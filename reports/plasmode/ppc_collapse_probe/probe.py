import json, sys, warnings, numpy as np
from selbayes.experiments.plasmode import SCENARIOS, fit_replicate, calibration_scores
sc = sys.argv[1]
for rep in range(6):
    est, data = fit_replicate("sb_t_auto_wide_noise_cv", SCENARIOS[sc], rep, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = calibration_scores(est.predict_proba(data["X_test"]), data["p_test"])
    t = est.ppc_checks_
    print(json.dumps({"sc": sc, "rep": rep, "k": int(est.k_), "t_df": float(est.t_df_), "kl": s["kl"], "slope": s["slope"],
                      "min_ppp": float(t["ppp"].min()), "bonf": float(t["ppp"].min() * len(t)),
                      "cols": list(t.columns)}), flush=True)
