"""After the check (decides nothing): the default against the Bayes-optimal predictor on the
same fresh replicates of the simulation scenarios, where the model holds and the suite's point
targets apply (|expected - actual| <= 0.02, slope in [0.9, 1.1]). The default's rows are those
of this check (data seed 8900) and of ``../inner_repeats/`` (4900, and 5900 for its second
check); the oracle is ``selbayes.experiments.plasmode.bayes_optimal_log_odds`` (the exact
posterior predictive under the scenario's own prior; ``../bayes_oracle_probe/``), computed
on each replicate's data. Paired default - oracle over the replicates (mean ± SE).

Run from the repository root: ``python reports/plasmode/largest_k_within_se/oracle.py``
(seconds); writes ``oracle.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows, diff_text)
import probe  # noqa: E402  (reports/plasmode/probe.py: bayes_optimal_proba)

RUNS = [(HERE / "results.jsonl", 8900, 10),
        (HERE.parent / "inner_repeats" / "results.jsonl", 4900, 6),
        (HERE.parent / "inner_repeats" / "dense_results.jsonl", 5900, 8)]
SCORES = ("abs_gap", "slope", "kl")


def oracle_pairs(runs, method: str) -> dict:
    """Simulation scenario -> list of (``method``'s row, the Bayes-optimal predictor's scores
    on the same replicate), over the replicates of ``runs`` ((results.jsonl, data seed,
    replicates) each; a scenario's replicates of several runs in one list)."""
    from selbayes.experiments.plasmode import calibration_scores, make_replicate, scenario

    pairs = {}
    for path, seed, reps in runs:
        rows = paired.read_rows(path)
        for name in sorted({s for (m, s, _) in rows if m == method}):
            if scenario(name).kind != "simulation":
                continue
            for r in range(reps):
                data = make_replicate(scenario(name), seed + 1000 * r)
                oracle = calibration_scores(probe.bayes_optimal_proba(scenario(name), data),
                                            data["p_test"])
                pairs.setdefault(name, []).append((rows[(method, name, r)], oracle))
    return pairs


def oracle_table(runs, method: str, intro: str, out: Path, pairs=None) -> list[str]:
    """The table of ``method`` against the Bayes-optimal predictor on the replicates of
    ``runs`` (:func:`oracle_pairs`, or its ``pairs`` where the caller has them), written to
    ``out`` under ``intro`` (the heading and a sentence on the replicates) and returned."""
    pairs = oracle_pairs(runs, method) if pairs is None else pairs
    lines = [*intro, "",
             "| scenario | replicates | \\|e - a\\| default | \\|e - a\\| oracle | "
             "difference | slope default (median) | slope oracle (median) | "
             "log slope difference | KL default | KL oracle | KL difference |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def pm(x):
        return paired.diff_text(x, star=False)

    for name, v in pairs.items():
        d = {s: np.array([a[s] for a, _ in v]) for s in SCORES}
        o = {s: np.array([b[s] for _, b in v]) for s in SCORES}
        lines.append(
            f"| {name} | {len(v)} | {d['abs_gap'].mean():.3f} | {o['abs_gap'].mean():.3f} | "
            f"{pm(d['abs_gap'] - o['abs_gap'])} | {np.median(d['slope']):.2f} | "
            f"{np.median(o['slope']):.2f} | {pm(np.log(d['slope']) - np.log(o['slope']))} | "
            f"{d['kl'].mean():.3f} | {o['kl'].mean():.3f} | {pm(d['kl'] - o['kl'])} |")
    out.write_text("\n".join(lines) + "\n")
    return lines


def main() -> None:
    intro = ["# The default against the Bayes-optimal predictor on the same fresh replicates "
             "(made by oracle.py)", "",
             "Simulation scenarios (the model holds). Replicates: data seeds 8900 (this check), "
             "4900 and 5900 (`../inner_repeats/`). Mean over replicates (slope: median, and "
             "the mean of log slope); difference default - oracle paired, ± SE."]
    print("\n".join(oracle_table(RUNS, "selbayes", intro, HERE / "oracle.md")))


if __name__ == "__main__":
    main()
