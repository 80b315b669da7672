"""After both checks (decides nothing): the curve the inner cross-validation estimates, as the
truth scores it. On twelve new replicates each of sim_dense_weak (80 training cases) and
sim_dense_weak_n40 (40), data seed 7900 + 1000 r, the Gaussian model is fitted at each k
of the default grid (plug-in posterior, ``method="plugin"``, label-noise share 1/(n + 2),
the correlation rule's T) on all training cases ("full") and on a stratified 80% of them
("sub", the size of an inner training fold), and scored by its KL to the true probabilities
of the replicate's 400 test cases. If the "sub" curve favours large k as the "full" one does,
small-k choices are the inner criterion's noise; if it is flat, the inner folds are too
small to see what the whole training set supports (a learning-curve bias).

Run from the repository root:
``python reports/plasmode/inner_repeats/true_curve.py sim_dense_weak 0 12`` (and
``sim_dense_weak_n40``; about 5 minutes each); one JSON line per replicate (the KL at each k
of ``KS``), collected in ``true_curve.jsonl``; ``--summary`` prints the table of README.md.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

KS = [5, 10, 20, 50, 100, 200, 500, 1000]
DATA_SEED = 7900


def kl_curve(X, y, X_test, p_test, ks, rep: int) -> list:
    """KL to the true probabilities ``p_test`` of the Gaussian model alone (plug-in, label-noise
    share 1/(n + 2), the correlation rule's T, seed ``rep``) fitted to (X, y) at each k of
    ``ks``, rounded to 4 decimals."""
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.experiments.plasmode import calibration_scores

    return [round(calibration_scores(HierarchicalGaussianClassifier(
        k=k, method="plugin", label_noise="auto", draws=200, random_state=rep,
        progressbar=False).fit(X, y).predict_proba(X_test), p_test)["kl"], 4) for k in ks]


def main(name: str, first: int, stop: int) -> None:
    from selbayes.experiments.plasmode import make_replicate, scenario

    warnings.simplefilter("ignore")
    for rep in range(first, stop):
        data = make_replicate(scenario(name), DATA_SEED + 1000 * rep)
        X, y, Xt, pt = data["X_train"], data["y_train"], data["X_test"], data["p_test"]
        rng = np.random.default_rng(rep)
        sub = np.concatenate([rng.choice(np.flatnonzero(y == c),
                                         int(round(0.8 * np.sum(y == c))), replace=False)
                              for c in np.unique(y)])
        out = {"scenario": name, "rep": rep}
        for part, idx in (("full", np.arange(len(y))), ("sub", sub)):
            out[part] = kl_curve(X[idx], y[idx], Xt, pt, KS, rep)
        print(json.dumps(out), flush=True)


def by_scenario(file: str) -> dict:
    """This folder's JSON-lines ``file``: scenario -> its rows, in file order."""
    out = {}
    for line in (HERE / file).read_text().splitlines():
        row = json.loads(line)
        out.setdefault(row["scenario"], []).append(row)
    return out


def mean_se(x, sign: str = "") -> str:
    """The mean of ``x`` ± its standard error over replicates, to three decimals."""
    x = np.asarray(x, dtype=np.float64)
    return f"{x.mean():{sign}.3f} ± {x.std(ddof=1) / np.sqrt(x.size):.3f}"


def summary() -> None:
    print("| scenario | fitted on | mean KL at k = " + ", ".join(map(str, KS)) +
          " | KL(k = 5) - KL(k = 1000) | best k per replicate |")
    print("|---|---|---|---:|---|")
    for name, rows in by_scenario("true_curve.jsonl").items():
        for part in ("full", "sub"):
            A = np.array([r[part] for r in rows])
            print(f"| {name} | {part} | {', '.join(f'{v:.3f}' for v in A.mean(0))} | "
                  f"{mean_se(A[:, 0] - A[:, -1], '+')} | "
                  f"{', '.join(str(KS[i]) for i in A.argmin(1))} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--summary"]:
        summary()
    else:
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
