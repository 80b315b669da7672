"""k as the largest within one paired SE of the best inner score (``pi_k_large_1se``)
against the current default's choice (``pi_noise_cv``), and against the default (MCMC) and
L2 logistic regression for information; the verdict of the rule in README.md (written
before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/larger_k_one_se/compare.py``.
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

CANDIDATE, CONTROL = "pi_k_large_1se", "pi_noise_cv"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "k: the largest within one SE of the best (plug-in) against the default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE (the second KL column is the "
        "control against itself, 0). Slopes: medians over the replicates. k and KL: control "
        "-> candidate per replicate.",
        [("k", offline.changes("k")), ("KL", offline.changes("kl", "{:.3f}"))])


if __name__ == "__main__":
    main()
