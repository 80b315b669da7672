"""Checks of the EP component (now ``selbayes.models.fit_linear_probit`` and ``ep_probit``;
``tests/models/test_linear_probit.py`` runs them in ``make test``) against independent
references, run before the suite:

1. EP's log marginal likelihood at a fixed s against a Monte Carlo estimate of the exact one,
   log E[prod_i Phi(y_i f_i)] over f ~ N(0, K) (n = 6, 2 million draws), at small, medium and
   large s; and EP's predictive at that s against the exact one by Monte Carlo,
   E[Phi(f*) prod_i Phi(y_i f_i)] / E[prod_i Phi(y_i f_i)] over the joint prior of (f, f*).
2. The classifier's predictive, s integrated over its prior on the grid, against the exact
   one by Monte Carlo with log s drawn from the same prior (n = 6).
3. With more cases than genes (400, 100) the posterior of s recovers the s the labels were
   drawn with; with more genes than cases (200, 300) the marginal likelihood levels off as s
   grows (the classes are separable), which is why s is integrated over its prior and not set
   at the maximum.

Usage: ``python reports/plasmode/bayes_linear_ep/check.py`` (prints, asserts; about a
minute).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from selbayes.models import ep_probit, fit_linear_probit
from selbayes.models._linear_probit import INTERCEPT_VARIANCE, LOG_S_SD

N, P, DRAWS = 6, 20, 2_000_000


def kernel(X, s):
    """The classifier's kernel over training rows X[:N] and the test row X[N]."""
    Z = (X - X[:N].mean(0)) / X[:N].std(0, ddof=1)
    return s * Z @ Z.T / X.shape[1] + INTERCEPT_VARIANCE


def main() -> None:
    rng = np.random.default_rng(0)
    # 1: fixed s
    for s in (0.5, 5.0, 50.0):
        X = rng.normal(size=(N + 1, P))
        y = np.sign(rng.normal(size=N))
        Kall = kernel(X, s)
        nu, tau, L, logZ = ep_probit(Kall[:N, :N], y)
        f = rng.multivariate_normal(np.zeros(N + 1), Kall, size=DRAWS)
        lik = ndtr(y * f[:, :N]).prod(1)
        mc, se = np.log(lik.mean()), lik.std() / lik.mean() / np.sqrt(DRAWS)
        p_mc = (ndtr(f[:, N]) * lik).mean() / lik.mean()
        fit = fit_linear_probit(X[:N], (y > 0).astype(int))
        fit.log_s, fit.weights, fit.sites = np.array([np.log(s)]), np.array([1.0]), [(nu, tau)]
        p_ep = float(np.exp(fit.predict_log_proba(X[N:])[0, 1]))
        print(f"1. s = {s:5.1f}: log Z EP {logZ:.4f}, Monte Carlo {mc:.4f} ± {se:.4f}; "
              f"P(y* = 1) EP {p_ep:.4f}, Monte Carlo {p_mc:.4f}")
        assert abs(logZ - mc) < 4 * se + 0.02
        assert abs(p_ep - p_mc) < 0.01
    # 2: s integrated over its prior
    X = rng.normal(size=(N + 1, P))
    y01 = np.array([1, 1, 1, 0, 0, 1])
    y = 2.0 * y01 - 1
    p_ep = float(np.exp(fit_linear_probit(X[:N], y01).predict_log_proba(X[N:])[0, 1]))
    log_s = rng.normal(scale=LOG_S_SD, size=DRAWS // 10)
    num = den = 0.0
    Z = (X - X[:N].mean(0)) / X[:N].std(0, ddof=1)
    G0 = Z @ Z.T / P
    e, V = np.linalg.eigh(G0)
    e = np.clip(e, 0, None)
    for chunk in np.array_split(log_s, 20):      # f = sqrt(s) G0^1/2 u + b, per draw of s
        u = rng.normal(size=(chunk.size, N + 1)) * np.sqrt(e)
        f = np.sqrt(np.exp(chunk))[:, None] * (u @ V.T)
        f += rng.normal(scale=np.sqrt(INTERCEPT_VARIANCE), size=(chunk.size, 1))
        lik = ndtr(y * f[:, :N]).prod(1)
        num += (ndtr(f[:, N]) * lik).sum()
        den += lik.sum()
    p_mc = num / den
    print(f"2. s integrated: P(y* = 1) EP on the grid {p_ep:.4f}, Monte Carlo {p_mc:.4f}")
    assert abs(p_ep - p_mc) < 0.01
    # 3: the posterior of s with n > p; the levelling off with p > n
    est = []
    for s_true in (0.3, 3.0, 30.0):
        w = rng.normal(scale=np.sqrt(s_true / 100), size=100)
        Xs = rng.normal(size=(400, 100))
        f = (Xs - Xs.mean(0)) / Xs.std(0, ddof=1) @ w
        ys = (rng.random(400) < ndtr(f)).astype(int)
        est.append(fit_linear_probit(Xs, ys).s)
    print("3. n = 400 > p = 100: posterior s for s = 0.3, 3, 30: "
          + ", ".join(f"{e:.3g}" for e in est))
    assert all(0.33 < e / t < 3 for e, t in zip(est, (0.3, 3.0, 30.0), strict=True))
    w = rng.normal(scale=np.sqrt(3.0 / 300), size=300)
    Xs = rng.normal(size=(200, 300))
    ys = (rng.random(200) < ndtr((Xs - Xs.mean(0)) / Xs.std(0, ddof=1) @ w)).astype(int)
    c = fit_linear_probit(Xs, ys)
    G0 = c.Z @ c.Z.T / c.Z.shape[1]
    curve = [ep_probit(np.exp(g) * G0 + INTERCEPT_VARIANCE, 2.0 * ys - 1)[3]
             for g in (4.0, 7.0, 10.0)]
    print("   n = 200 < p = 300, s = 3: log Z EP at s = e^4, e^7, e^10: "
          + ", ".join(f"{v:.2f}" for v in curve) + f"; posterior s {c.s:.3g}")
    assert curve[2] - curve[0] > -1.0           # levels off or still rises: no interior max
    print("all checks pass")


if __name__ == "__main__":
    main()
