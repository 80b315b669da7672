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
import paired  # noqa: E402  (reports/plasmode/paired.py: diff_text)
from run import DATA_SEED, NAMES, REPLICATES  # noqa: E402

ORACLE = offline.load_script(HERE.parent / "largest_k_within_se" / "oracle.py",
                             "largest_k_within_se_oracle")
CLIP = HERE.parent / "k_grid_clip"
CLIP_SEED, CLIP_REPLICATES = 17900, 8


def _differences(pairs) -> tuple[list, list]:
    """The default - oracle differences in |expected - actual| and in log slope, per
    replicate, of :func:`oracle_pairs`'s list of one scenario."""
    return ([a["abs_gap"] - b["abs_gap"] for a, b in pairs],
            [np.log(a["slope"]) - np.log(b["slope"]) for a, b in pairs])


def report(rows) -> str:
    pairs = ORACLE.oracle_pairs([(HERE / "results.jsonl", DATA_SEED, REPLICATES)], "selbayes")
    clip = ORACLE.oracle_pairs([(CLIP / "results.jsonl", CLIP_SEED, CLIP_REPLICATES)],
                               "selbayes_k_grid_clip")
    lines = ORACLE.oracle_table(
        None, "selbayes",
        ["# The current default against the Bayes-optimal predictor on new simulation "
         "replicates (made by compare.py)", "",
         f"README.md's measurement, written before the run. {REPLICATES} new replicates per "
         f"scenario (data seed {DATA_SEED} + 1000 r). Mean over replicates (slope: median, "
         "and the mean of log slope); difference default - oracle paired, ± SE (* beyond "
         "2 SE)."], HERE / "oracle.md", pairs=pairs)
    findings = []
    extra = ["", "## The point targets, L2, and pooled with k_grid_clip's replicates", "",
             "| scenario | \\|e - a\\| default (target 0.02) | slope default, mean (target "
             "[0.9, 1.1]) | \\|e - a\\| L2 | KL default - L2 | pooled 16: \\|e - a\\| default - "
             "oracle | pooled 16: log slope default - oracle |", "|---|" + "---:|" * 6]
    for s in NAMES:
        new = [a for a, _ in pairs[s]]
        gap, slope = _differences(pairs[s])
        for what, d in (("|expected - actual|", gap), ("log slope", slope)):
            if paired.diff_text(d).endswith("*"):
                findings.append(f"{s}: {what} default - oracle {paired.diff_text(d)}")
        gap_clip, slope_clip = _differences(clip[s])
        gap16, slope16 = gap + gap_clip, slope + slope_clip
        l2 = [rows[("logreg_l2_cv", s, r)] for r in range(REPLICATES)]
        extra.append(
            f"| {s} | {np.mean([a['abs_gap'] for a in new]):.3f} | "
            f"{np.mean([a['slope'] for a in new]):.2f} | "
            f"{np.mean([a['abs_gap'] for a in l2]):.3f} | "
            f"{paired.diff_text([a['kl'] - b['kl'] for a, b in zip(new, l2, strict=True)])} | "
            f"{paired.diff_text(gap16)} | {paired.diff_text(slope16)} |")
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
