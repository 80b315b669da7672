"""Validate the test-only Gibbs reference sampler against brute-force grid integrals.

For one feature, mu and nu can be integrated out in closed form: given the precisions, the class
means xbar_g are N(nu, 1/tau_mu + 1/(n_g tau_x)) independently given nu, nu ~ N(0, 1/tau_nu),
and the within-class sum of squares W contributes tau_x^((n - G)/2) exp(-tau_x W / 2). So the
joint posterior of (log tau_mu, log tau_nu) is a 2-D grid integral with a 1-D inner integral over
log tau_x per feature, and the posterior means of nu and mu follow from their Gaussian conditional
means. The sampler's averages must match these to within a few Monte Carlo standard errors
(batch means). Unbalanced classes make the erratum of eq 18 (divide by n_g, not n) matter.
"""

import numpy as np
import pytest
from scipy import special

from selbayes.datasets import gaussian_classification

try:
    from reference.gibbs_gaussian import gibbs_gaussian
except ImportError:  # tests/ imported as a package
    from tests.reference.gibbs_gaussian import gibbs_gaussian

PRIORS = dict(c=1.0, alpha_x=4.0, w_x=1.0, alpha_mu=6.0, w_mu=0.5, alpha_nu=6.0, w_nu=1.0)
Z = 4.5


def dummy_log_omit_prob(u):
    """A stand-in adjustment: increasing in u = log(tau_mu w_x), <= 0, like the real one."""
    return special.log_ndtr(u - 1.0)


@pytest.fixture(scope="module")
def tiny():
    d = gaussian_classification(None, 3, n_classes=2, class_counts=[3, 6], tau_mu=2.0,
                                tau_nu=1.0, alpha_x=4.0, w_x=1.0, random_state=2024)
    return d.X, d.y


def grid_posterior(X, y, G, pr, log_omit_prob=None, n_omitted=0, eta_mu=None, eta_nu=None,
                   n_x=121, n_hyper=61):
    """Posterior means of log tau_mu, log tau_nu, log tau_x (k,), nu (k,), mu (k, G) by grids.

    Riemann sums on log-scale grids (the integrands are smooth and decay fast, so this
    converges geometrically; test_grid_reference_is_converged checks it).
    """
    eta_x = np.linspace(-8.0, 7.0, n_x)
    eta_mu = np.linspace(-6.0, 6.0, n_hyper) if eta_mu is None else np.atleast_1d(eta_mu)
    eta_nu = np.linspace(-6.0, 6.0, n_hyper) if eta_nu is None else np.atleast_1d(eta_nu)
    tx = np.exp(eta_x)[:, None, None]                        # (Nx, 1, 1)
    tm = np.exp(eta_mu)[None, :, None]                       # (1, Nm, 1)
    tn = np.exp(eta_nu)[None, None, :]                       # (1, 1, Nn)
    n, k = X.shape
    n_g = np.bincount(y, minlength=G).astype(float)
    ax, wx = pr["alpha_x"], pr["w_x"]
    log_post_hyper = ((pr["alpha_mu"] / 2) * np.log(tm) - pr["alpha_mu"] * pr["w_mu"] * tm / 2
                      + (pr["alpha_nu"] / 2) * np.log(tn) - pr["alpha_nu"] * pr["w_nu"] * tn / 2)
    if log_omit_prob is not None:
        log_post_hyper = log_post_hyper + n_omitted * log_omit_prob(np.log(tm) + np.log(wx))
    log_post_hyper = log_post_hyper[0]                       # (Nm, Nn)
    per_feature = []
    for j in range(k):                                       # k is tiny in these tests
        x = X[:, j]
        xbar = np.array([x[y == g].mean() for g in range(G)])
        W = sum(((x[y == g] - xbar[g]) ** 2).sum() for g in range(G))
        v = [1 / tm + 1 / (n_g[g] * tx) for g in range(G)]  # each (Nx, Nm, 1)
        s1 = sum(1 / vg for vg in v)
        sx = sum(xbar[g] / v[g] for g in range(G))
        quad = sum(xbar[g] ** 2 / v[g] for g in range(G)) - sx**2 / (tn + s1)
        logdet = sum(np.log(vg) for vg in v) + np.log1p(s1 / tn)
        log_int = ((ax / 2) * np.log(tx) - ax * wx * tx / 2           # prior x Jacobian
                   + (n - G) / 2 * np.log(tx) - tx * W / 2 - 0.5 * (logdet + quad))
        lse = special.logsumexp(log_int, axis=0)             # (Nm, Nn)
        px = np.exp(log_int - lse)                           # p(eta_x | hypers, data)
        e_nu = sx / (tn + s1)                                # E[nu | precisions, data]
        e_mu = [(e_nu * tm + xbar[g] * n_g[g] * tx) / (tm + n_g[g] * tx) for g in range(G)]
        per_feature.append((lse, px, e_nu, e_mu))
    log_w = log_post_hyper + sum(f[0] for f in per_feature)
    w = np.exp(log_w - special.logsumexp(log_w))             # (Nm, Nn)
    res = {
        "log_tau_mu": float((w * eta_mu[:, None]).sum()),
        "log_tau_nu": float((w * eta_nu[None, :]).sum()),
        "log_tau_x": np.array([(w * (px * eta_x[:, None, None]).sum(0)).sum()
                               for _, px, _, _ in per_feature]),
        "nu": np.array([(w * (px * e_nu).sum(0)).sum() for _, px, e_nu, _ in per_feature]),
        "mu": np.array([[(w * (px * e_mu[g]).sum(0)).sum() for g in range(G)]
                        for _, px, _, e_mu in per_feature]),
    }
    return res


