"""After the finding (a look, deciding nothing): the default against the scenario's
Bayes-optimal predictor and against that predictor given the effect scale estimated from the
training cases (the truth's two-groups form and share kept; the effect sd set so that the
unbiased moment estimate of the class differences' variance is its variance), on
sim_dense_weak replicates. Prints one line per replicate and the means.

Run from the repository root: ``python reports/plasmode/simulations_vs_oracle/eb_look.py``
(the replicates of this measurement and of ``../k_grid_clip/``; seconds; with
``--seed-sets``, the moment estimate over other replicate sets instead), or import
``estimated_scale_rows`` (``follow_up.py`` does).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows, diff_text)
import probe  # noqa: E402  (reports/plasmode/probe.py: bayes_optimal_proba)

SETS = ((HERE / "results.jsonl", 25900, "selbayes"),
        (HERE.parent / "k_grid_clip" / "results.jsonl", 17900, "selbayes_k_grid_clip"))


def moment_variance(X, y) -> float:
    """The unbiased moment estimate of the variance of the genes' class-mean differences:
    the mean over genes of d_j^2 - s_j^2 (1/n_1 + 1/n_0) (d_j the difference of the class
    means, s_j^2 the pooled within-class variance)."""
    X, y = np.asarray(X, float), np.asarray(y)
    a, b = X[y == 1], X[y == 0]
    d = a.mean(0) - b.mean(0)
    s2 = (((a - a.mean(0)) ** 2).sum(0) + ((b - b.mean(0)) ** 2).sum(0)) / (len(y) - 2)
    return float(np.mean(d ** 2 - s2 * (1 / len(a) + 1 / len(b))))


def estimated_scale_rows(path, seed, method, name="sim_dense_weak", replicates=8) -> list:
    """Per replicate: the default's row, the Bayes-optimal predictor's scores, the
    estimated-scale reference's scores and the moment estimate."""
    from selbayes.experiments.plasmode import calibration_scores, make_replicate, scenario

    sc, rows, out = scenario(name), paired.read_rows(path), []
    for r in range(replicates):
        d = make_replicate(sc, seed + 1000 * r)
        v = max(moment_variance(d["X_train"], d["y_train"]), 1e-6)
        estimated = dataclasses.replace(sc, effect_sd=float(np.sqrt(v * sc.p / sc.n_effects)))
        scores = [calibration_scores(probe.bayes_optimal_proba(s, d), d["p_test"])
                  for s in (sc, estimated)]
        out.append({"default": rows[(method, name, r)], "oracle": scores[0],
                    "estimated_scale": scores[1], "moment_variance": v})
    return out


def summary(rows) -> list[str]:
    """The means and the default's paired differences to both references."""
    def col(who, key):
        return np.array([r[who][key] for r in rows])

    def pm(x):
        return paired.diff_text(x, star=False)

    v = np.mean([r["moment_variance"] for r in rows])
    lines = [f"moment estimate of the variance, mean {v:.4f} (truth 0.0072)"]
    for who in ("oracle", "estimated_scale"):
        lines.append(
            f"default - {who}: |e - a| {pm(col('default', 'abs_gap') - col(who, 'abs_gap'))}, "
            f"log slope {pm(np.log(col('default', 'slope')) - np.log(col(who, 'slope')))}, "
            f"KL {pm(col('default', 'kl') - col(who, 'kl'))}; means: slope "
            f"{col('default', 'slope').mean():.2f} against {col(who, 'slope').mean():.2f}, "
            f"|e - a| {col('default', 'abs_gap').mean():.3f} against "
            f"{col(who, 'abs_gap').mean():.3f}")
    return lines


#: data seeds of sim_dense_weak replicate sets of earlier runs and unused ones, for the scan
SEED_SETS = (0, 1, 7, 3900, 4900, 5900, 8900, 11900, 17900, 25900, 27900, 29900)


def seed_scan(name="sim_dense_weak", replicates=8) -> None:
    """The moment estimate's mean (± SE) over the eight replicates of each of
    :data:`SEED_SETS`, and over sixty further replicates (data seeds 90000 + 1000 r) beside
    the realised variance of their true class differences (the within-class variance of the
    test cases' true log odds, divided by p)."""
    from scipy.special import logit

    from selbayes.experiments.plasmode import make_replicate, scenario

    sc = scenario(name)
    for seed in SEED_SETS:
        m = [moment_variance(**_train(make_replicate(sc, seed + 1000 * r)))
             for r in range(replicates)]
        print(f"seed set {seed}: {np.mean(m):.5f} ± {np.std(m, ddof=1) / np.sqrt(len(m)):.5f}")
    est, real = [], []
    for r in range(60):
        d = make_replicate(sc, 90000 + 1000 * r)
        est.append(moment_variance(**_train(d)))
        z = logit(np.clip(d["p_test"][:, 1], 1e-15, 1 - 1e-15))
        real.append(np.mean([z[d["y_test"] == g].var() for g in (0, 1)]) / sc.p)
    print(f"sixty replicates: moment estimate {np.mean(est):.5f}, realised {np.mean(real):.5f}")


def _train(d) -> dict:
    return {"X": d["X_train"], "y": d["y_train"]}


def main() -> None:
    if "--seed-sets" in sys.argv:
        seed_scan()
        return
    for path, seed, method in SETS:
        rows = estimated_scale_rows(path, seed, method)
        for r, row in enumerate(rows):
            print(seed, r, f"k={row['default'].get('k')} v={row['moment_variance']:.4f}",
                  " ".join(f"{who} slope {row[who]['slope']:.2f} gap {row[who]['abs_gap']:.3f}"
                           for who in ("default", "estimated_scale", "oracle")))
        print("\n".join([f"seed {seed}:"] + summary(rows)))


if __name__ == "__main__":
    main()
