"""The selection factor's exponent as the effective number of omitted genes (``pi_meff``)
against the current default (``pi_noise_cv``), and against the default (MCMC) and L2 logistic
regression for information; the verdict of the rule in README.md (written before the run,
with this script).

Usage (from the repository root): ``python reports/plasmode/effective_omitted/compare.py``.
Reads ``results.jsonl`` beside this script and, through ``offline.control_report``, the
default's (``../label_noise_cv_mcmc/``) and L2's (``../grouped_predictive/``) rows; writes
``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's report)

CANDIDATE, CONTROL = "pi_meff", "pi_noise_cv"


def main() -> None:
    offline.control_report(
        HERE, CANDIDATE, CONTROL,
        "The correction's exponent as the effective number of omitted genes (plug-in) "
        "against the default",
        "Paired over the replicates, mean ± SE, * beyond 2 SE (the second KL column is the "
        "control against itself, 0). Slopes: medians over the replicates. m_eff: the "
        "candidate's exponent in its final fit per replicate (of p - k omitted genes); k and "
        "KL: control -> candidate per replicate.",
        [("m_eff", lambda rows, control, candidate, s, reps: ", ".join(
            f"{rows[(candidate, s, r)]['m_eff']:.0f}/{rows[(candidate, s, r)]['n_omitted']}"
            for r in reps)),
         ("k", offline.changes("k")), ("KL", offline.changes("kl", "{:.3f}"))])


if __name__ == "__main__":
    main()
