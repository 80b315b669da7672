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
import paired  # noqa: E402  (reports/plasmode/paired.py)
import probe  # noqa: E402  (reports/plasmode/probe.py)

DROP = "selbayes_k_grid_drop"
METHODS = ("selbayes", DROP, "logreg_l2_cv")
REPLICATES, DATA_SEED = 6, 21900
NAMES = ("sim_sparse_strong_q", "sim_dense_weak_q")


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import IMBALANCED_SCENARIOS

    scenarios = {name: IMBALANCED_SCENARIOS[name] for name in NAMES}
    probe.main(HERE, scenarios, METHODS, replicates=REPLICATES, data_seed=DATA_SEED,
               jobs=jobs, title="The clipped k grid where one class is a quarter of the cases",
               no_finding="No finding by the probe's own rule (reported, not this check's).",
               also_against=(DROP,))
    rows = paired.read_rows(HERE / "results.jsonl")
    verdict = probe.against_reference(
        rows, NAMES, DROP, REPLICATES, what="dropped grid",
        no_finding="No finding: the clipped grid held where the classes are imbalanced.")
    report = HERE / "report.md"
    report.write_text(report.read_text() + "\n".join(verdict))
    print(report.read_text())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
