"""The correlated plug-in predictive (``pi_corr``) against its control (``pi_naive_T``: the
default's predictive on the same plug-in posterior) and against the default and L2 logistic
regression on the plasmode suite's replicates (seed 0), with the verdict of the rule in
README.md (written before the run, with this script).

Usage (from the repository root):
``python reports/plasmode/correlated_predictive/compare.py``. Reads ``results.jsonl`` beside
this script, ``../t_auto_flat_nu/results.jsonl`` (the default), ``../flat_nu/results.jsonl``
(read, not shown) and ``../grouped_predictive/results.jsonl`` (L2), and writes ``report.md``
(:func:`paired.against_default` for the default, then the paired table against the control).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, CONTROL = "pi_corr", "pi_naive_T"


def main() -> None:
    text = paired.against_default(
        HERE, CANDIDATE,
        "A predictive with the kept genes' correlation (plug-in) against the default",
        also_shown=(CONTROL, "pi_corr_unc"))
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE, "pi_corr_unc"), s, reps)
        alphas = ", ".join(f"{rows[(CANDIDATE, s, r)]['alpha']:g}" for r in reps)
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}", f"{med['pi_corr_unc']:.2f}",
                alphas]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, "pi_corr_unc", CONTROL,
        "Paired over the replicates, pi_corr - pi_naive_T (and pi_corr_unc - pi_naive_T), "
        "mean ± SE, * beyond 2 SE.",
        "| scenario | n | KL pi_corr - control | KL pi_corr_unc - control | slope control "
        "| slope pi_corr | slope pi_corr_unc | a chosen (pi_corr) |",
        "|---|---:|---:|---:|---:|---:|---:|---|", extra,
        after=["", "Slopes: medians over the replicates (a mean is carried by single "
               "collapsed replicates)."])) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
