"""After the run (reported, decides nothing): what the default's stack is made of in
sim_dense_weak where the new grid chose k = 1999 and the stack stayed underconfident.

Refits the candidate (``selbayes_k_grid_clip``, the default since 2026-12-06) on the run's
sim_dense_weak replicates (same data and estimator seeds: the stack's KL is checked against
``results.jsonl``) and writes per replicate the Gaussian component's k, temperature and
label-noise share, and KL, slope, expected and actual error of the stack, of each component,
and of the Gaussian model refitted at the same k with T = 1 and no label-noise share, to
``all_genes_parts.csv``.

Run from the repository root: ``python reports/plasmode/k_grid_clip/all_genes_parts.py``
(about 10 minutes on 2 cores).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py)
import probe  # noqa: E402  (reports/plasmode/probe.py)
from run import DATA_SEED, REPLICATES  # noqa: E402

NAME, METHOD = "sim_dense_weak", "selbayes_k_grid_clip"


def parts(rep: int) -> list[dict]:
    import selbayes
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import SCENARIOS, make_replicate

    warnings.simplefilter("ignore")
    d = make_replicate(SCENARIOS[NAME], DATA_SEED + 1000 * rep)
    est = make_method(METHOD, 2, random_state=rep).fit(d["X_train"], d["y_train"])
    gauss = est.estimator_
    own = selbayes.HierarchicalGaussianClassifier(
        k=int(est.k_), temperature=1.0, label_noise=0.0, random_state=rep,
        progressbar=False).fit(d["X_train"], d["y_train"])
    gaussian, probit = (np.exp(lp) for lp in est._component_log_probas(d["X_test"])[:2])
    probas = {"stack": est.predict_proba(d["X_test"]), "gaussian": gaussian,
              "probit_all_genes": probit, "gaussian_T1_no_noise": own.predict_proba(d["X_test"])}
    base = {"replicate": rep, "k": int(est.k_), "temperature": float(gauss.temperature_),
            "label_noise": float(gauss.label_noise_), "w_gaussian": est.weights_[0],
            "w_probit": est.weights_[1]}
    return probe.part_rows(base, probas, d["p_test"],
                           scores=("kl", "slope", "expected_error", "actual_error"))


def main() -> None:
    from joblib import Parallel, delayed

    rows = [r for rs in Parallel(n_jobs=2)(delayed(parts)(rep) for rep in range(REPLICATES))
            for r in rs]
    df = pd.DataFrame(rows)
    run = paired.read_rows(HERE / "results.jsonl")
    for rep, kl in df[df.part == "stack"].set_index("replicate")["kl"].items():
        assert abs(kl - run[(METHOD, NAME, rep)]["kl"]) < 1e-9, (rep, kl)
    df.round(4).to_csv(HERE / "all_genes_parts.csv", index=False)
    print(df.round(3).to_string())


if __name__ == "__main__":
    main()
