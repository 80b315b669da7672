"""The held-out label check (``selbayes.evaluation._label_check``) on clean and swapped labels
of the plasmode suite and on the eleven development sets; rules in README.md.

Usage (from the repository root): ``python reports/label_check/run.py [jobs]``; appends one
line per fit to ``results.jsonl`` beside this script and skips fits already there.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "results.jsonl"
SEED, REPLICATES = 0, 10
SCENARIO_NAMES = ("sim_sparse_strong", "sim_dense_weak", "plasmode_sparse", "plasmode_dense",
                  "plasmode_module", "holdout_sparse", "holdout_dense", "holdout_module")
DEV_SETS = ("borovecki", "chowdary", "golub", "gravier", "nakayama", "pomeroy", "singh",
            "sorlie", "subramanian", "srbct", "colon")


def swap_two(y, rng):
    """Exchange the labels of one case of each of the first two classes: (y', swapped)."""
    a = rng.choice(np.flatnonzero(y == 0))
    b = rng.choice(np.flatnonzero(y == 1))
    out = y.copy()
    out[a], out[b] = y[b], y[a]
    return out, sorted([int(a), int(b)])


def fit_and_check(X, y, seed):
    """Plug-in fit of the default Gaussian classifier; (loo_checks_, warning texts, k)."""
    from selbayes import HierarchicalGaussianClassifier

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = HierarchicalGaussianClassifier(method="plugin", progressbar=False,
                                             random_state=seed).fit(X, y)
    texts = [f"{w.category.__name__}: {w.message}" for w in caught
             if w.category.__name__ in ("SuspectLabelWarning", "InfluentialCaseWarning")]
    return clf.loo_checks_, texts, int(clf.k_)


def suite_job(scenario, rep, swapped):
    from selbayes.experiments.plasmode import HOLDOUT_SCENARIOS, SCENARIOS, make_replicate

    t0 = time.perf_counter()
    data = make_replicate({**SCENARIOS, **HOLDOUT_SCENARIOS}[scenario], SEED + 1000 * rep)
    X, y = data["X_train"], np.asarray(data["y_train"])
    moved = []
    if swapped:
        rng = np.random.default_rng([SEED, rep, SCENARIO_NAMES.index(scenario)])
        y, moved = swap_two(y, rng)
    table, texts, k = fit_and_check(X, y, SEED + rep)
    p = table["held_out_proba"].to_numpy()
    flagged = np.flatnonzero(table["suspect_label"].to_numpy()).tolist()
    return {"part": "suite", "scenario": scenario, "replicate": rep, "swapped": moved,
            "n": int(len(y)), "k": k, "flagged": flagged,
            "warned": any(t.startswith("SuspectLabelWarning") for t in texts),
            "p_swapped": [float(p[i]) for i in moved],
            "min_p_clean": float(np.delete(p, moved).min()),
            "seconds": time.perf_counter() - t0}


def dev_job(name):
    from selbayes.datasets import load_dataset

    t0 = time.perf_counter()
    ds = load_dataset(name)
    table, texts, k = fit_and_check(ds.X, ds.y, SEED)
    bad = table[table["suspect_label"]].sort_values("held_out_proba")
    return {"part": "dev", "scenario": name, "replicate": 0, "n": int(len(ds.y)), "k": k,
            "flagged": [str(s) for s in bad.get("sample", bad["case"])],
            "p_flagged": bad["held_out_proba"].tolist(),
            "labels_flagged": [str(ds.y.iloc[int(c)]) for c in bad["case"]],
            "warned": any(t.startswith("SuspectLabelWarning") for t in texts),
            "min_p": float(table["held_out_proba"].min()),
            "seconds": time.perf_counter() - t0}


def key(row):
    return (row["part"], row["scenario"], row["replicate"], bool(row.get("swapped")))


def main(jobs: int = 1) -> None:
    from joblib import Parallel, delayed

    done = set()
    if OUT.exists():
        done = {key(json.loads(line)) for line in OUT.read_text().splitlines() if line}
    todo = [("suite", s, r, sw) for sw in (False, True) for s in SCENARIO_NAMES
            for r in range(REPLICATES) if ("suite", s, r, sw) not in done]
    todo += [("dev", d, 0, False) for d in DEV_SETS if ("dev", d, 0, False) not in done]
    print(f"{len(todo)} fits to run", flush=True)

    def run(task):
        part, s, r, sw = task
        return suite_job(s, r, sw) if part == "suite" else dev_job(s)

    with OUT.open("a") as fh:
        for row in Parallel(n_jobs=jobs, return_as="generator_unordered")(
                delayed(run)(t) for t in todo):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(row["part"], row["scenario"], row["replicate"], row.get("swapped"),
                  "flagged", row["flagged"], f"{row['seconds']:.0f}s", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
