"""R-hat of many components judged together: false alarms and power (writes results.md).

Usage (from the repository root): ``python reports/rhat_many_components/run.py`` (about 4
minutes on 2 cores). Converged chains are stationary AR(1) series (4 chains x 1000 draws,
unit variance, autocorrelation phi); a problem is planted by moving one chain of a component
by delta posterior standard deviations. Each family of components is checked twice with
:func:`selbayes.evaluation.check`: the plain rule (R-hat > 1.01 for any component,
``rhat_components=False``) and the rule judging the components together (the default).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from selbayes.evaluation import check

HERE = Path(__file__).resolve().parent
SEED = 57940


def stationary_ar1(rng, M, chains, draws, phi):
    x = np.empty((M, chains, draws))
    x[..., 0] = rng.normal(size=(M, chains))
    e = rng.normal(size=(M, chains, draws)) * np.sqrt(1 - phi ** 2)
    for t in range(1, draws):
        x[..., t] = phi * x[..., t - 1] + e[..., t]
    return x


def family(x):
    return xr.Dataset({"tau_x": (("chain", "draw", "feature"), np.moveaxis(x, 0, 2))})


def main() -> None:
    rng = np.random.default_rng(SEED)
    lines = ["# R-hat of many components: false alarms and power (made by run.py)", "",
             f"Seed {SEED}; 4 chains x 1000 draws; stationary AR(1) chains.", "",
             "## Converged chains: fits with some component failing R-hat", "",
             "| phi | total ESS (about) | components | fits | plain rule fails | judged together "
             "fails | median bar |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for M in (20, 2000):
        for phi in (0.0, 0.5, 0.6, 0.7, 0.8):
            fits, plain, together, bars = 20, 0, 0, []
            for _ in range(fits):
                post = family(stationary_ar1(rng, M, 4, 1000, phi))
                plain += not check(post, rhat_components=False, warn=False)["rhat_ok"].all()
                t = check(post, warn=False)
                together += not t["rhat_ok"].all()
                bars.append(t["rhat_limit"].median())
            ess = 4000 * (1 - phi) / (1 + phi)
            lines.append(f"| {phi:g} | {ess:.0f} | {M} | {fits} | {plain} | {together} | "
                         f"{np.median(bars):.4f} |")
            print(lines[-1], flush=True)
    lines += ["", "## A chain elsewhere: the planted components flagged (phi 0.6)", "",
              "| components | one chain moved by (SD) | planted | plain rule flags | judged "
              "together flags |", "|---:|---:|---:|---:|---:|"]
    for M in (1, 20, 2000):
        for delta in (0.3, 0.5, 1.0):
            planted, plain, together = 0, 0, 0
            for _ in range(10):
                x = stationary_ar1(rng, M, 4, 1000, 0.6)
                k = min(3, M)
                x[:k, 1] += delta
                post = family(x)
                planted += k
                plain += int((~check(post, rhat_components=False, warn=False)["rhat_ok"]
                              .values[:k]).sum())
                together += int((~check(post, warn=False)["rhat_ok"].values[:k]).sum())
            lines.append(f"| {M} | {delta:g} | {planted} | {plain} | {together} |")
            print(lines[-1], flush=True)
    x = stationary_ar1(rng, 2000, 4, 1000, 0.6)
    x[:, 1] += 0.5
    t = check(family(x), warn=False)
    lines += ["", f"One chain of every one of 2000 components moved by 0.5 SD: "
              f"{int((~t['rhat_ok']).sum())} of 2000 flagged judged together "
              f"(median R-hat {t['rhat'].median():.4f}, "
              f"median bar {t['rhat_limit'].median():.4f})."]
    (HERE / "results.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
