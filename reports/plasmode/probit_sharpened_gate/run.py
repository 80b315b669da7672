"""The new replicates of README.md's check (rule written before the run): the default, its
stack components stored, and L2 on the four 40-case scenarios.

Run from the repository root: ``python reports/plasmode/probit_sharpened_gate/run.py [jobs]``;
writes ``small_n/results.jsonl`` (one line per fit, resumable) and ``small_n/fits/``. The
fitting is ``../probe.py``'s; the verdict is ``compare.py``'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

METHODS = ("selbayes", "logreg_l2_cv")
SCENARIOS = ("sim_sparse_strong_n40", "sim_dense_weak_n40", "plasmode_sparse_n40",
             "plasmode_dense_n40")
REPLICATES, DATA_SEED = 6, 9900
OUT = HERE / "small_n"


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import SMALL_SAMPLE_SCENARIOS

    OUT.mkdir(exist_ok=True)
    probe.main(OUT, {k: SMALL_SAMPLE_SCENARIOS[k] for k in SCENARIOS}, METHODS,
               replicates=REPLICATES, data_seed=DATA_SEED, jobs=jobs, store_fits=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
