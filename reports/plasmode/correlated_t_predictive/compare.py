"""The multivariate t predictive (``pi_corr_t``) against its control (``pi_naive_T``), with
the plain correlated predictive of ``../correlated_predictive/`` (``pi_corr``) shown beside,
and against the default and L2 logistic regression for information; the verdict of the rule in
README.md (written before the run, with this script).

Usage (from the repository root):
``python reports/plasmode/correlated_t_predictive/compare.py``. Reads ``results.jsonl`` beside
this script, ``../correlated_predictive/results.jsonl``, and through
:func:`paired.against_default` the default's (``../t_auto_flat_nu/``) and L2's
(``../grouped_predictive/``) rows; writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, CONTROL = "pi_corr_t", "pi_naive_T"


def main() -> None:
    text = paired.against_default(
        HERE, CANDIDATE,
        "A multivariate t predictive with the kept genes' correlation (plug-in) against the "
        "default", also_shown=(CONTROL,))
    rows = paired.read_rows(HERE / "results.jsonl")
    first = {key: r for key, r in
             paired.read_rows(HERE.parent / "correlated_predictive" / "results.jsonl").items()
             if key[0] == "pi_corr"}
    rows.update(first)

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        ks = ", ".join(str(rows[(CANDIDATE, s, r)]["k"]) for r in reps)
        alphas = ", ".join(f"{rows[(CANDIDATE, s, r)]['alpha']:g}" for r in reps)
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}", ks, alphas]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, "pi_corr", CONTROL,
        "Paired over the replicates, mean ± SE, * beyond 2 SE; pi_corr is the plain "
        "correlated predictive of ../correlated_predictive/ (same folds and seeds). "
        "Slopes: medians over the replicates.",
        "| scenario | n | KL pi_corr_t - control | KL pi_corr - control | slope control "
        "| slope pi_corr_t | k (pi_corr_t) | a (pi_corr_t) |",
        "|---|---:|---:|---:|---:|---:|---|---|", extra)) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
