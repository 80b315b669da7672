"""Why the corrected two-groups prior returns near coin flips in sim_dense_weak.

Usage (from the repository root, about 8 minutes on 2 cores):
``python reports/plasmode/two_groups_dense_weak/analyse.py``; writes ``report.md`` beside it.

Replicate 0 of the plasmode suite's ``sim_dense_weak`` (n = 80, p = 2000, 1000 genes with a
class-mean difference drawn from N(0, 0.12^2), the rest null; the two-groups model with a
normal slab holds, with pi0 = 0.5 and tau_mu = 2 / 0.12^2 = 139), k = 500 kept by F.

1. Are the selection factor's two probabilities right? P(F <= gamma | null) and
   P(F <= gamma | slab, tau_mu) from the model's own functions against simulation.
2. Where is the posterior? The model's log density (``build_model(...).compile_logp()``)
   on a grid of (pi0, tau_mu), tau_nu maximised over a grid, tau_x at its conditional mean
   given the within-class sums of squares; corrected and uncorrected.
3. What NUTS finds: the estimator's fit at k = 500 (no temperature, no label noise),
   posterior quantiles of pi0 and tau_mu, the mean marker probability, and the spread of
   the predicted log odds against the true ones on the replicate's test cases.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20271127


def main() -> None:
    import selbayes
    from selbayes.adjustment._fstat import fstat_log_omit_prob
    from selbayes.experiments.plasmode import SCENARIOS, make_replicate
    from selbayes.filters import f_statistic
    from selbayes.models import build_model, null_log_prob
    from selbayes.preprocessing._features import prepare_features

    t0 = time.perf_counter()
    d = make_replicate(SCENARIOS["sim_dense_weak"], 0)
    X, y, Xt, p_test = d["X_train"], d["y_train"], d["X_test"], d["p_test"]
    sel = selbayes.select_features(X, y, k=500)
    gamma, counts = float(sel.threshold), np.bincount(y)
    out = ["# The corrected two-groups prior in sim_dense_weak", "",
           f"Made by `analyse.py` (its docstring says what each part does); replicate 0, "
           f"k = 500, gamma = {gamma:.3f}; the truth is pi0 = 0.5, tau_mu = 139.", ""]

    # 1. the factor's probabilities against simulation
    rng = np.random.default_rng(SEED)
    yy = np.repeat([1, 0], 40)
    null_F = f_statistic(rng.standard_normal((80, 40000)), yy, 2)
    delta = 0.12 * rng.standard_normal(40000)
    slab_F = f_statistic(rng.standard_normal((80, 40000)) + np.outer(yy - 0.5, delta), yy, 2)
    se = np.sqrt(0.25 / 40000)
    out += ["## 1. The selection factor's probabilities", "",
            "| P(F <= gamma) | model | simulation (40 000 genes, SE <= "
            f"{se:.4f}) |", "|---|---:|---:|",
            f"| null | {np.exp(null_log_prob(counts.astype(float), gamma)):.4f} | "
            f"{(null_F <= gamma).mean():.4f} |",
            f"| slab, tau_mu = 139 (the truth) | "
            f"{np.exp(fstat_log_omit_prob(np.log(139.0), counts, gamma, 4.0)):.4f} | "
            f"{(slab_F <= gamma).mean():.4f} |",
            f"| observed share of the p genes | | {(f_statistic(X, y, 2) <= gamma).mean():.4f} |",
            ""]

    # 2. the log density on a grid
    Xs, _ = prepare_features(X[:, sel.indices], y, 2, standardize=True)
    means = np.where(y[:, None] == 1, Xs[y == 1].mean(0), Xs[y == 0].mean(0))
    ssw = ((Xs - means) ** 2).sum(0)
    tau_x = (2.0 + 39.0) / (2.0 + ssw / 2)          # alpha_x/2 + (n-G)/2 over its rate
    pis, taus = [0.3, 0.5, 0.7, 0.9, 0.96, 0.99], [20, 51, 100, 139, 189, 300, 1000]
    out += ["## 2. The log density on a grid (relative to its maximum)", "",
            "tau_nu maximised over (0.1, 1, 10, 100), tau_x at its conditional mean.", ""]
    for corrected in (True, False):
        logp = build_model(Xs, y, sel, {"pi0_a": 1.0, "pi0_b": 1.0},
                           corrected=corrected).compile_logp()
        grid = np.array([[max(logp({"tau_mu_log__": np.log(t), "tau_nu_log__": np.log(v),
                                    "tau_x_log__": np.log(tau_x),
                                    "pi0_logodds__": np.log(p / (1 - p))})
                              for v in (0.1, 1.0, 10.0, 100.0)) for t in taus] for p in pis])
        grid -= grid.max()
        out += [f"**{'corrected' if corrected else 'uncorrected'}**", "",
                "| pi0 \\ tau_mu | " + " | ".join(map(str, taus)) + " |",
                "|---|" + "---:|" * len(taus)]
        out += [f"| {p} | " + " | ".join(f"{v:.1f}" for v in row) + " |"
                for p, row in zip(pis, grid, strict=True)]
        out.append("")

    # 3. NUTS
    true_logit = np.log(p_test[:, 1] / p_test[:, 0])
    out += ["## 3. The fit (NUTS, 4 x 1000 draws)", "",
            "| fit | pi0 (5%, 50%, 95%) | tau_mu (5%, 50%, 95%) | mean marker probability | "
            "sd of predicted log odds | slope of true on predicted log odds |",
            "|---|---|---|---:|---:|---:|"]
    for corrected in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = selbayes.HierarchicalGaussianClassifier(
                k=500, effect_prior="two_groups", correct_selection=corrected,
                temperature=1.0, label_noise=0.0, random_state=0, progressbar=False).fit(X, y)
        post = clf.idata_.posterior
        lp = clf.predict_log_proba(Xt)
        z = lp[:, 1] - lp[:, 0]
        q = lambda v: ", ".join(f"{x:.3g}" for x in np.quantile(v, [0.05, 0.5, 0.95]))  # noqa
        out.append(f"| {'corrected' if corrected else 'uncorrected'} | "
                   f"{q(post['pi0'].values)} | {q(post['tau_mu'].values)} | "
                   f"{clf.marker_probabilities_.mean():.3f} | {z.std():.2f} | "
                   f"{np.polyfit(z, true_logit, 1)[0]:.2f} |")
    out += ["", f"True log odds of the test cases: sd {true_logit.std():.2f}.", "",
            f"Run time {time.perf_counter() - t0:.0f} s.", ""]
    (HERE / "report.md").write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
