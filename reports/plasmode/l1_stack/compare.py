"""The rules of README.md (written before the run, with this script): ``three_way`` (the
default stack plus L1 logistic regression) against ``linear_refit`` (the default, recomputed
from the stored fits), T1-T3 on the seed-0 replicates and T5 on the seed-1 ones; whether
``linear_refit`` reproduces the default's committed rows and whether the re-made inner folds
are the default's (``fold_check``). T4 is ``dev_sets.py``'s.

Usage (from the repository root): ``python reports/plasmode/l1_stack/compare.py``; writes
``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report, load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows, violations)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: report_header)

SEED1 = HERE.parent / "kept_genes_probit" / "seed1"


def _reps(rows):
    have = {s for (m, s, _) in rows if m == "three_way"}
    return {s: sorted(r for (m, ss, r) in rows if m == "three_way" and ss == s) for s in have}


def _section(lp, rows, reps_of, title, scenarios, suite_like) -> tuple[list, bool | None]:
    """One rule's section: the tables, the weights, KL worse/better beyond 2 SE, and for the
    suite's rules (T1, T5) both methods' violations (no more for the candidate) and point
    misses (reported)."""
    scen = [s for s in scenarios if s in reps_of]
    if not scen:
        return [], None
    out = [f"# {title}", ""]
    out += paired.tables(rows, "three_way", "linear_refit", [lp.L2, "linear_refit", "three_way"],
                         scen)
    out += ["| scenario | weights Gaussian / all genes / L1 (mean) | L1 weight (median, range) "
            "| inner folds without an L1 fit |", "|---|---|---:|---:|"]
    for s in scen:
        w = np.array([rows[("three_way", s, r)]["weights"] for r in reps_of[s]])
        u = sum(rows[("three_way", s, r)]["l1_uniform_folds"] for r in reps_of[s])
        out.append(f"| {s} | {' / '.join(f'{v:.2f}' for v in w.mean(0))} | "
                   f"{np.median(w[:, 2]):.2f} ({w[:, 2].min():.2f} to {w[:, 2].max():.2f}) | "
                   f"{u} |")
    worse, better = lp.kl_beyond(rows, "three_way", "linear_refit", scen)
    out += ["", f"* KL worse beyond 2 SE in: {', '.join(worse) or 'none'}; better beyond 2 SE "
            f"in: {', '.join(better) or 'none'}."]
    ok = not worse
    if suite_like:
        v_c = paired.violations(rows, "three_way", scen, reps_of, lp.L2)
        v_b = paired.violations(rows, "linear_refit", scen, reps_of, lp.L2)
        m_c = lp.point_misses(rows, "three_way", scen)
        m_b = lp.point_misses(rows, "linear_refit", scen)
        out += [f"* Violations of three_way ({len(v_c)}): " + ("; ".join(v_c) or "none"),
                f"* Violations of linear_refit ({len(v_b)}): " + ("; ".join(v_b) or "none"),
                f"* Point misses (reported) of three_way ({len(m_c)}): "
                + ("; ".join(m_c) or "none"),
                f"* Point misses (reported) of linear_refit ({len(m_b)}): "
                + ("; ".join(m_b) or "none")]
        ok = ok and len(v_c) <= len(v_b)
    out += [f"* {title.split(',')[0]}: " + ("pass" if ok else "FAIL"), ""]
    return out, ok


def main() -> None:
    lp = offline.load_script(HERE.parent / "log_pool" / "compare.py", "log_pool_compare")
    groups = (("T1, the suite (seed 0)", lp.SUITE), ("T2, the held-out X", lp.HOLDOUT),
              ("T3, three classes", lp.THREE_CLASS))
    rows, reps_of, complete, same = lp.candidate_rows(HERE, "three_way", groups)
    folds = [rows[("three_way", s, r)]["fold_check"] for s in reps_of for r in reps_of[s]]
    rows1 = {k: r for k, r in paired.read_rows(SEED1 / "results.jsonl").items()
             if k[0] == lp.L2}
    if (HERE / "seed1" / "results.jsonl").exists():
        rows1.update(paired.read_rows(HERE / "seed1" / "results.jsonl"))
    reps1 = _reps(rows1)
    complete = complete and all(len(reps1.get(s, [])) == 6 for s in lp.SUITE)
    folds += [rows1[("three_way", s, r)]["fold_check"] for s in reps1 for r in reps1[s]]
    out = third_component.report_header(
        "# A third model in the stack: L1 logistic regression",
        same, folds, complete)
    verdicts = []
    for (title, scen), suite_like in zip(groups, (True, False, False), strict=True):
        lines, ok = _section(lp, rows, reps_of, title, scen, suite_like)
        out += lines
        verdicts.append(ok)
    lines, ok = _section(lp, rows1, reps1, "T5, the suite on new replicates (seed 1)",
                         lp.SUITE, True)
    out += lines
    verdicts.append(ok)
    out += lp.verdict_lines(verdicts, complete,
                            "T1-T3 and T5 pass; adoption then rests on T4 (dev_sets.md).",
                            "Not all of T1-T3 and T5 pass: not adopted.")
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
