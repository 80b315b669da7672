"""How well the fitted t prior reproduces the kept genes' F statistics on the eleven development
sets: the mean of the kept genes' mixed predictive p-values (uniform under the model, so their
mean is 1/2 within sqrt(1 / (12 k)); above it, the fitted prior's tails are heavier than the
kept genes'), at the df the default chooses and at df 16. Plug-in fits on all cases (fast;
tau_mu at its mode), k chosen by the default's inner cross-validation. Writes dev_sets.json.

    python reports/ppc_t_tails/dev_sets.py      (the sets from $SELBAYES_DATA; about 10 minutes)
"""

import json
import warnings
from pathlib import Path

import numpy as np

import selbayes
from selbayes.datasets import BENCHMARK_SETS, load_dataset
from selbayes.evaluation import check_inputs, f_statistic_check

HERE = Path(__file__).parent
#: The fits of this folder's plug-in scripts (omitted_factor.py too).
PLUGIN = dict(method="plugin", random_state=0, progressbar=False)


def plugin_fit(X, y, **kw):
    """The Gaussian classifier with :data:`PLUGIN` and ``kw``, fitted quietly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return selbayes.HierarchicalGaussianClassifier(**PLUGIN, **kw).fit(X, y)


def write_results(name, rows):
    """``name``.json here: the rows, with the fits' settings and the package versions."""
    settings = {"method": PLUGIN["method"], "random_state": PLUGIN["random_state"],
                "fit on": "all cases", "versions": selbayes._version.versions()}
    (HERE / f"{name}.json").write_text(json.dumps({"settings": settings, "sets": rows},
                                                  indent=1) + "\n")


def tail_misfit(clf):
    """Mean mixed predictive p-value of all kept genes, and its z against 1/2."""
    inputs = check_inputs(clf.idata_, clf.selection_, clf._fitted_priors())
    k = inputs["f_observed"].size
    ppp = f_statistic_check(**inputs, max_checked=k)["ppp"].to_numpy()
    return {"k": int(k), "mean_ppp": float(ppp.mean()),
            "z": float((ppp.mean() - 0.5) / np.sqrt(1 / (12 * k)))}


def main():
    rows = {}
    for name in sorted(BENCHMARK_SETS):
        ds = load_dataset(name)
        X, y = ds.X.to_numpy(), ds.y.to_numpy()
        auto = plugin_fit(X, y)
        df16 = plugin_fit(X, y, k=auto.k_, effect_prior="t", priors={"mu_t_df": 16.0})
        rows[name] = {"n": int(len(y)), "p": int(X.shape[1]), "t_df": auto.t_df_,
                      "chosen_df": tail_misfit(auto), "df_16": tail_misfit(df16)}
        print(name, json.dumps(rows[name]), flush=True)
    write_results("dev_sets", rows)

if __name__ == "__main__":
    main()
