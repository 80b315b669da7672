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

sys.path.insert(0, str(Path(__file__).parent))
from one_feature import distances, out_of_fold  # noqa: E402  (this folder's: the same fits)

warnings.simplefilter("ignore")


def described(rows):
    if not rows:
        return None
    return {"n": len(rows),
            "log_loss": float(np.mean([-np.log(max(r["p_true"], 1e-300)) for r in rows])),
            "error": float(np.mean([r["error"] for r in rows])),
            "expected_error": float(np.mean([1 - r["p_max"] for r in rows]))}


for name in sys.argv[1:]:
    rows = []
    for clf, X_test, y_test in out_of_fold(name):
        d, P = distances(clf, X_test), clf.predict_proba(X_test)
        rows += [{"far": bool(d[i].max() > 10), "p_true": float(P[i, t]),
                  "p_max": float(P[i].max()), "error": int(P[i].argmax() != t)}
                 for i, t in enumerate(y_test)]
    print(name, json.dumps({"beyond_10": described([r for r in rows if r["far"]]),
                            "others": described([r for r in rows if not r["far"]])}),
          flush=True)
