"""README.md's measurement on ``results.jsonl``: the default against L2 (and L1) logistic
regression, paired over the new replicates; then pooled with the earlier replicates (the
suite's eighteen and seed 11900's eight, the default recomputed with the probit fix by
``../per_fold_choice/``). Writes ``report.md``.

Run from the repository root: ``python reports/plasmode/plasmode_vs_l2/compare.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py)
from run import NAMES, REPLICATES  # noqa: E402

DEFAULT, L2, L1 = "selbayes", "logreg_l2_cv", "logreg_l1_cv"


def _mean(rows, method, s, field) -> float:
    return float(np.mean([rows[(method, s, r)][field] for r in range(REPLICATES)]))


def earlier_pairs(s) -> list[tuple[float, float]]:
    """(default |e - a|, L2 |e - a|) on the earlier replicates of scenario ``s``: the
    suite's eighteen (seeds 0, 1, 7) and seed 11900's eight where it was run; the default as
    ``../per_fold_choice/`` recomputed it (the probit constant-gene fix)."""
    sharpened = offline.load_script(HERE.parent / "probit_sharpened" / "compare.py",
                                    "probit_sharpened_compare")
    suite = sharpened.default_rows(())
    confirm = paired.read_rows(HERE.parent / "probit_sharpened_gate" / "confirm"
                               / "results.jsonl")
    out = []
    for line in (HERE.parent / "per_fold_choice" / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["scenario"] == s:
            l2 = suite[(L2, s, r["replicate"])]
        elif r["scenario"] == s + "@11900":
            l2 = confirm[(L2, s, r["replicate"])]
        else:
            continue
        out.append((r["default"]["abs_gap"], l2["abs_gap"]))
    return out


def report(rows) -> str:
    lines = ["# The default against L2 logistic regression on new plasmode replicates", "",
             f"Made by `compare.py`; README.md's measurement, written before the run. "
             f"{REPLICATES} new replicates per scenario (data seed 23900 + 1000 r); "
             "differences default - L2 (and - L1) paired over replicates (* beyond 2 SE).",
             "",
             "| scenario | \\|e - a\\| default | \\|e - a\\| L2 | \\|e - a\\| L1 | default - L2 | "
             "KL default | KL L2 | KL L1 | KL default - L2 | KL default - L1 | slope default "
             "(median) | slope L2 (median) | k (per replicate) | probit weight (mean) |",
             "|---|" + "---:|" * 12 + "---|---:|"]
    findings = []
    for s in NAMES:
        gap = paired.paired(rows, DEFAULT, L2, s, "abs_gap")[:2]
        kl2 = paired.paired(rows, DEFAULT, L2, s, "kl")[:2]
        kl1 = paired.paired(rows, DEFAULT, L1, s, "kl")[:2]
        if gap[0] > 2 * gap[1]:
            findings.append(f"{s}: |expected - actual| above L2's by {paired.pm_text(*gap)}")
        med = {m: np.median([rows[(m, s, r)]["slope"] for r in range(REPLICATES)])
               for m in (DEFAULT, L2)}
        ks = ", ".join(str(rows[(DEFAULT, s, r)]["k"]) for r in range(REPLICATES))
        w = np.mean([rows[(DEFAULT, s, r)]["weights"][1] for r in range(REPLICATES)])
        lines.append(
            f"| {s} | {_mean(rows, DEFAULT, s, 'abs_gap'):.3f} | "
            f"{_mean(rows, L2, s, 'abs_gap'):.3f} | {_mean(rows, L1, s, 'abs_gap'):.3f} | "
            f"{paired.pm_text(*gap)} | {_mean(rows, DEFAULT, s, 'kl'):.3f} | "
            f"{_mean(rows, L2, s, 'kl'):.3f} | {_mean(rows, L1, s, 'kl'):.3f} | "
            f"{paired.pm_text(*kl2)} | {paired.pm_text(*kl1)} | "
            f"{med[DEFAULT]:.2f} | {med[L2]:.2f} | {ks} | {w:.2f} |")
    lines += ["", "## Pooled with the earlier replicates (reported, not ruled)", "",
              "| scenario | replicates | default - L2 in \\|e - a\\|, pooled |", "|---|---:|---:|"]
    for s in NAMES:
        new = [(rows[(DEFAULT, s, r)]["abs_gap"], rows[(L2, s, r)]["abs_gap"])
               for r in range(REPLICATES)]
        d = np.array([a - b for a, b in earlier_pairs(s) + new])
        lines.append(f"| {s} | {d.size} | {paired.diff_text(d)} |")
    lines += ["", "## Finding (README.md's rule)", "",
              ("**A finding**: " + "; ".join(findings) + ". The acceptance item fails on "
               "these replicates.") if findings else
              "**No finding**: the default's |expected - actual| is above L2's beyond 2 SE in "
              "none of the three scenarios on these replicates."]
    return "\n".join(lines)


def main() -> None:
    text = report(paired.read_rows(HERE / "results.jsonl"))
    offline.write_report(HERE, text + "\n")


if __name__ == "__main__":
    main()
