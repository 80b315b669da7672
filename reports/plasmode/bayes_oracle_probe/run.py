"""What calibration slope does the Bayes-optimal predictor reach in the suite's two simulation
scenarios? A probe (nothing is chosen).

The issue's target where the model's assumptions hold is a calibration slope in [0.9, 1.1]
against the true probabilities, per scenario, as the mean over the suite's six replicates. The
default misses it in sim_sparse_strong (slope 1.22, ``../refit_inner/``). This asks whether a
predictor that is exactly Bayes-calibrated can meet it there: the posterior predictive under
the scenario's own data-generating process, with everything a real method must estimate given
to it (unit within-class variance, gene centres at 0, equal class priors, the effects' prior).

The predictive is ``selbayes.experiments.plasmode.bayes_optimal_log_odds`` (its docstring
derives it): the two-groups prior (1 - pi) point mass + pi N(0, effect_sd^2) per gene with
pi = n_effects / p (the suite fixes the count of genes with effects; treating genes as
independent a priori is a negligible difference at p = 2000), closed form, O(n p).

Three predictors per replicate, each scored with the suite's ``calibration_scores``:

- ``oracle``: the Bayes predictive (does not know which genes carry effects);
- ``oracle_markers``: knows which genes carry effects, normal prior on their size (sharper);
- ``oracle_noise_1/4``, ``oracle_noise_1``: the oracle with the default's label-noise
  component, (1 - eps) P + eps / 2 with eps = c / (n + 2), c = 1/4 and 1 (from the grid the
  default's inner cross-validation chooses c from): what the cap on its probabilities alone
  does to the slope;
- the truth itself (slope 1, KL 0: a check of the scoring).

Check of the oracle here: over many replicates its predictions are calibrated against the
labels drawn from the truth (what a Bayes predictive under the true prior must be). Its closed
form is tested against importance sampling from the prior in
``tests/experiments/test_plasmode.py``.

Run: ``python reports/plasmode/bayes_oracle_probe/run.py [replicates]`` (default 400; about a
minute); writes ``results.csv`` and ``report.md`` here. Replicates 0-5 are the suite's
(data seed 1000 rep, run seed 0).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

from selbayes.experiments.plasmode import (
    SCENARIOS,
    bayes_optimal_log_odds,
    calibration_scores,
    make_replicate,
)
from selbayes.models import label_noise_log_proba

HERE = Path(__file__).resolve().parent
#: the oracle with the default's label-noise component eps = c / (n + 2) (c from its grid)
NOISE_SHARES = {"oracle_noise_1/4": 0.25, "oracle_noise_1": 1.0}
SUITE_REPLICATES = 6          # the suite's replicates: data seed 1000 * rep (run seed 0)


def effect_genes(scenario, rep):
    """The genes that carry effects in replicate ``rep`` (the suite's draw, re-done)."""
    rng = np.random.default_rng(1000 * rep)
    n = scenario.n_train + scenario.n_test
    rng.integers(0, 2, n - scenario.n_train)                       # the test labels' draw
    return rng.choice(scenario.p, scenario.n_effects, replace=False)


def run(replicates: int) -> pd.DataFrame:
    rows = []
    for name in ("sim_sparse_strong", "sim_dense_weak"):
        sc = SCENARIOS[name]
        for rep in range(replicates):
            data = make_replicate(sc, 1000 * rep)
            idx = effect_genes(sc, rep)
            # the re-drawn genes are the replicate's: its true log odds lie in their span
            with np.errstate(divide="ignore"):     # p_test may be exactly 0 or 1
                z_true = np.log(data["p_test"][:, 1]) - np.log(data["p_test"][:, 0])
            ok = np.abs(z_true) < 15                 # beyond, p_test has lost the digits
            coef = np.linalg.lstsq(data["X_test"][ok][:, idx], z_true[ok], rcond=None)[0]
            assert np.allclose(data["X_test"][ok][:, idx] @ coef, z_true[ok], atol=1e-6), name
            z_or = bayes_optimal_log_odds(sc, data["X_train"], data["y_train"], data["X_test"])
            z_mk = bayes_optimal_log_odds(sc, data["X_train"], data["y_train"], data["X_test"],
                                          genes=idx)
            n = len(data["y_train"])
            preds = [("oracle", z_or), ("oracle_markers", z_mk)]
            for label, c in NOISE_SHARES.items():    # the default's label-noise shares c/(n + 2)
                lp = label_noise_log_proba(np.column_stack([-np.logaddexp(0, z_or),
                                                            -np.logaddexp(0, -z_or)]),
                                           np.log([0.5, 0.5]), c / (n + 2))
                preds.append((label, lp[:, 1] - lp[:, 0]))
            for pred, z in preds:
                p1 = expit(z)
                r = calibration_scores(np.column_stack([1 - p1, p1]), data["p_test"])
                r.update(scenario=name, replicate=rep, predictor=pred,
                         suite_replicate=rep < SUITE_REPLICATES,
                         # for the pooled check: the labels drawn from the truth
                         pooled_y=data["y_test"].tolist(), pooled_p=p1.tolist())
                rows.append(r)
            tr = calibration_scores(data["p_test"], data["p_test"])
            tr.update(scenario=name, replicate=rep, predictor="truth",
                      suite_replicate=rep < SUITE_REPLICATES)
            rows.append(tr)
    return pd.DataFrame(rows)


def pooled_slope(df, name, pred):
    """Calibration slope of the predictor against the drawn labels, all replicates pooled
    (logistic regression of y on logit p_hat): 1 for a Bayes predictive under the true prior."""
    from sklearn.linear_model import LogisticRegression

    sub = df[(df.scenario == name) & (df.predictor == pred)]
    p = np.clip(np.concatenate(sub.pooled_p.to_list()), 1e-12, 1 - 1e-12)
    y = np.concatenate(sub.pooled_y.to_list())
    z = np.clip(np.log(p) - np.log1p(-p), -30, 30)
    lr = LogisticRegression(C=np.inf).fit(z[:, None], y)
    # a check on the probability scale too: mean predicted vs observed in deciles of p
    bins = np.quantile(p, np.linspace(0, 1, 11))
    which = np.clip(np.searchsorted(bins, p, side="right") - 1, 0, 9)
    gap = max(abs(p[which == b].mean() - y[which == b].mean()) for b in range(10))
    return float(lr.coef_[0, 0]), float(lr.intercept_[0]), float(gap), len(y)


def mean_se(x):
    x = np.asarray(x, float)
    x = x[np.isfinite(x)]
    return x.mean(), x.std(ddof=1) / np.sqrt(len(x)), np.median(x), len(x)


def report(df) -> str:
    lines = ["# Bayes-optimal predictor in the simulation scenarios (made by run.py)", "",
             f"{df.replicate.nunique()} replicates per scenario; replicates 0-5 are the suite's.",
             "", "## Per-replicate scores, mean ± SE (median) over replicates", "",
             "| scenario | predictor | replicates | slope | KL (nats) | \\|expected - actual\\| |",
             "|---|---|---|---:|---:|---:|"]
    for name in ("sim_sparse_strong", "sim_dense_weak"):
        for pred in ("oracle", "oracle_markers", *NOISE_SHARES, "truth"):
            for label, mask in [("suite's 0-5", df.suite_replicate), ("all", df.replicate >= 0)]:
                sub = df[(df.scenario == name) & (df.predictor == pred) & mask]
                sm, sse, smed, _ = mean_se(sub.slope)
                km, kse, _, _ = mean_se(sub.kl)
                gm, gse, _, _ = mean_se(sub.abs_gap)
                lines.append(f"| {name} | {pred} | {label} | {sm:.2f} ± {sse:.2f} ({smed:.2f}) | "
                             f"{km:.4f} ± {kse:.4f} | {gm:.3f} ± {gse:.3f} |")
    lines += ["", "## Share of replicates whose slope lies in [0.9, 1.1]", ""]
    for name in ("sim_sparse_strong", "sim_dense_weak"):
        sub = df[(df.scenario == name) & (df.predictor == "oracle")]
        inside = ((sub.slope >= 0.9) & (sub.slope <= 1.1)).mean()
        above = (sub.slope > 1.1).mean()
        lines.append(f"- {name}, oracle: inside {inside:.2f}, above 1.1 {above:.2f}")
    # the distribution of the mean of six replicates' slopes (what the suite's target reads)
    lines += ["", "## The mean of six replicates' slopes (what the suite's target reads), "
              "oracle, by resampling all replicates", ""]
    rng = np.random.default_rng(0)
    for name in ("sim_sparse_strong", "sim_dense_weak"):
        sl = df[(df.scenario == name) & (df.predictor == "oracle")].slope.to_numpy()
        sl = sl[np.isfinite(sl)]
        means = rng.choice(sl, (20_000, SUITE_REPLICATES)).mean(1)
        lines.append(f"- {name}: P(mean of 6 in [0.9, 1.1]) = "
                     f"{((means >= 0.9) & (means <= 1.1)).mean():.2f}, "
                     f"P(mean of 6 >= 1.22) = {(means >= 1.22).mean():.2f}")
    lines += ["", "## Checks of the oracle", "",
              "Pooled over all replicates, against the labels drawn from the truth (a Bayes "
              "predictive under the true prior is calibrated there: slope 1, intercept 0, "
              "deciles of p on the diagonal):", ""]
    for name in ("sim_sparse_strong", "sim_dense_weak"):
        b, a, gap, n = pooled_slope(df, name, "oracle")
        lines.append(f"- {name}: slope {b:.3f}, intercept {a:+.3f}, largest decile "
                     f"|mean p - mean y| {gap:.3f} ({n} test cases)")
    lines += ["", "The closed form against a second algorithm (importance sampling from the "
              "prior): `tests/experiments/test_plasmode.py`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    df = run(reps)
    df.drop(columns=["pooled_y", "pooled_p"]).to_csv(HERE / "results.csv", index=False)
    (HERE / "report.md").write_text(report(df))
    print((HERE / "report.md").read_text())
