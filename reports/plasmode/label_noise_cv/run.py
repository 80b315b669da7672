"""The label-noise share chosen by the inner cross-validation: an offline check (plug-in
posterior). The rule and the candidate are in README.md (written before the run).

Methods, on the replicates, inner folds and seeds of ``../stacking_k/`` (``pi_naive_T``
reproduces its rows): ``pi_naive_T`` (the control: the default's predictive, share 1/(n + 2),
best k), ``pi_noise_cv`` (that k, then the share c/(n + 2), c in ``SHARES``, with the lowest
inner log loss at that k) and ``pi_noise_cv_joint`` ((k, c) chosen together; reported).
Run: ``python reports/plasmode/label_noise_cv/run.py [jobs]`` (resumes from
``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES  # c of the share c / (n + 2); c = 1 (the default) first


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss = offline.inner_losses(R, ks, lambda Z, y_tr, X_te, sel, n_tr: offline.share_log_probas(
        Z, y_tr, G, X_te, sel, R.priors, n_tr, R.seed)[0])    # (k, share, n)
    score = loss.mean(-1)                                  # (k, share)
    k_default = int(np.argmin(score[:, 0]))
    choices = {"pi_naive_T": (k_default, 0),
               "pi_noise_cv": (k_default, int(np.argmin(score[k_default]))),
               "pi_noise_cv_joint": tuple(int(i) for i in
                                          np.unravel_index(np.argmin(score), score.shape))}
    outer = {}
    for ki in sorted({c[0] for c in choices.values()}):
        Z, X_test, sel = offline.outer_selection(R, ks[ki])
        outer[ki] = offline.share_log_probas(Z, yi, G, X_test, sel, R.priors, n, R.seed)[0]
    return [offline.scored_row(
        R, scenario_name, rep, method, outer[ki][si], k=int(ks[ki]), share_c=SHARES[si],
        inner_score=float(score[ki, si]),
        inner_by_share={str(c): float(score[ki, j]) for j, c in enumerate(SHARES)})
        for method, (ki, si) in choices.items()]


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
