"""Probe (nothing chosen): would cluster means of correlated genes ("metagenes") carry the
signal the corrected fits lose where they collapse?  Candidate it would test: the means of
gene clusters (k-means of the genes' standardised training profiles) added to, or used
instead of, the genes the selection ranks, so that a module of correlated genes enters as one
feature whose noise is averaged down. ``../pc_factor_probe/`` asked the same of the top
principal components (no); a module can be a tight cluster without being a direction of
large variance, so this asks whether any cluster mean has a large F statistic against the
training labels in the replicates where the corrected fits collapse (plasmode_module 0 and 3,
plasmode_sparse 2: ``../correlated_underconfidence/``).

Run: ``python reports/plasmode/metagene_probe/probe.py`` (about 2 minutes on 2 cores; writes
probe.md). Deterministic: the suite's replicates (seed 0) and k-means with random_state 0.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the suite's replicates, selections)

N_CLUSTERS = (100, 500, 2000)
COLLAPSED = {("plasmode_module", 0), ("plasmode_module", 3), ("plasmode_sparse", 2)}
SCENARIOS = ("plasmode_sparse", "plasmode_dense", "plasmode_module")


def cluster_means(Z, m, random_state=0):
    """(n, m') means of the columns of Z within m k-means clusters of its columns (genes as
    points in R^n; O(n p m), never p x p) and the clusters' sizes; empty clusters dropped."""
    from sklearn.cluster import MiniBatchKMeans

    lab = MiniBatchKMeans(m, random_state=random_state, n_init=1,
                          batch_size=2048).fit_predict(Z.T)
    size = np.bincount(lab, minlength=m)
    M = np.zeros((Z.shape[0], m))
    np.add.at(M.T, lab, Z.T)
    keep = size > 0
    return M[:, keep] / size[keep], size[keep]


def truth(name, rep, y):
    """The replicate's true linear predictor (``true_logit``, as ``make_replicate`` draws it),
    checked against the replicate's own true test probabilities. Returns the
    F statistic of the true predictor on the training cases (an oracle: the best any one
    derived feature could do), the share of test cases whose true P(class 1) lies within 0.1
    of its median, and the KL (nats) to the truth of the constant prediction at the training
    base rate."""
    from selbayes.experiments.plasmode import (
        SCENARIOS,
        _sigmoid,
        _standardised_dataset,
        calibration_scores,
        true_logit,
    )
    from selbayes.filters import f_statistic

    sc = SCENARIOS[name]
    X = _standardised_dataset(sc.dataset)
    # make_replicate's own draws (its generator's first use)
    eta = true_logit(sc, X, np.random.default_rng(offline.SEED + 1000 * rep))
    data = offline.replicate(name, rep).data

    def rows(Xpart):
        return [int(np.flatnonzero((X == row).all(1))[0]) for row in Xpart]

    p1 = _sigmoid(eta[rows(data["X_test"])])
    if not np.allclose(p1, data["p_test"][:, 1], atol=1e-12):
        raise RuntimeError(f"{name} {rep}: recomputed predictor is not the replicate's")
    flat = float(np.mean(np.abs(p1 - np.median(p1)) < 0.1))
    base = np.full_like(p1, y.mean())
    kl_const = calibration_scores(np.column_stack([1 - base, base]), data["p_test"])["kl"]
    return float(f_statistic(eta[rows(data["X_train"])][:, None], y, 2)[0]), flat, kl_const


def main() -> int:
    from selbayes.filters import f_statistic  # the selection's own statistic

    warnings.simplefilter("ignore")
    head = " | ".join(f"m = {m}: largest F (size) / null 99%" for m in N_CLUSTERS)
    lines = ["# Cluster means of the training X in the plasmode replicates", "",
             "Genes as the default prepares them (the features the selection ranks), clustered "
             "by k-means on their standardised training profiles into m clusters; F statistics "
             "of the cluster means against the training labels, beside the largest F of the "
             "genes. The suite's replicates (seed 0), all training cases. `null 99%`: the 99% "
             "point of the largest of as many independent F(1, n - 2) statistics as there are "
             "features (genes, or non-empty clusters). `true predictor F`: the F statistic of the "
             "replicate's true linear predictor on the training cases (an oracle). `true P "
             "within 0.1 of its median`: share of test cases. `KL of the base rate`: KL (nats) "
             "to the true probabilities of the constant prediction at the training base rate.",
             "",
             f"| scenario | replicate | collapsed | largest gene F / null 99% | {head} | "
             "true predictor F | true P within 0.1 of its median | KL of the base rate |",
             "|---|---:|---|---:|" + "---:|" * len(N_CLUSTERS) + "---:|---:|---:|"]
    for name in SCENARIOS:
        for rep in range(6):
            R = offline.replicate(name, rep)
            y = R.yi
            (Z, _, sel), = offline.selections(R, np.arange(y.size), [5])
            Z = (Z - Z.mean(0)) / np.maximum(Z.std(0), 1e-12)
            null_genes = stats.f.ppf(0.99 ** (1 / Z.shape[1]), 1, y.size - 2)
            cells = []
            for m in N_CLUSTERS:
                M, size = cluster_means(Z, m)
                f = f_statistic(M, y, 2)
                null = stats.f.ppf(0.99 ** (1 / M.shape[1]), 1, y.size - 2)
                cells.append(f"{f.max():.1f} ({size[f.argmax()]}) / {null:.1f}")
            lines.append(f"| {name} | {rep} | {'yes' if (name, rep) in COLLAPSED else ''} | "
                         f"{sel.scores.max():.1f} / {null_genes:.1f} | " + " | ".join(cells)
                         + " | {:.1f} | {:.2f} | {:.3f} |".format(*truth(name, rep, y)))
            print(lines[-1], flush=True)
    (HERE / "probe.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
