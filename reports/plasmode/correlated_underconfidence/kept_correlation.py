"""Do the kept genes move together? An offline check of the claim in README.md, no decision.

For the replicates of ``binned_omitted.py`` (the three collapsed ones first), at the k the
default chose: the mean absolute within-class correlation among the kept genes, against the
same for the top k genes by F under permuted labels (the same real X; 20 permutations, mean
and range), i.e. what selecting noise genes from these data gives.

Run: ``python reports/plasmode/correlated_underconfidence/kept_correlation.py`` (under a
minute); writes ``kept_correlation.md`` beside this file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from selbayes.estimators._gaussian import _rank
from selbayes.experiments.plasmode import SCENARIOS, make_replicate

HERE = Path(__file__).resolve().parent
SEED, N_PERM = 0, 20
CASES = [("plasmode_module", 0, 5), ("plasmode_module", 3, 10), ("plasmode_sparse", 2, 20),
         ("plasmode_module", 1, 100), ("sim_sparse_strong", 0, 10), ("sim_dense_weak", 0, 500)]


def mean_abs_within_corr(X, yi, idx) -> float:
    """Mean |correlation| over pairs of the columns ``idx``, after centring each class."""
    Z = X[:, idx].astype(float).copy()
    for g in np.unique(yi):
        Z[yi == g] -= Z[yi == g].mean(axis=0)
    C = np.corrcoef(Z, rowvar=False)
    return float(np.abs(C[np.triu_indices_from(C, 1)]).mean())


def top_k(X, yi, k):
    classes = np.unique(yi)
    scores = _rank(X, yi, classes).scores
    return np.argsort(-scores, kind="stable")[:k]


def main() -> int:
    rng = np.random.default_rng(SEED)
    L = ["# Within-class correlation of the kept genes, against noise genes selected alike", "",
         "Made by `kept_correlation.py` (see its docstring). Mean |within-class correlation| "
         "over pairs of the k kept genes; permuted: the top k by F under permuted labels "
         f"(mean and range over {N_PERM} permutations).", "",
         "| scenario | replicate | k | kept genes | permuted labels: mean (range) |",
         "|---|---|---|---|---|"]
    for scenario, rep, k in CASES:
        data = make_replicate(SCENARIOS[scenario], SEED + 1000 * rep)
        X, y = data["X_train"], data["y_train"]
        yi = np.unique(y, return_inverse=True)[1]
        kept = mean_abs_within_corr(X, yi, top_k(X, yi, k))
        perm = []
        for _ in range(N_PERM):
            yp = rng.permutation(yi)
            perm.append(mean_abs_within_corr(X, yp, top_k(X, yp, k)))
        L.append(f"| {scenario} | {rep} | {k} | {kept:.3f} | {np.mean(perm):.3f} "
                 f"({min(perm):.3f} to {max(perm):.3f}) |")
        print(L[-1], flush=True)
    (HERE / "kept_correlation.md").write_text("\n".join(L) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
