"""Refit the default with its k grid continued past 2000 where the extension is reached, and
carry every other fit over from the reference run (README.md has the rule and why).

Usage (from the repository root): ``python reports/plasmode/extended_k_grid/run.py
--reference sb_t_wide`` (the fixed t prior, rows from ``../flat_nu/``) or ``--reference
sb_t_auto_wide`` (rows from ``../t_auto_flat_nu/``); ``--jobs 2``. Writes ``results.jsonl``
(carried rows under the new name, with ``"carried": true``), ``settings.json``, ``suite.md``
and ``kl.png`` beside this script through the suite's runner, which fits only the missing rows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = {"sb_t_wide": ("sb_t_extended", HERE.parent / "flat_nu" / "results.jsonl"),
           "sb_t_auto_wide": ("sb_t_auto_extended",
                              HERE.parent / "t_auto_flat_nu" / "results.jsonl")}
SCENARIO_NAMES = ("sim_dense_weak", "sim_sparse_strong", "plasmode_sparse", "plasmode_dense",
                  "plasmode_module")


def n_genes(scenario: str) -> int:
    """p of a scenario's X: the simulation's own, or the real set's genes the runner keeps."""
    from selbayes.experiments.plasmode import SCENARIOS, _standardised_dataset

    sc = SCENARIOS[scenario]
    return sc.p if sc.kind == "simulation" else _standardised_dataset(sc.dataset).shape[1]


def largest_usable(p: int) -> int:
    """The largest value of the old grid that a fit on p features can use (k < p)."""
    from selbayes.experiments.plasmode import WIDE_K_GRID

    return max(k for k in WIDE_K_GRID if k < p)


def main() -> None:
    from selbayes.experiments.plasmode import main as run

    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", choices=sorted(SOURCES), required=True)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    name, source = SOURCES[a.reference]
    out = HERE / "results.jsonl"
    have = set()
    if out.exists():
        have = {(r["method"], r["scenario"], r["replicate"])
                for r in map(json.loads, out.read_text().splitlines())}
    p_of = {s: n_genes(s) for s in SCENARIO_NAMES}
    carried, refit = [], []
    for line in source.read_text().splitlines():
        r = json.loads(line)
        if r["method"] != a.reference:
            continue
        key = (name, r["scenario"], r["replicate"])
        if int(r["k"]) == largest_usable(p_of[r["scenario"]]):
            refit.append(key)
        elif key not in have:
            carried.append({**r, "method": name, "carried": True})
    with out.open("a") as fh:
        for r in carried:
            fh.write(json.dumps(r) + "\n")
    print(f"carried over {len(carried)} rows; to refit: {sorted(refit)}", flush=True)
    run(["--methods", name, "--scenarios", ",".join(SCENARIO_NAMES), "--replicates", "6",
         "--seed", "0", "--jobs", str(a.jobs), "--reference", name, "--out", str(HERE)])


if __name__ == "__main__":
    main()
