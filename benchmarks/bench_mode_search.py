"""The plug-in mode search over (log tau_mu, the t prior's df): Brent's method against the
Nelder-Mead search it replaced on 2026-12-06, within one run.

With standardised (centred) genes the prior on the gene means is flat and the mode search is
one-dimensional in log tau_mu, once per df of the t prior's grid (1 to 64), in every inner
fold and at every k of the inner cross-validation: about 300 searches per default fit. Until
2026-12-06 each was a Nelder-Mead search (``xatol`` 1e-4, ``fatol`` 1e-6); now it is Brent's
method (``xtol`` 1e-5) from a bracket around the same start. This measures, on the real X of
four development sets (a random 80% of the cases, standardised, the k genes of largest F):

- objective evaluations and seconds of ``_t_df_mode`` (the six searches and the shared setup)
  with each optimiser, the old one emulated here by wrapping ``scipy.optimize.minimize_scalar``;
- each mode's distance from a reference found by Brent's method at ``xtol`` 1e-10;
- whether both choose the same df;
- the default stack's fit time on one set with each optimiser (ratio within the run).

Run: ``python benchmarks/bench_mode_search.py [--quick]`` (writes
benchmarks/results/mode_search.md).
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
from scipy import optimize

import selbayes.models._gaussian_plugin as plugin
from selbayes import HierarchicalGaussianClassifier, select_features
from selbayes.datasets import load_dataset
from selbayes.estimators import LinearStackedClassifier
from selbayes.models import T_DF_GRID, GaussianPriors

OUT = Path(__file__).resolve().parent / "results" / "mode_search.md"
_BRENT = optimize.minimize_scalar


class _Counting:
    """``scipy.optimize`` as the plug-in module sees it, with ``minimize_scalar`` replaced by
    the search named ``how`` and every objective evaluation counted."""

    def __init__(self, how: str):
        self.how, self.evaluations = how, 0

    def __getattr__(self, name):
        return getattr(optimize, name)

    def minimize_scalar(self, fun, bracket, method, options):
        def counted(u):
            self.evaluations += 1
            return fun(u)

        if self.how == "brent":
            return _BRENT(counted, bracket=bracket, method=method, options=options)
        if self.how == "reference":
            return _BRENT(counted, bracket=bracket, method="brent", options={"xtol": 1e-10})
        # the search until 2026-12-06: Nelder-Mead on the one coordinate, from the same start
        start = 0.5 * (bracket[0] + bracket[1])
        res = optimize.minimize(lambda x: counted(float(x[0])), x0=[start],
                                method="Nelder-Mead", options={"xatol": 1e-4, "fatol": 1e-6})
        return optimize.OptimizeResult(x=float(res.x[0]), fun=float(res.fun))


@contextlib.contextmanager
def search(how: str):
    counting = _Counting(how)
    plugin.optimize = counting
    try:
        yield counting
    finally:
        plugin.optimize = optimize


def plan(quick: bool):
    """The development sets and k of the mode-search benchmarks (this one and
    bench_mode_search_cost.py): one set and two k with ``quick``."""
    if quick:
        return ["gravier"], (5, 500)
    return ["chowdary", "golub", "gravier", "sorlie"], (5, 50, 500, 2000)


def training_cases(name: str, seed: int = 0):
    """A random 80% of a set's cases: X (n, p) and class indices (n,)."""
    d = load_dataset(name)
    X, y = d.X.to_numpy(float), np.unique(d.y.to_numpy(), return_inverse=True)[1]
    idx = np.random.default_rng(seed).permutation(y.size)[: int(0.8 * y.size)]
    return X[idx], y[idx]


def fold(X, y, k: int):
    """Sufficient statistics of the k genes of largest F of (X, y), standardised."""
    sel = select_features(X, y, k=k)
    Xs = X[:, sel.indices]
    Xs = (Xs - Xs.mean(0)) / Xs.std(0)
    counts, xbar, ssw = plugin.sufficient_statistics(Xs, y, int(y.max()) + 1)
    return xbar, ssw, counts.astype(np.float64), sel


