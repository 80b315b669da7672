"""Stacking over k instead of choosing one k: an offline check (plug-in posterior).

Issue 27 item 4 asks the estimator to choose *or stack* among k (and prior families) by a
criterion that cannot see the test folds. The default chooses the k whose inner
cross-validated log score is lowest; where the inner curve is flat (the collapsed plasmode
replicates score 0.62 nats at every k) that choice is a coin toss between very different
models. Stacking (Yao, Vehtari, Simpson and Gelman 2018, "Using stacking to average Bayesian
predictive distributions", Bayesian Analysis 13, 917-1007) instead weights the candidates'
predictive distributions to maximise the inner cross-validated log score of the mixture,
sum_i log sum_c w_c p_c(y_i | x_i), w on the simplex; the final predictive is
sum_c w_c p_c(y | x) from each candidate refitted on all the training data. The weights need
only each inner test case's probability of its own class under each candidate, which the inner
cross-validation computes anyway.

Methods on the same folds and seeds as ``../correlated_predictive/`` (so ``pi_naive_T``
reproduces its rows): ``pi_naive_T`` (the default's predictive on the plug-in posterior, the
best k: the control), ``pi_stack_k`` (the same candidates, corrected, stacked over k) and
``pi_stack_kc`` (corrected and uncorrected candidates at every k, stacked; reported, not ruled
on). Weights by EM on the mixture weights (a concave problem; 500 iterations from uniform).
Run: ``python reports/plasmode/stacking_k/run.py`` (resumes from ``results.jsonl``), then
``python reports/plasmode/stacking_k/compare.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)


def stacking_weights(log_p_true, iterations=500):
    """Weights w on the simplex maximising sum_i log sum_c w_c exp(log_p_true[c, i]).

    log_p_true : (n_candidates, n_cases) log probability of each case's own class. EM for
    mixture weights (each step increases the objective). The package's
    ``selbayes.estimators.stacking_weights`` came later and stops on convergence instead of
    after a fixed count; this copy is kept so that the committed rows reproduce exactly."""
    L = np.asarray(log_p_true, dtype=np.float64)
    w = np.full(L.shape[0], 1.0 / L.shape[0])
    for _ in range(iterations):
        a = np.log(np.maximum(w, 1e-300))[:, None] + L
        r = np.exp(a - np.logaddexp.reduce(a, axis=0, keepdims=True))
        w = r.mean(axis=1)
    return w


def naive_T(Z_train, y_train, G, X_test, sel, priors, eps, seed, corrected):
    """The default's predictive on the plug-in posterior (``offline.naive_T``)."""
    from selbayes.models._gaussian_posterior import class_log_prior

    Xtr = Z_train[:, sel.indices]
    mean, prec = offline.plugin_moments(Xtr, y_train, sel, priors, corrected, seed)
    return offline.naive_T(Xtr, y_train, G, X_test, mean, prec,
                           class_log_prior(sel.class_counts, priors.c), eps)[0]


def one_replicate(scenario_name, rep):
    from selbayes.experiments.plasmode import calibration_scores
    from selbayes.models._gaussian_plugin import default_label_noise

    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks, priors, seed, data = R.X, R.yi, R.G, R.ks, R.priors, R.seed, R.data
    n = X.shape[0]
    cands = [(k, c) for c in (True, False) for k in ks]
    logp = np.zeros((len(cands), n))                      # inner log p(own class)
    for tr, te in R.folds:
        eps = default_label_noise(tr.size)
        sels = list(offline.selections(R, tr, ks))
        for ci, (k, corrected) in enumerate(cands):
            Z, feats, sel = sels[ks.index(k)]
            lp = naive_T(Z, yi[tr], G, feats.selected(X[te], sel.indices), sel, priors, eps,
                         seed, corrected)
            logp[ci, te] = lp[np.arange(te.size), yi[te]]
    nk = len(ks)
    best = int(np.argmax(logp[:nk].mean(1)))
    w_k = stacking_weights(logp[:nk])
    w_kc = stacking_weights(logp)
    eps = default_label_noise(n)
    outer = {}
    need = {best} | set(np.flatnonzero(w_k > 1e-3)) | set(np.flatnonzero(w_kc > 1e-3))
    for ci in sorted(need):
        k, corrected = cands[ci]
        Z, X_test, sel = offline.outer_selection(R, k)
        outer[ci] = np.exp(naive_T(Z, yi, G, X_test, sel, priors, eps, seed, corrected))

    def mix(w):
        return sum(w[ci] * outer[ci] for ci in outer if w[ci] > 1e-3) / sum(
            w[ci] for ci in outer if w[ci] > 1e-3)

    def inner(w):
        return float(-np.mean(np.log(np.exp(logp).T @ w)))

    probas = {"pi_naive_T": (outer[best], float(-logp[best].mean()), {str(ks[best]): 1.0}),
              "pi_stack_k": (mix(np.r_[w_k, np.zeros(nk)]), inner(np.r_[w_k, np.zeros(nk)]),
                             {str(ks[i]): float(w_k[i]) for i in range(nk) if w_k[i] > 1e-3}),
              "pi_stack_kc": (mix(w_kc), inner(w_kc),
                              {f"{cands[i][0]}{'' if cands[i][1] else 'u'}": float(w_kc[i])
                               for i in range(len(cands)) if w_kc[i] > 1e-3})}
    rows = []
    for mth, (proba, score, weights) in probas.items():
        out = calibration_scores(proba, data["p_test"])
        kw = max(weights, key=weights.get)
        out.update(method=mth, scenario=scenario_name, replicate=rep,
                   k=int(kw.rstrip("u")), inner_score=score, weights=weights,
                   seconds=time.perf_counter() - R.t0)
        rows.append(out)
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("weights",))


if __name__ == "__main__":
    raise SystemExit(main())
