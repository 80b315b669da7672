"""Why the estimator does not sample the sum over df: NUTS on the full model
(``build_model`` with ``mu_t_df_grid``) against the empirical-Bayes route, on one simulated
set (n = 60, p = 2000, five genes shifted by 2 within-class sd, seed 1), k = 20 and 300.

Usage (from the repository root, a few minutes; the first fit of each shape compiles):
``python reports/plasmode/t_auto/mixing.py``; writes ``mixing.md`` beside it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    from arviz_stats import rhat

    import selbayes
    from selbayes.models import T_DF_GRID, GaussianPriors
    from selbayes.models._gaussian import model_data, sample_nutpie
    from selbayes.preprocessing._features import prepare_features

    rng = np.random.default_rng(1)
    n, p = 60, 2000
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :5] += 2.0 * y[:, None]
    priors = GaussianPriors(mu_t_df_grid=T_DF_GRID)
    out = ["# NUTS on the sum over df", "", "Made by `mixing.py` (its docstring has the "
           "design). 4 chains x 1000 + 1000 draws (nutpie); R-hat is the largest over "
           "tau_mu, tau_x and lambda_mu (rank-normalised split R-hat).", "",
           "| k | posterior probability of df " + str(tuple(int(d) for d in T_DF_GRID))
           + ", per chain | max R-hat |", "|---:|---|---:|"]
    for k in (20, 300):
        sel = selbayes.select_features(X, y, k=k)
        Xs, _ = prepare_features(X[:, sel.indices], y, 2, standardize=True)
        data = model_data(Xs, y, sel, priors)
        coords = {"feature": [int(i) for i in sel.indices], "class": ["0", "1"]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            idata, _ = sample_nutpie(data, priors, coords, draws=1000, tune=1000, chains=4,
                                     seed=0, target_accept=0.9, progressbar=False)
        post = idata["posterior"]
        probs = post["t_df_prob"].mean("draw").values                   # (chain, df)
        worst = max(float(rhat(post[v]).max()) for v in ("tau_mu", "tau_x", "lambda_mu"))
        chains = "; ".join(", ".join(f"{q:.2f}" for q in row) for row in probs)
        out.append(f"| {k} | {chains} | {worst:.2f} |")
    (HERE / "mixing.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
