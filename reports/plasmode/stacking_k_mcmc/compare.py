"""The default with its candidates of k stacked (``sb_t_auto_wide_stack_k``,
:class:`selbayes.estimators.StackedGaussianClassifier`) against the default
(``sb_t_auto_wide``) on the plasmode suite's replicates (seed 0), and the verdict of the rule
in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/stacking_k_mcmc/compare.py``.
Reads ``results.jsonl`` beside this script (the candidate), ``../t_auto_flat_nu/results.jsonl``
(the default on the same replicates), ``../flat_nu/results.jsonl`` (read, not shown) and
``../grouped_predictive/results.jsonl`` (L2 logistic regression), and writes ``report.md``
beside it (:func:`paired.against_default`).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE = "sb_t_auto_wide_stack_k"


def main() -> None:
    print(paired.against_default(
        HERE, CANDIDATE, "The default with its candidates of k stacked against the default"),
        end="")


if __name__ == "__main__":
    main()
