"""The correlated predictive with the uncertainty of the correlation itself: an offline check
(plug-in posterior), after ``../correlated_predictive/`` found the plain one overconfident.

With the kept genes' within-class correlation matrix Sigma (k x k, of the genes scaled by their
predictive standard deviations) given an inverse-Wishart prior with mean I (independence) and
strength c, Sigma ~ IW((nu_0 - k - 1) I, nu_0), nu_0 = k + 1 + c, the posterior after the n - G
degrees of freedom of the standardised within-class residuals E (n x k) is
IW(c I + E'E, nu_0 + n - G), and a new case's predictive given its class is the multivariate t

    x | g ~ t_nu(m_g, V_g^(1/2) R V_g^(1/2)),  nu = c + n - G + 2,  R = (c I + E'E) / nu,

(e.g. Murphy 2007, "Conjugate Bayesian analysis of the Gaussian distribution", sec. 9), with
m_g and V_g = diag(v_g) the plug-in posterior's per-gene predictive means and variances as in
``../correlated_predictive/run.py``. Its log density, -(nu + k)/2 log(1 + q_g / nu) with q_g
the quadratic form, grows only logarithmically in q: where a test case's deviation is larger
than R allows (outside the span of the training residuals, which ``../correlated_predictive``
found to make the plain predictive too sharp) the log odds between classes shrink by about
(nu + k)/(nu + q). c is set by a = c / (c + n - G), the weight of independence, over the same
grid as before (a = 1: the naive Gaussian predictive without temperature), and chosen with k
by the same inner cross-validation.

Two methods on the same folds and seeds as ``../correlated_predictive/`` (so ``pi_naive_T``
reproduces that check's rows): ``pi_naive_T`` (the control) and ``pi_corr_t`` (corrected
posterior, multivariate t predictive). Run: ``python
reports/plasmode/correlated_t_predictive/run.py`` (resumes from ``results.jsonl``), then
``python reports/plasmode/correlated_t_predictive/compare.py``.
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
from run import ALPHAS, REPLICATES, SCENARIO_NAMES, SEED, standardised_residuals  # noqa: E402

METHODS = ("pi_naive_T", "pi_corr_t")


def correlated_t_log_proba(E, X_test, mean, prec, log_prior, alphas, n_minus_g):
    """Normalised log p(class | x) under the multivariate t predictive for every a:
    (len(a), m, G). mean, prec: per-draw predictive moments, (S, k, G)."""
    m = mean.mean(0)
    v = (1.0 / prec).mean(0) + mean.var(0)
    Z = (X_test[:, :, None] - m[None]) / np.sqrt(v)[None]  # (m, k, G)
    k = Z.shape[1]
    zz = np.einsum("mkg,mkg->mg", Z, Z)
    EZ = np.einsum("nk,mkg->mgn", E, Z)
    EE = E @ E.T                                           # E'E's nonzero part, via n x n
    half_logdet = 0.5 * np.log(v).sum(0)
    out = []
    for a in alphas:
        if a >= 1.0:
            ll = -0.5 * zz
        else:
            c = a * n_minus_g / (1.0 - a)
            nu = c + n_minus_g + 2.0
            M = c * np.eye(EE.shape[0]) + EE
            sol = np.linalg.solve(M, EZ.reshape(-1, EE.shape[0]).T).T.reshape(EZ.shape)
            q = nu / c * (zz - np.einsum("mgn,mgn->mg", EZ, sol))
            ll = -0.5 * (nu + k) * np.log1p(q / nu)
        ll = ll - half_logdet[None] + log_prior[None]
        out.append(ll - np.logaddexp.reduce(ll, axis=1, keepdims=True))
    return np.stack(out)


def candidate_log_probas(Z_train, y_train, G, X_test, sel, priors, eps, seed):
    from selbayes.models._gaussian_plugin import (
        correlation_temperature,
        label_noise_log_proba,
        plugin_posterior,
        temper_log_proba,
    )
    from selbayes.models._gaussian_posterior import (
        class_log_prior,
        factorised_predictive_log_proba,
        predictive_moments,
    )

    Xtr = Z_train[:, sel.indices]
    E = standardised_residuals(Xtr, y_train, G)
    prior = class_log_prior(sel.class_counts, priors.c)
    post = plugin_posterior(Xtr, y_train, sel, priors, corrected=True, n_draws=200,
                            random_state=seed)
    S = post["tau_x"].shape[0]
    mean, prec = predictive_moments(post["tau_x"], np.full(S, post["tau_mu"]),
                                    np.full(S, post["tau_nu"]), post["xbar"], post["counts"],
                                    lambda_mu=post["lambda_mu"])
    lp_t = correlated_t_log_proba(E, X_test, mean, prec, prior, ALPHAS, Xtr.shape[0] - G)
    lp = factorised_predictive_log_proba(X_test, mean, prec, prior, max_draws=None)
    T = correlation_temperature(Xtr, y_train, G)
    return {"pi_corr_t": np.stack([label_noise_log_proba(x, prior, eps) for x in lp_t]),
            "pi_naive_T": label_noise_log_proba(temper_log_proba(lp, prior, T), prior,
                                                eps)[None],
            "_T": T}


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
    n_set = {"pi_naive_T": 1, "pi_corr_t": len(ALPHAS)}
    loss = {mth: np.zeros((len(ks), n_set[mth], n)) for mth in METHODS}
    for tr, te in folds:
        eps = default_label_noise(tr.size)
        for ki, (Z, feats, sel) in enumerate(_candidate_selections(
                X[tr], yi[tr], G, [(k, None) for k in ks], True, "symmetric")):
            lps = candidate_log_probas(Z, yi[tr], G, feats.selected(X[te], sel.indices), sel,
                                       priors, eps, seed)
            for mth in METHODS:
                loss[mth][ki][:, te] = -lps[mth][:, np.arange(te.size), yi[te]]
    eps = default_label_noise(n)
    fits = {}
    for mth in METHODS:
        score = loss[mth].mean(-1)
        ki, si = np.unravel_index(np.argmin(score), score.shape)
        fits[mth] = (ks[ki], si, float(score[ki, si]))
    rows = []
    for k in sorted({f[0] for f in fits.values()}):
        (Z, feats, sel), = _candidate_selections(X, yi, G, [(k, None)], True, "symmetric")
        lps = candidate_log_probas(Z, yi, G, feats.selected(data["X_test"], sel.indices), sel,
                                   priors, eps, seed)
        for mth in METHODS:
            if fits[mth][0] != k:
                continue
            si = fits[mth][1]
            out = calibration_scores(np.exp(lps[mth][si]), data["p_test"])
            out.update(method=mth, scenario=scenario_name, replicate=rep, k=int(k),
                       inner_score=fits[mth][2],
                       alpha=None if mth == "pi_naive_T" else float(ALPHAS[si]),
                       temperature=float(lps["_T"]) if mth == "pi_naive_T" else 1.0,
                       inner_curve={str(kk): [float(s) for s in loss[mth][i].mean(-1)]
                                    for i, kk in enumerate(ks)},
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
        print(f"{r0['scenario']} {r0['replicate']}: " + ", ".join(
            f"{r['method']} k={r['k']} a={r['alpha']} KL={r['kl']:.3f} slope={r['slope']:.2f}"
            for r in rows), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
