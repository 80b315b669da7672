"""Proxy experiment: rules for choosing the predictive temperature T, corrected vs uncorrected.

For every benchmark set and outer fold (the benchmark's own folds and seeds: 5 folds, seed 0),
the inner cross-validation curve of ``choose_k`` (k x T) and the outer test fold's losses of
every (k, T) candidate are computed with the fast plug-in predictive (no MCMC; it reproduces
the benchmark's MCMC AMLP of ``selbayes`` to about 0.02 nats). Any rule for picking a candidate
from the inner curve can then be scored on the outer folds without refitting.

Run (about 10 minutes on one core):
    PYTHONPATH=src SELBAYES_DATA=... python reports/benchmark_microarray/experiments/\
temperature_rules_proxy.py OUTDIR
"""

import sys
from pathlib import Path

import numpy as np

from selbayes import HierarchicalGaussianClassifier
from selbayes.benchmark.runner import _make_splits, resolve_dataset
from selbayes.estimators.model_selection import (
    DEFAULT_K_GRID,
    DEFAULT_T_GRID,
    _fold_losses,
    choose_k,
    default_label_noise,
)
from selbayes.filters.selection import f_statistic
from selbayes.models.priors import GaussianPriors
from selbayes.preprocessing import IntensityLog2

SETS = ["borovecki", "chowdary", "colon", "golub", "gravier", "nakayama", "pomeroy", "singh",
        "sorlie", "srbct", "subramanian"]
# The default grid, a finer one between 1 and 50, and a wider one up to 1000.
T_GRID = sorted(set(DEFAULT_T_GRID) | set(np.round(np.geomspace(1, 50, 29), 4))
                | {80.0, 130.0, 200.0, 300.0, 500.0, 1000.0})


def curves(name, out: Path):
    path = out / f"{name}.npz"
    if path.exists():
        return np.load(path)
    ds = resolve_dataset(name)
    X = ds.X.to_numpy(dtype=np.float64)
    classes, y = np.unique(ds.y.astype(str).to_numpy(), return_inverse=True)
    pre = ds.preprocessing
    if pre.get("transform", "none") != "none":
        X = IntensityLog2(floor=pre.get("floor"), ceiling=pre.get("ceiling")).fit_transform(X)
    G = len(classes)
    res = {}
    for r, splits in _make_splits(y, 5, 1, 0):
        for f, (tr, te) in enumerate(splits):
            seed = int(np.random.SeedSequence([0, r, f]).generate_state(1)[0] % (2**31 - 1))
            npos = int(np.sum(f_statistic(X[tr], y[tr], G) > 0))
            kg = [k for k in DEFAULT_K_GRID if k <= npos] or [npos]
            for corr in (True, False):
                est = HierarchicalGaussianClassifier(correct_selection=corr, random_state=seed)
                ch = choose_k(est, X[tr], y[tr], grid=kg, temperature_grid=T_GRID, cv=5,
                              random_state=seed)
                outer = _fold_losses(X, y, G, tr, te, [(k, None) for k in ch.extra["k_grid"]],
                                     True, GaussianPriors(), corr, 200, seed, T_GRID,
                                     default_label_noise(tr.size))
                key = f"f{f}_c{int(corr)}"
                res[key + "_inner"] = ch.extra["case_losses"]
                res[key + "_outer"] = outer.reshape(len(ch.grid), -1)
                res[key + "_grid"] = np.array([(g[0], g[2]) for g in ch.grid])
    np.savez(path, **res)
    return np.load(path)


def pick(grid, inner, rule, t_set):
    allowed = np.flatnonzero(np.isin(np.round(grid[:, 1], 4), np.round(t_set, 4)))
    L = inner[allowed]
    score = L.mean(1)
    b = int(np.argmin(score))
    if rule == "one_se":
        se = (L - L[b]).std(1, ddof=1) / np.sqrt(L.shape[1])
        ok = np.flatnonzero(score <= score[b] + se)
        t = grid[allowed[ok], 1]
        ok = ok[t == t.min()]
        b = int(ok[np.argmin(score[ok])])
    return allowed[b]


RULES = {"default (best, T <= 50)": ("best", DEFAULT_T_GRID),
         "one_se toward T = 1": ("one_se", DEFAULT_T_GRID),
         "finer T grid (39 values <= 50)": ("best", [t for t in T_GRID if t <= 50]),
         "wider T grid (to 1000)": ("best", DEFAULT_T_GRID + (80.0, 130.0, 200.0, 300.0, 500.0,
                                                               1000.0))}

if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "temperature_rules_out")
    out.mkdir(parents=True, exist_ok=True)
    data = {s: curves(s, out) for s in SETS}
    print("| rule | data set | corrected | uncorrected (own choice) | uncorrected (same choice) "
          "| corrected - uncorrected |")
    print("|---|---|---|---|---|---|")
    summary = []
    for label, (rule, t_set) in RULES.items():
        rows = []
        for s, d in data.items():
            c, u, sc = [], [], []
            for f in range(5):
                g1, g0 = d[f"f{f}_c1_grid"], d[f"f{f}_c0_grid"]
                i1 = pick(g1, d[f"f{f}_c1_inner"], rule, t_set)
                i0 = pick(g0, d[f"f{f}_c0_inner"], rule, t_set)
                c.append(d[f"f{f}_c1_outer"][i1].mean())
                u.append(d[f"f{f}_c0_outer"][i0].mean())
                sc.append(d[f"f{f}_c0_outer"][i1].mean())      # same grids: same index
            diff = np.array(c) - np.array(u)
            rows.append((np.mean(c), np.mean(u), np.mean(sc)))
            print(f"| {label} | {s} | {np.mean(c):.3f} | {np.mean(u):.3f} | {np.mean(sc):.3f} "
                  f"| {diff.mean():+.3f} ± {diff.std(ddof=1) / np.sqrt(5):.3f} |")
        rows = np.array(rows)
        summary.append((label, rows[:, 0].mean(), rows[:, 1].mean(),
                        int((rows[:, 0] < rows[:, 1]).sum()),
                        int((rows[:, 0] < rows[:, 2]).sum())))
    print("\n| rule | mean corrected AMLP | mean uncorrected | corrected wins (own choice) | "
          "corrected wins (same choice) |")
    print("|---|---|---|---|---|")
    for label, c, u, w1, w2 in summary:
        print(f"| {label} | {c:.4f} | {u:.4f} | {w1}/11 | {w2}/11 |")
