"""Raw intensities against log2 intensities, the default Gaussian classifier otherwise the same.

    python reports/raw_intensities/check.py [SET ...]      # default: chowdary borovecki

5-fold cross-validation (seed 0, the benchmark's folds), the plug-in method (seconds per
fold); prints AMLP, error rate, expected error rate and the mean top-label probability of the
out-of-fold predictions. "raw, paper's units": ``standardize=False``.
"""

import sys
import warnings

import numpy as np

from selbayes import HierarchicalGaussianClassifier
from selbayes.benchmark._runner import _make_splits
from selbayes.datasets import load_dataset
from selbayes.evaluation import calibration_summary
from selbayes.preprocessing import IntensityLog2

warnings.simplefilter("ignore")       # the raw-intensity warning is the point of the check
NAMES = sys.argv[1:] or ["chowdary", "borovecki"]
VARIANTS = (("raw", True, False), ("log2", True, True), ("raw, paper's units", False, False))

for name in NAMES:
    ds = load_dataset(name, preprocess=False)
    X = np.asarray(ds.X, float)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    for label, standardize, log2 in VARIANTS:
        P = np.zeros((len(y), len(classes)))
        for tr, te in _make_splits(y, 5, 1, 0)[0][1]:
            Xtr, Xte = X[tr], X[te]
            if log2:
                t = IntensityLog2(floor=1.0)
                Xtr, Xte = t.fit_transform(Xtr), t.transform(Xte)
            clf = HierarchicalGaussianClassifier(method="plugin", standardize=standardize,
                                                 progressbar=False, random_state=0)
            P[te] = clf.fit(Xtr, y[tr]).predict_proba(Xte)
        s = calibration_summary(P, y)
        print(f"| {name} | {label} | {s['amlp']:.3f} | {s['error_rate']:.3f} | "
              f"{s['expected_error_rate']:.3f} | {P.max(axis=1).mean():.3f} |", flush=True)
