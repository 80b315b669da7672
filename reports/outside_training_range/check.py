"""How much of each new sample lies outside the training range of its features: the check
behind the second form of ``FarFromTrainingWarning``
(``selbayes.estimators._training_range``).

    python reports/outside_training_range/check.py [SET ...]   # default: the eleven sets

Per out-of-fold test sample (5 folds, seed 0: the benchmark's folds; each set's default
preprocessing): the share of the features that varied in the training folds which lie
outside their training range. Prints one table row per set: the median, the 99th
percentile and the maximum over the samples, and how many samples the rule flags (share
above ``MOST_OUTSIDE``). Then the same for the test samples given on another scale than the
training ones: 2^x (unlogged values to a fit on log2 ones) and log2(x) (log2 values to a fit
on unlogged ones, or log2 taken twice; only sets whose values are all positive). Runs in
under a minute: no model is fitted.
"""

import sys

import numpy as np

from selbayes.benchmark._runner import _make_splits
from selbayes.datasets import BENCHMARK_SETS, load_dataset
from selbayes.estimators._training_range import (
    MOST_OUTSIDE,
    rows_outside_training_range,
    shares_outside,
    training_range,
)


def shares(train, test):
    """Each test row's share of varying features outside the training range."""
    return sum(shares_outside(test, *training_range(train)))


def flagged(train, test):
    low, high = training_range(train)
    return rows_outside_training_range(test, low, high, train.shape[0])[0].size


print("| data set | n | p | median | 99th percentile | maximum | flagged | flagged, 2^x | "
      "flagged, log2(x) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for name in sys.argv[1:] or list(BENCHMARK_SETS):
    ds = load_dataset(name)
    X = np.asarray(ds.X, float)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    found, count, count_exp, count_log = [], 0, 0, 0
    positive = bool((X > 0).all())
    for tr, te in _make_splits(y, 5, 1, 0)[0][1]:
        found.append(shares(X[tr], X[te]))
        count += flagged(X[tr], X[te])
        with np.errstate(over="ignore"):
            count_exp += flagged(X[tr], 2.0 ** X[te])
        if positive:
            count_log += flagged(X[tr], np.log2(X[te]))
    s = np.concatenate(found)
    log_cell = f"{count_log} of {s.size}" if positive else "n/a (values <= 0)"
    print(f"| {name} | {X.shape[0]} | {X.shape[1]} | {np.median(s):.3f} | "
          f"{np.quantile(s, 0.99):.3f} | {s.max():.3f} | {count} of {s.size} | "
          f"{count_exp} of {s.size} | {log_cell} |", flush=True)
print(f"\nrule: a row is flagged when its share exceeds MOST_OUTSIDE = {MOST_OUTSIDE}")
