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

import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "correlated_predictive"))
from run import REPLICATES, SCENARIO_NAMES, SEED  # noqa: E402

METHODS = ("pi_naive_T", "pi_stack_k", "pi_stack_kc")


def stacking_weights(log_p_true, iterations=500):
    """Weights w on the simplex maximising sum_i log sum_c w_c exp(log_p_true[c, i]).

    log_p_true : (n_candidates, n_cases) log probability of each case's own class. EM for
    mixture weights (each step increases the objective)."""
    L = np.asarray(log_p_true, dtype=np.float64)
    w = np.full(L.shape[0], 1.0 / L.shape[0])
    for _ in range(iterations):
        a = np.log(np.maximum(w, 1e-300))[:, None] + L
        r = np.exp(a - np.logaddexp.reduce(a, axis=0, keepdims=True))
        w = r.mean(axis=1)
    return w


def naive_T(Z_train, y_train, G, X_test, sel, priors, eps, seed, corrected):
    from selbayes.models._gaussian_plugin import (
        correlation_temperature,
        label_noise_log_proba,
        plugin_log_proba,
        temper_log_proba,
    )
    from selbayes.models._gaussian_posterior import class_log_prior

    Xtr = Z_train[:, sel.indices]
    prior = class_log_prior(sel.class_counts, priors.c)
    lp = plugin_log_proba(Xtr, y_train, X_test, sel, priors, corrected, n_draws=200,
                          random_state=seed)
    T = correlation_temperature(Xtr, y_train, G)
    return label_noise_log_proba(temper_log_proba(lp, prior, T), prior, eps)


def one_replicate(scenario_name, rep):
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._inner_cv import (
        DEFAULT_K_GRID,
        _candidate_selections,
        _stratified_folds,
    )
    from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, make_replicate
    from selbayes.models._gaussian_plugin import default_label_noise

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    data = make_replicate(SCENARIOS[scenario_name], SEED + 1000 * rep)
    X, y = data["X_train"], data["y_train"]
    classes, yi = np.unique(y, return_inverse=True)
    G, (n, p) = len(classes), X.shape
    priors = HierarchicalGaussianClassifier()._prior_object()
    rng = np.random.default_rng(SEED + rep)
    ks = [k for k in DEFAULT_K_GRID if k <= p - 1]
    _, folds = _stratified_folds(yi, 5, rng)
    seed = int(rng.integers(2 ** 31 - 1))
    cands = [(k, c) for c in (True, False) for k in ks]
    logp = np.zeros((len(cands), n))                      # inner log p(own class)
    for tr, te in folds:
        eps = default_label_noise(tr.size)
        sels = list(_candidate_selections(X[tr], yi[tr], G, [(k, None) for k in ks], True,
                                          "symmetric"))
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
        (Z, feats, sel), = _candidate_selections(X, yi, G, [(k, None)], True, "symmetric")
        outer[ci] = np.exp(naive_T(Z, yi, G, feats.selected(data["X_test"], sel.indices),
                                   sel, priors, eps, seed, corrected))

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
                   seconds=time.perf_counter() - t0)
        rows.append(out)
    return rows


def main() -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from joblib import Parallel, delayed

    path = HERE / "results.jsonl"
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["scenario"], r["replicate"]))
    todo = [(s, r) for s in SCENARIO_NAMES for r in range(REPLICATES) if (s, r) not in done]
    print(f"{len(done)} replicates done, {len(todo)} to run", flush=True)
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    for rows in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(one_replicate)(s, r) for s, r in todo):
        with path.open("a") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
        r0 = rows[0]
        print(f"{r0['scenario']} {r0['replicate']}: " + "; ".join(
            f"{r['method']} KL={r['kl']:.3f} slope={r['slope']:.2f} w={r['weights']}"
            for r in rows), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
