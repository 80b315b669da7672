"""The selection factor's exponent chosen by the inner cross-validation (``pi_exponent_cv``)
against the current default (``pi_noise_cv``), with the exponent m_eff always (``pi_meff``)
beside it, and against the default (MCMC) and L2 logistic regression for information; the
verdict of the rule in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/exponent_cv/compare.py``. Reads
``results.jsonl`` beside this script and, through ``offline.control_report``, the default's
(``../label_noise_cv_mcmc/``) and L2's (``../grouped_predictive/``) rows; writes
``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's report)

CANDIDATE, CONTROL, OTHER = "pi_exponent_cv", "pi_noise_cv", "pi_meff"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The correction's exponent chosen by inner CV from {p - k, m_eff} (plug-in) against "
        "the default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Exponent chosen: how often each was; k and KL: control -> candidate per "
        "replicate.",
        [("exponent chosen", offline.counts("exponent")), ("k", offline.changes("k")),
         ("KL", offline.changes("kl", "{:.3f}"))], other=OTHER)


if __name__ == "__main__":
    main()
