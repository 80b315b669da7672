"""The two-groups prior of the Gaussian model: null features, marker probabilities, predictive.

Under the two-groups prior (Efron 2008; ``GaussianPriors(pi0_a=..., pi0_b=...)``) a share pi0
of the features has no class difference (mu[j, g] = nu[j] for every g). The model sums each
feature's indicator out (:mod:`selbayes.models._gaussian`); this module holds what the prior
adds around that:

- :func:`null_log_prob`: log P(F <= gamma) of a null feature, the null part of the
  omitted-feature factor (central F, no integral);
- :func:`marker_probabilities`: each kept feature's posterior probability of being a marker,
  after selection;
- :func:`two_groups_predictive`, :func:`predictive_log_proba_two_groups`: the exact posterior
  predictive with the indicators averaged out.

The per-draw building blocks (marker log odds, null predictive moments) are in
:mod:`selbayes.models._gaussian_posterior`.

References
----------
.. [1] Efron, B. (2008). Microarrays, empirical Bayes and the two-groups model. Statistical
   Science 23, 1-22.
.. [2] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models. Manuscript.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .._validation import check_positive
from ._gaussian_posterior import (
    _check_groups,
    _check_mean_and_precision,
    _check_moments,
    _group_weights,
    _log_mean_exp,
    marker_log_odds,
    null_predictive_moments,
    predictive_moments,
    tau_nu_draws,
)

__all__ = ["null_log_prob", "marker_probabilities", "two_groups_predictive",
           "predictive_log_proba_two_groups"]


def null_log_prob(class_counts, threshold) -> np.float64:
    """log P(F <= gamma) for a feature with no class difference: the central F cdf.

    With mu[j, 1] = ... = mu[j, G] the one-way ANOVA F statistic is exactly
    F(G - 1, n - G) distributed, whatever tau_x, nu and the class sizes are, so the null
    part of the two-groups omitted-feature factor needs no integral.

    Parameters
    ----------
    class_counts : array-like of int, shape (G,)
        Training cases per class (n - G >= 1).
    threshold : float
        gamma > 0, the largest F an omitted feature may have.

    Returns
    -------
    numpy.float64
        log P(F <= gamma) (nats), computed in log space (``scipy.stats.f.logcdf``).

    Raises
    ------
    ValueError
        If ``class_counts`` is not G >= 2 positive whole numbers with n - G >= 1, or
        ``threshold`` is not a finite number > 0.
    TypeError
        If ``threshold`` is not a number.

    Examples
    --------
    >>> from scipy.stats import f
    >>> lp = null_log_prob([10, 10, 10], 3.0)
    >>> bool(abs(lp - f.logcdf(3.0, 2, 27)) < 1e-14), round(float(lp), 4)
    (True, -0.0689)
    """
    from scipy.stats import f as f_dist

    from ..adjustment._fstat import validate_design

    # the F design's checks (alpha_x plays no part here)
    counts, threshold, _ = validate_design(class_counts, threshold, 1.0)
    G, n = counts.shape[0], int(counts.sum())
    return np.float64(f_dist.logcdf(threshold, G - 1, n - G))


def _posterior_arrays(idata) -> dict:
    """The posterior of a DataTree / InferenceData, or a mapping of draw arrays, as arrays
    with the draws flattened to one leading axis."""
    if hasattr(idata, "children") and "posterior" in idata.children:
        post = idata["posterior"].to_dataset()
    elif hasattr(idata, "posterior"):
        post = idata.posterior
    else:
        post = idata
    return {name: np.asarray(post[name]) for name in post}


def marker_probabilities(idata, data: dict | None = None) -> np.ndarray:
    """Posterior probability that each kept feature is a marker (two-groups prior).

    The mean over posterior draws of the per-draw probability
    sigmoid(:func:`selbayes.models.marker_log_odds`) (Rao-Blackwellised:
    the indicator itself is never sampled). After selection these are the probabilities the
    data and the omitted features together give: the selection factor
    moves pi0 and with it every feature's probability.

    Parameters
    ----------
    idata : xarray.DataTree, arviz InferenceData or mapping
        A two-groups fit: a ``posterior`` group holding ``marker_prob`` (chain, draw,
        feature), or ``pi0``, ``tau_mu``, ``tau_nu`` (chain, draw) and ``tau_x`` (chain,
        draw, feature) (and ``lambda_mu`` with a t slab); or a mapping of those draw arrays
        with any leading draw axes.
    data : dict, optional
        The fit's :func:`selbayes.models.model_data` (``xbar_obs``,
        ``class_counts``); needed only when ``marker_prob`` is not stored.

    Returns
    -------
    ndarray of shape (k,)
        Probabilities in [0, 1], in the order of the kept features.

    Raises
    ------
    ValueError
        If the posterior has neither ``marker_prob`` nor ``pi0`` (not a two-groups fit), or
        ``data`` is needed and not given.

    Examples
    --------
    >>> import numpy as np
    >>> draws = {"marker_prob": np.array([[[0.9, 0.1], [0.7, 0.3]]])}   # (chain, draw, k)
    >>> marker_probabilities(draws).tolist()
    [0.8, 0.2]
    """
    post = _posterior_arrays(idata)
    if "marker_prob" in post:
        r = post["marker_prob"]
    elif "pi0" in post:
        if data is None:
            raise ValueError("marker_probabilities needs the fit's model_data (xbar_obs, "
                             "class_counts) when the posterior holds no marker_prob")
        r = 1.0 / (1.0 + np.exp(-marker_log_odds(
            post["tau_x"], post["tau_mu"], tau_nu_draws(post), post["pi0"], data["xbar_obs"],
            data["class_counts"], post.get("lambda_mu"))))
    else:
        raise ValueError("the posterior has no pi0 or marker_prob: marker probabilities "
                         "need the two-groups prior, priors={'pi0_a': 1, 'pi0_b': 1}")
    return r.reshape(-1, r.shape[-1]).mean(axis=0)


def two_groups_predictive(tau_x, tau_mu, tau_nu, pi0, xbar, class_counts,
                          lambda_mu=None) -> dict:
    """Everything :func:`predictive_log_proba_two_groups` needs, from posterior draws.

    Parameters
    ----------
    tau_x : ndarray of shape (S, k)
        Draws of the noise precisions.
    tau_mu, tau_nu, pi0 : ndarray of shape (S,)
        Draws of the precisions and of the null share.
    xbar : ndarray of shape (k, G)
        Training class means (data units).
    class_counts : ndarray of shape (G,)
        Training cases per class.
    lambda_mu : ndarray of shape (S, k), optional
        Per-feature scales of a t slab.

    Returns
    -------
    dict
        ``mean``, ``precision`` (S, k, G): the slab predictive
        (:func:`selbayes.models.predictive_moments`); ``null_mean``,
        ``null_precision`` (S, k): the null predictive
        (:func:`selbayes.models.null_predictive_moments`); ``marker_prob``
        (S, k): the per-draw marker probability
        sigmoid(:func:`selbayes.models.marker_log_odds`).

    Examples
    --------
    >>> import numpy as np
    >>> out = two_groups_predictive(np.ones((3, 2)), np.ones(3), np.ones(3), np.full(3, 0.5),
    ...                             np.zeros((2, 2)), np.array([5.0, 5.0]))
    >>> sorted(out), out["mean"].shape, out["marker_prob"].shape
    (['marker_prob', 'mean', 'null_mean', 'null_precision', 'precision'], (3, 2, 2), (3, 2))
    """
    mean, precision = predictive_moments(tau_x, tau_mu, tau_nu, xbar, class_counts,
                                         lambda_mu=lambda_mu)
    null_mean, null_precision = null_predictive_moments(tau_x, tau_nu, xbar, class_counts)
    log_odds = marker_log_odds(tau_x, tau_mu, tau_nu, pi0, xbar, class_counts, lambda_mu)
    return {"mean": mean, "precision": precision, "null_mean": null_mean,
            "null_precision": null_precision,
            "marker_prob": np.exp(-np.logaddexp(0.0, -log_odds))}


def predictive_log_proba_two_groups(X_test_selected, mean, precision, null_mean,
                                    null_precision, marker_prob, class_log_prior_,
                                    groups=None, max_bytes: float = 2e8) -> np.ndarray:
    """log P(y* = g | x*, training data) under the two-groups prior, indicators averaged out.

    Given one draw, feature j is a marker with probability r[s, j] (independently across
    features), so its predictive density in class g is
    r N(x*_j | mean[s, j, g], 1/precision[s, j, g]) + (1 - r) N(x*_j | null_mean[s, j],
    1/null_precision[s, j]); the product over features is averaged over draws (logsumexp)
    and combined with the class prior as in
    :func:`selbayes.models.predictive_log_proba`. This is the exact
    posterior predictive (no indicator is sampled). With ``groups`` (draws of nearly equal
    global hyperparameters, :func:`selbayes.models.hyperparameter_groups`
    of tau_mu and pi0) each feature's density is averaged over its own draws within a group
    and the products averaged over groups, as
    :func:`selbayes.models.factorised_predictive_log_proba` does: the
    same quantity with far less Monte Carlo error when k is large.

    Parameters
    ----------
    X_test_selected : ndarray of shape (m, k)
        Test values of the retained features (data units).
    mean, precision : ndarray of shape (S, k, G)
        Per-draw slab predictive moments (:func:`two_groups_predictive`).
    null_mean, null_precision : ndarray of shape (S, k)
        Per-draw null predictive moments.
    marker_prob : ndarray of shape (S, k)
        Per-draw marker probabilities r[s, j] in [0, 1].
    class_log_prior_ : ndarray of shape (G,)
        Log class probabilities (nats).
    groups : int array-like of shape (S,), optional
        Group label of each draw; None: every draw its own group (the average over joint
        draws).
    max_bytes : float
        Memory budget of one block's temporaries (bytes); test cases and features are
        processed in blocks within it.

    Returns
    -------
    ndarray of shape (m, G)
        Normalised log probabilities (nats).

    Raises
    ------
    ValueError
        If the shapes disagree (``mean`` not 3-D, the null moments or ``marker_prob`` not
        (S, k), ``class_log_prior_`` not (G,), ``X_test_selected`` without k columns, or
        ``groups`` without one int label per draw), a mean is not finite, a precision not
        finite and > 0, a marker probability outside [0, 1], or ``max_bytes`` not > 0.
    TypeError
        If ``X_test_selected`` is not numeric.

    Examples
    --------
    A certain marker gives the slab model's answer; a certain null gives the class prior:

    >>> import numpy as np
    >>> mean = np.array([[[-1.0, 1.0]]]); prec = np.ones((1, 1, 2))
    >>> args = (mean, prec, np.zeros((1, 1)), np.ones((1, 1)))
    >>> lp = predictive_log_proba_two_groups([[1.0]], *args, np.ones((1, 1)),
    ...                                      np.log([0.5, 0.5]))
    >>> np.round(np.exp(lp), 4).tolist()
    [[0.1192, 0.8808]]
    >>> lp = predictive_log_proba_two_groups([[1.0]], *args, np.zeros((1, 1)),
    ...                                      np.log([0.5, 0.5]))
    >>> np.round(np.exp(lp), 4).tolist()
    [[0.5, 0.5]]
    """
    if np.shape(precision) != np.shape(mean):
        raise ValueError(f"mean and precision must have one shape (n_draws, k, G); got "
                         f"{np.shape(mean)} and {np.shape(precision)}")
    # the slab's moments and the class prior as predictive_log_proba checks them (a negative
    # precision or a NaN mean came out as NaN probabilities)
    X, m_, P, class_log_prior_ = _check_moments(X_test_selected, mean, precision,
                                                class_log_prior_)
    S, k, G = m_.shape
    m0 = np.asarray(null_mean, dtype=np.float64)
    P0 = np.asarray(null_precision, dtype=np.float64)
    r = np.asarray(marker_prob, dtype=np.float64)
    for name, arr in (("null_mean", m0), ("null_precision", P0), ("marker_prob", r)):
        if arr.shape != (S, k):
            raise ValueError(f"{name} must have shape (n_draws, k) = {(S, k)}; got "
                             f"{arr.shape}")
    _check_mean_and_precision(m0, P0, prefix="null_")
    if not ((r >= 0) & (r <= 1)).all():
        raise ValueError("marker_prob must hold probabilities in [0, 1] (NaN is none)")
    max_bytes = check_positive(max_bytes, name="max_bytes")
    grouped = groups is not None
    parts = _group_weights(_check_groups(groups, S)) if grouped else []
    with np.errstate(divide="ignore"):
        # log r = -inf (a sure null) is fine: logaddexp then keeps the other branch.
        log_r, log_1mr = np.log(r), np.log1p(-r)
    half_log_P = 0.5 * np.log(P / (2 * np.pi))
    half_log_P0 = 0.5 * np.log(P0 / (2 * np.pi))
    # Blocks of features kb and cases cb with about 4 temporaries of cb * S * kb * G floats.
    budget = max(1, int(max_bytes // (8 * 4)))
    kb = int(min(k, max(1, budget // (S * G))))
    cb = int(max(1, budget // (S * kb * G)))
    out = np.empty((X.shape[0], G))
    for start in range(0, X.shape[0], cb):
        xb = X[start:start + cb]                                                   # (c, k)
        ll = np.zeros((xb.shape[0], len(parts) if grouped else S, G))
        for j0 in range(0, k, kb):
            sl = slice(j0, j0 + kb)
            x = xb[:, None, sl]                                                    # (c, 1, kb)
            null = log_1mr[None, :, sl] + half_log_P0[None, :, sl] \
                - 0.5 * P0[None, :, sl] * (x - m0[None, :, sl]) ** 2              # (c, S, kb)
            slab = half_log_P[None, :, sl] - 0.5 * P[None, :, sl] * (
                x[..., None] - m_[None, :, sl]) ** 2                               # (c,S,kb,G)
            slab += log_r[None, :, sl, None]
            per = np.logaddexp(slab, null[..., None])                               # (c,S,kb,G)
            if not grouped:
                ll += per.sum(axis=2)
                continue
            for b, (draws, _) in enumerate(parts):      # each feature averaged within a group
                ll[:, b] += _log_mean_exp(per[:, draws], axis=1).sum(axis=1)
        if grouped:
            lp = logsumexp(ll + np.array([w for _, w in parts])[None, :, None], axis=1)
        else:
            lp = logsumexp(ll, axis=1) - np.log(S)
        lp = lp + class_log_prior_[None, :]
        out[start:start + cb] = lp - logsumexp(lp, axis=1, keepdims=True)
    return out
