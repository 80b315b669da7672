"""After the run (decides nothing): the current default (this run's candidate,
``selbayes_k_grid_clip``) against the scenario's Bayes-optimal predictor on the same eight
new replicates (data seed 17900) of the four simulations, where the model holds and the
issue's point targets apply (|expected - actual| <= 0.02, slope in [0.9, 1.1]): are they
attainable on these replicates? The table is ``../largest_k_within_se/oracle.py``'s.

Run from the repository root: ``python reports/plasmode/k_grid_clip/oracle.py`` (seconds);
writes ``oracle.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
from run import DATA_SEED, REPLICATES  # noqa: E402


def main() -> None:
    intro = ["# The current default against the Bayes-optimal predictor on the check's "
             "replicates (made by oracle.py)", "",
             f"Simulation scenarios (the model holds). Replicates: data seed {DATA_SEED}, "
             f"{REPLICATES} per scenario (this check's); the default is the candidate "
             "`selbayes_k_grid_clip`, the default since this check. Mean over replicates "
             "(slope: median, and the mean of log slope); difference default - oracle "
             "paired, ± SE."]
    oracle_table = offline.load_script(HERE.parent / "largest_k_within_se" / "oracle.py",
                                       "largest_k_within_se_oracle").oracle_table
    print("\n".join(oracle_table([(HERE / "results.jsonl", DATA_SEED, REPLICATES)],
                                 "selbayes_k_grid_clip", intro, HERE / "oracle.md")))


if __name__ == "__main__":
    main()
