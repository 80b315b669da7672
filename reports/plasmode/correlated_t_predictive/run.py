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

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "correlated_predictive")]
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)
from run import (  # noqa: E402  (the first check's)
    ALPHAS,
    describe,
    standardised_deviations,
    standardised_residuals,
)


def correlated_t_log_proba(E, X_test, mean, prec, log_prior, alphas, n_minus_g):
    """Normalised log p(class | x) under the multivariate t predictive for every a:
    (len(a), m, G). mean, prec: per-draw predictive moments, (S, k, G)."""
    zz, EZ, EE, half_logdet = standardised_deviations(E, X_test, mean, prec)
    k = mean.shape[1]
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
    from selbayes.models._gaussian_plugin import label_noise_log_proba
    from selbayes.models._gaussian_posterior import class_log_prior

    Xtr = Z_train[:, sel.indices]
    E = standardised_residuals(Xtr, y_train, G)
    prior = class_log_prior(sel.class_counts, priors.c)
    mean, prec = offline.plugin_moments(Xtr, y_train, sel, priors, True, seed)
    lp_t = correlated_t_log_proba(E, X_test, mean, prec, prior, ALPHAS, Xtr.shape[0] - G)
    lp, T = offline.naive_T(Xtr, y_train, G, X_test, mean, prec, prior, eps)
    return {"pi_corr_t": np.stack([label_noise_log_proba(x, prior, eps) for x in lp_t]),
            "pi_naive_T": lp[None], "_T": T}


def one_replicate(scenario_name, rep):
    return offline.choose_and_score(scenario_name, rep,
                                    {"pi_naive_T": 1, "pi_corr_t": len(ALPHAS)},
                                    candidate_log_probas, describe)


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "alpha"))


if __name__ == "__main__":
    raise SystemExit(main())
