"""Is the Gaussian model's loss on chowdary its choice of k? A probe (nothing is chosen).

``run.py`` found the default's Gaussian model sharp and right where its inner cross-validation
chose k = 500 (AMLP 0.035 to 0.096) and confidently wrong on two cases each where it chose
k = 50 and k = 5 (0.39, 0.40). This refits the Gaussian model (the default's configuration,
the benchmark's folds and seeds, as ``run.py``) at fixed k in :data:`KS` on each of the five
folds, and records the test AMLP, errors and confidence at each k, with the inner
cross-validation's curve (its plug-in score of each k, at the share it chose) from the
default's own k search on the fold.

Run: ``python reports/chowdary_probe/fixed_k.py`` (about 4 minutes on 2 cores); writes
``fixed_k.csv`` here and prints the tables.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.parallel import Parallel, delayed

from selbayes.benchmark._runner import _build, _inner_folds, resolve_dataset

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "plasmode"))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)

KS = (5, 50, 500, 2000)


def _gaussian(est):
    """The Gaussian model of a built benchmark method (pipeline or not) and its transform."""
    stack = est[-1] if hasattr(est, "steps") else est
    return stack.estimator, (est[:-1] if hasattr(est, "steps") else None)


def one(fold, train, test, X, y, seed, n_classes, pre, k):
    est = _build("selbayes_refit_inner", pre, n_classes, seed, False, _inner_folds(y[train]))
    gauss, transform = _gaussian(est)
    Xtr, Xte = X[train], X[test]
    if transform is not None:
        transform = clone(transform).fit(Xtr, y[train])
        Xtr, Xte = transform.transform(Xtr), transform.transform(Xte)
    g = clone(gauss).set_params(**({} if k == "auto" else {"k": k}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g.fit(Xtr, y[train])
        P = g.predict_proba(Xte)
    row = {"fold": fold, "k_asked": k, "k": int(g.k_), "share": float(g.label_noise_),
           "amlp": float(-np.mean(np.log(P[np.arange(len(test)), y[test]]))),
           "errors": int(np.sum(P.argmax(1) != y[test])),
           "confidence": float(P.max(1).mean()), "n_test": len(test)}
    if k == "auto":
        t = g.k_choice_.table()
        row["inner_curve"] = "; ".join(f"{int(a)}: {b:.3f} ± {c:.3f}"
                                       for a, b, c in zip(t.k, t.score, t.se, strict=True))
    print(row, flush=True)
    return row


def main() -> int:
    ds = resolve_dataset("chowdary")
    X = ds.X.to_numpy(dtype=np.float64)
    classes, y = np.unique(ds.y.astype(str).to_numpy(), return_inverse=True)
    # run.py's folds and seeds (the benchmark's), through the reports' shared script loader
    folds = offline.load_script(HERE / "run.py", "chowdary_probe_run").benchmark_folds(y)
    jobs = [(f, train, test, seed, k) for _, f, train, test, seed in folds
            for k in ("auto", *KS)]
    rows = Parallel(n_jobs=2)(delayed(one)(f, tr, te, X, y, s, len(classes), ds.preprocessing, k)
                              for f, tr, te, s, k in jobs)
    table = pd.DataFrame(rows)
    table.to_csv(HERE / "fixed_k.csv", index=False)
    print(table.drop(columns="inner_curve").round(3).to_string(index=False))
    for _, r in table[table.k_asked == "auto"].iterrows():
        print(f"fold {r.fold}: inner curve {r.inner_curve}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
