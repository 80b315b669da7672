"""The checks of README.md (written before the run, with this script) on the held-out plasmode
scenarios, and the same quantities on the suite's own plasmode scenarios for comparison.

Usage (from the repository root): ``python reports/plasmode_holdout/compare.py``. Reads
``results.jsonl`` beside this script; for the suite, the default's rows in
``../plasmode/label_noise_cv_mcmc/``, L2's in ``../plasmode/grouped_predictive/`` and L1's in
``../plasmode/results.jsonl``. Writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SUITE = HERE.parent / "plasmode"
sys.path.insert(0, str(SUITE))
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences)

DEFAULT, TWIN = "sb_t_auto_wide_noise_cv", "sb_t_auto_wide_noise_cv_uncorrected"
L2, L1 = "logreg_l2_cv", "logreg_l1_cv"
HOLDOUT = ("holdout_sparse", "holdout_dense", "holdout_module")
SUITE_PLASMODE = ("plasmode_sparse", "plasmode_dense", "plasmode_module")


def cell(rows, a, b, s, metric):
    """"+0.012 ± 0.004" (* beyond 2 SE) of a - b, and where a stands: +1 worse, -1 better
    beyond 2 SE, 0 within."""
    d, se, _ = paired.paired(rows, a, b, s, metric)
    if not np.isfinite(d):
        return "n/a", 0
    where = 1 if d > 2 * se else -1 if d < -2 * se else 0
    return f"{d:+.3f} ± {se:.3f}" + ("*" if where else ""), where


def mean_of(rows, m, s, metric, median=False):
    v = [r[metric] for (mm, ss, _), r in rows.items() if mm == m and ss == s]
    if not v:
        return np.nan
    return float(np.median(v) if median else np.mean(v))


def better_logreg(rows, s):
    return min((L2, L1), key=lambda m: mean_of(rows, m, s, "kl"))


def table(rows, scenarios, with_twin):
    lines = ["| scenario | KL default | KL L2 | KL L1 | default - better logreg (KL) "
             + ("| default - uncorrected (KL) " if with_twin else "")
             + "| \\|exp - act\\| default | L2 | default - L2 (\\|exp - act\\|) "
             "| slope default (median) | L2 (median) | k default (per replicate) |",
             "|---|---:|---:|---:|---:|" + ("---:|" if with_twin else "")
             + "---:|---:|---:|---:|---:|---|"]
    verdicts = []
    for s in scenarios:
        best = better_logreg(rows, s)
        c_best, w_best = cell(rows, DEFAULT, best, s, "kl")
        c_gap, w_gap = cell(rows, DEFAULT, L2, s, "abs_gap")
        cells = [s, f"{mean_of(rows, DEFAULT, s, 'kl'):.3f}", f"{mean_of(rows, L2, s, 'kl'):.3f}",
                 f"{mean_of(rows, L1, s, 'kl'):.3f}", f"{c_best} ({best})"]
        if with_twin:
            c_twin, w_twin = cell(rows, DEFAULT, TWIN, s, "kl")
            cells.append(c_twin)
            verdicts.append((s, w_gap, w_best, w_twin))
        ks = [rows[(DEFAULT, s, r)]["k"] for r in sorted(r for (m, ss, r) in rows
                                                          if m == DEFAULT and ss == s)]
        cells += [f"{mean_of(rows, DEFAULT, s, 'abs_gap'):.3f}",
                  f"{mean_of(rows, L2, s, 'abs_gap'):.3f}", c_gap,
                  f"{mean_of(rows, DEFAULT, s, 'slope', True):.2f}",
                  f"{mean_of(rows, L2, s, 'slope', True):.2f}", ", ".join(map(str, ks))]
        lines.append("| " + " | ".join(cells) + " |")
    return lines, verdicts


def main() -> None:
    rows = paired.read_rows(HERE / "results.jsonl")
    suite = {key: r for key, r in paired.read_rows(SUITE / "results.jsonl").items()
             if key[0] == L1}
    suite.update({key: r for key, r in
                  paired.read_rows(SUITE / "grouped_predictive" / "results.jsonl").items()
                  if key[0] == L2})
    suite.update(paired.read_rows(SUITE / "label_noise_cv_mcmc" / "results.jsonl"))
    held, verdicts = table(rows, [s for s in HOLDOUT if (DEFAULT, s, 0) in rows], True)
    own, _ = table(suite, SUITE_PLASMODE, False)
    n = {s: sum(1 for (m, ss, _) in rows if m == DEFAULT and ss == s) for s in HOLDOUT}
    lines = ["# The default on held-out plasmode scenarios: the checks of README.md", "",
             "Made by `compare.py`; the checks were written before the run (README.md). "
             "Paired differences over the replicates, mean ± SE, * beyond 2 SE. KL in nats, "
             "to the true class probabilities of the test cases. Replicates per scenario: "
             + ", ".join(f"{s} {n[s]}" for s in HOLDOUT) + ".", "",
             "## Held-out scenarios (X of chowdary and nakayama)", "", *held, "",
             "## The suite's own plasmode scenarios, for comparison (X of gravier and singh)",
             "", *own, "", "## The checks", ""]
    for s, w_gap, w_best, w_twin in verdicts:
        lines.append(
            f"- {s}: (1) |expected - actual| not worse than L2 beyond 2 SE: "
            f"{'**not met**' if w_gap > 0 else 'met'}; (2) KL not worse than the better "
            f"logistic regression beyond 2 SE: {'**not met**' if w_best > 0 else 'met'}; "
            f"correction not worse than uncorrected beyond 2 SE: "
            f"{'**not met**' if w_twin > 0 else 'met'}.")
    text = "\n".join(lines) + "\n"
    (HERE / "report.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
