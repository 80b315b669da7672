"""Rule 4 of ``../plasmode/linear_stack_mcmc/README.md`` (written before this run, with this
script): the default stacked with the probit model of all genes against the MCMC default on
the held-out plasmode scenarios, with L2 logistic regression beside.

Usage (from the repository root): ``python reports/plasmode_holdout_linear_stack/compare.py``.
Reads ``results.jsonl`` beside this script (the candidate) and ``../plasmode_holdout/`` (the
default's and L2's rows, the same replicates); writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "plasmode"))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences)

CANDIDATE, DEFAULT, L2 = ("sb_t_auto_wide_noise_cv_linear_stack", "sb_t_auto_wide_noise_cv",
                          "logreg_l2_cv")
HOLDOUT = ("holdout_sparse", "holdout_dense", "holdout_module")


def main() -> None:
    rows = paired.read_rows(HERE / "results.jsonl", HERE.parent / "plasmode_holdout"
                            / "results.jsonl")
    lines = ["# Rule 4: the linear stack against the default on the held-out X, with MCMC", "",
             "Paired over the six replicates, mean ± SE, * beyond 2 SE.", "",
             "| scenario | KL stack - default | KL stack - L2 | \\|exp - act\\| stack - default "
             "| KL default | KL stack | KL L2 |", "|---|---:|---:|---:|---:|---:|---:|"]
    worse = []
    for s in HOLDOUT:
        d, se, _ = paired.paired(rows, CANDIDATE, DEFAULT, s, "kl")
        d2, se2, _ = paired.paired(rows, CANDIDATE, L2, s, "kl")
        g, gse, _ = paired.paired(rows, CANDIDATE, DEFAULT, s, "abs_gap")
        if d > 2 * se:
            worse.append(s)
        reps = sorted(r for (m, ss, r) in rows if m == CANDIDATE and ss == s)
        mean = {m: sum(rows[(m, s, r)]["kl"] for r in reps) / len(reps)
                for m in (DEFAULT, CANDIDATE, L2)}

        def star(x, e):
            return f"{x:+.3f} ± {e:.3f}" + ("*" if abs(x) > 2 * e else "")
        lines.append(f"| {s} | {star(d, se)} | {star(d2, se2)} | {star(g, gse)} | "
                     f"{mean[DEFAULT]:.3f} | {mean[CANDIDATE]:.3f} | {mean[L2]:.3f} |")
    lines += ["", f"- Worse than the default beyond 2 SE in: {', '.join(worse) or 'none'}.",
              "- Rule 4: " + ("**pass**." if not worse else "**fail**.")]
    offline.write_report(HERE, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
