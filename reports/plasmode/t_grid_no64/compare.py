"""The t prior's df from a grid without df 64 (``pi_grid_no64``) against the current default's
grid (``pi_noise_cv``), and against the default (MCMC) and L2 logistic regression for
information; the verdict of the rule in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/t_grid_no64/compare.py``. Reads
``results.jsonl`` beside this script and through :func:`paired.against_default` the default's
(``../label_noise_cv_mcmc/``) and L2's (``../grouped_predictive/``) rows; writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)

CANDIDATE, CONTROL = "pi_grid_no64", "pi_noise_cv"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The t prior's df from a grid without 64 (plug-in) against the default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE (the second KL column is the "
        "control against itself, 0). Slopes: medians over the replicates. df and k: control "
        "-> candidate per replicate.",
        [("df", offline.changes("t_df", "{:g}")), ("k", offline.changes("k"))])


if __name__ == "__main__":
    main()
