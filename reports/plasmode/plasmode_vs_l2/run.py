"""README.md's measurement: the current default, L2 and L1 logistic regression on eight new
replicates of the suite's three plasmode scenarios.

Run from the repository root: ``python reports/plasmode/plasmode_vs_l2/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit, resumable). The report is ``compare.py``'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

METHODS = ("selbayes", "logreg_l2_cv", "logreg_l1_cv")
NAMES = ("plasmode_sparse", "plasmode_dense", "plasmode_module")
REPLICATES, DATA_SEED = 8, 23900


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import SCENARIOS

    probe.main(HERE, {name: SCENARIOS[name] for name in NAMES}, METHODS,
               replicates=REPLICATES, data_seed=DATA_SEED, jobs=jobs)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
