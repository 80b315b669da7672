"""k chosen as the largest within one paired SE of the best inner score: an offline check
(plug-in posterior). The rule and the candidate are in README.md (written before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k with
the lowest inner loss at the share 1/(n + 2), then the share at that k) and
``pi_k_large_1se`` (the largest k within one paired SE of that lowest loss, then the share
at that k). Both come from one inner cross-validation. Run: ``python
reports/plasmode/larger_k_one_se/run.py [jobs]`` (resumes from ``results.jsonl``), then
``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES   # c of the share c / (n + 2); c = 1 (Laplace's) first


def one_replicate(scenario_name, rep):
    from selbayes.estimators._inner_cv import pick_candidate

    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss = offline.inner_losses(R, ks, lambda Z, y_tr, X_te, sel, n_tr:
                                offline.share_log_probas(Z, y_tr, G, X_te, sel, R.priors,
                                                         n_tr, R.seed)[0])   # (k, share, n)
    score = loss.mean(-1)                                                  # (k, share)
    chosen = {"pi_noise_cv": int(np.argmin(score[:, 0])),
              # the package's one-SE rule, its "smallest temperature" read as the largest k
              "pi_k_large_1se": pick_candidate(loss[:, 0, :], [-k for k in ks], "one_se")}
    curve = {str(k): float(score[i, 0]) for i, k in enumerate(ks)}
    rows = []
    for ki in sorted(set(chosen.values())):
        si = int(np.argmin(score[ki]))
        Z, X_test, sel = offline.outer_selection(R, ks[ki])
        lps, df = offline.share_log_probas(Z, yi, G, X_test, sel, R.priors, n, R.seed)
        for method, kj in chosen.items():
            if kj == ki:
                rows.append(offline.scored_row(R, scenario_name, rep, method, lps[si],
                                               k=int(ks[ki]), t_df=df, share_c=SHARES[si],
                                               inner_score=float(score[ki, si]),
                                               inner_curve=curve))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
