"""Benchmark: cost of the selection-adjustment Ops inside compiled pytensor functions (issue 18).

Run:  .venv/bin/python benchmarks/bench_fstat_op.py [--repeat 60] [--calls 300]
Writes benchmarks/results/fstat_op.md.

One value-and-gradient evaluation (what NUTS does at every leapfrog step) of

* ``base``:             the log prior of x (a Normal logpdf) and its gradient;
* ``base + Op``:        the same plus (p - k) * the adjustment Op at x;
* ``model``:            a small model log-likelihood and its gradient: for the F statistic a
  10-feature, 6-class Gaussian log-likelihood on 200 cases (70 parameters); for |correlation| a
  10-feature beta-binomial naive Bayes log-likelihood (alpha and 10 theta);
* ``model + expression``: model + prior + (p - k) * the pre-Op implementation, the table written
  as ~20 ordinary pytensor operations (kept here only as the reference of this benchmark);
* ``model + Op``:       model + prior + (p - k) * the Op (``method="table"``, the models' default).

Target (issue 18): warm NUMBA ``model + Op`` within 1.1x of ``model + expression``. Also
reported: the Op's ``"exact"`` and ``"mc"`` methods (F statistic) per call. Times are the best
of ``repeat`` short blocks of ``calls`` calls within this one run, the functions interleaved (many
short blocks: on a loaded shared machine the minimum needs quiet moments); results are ratios.
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

from selbayes.adjustment import CorrOmitLogProb, FStatOmitLogProb, fstat_parameters

RESULTS = Path(__file__).resolve().parent / "results" / "fstat_op.md"
COUNTS = np.array([34, 34, 33, 33, 33, 33])
N_OMIT = 3800


def per_call(fn, args, calls: int) -> float:
    """Mean time of one call over ``calls`` calls (seconds)."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - t0) / calls


def table_expression(table, x):
    """The pre-Op implementation: the table and its tails as ordinary pytensor operations."""
    p = table.spline_parameters()
    coef = pt.constant(p["coef"])
    x_lo, x_hi, l_lo, dl_lo, r_lo, l_hi, dl_hi, r_hi = (float(v) for v in p["edges"])
    xi = pt.clip(x, x_lo, x_hi)
    pos = (xi - x_lo) * (1.0 / table.spacing)
    fl = pt.clip(pt.floor(pos), 0.0, float(p["coef"].shape[1] - 1))
    t = pos - fl
    idx = pt.cast(fl, "int64")
    mid = coef[5][idx]
    for j in range(4, -1, -1):
        mid = mid * t + coef[j][idx]

    def tail(d, l0, dl, r):
        return l0 + dl * d if r == 0 else l0 + dl * (pt.exp(r * d) - 1.0) / r

    low = tail(pt.minimum(x - x_lo, 0.0), l_lo, dl_lo, r_lo)
    up = tail(pt.maximum(x - x_hi, 0.0), l_hi, dl_hi, r_hi)
    return pt.switch(pt.lt(x, x_lo), low, pt.switch(pt.gt(x, x_hi), up, mid))


def compiled(mode, inputs, expr):
    f = pytensor.function(inputs, [expr, *pytensor.grad(expr, inputs)], mode=mode)
    f.trust_input = True
    return f


def build_fstat(mode, table, rng):
    x = pt.dscalar("x")
    prior = -0.5 * ((x - 4.0) / 2.0) ** 2
    n, k, G = 200, 10, 6
    y = np.repeat(np.arange(G), COUNTS)
    X = rng.normal(size=(n, k))
    mu = pt.dmatrix("mu")
    log_tau = pt.dvector("log_tau")
    onehot = np.eye(G)[y]  # (n, G): the class means of each case as one product
    resid = pt.constant(X) - pt.dot(pt.constant(onehot), mu.T)  # (n, k)
    model = (0.5 * n * log_tau.sum() - 0.5 * (pt.exp(log_tau) * resid**2).sum())
    expr = N_OMIT * table_expression(table, x)
    op = N_OMIT * table(x)                       # the FStatAdjustment Op, method "table"
    v = [rng.normal(size=(k, G)), np.zeros(k), np.array(np.log(100.0))]
    fns = {
        "base": (compiled(mode, [x], prior), v[2:]),
        "base + Op": (compiled(mode, [x], prior + op), v[2:]),
        "model": (compiled(mode, [mu, log_tau], model), v[:2]),
        "model + expression": (compiled(mode, [mu, log_tau, x], model + prior + expr), v),
        "model + Op": (compiled(mode, [mu, log_tau, x], model + prior + op), v),
    }
    for method in ("exact", "mc"):
        mop, params = fstat_parameters(COUNTS, 3.15, 4.0, method=method)
        out = N_OMIT * mop(x, *[pt.constant(p) for p in params.values()])
        fns[f"base + Op, method {method}"] = (compiled(mode, [x], prior + out), v[2:])
    return fns


