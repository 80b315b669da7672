"""README.md's follow-up (rule written before its run): the default and L2 on eight new
sim_dense_weak replicates (data seed 33900), against the Bayes-optimal predictor and the
estimated-scale reference (``eb_look.py``). Writes ``follow_up/results.jsonl`` (resumable)
and ``follow_up/report.md``.

Run from the repository root: ``python reports/plasmode/simulations_vs_oracle/follow_up.py
[jobs]`` (about 10 minutes on 2 cores).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import probe  # noqa: E402  (reports/plasmode/probe.py)
from eb_look import estimated_scale_rows, summary  # noqa: E402

OUT = HERE / "follow_up"
NAME, REPLICATES, DATA_SEED = "sim_dense_weak", 8, 33900


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import scenario

    OUT.mkdir(exist_ok=True)
    probe.main(OUT, {NAME: scenario(NAME)}, ("selbayes", "logreg_l2_cv"),
               replicates=REPLICATES, data_seed=DATA_SEED, jobs=jobs)
    rows = estimated_scale_rows(OUT / "results.jsonl", DATA_SEED, "selbayes", NAME,
                                REPLICATES)
    lines = [f"# Follow-up: the default on {REPLICATES} new {NAME} replicates (seed "
             f"{DATA_SEED}) against the Bayes-optimal predictor and the estimated-scale "
             "reference (made by follow_up.py; README.md's follow-up rule)", ""]
    lines += [f"- {line}" for line in summary(rows)]
    lines += ["", "| replicate | k | moment estimate | slope default | slope estimated scale | "
              "slope oracle | \\|e - a\\| default | estimated scale | oracle |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r, row in enumerate(rows):
        lines.append(f"| {r} | {row['default'].get('k')} | {row['moment_variance']:.4f} | "
                     + " | ".join(f"{row[w]['slope']:.2f}" for w in
                                  ("default", "estimated_scale", "oracle")) + " | "
                     + " | ".join(f"{row[w]['abs_gap']:.3f}" for w in
                                  ("default", "estimated_scale", "oracle")) + " |")
    (OUT / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
