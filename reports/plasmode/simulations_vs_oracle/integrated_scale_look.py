"""A look, deciding nothing: is |expected - actual| <= 0.02 reachable in sim_dense_weak by a
predictor that does not know the effect scale? The scenario's Bayes-optimal predictor with the
scale integrated over its posterior given the training cases (the truth's two-groups form and
share kept, a flat prior on log sd over [0.01, 1]), and with the scale at its posterior mode
(type-II maximum likelihood), beside the moment plug-in of ``eb_look.py``, the oracle and the
default, on the three replicate sets the default was measured on in sim_dense_weak. The
integrated predictive weighs each scale by its posterior given the training cases *and* the
test case's own genes (p(sd | D, x) is proportional to p(sd | D) p(x | D, sd), x being 2000
genes, not a negligible datum): P(y | x, D) = sum over sd of p(sd | D, x) P(y | x, D, sd).

Run from the repository root:
``python reports/plasmode/simulations_vs_oracle/integrated_scale_look.py`` (about a minute);
writes ``integrated_scale_look.md``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import paired  # noqa: E402  (reports/plasmode/paired.py)
from eb_look import SETS, estimated_scale_rows  # noqa: E402

FOLLOW_UP = (HERE / "follow_up" / "results.jsonl", 33900, "selbayes")
GRID = np.exp(np.linspace(np.log(0.01), np.log(1.0), 400))     # effect sd


def scale_posterior(sc, X, y) -> np.ndarray:
    """Posterior weights of :data:`GRID` given the training cases: with the class centres
    known (as in ``bayes_optimal_log_odds``) each gene's d_j = 2 (n1 m1j - n0 m0j) / n is
    N(0, 4 / n) or, with probability pi, N(0, sd^2 + 4 / n), independently over genes."""
    from scipy.stats import norm

    n1, n0 = int((y == 1).sum()), int((y == 0).sum())
    n = n1 + n0
    d = 2.0 * (n1 * X[y == 1].mean(0) - n0 * X[y == 0].mean(0)) / n
    v, pi = 4.0 / n, sc.n_effects / sc.p
    slab = norm.logpdf(d[None, :], 0.0, np.sqrt(GRID[:, None] ** 2 + v))
    null = norm.logpdf(d, 0.0, np.sqrt(v))[None, :]
    loglik = np.logaddexp(np.log(pi) + slab, np.log1p(-pi) + null).sum(axis=1)
    w = np.exp(loglik - loglik.max())
    return w / w.sum()


def references(sc, d) -> dict:
    """Scores of the integrated-scale and mode-scale predictors on one replicate."""
    from scipy.special import expit

    from selbayes.experiments.plasmode import bayes_optimal_log_densities, calibration_scores

    w = scale_posterior(sc, d["X_train"], d["y_train"])
    keep = np.flatnonzero(w > 1e-8 * w.max())

    def log_densities(sd):            # log p(x | y, D, sd), (cases, 2)
        return bayes_optimal_log_densities(dataclasses.replace(sc, effect_sd=float(sd)),
                                           d["X_train"], d["y_train"], d["X_test"])

    # log p(x, y | D, sd) for both classes at every kept scale, (scales, cases, 2)
    joint = np.stack([log_densities(GRID[i]) for i in keep]) + np.log(0.5)
    joint += np.log(w[keep])[:, None, None]
    post = joint - np.logaddexp.reduce(joint, axis=(0, 2), keepdims=True)
    p1 = np.exp(np.logaddexp.reduce(post[:, :, 1], axis=0))
    f = log_densities(GRID[np.argmax(w)])
    mode = expit(f[:, 1] - f[:, 0])
    out = {}
    for name, q in (("integrated", p1), ("mode", mode)):
        out[name] = calibration_scores(np.column_stack([1 - q, q]), d["p_test"])
    post_mean = float(np.sum(w * GRID))
    post_sd = float(np.sqrt(np.sum(w * GRID ** 2) - post_mean ** 2))
    out["sd_mean"], out["sd_sd"], out["sd_mode"] = post_mean, post_sd, float(GRID[np.argmax(w)])
    return out


def main() -> None:
    from selbayes.experiments.plasmode import make_replicate, scenario

    sc = scenario("sim_dense_weak")
    lines = ["# The effect scale integrated over (made by integrated_scale_look.py; a look)", "",
             f"sim_dense_weak (truth: effect sd {sc.effect_sd}, share {sc.n_effects / sc.p}). "
             "Means over each set's eight replicates; |e - a| and slope of the default, of the "
             "Bayes-optimal predictor with the scale integrated over its posterior, at the "
             "posterior mode, at the moment estimate (eb_look.py), and of the oracle (the "
             "true scale). Last column: the default minus the integrated reference, paired "
             "over replicates (* beyond 2 SE).", "",
             "| data seed | posterior sd of the effect sd (mean of replicates) | \\|e - a\\| "
             "default / integrated / mode / moment / oracle | slope (mean) default / "
             "integrated / mode / moment / oracle | default - integrated: \\|e - a\\| |",
             "|---:|---:|---:|---:|---:|"]
    for path, seed, method in (*SETS, FOLLOW_UP):
        base = estimated_scale_rows(path, seed, method)
        refs = [references(sc, make_replicate(sc, seed + 1000 * r)) for r in range(len(base))]
        who = ("default", "integrated", "mode", "estimated_scale", "oracle")

        def col(w, key, base=base, refs=refs):
            return np.array([(b[w] if w in b else f[w])[key] for b, f in zip(base, refs,
                                                                                strict=True)])

        lines.append(
            f"| {seed} | {np.mean([f['sd_mean'] for f in refs]):.3f} ± "
            f"{np.mean([f['sd_sd'] for f in refs]):.3f} | "
            + " / ".join(f"{col(w, 'abs_gap').mean():.3f}" for w in who) + " | "
            + " / ".join(f"{col(w, 'slope').mean():.2f}" for w in who) + " | "
            + paired.diff_text(col("default", "abs_gap") - col("integrated", "abs_gap"))
            + " |")
    text = "\n".join(lines) + "\n"
    (HERE / "integrated_scale_look.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