def build_corr(mode, table, rng):
    x = pt.dscalar("log_alpha")
    prior = -0.5 * ((x - 2.0) / 2.0) ** 2
    k, n0, n1 = 10, table.n0, table.n1
    counts = np.stack([rng.integers(0, n0 + 1, k), rng.integers(0, n1 + 1, k)], axis=1)
    logit_theta = pt.dvector("logit_theta")
    theta = pt.sigmoid(logit_theta)
    alpha = pt.exp(x)
    a, b = alpha * theta, alpha * (1.0 - theta)
    N = np.array([n0, n1], dtype=float)
    model = (pt.gammaln(a[:, None] + counts) - pt.gammaln(a[:, None])
             + pt.gammaln(b[:, None] + N - counts) - pt.gammaln(b[:, None])
             + pt.gammaln(alpha) - pt.gammaln(alpha + N)).sum()
    expr = N_OMIT * table_expression(table, x)
    op = N_OMIT * table(x)                       # the CorrAdjustment Op, method "table"
    v = [np.zeros(k), np.array(np.log(5.0))]
    return {
        "base": (compiled(mode, [x], prior), v[1:]),
        "base + Op": (compiled(mode, [x], prior + op), v[1:]),
        "model": (compiled(mode, [logit_theta, x], model), v),
        "model + expression": (compiled(mode, [logit_theta, x], model + prior + expr), v),
        "model + Op": (compiled(mode, [logit_theta, x], model + prior + op), v),
    }


def run(fns, repeat, calls):
    times = {name: np.inf for name in fns}
    for f, args in fns.values():
        f(*args)  # warm up
    # Interleave the functions so that load changes on a shared machine hit all alike.
    for _ in range(repeat):
        for name, (f, args) in fns.items():
            n_calls = max(20, calls // 20) if "method" in name else calls
            times[name] = min(times[name], per_call(f, args, n_calls))
    return times


def section(title, times):
    rows = ["| function (value + gradient) | time per call (us) | ratio to base | "
            "ratio to model |", "|---|---:|---:|---:|"]
    for name, t in times.items():
        rows.append(f"| {name} | {1e6 * t:.2f} | {t / times['base']:.2f} | "
                    f"{t / times['model']:.2f} |")
    ratio = times["model + Op"] / times["model + expression"]
    return [f"## {title}", "", *rows, "",
            f"- Op vs the pre-Op expression graph, in the model: (model + Op) / "
            f"(model + expression) = **{ratio:.3f}** (target <= 1.1).", ""]


def main(repeat: int, calls: int) -> None:
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    ftable = FStatOmitLogProb(COUNTS, 3.15, 4.0)
    t_build = time.perf_counter() - t0
    ctable = CorrOmitLogProb(50, 50, 0.2)
    rng = np.random.default_rng(0)
    sections = []
    summary = []
    for mode in ("NUMBA", "CVM"):
        for name, builder, table in (("F statistic (FStatAdjustment)", build_fstat, ftable),
                                     ("|correlation| (CorrAdjustment)", build_corr, ctable)):
            times = run(builder(mode, table, rng), repeat, calls)
            sections += section(f"mode {mode}, {name}", times)
            summary.append(f"| {mode} | {name} | "
                           f"{times['model + Op'] / times['model + expression']:.3f} |")
    load1 = os.getloadavg()
    lines = [
        "# Benchmark: selection-adjustment Ops (value + gradient)",
        "",
        f"- date: {_dt.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.platform()}, {platform.machine()}, os.cpu_count() = "
        f"{os.cpu_count()}",
        f"- load average (1, 5, 15 min) before / after: {tuple(round(v, 2) for v in load0)} / "
        f"{tuple(round(v, 2) for v in load1)}",
        f"- python {platform.python_version()}, numpy {np.__version__}, pytensor "
        f"{pytensor.__version__}",
        f"- settings: F: class counts {COUNTS.tolist()}, gamma = 3.15, alpha_x = 4; "
        f"|COR|: n0 = n1 = 50, gamma = 0.2; p - k = {N_OMIT}; best of {repeat} x {calls} "
        "calls (x calls / 20 for the exact and mc methods); compiled functions with "
        "trust_input",
        f"- F table construction ({ftable.n_pieces} quintic pieces): {1e3 * t_build:.0f} ms, "
        "once per model",
        f"- command: `.venv/bin/python benchmarks/bench_fstat_op.py --repeat {repeat} "
        f"--calls {calls}`",
        "",
        "Ratios compare calls of compiled pytensor functions within this run. `expression` is "
        "the pre-Op implementation (the same table as ~20 ordinary pytensor operations); `Op` is "
        "the selection-adjustment Op that the models now use. NUMBA: nutpie's backend (the Op's "
        "numba implementation); CVM: PyMC's default backend for `sampler=\"pymc\"` (the "
        "table's C code; the exact and mc methods have no C code and run their NumPy "
        "`perform`). The machine is shared (see the load average): single ratios move by "
        "about +-10% between runs.",
        "",
        "| mode | statistic | (model + Op) / (model + expression) |",
        "|---|---|---:|",
        *summary,
        "",
        *sections,
    ]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    main(args.repeat, args.calls)
