"""Stacking over k (``pi_stack_k``) against choosing the best k (``pi_naive_T``), with
``pi_stack_kc`` (stacked over k and the correction) beside, and against the default and L2
logistic regression for information; the verdict of the rule in README.md (written before the
run, with this script).

Usage (from the repository root): ``python reports/plasmode/stacking_k/compare.py``. Reads
``results.jsonl`` beside this script and through :func:`paired.against_default` the default's
(``../t_auto_flat_nu/``) and L2's (``../grouped_predictive/``) rows; writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, CONTROL, OTHER = "pi_stack_k", "pi_naive_T", "pi_stack_kc"


def main() -> None:
    text = paired.against_default(
        HERE, CANDIDATE, "Stacking over k (plug-in) against the default",
        also_shown=(CONTROL, OTHER))
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        top = []
        for r in reps:
            w = rows[(CANDIDATE, s, r)]["weights"]
            kk = max(w, key=w.get)
            top.append(f"{w[kk]:.2f} ({kk})")
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}", ", ".join(top)]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, OTHER, CONTROL,
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. Weights: the largest stacking weight of pi_stack_k and its k.",
        "| scenario | n | KL pi_stack_k - control | KL pi_stack_kc - control | slope control "
        "| slope pi_stack_k | largest weight (k) |",
        "|---|---:|---:|---:|---:|---:|---|", extra)) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
