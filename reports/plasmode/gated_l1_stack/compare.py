"""The rules of README.md (written before the run, with this script): ``three_way`` (the
default stack with the gated L1 model) against ``linear_refit`` (the default, recomputed from
the stored fits), T1-T3 on the seed-0 replicates, T5 on the seed-1 and T6 on the seed-7 ones;
whether ``linear_refit`` reproduces the default's committed rows and whether the re-made inner
folds are the default's (``fold_check``). T4 is ``dev_sets.py``'s.

Usage (from the repository root): ``python reports/plasmode/gated_l1_stack/compare.py``;
writes ``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report, load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: report_header)

#: (rule, sub-folder of this one, the default's and L2's rows on those replicates)
NEW_SEEDS = (("T5, the suite on new replicates (seed 1)", "seed1",
              HERE.parent / "kept_genes_probit" / "seed1" / "results.jsonl"),
             ("T6, the suite on replicates no rule has seen (seed 7)", "seed7",
              HERE.parent / "default_seed7" / "results.jsonl"))


def _gate_table(rows, reps_of):
    """``rule_sections``' ``extra``: ``../l1_stack/``'s weight table, then how often the gate
    opened and its z, per scenario."""
    l1c = offline.load_script(HERE.parent / "l1_stack" / "compare.py", "l1_stack_compare")
    weights = l1c._weight_table(rows, reps_of)

    def table(scen):
        out = weights(scen)
        out += ["| scenario | gate open (replicates) | gate z (median, range) |",
                "|---|---:|---:|"]
        for s in scen:
            z = np.array([rows[("three_way", s, r)]["gate_z"] for r in reps_of[s]])
            n_open = sum(rows[("three_way", s, r)]["gate_open"] for r in reps_of[s])
            out.append(f"| {s} | {n_open} of {len(z)} | {np.median(z):.2f} ({z.min():.2f} "
                       f"to {z.max():.2f}) |")
        return out + [""]
    return table


def main() -> None:
    lp = offline.load_script(HERE.parent / "log_pool" / "compare.py", "log_pool_compare")
    l1c = offline.load_script(HERE.parent / "l1_stack" / "compare.py", "l1_stack_compare")
    groups = (("T1, the suite (seed 0)", lp.SUITE), ("T2, the held-out X", lp.HOLDOUT),
              ("T3, three classes", lp.THREE_CLASS))
    rows, reps_of, complete, same = lp.candidate_rows(HERE, "three_way", groups)
    folds = [rows[("three_way", s, r)]["fold_check"] for s in reps_of for r in reps_of[s]]
    shown = [lp.L2, "linear_refit", "three_way"]
    # README.md: the suite's rules (T1, T5, T6) ask for no more violations, not for a gain
    lines, verdicts = lp.rule_sections(rows, "three_way", "linear_refit", groups, reps_of,
                                       shown, _gate_table(rows, reps_of), require_gain=False)
    for title, sub, default_rows in NEW_SEEDS:
        new = {k: r for k, r in paired.read_rows(default_rows).items() if k[0] == lp.L2}
        if (HERE / sub / "results.jsonl").exists():
            new.update(paired.read_rows(HERE / sub / "results.jsonl"))
        reps = l1c._reps(new)
        complete = complete and all(len(reps.get(s, [])) == 6 for s in lp.SUITE)
        folds += [new[("three_way", s, r)]["fold_check"] for s in reps for r in reps[s]]
        more, v = lp.rule_sections(new, "three_way", "linear_refit", ((title, lp.SUITE),),
                                   reps, shown, _gate_table(new, reps), require_gain=False)
        lines, verdicts = lines + more, verdicts + v
    out = third_component.report_header(
        "# L1 logistic regression in the stack behind a gate", same, folds, complete)
    out += lines + lp.verdict_lines(verdicts, complete,
                                    "T1-T3, T5 and T6 pass; adoption then rests on T4 "
                                    "(dev_sets.md).",
                                    "Not all of T1-T3, T5 and T6 pass: not adopted.")
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
