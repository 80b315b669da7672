"""Given posterior draws of the precisions: the class means, markers and the predictive.

The hierarchical Gaussian model of Li 2009 (:mod:`selbayes.models._gaussian`) samples only
precisions (tau_x, tau_mu, tau_nu, and lambda_j with a t prior): given one draw of them, the
class means mu and the feature means nu are jointly Gaussian, so everything else follows in
closed form, one draw at a time:

- :func:`class_means_log_density`: the density of the observed class means with mu and nu
  integrated out (the model's likelihood, also used by the plug-in predictive of
  :mod:`selbayes.models._gaussian_plugin`);
- :func:`draw_class_means`: exact draws of nu and mu for the posterior (Li 2009 eqs 8-11);
- :func:`marker_log_odds`: the conditional log odds that a feature is a marker under the
  two-groups prior (Efron 2008);
- :func:`predictive_moments`, :func:`null_predictive_moments`: the predictive mean and
  precision of a test value in each class, mu integrated out (Rao-Blackwellised);
- :func:`class_log_prior`, :func:`predictive_log_proba`: the predictive class probabilities
  (Li 2009 eqs 13-15), averaging over joint draws;
- :func:`factorised_predictive_log_proba`, :func:`hyperparameter_groups`: the same
  probabilities with each feature averaged over its own draws within groups of nearly equal
  global hyperparameters (features are independent given them), the estimator the classifier
  uses: far smaller Monte Carlo error when many features are kept.

References
----------
.. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models. Manuscript.
.. [2] Efron, B. (2008). Microarrays, empirical Bayes and the two-groups model. Statistical
   Science 23, 1-22.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .._validation import check_matrix, check_positive, check_positive_int
from ._priors import GaussianPriors

__all__ = ["class_means_log_density", "draw_class_means", "marker_log_odds", "class_log_prior",
           "predictive_moments", "null_predictive_moments", "predictive_log_proba",
           "factorised_predictive_log_proba", "hyperparameter_groups"]


def class_means_log_density(d, s, xbar, n_classes: int, xp=np):
    """log N(xbar_j | 0, diag(d_j) + s 11') per feature, with mu and nu integrated out.

    The determinant lemma and Sherman-Morrison give it in O(G) per feature. One formula for
    the PyMC model (``xp=pytensor.tensor``) and the fast plug-in predictive of
    :mod:`selbayes.models._gaussian_plugin` (``xp=numpy``, broadcast over leading axes).
    With ``s=None`` (a flat prior on nu, ``GaussianPriors(alpha_nu=None)``) the limit s ->
    infinity less its constant -log(2 pi s)/2 (the N(0, s) density of nu near 0 against a flat
    one): the density of the G - 1 contrasts of xbar_j (the restricted likelihood), which does
    not depend on the level of the feature.

    Parameters
    ----------
    d : array or tensor of shape (..., k, G)
        1/(tau_mu lambda_j) + 1/(n_g tau_x_j): the diagonal of the class means' covariance.
    s : array or tensor broadcasting against (..., k)
        1/tau_nu, or None for a flat prior on nu.
    xbar : array or tensor of shape (k, G)
        Class means of the selected features.
    n_classes : int
        G.
    xp : module
        ``numpy`` or ``pytensor.tensor``.

    Returns
    -------
    array or tensor of shape (..., k)
        Log density per feature (nats).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import multivariate_normal
    >>> d, s, xbar = np.array([[0.5, 2.0]]), 0.7, np.array([[0.3, -1.0]])
    >>> ref = multivariate_normal(np.zeros(2), np.diag(d[0]) + s).logpdf(xbar[0])
    >>> bool(np.isclose(class_means_log_density(d, s, xbar, 2)[0], ref))
    True
    >>> big = class_means_log_density(d, 1e8, xbar, 2) + 0.5 * np.log(2 * np.pi * 1e8)
    >>> bool(np.isclose(class_means_log_density(d, None, xbar, 2)[0], big[0]))
    True
    """
    inv_sum = (1.0 / d).sum(axis=-1)
    lin = (xbar / d).sum(axis=-1)
    if s is None:
        logdet = xp.log(d).sum(axis=-1) + xp.log(inv_sum)
        quad = (xbar ** 2 / d).sum(axis=-1) - lin ** 2 / inv_sum
        return -0.5 * (logdet + quad) - 0.5 * (n_classes - 1) * np.log(2 * np.pi)
    logdet = xp.log(d).sum(axis=-1) + xp.log1p(s * inv_sum)
    quad = (xbar ** 2 / d).sum(axis=-1) - s * lin ** 2 / (1.0 + s * inv_sum)
    return -0.5 * (logdet + quad) - 0.5 * n_classes * np.log(2 * np.pi)


def tau_nu_draws(post) -> np.ndarray:
    """Draws of tau_nu from a posterior (a Dataset or a mapping of arrays), shaped as tau_mu's:
    zeros when it has none, the flat prior on nu (``GaussianPriors(alpha_nu=None)``) being the
    limit tau_nu = 0 of every formula here."""
    if "tau_nu" in post:
        return np.asarray(post["tau_nu"], dtype=np.float64)
    return np.zeros(np.shape(post["tau_mu"]))


def _check_draws(tau_x, tau_mu, tau_nu, xbar, class_counts, lambda_mu=None, pi0=None,
                 draws_2d: bool = False) -> dict:
    """The posterior-draw inputs of the closed forms below as float arrays, once checked.

    Every formula here divides by the precisions: a negative, zero or NaN draw gave NaN
    probabilities (or a negative variance under a square root) with no error. ``tau_x``
    (..., k) and ``lambda_mu`` (..., k) must be finite and > 0, ``tau_mu`` finite and > 0,
    ``tau_nu`` finite and >= 0 (0: a flat prior on nu), ``pi0`` in [0, 1], ``xbar`` (k, G)
    finite, ``class_counts`` (G,) finite and >= 0 (``tau_mu=None``: not used, not checked).
    ``draws_2d``: ``tau_x`` must be (S, k) and the scalars per draw (S,), as the predictive
    moments index them.
    """
    out = {"tau_x": np.asarray(tau_x, dtype=np.float64),
           "xbar": np.asarray(xbar, dtype=np.float64),
           "class_counts": np.asarray(class_counts, dtype=np.float64),
           "tau_nu": np.asarray(tau_nu, dtype=np.float64)}
    scalars = ["tau_nu"]
    if tau_mu is not None:
        out["tau_mu"] = np.asarray(tau_mu, dtype=np.float64)
        scalars.insert(0, "tau_mu")
    tx, xbar = out["tau_x"], out["xbar"]
    if xbar.ndim != 2:
        raise ValueError(f"xbar must have shape (k, G); got {xbar.shape}")
    k, G = xbar.shape
    if out["class_counts"].shape != (G,):
        raise ValueError(f"class_counts must have shape (G,) = ({G},) as xbar's columns; got "
                         f"{out['class_counts'].shape}")
    if tx.ndim < 1 or tx.shape[-1] != k or (draws_2d and tx.ndim != 2):
        want = "(n_draws, k)" if draws_2d else "(..., k)"
        raise ValueError(f"tau_x must have shape {want} with k = {k} (xbar's rows); got "
                         f"{tx.shape}")
    lead = tx.shape[:-1]
    for name in scalars:
        if draws_2d and out[name].shape != lead:
            raise ValueError(f"{name} must have shape (n_draws,) = {lead}; got "
                             f"{out[name].shape}")
    rules = [("tau_x", tx, True), ("tau_nu", out["tau_nu"], False),
             ("class_counts", out["class_counts"], False)]
    if tau_mu is not None:
        rules.insert(1, ("tau_mu", out["tau_mu"], True))
    if lambda_mu is not None:
        out["lambda_mu"] = np.asarray(lambda_mu, dtype=np.float64)
        if out["lambda_mu"].shape != tx.shape:
            raise ValueError(f"lambda_mu must have the shape of tau_x {tx.shape}; got "
                             f"{out['lambda_mu'].shape}")
        rules.append(("lambda_mu", out["lambda_mu"], True))
    for name, arr, strict in rules:
        _require_positive(name, arr, strict, "a precision, scale or count")
    if not np.isfinite(xbar).all():
        raise ValueError("xbar (training class means) contains NaN or infinite values")
    if pi0 is not None:
        out["pi0"] = np.asarray(pi0, dtype=np.float64)
        outside = ~((out["pi0"] >= 0) & (out["pi0"] <= 1))      # NaN too
        if outside.any():
            raise ValueError(f"pi0 must be a probability in [0, 1]; got "
                             f"{float(out['pi0'][outside].flat[0])}")
    return out


def draw_blocks(n_draws: int, bytes_per_draw: float, max_bytes: float) -> list:
    """Slices of consecutive draws whose temporaries (``bytes_per_draw`` each) stay under
    about ``max_bytes``: at least one draw per block, all draws in one block when they fit.

    Parameters
    ----------
    n_draws : int
    bytes_per_draw : float
        Bytes of the temporaries one draw needs.
    max_bytes : float
        Budget of one block (``inf``: one block).

    Returns
    -------
    list of slice

    Examples
    --------
    >>> draw_blocks(5, 10.0, 25.0)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 6, None)]
    >>> draw_blocks(5, 10.0, float("inf"))
    [slice(0, 5, None)]
    """
    step = max(1, int(min(n_draws, max_bytes / bytes_per_draw)))
    return [slice(s0, s0 + step) for s0 in range(0, n_draws, step)]


def draw_class_means(idata, data: dict, priors: GaussianPriors, random_state=None,
                     max_bytes: float = 2e8):
    """Add exact draws of ``nu`` (k) and ``mu`` (k, G) to a marginal-model posterior.

    Given the precisions of one posterior draw, (nu_j, mu_j) is Gaussian: xbar_jg | nu_j ~
    N(nu_j, a_j + v_jg) with a_j = 1/(tau_mu lambda_j), v_jg = 1/(n_g tau_x_j), so nu_j | xbar
    is normal, and mu_jg | nu_j, xbar_jg is the usual precision-weighted normal. One draw of
    each per posterior draw keeps the joint posterior exact. With the two-groups prior (a
    ``pi0`` in the posterior) each feature is first drawn null or marker with its conditional
    probability (:func:`marker_log_odds`); a null feature gets mu_jg = nu_j, nu_j drawn from
    its Gaussian conditional without class-mean variance.

    Parameters
    ----------
    idata : xarray.DataTree
        Output of the marginal model: a ``posterior`` group with ``tau_mu``, ``tau_nu``
        (chain, draw), ``tau_x`` (chain, draw, feature) and optionally ``lambda_mu``
        (chain, draw, feature). Precisions are in 1 / (data units)^2.
    data : dict
        The :func:`selbayes.models.model_data` of the fit (``xbar_obs`` (k, G),
        ``class_counts`` (G,)).
    priors : GaussianPriors
        The fit's priors (unused by the draw itself; kept for a uniform signature).
    random_state : int, numpy.random.Generator or None
        Seed of the Gaussian draws.
    max_bytes : float
        Bytes (about) of the temporaries of one block of draws; the result, ``mu``, is
        (chain, draw, k, G) float64 whatever the block.

    Returns
    -------
    xarray.DataTree
        ``idata`` itself, its posterior group now also holding ``nu`` (chain, draw, feature)
        and ``mu`` (chain, draw, feature, class), in data units.

    Raises
    ------
    TypeError
        If ``random_state`` is not None, an int or a Generator.
    ValueError
        If a precision draw is not finite and > 0 (``tau_nu`` >= 0), ``pi0`` is outside
        [0, 1], or ``xbar_obs`` and ``class_counts`` do not match the draws' k and G.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> post = xr.Dataset({"tau_mu": (("chain", "draw"), np.ones((1, 4))),
    ...                    "tau_nu": (("chain", "draw"), np.ones((1, 4))),
    ...                    "tau_x": (("chain", "draw", "feature"), np.full((1, 4, 2), 1e8))})
    >>> idata = xr.DataTree.from_dict({"posterior": post})
    >>> data = {"xbar_obs": np.array([[1.0, -1.0], [0.5, 2.0]]),
    ...         "class_counts": np.array([50.0, 50.0])}
    >>> idata = draw_class_means(idata, data, GaussianPriors(), random_state=0)
    >>> mu = idata["posterior"]["mu"]
    >>> mu.shape                       # (chain, draw, feature, class)
    (1, 4, 2, 2)
    >>> np.round(mu.mean(("chain", "draw")).values, 2).tolist()  # ~ xbar: tiny noise
    [[1.0, -1.0], [0.5, 2.0]]
    """
    import xarray as xr

    from .._validation import check_random_state

    rng = check_random_state(random_state)
    post = idata["posterior"].to_dataset()
    _check_draws(post["tau_x"].values, post["tau_mu"].values, tau_nu_draws(post),
                 data["xbar_obs"], data["class_counts"],
                 post["lambda_mu"].values if "lambda_mu" in post else None,
                 post["pi0"].values if "pi0" in post else None)
    tau_mu = post["tau_mu"].values[..., None]                       # (c, d, 1)
    tau_nu = tau_nu_draws(post)[..., None]
    tau_x = post["tau_x"].values                                    # (c, d, k)
    a = 1.0 / tau_mu
    if "lambda_mu" in post:
        a = a / post["lambda_mu"].values
    a = np.broadcast_to(a, tau_x.shape)                             # (c, d, k)
    xbar = data["xbar_obs"]                                         # (k, G)
    counts = np.asarray(data["class_counts"], dtype=np.float64)
    k, G = xbar.shape
    # In blocks of draws: mu itself is (c, d, k, G), and written at once the formulas below
    # held five more arrays of that size (at k = 10 000, 10 classes and 4 x 1000 draws,
    # 3.2 GB each: a fit was killed for memory). The normal draws are taken in the same
    # order as in one piece (all of nu's, then mu's draw by draw), so the values are
    # identical to the unblocked formulas (tests/models/test_gaussian_posterior.py).
    S = tau_x.shape[0] * tau_x.shape[1]
    a2, tx = a.reshape(S, k), tau_x.reshape(S, k)
    tn = tau_nu.reshape(S, 1)
    # four (block, k, G) temporaries at a time
    blocks = draw_blocks(S, 8 * k * G * 4, max_bytes)
    var_nu, mean_nu = np.empty((S, k)), np.empty((S, k))
    for sl in blocks:
        v = 1.0 / (counts * tx[sl, :, None])                        # (block, k, G)
        w = 1.0 / (a2[sl, :, None] + v)
        var_nu[sl] = 1.0 / (tn[sl] + w.sum(-1))
        mean_nu[sl] = var_nu[sl] * (w * xbar).sum(-1)
    nu = (mean_nu + np.sqrt(var_nu) * rng.standard_normal(var_nu.shape)).reshape(tau_x.shape)
    mu = np.empty((S, k, G))
    nu2 = nu.reshape(S, k)
    for sl in blocks:
        # v again rather than kept: kept, it would be a full (S, k, G) array once more
        v = 1.0 / (counts * tx[sl, :, None])
        a_b = a2[sl, :, None]
        prec = 1.0 / a_b + 1.0 / v
        mean_mu = (nu2[sl, :, None] / a_b + xbar / v) / prec
        mu[sl] = mean_mu + rng.standard_normal(mean_mu.shape) / np.sqrt(prec)
    mu = mu.reshape(*tau_x.shape, G)
    if "pi0" in post:
        # Draws for the default model stay bit-identical: these random numbers come after.
        log_odds = marker_log_odds(tau_x, tau_mu[..., 0], tau_nu[..., 0], post["pi0"].values,
                                   xbar, data["class_counts"],
                                   post["lambda_mu"].values if "lambda_mu" in post else None)
        marker = np.log(rng.uniform(size=log_odds.shape)) < -np.logaddexp(0.0, -log_odds)
        w0 = 1.0 / (1.0 / (data["class_counts"] * tau_x[..., None]))  # 1 / v, as before
        var0 = 1.0 / (tau_nu + w0.sum(-1))
        nu0 = var0 * (w0 * xbar).sum(-1) + np.sqrt(var0) * rng.standard_normal(var0.shape)
        nu = np.where(marker, nu, nu0)
        mu = np.where(marker[..., None], mu, nu0[..., None])
    dims = post["tau_x"].dims
    post["nu"] = xr.DataArray(nu, dims=dims, coords=post["tau_x"].coords)
    post["mu"] = xr.DataArray(mu, dims=(*dims, "class"),
                              coords={**post["tau_x"].coords,
                                      "class": post.coords["class"].values
                                      if "class" in post.coords else np.arange(mu.shape[-1])})
    idata["posterior"] = xr.DataTree(post)
    return idata


def marker_log_odds(tau_x, tau_mu, tau_nu, pi0, xbar, class_counts, lambda_mu=None):
    """Per draw, the log posterior odds that each kept feature is a marker (two-groups prior).

    Given the precisions and pi0 of one draw, feature j's indicator has posterior log odds
    log(1 - pi0) + L_slab[j] - log(pi0) - L_null[j], where L_slab and L_null are the
    log densities of its class means under the slab (mu_jg ~ N(nu_j, 1/(tau_mu lambda_j)))
    and the null (mu_jg = nu_j), nu_j ~ N(0, 1/tau_nu) integrated out in both
    (:func:`class_means_log_density`).

    Parameters
    ----------
    tau_x : ndarray of shape (..., k)
        Draws of the noise precisions (1 / (data units)^2).
    tau_mu, tau_nu, pi0 : ndarray of shape (...)
        Draws of the class-mean and feature-mean precisions and of the null share pi0.
    xbar : ndarray of shape (k, G)
        Training class means (data units).
    class_counts : ndarray of shape (G,)
        Training cases per class.
    lambda_mu : ndarray of shape (..., k), optional
        Per-feature scales of a t slab (``GaussianPriors.mu_t_df``).

    Returns
    -------
    ndarray of shape (..., k)
        Log odds (nats); the marker probability is their logistic sigmoid.

    Raises
    ------
    ValueError
        If a precision or scale is not finite and > 0 (``tau_nu`` >= 0), ``pi0`` is
        outside [0, 1], ``xbar`` is not finite, or the shapes do not match.

    Examples
    --------
    A feature whose class means differ by 20 noise standard errors is a marker; one with
    equal class means is more likely null:

    >>> import numpy as np
    >>> xbar = np.array([[-1.0, 1.0], [0.0, 0.0]])
    >>> lo = marker_log_odds(np.full((1, 2), 100.0), np.array([1.0]), np.array([1.0]),
    ...                      np.array([0.5]), xbar, np.array([10.0, 10.0]))
    >>> bool(lo[0, 0] > 50), bool(lo[0, 1] < 0)
    (True, True)
    """
    d = _check_draws(tau_x, tau_mu, tau_nu, xbar, class_counts, lambda_mu, pi0)
    tau_x, xbar, tau_nu = d["tau_x"], d["xbar"], d["tau_nu"]
    G = xbar.shape[1]
    a = 1.0 / d["tau_mu"][..., None]                                         # (..., 1)
    if lambda_mu is not None:
        a = a / d["lambda_mu"]
    v = 1.0 / (d["class_counts"] * tau_x[..., None])                         # (..., k, G)
    # tau_nu = 0: a flat prior on nu (the same constant leaves both densities)
    flat = tau_nu == 0
    if flat.any() and not flat.all():
        raise ValueError("tau_nu must be 0 in every draw (a flat prior on nu) or > 0 in every "
                         f"draw; it is 0 in {int(flat.sum())} of {flat.size} (NaN log odds "
                         "there)")
    s = None if flat.all() else 1.0 / tau_nu[..., None]
    log_slab = class_means_log_density(a[..., None] + v, s, xbar, G)
    log_null = class_means_log_density(v, s, xbar, G)
    pi0 = d["pi0"][..., None]
    with np.errstate(divide="ignore"):      # pi0 = 0 or 1: a certain marker or null
        return np.log1p(-pi0) - np.log(pi0) + log_slab - log_null


def class_log_prior(class_counts, c: float) -> np.ndarray:
    """log of the Polya-urn class probabilities (n_g + c) / (n + G c).

    The predictive class probabilities with psi ~ Dirichlet(c, ..., c) integrated out.

    Parameters
    ----------
    class_counts : array-like of shape (G,)
        Training cases per class n_g.
    c : float
        Dirichlet parameter (``GaussianPriors.c``), > 0.

    Returns
    -------
    ndarray of shape (G,)
        Log probabilities (nats); they log-sum-exp to 0.

    Raises
    ------
    ValueError
        If ``class_counts`` is not a 1-D array of finite counts >= 0, or ``c`` is not a
        finite number > 0.
    TypeError
        If ``c`` is not a number.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(np.exp(class_log_prior([3, 1], c=1.0)), 4).tolist()   # (4/6, 2/6)
    [0.6667, 0.3333]
    """
    c = check_positive(c, name="c")
    counts = np.asarray(class_counts, dtype=np.float64)
    if counts.ndim != 1 or counts.size == 0 or not (np.isfinite(counts).all()
                                                    and (counts >= 0).all()):
        raise ValueError(f"class_counts must be a 1-D array of training cases per class "
                         f"(finite, >= 0); got {np.asarray(class_counts).tolist()}")
    return np.log(counts + c) - np.log(counts.sum() + c * counts.shape[0])


def predictive_moments(tau_x, tau_mu, tau_nu, xbar, class_counts, lambda_mu=None,
                       slab=None):
    """Per-draw predictive mean and precision of a test feature in each class, mu integrated out.

    Given one draw of the precisions, the class mean mu[j, g] has a Gaussian conditional
    posterior (see :func:`draw_class_means`); integrating it out gives
    x*_j | y* = g ~ N(m[s, j, g], 1 / P[s, j, g]) exactly. Using these instead of sampled mu
    (Rao-Blackwellisation) keeps the Monte Carlo average of prod_j p(x*_j | ...) over draws from
    degenerating when k is large (Li 2009 eq 15 is a ratio of such averages).

    Parameters
    ----------
    tau_x : ndarray of shape (S, k)
        Posterior draws of the noise precisions (1 / (data units)^2).
    tau_mu, tau_nu : ndarray of shape (S,)
        Posterior draws of the class-mean and feature-mean precisions.
    xbar : ndarray of shape (k, G)
        Training class means of the retained features (data units).
    class_counts : ndarray of shape (G,)
        Training cases per class.
    lambda_mu : ndarray of shape (S, k), optional
        Per-feature scales of the t prior on mu (``GaussianPriors.mu_t_df``).
    slab : ndarray of bool, shape (S, k), optional
        Two-groups prior: per draw, which features are markers (e.g. drawn with probability
        sigmoid(:func:`marker_log_odds`)). Null features (False) get the class-independent
        predictive of :func:`null_predictive_moments` in every class. The Rao-Blackwellised
        alternative, which averages over the indicators, is
        :func:`selbayes.models.predictive_log_proba_two_groups`.

    Returns
    -------
    mean : ndarray of shape (S, k, G)
        Predictive mean of x*_j in class g (data units).
    precision : ndarray of shape (S, k, G)
        Predictive precision 1 / (1 / tau_x + Var(mu | draw, data)) (1 / (data units)^2).

    Raises
    ------
    ValueError
        If ``slab`` is given with another shape than ``tau_x``; if a precision or scale is
        not finite and > 0 (``tau_nu`` >= 0), ``xbar`` is not finite, or the shapes do not
        match.

    Examples
    --------
    With many training cases per class the predictive mean is the class mean and the precision
    is tau_x:

    >>> import numpy as np
    >>> xbar = np.array([[1.0, -1.0]])
    >>> mean, prec = predictive_moments(np.array([[4.0]]), np.array([1.0]), np.array([1.0]),
    ...                                 xbar, np.array([1e6, 1e6]))
    >>> mean.shape, np.round(mean, 3).tolist(), np.round(prec, 3).tolist()
    ((1, 1, 2), [[[1.0, -1.0]]], [[[4.0, 4.0]]])
    """
    d = _check_draws(tau_x, tau_mu, tau_nu, xbar, class_counts, lambda_mu, draws_2d=True)
    tau_x, xbar = d["tau_x"], d["xbar"]
    a = (1.0 / d["tau_mu"])[:, None, None]
    if lambda_mu is not None:
        a = a / d["lambda_mu"][:, :, None]
    v = 1.0 / (d["class_counts"] * tau_x[:, :, None])                            # (S, k, G)
    w = 1.0 / (a + v)
    var_nu = 1.0 / (d["tau_nu"][:, None] + w.sum(-1))                             # (S, k)
    mean_nu = var_nu * (w * xbar).sum(-1)
    prec_mu = 1.0 / a + 1.0 / v
    mean = (mean_nu[..., None] / a + xbar / v) / prec_mu
    var_mu = 1.0 / prec_mu + (1.0 / (a * prec_mu)) ** 2 * var_nu[..., None]
    precision = 1.0 / (1.0 / tau_x[:, :, None] + var_mu)
    if slab is not None:
        slab = np.asarray(slab, dtype=bool)
        if slab.shape != tau_x.shape:
            raise ValueError(f"slab must have the shape of tau_x {tau_x.shape}; got "
                             f"{slab.shape}")
        null_mean, null_prec = null_predictive_moments(tau_x, tau_nu, xbar, class_counts)
        mean = np.where(slab[..., None], mean, null_mean[..., None])
        precision = np.where(slab[..., None], precision, null_prec[..., None])
    return mean, precision


def null_predictive_moments(tau_x, tau_nu, xbar, class_counts):
    """Per-draw predictive mean and precision of a null feature (mu_jg = nu_j for every g).

    Given tau_x and tau_nu, nu_j | data is normal with precision tau_nu + sum_g n_g tau_x_j
    and mean sum_g n_g tau_x_j xbar_jg over that precision, so a test value has
    x*_j ~ N(E[nu_j], 1 / tau_x_j + Var(nu_j)) whatever its class.

    Parameters
    ----------
    tau_x : ndarray of shape (S, k)
        Draws of the noise precisions (1 / (data units)^2).
    tau_nu : ndarray of shape (S,)
        Draws of the feature-mean precision.
    xbar : ndarray of shape (k, G)
        Training class means (data units).
    class_counts : ndarray of shape (G,)
        Training cases per class.

    Returns
    -------
    mean, precision : ndarray of shape (S, k)
        Predictive mean (data units) and precision (1 / (data units)^2), the same in every
        class.

    Raises
    ------
    ValueError
        If ``tau_x`` is not finite and > 0, ``tau_nu`` not finite and >= 0, ``xbar`` not
        finite, or the shapes do not match.

    Examples
    --------
    With many cases the mean is the pooled mean and the precision tau_x:

    >>> import numpy as np
    >>> m, p = null_predictive_moments(np.array([[4.0]]), np.array([1.0]),
    ...                                np.array([[1.0, 3.0]]), np.array([1e6, 3e6]))
    >>> np.round(m, 3).tolist(), np.round(p, 3).tolist()
    ([[2.5]], [[4.0]])
    """
    d = _check_draws(tau_x, None, tau_nu, xbar, class_counts, draws_2d=True)
    tau_x = d["tau_x"]
    w = d["class_counts"] * tau_x[:, :, None]                                    # (S, k, G)
    var_nu = 1.0 / (d["tau_nu"][:, None] + w.sum(-1))
    mean = var_nu * (w * d["xbar"]).sum(-1)
    return mean, 1.0 / (1.0 / tau_x + var_nu)


def _check_moments(X_test_selected, mean, precision, class_log_prior_):
    """Checked test values (m, k), per-draw means and precisions (S, k, G) and class log
    prior (G,) of the predictive functions."""
    X = check_matrix(X_test_selected, name="X_test_selected")
    m_ = np.asarray(mean, dtype=np.float64)
    P = np.asarray(precision, dtype=np.float64)
    if m_.ndim != 3:
        raise ValueError(f"mean must have shape (n_draws, k, G); got {m_.shape}")
    S, k, G = m_.shape
    if P.ndim == 2 and P.shape == (S, k):
        P = np.broadcast_to(P[:, :, None], (S, k, G))
    if P.shape != (S, k, G):
        raise ValueError(f"precision must have shape (n_draws, k) or (n_draws, k, G) = "
                         f"{(S, k, G)}; got {np.shape(precision)}")
    _check_mean_and_precision(m_, P)
    return X, m_, P, _check_prior_and_columns(class_log_prior_, G, X, k)


def _check_mean_and_precision(mean, precision, prefix: str = "") -> None:
    """Predictive means finite, precisions finite and > 0 (``prefix``: "null_" for the
    two-groups prior's null moments)."""
    if not np.isfinite(mean).all():
        raise ValueError(f"{prefix}mean contains NaN or infinite values")
    _require_positive(f"{prefix}precision", precision, True, "1 / variance")


def _require_positive(name: str, arr, strict: bool, what: str) -> None:
    """``arr`` finite and > 0 (``strict``) or >= 0, or a ValueError naming ``name``, what it
    is, and how many of its values are not (the draws' and the predictive moments' check)."""
    arr = np.asarray(arr)
    bad = ~np.isfinite(arr) | ((arr <= 0) if strict else (arr < 0))
    if bad.any():
        raise ValueError(f"{name} must be finite and {'>' if strict else '>='} 0 ({what}); "
                         f"{int(bad.sum())} of its {arr.size} value(s) are not, e.g. "
                         f"{float(arr[bad].flat[0])}")


def _check_prior_and_columns(class_log_prior_, G: int, X: np.ndarray, k: int) -> np.ndarray:
    """``class_log_prior_`` as a float array of shape (G,), once it and the k columns of the
    test data ``X`` are checked (the shared checks of the predictive functions)."""
    class_log_prior_ = np.asarray(class_log_prior_, dtype=np.float64)
    if class_log_prior_.shape != (G,):
        raise ValueError(f"class_log_prior_ must have shape (G,) = ({G},); got "
                         f"{class_log_prior_.shape}")
    if np.isnan(class_log_prior_).any() or (class_log_prior_ == np.inf).any():
        raise ValueError(f"class_log_prior_ must hold log probabilities (no NaN or +inf); got "
                         f"{class_log_prior_.tolist()}")
    if X.shape[1] != k:
        raise ValueError(f"X_test_selected has {X.shape[1]} columns (retained features); the "
                         f"model has {k}")
    return class_log_prior_


def predictive_log_proba(X_test_selected, mean, precision, class_log_prior_,
                         chunk_size: int | None = None, max_bytes: float = 2e8) -> np.ndarray:
    """log P(y* = g | x*, training data) for every test case (Li 2009 eqs 13-15).

    P(y* = g | x*) is proportional to the class prior times the posterior average over draws s
    of prod_j N(x*_j | mean[s, j, g], 1 / precision[s, j, g]); the average is taken in log space
    (logsumexp over draws). The quadratic form is expanded, so the work is two matrix products
    per chunk of test cases.

    Parameters
    ----------
    X_test_selected : ndarray of shape (m, k)
        Test values of the retained features (data units, same transform as training).
    mean : ndarray of shape (S, k, G)
        Per-draw predictive means (:func:`predictive_moments`, or sampled mu).
    precision : ndarray of shape (S, k, G) or (S, k)
        Per-draw predictive precisions (or tau_x, when ``mean`` holds sampled mu), in
        1 / (data units)^2.
    class_log_prior_ : ndarray of shape (G,)
        Log class probabilities, e.g. :func:`class_log_prior` (nats).
    chunk_size : int, optional
        Test cases per chunk; by default chosen so the (chunk, S, G) temporary stays below
        ``max_bytes``.
    max_bytes : float
        Memory budget of one chunk's temporaries (bytes).

    Returns
    -------
    ndarray of shape (m, G)
        Normalised log probabilities (nats; each row log-sum-exps to 0).

    Raises
    ------
    ValueError
        If ``X_test_selected`` is not a finite 2-D array with k columns, ``mean`` is not 3-D
        and finite, ``precision`` does not match it or is not positive, ``class_log_prior_``
        does not have G entries (or holds NaN), ``chunk_size`` is not a positive integer or
        ``max_bytes`` not a positive number.
    TypeError
        If ``X_test_selected`` is not numeric or ``max_bytes`` not a number.

    Examples
    --------
    One draw, unit precision, class means -1 and +1, equal priors: at x* = 1 the odds are
    exp(2), so P(class 1) = 1 / (1 + exp(-2)):

    >>> import numpy as np
    >>> mean = np.array([[[-1.0, 1.0]]]); prec = np.ones((1, 1, 2))
    >>> lp = predictive_log_proba(np.array([[0.0], [1.0]]), mean, prec, np.log([0.5, 0.5]))
    >>> np.round(np.exp(lp), 4).tolist()
    [[0.5, 0.5], [0.1192, 0.8808]]
    """
    X, m_, P, class_log_prior_ = _check_moments(X_test_selected, mean, precision,
                                                class_log_prior_)
    if chunk_size is not None:
        chunk_size = check_positive_int(chunk_size, name="chunk_size")
    max_bytes = check_positive(max_bytes, name="max_bytes")
    S, k, G = m_.shape
    n_test = X.shape[0]
    const = 0.5 * np.log(P).sum(axis=1) - 0.5 * (P * m_ * m_).sum(axis=1)       # (S, G)
    const -= 0.5 * k * np.log(2 * np.pi)
    cross = (P * m_).transpose(1, 0, 2).reshape(k, S * G)                        # (k, S*G)
    quad_w = P.transpose(1, 0, 2).reshape(k, S * G)
    if chunk_size is None:
        chunk_size = max(1, int(max_bytes // (8 * S * G * 3)))
    out = np.empty((n_test, G))
    for start in range(0, n_test, chunk_size):
        xb = X[start:start + chunk_size]
        ll = (xb @ cross - 0.5 * ((xb * xb) @ quad_w)).reshape(-1, S, G) + const[None]
        lp = logsumexp(ll, axis=1) - np.log(S) + class_log_prior_[None, :]
        out[start:start + chunk_size] = lp - logsumexp(lp, axis=1, keepdims=True)
    return out


def hyperparameter_groups(tau_mu, n_groups: int = 10, pi0=None) -> np.ndarray:
    """Labels that split posterior draws into groups of nearly equal global hyperparameters.

    Draws sorted by tau_mu (the hyperparameter that sets how far the class means of a feature
    spread, and so the class odds) and cut into ``n_groups`` groups of equal size (quantile
    bins), for the ``groups`` of :func:`factorised_predictive_log_proba` and
    :func:`selbayes.models.predictive_log_proba_two_groups`. With ``pi0``
    (the two-groups prior's null share, a second global) the draws are cut into
    ceil(sqrt(n_groups)) quantile bins of tau_mu, and each of those into
    ceil(n_groups / ceil(sqrt(n_groups))) quantile bins of pi0.

    Parameters
    ----------
    tau_mu : ndarray of shape (S,)
        Posterior draws of the class-mean precision.
    n_groups : int
        Number of groups (at most S). 10 groups of 100 of the default 1000 draws: within a
        group log tau_mu varies by about a tenth of its posterior range.
    pi0 : ndarray of shape (S,), optional
        Posterior draws of the null share.

    Returns
    -------
    ndarray of int, shape (S,)
        Group label of each draw, 0, 1, ...; without ``pi0`` increasing with tau_mu.

    Raises
    ------
    ValueError
        If ``tau_mu`` (or ``pi0``) is not a non-empty 1-D array of one length with finite
        values, or ``n_groups`` is not a positive integer.

    Examples
    --------
    >>> hyperparameter_groups(np.array([5.0, 1.0, 3.0, 2.0]), n_groups=2).tolist()
    [1, 0, 1, 0]
    >>> hyperparameter_groups(np.array([5.0, 1.0, 3.0, 2.0]), n_groups=4,
    ...                       pi0=np.array([0.1, 0.2, 0.3, 0.4])).tolist()
    [2, 0, 3, 1]
    """
    tau_mu = np.asarray(tau_mu, dtype=np.float64)
    if tau_mu.ndim != 1 or tau_mu.size == 0:
        raise ValueError(f"tau_mu must be a non-empty 1-D array of draws; got shape "
                         f"{tau_mu.shape}")
    if not np.isfinite(tau_mu).all():
        raise ValueError("tau_mu contains NaN or infinite draws")
    n_groups = check_positive_int(n_groups, name="n_groups")
    if pi0 is not None:
        pi0 = np.asarray(pi0, dtype=np.float64)
        if pi0.shape != tau_mu.shape:
            raise ValueError(f"pi0 must have the shape of tau_mu {tau_mu.shape}; got "
                             f"{pi0.shape}")
        if not np.isfinite(pi0).all():
            raise ValueError("pi0 contains NaN or infinite draws")
        outer = int(np.ceil(np.sqrt(n_groups)))
        inner = int(np.ceil(n_groups / outer))
        labels = np.empty(tau_mu.size, dtype=np.int64)
        start = 0
        for idx in _quantile_bins(tau_mu, outer):
            sub = hyperparameter_groups(pi0[idx], inner)
            labels[idx] = sub + start
            start += sub.max() + 1
        return labels
    labels = np.empty(tau_mu.size, dtype=np.int64)
    for g, idx in enumerate(_quantile_bins(tau_mu, int(n_groups))):
        labels[idx] = g
    return labels


def _quantile_bins(values, n: int) -> list:
    """Indices of ``values`` in min(n, len) groups of equal size, in increasing order."""
    return np.array_split(np.argsort(values, kind="stable"), min(n, values.size))


def _check_groups(groups, S: int) -> np.ndarray:
    """``groups`` as an int array with one label per draw (ValueError otherwise)."""
    groups = np.asarray(groups)
    if groups.shape != (S,) or not np.issubdtype(groups.dtype, np.integer):
        raise ValueError(f"groups must hold one int label per draw, shape ({S},); got "
                         f"{groups.dtype} of shape {groups.shape}")
    return groups


def _group_weights(groups: np.ndarray) -> list:
    """Per distinct label of the (checked) ``groups``: its draws (boolean mask) and its log
    weight log(size / S)."""
    return [(groups == b, np.log(np.mean(groups == b))) for b in np.unique(groups)]


def _log_mean_exp(a: np.ndarray, axis: int) -> np.ndarray:
    """log mean exp of ``a`` along ``axis``, overwriting ``a`` (a temporary of the caller):
    scipy's logsumexp took 7x longer on the (cases, draws, features) blocks here."""
    top = a.max(axis=axis, keepdims=True)
    a -= top
    np.exp(a, out=a)
    return np.log(a.mean(axis=axis)) + np.squeeze(top, axis=axis)


#: Draws :func:`factorised_predictive_log_proba` uses by default: per feature the average of a
#: one-dimensional density over 200 evenly spaced draws is already precise.
FACTORISED_MAX_DRAWS = 200


def factorised_predictive_log_proba(X_test_selected, mean, precision, class_log_prior_,
                                    max_draws: int | None = FACTORISED_MAX_DRAWS, groups=None,
                                    max_bytes: float = 2e8) -> np.ndarray:
    """Predictive log probabilities when the features' parameters are independent given the
    global hyperparameters.

    In the hierarchical model every kept feature's parameters (tau_x_j, lambda_j, mu_j, nu_j)
    are independent a posteriori given the global hyperparameters (tau_mu, tau_nu): the
    selection factor depends on those alone. So

        p(x* | g, data) = E_globals[ prod_j E_j[N(x*_j | mean_jg, 1 / precision_jg) | globals] ].

    Given fixed hyperparameters (the plug-in posterior,
    :func:`selbayes.models.plugin_posterior`) this is the product over
    features of each feature's average over its own draws. For MCMC draws, ``groups`` labels
    draws of nearly equal globals (:func:`hyperparameter_groups`): the product of per-feature
    averages is formed within each group and averaged over groups (weighted by their sizes).
    :func:`predictive_log_proba` averages the product over joint draws instead, the same
    quantity, but with k in the thousands that average is dominated by a few draws and its
    Monte Carlo error in the log odds is of order 1 (two NUTS seeds differed by a mean 1.1 at
    k = 1000; grouped by tau_mu, 0.09: ``benchmarks/results/predictive_mc_error.md``). With
    one draw per group it is :func:`predictive_log_proba`.

    Parameters
    ----------
    X_test_selected : ndarray of shape (m, k)
        Test values of the retained features (data units).
    mean, precision : ndarray of shape (S, k, G)
        Per-draw predictive means and precisions (:func:`predictive_moments`); precision may
        also be (S, k).
    class_log_prior_ : ndarray of shape (G,)
        Log class probabilities (nats).
    max_draws : int or None
        Evenly spaced draws used (per feature the average over 200 draws of a one-dimensional
        density is already precise); None uses all.
    groups : int array-like of shape (S,), optional
        Group label of each draw (draws of nearly equal global hyperparameters); None: one
        group (the hyperparameters are fixed).
    max_bytes : float
        Memory budget of one block's temporaries (bytes).

    Returns
    -------
    ndarray of shape (m, G)
        Normalised log probabilities (nats).

    Raises
    ------
    ValueError
        As :func:`predictive_log_proba`; or if ``groups`` does not have one label per draw,
        or ``max_draws`` is not None or a positive integer.
    TypeError
        As :func:`predictive_log_proba`.

    Examples
    --------
    With one draw it is :func:`predictive_log_proba`:

    >>> mean = np.array([[[-1.0, 1.0]]]); prec = np.ones((1, 1, 2))
    >>> lp = factorised_predictive_log_proba(np.array([[1.0]]), mean, prec, np.log([0.5, 0.5]))
    >>> np.round(np.exp(lp), 4).tolist()
    [[0.1192, 0.8808]]
    """
    X, m_, P, class_log_prior_ = _check_moments(X_test_selected, mean, precision,
                                                class_log_prior_)
    if max_draws is not None:
        max_draws = check_positive_int(max_draws, name="max_draws")
    max_bytes = check_positive(max_bytes, name="max_bytes")
    S, k, G = m_.shape
    groups = np.zeros(S, dtype=np.int64) if groups is None else _check_groups(groups, S)
    if max_draws is not None and S > max_draws:
        keep = np.linspace(0, S - 1, max_draws).round().astype(int)
        m_, P, groups = m_[keep], P[keep], groups[keep]
    parts = [_factorised_log_density(X, m_[draws], P[draws], max_bytes) + log_w
             for draws, log_w in _group_weights(groups)]
    lp = logsumexp(np.stack(parts), axis=0) + class_log_prior_[None, :]
    return lp - logsumexp(lp, axis=1, keepdims=True)


def _factorised_log_density(X, m_, P, max_bytes: float) -> np.ndarray:
    """log prod_j mean_s N(x_j | m_[s, j, g], 1 / P[s, j, g]) for every test row and class,
    shape (m, G), in blocks of rows and features that keep temporaries under ``max_bytes``."""
    S, k, G = m_.shape
    n_test = X.shape[0]
    rows = min(n_test, 64)
    cols = max(1, int(max_bytes // (8 * S * rows * 3)))
    ll = np.zeros((n_test, G))
    for g in range(G):
        half_log_p = 0.5 * np.log(P[:, :, g]) - 0.5 * np.log(2 * np.pi)          # (S, k)
        for j0 in range(0, k, cols):
            mu, p, c = m_[:, j0:j0 + cols, g], P[:, j0:j0 + cols, g], half_log_p[:, j0:j0 + cols]
            for r0 in range(0, n_test, rows):
                d = X[r0:r0 + rows, None, j0:j0 + cols] - mu[None]                # (r, S, c)
                per_draw = c[None] - 0.5 * p[None] * d * d
                ll[r0:r0 + rows, g] += _log_mean_exp(per_draw, axis=1).sum(-1)
    return ll
