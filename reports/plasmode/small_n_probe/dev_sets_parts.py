"""After the run (reported, decides nothing): is the stack's probit component underconfident
on the development sets too? From the default's components stored per fold in
``reports/benchmark_microarray_components_2026-12-03/`` (5 folds, seed 0; no refit), per set:
expected minus actual error (expected error: the mean of 1 - the largest probability;
positive is underconfident) of the stack, of the Gaussian model alone and of the probit
regression of all genes alone, the probit model's error, and the stack's mean probit weight
(from that run's ``components.md``). Writes ``dev_sets_parts.csv``.

Run from the repository root: ``python reports/plasmode/small_n_probe/dev_sets_parts.py``
(seconds).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
RUN = HERE.parents[1] / "benchmark_microarray_components_2026-12-03"


def main() -> None:
    from selbayes.benchmark._runner import resolve_dataset

    rows = []
    for folder in sorted(p for p in (RUN / "folds").iterdir() if p.is_dir()):
        ds = resolve_dataset(folder.name)
        _, y = np.unique(ds.y.astype(str).to_numpy(), return_inverse=True)
        sums = {k: np.zeros(2) for k in ("stack", "gaussian", "probit")}
        n = 0
        for npz in sorted((folder / "selbayes").glob("r00_f*.npz")):
            stored = np.load(npz)
            test = np.asarray(json.loads(npz.with_suffix(".json").read_text())["meta"]["test"])
            parts = np.exp(stored["stack_test_log_proba"])
            for key, P in (("stack", stored["proba"]), ("gaussian", parts[0]),
                           ("probit", parts[1])):
                sums[key] += [np.sum(1 - P.max(axis=1)), np.sum(P.argmax(axis=1) != y[test])]
            n += test.size
        rows.append({"set": folder.name, "classes": int(y.max() + 1), "cases": n,
                     **{f"{k}_exp_minus_act": (v[0] - v[1]) / n for k, v in sums.items()},
                     "probit_error": sums["probit"][1] / n})
    df = pd.DataFrame(rows).set_index("set")
    weights = {}
    for line in (RUN / "components.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 8 and cells[0] in df.index:
            weights[cells[0]] = float(cells[4])
    df["stack_probit_weight"] = pd.Series(weights)
    df.round(3).to_csv(HERE / "dev_sets_parts.csv")
    print(df.round(3).to_string())


if __name__ == "__main__":
    main()
