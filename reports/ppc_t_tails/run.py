"""The predictive check of the kept F statistics on SRBCT, with the t prior's df chosen by the
data (the default) and fixed at 1, 4, 16 and 64. Writes check.png and results.json here.

    python reports/ppc_t_tails/run.py        (SRBCT from $SELBAYES_DATA; about 3 minutes)
"""

import json
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

import selbayes  # noqa: E402
from selbayes import datasets  # noqa: E402
from selbayes.evaluation import check_inputs, f_statistic_survival  # noqa: E402

HERE = Path(__file__).parent
SEED = 0                                  # notebook 02's split and sampler seed
MCMC = dict(draws=500, tune=500, chains=2, random_state=SEED, progressbar=False)


def log_score(clf, X, y):
    """Mean -log p(true class), nats."""
    p = clf.predict_proba(X)
    return float(-np.mean(np.log(p[np.arange(len(y)), np.searchsorted(clf.classes_, y)])))


def main():
    ds = datasets.load_srbct(log=True)
    Xtr, Xte, ytr, yte = train_test_split(ds.X, ds.y, test_size=0.25, stratify=ds.y,
                                          random_state=SEED)
    fits = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = selbayes.HierarchicalGaussianClassifier(**MCMC).fit(Xtr, ytr)
        fits[f"t_auto (df {auto.t_df_:g})"] = auto
        for df in (1.0, 4.0, 16.0, 64.0):
            fits[f"t, df {df:g}"] = selbayes.HierarchicalGaussianClassifier(
                k=auto.k_, effect_prior="t", priors={"mu_t_df": df}, **MCMC).fit(Xtr, ytr)
    fig, axes = plt.subplots(1, len(fits), figsize=(5 * len(fits), 4.2), sharey=True)
    rows = {}
    for ax, (name, clf) in zip(axes, fits.items(), strict=True):
        clf.plot_ppc(ax=ax)
        ax.set_title(name, fontsize="medium")
        f = clf.ppc_checks_
        inputs = check_inputs(clf.idata_, clf.selection_, clf._fitted_priors())
        at = [50.0, 100.0]
        curve = f_statistic_survival(at, inputs["log_tau_mu_w_x"], inputs["class_counts"],
                                     inputs["threshold"], inputs["alpha_x"],
                                     mu_t_df=inputs["mu_t_df"], pi0=inputs["pi0"])
        rows[name] = {"k": int(clf.k_), "min_ppp": float(f["ppp"].min()),
                      "max_ppp": float(f["ppp"].max()),
                      "predicted_share_at_F": dict(zip(map(str, at), curve.tolist(),
                                                       strict=True)),
                      "observed_share_at_F": {str(v): float(np.mean(inputs["f_observed"] >= v))
                                              for v in at},
                      "test_log_score": log_score(clf, Xte, yte)}
    fig.tight_layout()
    fig.savefig(HERE / "check.png", dpi=80)
    settings = {"seed": SEED, "mcmc": {k: v for k, v in MCMC.items() if k != "progressbar"},
                "split": "train_test_split(test_size=0.25, stratify=y, random_state=0)",
                "versions": selbayes._version.versions()}
    (HERE / "results.json").write_text(json.dumps({"settings": settings, "fits": rows},
                                                  indent=1) + "\n")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
