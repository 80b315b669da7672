"""Checks of ``bayes_linear.py`` against independent references, run before the suite:

1. The Laplace mode is the L2-penalised logistic regression with C = s / p (the intercept's
   prior S_B large enough to matter little): scikit-learn's lbfgs fit on the standardised
   genes with an extra column sqrt(S_B) (the intercept penalised as the prior does), latent
   values agree.
2. The predictive's latent mean and variance agree with an explicit weight-space Laplace
   computation at small p (posterior covariance of (b, w) inverted directly).
3. On data drawn from the model's own prior the marginal likelihood's s grows with the true s.

Usage: ``python reports/plasmode/bayes_linear_stack/check.py`` (prints, asserts).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bayes_linear as bl  # noqa: E402


def main() -> None:
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    n, p = 60, 300
    X = rng.normal(size=(n, p))
    w_true = np.zeros(p)
    w_true[:10] = 0.8
    y = (rng.random(n) < expit(X @ w_true)).astype(int)
    clf = bl.BayesLinearClassifier().fit(X, y)
    Z = clf.Z_
    # 1: the mode against scikit-learn (intercept as a penalised column of sqrt(S_B))
    C = clf.s_ / clf.p_
    Zb = np.column_stack([Z, np.full(n, np.sqrt(bl.S_B / C))])
    lr = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10000).fit(Zb, y)
    f_sk = Zb @ lr.coef_[0]
    err1 = np.abs(f_sk - clf.f_).max()
    print(f"1. s = {clf.s_:.3g}; max |latent(sklearn) - latent(Laplace mode)| = {err1:.2e}")
    assert err1 < 1e-4
    # 2: weight-space Laplace at the mode, small p
    Xt = rng.normal(size=(5, p))
    beta = np.concatenate([lr.coef_[0]])                  # (p + 1,) incl. scaled intercept
    pi = expit(Zb @ beta)
    H = Zb.T @ (Zb * (pi * (1 - pi))[:, None]) + np.eye(p + 1) / C
    Zt = np.column_stack([(Xt[:, clf.keep_] - clf.mean_[clf.keep_]) / clf.sd_,
                          np.full(5, np.sqrt(bl.S_B / C))])
    mean_w = Zt @ beta
    var_w = np.einsum("ij,ji->i", Zt, np.linalg.solve(H, Zt.T))
    mean, var = clf.latent(Xt)
    err2 = max(np.abs(mean - mean_w).max(), np.abs(var - var_w).max())
    print(f"2. max |latent mean, variance (function space) - (weight space)| = {err2:.2e}")
    assert err2 < 1e-4
    # 3: data drawn from the model's own prior (w ~ N(0, s/p I) on every gene): the marginal
    # likelihood recovers s, increasing with it (a sparse truth it cannot see with n < p)
    est = []
    for s_true in (0.3, 3.0, 30.0):
        w = rng.normal(scale=np.sqrt(s_true / p), size=p)
        Xs = rng.normal(size=(200, p))
        ys = (rng.random(200) < expit((Xs - Xs.mean(0)) / Xs.std(0, ddof=1) @ w)).astype(int)
        est.append(bl.BayesLinearClassifier().fit(Xs, ys).s_)
    print("3. s from data drawn with s = 0.3, 3, 30: " + ", ".join(f"{e:.3g}" for e in est))
    assert est[0] < est[1] < est[2] and 3 < est[2] / est[0]
    lp = clf.predict_log_proba(Xt)
    assert np.allclose(np.exp(lp).sum(1), 1.0, atol=1e-10)
    print("all checks pass")


if __name__ == "__main__":
    main()
