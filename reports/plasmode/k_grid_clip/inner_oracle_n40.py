"""After the run (a look, deciding nothing): could any inner score have picked the all-genes
candidate at 40 cases? The scenario's Bayes-optimal predictive (the exact posterior
predictive of the simulation's own model, ``bayes_optimal_log_odds``), fitted on each inner
training fold of the default's inner cross-validation and scored on its inner test fold,
beside the plug-in curve the default chose k from, in all eight sim_dense_weak_n40
replicates of the run. Where even that predictive scores worse than the chosen small k, the
inner folds cannot show the signal to any model. Writes ``inner_oracle_n40.csv``.

Run from the repository root: ``python reports/plasmode/k_grid_clip/inner_oracle_n40.py``
(about 4 minutes).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import DATA_SEED, REPLICATES  # noqa: E402


def oracle_inner_losses(scenario, X, y_index, folds) -> np.ndarray:
    """-log p(true class) (nats) of every inner test case under the Bayes-optimal predictive
    fitted on its inner training fold."""
    from selbayes.experiments.plasmode import bayes_optimal_log_odds

    loss = np.full(len(y_index), np.nan)
    for train, test in folds:
        z = bayes_optimal_log_odds(scenario, X[train], y_index[train], X[test])
        loss[test] = np.logaddexp(0, np.where(y_index[test] == 1, -z, z))
    return loss


def curve_losses(choice, row, y_index) -> np.ndarray:
    """-log p(true class) (nats) of every inner test case at the curve's row ``row``."""
    log_proba = choice._case_log_proba_at(row, None)
    return -log_proba[np.arange(len(y_index)), y_index]


def mean_se(x) -> tuple[float, float]:
    return float(np.mean(x)), float(np.std(x, ddof=1) / np.sqrt(len(x)))


def main() -> None:
    import selbayes
    from selbayes.experiments.plasmode import SMALL_SAMPLE_SCENARIOS, make_replicate

    warnings.simplefilter("ignore")
    scenario = SMALL_SAMPLE_SCENARIOS["sim_dense_weak_n40"]
    rows = []
    for rep in range(REPLICATES):
        d = make_replicate(scenario, DATA_SEED + 1000 * rep)
        est = selbayes.HierarchicalGaussianClassifier(method="plugin", random_state=rep,
                                                      progressbar=False)
        est.fit(d["X_train"], d["y_train"])
        choice = est.k_choice_
        y_index = np.searchsorted(est.classes_, d["y_train"])
        X = d["X_train"]
        if choice.extra.get("cases") is not None:      # a class of one case is not split
            X, y_index = X[choice.extra["cases"]], y_index[choice.extra["cases"]]
        oracle = oracle_inner_losses(scenario, X, y_index, choice.extra["folds"])
        ks = [g[0] for g in choice.grid]

        chosen = curve_losses(choice, ks.index(est.k_), y_index)
        last = curve_losses(choice, len(ks) - 1, y_index)
        rows.append({
            "replicate": rep, "k_chosen": est.k_,
            "score_chosen": mean_se(chosen)[0], "score_all_genes": mean_se(last)[0],
            "score_oracle": mean_se(oracle)[0], "se_oracle": mean_se(oracle)[1],
            "oracle_minus_chosen": mean_se(oracle - chosen)[0],
            "se_oracle_minus_chosen": mean_se(oracle - chosen)[1],
            "oracle_minus_all_genes": mean_se(oracle - last)[0],
            "se_oracle_minus_all_genes": mean_se(oracle - last)[1],
            "coin_flip": float(np.log(2))})
        print(rows[-1], flush=True)
    out = pd.DataFrame(rows).round(4)
    out.to_csv(HERE / "inner_oracle_n40.csv", index=False)
    print(out.to_string(index=False))


if __name__ == "__main__":
    main()
