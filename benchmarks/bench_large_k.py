"""Fits at large k, and the three priors on the class means, as ratios to a k = 10 fit.

Dense signal needs many kept genes; the collapsed model (class means integrated out) costs
O(k) per gradient, so a fit at k = 20 000 should take seconds to a few minutes, not hours.

Design: n = 100 cases (50 per class), p = 20 001 independent standard normal features, the
first 2000 with a class-mean difference of 0.15 (dense, weak). For each prior on the class
means ("normal", "t", "two_groups") and k in (10, 1000, 20 000): one fit to compile the model
(not timed), then one timed fit with the compiled model cached (sampling, prediction and
checks), default sampler settings (4 chains x 1000 tuning + 1000 draws, nutpie). Reported:
seconds, the ratio to the k = 10 normal-prior fit of the same run, the number of NUTS
gradient evaluations per draw (mean tree size) and the minimum bulk ESS.

Run: ``.venv/bin/python benchmarks/bench_large_k.py [--quick]``
(writes benchmarks/results/large_k.md).
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
    stats = clf.idata_["sample_stats"]
    steps = float(stats["n_steps"].mean()) if "n_steps" in stats else float("nan")
    ess = float(clf.diagnostics_["ess_bulk"].min()) if hasattr(clf, "diagnostics_") else np.nan
    return sec, steps, ess


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="p = 2001, k up to 2000")
    a = ap.parse_args(argv)
    if a.quick:
        X, y = data(p=2001, n_signal=200)
        ks = (10, 200, 2000)
    else:
        X, y = data()
        ks = (10, 1000, 20_000)
    settings = dict(draws=1000, tune=1000, chains=4)
    rows = []
    t_start = time.perf_counter()
    for prior in ("normal", "t", "two_groups"):
        for k in ks:
            one_fit(X, y, k, prior, settings)                 # compile (cached on disk)
            sec, steps, ess = one_fit(X, y, k, prior, settings)
            rows.append((prior, k, sec, steps, ess))
            print(f"{prior:>10} k={k:>6}: {sec:7.2f} s, {steps:.1f} steps/draw, "
                  f"min bulk ESS {ess:.0f}", flush=True)
    base = next(r[2] for r in rows if r[0] == "normal" and r[1] == ks[0])
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Fits at large k and the priors on the class means",
        "",
        f"`python benchmarks/bench_large_k.py{' --quick' if a.quick else ''}`, {now}, "
        f"selbayes {__version__}, {platform.machine()}, {os.cpu_count()} cores, load "
        f"average at the end {os.getloadavg()[0]:.1f} (other jobs may have run: compare the "
        f"ratios within this table); {time.perf_counter() - t_start:.0f} s in all.",
        "",
        f"Data: n = {X.shape[0]}, p = {X.shape[1]}, dense weak signal (see the script). Each "
        "fit: 4 chains x 1000 tuning + 1000 draws (nutpie), compiled model cached (the first "
        "fit of each shape, not timed, compiles it); fit + prediction of 10 cases.",
        "",
        "| prior | k | seconds | ratio to k = 10, normal | NUTS steps per draw | min bulk ESS |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {p} | {k} | {s:.2f} | {s / base:.1f} | {st:.1f} | {e:.0f} |"
              for p, k, s, st, e in rows]
    lines += ["", "Python " + sys.version.split()[0]]
    OUT.write_text("\n".join(lines) + "\n")
    print(OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
