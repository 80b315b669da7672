"""After the check (decides nothing): with 40 training cases of a dense weak signal, how does
the Gaussian model alone (plug-in, the default's label-noise share and temperature) fare
against the truth at a few k, under the t prior with its df chosen by the data (the default)
and under the normal prior? Replicates 0-5 of sim_dense_weak_n40 at data seed 7900 + 1000 r
(those of ``../inner_repeats/true_curve.py``, seen before), fitted on all 40 training cases.

Run from the repository root:
``python reports/plasmode/plugin_noise_variance/after_look.py sim_dense_weak_n40 0 6``; one
JSON line per replicate: per prior (its df) and k, [KL, calibration slope, expected - actual
error]; collected in ``after_look.jsonl``.
"""

import json
import sys
import warnings

from selbayes import HierarchicalGaussianClassifier
from selbayes.experiments.plasmode import calibration_scores, make_replicate, scenario

warnings.simplefilter("ignore")
sc = scenario(sys.argv[1])
for rep in range(int(sys.argv[2]), int(sys.argv[3])):
    d = make_replicate(sc, 7900 + 1000 * rep)
    X, y, Xt, pt = d["X_train"], d["y_train"], d["X_test"], d["p_test"]
    out = {"rep": rep}
    for k in (50, 500, 1999):
        for ep in ("t_auto", "normal"):
            m = HierarchicalGaussianClassifier(k=k, method="plugin", effect_prior=ep,
                                               random_state=rep, progressbar=False).fit(X, y)
            s = calibration_scores(m.predict_proba(Xt), pt)
            out[f"{ep}{'' if m.t_df_ is None else int(m.t_df_)}_{k}"] = [
                round(s["kl"], 3), round(s["slope"], 2),
                round(s["expected_error"] - s["actual_error"], 3)]
    print(json.dumps(out), flush=True)