def batch_se(draws, n_batches=50):
    """Batch-means Monte Carlo standard error of the mean, per trailing coordinate."""
    draws = np.asarray(draws)
    m = draws.shape[0] // n_batches
    means = draws[: m * n_batches].reshape(n_batches, m, *draws.shape[1:]).mean(axis=1)
    return means.std(axis=0, ddof=1) / np.sqrt(n_batches)


def compare(chain, ref):
    est = {
        "log_tau_mu": np.log(chain["tau_mu"]),
        "log_tau_nu": np.log(chain["tau_nu"]),
        "log_tau_x": np.log(chain["tau_x"]),
        "nu": chain["nu"],
        "mu": chain["mu"],
    }
    for key, draws in est.items():
        mean = draws.mean(axis=0)
        se = batch_se(draws)
        if np.all(se == 0):                                  # a fixed parameter
            np.testing.assert_allclose(mean, ref[key], rtol=1e-12)
            continue
        z = np.abs(mean - ref[key]) / se
        assert np.all(z < Z), (key, mean, ref[key], se)


def test_grid_reference_is_converged(tiny):
    X, y = tiny
    a = grid_posterior(X, y, 2, PRIORS, dummy_log_omit_prob, 20)
    b = grid_posterior(X, y, 2, PRIORS, dummy_log_omit_prob, 20, n_x=241,
                       eta_mu=np.linspace(-7, 7, 121), eta_nu=np.linspace(-7, 7, 121))
    for key in a:
        np.testing.assert_allclose(a[key], b[key], atol=1e-6)


@pytest.mark.parametrize(
    "variant",
    ["uncorrected-gibbs", "uncorrected-metropolis", "corrected", "fixed-hypers"],
)
def test_gibbs_matches_grid_posterior(tiny, variant):
    X, y = tiny
    kw, ref_kw = {}, {}
    if variant == "uncorrected-metropolis":
        kw = dict(tau_mu_update="metropolis")
    elif variant == "corrected":
        kw = dict(log_omit_prob=dummy_log_omit_prob, n_omitted=20)
        ref_kw = dict(log_omit_prob=dummy_log_omit_prob, n_omitted=20)
    elif variant == "fixed-hypers":
        kw = dict(fixed={"tau_mu": 2.0, "tau_nu": 0.5})
        ref_kw = dict(eta_mu=np.log(2.0), eta_nu=np.log(0.5))
    chain = gibbs_gaussian(X, y, 2, PRIORS, n_iter=16_000, burn=500, thin=1,
                           random_state=7, **kw)
    assert chain["mu"].shape == (15_500, 3, 2) and chain["tau_mu"].shape == (15_500,)
    if variant in ("uncorrected-metropolis", "corrected"):
        assert 0.2 < chain["accept_rate"] < 0.9
    compare(chain, grid_posterior(X, y, 2, PRIORS, **ref_kw))


def test_correction_moves_tau_mu_up(tiny):
    """The dummy factor rewards large tau_mu; the grid says by how much, and so must the chain."""
    X, y = tiny
    plain = grid_posterior(X, y, 2, PRIORS)
    corr = grid_posterior(X, y, 2, PRIORS, dummy_log_omit_prob, 20)
    assert corr["log_tau_mu"] > plain["log_tau_mu"] + 0.3


def test_argument_checks():
    X = np.zeros((4, 2))
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="missing"):
        gibbs_gaussian(X, y, 2, {"alpha_x": 1.0}, 10)
    with pytest.raises(ValueError, match="metropolis"):
        gibbs_gaussian(X, y, 2, PRIORS, 10, log_omit_prob=dummy_log_omit_prob,
                       tau_mu_update="gibbs")
    out = gibbs_gaussian(X + np.arange(8).reshape(4, 2), y, 2, PRIORS, 10, burn=2, thin=3,
                         random_state=0)
    assert out["nu"].shape == (3, 2)                          # sweeps 2, 5, 8
