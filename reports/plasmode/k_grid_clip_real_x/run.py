"""README.md's check (rule written before the run): the clipped k grid (the default) against
the dropped one on the suite's plasmode mechanisms with X a random subset of 1500 genes.

Run from the repository root: ``python reports/plasmode/k_grid_clip_real_x/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit, resumable) and ``report.md`` (``../probe.py``'s
tables, then README.md's verdict).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

DROP = "selbayes_k_grid_drop"
REPLICATES, DATA_SEED, GENES = 6, 19900, 1500
BASE = ("plasmode_sparse", "plasmode_dense", "plasmode_module")


def scenarios_and_x() -> tuple[dict, dict]:
    """The three scenarios (renamed ``..._p1500``) and each one's X: a fixed random subset of
    GENES of its data set's genes, standardised as the suite standardises the whole X."""
    from selbayes.experiments.plasmode import SCENARIOS, _standardised_dataset

    scenarios, xs = {}, {}
    for base in BASE:
        sc = SCENARIOS[base]
        X = _standardised_dataset(sc.dataset)
        cols = np.sort(np.random.default_rng(0).choice(X.shape[1], GENES, replace=False))
        name = f"{base}_p{GENES}"
        scenarios[name] = dataclasses.replace(sc, name=name)
        xs[name] = X[:, cols]
    return scenarios, xs


def main(jobs: int = 2) -> None:
    scenarios, xs = scenarios_and_x()
    print(probe.main_against(
        HERE, scenarios, DROP, replicates=REPLICATES, data_seed=DATA_SEED, jobs=jobs,
        x_real=xs, title="The clipped k grid on real X with 1500 genes", what="dropped grid",
        no_finding="No finding: the clipped grid held on real X with 1500 genes."))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
