"""Benchmark: OBF on p = 20,000 features, n = 100 cases, relative to select_features.

Run: ``.venv/bin/python benchmarks/bench_obf.py``; writes ``benchmarks/results/obf.md``.
Times are the best of several repeats (wall clock, single process); the report gives ratios to
``select_features(X, y, k=100)`` (the ANOVA F filter) measured in the same run.
"""

from __future__ import annotations

import datetime
import os
import platform
import timeit
from pathlib import Path

import numpy as np

from selbayes import select_features
from selbayes.filters import obf, obf_select

N, P, K, REPEAT, NUMBER, SEED = 100, 20_000, 100, 7, 3, 0


def main() -> None:
    rng = np.random.default_rng(SEED)
    y = np.repeat([0, 1], N // 2)
    X = rng.normal(size=(N, P))
    X[N // 2:, :50] += 1.0
    X[N // 2:, 50:100] *= 2.0

    cases = {
        "select_features(k=100) [F statistic, reference]":
            lambda: select_features(X, y, k=K),
        "obf(priors='jeffreys')": lambda: obf(X, y, prior_marker_prob=0.005),
        "obf(priors='paper_pp')": lambda: obf(X, y, priors="paper_pp", prior_marker_prob=0.005),
        "obf_select(rule='mnc')": lambda: obf_select(X, y, rule="mnc", prior_marker_prob=0.005),
        "obf_select(rule='cmnc', k=100)":
            lambda: obf_select(X, y, rule="cmnc", k=K, prior_marker_prob=0.005),
    }
    for fn in cases.values():  # warm-up (imports, caches)
        fn()
    best = {name: min(timeit.repeat(fn, repeat=REPEAT, number=NUMBER)) / NUMBER
            for name, fn in cases.items()}
    ref = best["select_features(k=100) [F statistic, reference]"]

    lines = [
        "# OBF benchmark",
        "",
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"os.cpu_count() = {os.cpu_count()} (shared with other jobs)",
        f"- python {platform.python_version()}, numpy {np.__version__}",
        f"- settings: n = {N} (50 per class), p = {P}, k = {K}, Gaussian data with 50 mean and "
        f"50 variance markers; best of {REPEAT} repeats x {NUMBER} calls",
        "- command: `.venv/bin/python benchmarks/bench_obf.py`",
        "",
        "| call | seconds | ratio to select_features |",
        "|---|---|---|",
    ]
    lines += [f"| `{name}` | {t:.4f} | {t / ref:.2f} |" for name, t in best.items()]
    t_obf = best["obf(priors='jeffreys')"]
    lines += ["", f"Target: p = 20,000, n = 100 in under 1 s. Measured obf(): {t_obf:.4f} s "
              f"({'met' if t_obf < 1 else 'NOT met'})."]
    out = Path(__file__).parent / "results" / "obf.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
