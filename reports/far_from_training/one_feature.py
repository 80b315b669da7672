"""How far out-of-fold test samples lie from the training data on their farthest kept gene:
the statistic behind the one-feature FarFromTrainingWarning
(``selbayes.estimators._gaussian_checks.FAR_ONE_FEATURE``).

    python reports/far_from_training/one_feature.py [SET ...] > one_feature.jsonl

Per test sample and kept gene: the distance to the nearest class's predictive mean, in
predictive standard deviations (the statistic of ``check.py``, not its median over the genes:
its largest). The default classifier with the plug-in method, 5 folds (seed 0, the
benchmark's folds), each set's default preprocessing, as ``check.py``. Prints one JSON line
per set: k of the last fold; the median, 99th percentile and maximum over the samples of
their largest distance; the share of all (sample, gene) values beyond 4, 6, 8, 10 and 15;
the number of samples whose largest distance is beyond 6, 8, 10 and 15. About 10 minutes on
2 cores.
"""

import json
import sys
import warnings

import numpy as np

from selbayes import HierarchicalGaussianClassifier
from selbayes.benchmark._runner import _make_splits
from selbayes.datasets import BENCHMARK_SETS, load_dataset

warnings.simplefilter("ignore")


def distances(clf, X):
    """(n_rows, k): each kept gene's distance to the nearest class mean, in predictive SDs."""
    Z = clf._select_test_columns(clf._validate_test(X))
    mean = clf.pred_mean_.mean(axis=0)
    sd = 1.0 / np.sqrt(clf.pred_precision_.mean(axis=0))
    return np.min(np.abs(Z[:, :, None] - mean[None]) / sd[None], axis=2)


def out_of_fold(name):
    """Per fold of the benchmark's 5 (seed 0) on set ``name`` (its default preprocessing):
    the default classifier (plug-in method) fitted on the training part, the test part's X and
    its class codes."""
    ds = load_dataset(name)
    X = np.asarray(ds.X, float)
    _, y = np.unique(np.asarray(ds.y), return_inverse=True)
    for tr, te in _make_splits(y, 5, 1, 0)[0][1]:
        clf = HierarchicalGaussianClassifier(method="plugin", progressbar=False,
                                             random_state=0).fit(X[tr], y[tr])
        yield clf, X[te], y[te]


def main(names):
    """One JSON line per set (the module's docstring says what)."""
    for name in names or list(BENCHMARK_SETS):
        largest, every = [], []
        for clf, X_test, _ in out_of_fold(name):
            d = distances(clf, X_test)
            largest.append(d.max(axis=1))
            every.append(d.ravel())
        m, a = np.concatenate(largest), np.concatenate(every)
        print(json.dumps(dict(
            set=name, k=int(clf.k_), n_values=int(a.size), row_max_median=float(np.median(m)),
            row_max_q99=float(np.quantile(m, .99)), row_max_max=float(m.max()),
            share_values_over={b: float(np.mean(a > b)) for b in (4, 6, 8, 10, 15)},
            rows_over={b: int(np.sum(m > b)) for b in (6, 8, 10, 15)}, n_rows=int(m.size))),
            flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
