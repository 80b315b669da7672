"""The current default with its candidates of k stacked, each component with its own
label-noise share (``sb_t_auto_wide_noise_cv_stack_k``), against the current default
(``sb_t_auto_wide_noise_cv``) on the plasmode suite's replicates (seed 0), and the verdict of
the rule in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/stacking_k_noise_cv_mcmc/compare.py``.
Reads ``results.jsonl`` beside this script (the candidate) and through
:func:`paired.against_default` the default's (``../label_noise_cv_mcmc/``) and L2's
(``../grouped_predictive/``) rows; writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE = "sb_t_auto_wide_noise_cv_stack_k"


def main() -> None:
    print(paired.against_noise_cv_default(
        HERE, CANDIDATE, "The default with its candidates of k stacked (each with its own "
        "share) against the default"), end="")


if __name__ == "__main__":
    main()
