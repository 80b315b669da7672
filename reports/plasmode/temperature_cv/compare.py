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
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's verdict)
import paired  # noqa: E402  (reports/plasmode/paired.py, the shared tables and rule 1)

CANDIDATE, CONTROL, OTHER = "pi_T_cv", "pi_noise_cv", "pi_T1"


def main() -> None:
    text = paired.against_noise_cv_default(
        HERE, CANDIDATE, "The temperature chosen by inner CV from {correlation T, 1} (plug-in) "
        "against the default", also_shown=(CONTROL, OTHER))
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        options = Counter(rows[(CANDIDATE, s, r)]["t_option"] for r in reps)
        ks = offline.per_replicate(rows, CONTROL, CANDIDATE, s, reps, "k")
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}",
                ", ".join(f"{o}: {m}" for o, m in sorted(options.items())), ks]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, OTHER, CONTROL,
        "Paired over the replicates, mean ± SE, * beyond 2 SE. Slopes: medians over the "
        "replicates. T chosen: how often each option was; k: control -> candidate per "
        "replicate.",
        "| scenario | n | KL pi_T_cv - control | KL pi_T1 - control | slope control "
        "| slope pi_T_cv | T chosen (pi_T_cv) | k |",
        "|---|---:|---:|---:|---:|---:|---|---|", extra)) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
