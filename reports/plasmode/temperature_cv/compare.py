"""The temperature chosen by the inner cross-validation from {the correlation T, 1}
(``pi_T_cv``) against the current default's choice (``pi_noise_cv``), with ``pi_T1`` beside,
and against the default (MCMC) and L2 logistic regression for information; the verdict of the
rule in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/temperature_cv/compare.py``. Reads
``results.jsonl`` beside this script and through :func:`paired.against_default` the default's
(``../label_noise_cv_mcmc/``) and L2's (``../grouped_predictive/``) rows; writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)

CANDIDATE, CONTROL, OTHER = "pi_T_cv", "pi_noise_cv", "pi_T1"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The temperature chosen by inner CV from {correlation T, 1} (plug-in) against the "
        "default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. T chosen: how often each option was; k: control -> candidate per "
        "replicate.",
        [("T chosen (pi_T_cv)", offline.counts("t_option")), ("k", offline.changes("k"))],
        other=OTHER)


if __name__ == "__main__":
    main()
