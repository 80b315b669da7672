"""The candidate of README.md, ``three_way``, scored from the default's stored fits (no MCMC):
the default stack's two components (``../sharpened_pool/fits/``) plus the probit model of the
Gaussian model's k top genes by F, the three weighted by the stack's ``stacking_weights`` on
the inner cases. Also ``linear_refit``, the default's two-way pool recomputed from the same
stored log probabilities (checked against the committed rows by ``compare.py``).

Run from the repository root: ``python reports/plasmode/kept_genes_probit/run.py [jobs]``
(resumes from ``results.jsonl``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

SEED = 0                     # the run seed of ../refit_inner and ../sharpened_pool
FITS = HERE.parent / "sharpened_pool" / "fits"


def _log_pool_run():
    return offline.load_script(HERE.parent / "log_pool" / "run.py", "log_pool_run")


def _committed_k(name: str, rep: int) -> int:
    """The Gaussian model's chosen k in that fit (``../refit_inner/results.jsonl``)."""
    import paired  # reports/plasmode/paired.py (on the path above)

    return int(paired.read_rows(HERE.parent / "refit_inner" / "results.jsonl")
               [("refit", name, rep)]["k"])


def inner_folds(y_index, random_state, n_splits=5):
    """The Gaussian model's inner folds, as its k search makes them from its seed."""
    from selbayes._validation import check_random_state
    from selbayes.estimators._inner_cv import _stratified_folds

    return _stratified_folds(y_index, n_splits, check_random_state(random_state))[1]


def top_k_by_f(X, y, k):
    """Indices of the k genes with the largest ANOVA F statistic, best first (ties by lowest
    index): the package's own F (``selbayes.filters.f_statistic``), so the genes the Gaussian
    model keeps; unlike ``select_features`` it accepts an inner training fold that keeps one
    case of a class. (The first run used scikit-learn's ``f_classif``, which gives F = n - G to
    some near-constant genes of singh's standardised X and ranked them first; README.md,
    "Correction".)"""
    from selbayes.filters import f_statistic

    y = np.asarray(y)
    F = f_statistic(np.asarray(X, dtype=np.float64), y, int(y.max()) + 1)
    return np.argsort(-F, kind="stable")[:k]


def scored_rows(data, binary, A, yi, T, w2, random_state, k, common) -> list:
    """The rows of ``linear_refit`` (the default's two-way pool, weights ``w2``) and
    ``three_way`` for one fitted default: ``A`` (2, n, G) and ``T`` (2, m, G) its components'
    inner and test log probabilities, ``yi`` the training class indices, ``random_state`` the
    Gaussian model's seed (its inner folds), ``k`` its chosen k, ``common`` fields of both
    rows. The kept-genes probit is fitted here on each inner training fold (genes re-selected
    there) and on all training cases."""
    from selbayes.estimators._linear_stack import (
        _linear_pool,
        _weights_and_pool,
        fit_all_features_probit,
    )
    from selbayes.experiments.plasmode import calibration_scores

    X, Xt = np.asarray(data["X_train"], float), np.asarray(data["X_test"], float)
    tree_seed = random_state                      # _tree_seed of an int
    folds = inner_folds(yi, random_state)
    sel_inner = np.empty_like(A[0])
    max_check = 0.0
    for tr, te in folds:
        # the folds are the default's: its all-genes probit's inner scores come back
        check = fit_all_features_probit(X[tr], yi[tr], tree_seed).predict_log_proba(X[te])
        max_check = max(max_check, float(np.max(np.abs(check - A[1][te]))))
        genes = top_k_by_f(X[tr], yi[tr], k)
        sel_inner[te] = fit_all_features_probit(X[tr][:, genes], yi[tr],
                                                tree_seed).predict_log_proba(X[te][:, genes])
    genes = top_k_by_f(X, yi, k)
    sel_test = fit_all_features_probit(X[:, genes], yi, tree_seed).predict_log_proba(Xt[:, genes])
    own = np.arange(yi.size), yi
    A3 = np.concatenate([A, sel_inner[None]])
    T3 = np.concatenate([T, sel_test[None]])
    w2 = np.asarray(w2, float)
    w3, inner3 = _weights_and_pool(A3, yi, "linear")       # the stack's own weights and pool
    common = {**common, "k": k}
    rows = []
    for method, lp, w, inner in (("linear_refit", _linear_pool(T, w2), w2, _linear_pool(A, w2)),
                                 ("three_way", _linear_pool(T3, w3), w3, inner3)):
        s = calibration_scores(np.exp(lp), data["p_test"])
        if not binary:
            del s["slope"]          # the suite's slope is binary
        rows.append({**common, "method": method, **s, "weights": [float(v) for v in w],
                     "linear_weight": float(w[1]), "inner_stack": -float(inner[own].mean())})
    rows[1].update(kept_weight=float(w3[2]), fold_check=max_check,
                   inner_kept=-float(sel_inner[own].mean()))
    return rows


def one_replicate(name: str, rep: int) -> list:
    data, binary = _log_pool_run().replicate(name, rep)
    stored = np.load(FITS / f"{name}_{rep}.npz")
    A, yi, T = stored["inner"], stored["y_inner"], stored["test"]
    classes = np.unique(data["y_train"])
    assert np.array_equal(np.searchsorted(classes, data["y_train"]), yi)
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    # SEED + rep: the Gaussian model's seed, as in fit_stack
    return scored_rows(data, binary, A, yi, T, stored["weights"], SEED + rep,
                       _committed_k(name, rep), common)


def main() -> int:
    lp = _log_pool_run()
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("kept_weight", "k", "fold_check"),
                           scenarios=lp.SUITE + lp.HOLDOUT + lp.THREE_CLASS)


if __name__ == "__main__":
    raise SystemExit(main())
