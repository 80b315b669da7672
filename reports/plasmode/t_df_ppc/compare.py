"""The t prior's df chosen on the kept genes' predictive check (``pi_df_ppc``) against the
current default's choice by the marginal likelihood (``pi_noise_cv``), and against the default
(MCMC) and L2 logistic regression for information; the verdict of the rule in README.md
(written before the run, with ``run.py``).

Usage (from the repository root): ``python reports/plasmode/t_df_ppc/compare.py``. Reads
``results.jsonl`` beside this script and through :func:`paired.against_default` the default's
(``../label_noise_cv_mcmc/``) and L2's (``../grouped_predictive/``) rows; writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)

CANDIDATE, CONTROL = "pi_df_ppc", "pi_noise_cv"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The t prior's df chosen on the kept genes' predictive check (plug-in) against the "
        "default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE (the second KL column is the "
        "control against itself, 0). Slopes: medians over the replicates. df: control -> "
        "candidate per replicate (the marginal likelihood's choice -> the df whose kept "
        "genes' mean p-value is nearest 1/2).",
        [("df", offline.changes("t_df", "{:g}"))])


if __name__ == "__main__":
    main()
