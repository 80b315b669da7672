"""The look before README.md's rule: how much the default's k choice depends on the split of
the inner folds alone. For each of the six sim_dense_weak training sets of ``../light_refits/``
(data seed 3900), the default's inner cross-validation (``choose_k`` with the Gaussian model's
own settings, plug-in scores only; no test case is read) is run with six inner fold seeds.
Prints one JSON line per replicate: the k each seed chooses, the k the averaged curve would
choose, the curve averaged over the seeds and its SD over them (nats).

Run from the repository root: ``python reports/plasmode/inner_repeats/look.py 0,1,2,3,4,5``
(about 40 s per replicate); its output of 2026-12-05 is ``look.jsonl``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the suite's replicates)


def main(reps) -> None:
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._inner_cv import choose_k

    warnings.simplefilter("ignore")
    est = HierarchicalGaussianClassifier(progressbar=False)
    for rep in reps:
        R = offline.replicate("sim_dense_weak", rep, seed=3900)
        ks, scores = [], []
        for s in range(6):
            ch = choose_k(R.X, R.yi, priors=est._prior_object(), random_state=s,
                          **est._choice_settings(None))
            ks.append(ch.k)
            scores.append(ch.score)
        grid = [g[0] for g in ch.grid]
        m = np.mean(scores, axis=0)
        print(json.dumps(dict(scen="sim_dense_weak", seed=3900, rep=rep, ks=ks, grid=grid,
                              avg_k=grid[int(np.argmin(m))], avg=np.round(m, 3).tolist(),
                              sd=np.round(np.std(scores, axis=0), 3).tolist())), flush=True)


if __name__ == "__main__":
    main([int(r) for r in sys.argv[1].split(",")])
