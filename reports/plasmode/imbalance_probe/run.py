"""The unequal-classes probe of README.md (rule written before the run).

Run from the repository root: ``python reports/plasmode/imbalance_probe/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit, resumable) and ``report.md``.
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
import paired  # noqa: E402  (reports/plasmode/paired.py: the suite's paired differences)

METHODS = ("selbayes", "logreg_l2_cv", "logreg_l1_cv")
SCENARIOS = ("sim_sparse_strong_q", "sim_dense_weak_q", "plasmode_sparse_q")
REPLICATES, DATA_SEED = 6, 500


def make_data(name: str, rep: int) -> dict:
    """Replicate ``rep`` of scenario ``name`` (README.md;
    ``selbayes.experiments.plasmode.IMBALANCED_SCENARIOS``)."""
    from selbayes.experiments import plasmode

    return plasmode.make_replicate(plasmode.IMBALANCED_SCENARIOS[name], DATA_SEED + 1000 * rep)


def fit_one(method: str, name: str, rep: int) -> dict:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    data = make_data(name, rep)
    est = make_method(method, 2, random_state=rep)
    est.fit(data["X_train"], data["y_train"])
    proba = est.predict_proba(data["X_test"])
    out = calibration_scores(proba, data["p_test"])
    out.update(method=method, scenario=name, replicate=rep,
               in_the_large=float(np.mean(proba[:, 1] - data["p_test"][:, 1])),
               train_share=float(data["y_train"].mean()),
               seconds=round(time.perf_counter() - t0, 1))
    return out


def _mean_se(x):
    x = np.asarray(x, float)
    return x.mean(), x.std(ddof=1) / np.sqrt(x.size)


def report(rows: dict) -> str:
    lines = ["# Unequal classes (prevalence 0.25): the default against L2 and L1", "",
             "Made by `run.py`; the rule is README.md's, written before the run. Means over "
             f"{REPLICATES} replicates ± SE over replicates; for the default also the paired "
             "difference to `logreg_l2_cv` (* beyond 2 SE).", ""]
    metrics = [("kl", "KL (nats)"), ("abs_gap", "|expected - actual|"), ("slope", "slope"),
               ("in_the_large", "mean (predicted - true) P(1)")]
    findings = []
    for name in SCENARIOS:
        lines += [f"## {name}", "", "| method | " + " | ".join(m[1] for m in metrics) + " |",
                  "|---|" + "---|" * len(metrics)]
        for method in METHODS:
            cells = []
            for key, _ in metrics:
                v = [rows[(method, name, r)][key] for r in range(REPLICATES)]
                m, se = _mean_se(v)
                cell = f"{m:+.3f} ± {se:.3f}" if key == "in_the_large" else f"{m:.3f} ± {se:.3f}"
                if method == "selbayes" and key != "in_the_large":
                    dm, dse, _ = paired.paired(rows, "selbayes", "logreg_l2_cv", name, key)
                    star = "*" if abs(dm) > 2 * dse else ""
                    cell += f" ({dm:+.3f} ± {dse:.3f}{star})"
                    if key in ("kl", "abs_gap") and dm > 2 * dse:
                        findings.append(f"{name}: {key} worse than L2 by {dm:.3f} ± {dse:.3f}")
                cells.append(cell)
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
        big = {}
        for method in ("selbayes", "logreg_l2_cv"):
            m, se = _mean_se([rows[(method, name, r)]["in_the_large"]
                              for r in range(REPLICATES)])
            big[method] = abs(m) > 2 * se
        if big["selbayes"] and not big["logreg_l2_cv"]:
            findings.append(f"{name}: calibration in the large beyond 2 SE from 0 (L2's not)")
        lines.append("")
    lines += ["## Verdict (README.md's rule)", ""]
    lines += ([f"- finding: {f}" for f in findings] if findings else
              ["No finding: in these three scenarios the default is not worse than L2 beyond "
               "2 SE in KL or |expected - actual|, and its calibration in the large is not off "
               "where L2's is not."])
    seconds = {m: np.mean([rows[k]["seconds"] for k in rows if k[0] == m]) for m in METHODS}
    lines += ["", "Mean seconds per fit: " + ", ".join(f"{m} {s:.0f}"
                                                       for m, s in seconds.items()), ""]
    return "\n".join(lines)


def main(jobs: int = 2) -> None:
    from joblib import Parallel, delayed

    path = HERE / "results.jsonl"
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            rows[(r["method"], r["scenario"], r["replicate"])] = r
    todo = [(m, s, r) for s in SCENARIOS for r in range(REPLICATES) for m in METHODS
            if (m, s, r) not in rows]
    for out in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(fit_one)(*t) for t in todo):
        rows[(out["method"], out["scenario"], out["replicate"])] = out
        with path.open("a") as f:
            f.write(json.dumps(out) + "\n")
        print(out["method"], out["scenario"], out["replicate"], out["seconds"], flush=True)
    (HERE / "report.md").write_text(report(rows))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
