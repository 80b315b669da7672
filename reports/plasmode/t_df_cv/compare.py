"""The t prior's df chosen by the inner cross-validation (``pi_df_cv``) against the current
default's choice by the marginal likelihood (``pi_noise_cv``), and against the default (MCMC)
and L2 logistic regression for information; the verdict of the rule in README.md (written
before the run, with this script).

Usage (from the repository root): ``python reports/plasmode/t_df_cv/compare.py``. Reads
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

CANDIDATE, CONTROL = "pi_df_cv", "pi_noise_cv"


def main() -> None:
    text = paired.against_noise_cv_default(
        HERE, CANDIDATE, "The t prior's df chosen by inner CV (plug-in) against the default",
        also_shown=(CONTROL,))
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        options = Counter(rows[(CANDIDATE, s, r)]["df_option"] for r in reps)
        dfs = offline.per_replicate(rows, CONTROL, CANDIDATE, s, reps, "t_df", "{:g}")
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}",
                ", ".join(f"{o}: {m}" for o, m in sorted(options.items())), dfs]

    text += "\n".join(offline.control_section(
        rows, CANDIDATE, CONTROL, CONTROL,
        "Paired over the replicates, mean ± SE, * beyond 2 SE (the second KL column is the "
        "control against itself, 0). Slopes: medians over the replicates. df option: how "
        "often each was chosen; df: control -> candidate per replicate.",
        "| scenario | n | KL pi_df_cv - control | (control) | slope control "
        "| slope pi_df_cv | df option chosen | df |",
        "|---|---:|---:|---:|---:|---:|---|---|", extra)) + "\n"
    offline.write_report(HERE, text)


if __name__ == "__main__":
    main()
