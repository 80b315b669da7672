"""README.md's check (rule written before the run): the clipped k grid (the default) against
the dropped one on the two imbalanced 2000-gene simulations.

Run from the repository root: ``python reports/plasmode/k_grid_clip_imbalanced/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit, resumable) and ``report.md`` (``../probe.py``'s
tables, then README.md's verdict).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

REPLICATES, DATA_SEED = 6, 21900
NAMES = ("sim_sparse_strong_q", "sim_dense_weak_q")


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import IMBALANCED_SCENARIOS

    print(probe.main_against(
        HERE, {name: IMBALANCED_SCENARIOS[name] for name in NAMES}, "selbayes_k_grid_drop",
        replicates=REPLICATES, data_seed=DATA_SEED, jobs=jobs,
        title="The clipped k grid where one class is a quarter of the cases",
        what="dropped grid",
        no_finding="No finding: the clipped grid held where the classes are imbalanced."))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
