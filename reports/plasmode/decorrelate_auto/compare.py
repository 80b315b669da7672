"""The paper's decorrelation chosen with k by the inner cross-validation
(``pi_decorrelate_auto``) against the current default (``pi_noise_cv``), and against the
default (MCMC) and L2 logistic regression for information; the verdict of the rule in
README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/decorrelate_auto/compare.py``.
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

CANDIDATE, CONTROL = "pi_decorrelate_auto", "pi_noise_cv"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The decorrelation chosen with k (plug-in) against the default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE (the second KL column is the "
        "control against itself, 0). Slopes: medians over the replicates. k, lambda and KL: "
        "control -> candidate per replicate.",
        [("k", offline.changes("k")), ("lambda", offline.changes("decorrelate")),
         ("KL", offline.changes("kl", "{:.3f}"))])


if __name__ == "__main__":
    main()
