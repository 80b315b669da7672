"""Test-only reference sampler for the hierarchical Gaussian classifier (seed 000 section 3.2).

The paper's Gibbs sampler (eqs 18-22, with the spec's erratum: the class mean in eq 18 divides
by n_g), plus the Metropolis update on log tau_mu that the corrected posterior needs (proposal
sd 0.5, 5 updates per sweep; seed 000 section 4.1). It is deliberately plain numpy, written
from the equations and independent of the PyMC model, so that the two can be compared.

Model (features j = 1..k, classes g = 0..G-1):

    x_ij | y_i = g ~ N(mu_jg, 1/tau_x_j)
    mu_jg | nu_j   ~ N(nu_j, 1/tau_mu)
    nu_j           ~ N(0, 1/tau_nu)
    tau_x_j ~ Gamma(alpha_x/2, rate alpha_x w_x/2), and likewise tau_mu, tau_nu.

Corrected posterior: times P(F <= gamma | tau_mu w_x)^(n_omitted), supplied as
``n_omitted * log_omit_prob(log(tau_mu * w_x))``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["gibbs_gaussian", "PRIOR_KEYS"]

PRIOR_KEYS = ("alpha_x", "w_x", "alpha_mu", "w_mu", "alpha_nu", "w_nu")


def _gamma(rng, shape, rate):
    return rng.gamma(shape, 1.0 / rate)


def gibbs_gaussian(X_sel, y_index, n_classes, priors, n_iter, burn=0, thin=1, *,
                   log_omit_prob=None, n_omitted=0, tau_mu_update="auto", n_metropolis=5,
                   proposal_sd=0.5, fixed=None, init=None, random_state=None):
    """Sample the (optionally selection-corrected) posterior of the Gaussian classifier.

    Parameters
    ----------
    X_sel : array of shape (n, k)
        Retained features of the training cases.
    y_index : int array of shape (n,)
        Classes 0..G-1 (every class needs at least one case).
    n_classes : int
        G.
    priors : dict
        ``alpha_x, w_x, alpha_mu, w_mu, alpha_nu, w_nu`` (``c`` may be present; psi separates
        from the rest of the posterior and is not sampled). Each precision has prior
        Gamma(alpha/2, rate alpha w/2).
    n_iter, burn, thin : int
        Sweeps in total; sweeps ``burn, burn + thin, ...`` (0-based) are kept.
    log_omit_prob : callable or None
        ``f(log(tau_mu * w_x)) -> log P(omitted F <= gamma)`` (scalar in, scalar out). None means
        uncorrected.
    n_omitted : int
        p - k, the power of the adjustment factor.
    tau_mu_update : {"auto", "gibbs", "metropolis"}
        "gibbs": exact draw from eq 21 (only without a correction); "metropolis": random-walk
        Metropolis on log tau_mu; "auto": Gibbs when uncorrected, else Metropolis.
    n_metropolis, proposal_sd : int, float
        Metropolis updates per sweep and the Gaussian proposal sd on log tau_mu (paper: 5, 0.5).
    fixed : dict, optional
        ``{"tau_mu": value, "tau_nu": value}`` (either or both) held fixed instead of sampled.
    init : dict, optional
        Starting values for any of ``mu`` (k, G), ``nu`` (k,), ``tau_x`` (k,), ``tau_mu``,
        ``tau_nu``; the default starts from the data (class means, pooled variances).
    random_state : int, Generator or None

    Returns
    -------
    dict of ndarray
        ``mu`` (draws, k, G), ``nu`` (draws, k), ``tau_x`` (draws, k), ``tau_mu`` (draws,),
        ``tau_nu`` (draws,), and ``accept_rate`` (scalar; nan when no Metropolis step ran).
    """
    rng = np.random.default_rng(random_state)
    X = np.asarray(X_sel, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X_sel must be 2-D (n, k); got shape {X.shape}")
    y = np.asarray(y_index, dtype=np.int64)
    n, k = X.shape
    G = int(n_classes)
    if y.shape != (n,) or y.min() < 0 or y.max() >= G:
        raise ValueError("y_index must hold n labels in 0..n_classes-1")
    missing = [key for key in PRIOR_KEYS if key not in priors]
    if missing:
        raise ValueError(f"priors is missing {missing}")
    ax, wx = float(priors["alpha_x"]), float(priors["w_x"])
    am, wm = float(priors["alpha_mu"]), float(priors["w_mu"])
    an, wn = float(priors["alpha_nu"]), float(priors["w_nu"])
    if tau_mu_update not in ("auto", "gibbs", "metropolis"):
        raise ValueError(f"tau_mu_update must be auto, gibbs or metropolis; got {tau_mu_update!r}")
    if tau_mu_update == "gibbs" and log_omit_prob is not None:
        raise ValueError("the corrected tau_mu conditional has no closed form: use metropolis")
    use_mh = tau_mu_update == "metropolis" or (tau_mu_update == "auto"
                                               and log_omit_prob is not None)
    fixed = dict(fixed or {})
    init = dict(init or {})

    onehot = np.zeros((n, G))
    onehot[np.arange(n), y] = 1.0
    n_g = onehot.sum(axis=0)                                  # (G,)
    if np.any(n_g == 0):
        raise ValueError("every class needs at least one training case")
    S = X.T @ onehot                                          # (k, G) class sums = n_g * xbar

    # starting values
    xbar = S / n_g
    mu = np.array(init.get("mu", xbar), dtype=np.float64)
    nu = np.array(init.get("nu", mu.mean(axis=1)), dtype=np.float64)
    resid0 = X - xbar[:, y].T
    tau_x = np.array(init.get("tau_x", (n - G) / np.maximum((resid0**2).sum(axis=0), 1e-12)),
                     dtype=np.float64)
    tau_mu = float(fixed.get("tau_mu", init.get("tau_mu", 1.0)))
    tau_nu = float(fixed.get("tau_nu", init.get("tau_nu", 1.0)))

    def log_target_eta(eta, shape, rate):
        """log density of eta = log tau_mu: Gamma conditional x Jacobian x adjustment."""
        val = shape * eta - rate * np.exp(eta)
        if log_omit_prob is not None and n_omitted:
            val += n_omitted * float(log_omit_prob(eta + np.log(wx)))
        return val

    keep = [it for it in range(n_iter) if it >= burn and (it - burn) % thin == 0]
    D = len(keep)
    out = {"mu": np.empty((D, k, G)), "nu": np.empty((D, k)), "tau_x": np.empty((D, k)),
           "tau_mu": np.empty(D), "tau_nu": np.empty(D)}
    n_acc = n_prop = 0
    d = 0
    for it in range(n_iter):
        # eq 18 (erratum: xbar = S / n_g, so xbar n_g tau_x = S tau_x)
        prec = tau_mu + n_g[None, :] * tau_x[:, None]           # (k, G)
        mean = (nu[:, None] * tau_mu + S * tau_x[:, None]) / prec
        mu = mean + rng.standard_normal((k, G)) / np.sqrt(prec)
        # eq 19
        resid = X - mu[:, y].T
        tau_x = _gamma(rng, (ax + n) / 2.0, (ax * wx + (resid**2).sum(axis=0)) / 2.0)
        # eq 20
        pn = tau_nu + G * tau_mu
        nu = (mu.sum(axis=1) * tau_mu) / pn + rng.standard_normal(k) / np.sqrt(pn)
        # eq 21 (times the adjustment factor when corrected)
        shape = (am + G * k) / 2.0
        rate = (am * wm + ((mu - nu[:, None]) ** 2).sum()) / 2.0
        if "tau_mu" not in fixed:
            if use_mh:
                eta = np.log(tau_mu)
                cur = log_target_eta(eta, shape, rate)
                for _ in range(n_metropolis):
                    prop = eta + proposal_sd * rng.standard_normal()
                    new = log_target_eta(prop, shape, rate)
                    n_prop += 1
                    if np.log(rng.random()) < new - cur:
                        eta, cur = prop, new
                        n_acc += 1
                tau_mu = float(np.exp(eta))
            else:
                tau_mu = float(_gamma(rng, shape, rate))
        # eq 22
        if "tau_nu" not in fixed:
            tau_nu = float(_gamma(rng, (an + k) / 2.0, (an * wn + (nu**2).sum()) / 2.0))
        if d < D and it == keep[d]:
            out["mu"][d] = mu
            out["nu"][d] = nu
            out["tau_x"][d] = tau_x
            out["tau_mu"][d] = tau_mu
            out["tau_nu"][d] = tau_nu
            d += 1
    out["accept_rate"] = n_acc / n_prop if n_prop else float("nan")
    return out
