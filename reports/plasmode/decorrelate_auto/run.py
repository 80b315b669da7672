"""The paper's decorrelation, lambda chosen with k by the inner cross-validation (the
estimator's ``decorrelate="auto"``): an offline check (plug-in posterior). The rule and the
candidate are in README.md (written before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k with
the lowest inner loss at the share 1/(n + 2), then the share at that k) and
``pi_decorrelate_auto`` (the same over the candidates (k, lambda), lambda in
``DEFAULT_DECORRELATE_GRID``). Run: ``python reports/plasmode/decorrelate_auto/run.py [jobs]``
(resumes from ``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES   # c of the share c / (n + 2); c = 1 (Laplace's) first


def candidate_selections(X, yi, G, candidates):
    """(Z, feats, sel) of every (k, lambda) candidate, as the estimator prepares them."""
    from selbayes.estimators._inner_cv import _candidate_selections

    return _candidate_selections(X, yi, G, candidates, True, "symmetric")


def one_replicate(scenario_name, rep):
    from selbayes.estimators._inner_cv import DEFAULT_DECORRELATE_GRID

    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    cands = [(k, lam) for lam in DEFAULT_DECORRELATE_GRID for k in ks]
    loss = None                                               # (candidate, share, n)
    for tr, te in R.folds:
        for ci, (Z, feats, sel) in enumerate(candidate_selections(X[tr], yi[tr], G, cands)):
            lps = offline.share_log_probas(Z, yi[tr], G, feats.selected(X[te], sel.indices),
                                           sel, R.priors, tr.size, R.seed)[0]
            if loss is None:
                loss = np.zeros((len(cands), lps.shape[0], n))
            loss[ci][:, te] = -lps[:, np.arange(te.size), yi[te]]
    score = loss.mean(-1)                                     # (candidate, share)
    plain = [i for i, (_, lam) in enumerate(cands) if lam is None]
    chosen = {"pi_noise_cv": plain[int(np.argmin(score[plain, 0]))],
              "pi_decorrelate_auto": int(np.argmin(score[:, 0]))}
    rows = []
    for ci in sorted(set(chosen.values())):
        si = int(np.argmin(score[ci]))
        (Z, feats, sel), = candidate_selections(X, yi, G, [cands[ci]])
        X_test = feats.selected(R.data["X_test"], sel.indices)
        lps, df = offline.share_log_probas(Z, yi, G, X_test, sel, R.priors, n, R.seed)
        for method, cj in chosen.items():
            if cj == ci:
                k, lam = cands[ci]
                rows.append(offline.scored_row(
                    R, scenario_name, rep, method, lps[si], k=int(k), decorrelate=lam,
                    t_df=df, share_c=SHARES[si], inner_score=float(score[ci, si]),
                    inner_curve={f"{kk},{ll}": float(score[i, 0])
                                 for i, (kk, ll) in enumerate(cands)}))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "decorrelate", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
