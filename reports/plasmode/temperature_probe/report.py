"""The temperature probe's tables from ``results.jsonl`` (see ``run.py``): per scenario, the
fitted T (median, range), and for each power a of T: mean KL (paired difference to a = 1 ± SE,
* beyond 2 SE) and mean slope. Writes ``report.md``.

Usage (from the repository root): ``python reports/plasmode/temperature_probe/report.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report, load_script)
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences)


def main() -> None:
    run = offline.load_script(HERE / "run.py", "temperature_probe_run")
    rows = paired.read_rows(HERE / "results.jsonl")
    methods = [f"a={a:g}" for a in run.POWERS]
    out = ["# The Gaussian model's predictive with T^a (made by report.py)", "",
           "Each cell: mean KL to the true probabilities over the replicates run (nats), its "
           "paired difference to a = 1 (the default) ± SE (* beyond 2 SE), and the mean "
           "calibration slope. a = 0 is T = 1.", "",
           "| scenario | T (median, range) | " + " | ".join(methods) + " |",
           "|---|---|" + "---:|" * len(methods)]
    for s in run.SCENARIOS:
        reps = sorted(r for (m, ss, r) in rows if ss == s and m == "a=1")
        if not reps:
            continue
        T = [rows[("a=1", s, r)]["T"] for r in reps]
        cells = []
        for m in methods:
            kl = np.mean([rows[(m, s, r)]["kl"] for r in reps])
            slope = np.mean([rows[(m, s, r)]["slope"] for r in reps])
            d, se, _ = paired.paired(rows, m, "a=1", s, "kl")
            tag = "" if m == "a=1" else (f" ({d:+.3f} ± {se:.3f}"
                                          + ("*" if abs(d) > 2 * se else "") + ")")
            cells.append(f"{kl:.3f}{tag}, slope {slope:.2f}")
        out.append(f"| {s} ({len(reps)}) | {np.median(T):.2f} ({min(T):.2f} to {max(T):.2f}) | "
                   + " | ".join(cells) + " |")
    offline.write_report(HERE, "\n".join(out) + "\n")


if __name__ == "__main__":
    main()
