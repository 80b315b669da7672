"""The hierarchical Gaussian classifier of seed 000 as a PyMC model, and its predictive.

Model (seed 000 eqs 4-11), for retained features j = 1..k and classes g = 1..G::

    x_j | y = g        ~ N(mu[j, g], 1 / tau_x[j])
    mu[j, g] | nu_j    ~ N(nu[j], 1 / tau_mu)
    nu[j]              ~ N(0, 1 / tau_nu)
    tau_x[j]           ~ Gamma(alpha_x / 2, rate alpha_x w_x / 2)
    tau_mu, tau_nu     ~ Gamma(alpha / 2, rate alpha w / 2)

The class probabilities psi ~ Dirichlet(c) are integrated out (they enter prediction only,
through the Polya-urn weights (n_g + c) / (n + G c)).

Parameterisation: mu and nu are non-centred (mu = nu + z_mu / sqrt(tau_mu), nu = z_nu /
sqrt(tau_nu)) because the class means of most features, selected or not, are weakly informed
next to their prior spread, which is the regime where the centred form makes a funnel in
tau_mu. The likelihood uses the sufficient statistics per feature (class means and the pooled
within-class sum of squares), so its cost is O(k G) per gradient, independent of n.

Selection correction (seed 000 eqs 23-24): ``pm.Potential("selection_adjustment",
(p - k) * log P(F <= gamma | tau_mu w_x))`` from :class:`selbayes.adjustment.FStatOmitLogProb`.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy.special import logsumexp

from .._validation import check_labels, check_matrix
from ..selection import Selection
from .priors import GaussianPriors

__all__ = ["sufficient_statistics", "build_model", "predictive_log_proba", "class_log_prior"]


def sufficient_statistics(X_selected: np.ndarray, y_index: np.ndarray, n_classes: int):
    """Class counts (G,), class means (k, G) and pooled within-class sums of squares (k,)."""
    n = X_selected.shape[0]
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), y_index] = 1.0
    counts = onehot.sum(axis=0)
    means = (onehot.T @ X_selected / counts[:, None]).T                 # (k, G)
    resid = X_selected - means.T[y_index]
    ssw = np.einsum("ij,ij->j", resid, resid)
    return counts.astype(np.int64), means, ssw


def build_model(X_selected, y, selection: Selection, priors: GaussianPriors | dict | None = None,
                corrected: bool = True, adjustment_method: str = "exact",
                feature_names=None) -> pm.Model:
    """Build the PyMC model of the hierarchical Gaussian classifier.

    Parameters
    ----------
    X_selected : array-like of shape (n_samples, k)
        Training values of the retained features, in ``selection.indices`` order (already
        decorrelated if a transform is used).
    y : array-like of shape (n_samples,)
        Class labels (the same labels the selection was made with).
    selection : Selection
        From :func:`selbayes.select_features` with ``statistic="f"``: supplies p, k, gamma.
    priors : GaussianPriors or dict, optional
        Defaults to the paper's fitting priors.
    corrected : bool
        Add the selection adjustment Potential.
    adjustment_method : str
        Passed to :class:`~selbayes.adjustment.FStatOmitLogProb`.
    feature_names : sequence of str, optional
        Coordinate labels for the ``feature`` dimension (default: original column indices).

    Returns
    -------
    pymc.Model
        Free variables ``tau_mu``, ``tau_nu``, ``tau_x`` (k), ``z_nu`` (k), ``z_mu`` (k, G);
        deterministics ``nu`` (k) and ``mu`` (k, G); observed sufficient statistics
        ``xbar`` (k, G) and ``ssw`` (k); and, when corrected, the Potential
        ``selection_adjustment``.
    """
    priors = GaussianPriors.from_dict(priors)
    X_selected = check_matrix(X_selected, name="X_selected")
    classes, y_index, _ = check_labels(y, X_selected.shape[0])
    if not np.array_equal(np.asarray(classes), np.asarray(selection.classes)):
        raise ValueError(
            f"the classes of y {list(classes)} differ from the selection's {list(selection.classes)}"
        )
    n, k = X_selected.shape
    if k != selection.n_selected:
        raise ValueError(
            f"X_selected has {k} columns but the selection retained {selection.n_selected}"
        )
    G = classes.shape[0]
    if n - G < 1:
        raise ValueError(f"need n - G >= 1 training cases beyond one per class; got n = {n}, G = {G}")
    counts, xbar, ssw = sufficient_statistics(X_selected, y_index, G)
    names = (list(feature_names) if feature_names is not None
             else [int(i) for i in selection.indices])
    coords = {"feature": names, "class": [str(c) for c in classes]}

    with pm.Model(coords=coords) as model:
        pm.Data("class_counts", counts.astype(np.float64), dims="class")
        tau_mu = pm.Gamma("tau_mu", alpha=priors.alpha_mu / 2, beta=priors.alpha_mu * priors.w_mu / 2)
        tau_nu = pm.Gamma("tau_nu", alpha=priors.alpha_nu / 2, beta=priors.alpha_nu * priors.w_nu / 2)
        if priors.w_x_alpha is None:
            w_x = priors.w_x
            log_w_x = np.log(priors.w_x)
        else:
            w_x = pm.Gamma("w_x", alpha=priors.w_x_alpha / 2,
                           beta=priors.w_x_alpha / (2 * priors.w_x))
            log_w_x = pt.log(w_x)
        tau_x = pm.Gamma("tau_x", alpha=priors.alpha_x / 2, beta=priors.alpha_x * w_x / 2,
                         dims="feature")
        z_nu = pm.Normal("z_nu", 0.0, 1.0, dims="feature")
        z_mu = pm.Normal("z_mu", 0.0, 1.0, dims=("feature", "class"))
        nu = pm.Deterministic("nu", z_nu / pt.sqrt(tau_nu), dims="feature")
        mu = pm.Deterministic("mu", nu[:, None] + z_mu / pt.sqrt(tau_mu), dims=("feature", "class"))

        # Sufficient statistics carry exactly the likelihood's dependence on (mu, tau_x):
        # xbar[j, g] ~ N(mu[j, g], 1/(n_g tau_x[j])), ssw[j] ~ Gamma((n - G)/2, rate tau_x[j]/2).
        pm.Normal("xbar", mu=mu, sigma=1.0 / pt.sqrt(tau_x[:, None] * counts[None, :]),
                  observed=xbar, dims=("feature", "class"))
        pm.Gamma("ssw", alpha=(n - G) / 2, beta=tau_x / 2, observed=ssw, dims="feature")

        if corrected and selection.n_omitted > 0:
            from ..adjustment import FStatOmitLogProb

            op = FStatOmitLogProb(class_counts=counts, threshold=selection.threshold,
                                  alpha_x=priors.alpha_x, method=adjustment_method)
            pm.Potential("selection_adjustment",
                         selection.n_omitted * op(pt.log(tau_mu) + log_w_x))
    return model


def class_log_prior(class_counts, c: float) -> np.ndarray:
    """log of the Polya-urn class probabilities (n_g + c) / (n + G c), shape (G,)."""
    counts = np.asarray(class_counts, dtype=np.float64)
    return np.log(counts + c) - np.log(counts.sum() + c * counts.shape[0])


def predictive_log_proba(X_test_selected, mu_draws, tau_x_draws, class_log_prior_,
                         chunk_size: int | None = None, max_bytes: float = 2e8) -> np.ndarray:
    """log P(y* = g | x*, training data) for every test case (seed 000 eqs 13-15).

    P(y* = g | x*) is proportional to the class prior times the posterior average over draws s
    of prod_j N(x*_j | mu[s, j, g], 1/tau_x[s, j]); the average is taken in log space
    (logsumexp over draws). The quadratic form is expanded so the work is two matrix products
    per chunk of test cases.

    Parameters
    ----------
    X_test_selected : ndarray of shape (m, k)
    mu_draws : ndarray of shape (S, k, G)
    tau_x_draws : ndarray of shape (S, k)
    class_log_prior_ : ndarray of shape (G,)
    chunk_size : int, optional
        Test cases per chunk; by default chosen so the (chunk, S, G) temporary stays below
        ``max_bytes``.

    Returns
    -------
    ndarray of shape (m, G)
        Normalised log probabilities.
    """
    X = np.asarray(X_test_selected, dtype=np.float64)
    mu = np.asarray(mu_draws, dtype=np.float64)
    tau = np.asarray(tau_x_draws, dtype=np.float64)
    S, k, G = mu.shape
    m = X.shape[0]
    if X.shape[1] != k:
        raise ValueError(f"test data have {X.shape[1]} retained columns; the model has {k}")
    # per draw and class: sum_j [0.5 log tau - 0.5 tau mu^2] ; cross term coefficients tau*mu
    const = 0.5 * np.log(tau).sum(axis=1)[:, None] - 0.5 * np.einsum("sj,sjg->sg", tau, mu * mu)
    cross = (tau[:, :, None] * mu).transpose(1, 0, 2).reshape(k, S * G)           # (k, S*G)
    if chunk_size is None:
        chunk_size = max(1, int(max_bytes // (8 * S * G * 3)))
    out = np.empty((m, G))
    for start in range(0, m, chunk_size):
        xb = X[start:start + chunk_size]
        quad = (xb * xb) @ tau.T                                                   # (c, S)
        ll = (xb @ cross).reshape(-1, S, G) - 0.5 * quad[:, :, None] + const[None]
        ll -= 0.5 * k * np.log(2 * np.pi)
        lp = logsumexp(ll, axis=1) - np.log(S) + class_log_prior_[None, :]
        out[start:start + chunk_size] = lp - logsumexp(lp, axis=1, keepdims=True)
    return out
