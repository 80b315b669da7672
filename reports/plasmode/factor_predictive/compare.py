"""The spiked (low-rank-plus-diagonal) correlation predictive (``pi_factor``) against the
current default's predictive (``pi_noise_cv``), with ``pi_factor_r0`` beside, and against the
default (MCMC) and L2 logistic regression for information; the verdict of the rule in
README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/factor_predictive/compare.py``.
Reads ``results.jsonl`` beside this script and through :func:`paired.against_default` the
default's (``../label_noise_cv_mcmc/``) and L2's (``../grouped_predictive/``) rows; writes
``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)

CANDIDATE, CONTROL, OTHER = "pi_factor", "pi_noise_cv", "pi_factor_r0"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The spiked-correlation predictive (plug-in, no temperature) against the default's",
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Factors: r of the candidate's final fit per replicate; k: control -> "
        "candidate per replicate.",
        [("factors r", offline.counts("factors")), ("k", offline.changes("k"))],
        other=OTHER)


if __name__ == "__main__":
    main()
