"""The factor predictive with its own correlation temperature (``pi_factor_T``) against the
current default's predictive (``pi_noise_cv``), and against the default (MCMC) and L2
logistic regression for information; the verdict of the rule in README.md (written before
the run, with this script).

Usage (from the repository root): ``python reports/plasmode/factor_temperature/compare.py``.
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

CANDIDATE, CONTROL = "pi_factor_T", "pi_noise_cv"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The factor predictive with its own correlation temperature (plug-in) against the "
        "default's",
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Factors: r of the candidate's final fit; T and k: control -> candidate "
        "per replicate.",
        [("factors r", offline.counts("factors")),
         ("T", offline.changes("temperature", "{:.1f}")), ("k", offline.changes("k"))])


if __name__ == "__main__":
    main()
