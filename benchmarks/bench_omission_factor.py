"""The selection factor in the plug-in mode search: the exact table against the cubic spline
it replaced on 2026-12-07, within one run.

The corrected plug-in's mode of log tau_mu carries (p - k) log P(F <= gamma | tau_mu w_x)
(Li 2009, eqs 13-15). Until 2026-12-07 each mode search (once per df of the t prior's grid,
in every inner fold and at every k of the inner cross-validation: about 300 per default fit)
evaluated the exact adjustment on 481 points of log tau_mu 0.05 apart and interpolated them
by a cubic spline; now it builds the exact adjustment's table in log t once and integrates
over it at the points the search visits (``selbayes.models._gaussian_plugin._omission_factor``).
This measures, on the real X of four development sets (a random 80% of the cases,
standardised, the k genes of largest F):

- the seconds of ``_t_df_mode`` (six searches, the t prior's df grid) with each;
- each mode's distance from a reference found by Brent's method at ``xtol`` 1e-10 with the
  exact factor, and whether both choose the reference's df;
- the default stack's fit time on one set with each (alternating; ratio within the run), and
  whether its choices (k, df, label noise, weights) and probabilities change.

Run: ``python benchmarks/bench_omission_factor.py [--quick]`` (writes
benchmarks/results/omission_factor.md).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from _notes import run_line, write_results
from bench_mode_search import fold, search, training_cases

import selbayes.models._gaussian_plugin as plugin
from selbayes import HierarchicalGaussianClassifier
from selbayes.datasets import load_dataset
from selbayes.estimators import LinearStackedClassifier
from selbayes.models import T_DF_GRID, GaussianPriors

OUT = Path(__file__).resolve().parent / "results" / "omission_factor.md"
_EXACT = plugin._omission_factor


def _spline_factor(selection, counts, priors, mu_t_df):
    """The factor as the mode search had it until 2026-12-07: the exact adjustment on a grid
    of log tau_mu from -10 to 14, 0.05 apart, interpolated by a cubic spline."""
    from scipy.interpolate import CubicSpline

    from selbayes.adjustment import fstat_log_omit_prob

    fine = np.arange(-10.0, 14.0 + 1e-9, 0.05)
    vals = selection.n_omitted * fstat_log_omit_prob(
        fine + np.log(priors.w_x), counts.astype(np.int64), selection.threshold,
        priors.alpha_x, mu_t_df=mu_t_df)
    spline = CubicSpline(fine, vals)
    return lambda u: spline(np.clip(u, -10.0, 14.0))


@contextlib.contextmanager
def factor(how: str):
    plugin._omission_factor = _spline_factor if how == "spline" else _EXACT
    try:
        yield
    finally:
        plugin._omission_factor = _EXACT


def one_search(stats, how: str, reference: bool = False):
    priors = GaussianPriors(mu_t_df_grid=T_DF_GRID, alpha_nu=None)      # flat prior on nu
    with factor(how), search("reference" if reference else "brent"):
        t0 = time.perf_counter()
        (u, _), df, _ = plugin._t_df_mode(*stats, priors, True)
        return u, df, time.perf_counter() - t0


def stack_fit(name: str, how: str):
    """Seconds of the default stack's fit on a set's first 75% of cases (a seeded shuffle),
    and its probabilities of the other 25%."""
    d = load_dataset(name)
    X, y = d.X.to_numpy(float), d.y.to_numpy()
    idx = np.random.default_rng(55900).permutation(y.size)
    tr, te = idx[: int(0.75 * y.size)], idx[int(0.75 * y.size):]
    clf = LinearStackedClassifier(HierarchicalGaussianClassifier(random_state=0,
                                                                 progressbar=False))
    with factor(how), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        clf.fit(X[tr], y[tr])
        sec = time.perf_counter() - t0
        proba = clf.predict_proba(X[te])
    choice = (clf.k_, clf.t_df_, clf.label_noise_, tuple(np.round(clf.weights_, 12)))
    return sec, choice, proba


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one set, two k, one stack fit each")
    a = ap.parse_args(argv)
    t_start = time.perf_counter()
    sets = ["gravier"] if a.quick else ["chowdary", "golub", "gravier", "sorlie"]
    ks = (5, 500) if a.quick else (5, 50, 500, 2000)
    command = "python benchmarks/bench_omission_factor.py" + (" --quick" if a.quick else "")
    rows, ratios = [], []
    for name in sets:
        X, y = training_cases(name)
        for k in ks:
            if k >= X.shape[1]:
                continue
            stats = fold(X, y, k)
            ref_u, ref_df, _ = one_search(stats, "exact", reference=True)
            one_search(stats, "spline")                  # warm: the first call's setup
            sp = min((one_search(stats, "spline") for _ in range(3)), key=lambda r: r[2])
            ex = min((one_search(stats, "exact") for _ in range(3)), key=lambda r: r[2])
            ratios.append(ex[2] / sp[2])
            same = "yes" if sp[1] == ex[1] == ref_df else "no"
            rows.append(f"| {name} | {k} | {sp[2]:.3f} | {ex[2]:.3f} | {ex[2] / sp[2]:.2f} | "
                        f"{abs(sp[0] - ref_u):.1e} | {abs(ex[0] - ref_u):.1e} | {same} |")
            print(rows[-1], flush=True)
    stack_sets = ["gravier"] if a.quick else ["chowdary", "golub", "gravier", "sorlie"]
    stack_rows, fit_ratios = [], []
    for name in stack_sets:
        stack_fit(name, "exact")                          # compiles and warms
        runs = {"spline": [], "exact": []}
        for how in (("spline", "exact") if a.quick else ("spline", "exact") * 2):
            runs[how].append(stack_fit(name, how))
            print(name, how, f"{runs[how][-1][0]:.1f} s", flush=True)
        sp, ex = runs["spline"], runs["exact"]
        ratio = np.mean([r[0] for r in ex]) / np.mean([r[0] for r in sp])
        fit_ratios.append(ratio)
        same = "yes" if sp[0][1] == ex[0][1] else f"no: {sp[0][1]} / {ex[0][1]}"
        stack_rows.append(
            f"| {name} | " + ", ".join(f"{r[0]:.1f}" for r in sp) + " | "
            + ", ".join(f"{r[0]:.1f}" for r in ex) + f" | {ratio:.2f} | {same} | "
            f"{np.abs(sp[0][2] - ex[0][2]).max():.1e} |")
        print(stack_rows[-1], flush=True)
    lines = ["# The selection factor in the plug-in mode search: exact table against spline", "",
             run_line(command, t_start), "",
             "Each row: `_t_df_mode` (the mode of log tau_mu for each of the t prior's six df, "
             "flat prior on the gene means, the selection correction on, Brent's method) on "
             "the k genes of largest F of a random 80% of a development set's cases, "
             "standardised; seconds: the fastest of three calls; |u - ref|: the distance in "
             "log tau_mu of the chosen df's mode from Brent's method at xtol 1e-10 with the "
             "exact factor.", "",
             "| data set | k | seconds, spline | seconds, exact table | ratio | "
             "\\|u - ref\\|, spline | \\|u - ref\\|, exact table | same df |",
             "|---|---:|---:|---:|---:|---:|---:|---|", *rows, "",
             f"Median ratio of seconds (exact table / spline): {np.median(ratios):.2f}.", "",
             "The default stack (`LinearStackedClassifier()`, `random_state=0`) fitted on the "
             "first 75% of each set's cases (seeded shuffle 55900), compiled models cached, "
             "alternating spline and exact table; the same choices: k, the t prior's df, the "
             "label-noise share and the stacking weights; the last column: the largest "
             "difference of the predicted probabilities of the other 25%.", "",
             "| data set | seconds, spline | seconds, exact table | ratio of the means | "
             "same choices | max \\|p difference\\| |",
             "|---|---|---|---:|---|---:|", *stack_rows, "",
             f"Median ratio of the stack's fit time: {np.median(fit_ratios):.2f}."]
    write_results(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
