"""What the stored components say, per development set (reads this folder's ``folds/``; seconds).

For each set: the default's AMLP as stored; the two components' own AMLP and the weight of
the probit model (mean over folds); the pool of the stored components with the stored weight,
which must give the stored probabilities (the check that the arrays are what the stack used);
the AMLP of the linear pool at the one weight per set that is best on the set's own test
cases (an oracle: a bound on what any rule for the two-way weight could reach); and the largest
difference of the stored probabilities from the committed run of the same configuration
(``../benchmark_microarray_refit_inner_2026-12-02/``, method ``selbayes_refit_inner``, the
same folds and seeds).

Run from the repository root:
``python reports/benchmark_microarray_components_2026-12-03/components.py``; writes
``components.md`` beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "benchmark_microarray_refit_inner_2026-12-02" / "folds"


def per_set(name: str) -> dict:
    from selbayes.benchmark._runner import resolve_dataset
    from selbayes.estimators._linear_stack import _linear_pool

    # class indices as the benchmark makes them (sorted labels)
    _, y_idx = np.unique(resolve_dataset(name).y.astype(str).to_numpy(), return_inverse=True)
    amlp = {"stack": [], "gaussian": [], "probit": []}
    w_probit, pool_diff, before_diff, n = [], 0.0, 0.0, []
    true_parts = []                                    # (2, n_test) log p(true class), per fold
    for npz in sorted((HERE / "folds" / name / "selbayes").glob("*.npz")):
        a = np.load(npz)
        meta = json.loads(npz.with_suffix(".json").read_text())["meta"]
        test = np.asarray(meta["test"])
        losses = a["losses"]
        proba = a["proba"]
        w = float(meta["linear_weight"])
        T = a["stack_test_log_proba"]
        pooled = np.exp(_linear_pool(T, [1 - w, w]))
        pool_diff = max(pool_diff, float(np.abs(pooled - proba).max()))
        true = y_idx[test]
        assert np.allclose(losses, -np.log(proba[np.arange(len(test)), true]))
        amlp["stack"].append(float(losses.sum()))
        for m, key in enumerate(("gaussian", "probit")):
            amlp[key].append(float(-T[m][np.arange(len(test)), true].sum()))
        true_parts.append(T[:, np.arange(len(test)), true])
        w_probit.append(w)
        n.append(len(test))
        old = BEFORE / name / "selbayes_refit_inner" / npz.name
        if old.exists():
            before_diff = max(before_diff, float(np.abs(np.load(old)["proba"] - proba).max()))
    total = sum(n)
    L = np.concatenate(true_parts, axis=1)                                  # (2, n)
    grid = np.linspace(0, 1, 1001)
    pooled = [-np.mean(_linear_pool(L[:, :, None], [1 - w, w])) for w in grid]
    best = int(np.argmin(pooled))
    return {k: sum(v) / total for k, v in amlp.items()} | {
        "oracle": float(pooled[best]), "oracle_w": float(grid[best]),
        "w_probit": float(np.mean(w_probit)), "pool_diff": pool_diff, "before_diff": before_diff,
        "n": total}


def main() -> None:
    sets = sorted(p.name for p in (HERE / "folds").iterdir() if p.is_dir())
    lines = ["# The default's two components on the development sets (made by components.py)", "",
             "AMLP in nats over each set's 5 folds (case-weighted); the probit weight is the mean "
             "over folds. 'pool check': the largest |pool of the stored components with the "
             "stored weight - stored probability|; 'vs 2026-12-02': the largest |stored "
             "probability - the committed run's| (same configuration, folds and seeds).", "",
             "| set | stack | Gaussian alone | probit alone | probit weight | oracle pool "
             "(its weight) | pool check | vs 2026-12-02 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    rows = {s: per_set(s) for s in sets}
    for s, r in rows.items():
        lines.append(f"| {s} | {r['stack']:.3f} | {r['gaussian']:.3f} | {r['probit']:.3f} | "
                     f"{r['w_probit']:.2f} | {r['oracle']:.3f} ({r['oracle_w']:.2f}) | "
                     f"{r['pool_diff']:.1e} | {r['before_diff']:.1e} |")
    keys = ("stack", "gaussian", "probit", "oracle")
    mean = {k: np.mean([r[k] for r in rows.values()]) for k in keys}
    lines += [f"| mean over sets | {mean['stack']:.3f} | {mean['gaussian']:.3f} | "
              f"{mean['probit']:.3f} | | {mean['oracle']:.3f} | | |", ""]
    (HERE / "components.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
