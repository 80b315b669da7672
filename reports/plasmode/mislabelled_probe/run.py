"""README.md's probe: the default, L1 and L2 logistic regression on two sparse scenarios with
and without a few flipped training labels, scored against the truth (with flips:
p' = (1 - f) p + f (1 - p)).

Run from the repository root: ``python reports/plasmode/mislabelled_probe/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit; resumes) and ``report.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py)
import probe  # noqa: E402  (reports/plasmode/probe.py: fit_missing)

NAMES = ("shifted_sparse_strong", "plasmode_sparse")
METHODS = ("selbayes", "logreg_l1_cv", "logreg_l2_cv")
FLIPS = (0.0, 0.05)
REPLICATES, DATA_SEED = 6, 35900


def flipped(y, f, rep, min_cases=5) -> np.ndarray:
    """``y`` (0/1) with each label flipped with probability ``f`` (seeded by the replicate),
    redrawn until both classes keep ``min_cases`` cases."""
    rng = np.random.default_rng([DATA_SEED, rep])
    for _ in range(1000):
        out = np.where(rng.random(y.size) < f, 1 - y, y)
        if min(out.sum(), out.size - out.sum()) >= min_cases:
            return out
    raise ValueError("no draw keeps both classes")


def one(name: str, method: str, rep: int, f: float) -> dict:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores, make_replicate, scenario

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    d = make_replicate(scenario(name), DATA_SEED + 1000 * rep)
    y = flipped(np.asarray(d["y_train"]), f, rep) if f > 0 else np.asarray(d["y_train"])
    est = make_method(method, 2, random_state=rep)
    est.fit(d["X_train"], y)
    p1 = d["p_test"][:, 1]
    p1 = (1 - f) * p1 + f * (1 - p1)
    out = calibration_scores(est.predict_proba(d["X_test"]), np.column_stack([1 - p1, p1]))
    out.update(method=method, scenario=f"{name}@f{f}", replicate=rep, flip=f,
               flipped=int(np.sum(y != np.asarray(d["y_train"]))),
               seconds=round(time.perf_counter() - t0, 1))
    out.update(probe.stack_summary(est))
    return out


def report(rows) -> str:
    lines = ["# Mislabelled cases: the default against L1 and L2 (made by run.py)", "",
             "README.md's probe; six new replicates per scenario. Means; paired differences "
             "default - peer over replicates (* beyond 2 SE).", "",
             "| scenario | flips | KL default | KL L1 | KL L2 | default - L1 | default - L2 | "
             "\\|e - a\\| default / L1 / L2 | slope default / L1 / L2 | label-noise eps "
             "(mean) | L1 gate open | flipped (mean) |", "|---|---:|" + "---:|" * 10]
    found = []
    for name in NAMES:
        behind = {}
        for f in FLIPS:
            s = f"{name}@f{f}"
            get = {m: [rows[(m, s, r)] for r in range(REPLICATES)] for m in METHODS}

            def mean(m, key, get=get):
                return np.mean([r[key] for r in get[m]])

            diffs = []
            for peer in METHODS[1:]:
                d, se, _ = paired.paired(rows, METHODS[0], peer, s, "kl")
                diffs.append(f"{d:+.3f} ± {se:.3f}" + ("*" if abs(d) > 2 * se else ""))
                if peer == "logreg_l1_cv":
                    behind[f] = d > 2 * se
            lines.append(
                f"| {name} | {f} | " + " | ".join(f"{mean(m, 'kl'):.3f}" for m in METHODS)
                + f" | {diffs[0]} | {diffs[1]} | "
                + " / ".join(f"{mean(m, 'abs_gap'):.3f}" for m in METHODS) + " | "
                + " / ".join(f"{np.median([r['slope'] for r in get[m]]):.2f}"
                             for m in METHODS)
                + f" | {mean('selbayes', 'label_noise'):.3f} | "
                f"{sum(r['l1_gate_open'] for r in get['selbayes'])} of {REPLICATES} | "
                f"{mean('selbayes', 'flipped'):.1f} |")
        if behind[0.05] and not behind[0.0]:
            found.append(name)
    lines += ["", "Slopes: medians. " + (
        f"**Pattern reproduced** (README.md's definition) in: {', '.join(found)}."
        if found else "**Pattern not reproduced** (README.md's definition) in either "
        "scenario.")]
    return "\n".join(lines) + "\n"


def main(jobs: int = 2) -> None:
    path = HERE / "results.jsonl"
    rows = paired.read_rows(path) if path.exists() else {}
    todo = [(n, m, r, f) for n in NAMES for f in FLIPS for r in range(REPLICATES)
            for m in METHODS if (m, f"{n}@f{f}", r) not in rows]
    text = report(probe.fit_missing(path, todo, one, jobs))
    (HERE / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
