"""Benchmark: the naive Bayes correlation adjustment factor (selbayes.adjustment._corr).

Measures, on the thesis' simulation size (n0 = n1 = 100, K = 30 prior-quantile alpha grid):

1. time per alpha value of log P_keep (and of its gradient), reported as ratios to the default
   rule within this run, plus the O(n0 n1) mask algorithm for comparison;
2. accuracy of the theta rule: max |error| x (p - k) over the grid, and the tilt
   (max - min of the error) that actually moves the alpha posterior, for plain Simpson with
   21..321 points and for the default mapped Gauss rule, against a converged reference.

Run: ``.venv/bin/python benchmarks/bench_corr_adjustment.py`` (about a minute on one core);
writes ``benchmarks/results/corr_adjustment.md``.
"""

from __future__ import annotations

import datetime
import os
import platform
import time
from pathlib import Path

import numpy as np
from scipy import stats

from selbayes.adjustment import _corr as corr
from selbayes.adjustment import corr_log_omit_prob, default_n_theta
from selbayes.adjustment._corr import theta_quadrature

N0 = N1 = 100
K = 30
GAMMAS = {0.36: 1, 0.27: 10, 0.21: 100, 0.13: 1000}     # gamma -> k (thesis, p = 10 000)
P = 10_000
REPEATS = 5


def alpha_grid():
    return stats.invgamma(0.5, scale=5.0).ppf((np.arange(K) + 0.5) / K)


def mask_algorithm(alpha, n0, n1, gamma, rule, n_theta):
    """O(n0 n1) per node: S = sum_q w_q P0^T M P1 (spec 4.7, the 'simpler' version)."""
    theta, w = theta_quadrature(rule, n_theta)
    keep = (theta > 0) & (theta < 1)
    theta, w = theta[keep], w[keep]
    mask, _, _ = corr.corr_omit_region(n0, n1, gamma)
    al = np.asarray(alpha)[:, None, None]
    lp0, _ = corr._beta_binomial_logpmf(al, theta[None, :, None], n0, False)
    lp1, _ = corr._beta_binomial_logpmf(al, theta[None, :, None], n1, False)
    S = np.einsum("aqi,ij,aqj->aq", np.exp(lp0), mask.astype(float), np.exp(lp1)) @ w
    return np.log1p(-2 * S)


