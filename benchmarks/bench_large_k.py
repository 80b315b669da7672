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

Run: ``.venv/bin/python benchmarks/bench_large_k.py [--quick] [--ks 10,1000,5000]
[--priors normal,t]`` (writes benchmarks/results/large_k.md after every row, so a run stopped
early keeps what it measured).
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
    ap.add_argument("--ks", default=None, help="comma-separated k (default 10,1000,20000)")
    ap.add_argument("--priors", default="normal,t,two_groups")
    a = ap.parse_args(argv)
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
    for prior in priors:
        for k in ks:
            # compile (cached by shape, not by draws): a short one-chain fit, so the
            # untimed warm-up does not cost as much as the timed fit at k = 20 000
            one_fit(X, y, k, prior, dict(draws=20, tune=20, chains=1))
            sec, steps, ess = one_fit(X, y, k, prior, settings)
            rows.append((prior, k, sec, steps, ess))
            print(f"{prior:>10} k={k:>6}: {sec:7.2f} s, {steps:.1f} steps/draw, "
                  f"min bulk ESS {ess:.0f}", flush=True)
            _write(a, X, rows, t_start)
    print(OUT)
    return 0


# A hand-written section after the table (its reading), kept when the table is rewritten.
NOTES_HEADING = "## Notes"


def _write(a, X, rows, t_start):
    """The table of the rows measured so far (rewritten after every row), keeping the notes."""
    base = rows[0][2]
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Fits at large k and the priors on the class means",
        "",
        f"`python benchmarks/bench_large_k.py{' --quick' if a.quick else ''}"
        f"{' --ks ' + a.ks if a.ks else ''} --priors {a.priors}`, {now}, "
        f"selbayes {__version__}, {platform.machine()}, {os.cpu_count()} cores, load "
        f"average at the end {os.getloadavg()[0]:.1f} (other jobs may have run: compare the "
        f"ratios within this table); {time.perf_counter() - t_start:.0f} s in all.",
        "",
        f"Data: n = {X.shape[0]}, p = {X.shape[1]}, dense weak signal (see the script). Each "
        "fit: 4 chains x 1000 tuning + 1000 draws (nutpie), compiled model cached (a short "
        "untimed one-chain fit of each shape compiles it first); fit + prediction of 10 cases.",
        "",
        f"| prior | k | seconds | ratio to the first row ({rows[0][0]}, k = {rows[0][1]}) "
        "| NUTS steps per draw | min bulk ESS |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {p} | {k} | {s:.2f} | {s / base:.1f} | {st:.1f} | {e:.0f} |"
              for p, k, s, st, e in rows]
    lines += ["", "Python " + sys.version.split()[0]]
    _, sep, notes = (OUT.read_text() if OUT.is_file() else "").partition(NOTES_HEADING)
    OUT.write_text("\n".join(lines) + "\n" + ("\n" + sep + notes if sep else ""))


if __name__ == "__main__":
    raise SystemExit(main())
