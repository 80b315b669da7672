"""The default without its label-noise share (``sb_t_auto_wide_no_label_noise``) against the
default (``sb_t_auto_wide``) on the plasmode suite's replicates (seed 0), and the verdict of
the rule in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/label_noise_zero/compare.py``.
Reads ``results.jsonl`` beside this script (the candidate), ``../t_auto_flat_nu/results.jsonl``
(the default on the same replicates), ``../flat_nu/results.jsonl`` (df = 2 and the
uncorrected twin, shown) and ``../grouped_predictive/results.jsonl`` (L2 logistic regression),
and writes ``report.md`` beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE = "sb_t_auto_wide_no_label_noise"


def main() -> None:
    print(paired.against_default(
        HERE, CANDIDATE, "The default without its label-noise share against the default",
        also_shown=["sb_t_wide"]), end="")


if __name__ == "__main__":
    main()
