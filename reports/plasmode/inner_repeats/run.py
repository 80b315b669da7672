"""README.md's check (rule written before the run): the default against the same stack whose
inner choices average each case's loss over three splits of the inner folds, on new
replicates of the suite's scenarios.

Run from the repository root: ``python reports/plasmode/inner_repeats/run.py [jobs]``;
writes ``results.jsonl`` (one line per replicate and method, resumable) and ``report.md``.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py: rule2, read_rows)

REPLICATES, DATA_SEED = 6, 4900
METHODS = {"selbayes": "selbayes", "inner_repeats": "selbayes_inner_repeats"}
DEFAULT, NAME = "selbayes", "inner_repeats"


def fit_timed(benchmark_method: str, data: dict, rep: int):
    """``make_method(benchmark_method)`` (estimator seed ``rep``) fitted to a replicate's
    training data, and the seconds it took."""
    from selbayes.benchmark._methods import make_method

    t0 = time.perf_counter()
    est = make_method(benchmark_method, 2, random_state=rep).fit(data["X_train"],
                                                                 data["y_train"])
    return est, time.perf_counter() - t0


def score_row(est, seconds, data, name, rep, method) -> dict:
    """One result line: the fitted stack ``est`` scored against the replicate's true
    probabilities, with its Gaussian model's choices and its weights."""
    from selbayes.experiments.plasmode import calibration_scores

    first = est.estimator_
    return {**calibration_scores(est.predict_proba(data["X_test"]), data["p_test"]),
            "method": method, "scenario": name, "replicate": rep, "k": int(first.k_),
            "temperature": float(first.temperature_),
            "label_noise_c": first.k_choice_.extra.get("label_noise_c"),
            "weights": np.asarray(est.weights_).tolist(), "fit_seconds": seconds}


def one(name: str, rep: int, method: str, data_seed: int = DATA_SEED) -> dict:
    """Fit ``method`` (a key of METHODS) to replicate ``rep`` of scenario ``name`` (data seed
    ``data_seed + 1000 rep``, estimator seed ``rep``) and score it against the truth."""
    from selbayes.experiments.plasmode import make_replicate, scenario

    warnings.simplefilter("ignore")
    data = make_replicate(scenario(name), data_seed + 1000 * rep)
    return score_row(*fit_timed(METHODS[method], data, rep), data, name, rep, method)


def report(rows) -> str:
    from selbayes.experiments.plasmode import SCENARIOS

    lines = ["# Repeated inner cross-validation against the default (new replicates)", "",
             "Made by `run.py`; README.md's rule, written before the run. Paired differences "
             "candidate - default over replicates (mean ± SE, * beyond 2 SE).", "",
             "| scenario | KL default | KL difference | \\|e - a\\| default | "
             "\\|e - a\\| difference | slope default → candidate | k default | "
             "k candidate | fit seconds default / candidate |",
             "|---|---:|---:|---:|---:|---|---|---|---|"]
    kl, gap, better, worse, worse_gap = paired.rule2(rows, NAME, DEFAULT, SCENARIOS)
    for s in SCENARIOS:
        (d, se), (g, gse) = kl[s], gap[s]
        get = {m: [rows[(m, s, r)] for r in range(REPLICATES)] for m in METHODS}

        def star(x, e):
            return "*" if abs(x) > 2 * e else ""

        lines.append(
            f"| {s} | {np.mean([r['kl'] for r in get[DEFAULT]]):.3f} | "
            f"{d:+.4f} ± {se:.4f}{star(d, se)} | "
            f"{np.mean([r['abs_gap'] for r in get[DEFAULT]]):.3f} | "
            f"{g:+.4f} ± {gse:.4f}{star(g, gse)} | "
            f"{np.median([r['slope'] for r in get[DEFAULT]]):.2f} → "
            f"{np.median([r['slope'] for r in get[NAME]]):.2f} | "
            f"{', '.join(str(r['k']) for r in get[DEFAULT])} | "
            f"{', '.join(str(r['k']) for r in get[NAME])} | "
            f"{sum(r['fit_seconds'] for r in get[DEFAULT]):.0f} / "
            f"{sum(r['fit_seconds'] for r in get[NAME]):.0f} |")
    ok1, ok2 = bool(better) and not worse, not worse_gap
    lines += ["", "Slopes: medians over the replicates; k: per replicate, in order.", "",
              "## Verdict (README.md's rule)", "",
              f"- Rule 1: KL better beyond 2 SE in: {', '.join(better) or 'none'}; worse "
              f"beyond 2 SE in: {', '.join(worse) or 'none'} ({'holds' if ok1 else 'fails'}).",
              f"- Rule 2: |expected - actual| worse beyond 2 SE in: "
              f"{', '.join(worse_gap) or 'none'} ({'holds' if ok2 else 'fails'}).", "",
              "**Promising**: next, the development sets (README.md)." if ok1 and ok2
              else "**Not promising**: nothing changes."]
    return "\n".join(lines) + "\n"


def fit_all(path: Path, scenarios, replicates: int, data_seed: int, jobs: int) -> dict:
    """Both methods on every replicate of ``scenarios`` not yet in ``path`` (one JSON line
    each, appended as they finish); returns every row of ``path``."""
    from joblib import Parallel, delayed

    rows = paired.read_rows(path) if path.exists() else {}
    todo = [(s, r, m) for r in range(replicates) for s in scenarios for m in METHODS
            if (m, s, r) not in rows]
    for row in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(one)(s, r, m, data_seed) for s, r, m in todo):
        with path.open("a") as f:
            rows[(row["method"], row["scenario"], row["replicate"])] = row
            f.write(json.dumps(row) + "\n")
        print(row["method"], row["scenario"], row["replicate"], row["k"],
              round(row["fit_seconds"]), flush=True)
    return rows


def main(jobs: int = 2) -> None:
    from selbayes.experiments.plasmode import SCENARIOS

    rows = fit_all(HERE / "results.jsonl", SCENARIOS, REPLICATES, DATA_SEED, jobs)
    (HERE / "report.md").write_text(report(rows))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
