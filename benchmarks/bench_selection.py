"""Benchmark: select_features on n = 200, p = 100 000, as a ratio to one pass of X.sum(axis=0).

Run:  .venv/bin/python benchmarks/bench_selection.py [--repeat 7] [--p 100000]
Writes benchmarks/results/selection.md.

Target (issue 2): select_features within 10x of the memory-bound floor X.sum(axis=0).
All timings are best-of-``repeat`` wall-clock times within this one run; only ratios are
reported as results. The run is repeated with BLAS limited to one thread, because on a busy
machine a multi-threaded BLAS call on a small block can stall (the selection uses one small
matrix product per block of columns for the class means).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from selbayes._validation import check_binary, check_labels, check_matrix
from selbayes.datasets import binary_naive_bayes, gaussian_classification
from selbayes.filters import abs_correlation, f_statistic, select_features
from selbayes.filters._selection import _rank_top

RESULTS = Path(__file__).resolve().parent / "results" / "selection.md"


def best_of(fn, repeat: int) -> float:
    """Smallest wall-clock time of ``repeat`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(Xf, yf, Xb, yb, k, repeat):
    """Times (seconds) of the floor, the two selections and their parts."""
    _, yi, _ = check_labels(yf, Xf.shape[0])
    _, ybi, _ = check_labels(yb, Xb.shape[0])
    G = int(yi.max()) + 1
    scores = f_statistic(Xf, yi, G)
    t = {}
    t["floor: X.sum(axis=0)"] = best_of(lambda: Xf.sum(axis=0), repeat)
    t["select_features(statistic='f')"] = best_of(lambda: select_features(Xf, yf, k=k), repeat)
    t["  check_matrix (copy-free asarray + isfinite)"] = best_of(lambda: check_matrix(Xf), repeat)
    t["  f_statistic"] = best_of(lambda: f_statistic(Xf, yi, G), repeat)
    t["  _rank_top (partition + lexsort)"] = best_of(lambda: _rank_top(scores, k), repeat)
    t["select_features(statistic='abs_corr')"] = best_of(
        lambda: select_features(Xb, yb, k=k, statistic="abs_corr"), repeat)
    t["  check_binary"] = best_of(lambda: check_binary(Xb, name="X"), repeat)
    t["  abs_correlation"] = best_of(lambda: abs_correlation(Xb, ybi), repeat)
    return t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--p", type=int, default=100_000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--classes", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)

    gauss = gaussian_classification(args.n, args.p, n_classes=args.classes, tau_mu=100.0,
                                    random_state=2009)
    nb = binary_naive_bayes(None, args.p, class_counts=(args.n // 2, args.n - args.n // 2),
                            random_state=2007)
    Xb = nb.X.astype(np.float64)          # same dtype as the floor's X

    load_before = os.getloadavg()
    runs = {}
    runs["default BLAS threads"] = measure(gauss.X, gauss.y, Xb, nb.y, args.k, args.repeat)
    with threadpool_limits(1):
        runs["BLAS limited to 1 thread"] = measure(gauss.X, gauss.y, Xb, nb.y, args.k,
                                                   args.repeat)
    load_after = os.getloadavg()

    blas = ", ".join(f"{d.get('internal_api')} {d.get('version')} ({d.get('num_threads')} threads)"
                     for d in threadpool_info() if d.get("user_api") == "blas")
    lines = [
        "# Benchmark: feature selection",
        "",
        f"- date: {_dt.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"os.cpu_count() = {os.cpu_count()}",
        f"- load average (1, 5, 15 min) before / after: "
        f"{tuple(round(v, 2) for v in load_before)} / {tuple(round(v, 2) for v in load_after)}",
        f"- python {platform.python_version()}, numpy {np.__version__}, BLAS: {blas}",
        f"- settings: n = {args.n}, p = {args.p}, G = {args.classes} (F), 2 (abs_corr), "
        f"k = {args.k}, best of {args.repeat}; X float64 C-order "
        f"({gauss.X.nbytes / 2**20:.0f} MiB); data from selbayes.datasets simulators",
        "- command: `.venv/bin/python benchmarks/bench_selection.py`",
        "",
        "Ratio = time / time of one `X.sum(axis=0)` on the same X in the same run "
        "(the memory-bound floor). Target: select_features within 10x.",
        "",
    ]
    for name, t in runs.items():
        floor = t["floor: X.sum(axis=0)"]
        lines += [f"## {name}", "", "| operation | best time (ms) | ratio to floor |",
                  "|---|---:|---:|"]
        for op, sec in t.items():
            lines.append(f"| {op.strip()} {'(part)' if op.startswith('  ') else ''} | "
                         f"{sec * 1e3:.1f} | {sec / floor:.1f} |")
        lines.append("")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
