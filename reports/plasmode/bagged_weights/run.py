"""README.md's candidate, ``bagged`` (the two-model stacking weights averaged over a Bayesian
bootstrap of the inner cases), against ``default2`` (the stored weights), offline from the
stored components of the suite, the held-out X, the three-class scenarios and the development
sets; writes ``results.jsonl`` and ``report.md`` beside this script.

Usage (from the repository root): ``python reports/plasmode/bagged_weights/run.py``
(``--report``: only ``report.md`` again, from ``results.jsonl``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
PLASMODE = HERE.parent
sys.path.insert(0, str(PLASMODE))
import paired  # noqa: E402  (reports/plasmode/paired.py: paired differences over replicates)

REPORTS = PLASMODE.parent
B, ITERS, TOL = 400, 2000, 1e-9
SUITE = ("sim_dense_weak", "sim_sparse_strong", "plasmode_sparse", "plasmode_dense",
         "plasmode_module")
OTHER = ("holdout_sparse", "holdout_dense", "holdout_module", "multi3_sparse", "multi3_dense",
         "multi3_module")
FITS = {0: PLASMODE / "sharpened_pool" / "fits", 1: PLASMODE / "kept_genes_probit" / "seed1" /
        "fits", 7: PLASMODE / "default_seed7" / "fits"}
DEV = {"corrected": (REPORTS / "benchmark_microarray_components_2026-12-03", "selbayes"),
       "uncorrected": (REPORTS / "benchmark_microarray_uncorrected_2026-12-03",
                       "selbayes_uncorrected")}


def bagged_weights(L, rng, n_boot=B):
    """Mean over ``n_boot`` Bayesian-bootstrap replicates of the stacking weights: for each,
    case weights omega ~ n Dirichlet(1, ..., 1) and w maximising sum_i omega_i log sum_c w_c
    p_ci by EM (w_c <- sum_i omega_i r_ic / sum_i omega_i), from equal weights. ``L`` (C, n):
    each model's log probability of each inner case's own class."""
    C, n = L.shape
    P = np.exp(L - L.max(axis=0))              # a per-case factor leaves the EM steps alone
    omega = rng.dirichlet(np.ones(n), size=n_boot) * n               # (B, n)
    w = np.full((n_boot, C), 1.0 / C)
    for _ in range(ITERS):
        r = w[:, :, None] * P[None] / (w @ P)[:, None, :]           # (B, C, n)
        new = (r * omega[:, None, :]).sum(axis=2) / n
        done = np.abs(new - w).max() < TOL
        w = new
        if done:
            break
    return w.mean(axis=0)


def own(A, y):
    return A[:, np.arange(y.size), y]


def suite_rows():
    from selbayes.estimators._linear_stack import _linear_pool, _weights_and_pool
    from selbayes.experiments.plasmode import calibration_scores

    rows = []
    for seed, fits in FITS.items():
        names = SUITE + (OTHER if seed == 0 else ())
        for s_i, name in enumerate(names):
            for rep in range(6):
                d = np.load(fits / f"{name}_{rep}.npz")
                A, yi, T, p_test, w2 = d["inner"], d["y_inner"], d["test"], d["p_test"], \
                    d["weights"]
                refit = _weights_and_pool(A, yi, "linear")[0]
                wb = bagged_weights(own(A, yi), np.random.default_rng([seed, s_i, rep]))
                for method, w in (("default2", np.asarray(w2, float)), ("bagged", wb)):
                    sc = calibration_scores(np.exp(_linear_pool(T, w)), p_test)
                    if p_test.shape[1] != 2:
                        sc.pop("slope", None)
                    rows.append({"part": "suite", "scenario": name, "seed": seed,
                                 "replicate": rep, "method": method, **sc,
                                 "weights": [float(v) for v in w],
                                 "stored_equals_refit": float(np.abs(refit - w2).max())})
    return rows


def dev_rows():
    from selbayes.benchmark._runner import _make_splits, resolve_dataset
    from selbayes.estimators._linear_stack import _linear_pool, _weights_and_pool

    rows = []
    sets = sorted(p.name for p in (DEV["corrected"][0] / "folds").iterdir() if p.is_dir())
    for s_i, name in enumerate(sets):
        ds = resolve_dataset(name)
        _, y = np.unique(ds.y.astype(str).to_numpy(), return_inverse=True)
        (_, splits), = _make_splits(y, 5, 1, 0)
        for fold, (train, test) in enumerate(splits):
            for arm, (run, method) in DEV.items():
                stem = run / "folds" / name / method / f"r00_f{fold:02d}"
                assert json.loads(stem.with_suffix(".json").read_text())["meta"]["test"] == \
                    test.tolist()
                st = np.load(stem.with_suffix(".npz"))
                A, T = st["stack_inner_log_proba"], st["stack_test_log_proba"]
                ytr, yt = y[train], y[test]
                w2 = _weights_and_pool(A, ytr, "linear")[0]
                wb = bagged_weights(own(A, ytr), np.random.default_rng([99, s_i, fold]))
                for m, w in (("default2", w2), ("bagged", wb)):
                    lp = _linear_pool(T, w)
                    loss = -lp[np.arange(len(test)), yt]
                    p = np.exp(lp)
                    rows.append({"part": "dev", "arm": arm, "scenario": name, "fold": fold,
                                 "method": m, "n_test": len(test), "amlp": float(loss.mean()),
                                 "exp_err": float(np.mean(1 - p.max(1))),
                                 "err": float(np.mean(p.argmax(1) != yt)),
                                 "weights": [float(v) for v in w],
                                 "stored_loss_diff": float(np.abs(
                                     loss.mean() - st["losses"].mean())) if m == "default2"
                                 else None})
    return rows


def keyed(rows) -> dict:
    """(method, scenario, replicate) -> row, as ``../paired.py`` reads results: the suite's
    replicates numbered across the run seeds (seed 0: 0-5, 1: 6-11, 7: 12-17), the
    development sets' methods named by arm (``corrected_bagged``, ...) and their folds as
    replicates."""
    seeds = list(FITS)
    return {((r["method"], r["scenario"], 6 * seeds.index(r["seed"]) + r["replicate"])
             if r["part"] == "suite" else
             (f"{r['arm']}_{r['method']}", r["scenario"], r["fold"])): r for r in rows}


def diff(rows, a, b, scenario, metric):
    """``paired.paired`` (mean, se) of a - b."""
    return paired.paired(rows, a, b, scenario, metric)[:2]


def star(m, se):
    return f"{m:+.4f} ± {se:.4f}" + ("*" if abs(m) > 2 * se else "")


def report(rows) -> list[str]:
    df = pd.DataFrame(rows)
    suite = df[df.part == "suite"]
    out = ["# Bagged stacking weights against the stored ones", "",
           "Made by `run.py` (rules in README.md, written before the run). `bagged` - "
           "`default2`, paired; * beyond 2 SE.", "",
           "## W1, the suite (18 replicates: seeds 0, 1, 7)", "",
           "| scenario | KL | \\|e - a\\| | slope default2 -> bagged "
           "| mean probit weight default2 -> bagged |",
           "|---|---:|---:|---:|---:|"]
    rk = keyed(rows)
    w1_worse, w1_better, misses = False, False, {"default2": 0, "bagged": 0}
    for s in SUITE:
        g = suite[suite.scenario == s]
        kl, gap = diff(rk, "bagged", "default2", s, "kl"), diff(rk, "bagged", "default2", s,
                                                                  "abs_gap")
        w1_worse |= kl[0] > 2 * kl[1] or gap[0] > 2 * gap[1]
        w1_better |= kl[0] < -2 * kl[1]
        sl = {m: g[g.method == m]["slope"].mean() for m in ("default2", "bagged")}
        wt = {m: np.mean([w[1] for w in g[g.method == m]["weights"]]) for m in sl}
        for m in sl:
            if s.startswith("sim_"):
                misses[m] += int(g[g.method == m]["abs_gap"].mean() > 0.02)
                misses[m] += int(not 0.9 <= sl[m] <= 1.1)
        out.append(f"| {s} | {star(*kl)} | {star(*gap)} | {sl['default2']:.3f} -> "
                   f"{sl['bagged']:.3f} | {wt['default2']:.3f} -> {wt['bagged']:.3f} |")
    w1 = not w1_worse and (w1_better or misses["bagged"] < misses["default2"])
    out += ["", f"Point misses (sim_*): default2 {misses['default2']}, bagged "
            f"{misses['bagged']}. W1: **{'pass' if w1 else 'fail'}**.", "",
            "## W2, held-out X and three classes (seed 0, six replicates)", "",
            "| scenario | KL | \\|e - a\\| |", "|---|---:|---:|"]
    w2_ok = True
    for s in OTHER:
        kl, gap = diff(rk, "bagged", "default2", s, "kl"), diff(rk, "bagged", "default2", s,
                                                                  "abs_gap")
        w2_ok &= not kl[0] > 2 * kl[1]
        out.append(f"| {s} | {star(*kl)} | {star(*gap)} |")
    out += ["", f"W2: **{'pass' if w2_ok else 'fail'}**.", "",
            "## W3, the development sets (5 folds, fold as the unit)", "",
            "| set | AMLP default2 | AMLP bagged | corrected: bagged - default2 | uncorrected: "
            "bagged - default2 | corrected - uncorrected, default2 | corrected - uncorrected, "
            "bagged |", "|---|---:|---:|---:|---:|---:|---:|"]
    dev = df[df.part == "dev"]
    w3_ok, diffs, ses = True, [], []
    for s in sorted(dev.scenario.unique()):
        c = dev[(dev.scenario == s) & (dev.arm == "corrected")]
        dc = diff(rk, "corrected_bagged", "corrected_default2", s, "amlp")
        du = diff(rk, "uncorrected_bagged", "uncorrected_default2", s, "amlp")
        w3_ok &= not dc[0] > 2 * dc[1]
        diffs.append(dc[0])
        ses.append(dc[1])
        cell = {m: star(*diff(rk, f"corrected_{m}", f"uncorrected_{m}", s, "amlp"))
                for m in ("default2", "bagged")}
        am = {m: np.average(c[c.method == m]["amlp"], weights=c[c.method == m]["n_test"])
              for m in ("default2", "bagged")}
        out.append(f"| {s} | {am['default2']:.3f} | {am['bagged']:.3f} | {star(*dc)} | "
                   f"{star(*du)} | {cell['default2']} | {cell['bagged']} |")
    mean, se = float(np.mean(diffs)), float(np.sqrt(np.sum(np.square(ses))) / len(ses))
    w3_ok &= not mean > 2 * se
    out += ["", f"Mean over the sets, corrected, bagged - default2: {star(mean, se)}. "
            f"W3: **{'pass' if w3_ok else 'fail'}**.", "",
            f"Checks: stored suite weights equal the package's refit to "
            f"{suite['stored_equals_refit'].max():.1e}; the development-set default2 losses "
            f"equal the stored ones to {dev['stored_loss_diff'].max():.1e}.", "",
            f"Verdict: **{'adopted' if w1 and w2_ok and w3_ok else 'not adopted'}**."]
    return out


def main(report_only: bool = False) -> None:
    if report_only:          # the tables again from the stored rows
        rows = [json.loads(line) for line in
                (HERE / "results.jsonl").read_text().splitlines() if line]
    else:
        rows = suite_rows() + dev_rows()
        with (HERE / "results.jsonl").open("w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    text = "\n".join(report(rows)) + "\n"
    (HERE / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(report_only="--report" in sys.argv[1:])
