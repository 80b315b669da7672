"""The Bayesian all-genes linear component stacked (``stack_blin``) or chosen
(``choose_blin``) beside the default, against the default's predictive (``pi_noise_cv``); the
verdict of the rule in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/bayes_linear_stack/compare.py``.
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


def main() -> None:
    columns = offline.stack_columns("stack_blin", "choose_blin")
    offline.control_report(
        HERE, "stack_blin", "pi_noise_cv",
        "The Bayesian all-genes linear component stacked beside the default (plug-in) "
        "against the default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Weight: stack_blin's weight on the default per replicate; chosen: how "
        "often choose_blin took each.",
        [("weight", columns["weight"]), ("chosen", columns["chosen"])],
        other="blin", more_candidates=(("choose_blin", "blin"),))


if __name__ == "__main__":
    main()
