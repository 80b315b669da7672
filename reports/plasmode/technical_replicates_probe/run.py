"""README.md's probe: the default fitted to pairs of technical replicates with and without
the pairs as groups, scored against the exact truth of independent test cases.

Run from the repository root: ``python reports/plasmode/technical_replicates_probe/run.py
[jobs]``; writes ``results.jsonl`` (one line per fit; resumes) and ``report.md``.
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
import probe  # noqa: E402  (reports/plasmode/probe.py: fit_missing, stack_summary)

#: Fixed before the run (README.md).
SCENARIOS = ("sim_sparse_strong", "sim_dense_weak")
TECHNICAL_SHARE = 0.1
N_TEST = 400
ARMS = ("ungrouped", "grouped")
REPLICATES, DATA_SEED = 12, 39900


def draw(name: str, random_state, copies: int = 2, share: float = TECHNICAL_SHARE) -> dict:
    """One replicate of scenario ``name`` with paired training samples (README.md): the
    training cases are n_train / 2 tumours measured twice (rows 2i and 2i + 1, ``groups``),
    the test cases single independent samples with their exact class probabilities.
    ``copies`` measures each of n_train // copies tumours that many times instead
    (``../../replicate_check/look.py``; 2, this probe's, draws the same numbers as before);
    ``share`` is the technical share s (``../groups_auto_default/``)."""
    from selbayes.experiments.plasmode import scenario

    sc = scenario(name)
    rng = np.random.default_rng(random_state)
    p, tumours = sc.p, sc.n_train // copies
    delta = np.zeros(p)
    idx = rng.choice(p, sc.n_effects, replace=False)
    delta[idx] = sc.effect_sd * rng.standard_normal(sc.n_effects)
    y_t = np.zeros(tumours, dtype=int)
    y_t[: tumours // 2] = 1
    own = np.sqrt(1 - share) * rng.standard_normal((tumours, p))
    tumour = own + np.outer(y_t - 0.5, delta)
    X_train = (np.repeat(tumour, copies, axis=0)
               + np.sqrt(share) * rng.standard_normal((copies * tumours, p)))
    y_test = rng.integers(0, 2, N_TEST)
    X_test = rng.standard_normal((N_TEST, p)) + np.outer(y_test - 0.5, delta)
    p1 = 1 / (1 + np.exp(-(X_test @ delta)))
    return {"X_train": X_train, "y_train": np.repeat(y_t, copies),
            "groups": np.repeat(np.arange(tumours), copies), "X_test": X_test, "y_test": y_test,
            "p_test": np.column_stack([1 - p1, p1])}


def one(name: str, arm: str, rep: int) -> dict:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    d = draw(name, DATA_SEED + 1000 * rep)
    est = make_method("selbayes", 2, random_state=rep)
    est.fit(d["X_train"], d["y_train"], groups=d["groups"] if arm == "grouped" else None)
    proba = est.predict_proba(d["X_test"])
    out = calibration_scores(proba, d["p_test"])
    out.update(method=arm, scenario=name, replicate=rep,
               seconds=round(time.perf_counter() - t0, 1))
    out.update(probe.stack_summary(est))
    return out


def report(rows) -> str:
    lines = ["# Technical replicates: the default with and without the pairs as groups "
             "(made by run.py)", "",
             f"README.md's probe; {REPLICATES} replicates per scenario, the same data and seed "
             "for both arms. Means over replicates (the slope a geometric mean); paired "
             "differences grouped - ungrouped (* beyond 2 SE).", "",
             "| scenario | arm | KL | \\|e - a\\| | slope | k (median) | L1 gate open | "
             "weights G / probit / L1 (mean) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    verdict = {}
    for s in SCENARIOS:
        for arm in ARMS:
            got = [rows[(arm, s, r)] for r in range(REPLICATES)]
            w = np.mean([r["weights"] + [0.0] * (3 - len(r["weights"])) for r in got], axis=0)
            lines.append(
                f"| {s} | {arm} | {np.mean([r['kl'] for r in got]):.4f} | "
                f"{np.mean([r['abs_gap'] for r in got]):.4f} | "
                f"{np.exp(np.mean(np.log([r['slope'] for r in got]))):.2f} | "
                f"{np.median([r['k'] for r in got]):.0f} | "
                f"{sum(r['l1_gate_open'] for r in got)} of {REPLICATES} | "
                + " / ".join(f"{x:.2f}" for x in w) + " |")
        verdict[s] = {m: paired.paired(rows, "grouped", "ungrouped", s, m)[:2]
                      for m in ("kl", "abs_gap")}
    lines += ["", "| scenario | KL grouped - ungrouped | \\|e - a\\| grouped - ungrouped | "
              "verdict (KL, the rule) |", "|---|---:|---:|---|"]
    for s, v in verdict.items():
        d, se = v["kl"]
        word = ("helps" if d + 2 * se < 0 else "hurts" if d - 2 * se > 0
                else "no measurable difference")
        lines.append(f"| {s} | {paired.pm_text(*v['kl'])} | {paired.pm_text(*v['abs_gap'])} "
                     f"| {word} |")
    return "\n".join(lines) + "\n"


def main(jobs: int = 2) -> None:
    path = HERE / "results.jsonl"
    rows = paired.read_rows(path) if path.exists() else {}
    todo = [(s, arm, r) for s in SCENARIOS for r in range(REPLICATES) for arm in ARMS
            if (arm, s, r) not in rows]
    rows = probe.fit_missing(path, todo, one, jobs)
    text = report(rows)
    (HERE / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
