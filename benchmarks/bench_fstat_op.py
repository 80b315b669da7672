"""Benchmark: cost of the F-statistic adjustment Op inside a compiled pytensor function (issue 3).

Run:  .venv/bin/python benchmarks/bench_fstat_op.py [--repeat 15] [--calls 5000]
Writes benchmarks/results/fstat_op.md.

One value-and-gradient evaluation (what NUTS does at every leapfrog step) of

* ``base``:        the log prior of x = log(tau_mu) (a Normal logpdf) and its gradient;
* ``base + op``:   the same plus 3800 * FStatOmitLogProb(x);
* ``gauss10``:     a 10-feature Gaussian log-likelihood (n = 200 cases, G = 6 classes: class
  means mu (10 x 6) and log precisions (10)) and its gradient;
* ``gauss10 + op``: the same plus 3800 * FStatOmitLogProb(x), gradient in all parameters.

Target: the Op adds less than the cost of the 10-feature Gaussian log-likelihood. Times are
best-of-``repeat`` averages over ``calls`` calls within this one run, the functions
interleaved; results are ratios.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import time
from pathlib import Path

import numpy as np
import pytensor
import pytensor.tensor as pt

from selbayes.adjustment import FStatOmitLogProb
from selbayes.adjustment.spline_op import fstat_adjustment

RESULTS = Path(__file__).resolve().parent / "results" / "fstat_op.md"
COUNTS = np.array([34, 34, 33, 33, 33, 33])
N_OMIT = 3800


def per_call(fn, args, calls: int, repeat: int) -> float:
    """Best over ``repeat`` of the mean time of one call (seconds)."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def build(mode, op, rng):
    x = pt.dscalar("x")
    prior = -0.5 * ((x - 4.0) / 2.0) ** 2
    n, k, G = 200, 10, 6
    y = np.repeat(np.arange(G), COUNTS)
    X = rng.normal(size=(n, k))
    mu = pt.dmatrix("mu")
    log_tau = pt.dvector("log_tau")
    onehot = np.eye(G)[y]  # (n, G): the class means of each case as one product
    resid = pt.constant(X) - pt.dot(pt.constant(onehot), mu.T)  # (n, k)
    gauss = (0.5 * n * log_tau.sum() - 0.5 * (pt.exp(log_tau) * resid**2).sum())
    adj = N_OMIT * op(x)
    # The same table through the FStatAdjustment Op (issue 18) instead of the expression graph.
    adj_op = N_OMIT * fstat_adjustment(op, x)

    def fn(inputs, expr):
        f = pytensor.function(inputs, [expr, *pytensor.grad(expr, inputs)], mode=mode)
        f.trust_input = True
        return f

    vals = {
        x: np.array(np.log(100.0)),
        mu: rng.normal(size=(k, G)),
        log_tau: np.zeros(k),
    }
    fns = {
        "base": (fn([x], prior), [vals[x]]),
        "base + op": (fn([x], prior + adj), [vals[x]]),
        "gauss10": (fn([mu, log_tau], gauss), [vals[mu], vals[log_tau]]),
        "gauss10 + op": (fn([mu, log_tau, x], gauss + prior + adj),
                         [vals[mu], vals[log_tau], vals[x]]),
        "gauss10 + Op class": (fn([mu, log_tau, x], gauss + prior + adj_op),
                               [vals[mu], vals[log_tau], vals[x]]),
        "gauss10 + prior": (fn([mu, log_tau, x], gauss + prior),
                            [vals[mu], vals[log_tau], vals[x]]),
    }
    # Elementwise throughput on a long vector: the Op's own cost without call overhead.
    xv = pt.dvector("xv")
    vec = fn([xv], op(xv).sum())
    fns["op on 100 000 points"] = (vec, [np.linspace(-5.0, 15.0, 100_000)])
    return fns


def main(repeat: int, calls: int) -> None:
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    op = FStatOmitLogProb(COUNTS, 3.15, 4.0)
    t_build = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    sections = []
    for mode in ("NUMBA", "CVM"):
        fns = build(mode, op, rng)
        times = {name: np.inf for name in fns}
        for f, args in fns.values():
            f(*args)  # warm up
        # Interleave the functions so that load changes on a shared machine hit all alike.
        for _ in range(repeat):
            for name, (f, args) in fns.items():
                n_calls = max(20, calls // 1000) if "100 000" in name else calls
                times[name] = min(times[name], per_call(f, args, n_calls, 1))
        added = times["base + op"] - times["base"]
        added_model = times["gauss10 + op"] - times["gauss10 + prior"]
        rows = [
            "| function (value + gradient) | time per call (us) | ratio to base | "
            "ratio to gauss10 |",
            "|---|---:|---:|---:|",
        ]
        for name, t in times.items():
            if "100 000" in name:
                continue
            rows.append(f"| {name} | {1e6 * t:.2f} | {t / times['base']:.2f} | "
                        f"{t / times['gauss10']:.2f} |")
        per_point = times["op on 100 000 points"] / 100_000
        sections += [
            f"## mode {mode}",
            "",
            *rows,
            "",
            f"- Op added to the scalar function: {1e6 * added:.2f} us = "
            f"**{added / times['gauss10']:.2f} x the 10-feature Gaussian log-likelihood** "
            f"(target < 1); (base + op) / base = {times['base + op'] / times['base']:.2f}.",
            f"- Op added to the Gaussian model: {1e6 * added_model:.2f} us; "
            f"(gauss10 + op) / (gauss10 + prior) = "
            f"{times['gauss10 + op'] / times['gauss10 + prior']:.3f}.",
            f"- FStatAdjustment Op class vs expression graph, in the Gaussian model: "
            f"(gauss10 + Op class) / (gauss10 + op) = "
            f"**{times['gauss10 + Op class'] / times['gauss10 + op']:.3f}** (target <= 1.1).",
            f"- Op alone, vectorised: {1e9 * per_point:.1f} ns per point (value + gradient).",
            "",
        ]
    load1 = os.getloadavg()
    lines = [
        "# Benchmark: F-statistic adjustment Op (value + gradient)",
        "",
        f"- date: {_dt.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.platform()}, {platform.machine()}, os.cpu_count() = "
        f"{os.cpu_count()}",
        f"- load average (1, 5, 15 min) before / after: {tuple(round(v, 2) for v in load0)} / "
        f"{tuple(round(v, 2) for v in load1)}",
        f"- python {platform.python_version()}, numpy {np.__version__}, pytensor "
        f"{pytensor.__version__}",
        f"- settings: class counts {COUNTS.tolist()}, gamma = 3.15, alpha_x = 4, p - k = "
        f"{N_OMIT}; best of {repeat} x {calls} calls; compiled functions with trust_input",
        f"- Op construction (tabulation, {op.n_pieces} quintic pieces): {1e3 * t_build:.0f} ms, "
        "once per model",
        "- command: `.venv/bin/python benchmarks/bench_fstat_op.py`",
        "",
        "Ratios compare calls of compiled pytensor functions within this run. `base` is the log "
        "prior of x = log tau_mu; `gauss10` is a 10-feature, 6-class Gaussian log-likelihood on "
        "200 cases with its gradient in 70 parameters.",
        "",
        *sections,
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    main(args.repeat, args.calls)
