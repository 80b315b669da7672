"""KL to the true probabilities and calibration slope of the t prior at each fixed df, at a
fixed k, on two replicates of the two simulation scenarios (``method="plugin"``, the
estimator's other defaults). What a choice of df for prediction would find, against the
marginal-density choice of ``effect_prior="t_auto"`` (df = 64 in sim_dense_weak). Analysis
only: it reads the truth, so nothing here may choose a default.

Usage (from the repository root, about 1 minute): ``python
reports/plasmode/t_auto/fixed_df.py``; writes ``fixed_df.md`` beside it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
DFS = (1, 2, 4, 8, 16, 64)


def main() -> None:
    import selbayes
    from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, make_replicate

    out = ["# The t prior at each fixed df (plug-in, fixed k)", "",
           "Made by `fixed_df.py` (see its docstring). Cells: KL (nats) / calibration slope.",
           "", "| scenario, replicate, k | " + " | ".join(f"df {d}" for d in DFS) + " |",
           "|---|" + "---:|" * len(DFS)]
    for name, k in (("sim_dense_weak", 500), ("sim_sparse_strong", 100)):
        for rep in (0, 1):
            data = make_replicate(SCENARIOS[name], 1000 * rep)      # the suite's seed 0
            cells = []
            for df in DFS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    clf = selbayes.HierarchicalGaussianClassifier(
                        k=k, priors={"mu_t_df": df}, method="plugin", random_state=0,
                        progressbar=False).fit(data["X_train"], data["y_train"])
                s = calibration_scores(clf.predict_proba(data["X_test"]), data["p_test"])
                cells.append(f"{s['kl']:.3f} / {s['slope']:.2f}")
            out.append(f"| {name}, {rep}, {k} | " + " | ".join(cells) + " |")
    (HERE / "fixed_df.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
