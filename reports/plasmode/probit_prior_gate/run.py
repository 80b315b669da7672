"""The new replicates of README.md's check (rule written before the run): the default, its
stack components stored, and L2 on two scenarios in which the classes shift correlated genes.

Run from the repository root: ``python reports/plasmode/probit_prior_gate/run.py [jobs]``;
writes ``shifted/results.jsonl`` (one line per fit, resumable) and ``shifted/fits/``. The
fitting is ``../probe.py``'s; the verdict is ``compare.py``'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

METHODS = ("selbayes", "logreg_l2_cv")
SCENARIOS = ("shifted_factor", "shifted_factor_n40")
REPLICATES, DATA_SEED = 6, 2900
OUT = HERE / "shifted"


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import SHIFTED_SCENARIOS

    OUT.mkdir(exist_ok=True)
    probe.main(OUT, {k: SHIFTED_SCENARIOS[k] for k in SCENARIOS}, METHODS,
               replicates=REPLICATES, data_seed=DATA_SEED, jobs=jobs, store_fits=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
