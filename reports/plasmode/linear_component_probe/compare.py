"""L2 logistic regression on all genes beside the default, chosen (``choose_l2``) or stacked
(``stack_l2``) by the inner cross-validation, against the default's predictive
(``pi_noise_cv``); the verdict of the rule in README.md (written before the run, with this
script) for each.

Usage (from the repository root): ``python reports/plasmode/linear_component_probe/compare.py``.
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
    columns = offline.stack_columns("stack_l2", "choose_l2")
    offline.control_report(
        HERE, "choose_l2", "pi_noise_cv",
        "L2 logistic regression on all genes chosen or stacked beside the default (plug-in) "
        "against the default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Chosen: how often choose_l2 took each; weight: stack_l2's weight on the "
        "default per replicate.",
        [("chosen", columns["chosen"]), ("weight", columns["weight"])],
        other="stack_l2", more_candidates=(("stack_l2", "l2_refit"),))


if __name__ == "__main__":
    main()
