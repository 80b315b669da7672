"""Error study: the paper's Monte Carlo adjustment factor against the exact one (issue 3).

Run:  .venv/bin/python benchmarks/bench_fstat_error.py [--seeds 20]
Writes benchmarks/results/fstat_error.md and benchmarks/results/fstat_error.png.

Design (seed 000, Experiment 4.1, k = 200): G = 6, n = 200 (class counts 34, 34, 33, 33, 33, 33),
threshold gamma = 3.15, alpha_x = 4, w_x = 1, p - k = 3800 omitted features; tau_mu from 20 to 500.

The sampler sees the log-factor (p - k) log P(F <= gamma | tau_mu) only up to a constant, so two
errors are reported for each fixed pool of (Z, T) draws (one pool per seed, as in the paper):

* absolute: (p - k) [l_mc(tau_mu) - l_exact(tau_mu)];
* relative to tau_mu = 100 (the true value): the same difference minus its value at 100, which is
  what moves the posterior of tau_mu (spec fact 4).

It also reports the bias of the paper's truncation of the series (f_k >= e^-10), computed exactly,
and the error of ``FStatOmitLogProb`` (the tabulated interpolant used in the model).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import time
from pathlib import Path

import numpy as np

from selbayes.adjustment import FStatOmitLogProb, fstat_log_omit_prob
from selbayes.adjustment._fstat import mc_n_terms
from selbayes.adjustment._fstat_exact import ExactTable

OUT = Path(__file__).resolve().parent / "results"
COUNTS = np.array([34, 34, 33, 33, 33, 33])
GAMMA, ALPHA, N_OMIT = 3.15, 4.0, 3800
REPORT_TAU = [20, 30, 50, 67, 100, 150, 200, 300, 500]


def main(n_seeds: int = 20) -> None:
    t_start = time.perf_counter()
    load0 = os.getloadavg()
    tau = np.unique(np.concatenate([np.geomspace(20, 500, 61), REPORT_TAU]))
    x = np.log(tau)
    i100 = int(np.argmin(np.abs(tau - 100)))
    exact = fstat_log_omit_prob(x, COUNTS, GAMMA, ALPHA)
    K = mc_n_terms(COUNTS, GAMMA)
    trunc = ExactTable.build(COUNTS, GAMMA, ALPHA, x.min(), x.max(), n_terms=K).evaluate(x)
    op = FStatOmitLogProb(COUNTS, GAMMA, ALPHA)
    op_err = N_OMIT * (op.evaluate(x) - exact)

    results = {}
    for n_draws in (1000, 10000):
        err = np.array([
            N_OMIT * (fstat_log_omit_prob(x, COUNTS, GAMMA, ALPHA, method="mc", n_draws=n_draws,
                                          seed=s) - exact)
            for s in range(n_seeds)
        ])
        results[n_draws] = (err, err - err[:, [i100]])

    rows = [i for i, t in enumerate(tau) if any(np.isclose(t, REPORT_TAU))]
    lines = [
        "# Error study: Monte Carlo vs exact F-statistic adjustment factor",
        "",
        f"- date: {_dt.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.platform()}, {platform.machine()}, os.cpu_count() = "
        f"{os.cpu_count()}; load average before {tuple(round(v, 2) for v in load0)}",
        f"- python {platform.python_version()}, numpy {np.__version__}",
        f"- design: G = 6, class counts {COUNTS.tolist()} (n = {COUNTS.sum()}), gamma = {GAMMA}, "
        f"alpha_x = {ALPHA}, w_x = 1, p - k = {N_OMIT}; tau_mu in [20, 500]",
        f"- mc: the paper's recipe (fixed pool of (Z, T) draws per seed, series kept while "
        f"f_k >= e^-10, i.e. k < {K}); {n_seeds} pools (seeds 0..{n_seeds - 1}) per size",
        "- command: `.venv/bin/python benchmarks/bench_fstat_error.py"
        + (f" --seeds {n_seeds}`" if n_seeds != 20 else "`"),
        "",
        "All numbers are errors of the log-factor (p - k) log P in nats (natural log).",
        "",
        "## Exact value and the error of the tabulated Op",
        "",
        "| tau_mu | log P exact | (p-k) log P exact | truncation bias (p-k)(l_trunc - l) "
        "| Op error (p-k)(l_op - l) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for i in rows:
        lines.append(f"| {tau[i]:g} | {exact[i]:.10f} | {N_OMIT * exact[i]:.4f} | "
                     f"{N_OMIT * (trunc[i] - exact[i]):.2e} | {op_err[i]:.1e} |")
    lines += [
        "",
        f"The Op (quintic Hermite table, spacing {op.spacing}) has a measured interpolation "
        f"error of {op.interp_error:.1e} in log P (documented bound {op.error_bound:.1e}), "
        f"i.e. at most {N_OMIT * op.error_bound:.1e} nats on the log-factor at p - k = "
        f"{N_OMIT}. The paper's truncation of the series is negligible too; the error of the "
        "recipe is its Monte Carlo noise.",
        "",
    ]
    for n_draws, (err, rel) in results.items():
        lines += [
            f"## mc with {n_draws} draws: error over {n_seeds} pools",
            "",
            "| tau_mu | abs. error: median | min | max | RMS | rel. to 100: median |abs| "
            "| min | max | RMS |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for i in rows:
            a, r = err[:, i], rel[:, i]
            lines.append(
                f"| {tau[i]:g} | {np.median(a):.2f} | {a.min():.2f} | {a.max():.2f} | "
                f"{np.sqrt(np.mean(a**2)):.2f} | {np.median(np.abs(r)):.2f} | {r.min():.2f} | "
                f"{r.max():.2f} | {np.sqrt(np.mean(r**2)):.2f} |"
            )
        lines.append("")
    r1, r10 = results[1000][1], results[10000][1]
    band = (tau >= 67) & (tau <= 150)
    lines += [
        "## Summary",
        "",
        f"- 1000 draws: relative to tau_mu = 100, the largest |error| per pool is "
        f"{np.median(np.abs(r1[:, band]).max(axis=1)):.1f} nats (median over pools; range "
        f"{np.abs(r1[:, band]).max(axis=1).min():.1f} to "
        f"{np.abs(r1[:, band]).max(axis=1).max():.1f}) for tau_mu in [67, 150], and "
        f"{np.median(np.abs(r1[:, 0])):.1f} nats (range {np.abs(r1[:, 0]).min():.1f} to "
        f"{np.abs(r1[:, 0]).max():.1f}) at tau_mu = 20.",
        f"- 10 000 draws: {np.median(np.abs(r10[:, band]).max(axis=1)):.1f} nats "
        f"(range {np.abs(r10[:, band]).max(axis=1).min():.1f} to "
        f"{np.abs(r10[:, band]).max(axis=1).max():.1f}) in [67, 150] and "
        f"{np.median(np.abs(r10[:, 0])):.1f} nats (range {np.abs(r10[:, 0]).min():.1f} to "
        f"{np.abs(r10[:, 0]).max():.1f}) at tau_mu = 20.",
        "- RMS ratio 1000 / 10 000 draws at tau_mu = 20 (expected sqrt(10) = 3.16 for "
        f"Monte Carlo noise): {np.sqrt(np.mean(r1[:, 0]**2) / np.mean(r10[:, 0]**2)):.2f}.",
        "- Spec fact 4 (checked while writing the spec, n = 198): 3 to 8 nats at "
        "tau_mu = 67..150 and 45 to 75 nats at tau_mu = 20 with 1000 draws; 0.5 to 3 nats with "
        "10 000.",
        "- A log-factor error of one nat or more distorts the posterior of tau_mu; the exact "
        "route's error is below 1e-7 nats.",
        "",
        f"Run time: {time.perf_counter() - t_start:.1f} s.",
        "",
        "![errors](fstat_error.png)",
        "",
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "fstat_error.md").write_text("\n".join(lines))
    _plot(tau, results)
    print("\n".join(lines))


def _plot(tau, results) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=False)
    for ax, (n_draws, (_, rel)) in zip(axes, results.items(), strict=True):
        for r in rel:
            ax.plot(tau, r, color="C0", alpha=0.35, lw=1)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xticks([20, 50, 100, 200, 500], labels=["20", "50", "100", "200", "500"])
        ax.minorticks_off()
        ax.set_xlabel("tau_mu (w_x = 1)")
        ax.set_ylabel("error of (p-k) log P rel. to tau_mu = 100 (nats)")
        ax.set_title(f"paper's Monte Carlo, {n_draws} draws, {rel.shape[0]} pools")
    fig.suptitle("G = 6, n = 200, gamma = 3.15, alpha_x = 4, p - k = 3800; exact route: < 1e-7")
    fig.tight_layout()
    fig.savefig(OUT / "fstat_error.png", dpi=110)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    main(parser.parse_args().seeds)
