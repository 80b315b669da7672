"""After the finding (a probe, deciding nothing): which part of the Gaussian model of all
genes is underconfident in sim_dense_weak at 80 training cases? On the five replicates of
this measurement where the default chose k = 1999 (0 to 4), the Gaussian classifier alone
at k = 1999 with one setting changed at a time (``../dense_weak_gaussian_probe/run.py``'s
``one``, which also scores the Bayes-optimal predictive):

- ``default_k1999``: the default's settings (t prior with df chosen by the data, the
  correlation temperature, the label-noise share by inner cross-validation);
- ``t1_k1999``: temperature 1, no label noise;
- ``normal_k1999``, ``two_groups_k1999``: the normal and the two-groups effect priors,
  temperature 1, no label noise.

Writes ``all_genes_probe.jsonl`` (one line per fit; resumes) and prints the means.

Run from the repository root:
``python reports/plasmode/simulations_vs_oracle/all_genes_probe.py [jobs]`` (about 15
minutes on 2 cores).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
from run import DATA_SEED  # noqa: E402

PROBE = offline.load_script(HERE.parent / "dense_weak_gaussian_probe" / "run.py",
                            "dense_weak_gaussian_probe_run")
NAME, REPLICATES = "sim_dense_weak", (0, 1, 2, 3, 4)
CONFIGS = PROBE.ablations(1999)


def main(jobs: int = 2) -> None:
    df = PROBE.run_configs(HERE / "all_genes_probe.jsonl", REPLICATES, jobs, NAME, DATA_SEED,
                           CONFIGS)
    df["oracle_gap"] = df.oracle_expected_error - df.oracle_actual_error
    print(df.groupby("config")[["kl", "oracle_kl", "slope", "oracle_slope", "gap", "oracle_gap",
                                "t_df", "temperature", "label_noise", "tau_mu_median"]]
          .mean().round(3).to_string())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
