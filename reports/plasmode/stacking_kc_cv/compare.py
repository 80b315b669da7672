"""Stacking over k and the correction (``pi_stack_kc_cv``) against the current default's
choice (``pi_noise_cv``), with ``pi_stack_k_cv`` (corrected candidates only) beside, and
against the default (MCMC) and L2 logistic regression for information; the verdict of the
rule in README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/stacking_kc_cv/compare.py``. Reads
``results.jsonl`` beside this script and through :func:`paired.against_default` the default's
(``../label_noise_cv_mcmc/``) and L2's (``../grouped_predictive/``) rows; writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, CONTROL, OTHER = "pi_stack_kc_cv", "pi_noise_cv", "pi_stack_k_cv"


def main() -> None:
    text = paired.against_noise_cv_default(
        HERE, CANDIDATE, "Stacking over k and the correction (plug-in) against the default",
        also_shown=(CONTROL, OTHER))
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        unc = ", ".join(f"{rows[(CANDIDATE, s, r)]['uncorrected_weight']:.2f}" for r in reps)
        heaviest = ", ".join(max(c, key=c.get) for c in
                             (rows[(CANDIDATE, s, r)]["components"] for r in reps))
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}", unc, heaviest]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, OTHER, CONTROL,
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Uncorrected weight: the stacking weight of all uncorrected candidates "
        "together (before the component rule), per replicate; heaviest: the heaviest kept "
        "component's k ('u': uncorrected).",
        "| scenario | n | KL pi_stack_kc_cv - control | KL pi_stack_k_cv - control "
        "| slope control | slope pi_stack_kc_cv | uncorrected weight | heaviest |",
        "|---|---:|---:|---:|---:|---:|---|---|", extra)) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
