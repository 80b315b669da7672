"""README.md's check (rule written before the run): the default against the same stack whose
k is the largest within one paired standard error of the inner curve's best, on new
replicates of the suite's scenarios.

Run from the repository root: ``python reports/plasmode/largest_k_within_se/run.py [jobs]``;
writes ``results.jsonl`` (one line per replicate and method, resumable) and ``report.md``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "inner_repeats"))
import paired  # noqa: E402  (reports/plasmode/paired.py: rule2, read_rows)
import run as inner_repeats  # noqa: E402  (../inner_repeats/run.py: fit_timed, score_row)

REPLICATES, DATA_SEED = 10, 8900
DEFAULT, NAME = "selbayes", "largest_k"
METHODS = {DEFAULT: "selbayes", NAME: "selbayes_largest_k"}


def candidate_k(est) -> int:
    """The k the candidate's rule picks from the default's own inner curve."""
    from selbayes.estimators._inner_cv import pick_candidate

    ch = est.estimator_.k_choice_
    return int(ch.grid[pick_candidate(ch.extra["case_losses"], [g[2] for g in ch.grid],
                                      "largest_k_one_se", [g[0] for g in ch.grid])][0])


def one(name: str, rep: int, verify: bool) -> list:
    """Both methods on replicate ``rep`` of scenario ``name``: the default fitted, the
    candidate fitted where its k differs (or ``verify``), else carried over."""
    from selbayes.experiments.plasmode import make_replicate, scenario

    warnings.simplefilter("ignore")
    data = make_replicate(scenario(name), DATA_SEED + 1000 * rep)
    est, seconds = inner_repeats.fit_timed(METHODS[DEFAULT], data, rep)
    ref = inner_repeats.score_row(est, seconds, data, name, rep, DEFAULT)
    k_new = candidate_k(est)
    if k_new == ref["k"] and not verify:
        return [ref, {**ref, "method": NAME, "carried": True}]
    cand, seconds = inner_repeats.fit_timed(METHODS[NAME], data, rep)
    row = inner_repeats.score_row(cand, seconds, data, name, rep, NAME)
    assert row["k"] == k_new, (row["k"], k_new)
    if k_new == ref["k"]:
        row["verified_identical"] = bool(np.array_equal(cand.predict_proba(data["X_test"]),
                                                        est.predict_proba(data["X_test"])))
    return [ref, row]


def report(rows) -> str:
    from selbayes.experiments.plasmode import SCENARIOS

    lines = ["# The largest k within one SE of the inner curve's best, against the default "
             "(new replicates)", "",
             "Made by `run.py`; README.md's rule, written before the run. Paired differences "
             "candidate - default over replicates (mean ± SE, * beyond 2 SE); k per "
             "replicate, in order, the candidate's only where it moved.", "",
             "| scenario | KL default | KL difference | \\|e - a\\| default | "
             "\\|e - a\\| difference | slope default → candidate (median) | k default | "
             "k moved (replicate: default → candidate) |",
             "|---|---:|---:|---:|---:|---|---|---|"]
    kl, gap, better, worse, worse_gap = paired.rule2(rows, NAME, DEFAULT, SCENARIOS)
    for s in SCENARIOS:
        (d, se), (g, gse) = kl[s], gap[s]
        get = {m: [rows[(m, s, r)] for r in range(REPLICATES)] for m in METHODS}
        moved = [f"{r}: {a['k']} → {b['k']}" for r, (a, b)
                 in enumerate(zip(get[DEFAULT], get[NAME], strict=True)) if a["k"] != b["k"]]
        lines.append(
            f"| {s} | {np.mean([r['kl'] for r in get[DEFAULT]]):.3f} | "
            f"{d:+.4f} ± {se:.4f}{'*' if abs(d) > 2 * se else ''} | "
            f"{np.mean([r['abs_gap'] for r in get[DEFAULT]]):.3f} | "
            f"{g:+.4f} ± {gse:.4f}{'*' if abs(g) > 2 * gse else ''} | "
            f"{np.median([r['slope'] for r in get[DEFAULT]]):.2f} → "
            f"{np.median([r['slope'] for r in get[NAME]]):.2f} | "
            f"{', '.join(str(r['k']) for r in get[DEFAULT])} | {'; '.join(moved) or '-'} |")
    checks = [r for r in rows.values() if "verified_identical" in r]
    ok1, ok2 = bool(better) and not worse, not worse_gap
    lines += ["", f"Carried rows checked by fitting both: {len(checks)}, identical "
              f"predictions in {sum(r['verified_identical'] for r in checks)}.", "",
              "## Verdict (README.md's rule)", "",
              f"- Rule 1: KL better beyond 2 SE in: {', '.join(better) or 'none'}; worse "
              f"beyond 2 SE in: {', '.join(worse) or 'none'} ({'holds' if ok1 else 'fails'}).",
              f"- Rule 2: |expected - actual| worse beyond 2 SE in: "
              f"{', '.join(worse_gap) or 'none'} ({'holds' if ok2 else 'fails'}).", "",
              "**Promising**: next, the development sets (README.md)." if ok1 and ok2
              else "**Not promising**: nothing changes."]
    return "\n".join(lines) + "\n"


def main(jobs: int = 2) -> None:
    from joblib import Parallel, delayed

    from selbayes.experiments.plasmode import SCENARIOS

    path = HERE / "results.jsonl"
    rows = paired.read_rows(path) if path.exists() else {}
    todo = [(s, r) for r in range(REPLICATES) for s in SCENARIOS
            if (NAME, s, r) not in rows]
    # the first replicate of each scenario is fitted twice even where k does not move
    for pair in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(one)(s, r, r == 0) for s, r in todo):
        with path.open("a") as f:
            for row in pair:
                rows[(row["method"], row["scenario"], row["replicate"])] = row
                f.write(json.dumps(row) + "\n")
        print(pair[0]["scenario"], pair[0]["replicate"], pair[0]["k"], pair[1]["k"],
              round(pair[0]["fit_seconds"]), flush=True)
    (HERE / "report.md").write_text(report(rows))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
