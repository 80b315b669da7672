"""Fits at large k, and the three priors on the class means, as ratios to a k = 10 fit.

Dense signal needs many kept genes; the collapsed model (class means integrated out) costs
O(k) per gradient, but NUTS also needs more steps per draw as k grows. This measures what a
fit at k = 20 000 costs (minutes, not the seconds issue 27 asks for: see the notes at the end
of the results file).

Design: n = 100 cases (50 per class), p = 20 001 independent standard normal features, the
first 2000 with a class-mean difference of 0.15 (dense, weak). For each prior on the class
means ("normal", "t", "two_groups") and k in (10, 1000, 20 000): a short one-chain fit to
compile the model (not timed), then one timed fit with the compiled model cached (sampling,
prediction and checks), default sampler settings (4 chains x 1000 tuning + 1000 draws,
nutpie). Reported: seconds, the ratio to the first row of the same run (k = 10), the number
of NUTS gradient evaluations per draw (mean tree size) and the minimum bulk ESS.

``--inference plugin`` times ``HierarchicalGaussianClassifier(method="plugin")`` (the
hyperparameters at their mode, no sampler) instead of NUTS, ``--inference plugin,mcmc`` both in
one run, so their ratio is measured under the same load.

Run: ``.venv/bin/python benchmarks/bench_large_k.py [--quick] [--ks 10,1000,5000]
[--priors normal,t] [--inference plugin,mcmc] [--out large_k_plugin.md]`` (writes
benchmarks/results/large_k.md, or ``--out`` in the same folder, after every row, so a run
stopped early keeps what it measured).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from _notes import write_keeping_notes

from selbayes import HierarchicalGaussianClassifier, __version__

OUT = Path(__file__).resolve().parent / "results" / "large_k.md"


def data(n=100, p=20_001, n_signal=2000, shift=0.15, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, p))
    X[:, :n_signal] += shift * (y[:, None] - 0.5) * 2
    return X, y


def one_fit(X, y, k, prior, settings):
    clf = HierarchicalGaussianClassifier(k=k, effect_prior=prior, random_state=0,
                                         progressbar=False, **settings)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
        clf.predict_proba(X[:10])
    sec = time.perf_counter() - t0
    label = prior if clf.t_df_ is None else f"{prior} (df {clf.t_df_:g})"   # df the data chose
    if "sample_stats" not in clf.idata_.children:        # plug-in: no sampler ran
        return sec, float("nan"), float("nan"), label
    stats = clf.idata_["sample_stats"]
    steps = float(stats["n_steps"].mean()) if "n_steps" in stats else float("nan")
    ess = float(clf.diagnostics_["ess_bulk"].min()) if hasattr(clf, "diagnostics_") else np.nan
    return sec, steps, ess, label


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="p = 2001, k up to 2000")
    ap.add_argument("--ks", default=None, help="comma-separated k (default 10,1000,20000)")
    ap.add_argument("--priors", default="normal,t,two_groups")
    ap.add_argument("--inference", default="mcmc",
                    help="comma-separated: mcmc (NUTS), plugin (hyperparameters at their mode)")
    ap.add_argument("--out", default=None, help=f"results file (default {OUT.name})")
    a = ap.parse_args(argv)
    out = OUT if a.out is None else OUT.parent / a.out
    if a.quick:
        X, y = data(p=2001, n_signal=200)
        ks = (10, 200, 2000)
    else:
        X, y = data()
        ks = (10, 1000, 20_000)
    if a.ks:
        ks = tuple(int(v) for v in a.ks.split(","))
    priors = [v.strip() for v in a.priors.split(",") if v.strip()]
    settings = dict(draws=1000, tune=1000, chains=4)
    rows = []
    t_start = time.perf_counter()
    inferences = [v.strip() for v in a.inference.split(",") if v.strip()]
    for prior in priors:
        for inference in inferences:
            if inference == "plugin" and prior == "two_groups":
                continue                      # the plug-in does not cover the two groups
            for k in ks:
                # compile (cached by shape, not by draws) and import: a short one-chain fit,
                # so the untimed warm-up does not cost as much as the timed fit at k = 20 000
                one_fit(X, y, k, prior, dict(draws=20, tune=20, chains=1, method=inference))
                sec, steps, ess, label = one_fit(X, y, k, prior,
                                                 {**settings, "method": inference})
                rows.append((label, inference, k, sec, steps, ess))
                print(f"{label:>10} {inference:>6} k={k:>6}: {sec:7.2f} s, {steps:.1f} "
                      f"steps/draw, min bulk ESS {ess:.0f}", flush=True)
                _write(a, X, rows, t_start, out)
    print(out)
    return 0


def _write(a, X, rows, t_start, out):
    """The table of the rows measured so far (rewritten after every row), keeping the notes."""
    base = rows[0][3]
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Fits at large k and the priors on the class means",
        "",
        f"`python benchmarks/bench_large_k.py{' --quick' if a.quick else ''}"
        f"{' --ks ' + a.ks if a.ks else ''} --priors {a.priors} --inference {a.inference}"
        f"{' --out ' + a.out if a.out else ''}`, {now}, "
        f"selbayes {__version__}, {platform.machine()}, {os.cpu_count()} cores, load "
        f"average at the end {os.getloadavg()[0]:.1f} (other jobs may have run: compare the "
        f"ratios within this table); {time.perf_counter() - t_start:.0f} s in all.",
        "",
        f"Data: n = {X.shape[0]}, p = {X.shape[1]}, dense weak signal (see the script). Each "
        "fit: mcmc = 4 chains x 1000 tuning + 1000 draws (nutpie), compiled model cached (a "
        "short untimed one-chain fit of each shape compiles it first); plugin = "
        "`method=\"plugin\"`, 1000 draws, no sampler; fit + prediction of 10 cases.",
        "",
        f"| prior | inference | k | seconds | ratio to the first row ({rows[0][0]}, "
        f"{rows[0][1]}, k = {rows[0][2]}) | NUTS steps per draw | min bulk ESS |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {p} | {i} | {k} | {s:.2f} | {s / base:.1f} | "
              + ("-" if np.isnan(st) else f"{st:.1f}") + " | "
              + ("-" if np.isnan(e) else f"{e:.0f}") + " |"
              for p, i, k, s, st, e in rows]
    lines += ["", "Python " + sys.version.split()[0]]
    write_keeping_notes(out, lines)


if __name__ == "__main__":
    raise SystemExit(main())
