"""README.md's measurement: the current default and L2 logistic regression on eight new
replicates of the four 2000-gene simulations.

Run from the repository root: ``python reports/plasmode/simulations_vs_oracle/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit, resumable). The report is ``compare.py``'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

METHODS = ("selbayes", "logreg_l2_cv")
NAMES = ("sim_dense_weak", "sim_sparse_strong", "sim_dense_weak_n40", "sim_sparse_strong_n40")
REPLICATES, DATA_SEED = 8, 25900


def scenarios() -> dict:
    from selbayes.experiments.plasmode import scenario

    return {name: scenario(name) for name in NAMES}


def main(jobs: int = 2) -> None:
    probe.main(HERE, scenarios(), METHODS, replicates=REPLICATES, data_seed=DATA_SEED,
               jobs=jobs)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
