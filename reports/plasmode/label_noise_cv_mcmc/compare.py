"""The default with its label-noise share chosen by the inner cross-validation
(``sb_t_auto_wide_noise_cv``) against the default (``sb_t_auto_wide``) on the plasmode suite's
replicates (seed 0), and the verdict of the rule in README.md (written before the run, with
this script).

Usage (from the repository root): ``python reports/plasmode/label_noise_cv_mcmc/compare.py``.
Reads ``results.jsonl`` beside this script (the candidate) and through
:func:`paired.against_default` the default's (``../t_auto_flat_nu/``) and L2's
(``../grouped_predictive/``) rows; writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE = "sb_t_auto_wide_noise_cv"


def main() -> None:
    print(paired.against_default(
        HERE, CANDIDATE, "The label-noise share chosen by inner CV against the default"),
        end="")


if __name__ == "__main__":
    main()
