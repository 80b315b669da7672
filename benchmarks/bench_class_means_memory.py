"""Peak memory of the class-mean draws and the replicated F statistics of an MCMC fit.

Every MCMC fit of the hierarchical Gaussian classifier adds exact draws of the class means
``mu`` (chain, draw, k, G) to its posterior (:func:`selbayes.models.draw_class_means`) and
replicates the kept features' F statistics from them for ArviZ's predictive checks
(:func:`selbayes.models._gaussian_checks.replicated_f_statistics`). Written in one piece, each
held several temporaries the size of ``mu``; on 2026-11-28 a fit of the ten-class nakayama set
at k >= 10 000 (4 x 1000 draws: ``mu`` alone 3.2 GB) was killed for memory. Both now work in
blocks of draws (``max_bytes``, 200 MB by default) with identical values
(tests/models/test_gaussian_posterior.py, tests/models/test_gaussian_checks.py).

Measured: peak memory traced by ``tracemalloc`` (NumPy reports its buffers to it) while each
function runs on a synthetic posterior of 4 chains x 1000 draws, G = 10 classes, for each k;
"one block" is ``max_bytes=inf``, the computation in one piece as before. Reported in MB and
as a multiple of the size of ``mu`` (which the result itself must hold).

Run: ``.venv/bin/python benchmarks/bench_class_means_memory.py [--ks 500,2000]`` (writes
benchmarks/results/class_means_memory.md; ~1 minute, ~4 GB of memory at k = 2000).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import tracemalloc
from functools import partial
from pathlib import Path

import numpy as np
import xarray as xr

from selbayes.models import GaussianPriors
from selbayes.models._gaussian_checks import replicated_f_statistics
from selbayes.models._gaussian_posterior import draw_class_means

OUT = Path(__file__).resolve().parent / "results" / "class_means_memory.md"
CHAINS, DRAWS, G = 4, 1000, 10


def _peak(fn) -> float:
    """Peak memory (bytes) allocated while ``fn`` runs (tracing starts empty)."""
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return float(peak)


def measure(k: int, rng) -> list[dict]:
    post = xr.Dataset({
        "tau_mu": (("chain", "draw"), rng.gamma(2.0, 1.0, (CHAINS, DRAWS))),
        "tau_x": (("chain", "draw", "feature"), rng.gamma(3.0, 1.0, (CHAINS, DRAWS, k))),
        "lambda_mu": (("chain", "draw", "feature"), rng.gamma(1.0, 1.0, (CHAINS, DRAWS, k)))})
    data = {"xbar_obs": rng.normal(size=(k, G)), "class_counts": np.full(G, 10.0)}
    mu_mb = CHAINS * DRAWS * k * G * 8 / 1e6
    rows = []
    for label, max_bytes in (("one block (as before)", np.inf), ("blocks (default)", 2e8)):
        tree = {}

        def draw(max_bytes=max_bytes, tree=tree):
            tree["t"] = draw_class_means(xr.DataTree.from_dict({"posterior": post}), data,
                                         GaussianPriors(), random_state=0, max_bytes=max_bytes)

        peak_draw = _peak(draw)
        p = tree["t"]["posterior"]
        t = p["tau_x"].values.reshape(-1, k)
        m = p["mu"].values.reshape(-1, k, G)
        peak_f = _peak(partial(replicated_f_statistics, t, m,
                               data["class_counts"].astype(int), np.random.default_rng(1),
                               max_bytes=max_bytes))
        rows.append({"k": k, "how": label, "mu_mb": mu_mb, "draw_mb": peak_draw / 1e6,
                     "f_mb": peak_f / 1e6})
        del tree["t"], p, t, m
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ks", default="500,2000")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = [r for k in (int(x) for x in args.ks.split(",")) for r in measure(k, rng)]
    lines = [
        "# Peak memory of the class-mean draws and the replicated F statistics",
        "",
        f"`python benchmarks/bench_class_means_memory.py --ks {args.ks}`, "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}.",
        "",
        f"Synthetic posterior: {CHAINS} chains x {DRAWS} draws, G = {G} classes, t prior "
        "(lambda_mu drawn). Peak memory traced while the function runs, above what was "
        "allocated before; *x mu*: as a multiple of the size of the result `mu` "
        "(chain, draw, k, G), float64.",
        "",
        "| k | computation | size of mu (MB) | draw_class_means peak (MB) | x mu "
        "| replicated_f_statistics peak (MB) | x mu |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['k']} | {r['how']} | {r['mu_mb']:.0f} | {r['draw_mb']:.0f} | "
                     f"{r['draw_mb'] / r['mu_mb']:.2f} | {r['f_mb']:.0f} | "
                     f"{r['f_mb'] / r['mu_mb']:.2f} |")
    lines += ["", "The values are the same either way (tests/models/test_gaussian_posterior.py, "
              "tests/models/test_gaussian_checks.py); the posterior still holds `mu` itself, "
              "so a fit's memory grows with chains x draws x k x G (3.2 GB at k = 10 000, "
              "G = 10, 4 x 1000 draws)."]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
