"""What the plug-in mode search costs: two changes of 2026-12-07 against the code before them,
within one run.

Each mode search of the plug-in (once per df of the t prior's grid, in every inner fold and at
every k of the inner cross-validation: about 300 per default fit) maximises over log tau_mu
the class means' density of every kept gene (the t prior's lambda_j integrated out over
quadrature nodes) plus the selection factor (p - k) log P(F <= gamma | tau_mu w_x) (Li 2009,
eqs 13-15). The variants:

- ``before``: the factor evaluated exactly on 481 points of log tau_mu 0.05 apart and
  interpolated by a cubic spline; the class means' density by the G-class formula;
- ``table``: the factor from the exact adjustment's table in log t, built once for the six
  df (its costly part, a tabulation in log t, is the same for all) and integrated at the
  points each search visits (``_gaussian_plugin._omission_factors``);
- ``now``: ``table``, and with two classes and the flat prior on the gene means (the
  default's case) the density of the one contrast xbar_1 - xbar_2 ~ N(0, d_1 + d_2) instead
  of the G-class formula (one log per node instead of three).

On the real X of four development sets (a random 80% of the cases, standardised, the k genes
of largest F) it measures the seconds of ``_t_df_mode`` (six searches) with each; each mode's
distance from a reference (Brent's method at ``xtol`` 1e-10, the current code) and whether
each chooses the reference's df; and the default stack's fit time on each set with
``before`` and ``now`` (alternating; ratio within the run), with whether its choices (k, df,
label noise, weights) and probabilities change.

Run: ``python benchmarks/bench_mode_search_cost.py [--quick]`` (writes
benchmarks/results/mode_search_cost.md).
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
from bench_mode_search import fold, plan, search, training_cases

import selbayes.models._gaussian_plugin as plugin
from selbayes import HierarchicalGaussianClassifier
from selbayes.datasets import load_dataset
from selbayes.estimators import LinearStackedClassifier
from selbayes.models import T_DF_GRID, GaussianPriors

OUT = Path(__file__).resolve().parent / "results" / "mode_search_cost.md"
_EXACT = plugin._omission_factors
_CONTRAST = plugin._contrast_log_density
VARIANTS = ("before", "table", "now")


def _spline_factors(selection, counts, priors, dfs):
    """The factor as the mode search had it until 2026-12-07: for each df, the exact
    adjustment on a grid of log tau_mu from -10 to 14, 0.05 apart, interpolated by a cubic
    spline."""
    from scipy.interpolate import CubicSpline

    from selbayes.adjustment import fstat_log_omit_prob

    fine = np.arange(-10.0, 14.0 + 1e-9, 0.05)
    out = {}
    for df in dfs:
        vals = selection.n_omitted * fstat_log_omit_prob(
            fine + np.log(priors.w_x), counts.astype(np.int64), selection.threshold,
            priors.alpha_x, mu_t_df=df)
        spline = CubicSpline(fine, vals)
        out[df] = lambda u, spline=spline: spline(np.clip(u, -10.0, 14.0))
    return out


@contextlib.contextmanager
def variant(how: str):
    """The plug-in module as it was (``before``), with the table only (``table``), or now."""
    plugin._omission_factors = _spline_factors if how == "before" else _EXACT
    # before the two-class form, the G-class formula did every G (it still does G > 2)
    plugin._contrast_log_density = _CONTRAST if how == "now" else plugin._node_log_density
    try:
        yield
    finally:
        plugin._omission_factors, plugin._contrast_log_density = _EXACT, _CONTRAST


def one_search(stats, how: str, reference: bool = False):
    priors = GaussianPriors(mu_t_df_grid=T_DF_GRID, alpha_nu=None)      # flat prior on nu
    with variant(how), search("reference" if reference else "brent"):
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
    with variant(how), warnings.catch_warnings():
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
    sets, ks = plan(a.quick)
    command = "python benchmarks/bench_mode_search_cost.py" + (" --quick" if a.quick else "")
    rows, ratios = [], {"table": [], "now": []}
    for name in sets:
        X, y = training_cases(name)
        G = int(y.max()) + 1
        for k in ks:
            if k >= X.shape[1]:
                continue
            stats = fold(X, y, k)
            ref_u, ref_df, _ = one_search(stats, "now", reference=True)
            res = {}
            for how in VARIANTS:
                one_search(stats, how)                   # warm: the first call's setup
                res[how] = min((one_search(stats, how) for _ in range(3)), key=lambda r: r[2])
            for how in ratios:
                ratios[how].append(res[how][2] / res["before"][2])
            same = "yes" if all(r[1] == ref_df for r in res.values()) else "no"
            rows.append(f"| {name} | {G} | {k} | "
                        + " | ".join(f"{res[h][2]:.3f}" for h in VARIANTS)
                        + f" | {res['now'][2] / res['before'][2]:.2f} | "
                        + " | ".join(f"{abs(res[h][0] - ref_u):.1e}" for h in VARIANTS)
                        + f" | {same} |")
            print(rows[-1], flush=True)
    stack_rows, fit_ratios = [], []
    for name in sets:
        stack_fit(name, "now")                            # compiles and warms
        runs = {"before": [], "now": []}
        for how in (("before", "now") if a.quick else ("before", "now") * 2):
            runs[how].append(stack_fit(name, how))
            print(name, how, f"{runs[how][-1][0]:.1f} s", flush=True)
        bf, nw = runs["before"], runs["now"]
        ratio = np.mean([r[0] for r in nw]) / np.mean([r[0] for r in bf])
        fit_ratios.append(ratio)
        same = "yes" if bf[0][1] == nw[0][1] else f"no: {bf[0][1]} / {nw[0][1]}"
        stack_rows.append(
            f"| {name} | " + ", ".join(f"{r[0]:.1f}" for r in bf) + " | "
            + ", ".join(f"{r[0]:.1f}" for r in nw) + f" | {ratio:.2f} | {same} | "
            f"{np.abs(bf[0][2] - nw[0][2]).max():.1e} |")
        print(stack_rows[-1], flush=True)
    lines = ["# What the plug-in mode search costs: before and after 2026-12-07", "",
             run_line(command, t_start), "",
             "Each row: `_t_df_mode` (the mode of log tau_mu for each of the t prior's six df, "
             "flat prior on the gene means, the selection correction on, Brent's method) on "
             "the k genes of largest F of a random 80% of a development set's cases (G "
             "classes), standardised; seconds: the fastest of three calls; before: the "
             "selection factor by a spline of 481 exact values and the G-class density; "
             "table: the factor from the exact table; now: the table and, with two classes, "
             "the contrast's density (module docstring); |u - ref|: the distance in log "
             "tau_mu of the chosen df's mode from Brent's method at xtol 1e-10 (current code).",
             "",
             "| data set | G | k | seconds, before | seconds, table | seconds, now | ratio now / "
             "before | \\|u - ref\\|, before | \\|u - ref\\|, table | \\|u - ref\\|, now | "
             "same df |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|", *rows, "",
             "Median ratio of seconds to before: table "
             f"{np.median(ratios['table']):.2f}, now {np.median(ratios['now']):.2f}.", "",
             "The default stack (`LinearStackedClassifier()`, `random_state=0`) fitted on the "
             "first 75% of each set's cases (seeded shuffle 55900), compiled models cached, "
             "alternating before and now; the same choices: k, the t prior's df, the "
             "label-noise share and the stacking weights; the last column: the largest "
             "difference of the predicted probabilities of the other 25%.", "",
             "| data set | seconds, before | seconds, now | ratio of the means | "
             "same choices | max \\|p difference\\| |",
             "|---|---|---|---:|---|---:|", *stack_rows, "",
             f"Median ratio of the stack's fit time: {np.median(fit_ratios):.2f}."]
    write_results(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
