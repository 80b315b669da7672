"""The confirmation of README.md ("Confirmation", rule written before its run): the default,
its stack components stored, and L2 on new replicates of the five scenarios where the first
run's gate opened, then ``compare.py``'s candidate on them and the confirmation's verdict.

Run from the repository root: ``python reports/plasmode/probit_sharpened_gate/confirm.py
[jobs]``; writes ``confirm/results.jsonl`` (one line per fit, resumable), ``confirm/fits/``,
``confirm/candidate.jsonl`` and ``confirm.md``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py: paired, read_rows)
import probe  # noqa: E402  (reports/plasmode/probe.py)

COMPARE = offline.load_script(HERE / "compare.py", "probit_sharpened_gate_compare")
NAME = COMPARE.NAME
METHODS = ("selbayes", "logreg_l2_cv")
SCENARIOS = ("sim_dense_weak", "plasmode_dense", "plasmode_module", "sim_dense_weak_n40",
             "plasmode_dense_n40")
GAIN_IN = "sim_dense_weak_n40"          # where the first run found the gain (rule C1)
REPLICATES, DATA_SEED = 8, 11900
OUT = HERE / "confirm"


def fit(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import scenario

    OUT.mkdir(exist_ok=True)
    probe.main(OUT, {s: scenario(s) for s in SCENARIOS}, METHODS, replicates=REPLICATES,
               data_seed=DATA_SEED, jobs=jobs, store_fits=True)


def rows() -> dict:
    """(method, scenario, replicate) -> row for ``default``, L2 and the candidate."""
    new = paired.read_rows(OUT / "results.jsonl")
    out = {}
    for s in SCENARIOS:
        for r in range(REPLICATES):
            out[("default", s, r)] = new[("selbayes", s, r)]
            out[("logreg_l2_cv", s, r)] = new[("logreg_l2_cv", s, r)]
            stored, A, yi, T = COMPARE.SHARPENED.stored_parts(OUT / "fits" / f"{s}_{r}.npz")
            out[(NAME, s, r)] = COMPARE.candidate(
                stored, A, yi, T, out[("default", s, r)],
                {"scenario": s, "replicate": r, "seed": DATA_SEED})
    return out


def report(rows) -> str:
    lines = ["# probit_sharpened_gate: the confirmation on new replicates", "",
             "Made by `confirm.py`; README.md's confirmation rule, written before the run. "
             f"{REPLICATES} new replicates per scenario (data seed {DATA_SEED} + 1000 r); "
             "paired differences candidate - default (* beyond 2 SE).", "",
             "| scenario | KL default | KL candidate | difference | \\|e - a\\| default | "
             "\\|e - a\\| candidate | difference | \\|e - a\\| L2 | gate open | c (median) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ms = COMPARE.SHARPENED._ms
    better, worse, gap_worse = [], [], []
    for s in SCENARIOS:
        d, se, _ = paired.paired(rows, NAME, "default", s, "kl")
        g, gse, _ = paired.paired(rows, NAME, "default", s, "abs_gap")
        (worse if d > 2 * se else better if d < -2 * se else []).append(s)
        if g > 2 * gse:
            gap_worse.append(s)
        get = {m: [rows[(m, s, r)] for r in range(REPLICATES)]
               for m in ("default", NAME, "logreg_l2_cv")}
        opened = [r for r in get[NAME] if r.get("sharpen")]
        c = f"{sorted(r['c'] for r in opened)[len(opened) // 2]:.2f}" if opened else "-"
        lines.append(
            f"| {s} | {ms([r['kl'] for r in get['default']])} | "
            f"{ms([r['kl'] for r in get[NAME]])} | {d:+.4f} ± {se:.4f}"
            f"{'*' if abs(d) > 2 * se else ''} | {ms([r['abs_gap'] for r in get['default']])} | "
            f"{ms([r['abs_gap'] for r in get[NAME]])} | {g:+.4f} ± {gse:.4f}"
            f"{'*' if abs(g) > 2 * gse else ''} | "
            f"{ms([r['abs_gap'] for r in get['logreg_l2_cv']])} | "
            f"{len(opened)} of {REPLICATES} | {c} |")
    rules = [(f"C1. KL better beyond 2 SE in {GAIN_IN}", GAIN_IN in better,
              ", ".join(better) or "none"),
             ("C2. KL worse beyond 2 SE nowhere", not worse, ", ".join(worse) or "none"),
             ("C3. |expected - actual| worse beyond 2 SE nowhere", not gap_worse,
              ", ".join(gap_worse) or "none")]
    lines += ["", "## Verdict (README.md's confirmation rule)", ""]
    lines += [f"- {text}: {'pass' if ok else 'fail'} ({detail})" for text, ok, detail in rules]
    lines += ["", "**confirmed**" if all(ok for _, ok, _ in rules) else "**not confirmed**", ""]
    return "\n".join(lines)


def main(jobs: int = 2) -> None:
    fit(jobs)
    out = rows()
    with (OUT / "candidate.jsonl").open("w") as f:
        for key, row in sorted(out.items()):
            if key[0] == NAME:
                f.write(json.dumps(row) + "\n")
    (HERE / "confirm.md").write_text(report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
