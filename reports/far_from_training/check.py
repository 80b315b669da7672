"""How far out-of-fold test samples lie from the training data, by the statistic behind
``FarFromTrainingWarning`` (``selbayes.estimators._gaussian.FAR_FROM_TRAINING``).

    python reports/far_from_training/check.py [SET ...]    # default: the eleven sets

Per test sample: the median over the kept genes of the distance to the nearest class's
predictive mean, in predictive standard deviations. The default classifier with the plug-in
method, 5 folds (seed 0, the benchmark's folds), each set's default preprocessing. Prints one
table row per set: k of the last fold, median, 99th percentile and maximum over the samples.
Takes about 10 minutes on 2 cores (nakayama, ten classes, is most of it).
"""

import sys
import warnings

import numpy as np

from selbayes import HierarchicalGaussianClassifier
from selbayes.benchmark._runner import _make_splits
from selbayes.datasets import BENCHMARK_SETS, load_dataset

warnings.simplefilter("ignore")


def distance(clf, X):
    """The warning's statistic for each row of X (the classifier's own computation)."""
    Z = clf._select_test_columns(clf._validate_test(X))
    mean = clf.pred_mean_.mean(axis=0)
    sd = 1.0 / np.sqrt(clf.pred_precision_.mean(axis=0))
    nearest = np.min(np.abs(Z[:, :, None] - mean[None]) / sd[None], axis=2)
    return np.median(nearest, axis=1)


for name in sys.argv[1:] or list(BENCHMARK_SETS):
    ds = load_dataset(name)                 # the set's default preprocessing (per value)
    X = np.asarray(ds.X, float)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    found = []
    for tr, te in _make_splits(y, 5, 1, 0)[0][1]:
        clf = HierarchicalGaussianClassifier(method="plugin", progressbar=False,
                                             random_state=0).fit(X[tr], y[tr])
        found.append(distance(clf, X[te]))
    d = np.concatenate(found)
    print(f"| {name} | {clf.k_} | {np.median(d):.2f} | {np.quantile(d, 0.99):.2f} | "
          f"{d.max():.2f} |", flush=True)
