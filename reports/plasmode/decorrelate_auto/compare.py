"""The paper's decorrelation chosen with k by the inner cross-validation
(``pi_decorrelate_auto``) against the current default (``pi_noise_cv``), and against the
default (MCMC) and L2 logistic regression for information; the verdict of the rule in
README.md (written before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/decorrelate_auto/compare.py``.
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
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, CONTROL = "pi_decorrelate_auto", "pi_noise_cv"


def main() -> None:
    text = paired.against_noise_cv_default(
        HERE, CANDIDATE, "The decorrelation chosen with k (plug-in) against the default",
        also_shown=(CONTROL,))
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}",
                offline.per_replicate(rows, CONTROL, CANDIDATE, s, reps, "k"),
                offline.per_replicate(rows, CONTROL, CANDIDATE, s, reps, "decorrelate"),
                offline.per_replicate(rows, CONTROL, CANDIDATE, s, reps, "kl", "{:.3f}")]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, CONTROL, CONTROL,
        "Paired over the replicates, mean ± SE, * beyond 2 SE (the second KL column is the "
        "control against itself, 0). Slopes: medians over the replicates. k, lambda and KL: "
        "control -> candidate per replicate.",
        "| scenario | n | KL pi_decorrelate_auto - control | (control) | slope control "
        "| slope pi_decorrelate_auto | k | lambda | KL |",
        "|---|---:|---:|---:|---:|---:|---|---|---|", extra)) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
