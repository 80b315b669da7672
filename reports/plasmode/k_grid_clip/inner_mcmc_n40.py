"""After the run (a probe, deciding nothing): is the 40-case inner curve's verdict on the
all-genes candidate the plug-in predictive's? For four sim_dense_weak_n40 replicates whose
default kept a small k (5, 50, 200, 200), the Gaussian model at k = 1999 (T = 1, no label
noise) is fitted on each inner training fold of the default's inner cross-validation, once
with the plug-in posterior (hyperparameters at their mode: what scores the inner candidates)
and once with MCMC (at the inner refits' lighter settings), and each scores the fold's test
cases. Writes ``inner_mcmc_n40.csv``: per replicate and method the mean inner log loss, beside
the default's inner curve at its chosen k.

Run from the repository root: ``python reports/plasmode/k_grid_clip/inner_mcmc_n40.py``
(about 10 minutes on 2 cores).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import DATA_SEED  # noqa: E402

REPLICATES = (7, 0, 1, 2)


def one(rep: int) -> list[dict]:
    import selbayes
    from selbayes.experiments.plasmode import SMALL_SAMPLE_SCENARIOS, make_replicate

    warnings.simplefilter("ignore")
    d = make_replicate(SMALL_SAMPLE_SCENARIOS["sim_dense_weak_n40"], DATA_SEED + 1000 * rep)
    X, y = d["X_train"], d["y_train"]
    first = selbayes.HierarchicalGaussianClassifier(method="plugin", random_state=rep,
                                                    progressbar=False).fit(X, y)
    table = first.k_choice_.table()
    chosen = float(table.score[table.k == first.k_].iloc[0])
    out = []
    for method, extra in (("plugin", {}), ("mcmc", {"tune": 500, "draws": 250})):
        loss = np.empty(y.size)
        for tr, te in first.k_choice_.extra["folds"]:
            fold = selbayes.HierarchicalGaussianClassifier(
                k=1999, temperature=1.0, label_noise=0.0, method=method, random_state=rep,
                progressbar=False, **extra).fit(X[tr], y[tr])
            lp = fold.predict_log_proba(X[te])
            loss[te] = -lp[np.arange(te.size), y[te]]
        out.append({"replicate": rep, "k_chosen": int(first.k_), "score_chosen": chosen,
                    "method_k1999": method, "inner_loss_k1999": float(loss.mean()),
                    "se": float(loss.std(ddof=1) / np.sqrt(loss.size))})
    return out


def main() -> None:
    from joblib import Parallel, delayed

    rows = [r for rs in Parallel(n_jobs=2)(delayed(one)(rep) for rep in REPLICATES) for r in rs]
    df = pd.DataFrame(rows).round(4)
    df.to_csv(HERE / "inner_mcmc_n40.csv", index=False)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
