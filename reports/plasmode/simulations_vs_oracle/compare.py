"""README.md's measurement on ``results.jsonl``: the current default against the
Bayes-optimal predictor on the new replicates (``../largest_k_within_se/oracle.py``'s table),
the finding by README.md's rule, the point targets, L2, and the new replicates pooled with
``../k_grid_clip/``'s. Writes ``report.md``.

Run from the repository root: ``python reports/plasmode/simulations_vs_oracle/compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py)
from run import DATA_SEED, NAMES, REPLICATES  # noqa: E402

ORACLE = offline.load_script(HERE.parent / "largest_k_within_se" / "oracle.py",
                             "largest_k_within_se_oracle")
CLIP = HERE.parent / "k_grid_clip"
CLIP_SEED, CLIP_REPLICATES = 17900, 8


def oracle_scores(name, seed, replicates) -> list[dict]:
    """The Bayes-optimal predictor's scores on each replicate of simulation ``name``."""
    from scipy.special import expit

    from selbayes.experiments.plasmode import (
        bayes_optimal_log_odds,
        calibration_scores,
        make_replicate,
        scenario,
    )

    out = []
    for r in range(replicates):
        d = make_replicate(scenario(name), seed + 1000 * r)
        p1 = expit(bayes_optimal_log_odds(scenario(name), d["X_train"], d["y_train"],
                                          d["X_test"]))
        out.append(calibration_scores(np.column_stack([1 - p1, p1]), d["p_test"]))
    return out


def _pm(x) -> str:
    x = np.asarray(x, dtype=np.float64)
    m, se = x.mean(), x.std(ddof=1) / np.sqrt(x.size)
    return f"{m:+.3f} ± {se:.3f}" + ("*" if abs(m) > 2 * se else "")


def report(rows) -> str:
    lines = ORACLE.oracle_table(
        [(HERE / "results.jsonl", DATA_SEED, REPLICATES)], "selbayes",
        ["# The current default against the Bayes-optimal predictor on new simulation "
         "replicates (made by compare.py)", "",
         f"README.md's measurement, written before the run. {REPLICATES} new replicates per "
         f"scenario (data seed {DATA_SEED} + 1000 r). Mean over replicates (slope: median, "
         "and the mean of log slope); difference default - oracle paired, ± SE (* beyond "
         "2 SE)."], HERE / "oracle.md")
    findings = []
    extra = ["", "## The point targets, L2, and pooled with k_grid_clip's replicates", "",
             "| scenario | \\|e - a\\| default (target 0.02) | slope default, mean (target "
             "[0.9, 1.1]) | \\|e - a\\| L2 | KL default - L2 | pooled 16: \\|e - a\\| default - "
             "oracle | pooled 16: log slope default - oracle |", "|---|" + "---:|" * 6]
    clip = paired.read_rows(CLIP / "results.jsonl")
    for s in NAMES:
        new = [rows[("selbayes", s, r)] for r in range(REPLICATES)]
        ora = oracle_scores(s, DATA_SEED, REPLICATES)
        gap = [a["abs_gap"] - b["abs_gap"] for a, b in zip(new, ora, strict=True)]
        slope = [np.log(a["slope"]) - np.log(b["slope"]) for a, b in zip(new, ora, strict=True)]
        for what, d in (("|expected - actual|", gap), ("log slope", slope)):
            d = np.asarray(d)
            if abs(d.mean()) > 2 * d.std(ddof=1) / np.sqrt(d.size):
                findings.append(f"{s}: {what} default - oracle {_pm(d)}")
        old = [clip[("selbayes_k_grid_clip", s, r)] for r in range(CLIP_REPLICATES)]
        ora_old = oracle_scores(s, CLIP_SEED, CLIP_REPLICATES)
        gap16 = gap + [a["abs_gap"] - b["abs_gap"] for a, b in zip(old, ora_old, strict=True)]
        slope16 = slope + [np.log(a["slope"]) - np.log(b["slope"])
                           for a, b in zip(old, ora_old, strict=True)]
        l2 = [rows[("logreg_l2_cv", s, r)] for r in range(REPLICATES)]
        extra.append(
            f"| {s} | {np.mean([a['abs_gap'] for a in new]):.3f} | "
            f"{np.mean([a['slope'] for a in new]):.2f} | "
            f"{np.mean([a['abs_gap'] for a in l2]):.3f} | "
            f"{_pm([a['kl'] - b['kl'] for a, b in zip(new, l2, strict=True)])} | "
            f"{_pm(gap16)} | {_pm(slope16)} |")
    extra += ["", "## Finding (README.md's rule)", "",
              ("**A finding**: " + "; ".join(findings) + ".") if findings else
              "**No finding**: in no scenario is the default's |expected - actual| or log "
              "slope beyond 2 SE from the Bayes-optimal predictor's on these replicates."]
    return "\n".join(lines + extra)


def main() -> None:
    text = report(paired.read_rows(HERE / "results.jsonl"))
    offline.write_report(HERE, text + "\n")


if __name__ == "__main__":
    main()
