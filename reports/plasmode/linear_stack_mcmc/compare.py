"""The default stacked with the Bayesian probit regression of all genes
(``sb_t_auto_wide_noise_cv_linear_stack``, LinearStackedClassifier) against the default
(``sb_t_auto_wide_noise_cv``) on the plasmode suite's replicates (seed 0): rules 1-2 of the
protocol, as README.md states them (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/linear_stack_mcmc/compare.py``.
Reads ``results.jsonl`` beside this script (the candidate) and through
:func:`paired.against_noise_cv_default` the default's (``../label_noise_cv_mcmc/``) and L2's
(``../grouped_predictive/``) rows; writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE = "sb_t_auto_wide_noise_cv_linear_stack"


def main() -> None:
    offline.write_report(HERE, paired.against_noise_cv_default(
        HERE, CANDIDATE, "The default stacked with a Bayesian probit regression of all genes, "
        "with MCMC, against the default"))


if __name__ == "__main__":
    main()