def one_search(stats, how: str):
    priors = GaussianPriors(mu_t_df_grid=T_DF_GRID, alpha_nu=None)      # flat prior on nu
    with search(how) as counting:
        t0 = time.perf_counter()
        (u, _), df, _ = plugin._t_df_mode(*stats, priors, True)
        sec = time.perf_counter() - t0
    return u, df, counting.evaluations, sec


def stack_seconds(name: str, how: str) -> float:
    d = load_dataset(name)
    X, y = d.X.to_numpy(float), d.y.to_numpy()
    clf = LinearStackedClassifier(HierarchicalGaussianClassifier(random_state=0,
                                                                 progressbar=False))
    with search(how), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        clf.fit(X, y)
        return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one set, two k, no stack fits")
    a = ap.parse_args(argv)
    t_start = time.perf_counter()
    sets, ks = plan(a.quick)
    command = "python benchmarks/bench_mode_search.py" + (" --quick" if a.quick else "")
    rows, ratios = [], []
    for name in sets:
        X, y = training_cases(name)
        for k in ks:
            if k >= X.shape[1]:
                continue                                   # k beyond the set's genes
            stats = fold(X, y, k)
            ref_u, ref_df, _, _ = one_search(stats, "reference")
            one_search(stats, "nelder-mead")               # warm: the first call's setup
            nm = one_search(stats, "nelder-mead")
            br = one_search(stats, "brent")
            ratios.append(br[3] / nm[3])
            same = "yes" if nm[1] == br[1] == ref_df else "no"
            rows.append(f"| {name} | {k} | {nm[2]} | {br[2]} | {nm[3]:.3f} | {br[3]:.3f} | "
                        f"{br[3] / nm[3]:.2f} | {abs(nm[0] - ref_u):.1e} | "
                        f"{abs(br[0] - ref_u):.1e} | {same} |")
            print(rows[-1], flush=True)
    stack = []
    if not a.quick:
        stack_seconds("chowdary", "brent")                # compiles and warms
        for how in ("nelder-mead", "brent", "nelder-mead", "brent"):
            stack.append((how, stack_seconds("chowdary", how)))
            print(stack[-1], flush=True)
    lines = ["# The plug-in mode search: Brent's method against Nelder-Mead", "",
             run_line(command, t_start), "",
             "Each row: `_t_df_mode` (the mode of log tau_mu for each of the t prior's six df, "
             "flat prior on the gene means, the selection correction on) on the k genes of "
             "largest F of a random 80% of a development set's cases, standardised. "
             "Evaluations: of the objective, all six searches; seconds: the whole call "
             "(with the coarse grid and the selection factor's table, which both share); "
             "|u - ref|: the distance in log tau_mu of the df chosen from Brent's method at "
             "xtol 1e-10.", "",
             "| data set | k | evaluations, Nelder-Mead | evaluations, Brent | seconds, "
             "Nelder-Mead | seconds, Brent | ratio | \\|u - ref\\|, Nelder-Mead | "
             "\\|u - ref\\|, Brent | same df |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|", *rows, "",
             f"Median ratio of seconds (Brent / Nelder-Mead): {np.median(ratios):.2f}."]
    if stack:
        nm = [s for h, s in stack if h == "nelder-mead"]
        br = [s for h, s in stack if h == "brent"]
        lines += ["", "The default stack's fit on all of chowdary (104 cases, 22 283 genes), "
                  "compiled models cached, alternating: Nelder-Mead "
                  + ", ".join(f"{s:.1f}" for s in nm) + " s; Brent "
                  + ", ".join(f"{s:.1f}" for s in br) + " s; ratio of the means "
                  f"{np.mean(br) / np.mean(nm):.2f}."]
    write_results(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
