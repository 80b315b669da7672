"""A predictive with the kept genes' correlation as a low-rank-plus-diagonal (spiked) model,
the number of factors from the Marchenko-Pastur edge and their strength debiased, instead of
the correlation temperature: an offline check (plug-in posterior). The rule and the
candidate are in README.md (written before the run).

    x | class g ~ N(m_g, V_g^(1/2) R V_g^(1/2)),
    R = D^(-1/2) B D^(-1/2),  B = I + U diag(eta - 1) U',  D = diag(B),

m_g, V_g = diag(v_g) the plug-in posterior's per-gene predictive mean and variance
(moment-matched over its draws, as ``../correlated_predictive/``), so every gene's marginal
is the naive predictive's; U (k, r) the eigenvectors of the kept genes' within-class sample
correlation C whose eigenvalues, in units of the noise level sigma^2 = (k - sum of the spikes)
/ (k - r), lie above the edge (1 + sqrt(gamma))^2, gamma = k / (n - G); eta the
Frobenius-optimal shrinkage of each such eigenvalue in the spiked covariance model (Donoho,
Gavish and Johnstone 2018, Ann. Statist. 46, 1742-1778): the population spike
lambda = ((l + 1 - gamma) + sqrt((l + 1 - gamma)^2 - 4 l)) / 2, the squared cosine
c^2 = (1 - gamma / (lambda - 1)^2) / (1 + gamma / (lambda - 1)), eta = 1 + (lambda - 1) c^2.
The quadratic form is ||y||^2 - sum_i (eta_i - 1) / eta_i (u_i'y)^2 with y = D^(1/2) z, z the
deviations in units of the per-gene predictive standard deviations: O(k r) per case, never
k x k. No temperature (T = 1): the correlation is in the model.

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k chosen
with the correlation T and the share 1/(n + 2), then the share at that k), ``pi_factor`` (the
candidate, chosen the same way) and ``pi_factor_r0`` (the same with r = 0: the moment-matched
independent Gaussian predictive without T; reported, to show what the factors add). Run:
``python reports/plasmode/factor_predictive/run.py [jobs]`` (resumes from ``results.jsonl``),
then ``compare.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

_spec = importlib.util.spec_from_file_location("correlated_predictive_run",
                                               HERE.parent / "correlated_predictive" / "run.py")
correlated = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(correlated)   # its standardised residuals, one definition

OPTIONS = ("control", "factor", "factor_r0")
METHODS = ("pi_noise_cv", "pi_factor", "pi_factor_r0")


def spikes(E, dof):
    """(U (k, r), eta (r,)) of the within-class correlation of the standardised residuals E
    (n, k) with dof = n - G: the eigenvectors above the Marchenko-Pastur edge and their
    shrunk eigenvalues, in units of the noise level (module docstring)."""
    k = E.shape[1]
    _, s, Qt = np.linalg.svd(E / np.sqrt(dof), full_matrices=False)
    ell = s ** 2                                             # eigenvalues of C, descending
    gamma = k / dof
    edge = (1.0 + np.sqrt(gamma)) ** 2
    r = 0
    for _ in range(3):     # sigma^2 and the spikes depend on each other: a few fixed-point steps
        sigma2 = (k - ell[:r].sum()) / (k - r)
        r_new = int(np.sum(ell / sigma2 > edge))
        r_new = min(r_new, dof - 1)
        if r_new == r:
            break
        r = r_new
    sigma2 = (k - ell[:r].sum()) / (k - r)
    lo = ell[:r] / sigma2
    b = lo + 1.0 - gamma
    lam = (b + np.sqrt(np.maximum(b * b - 4.0 * lo, 0.0))) / 2.0
    c2 = np.clip((1.0 - gamma / (lam - 1.0) ** 2) / (1.0 + gamma / (lam - 1.0)), 0.0, 1.0)
    eta = 1.0 + (lam - 1.0) * c2
    return Qt[:r].T, eta


def factor_log_proba(E, X_test, mean, prec, log_prior, dof, rank_zero=False):
    """Normalised log p(class | x) under the spiked-correlation predictive, (m, G)."""
    U, eta = spikes(E, dof)
    if rank_zero:
        U, eta = U[:, :0], eta[:0]
    m = mean.mean(0)                                         # (k, G)
    v = (1.0 / prec).mean(0) + mean.var(0)                  # (k, G)
    Z = (X_test[:, :, None] - m[None]) / np.sqrt(v)[None]   # (m, k, G)
    d = 1.0 + (U ** 2) @ (eta - 1.0)                          # diag(B), (k,)
    Y = Z * np.sqrt(d)[None, :, None]
    proj = np.einsum("kr,mkg->mrg", U, Y)                    # (m, r, G)
    q = (Y ** 2).sum(1) - np.einsum("r,mrg->mg", (eta - 1.0) / eta, proj ** 2)
    ll = -0.5 * q - 0.5 * np.log(v).sum(0)[None] + log_prior[None]
    return ll - np.logaddexp.reduce(ll, axis=1, keepdims=True), U.shape[1]


def option_log_probas(Z_train, y_train, G, X_test, sel, priors, n, seed):
    """(len(OPTIONS), len(offline.LABEL_NOISE_SHARES), m, G) log probabilities, and (the
    correlation T, r)."""
    from selbayes.models._gaussian_posterior import class_log_prior

    Xtr = Z_train[:, sel.indices]
    mean, prec = offline.plugin_moments(Xtr, y_train, sel, priors, True, seed)
    prior = class_log_prior(sel.class_counts, priors.c)
    control, T = offline.naive_T(Xtr, y_train, G, X_test, mean, prec, prior, 0.0)
    E = correlated.standardised_residuals(Xtr, y_train, G)
    dof = Xtr.shape[0] - G
    factor, r = factor_log_proba(E, X_test, mean, prec, prior, dof)
    r0, _ = factor_log_proba(E, X_test, mean, prec, prior, dof, rank_zero=True)
    return (np.stack([offline.with_shares(lp, prior, n) for lp in (control, factor, r0)]),
            (float(T), int(r)))


def one_replicate(scenario_name, rep):
    return offline.one_option_each(
        scenario_name, rep, METHODS, option_log_probas,
        lambda oi, info: {"temperature": info[0] if oi == 0 else 1.0,
                          "factors": info[1] if oi == 1 else 0},
        curve_names=OPTIONS)


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "factors", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
