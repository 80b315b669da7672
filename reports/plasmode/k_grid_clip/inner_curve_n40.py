"""After the run (a look, deciding nothing): the inner cross-validation curve of k in two
sim_dense_weak_n40 replicates of the run, one where the default kept k = 5 (replicate 7) and
one where it chose a large k (replicate 4). The curve is the plug-in inner scores the choice
is made on (the Gaussian classifier's own inner cross-validation; ``method="plugin"`` only
skips the final MCMC fit, which does not enter the curve). Writes ``inner_curve_n40.csv``.

Run from the repository root: ``python reports/plasmode/k_grid_clip/inner_curve_n40.py``
(about a minute).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import DATA_SEED  # noqa: E402


def main() -> None:
    import selbayes
    from selbayes.experiments.plasmode import SMALL_SAMPLE_SCENARIOS, make_replicate

    warnings.simplefilter("ignore")
    tables = []
    for rep in (7, 4):
        d = make_replicate(SMALL_SAMPLE_SCENARIOS["sim_dense_weak_n40"], DATA_SEED + 1000 * rep)
        est = selbayes.HierarchicalGaussianClassifier(method="plugin", random_state=rep,
                                                      progressbar=False)
        est.fit(d["X_train"], d["y_train"])
        t = est.k_choice_.table()[["k", "temperature", "score", "se"]]
        tables.append(t.assign(replicate=rep, chosen=t.k == est.k_))
    out = pd.concat(tables).round(4)
    out.to_csv(HERE / "inner_curve_n40.csv", index=False)
    print(out.to_string(index=False))


if __name__ == "__main__":
    main()
