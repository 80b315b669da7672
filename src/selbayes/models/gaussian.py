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

__all__ = ["sufficient_statistics", "model_data", "build_model", "sample_nutpie",
           "predictive_log_proba", "class_log_prior"]


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


# The adjustment table spans log(tau_mu w_x) in [-30, 45] for every design with n < e^15, so its
# shape, and with it the compiled graph, does not change between folds or SBC replicates.
_TABLE_RANGE = (-30.0, 45.0)


def _check_inputs(X_selected, y, selection: Selection):
    X_selected = check_matrix(X_selected, name="X_selected")
    classes, y_index, _ = check_labels(y, X_selected.shape[0])
    if not np.array_equal(np.asarray(classes), np.asarray(selection.classes)):
        raise ValueError(
            f"the classes of y {classes.tolist()} differ from the selection's "
            f"{np.asarray(selection.classes).tolist()}"
        )
    n, k = X_selected.shape
    if k != selection.n_selected:
        raise ValueError(
            f"X_selected has {k} columns but the selection retained {selection.n_selected}"
        )
    G = classes.shape[0]
    if n - G < 1:
        raise ValueError(f"need n - G >= 1 training cases beyond one per class; got n = {n}, G = {G}")
    return X_selected, classes, y_index


def model_data(X_selected, y, selection: Selection, priors: GaussianPriors | dict | None = None,
               corrected: bool = True, adjustment_method: str = "exact") -> dict:
    """Everything the model reads from the data, as arrays named like its ``pm.Data``.

    Returns
    -------
    dict
        ``xbar_obs`` (k, G) class means, ``ssw_obs`` (k,) within-class sums of squares,
        ``class_counts`` (G,), ``ssw_shape`` ((n - G)/2); when corrected also ``n_omitted``
        and the adjustment table ``adj_coef`` (6, m) and ``adj_edges`` (7,).
    """
    priors = GaussianPriors.from_dict(priors)
    X_selected, classes, y_index = _check_inputs(X_selected, y, selection)
    n = X_selected.shape[0]
    G = classes.shape[0]
    counts, xbar, ssw = sufficient_statistics(X_selected, y_index, G)
    data = {"xbar_obs": xbar, "ssw_obs": ssw, "class_counts": counts.astype(np.float64),
            "ssw_shape": np.float64((n - G) / 2)}
    if corrected and selection.n_omitted > 0:
        from ..adjustment import FStatOmitLogProb

        heavy = priors.mu_t_df is not None and priors.mu_t_df <= 2   # needs a longer table
        table_range = (_TABLE_RANGE if np.log(n) + 30.0 <= _TABLE_RANGE[1] and not heavy
                       else None)
        op = FStatOmitLogProb(class_counts=counts, threshold=selection.threshold,
                              alpha_x=priors.alpha_x, method=adjustment_method,
                              table_range=table_range, mu_t_df=priors.mu_t_df)
        params = op.spline_parameters()
        data.update(n_omitted=np.float64(selection.n_omitted), adj_coef=params["coef"],
                    adj_edges=params["edges"], _adj_spacing=op.spacing)
    return data


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
        Free variables ``tau_mu``, ``tau_nu``, ``tau_x`` (k), ``z_nu`` (k), ``z_mu`` (k, G)
        (and ``w_x`` with a hyperprior, ``lambda_mu`` (k) with the t prior); deterministics ``nu`` (k) and ``mu`` (k, G); observed
        sufficient statistics ``xbar`` (k, G) and ``ssw`` (k); and, when corrected, the
        Potential ``selection_adjustment``. All data enter through ``pm.Data`` (see
        :func:`model_data`), so a compiled model can be reused with other data of equal shape.
    """
    priors = GaussianPriors.from_dict(priors)
    data = model_data(X_selected, y, selection, priors, corrected, adjustment_method)
    names = (list(feature_names) if feature_names is not None
             else [int(i) for i in selection.indices])
    coords = {"feature": names, "class": [str(c) for c in selection.classes]}
    return _model_from_data(data, priors, coords)


def _model_from_data(data: dict, priors: GaussianPriors, coords: dict) -> pm.Model:
    with pm.Model(coords=coords) as model:
        xbar_obs = pm.Data("xbar_obs", data["xbar_obs"], dims=("feature", "class"))
        ssw_obs = pm.Data("ssw_obs", data["ssw_obs"], dims="feature")
        counts = pm.Data("class_counts", data["class_counts"], dims="class")
        ssw_shape = pm.Data("ssw_shape", data["ssw_shape"])
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
        scale = tau_mu
        if priors.mu_t_df is not None:
            lam = pm.Gamma("lambda_mu", alpha=priors.mu_t_df / 2, beta=priors.mu_t_df / 2,
                           dims="feature")
            scale = tau_mu * lam[:, None]
        mu = pm.Deterministic("mu", nu[:, None] + z_mu / pt.sqrt(scale), dims=("feature", "class"))

        # Sufficient statistics carry exactly the likelihood's dependence on (mu, tau_x):
        # xbar[j, g] ~ N(mu[j, g], 1/(n_g tau_x[j])), ssw[j] ~ Gamma((n - G)/2, rate tau_x[j]/2).
        pm.Normal("xbar", mu=mu, sigma=1.0 / pt.sqrt(tau_x[:, None] * counts[None, :]),
                  observed=xbar_obs, dims=("feature", "class"))
        pm.Gamma("ssw", alpha=ssw_shape, beta=tau_x / 2, observed=ssw_obs, dims="feature")

        if "adj_coef" in data:
            from ..adjustment import FStatOmitLogProb

            n_omitted = pm.Data("n_omitted", data["n_omitted"])
            coef = pm.Data("adj_coef", data["adj_coef"])
            edges = pm.Data("adj_edges", data["adj_edges"])
            log_p = FStatOmitLogProb.spline_graph(pt.log(tau_mu) + log_w_x, coef, edges,
                                                  data["_adj_spacing"])
            pm.Potential("selection_adjustment", n_omitted * log_p)
    return model


# ---------------------------------------------------------------------------- compiled cache
_COMPILED: dict = {}


def _cache_key(data: dict, priors: GaussianPriors) -> tuple:
    return (data["xbar_obs"].shape, "adj_coef" in data,
            data["adj_coef"].shape if "adj_coef" in data else None,
            data.get("_adj_spacing"), tuple(sorted(priors.to_dict().items())))


def sample_nutpie(data: dict, priors: GaussianPriors, coords: dict, *, draws: int, tune: int,
                  chains: int, seed: int | None, target_accept: float, progressbar: bool):
    """Sample with nutpie, compiling the model once per shape and prior and reusing it.

    numba compilation takes tens of seconds while a small fit samples in about one, so
    cross-validation folds, SBC replicates and the corrected/uncorrected pair of one shape
    share a compiled model; only ``pm.Data`` values change between calls.

    Returns
    -------
    (xarray.DataTree, pymc.Model)
        The result (coordinates relabelled to ``coords``) and the model built for this data.
    """
    import nutpie

    key = _cache_key(data, priors)
    model = _model_from_data(data, priors, coords)
    compiled = _COMPILED.get(key)
    if compiled is None:
        compiled = nutpie.compile_pymc_model(model)
        _COMPILED[key] = compiled
    updates = {name: value for name, value in data.items() if not name.startswith("_")}
    compiled = compiled.with_data(**updates)
    idata = nutpie.sample(compiled, draws=draws, tune=tune, chains=chains, seed=seed,
                          progress_bar=progressbar, save_warmup=False,
                          target_accept=target_accept)
    for group in ("posterior", "sample_stats"):
        if group in idata.children:
            ds = idata[group].to_dataset()
            ds = ds.assign_coords({c: v for c, v in coords.items() if c in ds.dims})
            idata[group] = type(idata[group])(ds)
    return idata, model


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
