"""The stack of ``../bayes_linear_ep/`` on replicates and X it has not seen: the suite's five
scenarios with run seed 1 (new replicates, as ``../stacking_k_seed1/``) and the three held-out
plasmode scenarios of ``../../plasmode_holdout/`` (the X of chowdary and nakayama) with run
seed 0. The rule is in README.md (written before the run).

The rows are ``../linear_component_probe/``'s ``stacked_rows`` with the EP component, as in
``../bayes_linear_ep/``, plus the run seed. Run:
``python reports/plasmode/bayes_linear_ep_confirm/run.py [jobs]`` (resumes from
``results.jsonl``; about 10 minutes on 2 cores), then ``compare.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

_spec = importlib.util.spec_from_file_location(
    "bayes_linear_ep_run", HERE.parent / "bayes_linear_ep" / "run.py")
blep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(blep)     # its component and the probe's stacked_rows

HOLDOUT = ("holdout_sparse", "holdout_dense", "holdout_module")
SEED_SUITE, SEED_HOLDOUT = 1, 0


def one_replicate(scenario_name, rep):
    seed = SEED_HOLDOUT if scenario_name in HOLDOUT else SEED_SUITE
    rows = blep.probe.stacked_rows(scenario_name, rep, blep.blep_log_proba,
                                   ("choose_blep", "stack_blep", "blep"), "blep", seed=seed)
    return [{**r, "run_seed": seed} for r in rows]


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "weight"),
                           scenarios=(*offline.SCENARIO_NAMES, *HOLDOUT))


if __name__ == "__main__":
    raise SystemExit(main())
