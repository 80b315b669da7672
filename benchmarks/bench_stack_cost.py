"""What the stack's weights cost: the Gaussian model alone, the two-model stack weighted on its
plug-in inner predictions and on its refitted inner predictions, and the default (refitted inner
predictions and the gated L1 model, ``l1_gate=2.0``), as ratios to the Gaussian model alone
measured in the same run.

``LinearStackedClassifier(inner_predictive="refit")`` refits the Gaussian model with its own
method (MCMC) on each inner fold at the k and label-noise share its inner cross-validation chose,
so that the stacking weights are fitted on the predictive it then uses (the plug-in inner
predictive is overconfident where effects are many and weak; ``reports/plasmode/refit_inner``);
since 2026-12-05 with half the tuning steps and a quarter of the draws
(``reports/plasmode/light_refits``).
The default also fits L1 logistic regression on each inner fold for its gate (and once more
on all cases where the gate opens; ``reports/plasmode/gated_l1_stack``). This measures the price
of both in wall time.

Design: two classes, n = 60 (30 per class), p = 2000 independent standard normal features, two
scenarios: sparse strong (10 features shifted by 1.5 between the classes) and dense weak (500
features shifted by 0.25). Default settings everywhere (k chosen by inner 5-fold CV on the
default grid, NUTS 4 chains x 1000 tuning + 1000 draws, nutpie). Before the timed fits of a
scenario, an untimed fit of the Gaussian model compiles and caches the models, so the first
timed fit does not pay for compilation. Each timed fit includes the prediction of 10 cases.
The classifiers are timed in turn, ``--repeats`` times (default 3), and the table gives
each one's median and range; the ratio is of the medians.

Run: ``.venv/bin/python benchmarks/bench_stack_cost.py [--quick]`` (``--quick``: n = 40,
p = 300, 100 draws; a smoke test, not a result). Writes benchmarks/results/stack_cost.md after
every row, so a run stopped early keeps what it measured.
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
from selbayes.estimators import LinearStackedClassifier

OUT = Path(__file__).resolve().parent / "results" / "stack_cost.md"

SCENARIOS = {"sparse strong": (10, 1.5), "dense weak": (500, 0.25)}


def data(n, p, n_signal, shift, seed=0):
    """Two classes of n // 2 cases; the first ``n_signal`` features shifted by ``shift``."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, p))
    X[:, :n_signal] += shift * y[:, None]
    return X, y


def timed_fit(make, X, y):
    """Seconds to fit ``make()`` and predict 10 cases, and the fitted classifier."""
    clf = make()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
        clf.predict_proba(X[:10])
    return time.perf_counter() - t0, clf


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small data, 100 draws (smoke test)")
    ap.add_argument("--repeats", type=int, default=3, help="timed fits per classifier")
    a = ap.parse_args(argv)
    n, p = (40, 300) if a.quick else (60, 2000)
    settings = dict(draws=100, tune=100, chains=2) if a.quick else {}

    def gaussian():
        return HierarchicalGaussianClassifier(random_state=0, progressbar=False, **settings)

    variants = {
        "Gaussian model alone": gaussian,
        "two-model stack, plug-in inner predictions": lambda: LinearStackedClassifier(
            gaussian(), inner_predictive="plugin", l1_gate=None),
        "two-model stack, refitted inner predictions": lambda: LinearStackedClassifier(
            gaussian(), inner_predictive="refit", l1_gate=None),
        "stack with the gated L1 model (default)": lambda: LinearStackedClassifier(
            gaussian()),
    }
    rows = []
    t_start = time.perf_counter()
    for scenario, (n_signal, shift) in SCENARIOS.items():
        X, y = data(n, p, min(n_signal, p), shift)
        timed_fit(gaussian, X, y)                   # compile and cache, untimed
        seconds, fitted = {name: [] for name in variants}, {}
        for _ in range(a.repeats):                  # in turn, so a slow spell hits all of them
            for name, make in variants.items():
                sec, clf = timed_fit(make, X, y)
                seconds[name].append(sec)
                fitted[name] = getattr(clf, "estimator_", clf)
                print(f"{scenario:>14} | {name:<44}: {sec:7.1f} s", flush=True)
        base = float(np.median(seconds[next(iter(variants))]))
        for name, secs in seconds.items():
            est, med = fitted[name], float(np.median(secs))
            rows.append((scenario, name, int(est.k_), len(est.k_choice_.extra["folds"]), med,
                         min(secs), max(secs), med / base))
        _write(a, n, p, rows, t_start)
    print(OUT)
    return 0


def _write(a, n, p, rows, t_start):
    """The table of the rows measured so far (rewritten after every row), keeping the notes."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# What the stack's weights cost",
        "",
        f"`python benchmarks/bench_stack_cost.py{' --quick' if a.quick else ''} --repeats "
        f"{a.repeats}`, {now}, "
        f"selbayes {__version__}, {platform.machine()}, {os.cpu_count()} cores, load average "
        f"at the end {os.getloadavg()[0]:.1f} (other jobs may have run: compare the ratios "
        f"within this table); {time.perf_counter() - t_start:.0f} s in all.",
        "",
        f"Data: two classes, n = {n}, p = {p}, per scenario (see the script). Default settings "
        "(k by inner CV, NUTS 4 x 1000 + 1000)" + (" except 2 chains x 100 + 100 (--quick)"
                                                   if a.quick else "")
        + "; models compiled before the timed fits; fit + prediction of 10 cases.",
        "",
        f"| scenario | classifier | chosen k | inner folds | seconds, median of {a.repeats} "
        "(range) | ratio to the Gaussian model alone |",
        "|---|---|---:|---:|---:|---:|",
    ]
    lines += [f"| {s} | {c} | {k} | {f} | {med:.1f} ({lo:.1f} to {hi:.1f}) | {r:.2f} |"
              for s, c, k, f, med, lo, hi, r in rows]
    lines += ["", "Python " + sys.version.split()[0]]
    write_keeping_notes(OUT, lines)


if __name__ == "__main__":
    raise SystemExit(main())
