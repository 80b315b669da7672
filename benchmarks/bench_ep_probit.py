"""The probit model's EP, compiled against the numpy code it replaced, as ratios in one run.

The all-features probit model of the default stack (``selbayes.models.fit_linear_probit``)
runs expectation propagation at each of the 37 points of its grid of the prior scale s, on all
cases and on every inner fold. Its loops over cases are compiled with numba
(``selbayes.models._linear_probit_nb``); the numpy code it had before is kept as the reference
of the tests (``tests/models/test_linear_probit.py::_python_ep``) and timed here beside it.

Design: two classes of n / 2 cases, p = 2000 standard normal features, the first 20 shifted by
0.8 between the classes; the kernel s Z Z' / p + 4 of the standardised features at every point
of the grid (what ``fit_gram`` does). Each implementation runs the whole grid ``--repeats``
times (default 5), in turn; the table gives the median seconds per grid and the ratio, and the
largest difference of the two log marginal likelihoods over the grid (rounding only). The
compiled code is loaded (from numba's cache, or compiled) before the timed runs.

Run: ``.venv/bin/python benchmarks/bench_ep_probit.py``. Writes benchmarks/results/ep_probit.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _notes import run_line, write_results

from selbayes.models import ep_probit
from selbayes.models._linear_probit import (
    INTERCEPT_VARIANCE,
    LOG_S_GRID,
    MIN_TAU,
    standardise_features,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.models.test_linear_probit import _python_ep  # noqa: E402  (the numpy reference)

OUT = Path(__file__).resolve().parent / "results" / "ep_probit.md"
SIZES = (40, 62, 100, 200)


def kernels(n, p=2000, seed=0):
    """The 37 kernels of the grid and the labels in {-1, 1}."""
    rng = np.random.default_rng(seed)
    y = np.repeat([-1.0, 1.0], n // 2)
    X = rng.standard_normal((n, p))
    X[:, :20] += 0.8 * (y[:, None] > 0)
    _, _, _, Z = standardise_features(X)
    G0 = Z @ Z.T / Z.shape[1]
    return [np.exp(s) * G0 + INTERCEPT_VARIANCE for s in LOG_S_GRID], y


def grid_seconds(run, Ks, y):
    """Seconds to run EP at every kernel of the grid, and the log marginal likelihoods."""
    t0 = time.perf_counter()
    log_z = [run(K, y)[3] for K in Ks]
    return time.perf_counter() - t0, np.array(log_z)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5, help="timed grids per implementation")
    a = ap.parse_args(argv)
    runs = {"compiled": ep_probit, "numpy": lambda K, y: _python_ep(K, y, MIN_TAU)}
    ep_probit(np.eye(2) + 1.0, np.array([1.0, -1.0]))          # load or compile, untimed
    rows, t_start = [], time.perf_counter()
    for n in SIZES:
        Ks, y = kernels(n)
        secs = {name: [] for name in runs}
        log_z = {}
        for _ in range(a.repeats):                  # in turn, so a slow spell hits both
            for name, run in runs.items():
                sec, log_z[name] = grid_seconds(run, Ks, y)
                secs[name].append(sec)
        med = {name: float(np.median(s)) for name, s in secs.items()}
        rows.append((n, med["numpy"], med["compiled"], med["numpy"] / med["compiled"],
                     float(np.max(np.abs(log_z["numpy"] - log_z["compiled"])))))
        print(f"n = {n}: numpy {med['numpy']:.3f} s, compiled {med['compiled']:.3f} s",
              flush=True)
    lines = [
        "# The probit model's EP: compiled against numpy",
        "",
        run_line(f"python benchmarks/bench_ep_probit.py --repeats {a.repeats}", t_start),
        "",
        f"EP at all {LOG_S_GRID.size} points of the grid of s (what one fit of the probit model "
        "runs), p = 2000 features, two classes of n / 2 (see the script).",
        "",
        f"| n | numpy, s per grid (median of {a.repeats}) | compiled, s per grid | ratio | "
        "largest difference of log Z (nats) |",
        "|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {n} | {t_np:.3f} | {t_c:.4f} | {r:.1f} | {d:.1e} |"
              for n, t_np, t_c, r, d in rows]
    write_results(OUT, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
