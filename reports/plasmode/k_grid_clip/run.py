"""The fits of README.md's check (rule written before the run): the default and the candidate
``selbayes_k_grid_clip`` (and L2 logistic regression for reference) on eight new replicates of
the four simulations with p = 2000.

Run from the repository root: ``python reports/plasmode/k_grid_clip/run.py [jobs]``; writes
``results.jsonl`` (one line per fit, resumable) and the default's stack components in
``fits/``. The verdict is ``compare.py``'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

METHODS = ("selbayes", "selbayes_k_grid_clip", "logreg_l2_cv")
NAMES = ("sim_dense_weak", "sim_sparse_strong", "sim_dense_weak_n40", "sim_sparse_strong_n40")
REPLICATES, DATA_SEED = 8, 17900


def scenarios() -> dict:
    from selbayes.experiments.plasmode import scenario

    return {name: scenario(name) for name in NAMES}


def main(jobs: int = 2) -> None:
    probe.main(HERE, scenarios(), METHODS, replicates=REPLICATES, data_seed=DATA_SEED,
               jobs=jobs, store_fits=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
