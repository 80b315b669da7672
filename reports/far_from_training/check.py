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
from pathlib import Path

import numpy as np

from selbayes.datasets import BENCHMARK_SETS

sys.path.insert(0, str(Path(__file__).parent))
from one_feature import distances, out_of_fold  # noqa: E402  (this folder's: the same fits)

warnings.simplefilter("ignore")


def distance(clf, X):
    """The warning's statistic for each row of X: the median over the kept genes."""
    return np.median(distances(clf, X), axis=1)


for name in sys.argv[1:] or list(BENCHMARK_SETS):
    found = []
    for clf, X_test, _ in out_of_fold(name):
        found.append(distance(clf, X_test))
    d = np.concatenate(found)
    print(f"| {name} | {clf.k_} | {np.median(d):.2f} | {np.quantile(d, 0.99):.2f} | "
          f"{d.max():.2f} |", flush=True)