def best_time(fn):
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    alpha = alpha_grid()
    n = N0 + N1
    q_default = default_n_theta(n)
    gamma = 0.13
    lines = []
    add = lines.append
    add("# Benchmark: correlation adjustment factor (binary naive Bayes)\n")
    add(f"- date: {datetime.date.today().isoformat()}")
    add(f"- machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} logical CPUs (shared), Python {platform.python_version()}, "
        f"numpy {np.__version__}")
    add(f"- settings: n0 = n1 = {N0}, K = {K} alpha nodes (IG(0.5, 5) midpoint quantiles, "
        f"alpha = {alpha[0]:.2f} .. {alpha[-1]:.0f}), p = {P}; best of {REPEATS} repeats")
    add("- command: `.venv/bin/python benchmarks/bench_corr_adjustment.py`\n")

    # ---- 1. speed -------------------------------------------------------------------------
    variants = [
        (f"staircase, gauss {q_default} nodes (default)",
         lambda: corr_log_omit_prob(alpha, N0, N1, gamma)),
        (f"staircase, gauss {q_default} nodes, value + gradient",
         lambda: corr_log_omit_prob(alpha, N0, N1, gamma, return_grad=True)),
        ("staircase, simpson 21 nodes (thesis)",
         lambda: corr_log_omit_prob(alpha, N0, N1, gamma, 21, "simpson")),
        ("staircase, simpson 161 nodes",
         lambda: corr_log_omit_prob(alpha, N0, N1, gamma, 161, "simpson")),
        ("staircase, simpson 321 nodes",
         lambda: corr_log_omit_prob(alpha, N0, N1, gamma, 321, "simpson")),
        (f"mask O(n0 n1), gauss {q_default} nodes",
         lambda: mask_algorithm(alpha, N0, N1, gamma, "gauss", q_default)),
    ]
    ref_fast = corr_log_omit_prob(alpha, N0, N1, gamma)
    ref_mask = mask_algorithm(alpha, N0, N1, gamma, "gauss", q_default)
    agree = float(np.max(np.abs(ref_fast - ref_mask)))
    timings = [(name, best_time(fn) / K) for name, fn in variants]
    base = timings[0][1]
    add("## Time per alpha value (gamma = 0.13)\n")
    add("| variant | ms per alpha | ratio to default |")
    add("|---|---|---|")
    for name, t in timings:
        add(f"| {name} | {1e3 * t:.3f} | {t / base:.2f} |")
    add(f"\nStaircase and mask algorithms agree to {agree:.1e} in log P_keep.")
    big = 1000
    t_big = best_time(lambda: corr_log_omit_prob(alpha, big, big, 0.05)) / K
    add(f"At n0 = n1 = {big} (gamma = 0.05, {default_n_theta(2 * big)} gauss nodes): "
        f"{1e3 * t_big:.2f} ms per alpha, {t_big / base:.1f} x the n = 200 default.\n")

    # ---- 2. accuracy ----------------------------------------------------------------------
    add("## Accuracy of the theta rule\n")
    add("Error = (p - k) [log P_keep(rule) - log P_keep(converged)], in nats, over the K = 30 "
        "grid; converged = mapped Gauss with 3 x the default nodes (it agrees with 2001-point "
        "Simpson and with the spec 4.8 table to its printed digits). 'max' = max |error|; "
        "'tilt' = max - min of the error, which is what shifts the alpha posterior. "
        "Requirement (issue 7): below 0.05 nats.\n")
    rules = [("simpson", q) for q in (21, 41, 81, 161, 321)] + \
        [("gauss", q) for q in (24, 32, 48, 64, q_default)]
    header = "| rule | nodes | " + " | ".join(
        f"max, gamma={g} (k={k}) | tilt" for g, k in GAMMAS.items()) + " |"
    add(header)
    add("|---|---|" + "---|---|" * len(GAMMAS))
    conv = {g: corr_log_omit_prob(alpha, N0, N1, g, 3 * q_default) for g in GAMMAS}
    for rule, q in rules:
        cells = []
        for g, k in GAMMAS.items():
            err = (P - k) * (corr_log_omit_prob(alpha, N0, N1, g, q, rule) - conv[g])
            cells.append(f"{np.max(np.abs(err)):.2e} | {err.max() - err.min():.2e}")
        tag = " (thesis)" if (rule, q) == ("simpson", 21) else \
            (" (default)" if (rule, q) == ("gauss", q_default) else "")
        add(f"| {rule}{tag} | {q} | " + " | ".join(cells) + " |")
    err21 = (P - 1000) * (corr_log_omit_prob(alpha, N0, N1, 0.13, 21, "simpson") - conv[0.13])
    i60, i_top = int(np.argmin(np.abs(alpha - 60.1))), K - 1
    add("")
    add(f"Check against spec 3.5 (21-point Simpson, gamma = 0.13, p - k = 9000): error "
        f"{err21[i60]:+.2f} nats at alpha = {alpha[i60]:.1f} and {err21[i_top]:+.2f} at alpha = "
        f"{alpha[i_top]:.0f} (spec: +11.5 and +0.9); the largest error on the grid is "
        f"{err21.max():+.2f} at alpha = {alpha[int(np.argmax(err21))]:.2f}.\n")
    add("Reading: plain Simpson converges algebraically (error / 16 per doubling) and needs "
        ">= 161 points for the 0.05-nat requirement at gamma = 0.13 (spec 3.5). The mapped "
        "Gauss rule (theta = sin^2(pi u / 2)) converges spectrally: round-off level from 64 "
        "nodes (about 4.5 sqrt(n)), where Simpson with 321 nodes still errs by 2e-3 nats. The "
        f"default ({q_default} = 8 sqrt(n) nodes) keeps a margin for other (n0, n1, gamma) "
        "and costs no more than 161-point Simpson.")
    out = Path(__file__).parent / "results" / "corr_adjustment.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
