"""Rule T4 of README.md: the three-way stack on the eleven development sets, scored from the
default's stored components (exactly what a benchmark method for it would give on the same
folds and seeds: the stored components reproduce the default's run to 1e-12, and the new
component is computed here on the same inner folds). Rule: AMLP not worse beyond 2 SE than the
default's on any set or in the mean over the sets.

For each fold of ``../../benchmark_microarray_components_2026-12-03/`` (the default's run with
its components stored): the fold's training cases preprocessed as the benchmark's pipeline does,
the Gaussian model's inner folds re-made from the fold's seed (checked: the stored all-genes
probit's inner log probabilities come back from them), the probit model of the top-k genes by
F on each inner training fold and on the whole training fold (k the Gaussian model's chosen
k), the three weights by ``stacking_weights``, and the pooled test probabilities.

Run from the repository root: ``python reports/plasmode/kept_genes_probit/dev_sets.py``
(a few minutes on 2 cores); writes ``dev_sets.md`` and ``dev_sets.csv`` here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils.parallel import Parallel, delayed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)

RUN = HERE.parents[1] / "benchmark_microarray_components_2026-12-03"
PEERS = HERE.parents[1] / "calibration_gap" / "peers" / "summary.csv"


def one_fold(name: str, fold: int) -> dict:
    from selbayes.benchmark._runner import _make_splits, resolve_dataset
    from selbayes.estimators._linear_stack import (
        _linear_pool,
        _weights_and_pool,
        fit_all_features_probit,
    )
    from selbayes.preprocessing import IntensityLog2

    run = offline.load_script(HERE / "run.py", "kept_genes_run")
    ds = resolve_dataset(name)
    X = ds.X.to_numpy(dtype=np.float64)
    _, y = np.unique(ds.y.astype(str).to_numpy(), return_inverse=True)
    (_, splits), = _make_splits(y, 5, 1, 0)
    train, test = splits[fold]
    stem = RUN / "folds" / name / "selbayes" / f"r00_f{fold:02d}"
    record = json.loads(stem.with_suffix(".json").read_text())
    stored = np.load(stem.with_suffix(".npz"))
    assert record["meta"]["test"] == test.tolist()
    pre = record["task"]["preprocessing"]
    if pre.get("transform", "none") != "none":
        t = IntensityLog2(floor=pre.get("floor"), ceiling=pre.get("ceiling")).fit(X[train])
        Xtr, Xte = t.transform(X[train]), t.transform(X[test])
    else:
        Xtr, Xte = X[train], X[test]
    ytr, seed, k = y[train], int(record["task"]["seed"]), int(record["meta"]["k"])
    A, T = stored["stack_inner_log_proba"], stored["stack_test_log_proba"]
    sel_inner, check = np.empty_like(A[0]), 0.0
    for tr, te in run.inner_folds(ytr, seed):
        lin = fit_all_features_probit(Xtr[tr], ytr[tr], seed).predict_log_proba(Xtr[te])
        check = max(check, float(np.max(np.abs(lin - A[1][te]))))
        genes = run.top_k_by_f(Xtr[tr], ytr[tr], k)
        sel_inner[te] = fit_all_features_probit(Xtr[tr][:, genes], ytr[tr],
                                                seed).predict_log_proba(Xtr[te][:, genes])
    genes = run.top_k_by_f(Xtr, ytr, k)
    sel_test = fit_all_features_probit(Xtr[:, genes], ytr, seed).predict_log_proba(Xte[:, genes])
    A3, T3 = np.concatenate([A, sel_inner[None]]), np.concatenate([T, sel_test[None]])
    w3, _ = _weights_and_pool(A3, ytr, "linear")         # the stack's own weights
    p3 = np.exp(_linear_pool(T3, w3))
    yt = y[test]
    loss3 = -np.log(p3[np.arange(len(test)), yt])
    loss2 = stored["losses"]
    return {"dataset": name, "fold": fold, "n_test": len(test), "k": k,
            "default": float(loss2.mean()), "three_way": float(loss3.mean()),
            "kept_alone": float(-sel_test[np.arange(len(test)), yt].mean()),
            "w_kept": float(w3[2]), "fold_check": check,
            "err_default": float(np.mean(stored["proba"].argmax(1) != yt)),
            "err_three_way": float(np.mean(p3.argmax(1) != yt)),
            "exp_err_three_way": float(np.mean(1 - p3.max(1)))}


def main() -> int:
    sets = sorted(p.name for p in (RUN / "folds").iterdir() if p.is_dir())
    rows = Parallel(n_jobs=2)(delayed(one_fold)(s, f) for s in sets for f in range(5))
    df = pd.DataFrame(rows)
    df.to_csv(HERE / "dev_sets.csv", index=False)
    peers = pd.read_csv(PEERS).pivot(index="dataset", columns="method", values="amlp")
    lines = ["# Rule T4: the three-way stack on the development sets (made by dev_sets.py)", "",
             "AMLP per set (case-weighted over the 5 folds); the difference three_way - default "
             "paired over folds, ± SE with the folds as the unit (* beyond 2 SE); the mean "
             "over the sets with its SE from the sets' SEs (sets independent).", "",
             f"Inner folds re-made from each fold's seed: the stored all-genes probit's inner "
             f"log probabilities come back to {df.fold_check.max():.1e}.", "",
             "| set | default | three_way | difference | kept genes alone | kept-genes weight "
             "(mean) | L1 | L2 |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    ses, worse = [], []
    for s, g in df.groupby("dataset"):
        w = g.n_test / g.n_test.sum()
        d = (g.three_way - g.default).to_numpy()
        se = d.std(ddof=1) / np.sqrt(len(d))
        diff = float((w * (g.three_way - g.default)).sum())
        star = "*" if abs(d.mean()) > 2 * se else ""
        ses.append(se)
        if star and d.mean() > 0:
            worse.append(s)
        lines.append(f"| {s} | {(w * g.default).sum():.3f} | {(w * g.three_way).sum():.3f} | "
                     f"{diff:+.3f} ± {se:.3f}{star} | {(w * g.kept_alone).sum():.3f} | "
                     f"{g.w_kept.mean():.2f} | {peers.loc[s, 'logreg_l1_cv']:.3f} | "
                     f"{peers.loc[s, 'logreg_l2_cv']:.3f} |")
    means = df.assign(w=df.n_test).groupby("dataset").apply(
        lambda g: pd.Series({c: np.average(g[c], weights=g.w)
                             for c in ("default", "three_way", "kept_alone")}))
    mean_diff = means.three_way.mean() - means.default.mean()
    mean_se = float(np.sqrt(np.sum(np.square(ses)))) / len(ses)
    lines += [f"| mean over sets | {means.default.mean():.3f} | {means.three_way.mean():.3f} | "
              f"{mean_diff:+.3f} ± {mean_se:.3f} | "
              f"{means.kept_alone.mean():.3f} | | {peers.logreg_l1_cv.mean():.3f} | "
              f"{peers.logreg_l2_cv.mean():.3f} |", "",
              f"* Worse beyond 2 SE on: {', '.join(worse) or 'none'}; the mean "
              + ("worse beyond 2 SE." if mean_diff > 2 * mean_se else "not worse beyond 2 SE."),
              "* T4: " + ("pass" if not worse and mean_diff <= 2 * mean_se else "FAIL"), ""]
    (HERE / "dev_sets.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
