"""NUTS on the PyMC model against the paper's Gibbs sampler (an independent algorithm written
from eqs 18-22, tests/reference/gibbs_gaussian.py), corrected and uncorrected (issue 5)."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest

from selbayes import HierarchicalGaussianClassifier, select_features
from selbayes.adjustment import FStatOmitLogProb
from selbayes.datasets import gaussian_classification
from selbayes.estimators import EXACT_MODEL

from ..reference.gibbs_gaussian import gibbs_gaussian

PRIORS = dict(c=1.0, alpha_x=4.0, w_x=1.0, alpha_mu=1.5, w_mu=0.01, alpha_nu=1.5, w_nu=0.01)


def _mcse_mean(draws_by_chain: np.ndarray) -> float:
    """Monte Carlo standard error of the mean of (chain, draw) draws (ArviZ, ESS based)."""
    da = az.convert_to_dataset({"v": draws_by_chain})
    return float(az.mcse(da)["v"])


# make slow: each variant compiles a new model shape (k = 5, G = 3) and runs 4 Gibbs chains
# (~40 s on 2 cores). make test keeps NUTS on the paper's exact model checked against an
# independent reference through tests/estimators/test_gaussian.py::test_nuts_matches_grid_
# integration_k1[True] (same classifier, model and Op, against grid quadrature), the model's
# density through test_potential_equals_n_omitted_times_reference_log_prob, test_likelihood_
# from_sufficient_statistics_equals_casewise_likelihood and test_marginal_likelihood_equals_
# multivariate_normal_of_class_means (same file), and the Gibbs reference itself through
# tests/test_gibbs_reference.py.
@pytest.mark.slow
@pytest.mark.parametrize("corrected", [False, True])
def test_nuts_agrees_with_gibbs(corrected):
    sim = gaussian_classification(None, 200, 3, tau_mu=50.0, tau_nu=100.0,
                                  class_counts=[20, 20, 20], random_state=7)
    sel = select_features(sim.X, sim.y, k=5)
    X_sel = sim.X[:, sel.indices]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = HierarchicalGaussianClassifier(
            k=5, correct_selection=corrected, draws=2000, tune=1000, chains=4,
            random_state=3, progressbar=False, **EXACT_MODEL).fit(sim.X, sim.y)
    post = clf.idata_.posterior

    # the Op's NumPy twin: the same interpolant, accurate to 1e-8 of the exact reference
    op = FStatOmitLogProb(sel.class_counts, sel.threshold, PRIORS["alpha_x"])

    def lop(u):
        return float(op.evaluate(u))

    chains = [gibbs_gaussian(X_sel, sim.y, 3, PRIORS, n_iter=4000, burn=500, thin=1,
                             log_omit_prob=lop if corrected else None,
                             n_omitted=sel.n_omitted, random_state=100 + c)
              for c in range(4)]
    gibbs = {name: np.stack([ch[name] for ch in chains]) for name in ("tau_mu", "mu")}

    quantities = {
        "log tau_mu": (np.log(post["tau_mu"].values), np.log(gibbs["tau_mu"])),
        "mu[0, 0]": (post["mu"].values[:, :, 0, 0], gibbs["mu"][:, :, 0, 0]),
        "mu[1, 2]": (post["mu"].values[:, :, 1, 2], gibbs["mu"][:, :, 1, 2]),
        "mu[4, 1]": (post["mu"].values[:, :, 4, 1], gibbs["mu"][:, :, 4, 1]),
    }
    for name, (nuts, ref) in quantities.items():
        se = np.hypot(_mcse_mean(nuts), _mcse_mean(ref))
        diff = nuts.mean() - ref.mean()
        assert abs(diff) < 4 * se, (
            f"{name}: NUTS {nuts.mean():.4f} vs Gibbs {ref.mean():.4f} (se {se:.4f})")
