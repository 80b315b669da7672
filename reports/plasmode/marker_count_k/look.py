"""The look before README.md's rule (training data only; no test case is read): on replicates
seen by earlier checks, the default's inner cross-validation curve over k (``choose_k`` with
the Gaussian model's own settings and the fits' estimator seed), the candidates within one
paired standard error of the best, and Storey's estimate of the number of genes with a class
difference, m = (1 - pi0) p, from the F tests' p-values of the training cases.

Run from the repository root: ``python reports/plasmode/marker_count_k/look.py SCENARIO SEED
REPS`` (e.g. ``sim_dense_weak 3900 0,1,2,3,4,5``); prints one JSON line per replicate.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the suite's replicates)


def storey_markers(X, yi, lam: float = 0.5) -> float:
    """(1 - pi0) p, pi0 Storey's (2002) estimate from the one-way F tests' p-values."""
    from sklearn.feature_selection import f_classif

    _, pv = f_classif(X, yi)
    pi0 = min(1.0, float(np.mean(pv > lam)) / (1 - lam))
    return (1 - pi0) * X.shape[1]


def main(scenario: str, seed: int, reps) -> None:
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._inner_cv import choose_k

    warnings.simplefilter("ignore")
    est = HierarchicalGaussianClassifier(progressbar=False)
    for rep in reps:
        R = offline.replicate(scenario, rep, seed=seed)
        ch = choose_k(R.X, R.yi, priors=est._prior_object(), random_state=rep,
                      **est._choice_settings(None))
        L = ch.extra["case_losses"]
        best = int(np.argmin(L.mean(axis=1)))
        d_se = (L - L[best]).std(axis=1, ddof=1) / np.sqrt(L.shape[1])
        diff = L.mean(axis=1) - L[best].mean()
        grid = [g[0] for g in ch.grid]
        print(json.dumps(dict(
            scen=scenario, seed=seed, rep=rep, k=ch.k, grid=grid,
            diff=np.round(diff, 3).tolist(), d_se=np.round(d_se, 3).tolist(),
            within_1se=[k for k, d, s in zip(grid, diff, d_se, strict=True) if d <= s],
            markers=round(storey_markers(R.X, R.yi), 1))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), [int(r) for r in sys.argv[3].split(",")])
