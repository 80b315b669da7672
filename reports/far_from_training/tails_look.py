"""A look, deciding nothing: are out-of-fold samples with one kept gene far out (more than 10
predictive SDs from the nearest class mean) predicted worse than the others?

    python reports/far_from_training/tails_look.py subramanian gravier

The default classifier with the plug-in method and the benchmark's 5 folds (seed 0), as
``one_feature.py``. Per set: for the samples beyond 10 and the others, their number, mean
log loss (nats), actual error and expected error (mean of 1 - the largest probability).
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np

from selbayes import HierarchicalGaussianClassifier
from selbayes.benchmark._runner import _make_splits
from selbayes.datasets import load_dataset

sys.path.insert(0, str(Path(__file__).parent))
from one_feature import distances  # noqa: E402  (this folder's script: the same statistic)

warnings.simplefilter("ignore")


def described(rows):
    if not rows:
        return None
    return {"n": len(rows),
            "log_loss": float(np.mean([-np.log(max(r["p_true"], 1e-300)) for r in rows])),
            "error": float(np.mean([r["error"] for r in rows])),
            "expected_error": float(np.mean([1 - r["p_max"] for r in rows]))}


for name in sys.argv[1:]:
    ds = load_dataset(name)
    X = np.asarray(ds.X, float)
    classes, y = np.unique(np.asarray(ds.y), return_inverse=True)
    rows = []
    for tr, te in _make_splits(y, 5, 1, 0)[0][1]:
        clf = HierarchicalGaussianClassifier(method="plugin", progressbar=False,
                                             random_state=0).fit(X[tr], y[tr])
        d, P = distances(clf, X[te]), clf.predict_proba(X[te])
        rows += [{"far": bool(d[i].max() > 10), "p_true": float(P[i, y[t]]),
                  "p_max": float(P[i].max()), "error": int(P[i].argmax() != y[t])}
                 for i, t in enumerate(te)]
    print(name, json.dumps({"beyond_10": described([r for r in rows if r["far"]]),
                            "others": described([r for r in rows if not r["far"]])}),
          flush=True)
