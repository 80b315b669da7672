"""README.md's rules 1-4 on ``results.jsonl``: the candidate ``selbayes_k_grid_clip`` against
the default, paired over replicates; writes ``report.md``.

Run from the repository root: ``python reports/plasmode/k_grid_clip/compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py)
from run import NAMES, REPLICATES  # noqa: E402

SHARPENED = offline.load_script(HERE.parent / "probit_sharpened" / "compare.py",
                                "probit_sharpened_compare")

DEFAULT, CANDIDATE, L2 = "selbayes", "selbayes_k_grid_clip", "logreg_l2_cv"


def _mean(rows, method, s, field):
    return float(np.mean([rows[(method, s, r)][field] for r in range(REPLICATES)]))


def misses(rows, method, s) -> int:
    """README.md rule 3's point misses of ``method`` in simulation ``s`` (the definition of
    ``../log_pool/``, as ``probit_sharpened/compare.py`` counts them)."""
    return SHARPENED.point_misses(rows, method, s, REPLICATES)


def report(rows) -> str:
    lines = ["# The k grid clipped at p - 1 against the default (new replicates)", "",
             "Made by `compare.py`; README.md's rules, written before the run. Candidate - "
             f"default, paired over {REPLICATES} replicates (* beyond 2 SE); L2 logistic "
             "regression's mean for reference.", "",
             "| scenario | KL default | KL candidate | difference | \\|e - a\\| default | "
             "\\|e - a\\| candidate | difference | slope default → candidate | L2 KL, "
             "\\|e - a\\| | k default → candidate (per replicate) | misses default / "
             "candidate |", "|---|" + "---:|" * 6 + "---|---|---|---|"]
    for s in NAMES:
        kl, gap = (paired.paired(rows, CANDIDATE, DEFAULT, s, f)[:2] for f in ("kl", "abs_gap"))
        ks = ", ".join(f"{rows[(DEFAULT, s, r)]['k']}→{rows[(CANDIDATE, s, r)]['k']}"
                       for r in range(REPLICATES))
        lines.append(
            f"| {s} | {_mean(rows, DEFAULT, s, 'kl'):.3f} | {_mean(rows, CANDIDATE, s, 'kl'):.3f}"
            f" | {paired.pm_text(*kl)} | {_mean(rows, DEFAULT, s, 'abs_gap'):.3f} | "
            f"{_mean(rows, CANDIDATE, s, 'abs_gap'):.3f} | {paired.pm_text(*gap)} | "
            f"{_mean(rows, DEFAULT, s, 'slope'):.2f} → {_mean(rows, CANDIDATE, s, 'slope'):.2f}"
            f" | {_mean(rows, L2, s, 'kl'):.3f}, {_mean(rows, L2, s, 'abs_gap'):.3f} | {ks} | "
            f"{misses(rows, DEFAULT, s)} / {misses(rows, CANDIDATE, s)} |")
    _, _, better, worse, gap_worse = paired.rule2(rows, CANDIDATE, DEFAULT, NAMES)
    count = [sum(misses(rows, m, s) for s in NAMES) for m in (DEFAULT, CANDIDATE)]
    rules = [("KL worse beyond 2 SE nowhere", not worse, ", ".join(worse) or "none"),
             ("KL better beyond 2 SE somewhere, or fewer point misses",
              bool(better) or count[1] < count[0],
              f"better in {', '.join(better) or 'none'}; misses {count[1]} against {count[0]}"),
             ("Point misses no more than the default's", count[1] <= count[0],
              f"{count[1]} against {count[0]}"),
             ("|expected - actual| worse beyond 2 SE nowhere", not gap_worse,
              ", ".join(gap_worse) or "none")]
    lines += (["", "## Verdict (README.md's rules 1-4)", ""]
              + [f"{i}. {text}: {'pass' if ok else 'fail'} ({detail})"
                 for i, (text, ok, detail) in enumerate(rules, 1)]
              + ["", "**rules 1-4 pass: rule 5 (the development sets) follows**"
                 if all(ok for _, ok, _ in rules) else "**fails: the default stays**"])
    return "\n".join(lines)


def main() -> None:
    rows = paired.read_rows(HERE / "results.jsonl")
    text = report(rows)
    (HERE / "report.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
