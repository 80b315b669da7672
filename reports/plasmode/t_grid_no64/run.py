"""The t prior's df chosen by the marginal likelihood from a grid without df 64: an offline
check (plug-in posterior). The rule and the candidate are in README.md (written before the
run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k
chosen with the share 1/(n + 2), then the share at that k) and ``pi_grid_no64`` (the same
procedure, every fit with ``mu_t_df_grid = GRID``). Run: ``python
reports/plasmode/t_grid_no64/run.py [jobs]`` (resumes from ``results.jsonl``), then
``compare.py``.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES   # c of the share c / (n + 2); c = 1 (Laplace's) first
GRID = (1.0, 2.0, 4.0, 8.0, 16.0)     # T_DF_GRID without 64


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    methods = {"pi_noise_cv": R.priors, "pi_grid_no64": replace(R.priors, mu_t_df_grid=GRID)}
    rows = []
    for method, priors in methods.items():
        loss = offline.inner_losses(R, ks, lambda Z, y_tr, X_te, sel, n_tr, pr=priors:
                                    offline.share_log_probas(Z, y_tr, G, X_te, sel, pr, n_tr,
                                                             R.seed)[0])   # (k, share, n)
        score = loss.mean(-1)                              # (k, share)
        ki = int(np.argmin(score[:, 0]))
        si = int(np.argmin(score[ki]))
        Z, X_test, sel = offline.outer_selection(R, ks[ki])
        lps, df = offline.share_log_probas(Z, yi, G, X_test, sel, priors, n, R.seed)
        rows.append(offline.scored_row(R, scenario_name, rep, method, lps[si], k=int(ks[ki]),
                                       t_df=df, share_c=SHARES[si],
                                       inner_score=float(score[ki, si])))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "t_df", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
