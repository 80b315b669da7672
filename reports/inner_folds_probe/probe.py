"""Probe (not a decision): nakayama, 5 outer folds (seed 0), the Gaussian model with the plug-in
posterior (fast), inner folds as now (at most the smallest class: 2 here) against 5 inner folds
with small classes spread (each case of a class of 2 in its own inner test fold).

Run: python reports/inner_folds_probe/probe.py now|spread
"""
import sys
import time
import warnings

import numpy as np

import selbayes.estimators._inner_cv as IC
from selbayes import HierarchicalGaussianClassifier
from selbayes.datasets import load_dataset
from selbayes.evaluation._folds import stratified_folds

warnings.simplefilter("ignore")


def _spread_folds(y_index, n_splits, rng):
    seed = int(rng.integers(2 ** 31 - 1))
    return n_splits, stratified_folds(y_index, n_splits, seed, small_classes_ok=True)


def main(mode: str) -> None:
    if mode == "spread":
        IC._n_inner_folds = lambda counts, n_splits: int(n_splits)
        IC._stratified_folds = _spread_folds
    d = load_dataset("nakayama")
    X = d.X.to_numpy()
    y = np.unique(d.y, return_inverse=True)[1]
    out = []
    for f, (tr, te) in enumerate(stratified_folds(y, 5, 0, small_classes_ok=True)):
        t = time.time()
        m = HierarchicalGaussianClassifier(method="plugin", random_state=f,
                                           progressbar=False).fit(X[tr], y[tr])
        lp = np.log(np.clip(m.predict_proba(X[te]), 1e-300, 1))
        amlp = -lp[np.arange(te.size), y[te]].mean()
        out.append(amlp)
        print(mode, f, m.k_, m.k_choice_.n_splits, round(amlp, 4), round(time.time() - t, 1),
              flush=True)
    print(mode, "mean", np.mean(out), out)


if __name__ == "__main__":
    main(sys.argv[1])
