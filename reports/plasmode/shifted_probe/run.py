"""The shifted-classes probe of README.md (rule written before the run).

Run from the repository root: ``python reports/plasmode/shifted_probe/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit, resumable) and ``report.md``. The fitting, scoring
and report are ``../probe.py``'s, shared with the other probes.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import probe  # noqa: E402  (reports/plasmode/probe.py)

METHODS = ("selbayes", "selbayes_uncorrected", "logreg_l2_cv", "logreg_l1_cv")
SCENARIOS = ("shifted_factor", "shifted_sparse_strong")
REPLICATES, DATA_SEED = 6, 900
NO_FINDING = ("No finding: in these two scenarios the default is not worse than L2 beyond "
              "2 SE in KL or |expected - actual|, nor than L1 or its uncorrected twin in KL, "
              "and its calibration in the large is not off where L2's is not.")


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import SHIFTED_SCENARIOS

    scenarios = {k: SHIFTED_SCENARIOS[k] for k in SCENARIOS}
    probe.main(HERE, scenarios, METHODS, replicates=REPLICATES, data_seed=DATA_SEED,
               jobs=jobs, store_fits=True, title="Classes that shift correlated genes: the "
               "default against its uncorrected twin, L2 and L1", no_finding=NO_FINDING,
               also_against=("logreg_l1_cv", "selbayes_uncorrected"))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
