"""Expected minus actual error on the eleven development sets, against the scatter a
calibrated predictor shows, and the chance that a calibrated predictor meets
"|expected - actual| <= 0.05 on every set".

Reads committed out-of-fold test cases (``cases.csv`` of the benchmark folders named below;
5 folds, 1 repeat, seed 0: the same folds for every method) and writes ``report.md`` beside
this file. No fitting; seconds to run::

    python reports/calibration_gap/analysis.py

Under calibration of the top-label probabilities c_i, the number of right guesses on a set is
Poisson-binomial(c); the expected error mean(1 - c) is its mean and the actual error scatters
around it with standard deviation sqrt(sum c (1 - c)) / n (Li 2009, section 3.4, for the idea
of expected against actual error; the test is ``selbayes.evaluation.error_gap_test``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from selbayes.benchmark._report import gap_tests
from selbayes.evaluation._calibration import _poisson_binomial_pmf

HERE = Path(__file__).resolve().parent
REPORTS = HERE.parent
#: method name in the report -> (folder of reports/, method name in its cases.csv)
SOURCES = {
    "selbayes (default)": ("benchmark_microarray_noise_cv_2026-11-28", "selbayes_noise_cv"),
    "selbayes uncorrected": ("calibration_gap/peers", "selbayes_uncorrected"),
    "logreg_l2_cv": ("calibration_gap/peers", "logreg_l2_cv"),
    "logreg_l1_cv": ("calibration_gap/peers", "logreg_l1_cv"),
}
THRESHOLD = 0.05          # the per-set target on |expected - actual|
SIZES = (50, 75, 100, 150, 220)   # test-set sizes to ask about (the unseen sets: ~50 to 220)
N_SETS = 5                # unseen sets in the target
N_DRAWS = 4000            # Monte Carlo draws of confidence profiles per size
SEED = 0


def p_exceed(conf: np.ndarray, threshold: float = THRESHOLD) -> float:
    """P(|expected - actual error| > threshold) for a calibrated predictor with these
    top-label confidences (exact, Poisson-binomial)."""
    n = conf.size
    pmf = _poisson_binomial_pmf(conf)
    gap = (np.arange(n + 1) - conf.sum()) / n
    return float(pmf[np.abs(gap) > threshold + 1e-12].sum())


def load_cases() -> pd.DataFrame:
    parts = []
    for label, (folder, method) in SOURCES.items():
        path = REPORTS / folder / "cases.csv"
        if not path.exists():
            sys.exit(f"{path} is missing; see README.md for the command that writes it")
        c = pd.read_csv(path)
        c = c[c["method"] == method].assign(method=label)
        parts.append(c)
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    cases = load_cases()
    methods = list(SOURCES)
    tests = gap_tests(cases)
    default = cases[cases["method"] == methods[0]]
    L = ["# Expected minus actual error against a calibrated predictor's scatter", "",
         "Written by `python reports/calibration_gap/analysis.py` from committed out-of-fold "
         "cases (5 folds, 1 repeat, seed 0; the same folds for every method). Sources: "
         + "; ".join(f"{k}: `{f}/cases.csv` ({m})" for k, (f, m) in SOURCES.items()) + ".",
         "", "## 1. Each set: gap (z), * beyond chance (exact two-sided p < 0.05)", "",
         "| data set | n | " + " | ".join(methods) + " |",
         "|---|---:|" + "---:|" * len(methods)]
    wide = tests.set_index(["dataset", "method"])
    for d in sorted(tests["dataset"].unique()):
        cells = []
        for m in methods:
            r = wide.loc[(d, m)]
            cells.append(f"{r['gap']:+.3f} ({r['z']:+.1f}){'*' if r['p_value'] < 0.05 else ''}")
        L.append(f"| {d} | {int(wide.loc[(d, methods[0]), 'n'])} | " + " | ".join(cells) + " |")
    L += ["", "| method | mean \\|gap\\| | sets \\|gap\\| > 0.05 | beyond chance: "
          "overconfident | beyond chance: underconfident | sum of z^2 (chi^2, 11 df) |",
          "|---|---:|---:|---:|---:|---:|"]
    from scipy.stats import chi2
    for m in methods:
        t = tests[tests["method"] == m]
        zz = t["z"].to_numpy()
        zz = zz[np.isfinite(zz)]
        L.append(f"| {m} | {t['gap'].abs().mean():.3f} | {(t['gap'].abs() > THRESHOLD).sum()} "
                 f"| {((t['p_value'] < .05) & (t['gap'] < 0)).sum()} | "
                 f"{((t['p_value'] < .05) & (t['gap'] > 0)).sum()} | {np.sum(zz ** 2):.1f} "
                 f"(p = {chi2.sf(np.sum(zz ** 2), len(zz)):.2g}) |")

    L += ["", "## 2. How often a calibrated predictor misses 0.05 on a set", "",
          "Each set's own confidences (the default's out-of-fold top-label probabilities), with "
          "the labels drawn from them: P(|expected - actual| > 0.05), exact.", "",
          "| data set | n | SD of the gap under calibration | P(\\|gap\\| > 0.05) |",
          "|---|---:|---:|---:|"]
    profiles = {}
    pass_all = 1.0
    for d, g in default.groupby("dataset", sort=True):
        conf = g["confidence"].to_numpy(dtype=float)
        profiles[d] = conf
        pe = p_exceed(conf)
        pass_all *= 1 - pe
        sd = np.sqrt(np.sum(conf * (1 - conf))) / conf.size
        L.append(f"| {d} | {conf.size} | {sd:.3f} | {pe:.3f} |")
    L += ["", f"A calibrated predictor with these confidences meets the target on all "
          f"{len(profiles)} sets with probability **{pass_all:.2f}**."]

    rng = np.random.default_rng(SEED)
    L += ["", f"## 3. The target on {N_SETS} new sets of a given size", "",
          f"Sets of n cases whose confidences are drawn (with replacement) from the profile of "
          f"one of the eleven sets, chosen at random for each set; {N_DRAWS} draws per n, seed "
          f"{SEED}. P(pass one): a calibrated predictor meets |gap| <= 0.05 on one such set; "
          f"P(pass all {N_SETS}): on {N_SETS} independent ones.", "",
          f"| n | P(pass one) | P(pass all {N_SETS}) |", "|---:|---:|---:|"]
    names = list(profiles)
    for n in SIZES:
        passes = np.empty(N_DRAWS)
        for i in range(N_DRAWS):
            conf = rng.choice(profiles[names[rng.integers(len(names))]], size=n)
            passes[i] = 1 - p_exceed(conf)
        one = passes.mean()
        # all N_SETS pass: mean over draws of the product of N_SETS independent passes
        groups = passes[: N_DRAWS - N_DRAWS % N_SETS].reshape(-1, N_SETS).prod(axis=1)
        L.append(f"| {n} | {one:.2f} | {groups.mean():.2f} ± "
                 f"{groups.std(ddof=1) / np.sqrt(groups.size):.2f} |")
    (HERE / "report.md").write_text("\n".join(L) + "\n")
    print("\n".join(L))


if __name__ == "__main__":
    main()
