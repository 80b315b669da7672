"""The share chosen by the inner cross-validation (``pi_noise_cv``) against the default's
share (``pi_naive_T``), with ``pi_noise_cv_joint`` beside, and against the default and L2
logistic regression for information; the verdict of the rule in README.md (written before the
run, with this script).

Usage (from the repository root): ``python reports/plasmode/label_noise_cv/compare.py``. Reads
``results.jsonl`` beside this script and through :func:`paired.against_default` the default's
(``../t_auto_flat_nu/``) and L2's (``../grouped_predictive/``) rows; writes ``report.md``.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, CONTROL, OTHER = "pi_noise_cv", "pi_naive_T", "pi_noise_cv_joint"


def main() -> None:
    text = paired.against_default(
        HERE, CANDIDATE, "The label-noise share chosen by inner CV (plug-in) against the default",
        also_shown=(CONTROL, OTHER))
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        shares = Counter(rows[(CANDIDATE, s, r)]["share_c"] for r in reps)
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}",
                ", ".join(f"{c:g}: {m}" for c, m in sorted(shares.items()))]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, OTHER, CONTROL,
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Shares: how often each c of c/(n + 2) was chosen.",
        "| scenario | n | KL pi_noise_cv - control | KL pi_noise_cv_joint - control "
        "| slope control | slope pi_noise_cv | c chosen (pi_noise_cv) |",
        "|---|---:|---:|---:|---:|---:|---|", extra)) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
