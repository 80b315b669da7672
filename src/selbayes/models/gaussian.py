"""The hierarchical Gaussian classifier of Li 2009 as a PyMC model, and its predictive.

Model (Li 2009 eqs 4-11), for retained features j = 1..k and classes g = 1..G::

    x_j | y = g        ~ N(mu[j, g], 1 / tau_x[j])
    mu[j, g] | nu_j    ~ N(nu[j], 1 / tau_mu)
    nu[j]              ~ N(0, 1 / tau_nu)
    tau_x[j]           ~ Gamma(alpha_x / 2, rate alpha_x w_x / 2)
    tau_mu, tau_nu     ~ Gamma(alpha / 2, rate alpha w / 2)

The class probabilities psi ~ Dirichlet(c) are integrated out (they enter prediction only,
through the Polya-urn weights (n_g + c) / (n + G c)).

Parameterisation: by default ("marginal") mu and nu are integrated out analytically: given the
precisions, each feature's class means are jointly Gaussian, so NUTS samples only tau_x (k),
tau_mu and tau_nu, with no funnel whether the selected features are weakly or strongly
informative; mu and nu are then drawn exactly from their Gaussian conditional, one draw per
posterior draw. "noncentered" samples mu = nu + z_mu / sqrt(tau_mu), nu = z_nu / sqrt(tau_nu)
instead (kept as a second, independent route). The likelihood uses the sufficient statistics
per feature (class means and the pooled within-class sum of squares), so its cost is O(k G)
per gradient, independent of n.

Selection correction (Li 2009 eqs 23-24): ``pm.Potential("selection_adjustment",
(p - k) * log P(F <= gamma | tau_mu w_x))`` through the
:class:`selbayes.adjustment.op.FStatAdjustment` Op.

Two-groups prior (``GaussianPriors(pi0_a=..., pi0_b=...)``; Efron 2008): each feature is null
(mu[j, g] = nu[j] for every g) with probability pi0 ~ Beta(pi0_a, pi0_b), and otherwise its
class means come from the slab above (normal or t). The indicator is summed out per feature:
the marginal likelihood of feature j is pi0 L_null[j] + (1 - pi0) L_slab[j], both Gaussian
densities of the class means (:func:`class_means_log_density`); the omitted-feature factor is
(p - k) log[pi0 P(F <= gamma | null) + (1 - pi0) P(F <= gamma | tau_mu w_x)], where the null
probability is the central F(G - 1, n - G) cdf (the F statistic of a null feature does not
depend on tau_x or nu). Each kept feature's posterior probability of being a marker is
:func:`marker_probabilities`; predictions mix the null and slab predictives per feature
(:func:`two_groups_predictive`, :func:`predictive_log_proba_two_groups`).

References
----------
.. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models. Manuscript.
.. [2] Efron, B. (2008). Microarrays, empirical Bayes and the two-groups model. Statistical
   Science 23, 1-22.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy.special import logsumexp

from .._validation import check_labels, check_matrix
from ..filters.selection import Selection
from .priors import GaussianPriors

__all__ = ["sufficient_statistics", "class_means_log_density", "model_data", "build_model",
           "sample_nutpie", "draw_class_means", "predictive_moments", "predictive_log_proba",
           "class_log_prior", "null_log_prob", "marker_log_odds", "marker_probabilities",
           "null_predictive_moments", "two_groups_predictive",
           "predictive_log_proba_two_groups"]


def sufficient_statistics(X_selected: np.ndarray, y_index: np.ndarray, n_classes: int):
    """Class counts, class means and pooled within-class sums of squares of the retained features.

    These are sufficient for the Gaussian likelihood given (mu, tau_x), so the model's cost does
    not grow with n.

    Parameters
    ----------
    X_selected : ndarray of shape (n_samples, k)
        Training values of the retained features (data units).
    y_index : ndarray of int, shape (n_samples,)
        Class index 0..G-1 of each case (as from :func:`selbayes._validation.check_labels`).
    n_classes : int
        G. Every class must occur at least once (an empty class gives NaN means).

    Returns
    -------
    counts : ndarray of int64, shape (G,)
        Cases per class n_g.
    means : ndarray of shape (k, G)
        Class means xbar[j, g] (data units).
    ssw : ndarray of shape (k,)
        sum_g sum_{i in g} (x_ij - xbar[j, g])^2 (squared data units).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [2.0, 3.0], [10.0, 5.0]])
    >>> counts, means, ssw = sufficient_statistics(X, np.array([0, 0, 1]), 2)
    >>> counts.tolist(), means.tolist(), ssw.tolist()
    ([2, 1], [[1.0, 10.0], [2.0, 5.0]], [2.0, 2.0])
    """
    n = X_selected.shape[0]
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), y_index] = 1.0
    counts = onehot.sum(axis=0)
    means = (onehot.T @ X_selected / counts[:, None]).T                 # (k, G)
    resid = X_selected - means.T[y_index]
    ssw = np.einsum("ij,ij->j", resid, resid)
    return counts.astype(np.int64), means, ssw


# The adjustment table spans log(tau_mu w_x) in [-30, 45] for every design with n < e^15, so its
# shape, and with it the compiled graph, does not change between folds or SBC replicates. Knots
# 0.1 apart keep the quintic interpolation error near 1e-11 (measured at construction, attribute
# interp_error) while halving the table's cost, which matters for small fits.
_TABLE_RANGE = (-30.0, 45.0)
_TABLE_SPACING = 0.1


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
        raise ValueError(f"need n - G >= 1 training cases beyond one per class; "
                         f"got n = {n}, G = {G}")
    return X_selected, classes, y_index


def model_data(X_selected, y, selection: Selection, priors: GaussianPriors | dict | None = None,
               corrected: bool = True, adjustment_method: str = "table") -> dict:
    """Everything the model reads from the data, as arrays named like its ``pm.Data``.

    A compiled model (see :func:`sample_nutpie`) is reused for new data by swapping in these
    arrays, so cross-validation folds and SBC replicates of one shape share one compilation.

    Parameters
    ----------
    X_selected : array-like of shape (n_samples, k)
        Training values of the retained features, in ``selection.indices`` order.
    y : array-like of shape (n_samples,)
        Class labels; their sorted distinct values must equal ``selection.classes``.
    selection : Selection
        From :func:`selbayes.select_features` with ``statistic="f"``: supplies p - k and
        gamma.
    priors : GaussianPriors or dict, optional
        Defaults to the paper's fitting priors; ``alpha_x`` and ``mu_t_df`` shape the
        adjustment table.
    corrected : bool
        Include the selection adjustment's data (its spline table and p - k in
        ``n_omitted``). Uncorrected, ``n_omitted`` is 0: the same data as a selection that
        omitted nothing (the meaning naive Bayes gives it too, see
        :mod:`selbayes.models._nutpie`).
    adjustment_method : {"table", "exact", "mc"}
        Evaluation of the :class:`~selbayes.adjustment.op.FStatAdjustment` Op: the quintic table
        of the accurate function (default), the accurate log-t convolution itself, or the
        paper's Monte Carlo expectation (1000 draws, common random numbers, seed 0).

    Returns
    -------
    dict
        ``xbar_obs`` (k, G) class means, ``ssw_obs`` (k,) within-class sums of squares,
        ``class_counts`` (G,) float, ``ssw_shape`` ((n - G)/2, scalar), ``n_omitted`` (p - k,
        float; 0 when uncorrected); when ``n_omitted > 0`` also the Op's inputs
        ``adj_<name>`` (for the table ``adj_coef`` (6, m) and ``adj_edges`` (8,)) and
        ``_adj_op`` (the Op, a graph constant, not ``pm.Data``), with the two-groups prior
        also ``log_p_null`` (log P(F <= gamma) of a null feature, :func:`null_log_prob`).

    Raises
    ------
    ValueError
        If the classes of ``y`` differ from the selection's, ``X_selected`` does not have
        ``selection.n_selected`` columns, n - G < 1, ``X_selected`` or ``y`` is malformed
        (non-finite values, wrong length, fewer than two classes), or a prior setting is
        unknown or not positive.
    TypeError
        If ``X_selected`` is not numeric.

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 50)); y = np.repeat([0, 1], 10)
    >>> sel = selbayes.select_features(X, y, k=3)
    >>> data = model_data(X[:, sel.indices], y, sel)
    >>> data["xbar_obs"].shape, data["ssw_shape"], data["n_omitted"]
    ((3, 2), np.float64(9.0), np.float64(47.0))
    >>> uncorrected = model_data(X[:, sel.indices], y, sel, corrected=False)
    >>> uncorrected["n_omitted"], "adj_coef" in uncorrected
    (np.float64(0.0), False)
    """
    priors = GaussianPriors.from_dict(priors)
    X_selected, classes, y_index = _check_inputs(X_selected, y, selection)
    n = X_selected.shape[0]
    G = classes.shape[0]
    counts, xbar, ssw = sufficient_statistics(X_selected, y_index, G)
    data = {"xbar_obs": xbar, "ssw_obs": ssw, "class_counts": counts.astype(np.float64),
            "ssw_shape": np.float64((n - G) / 2), "n_omitted": np.float64(0.0)}
    if corrected and selection.n_omitted > 0:
        from ..adjustment.fstat_op import fstat_parameters

        if selection.statistic != "f":
            raise ValueError(f"the selection correction of this model needs an F-statistic "
                             f"selection; got statistic={selection.statistic!r} (use "
                             "select_features(..., statistic='f') or corrected=False)")

        heavy = priors.mu_t_df is not None and priors.mu_t_df <= 2   # needs a longer table
        table_range = (_TABLE_RANGE if np.log(n) + 30.0 <= _TABLE_RANGE[1] and not heavy
                       else None)
        # label=False: the design (G, gamma) is data, so one compiled model serves many.
        op, params = fstat_parameters(counts, selection.threshold, priors.alpha_x,
                                      method=adjustment_method, table_range=table_range,
                                      spacing=_TABLE_SPACING, mu_t_df=priors.mu_t_df,
                                      label=False)
        data.update(n_omitted=np.float64(selection.n_omitted), _adj_op=op,
                    **{f"adj_{name}": value for name, value in params.items()})
        if priors.two_groups:
            data["log_p_null"] = null_log_prob(counts, selection.threshold)
    return data


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

    Examples
    --------
    >>> from scipy.stats import f
    >>> lp = null_log_prob([10, 10, 10], 3.0)
    >>> bool(abs(lp - f.logcdf(3.0, 2, 27)) < 1e-14), round(float(lp), 4)
    (True, -0.0689)
    """
    from scipy.stats import f as f_dist

    counts = np.asarray(class_counts, dtype=np.float64)
    G, n = counts.shape[0], counts.sum()
    return np.float64(f_dist.logcdf(float(threshold), G - 1, n - G))


def build_model(X_selected, y, selection: Selection, priors: GaussianPriors | dict | None = None,
                corrected: bool = True, adjustment_method: str = "table",
                feature_names=None, parameterization: str = "marginal") -> pm.Model:
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
    adjustment_method : {"table", "exact", "mc"}
        Evaluation of the :class:`~selbayes.adjustment.op.FStatAdjustment` Op: the quintic table
        of the accurate function (default), the accurate log-t convolution itself, or the
        paper's Monte Carlo expectation (1000 draws, common random numbers, seed 0).
    feature_names : sequence of str, optional
        Coordinate labels for the ``feature`` dimension (default: original column indices).
    parameterization : {"marginal", "noncentered"}
        "marginal" (default) integrates the class means mu and feature means nu out
        analytically, so NUTS samples only the k + 2 precisions (no funnel however strongly
        the features are selected); :func:`draw_class_means` then draws mu and nu exactly.
        "noncentered" samples mu = nu + z / sqrt(tau_mu), nu = z_nu / sqrt(tau_nu).

    Returns
    -------
    pymc.Model
        Free variables ``tau_mu``, ``tau_nu``, ``tau_x`` (k) (``w_x`` with a hyperprior,
        ``lambda_mu`` (k) with the t prior, ``pi0`` and the deterministic ``marker_prob``
        (k) with the two-groups prior); observed ``ssw`` (k); the Potential
        ``class_means_likelihood`` (marginal) or free ``z_nu``, ``z_mu``, deterministics
        ``nu`` (k), ``mu`` (k, G) and observed ``xbar`` (k, G) (noncentered); and, when
        corrected, the Potential ``selection_adjustment``. All data enter through ``pm.Data`` (see
        :func:`model_data`), so a compiled model can be reused with other data of equal shape.

    Raises
    ------
    ValueError
        If ``parameterization`` is unknown, or for the data problems listed in
        :func:`model_data`.
    NotImplementedError
        For the two-groups prior with ``parameterization="noncentered"``.
    TypeError
        If ``X_selected`` is not numeric.

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 50)); y = np.repeat([0, 1], 10)
    >>> sel = selbayes.select_features(X, y, k=3)
    >>> two = build_model(X[:, sel.indices], y, sel, priors={"pi0_a": 1, "pi0_b": 1})
    >>> sorted(v.name for v in two.free_RVs), [v.name for v in two.deterministics]
    (['pi0', 'tau_mu', 'tau_nu', 'tau_x'], ['marker_prob'])
    >>> model = build_model(X[:, sel.indices], y, sel)
    >>> sorted(v.name for v in model.free_RVs)
    ['tau_mu', 'tau_nu', 'tau_x']
    >>> [p.name for p in model.potentials]
    ['class_means_likelihood', 'selection_adjustment']
    """
    priors = GaussianPriors.from_dict(priors)
    data = model_data(X_selected, y, selection, priors, corrected, adjustment_method)
    names = (list(feature_names) if feature_names is not None
             else [int(i) for i in selection.indices])
    coords = {"feature": names, "class": [str(c) for c in selection.classes]}
    return _model_from_data(data, priors, coords, parameterization)


PARAMETERIZATIONS = ("marginal", "noncentered")


def _static(data: dict, name: str, static_shapes: bool) -> dict:
    """``pm.Data`` keyword giving the container the static shape of its value: the compiled
    model of one cache key never sees another shape, and a static shape lets pytensor drop
    the runtime shape assertions (``SpecifyShape``) PyMC puts on observed data, whose numba
    code (error-message formatting) costs seconds of every empty-cache compile."""
    return {"shape": np.shape(data[name])} if static_shapes else {}


def _model_from_data(data: dict, priors: GaussianPriors, coords: dict,
                     parameterization: str = "marginal", *,
                     static_shapes: bool = False) -> pm.Model:
    if parameterization not in PARAMETERIZATIONS:
        raise ValueError(f"parameterization must be one of {PARAMETERIZATIONS}; "
                         f"got {parameterization!r}")
    if priors.two_groups and parameterization != "marginal":
        raise NotImplementedError("the two-groups prior (pi0_a, pi0_b) sums its indicators "
                                  "out and needs parameterization='marginal'")

    def data_var(name, **kw):
        return pm.Data(name, data[name], **kw, **_static(data, name, static_shapes))

    with pm.Model(coords=coords) as model:
        xbar_obs = data_var("xbar_obs", dims=("feature", "class"))
        ssw_obs = data_var("ssw_obs", dims="feature")
        counts = data_var("class_counts", dims="class")
        ssw_shape = data_var("ssw_shape")
        tau_mu = pm.Gamma("tau_mu", alpha=priors.alpha_mu / 2,
                          beta=priors.alpha_mu * priors.w_mu / 2)
        tau_nu = pm.Gamma("tau_nu", alpha=priors.alpha_nu / 2,
                          beta=priors.alpha_nu * priors.w_nu / 2)
        if priors.w_x_alpha is None:
            w_x = priors.w_x
            log_w_x = np.log(priors.w_x)
        else:
            w_x = pm.Gamma("w_x", alpha=priors.w_x_alpha / 2,
                           beta=priors.w_x_alpha / (2 * priors.w_x))
            log_w_x = pt.log(w_x)
        tau_x = pm.Gamma("tau_x", alpha=priors.alpha_x / 2, beta=priors.alpha_x * w_x / 2,
                         dims="feature")
        scale = tau_mu
        if priors.mu_t_df is not None:
            lam = pm.Gamma("lambda_mu", alpha=priors.mu_t_df / 2, beta=priors.mu_t_df / 2,
                           dims="feature")
            scale = tau_mu * lam[:, None]
        # ssw[j] ~ Gamma((n - G)/2, rate tau_x[j]/2) carries the within-class part of the data.
        pm.Gamma("ssw", alpha=ssw_shape, beta=tau_x / 2, observed=ssw_obs, dims="feature")
        if parameterization == "noncentered":
            z_nu = pm.Normal("z_nu", 0.0, 1.0, dims="feature")
            z_mu = pm.Normal("z_mu", 0.0, 1.0, dims=("feature", "class"))
            nu = pm.Deterministic("nu", z_nu / pt.sqrt(tau_nu), dims="feature")
            mu = pm.Deterministic("mu", nu[:, None] + z_mu / pt.sqrt(scale),
                                  dims=("feature", "class"))
            # xbar[j, g] ~ N(mu[j, g], 1/(n_g tau_x[j])): with ssw, exactly the likelihood's
            # dependence on (mu, tau_x).
            pm.Normal("xbar", mu=mu, sigma=1.0 / pt.sqrt(tau_x[:, None] * counts[None, :]),
                      observed=xbar_obs, dims=("feature", "class"))
        else:
            # mu and nu integrated out: per feature the class means are jointly Gaussian,
            # xbar_j ~ N(0, D_j + 11'/tau_nu), D_j = diag(1/scale + 1/(n_g tau_x_j)); the
            # determinant lemma and Sherman-Morrison give its density in O(G). mu and nu are
            # drawn afterwards from their exact conditional (draw_class_means).
            v = 1.0 / (counts[None, :] * tau_x[:, None])                        # (k, G)
            log_slab = class_means_log_density(1.0 / scale + v, 1.0 / tau_nu, xbar_obs,
                                               len(coords["class"]), xp=pt)
            if not priors.two_groups:
                pm.Potential("class_means_likelihood", pt.sum(log_slab))
            else:
                # A null feature has mu_jg = nu_j: its class means vary by noise alone.
                pi0 = pm.Beta("pi0", alpha=priors.pi0_a, beta=priors.pi0_b)
                log_pi0, log_pi1 = pt.log(pi0), pt.log1p(-pi0)
                log_null = class_means_log_density(v, 1.0 / tau_nu, xbar_obs,
                                                   len(coords["class"]), xp=pt)
                pm.Potential("class_means_likelihood", pt.sum(
                    pt.logaddexp(log_pi0 + log_null, log_pi1 + log_slab)))
                pm.Deterministic("marker_prob", pt.sigmoid(
                    log_pi1 + log_slab - log_pi0 - log_null), dims="feature")

        if data["n_omitted"] > 0:
            # Uncorrected (n_omitted = 0): no Potential and no table, so no table to evaluate.
            n_omitted = data_var("n_omitted")
            # One FStatAdjustment Op (selbayes.adjustment.op); its numbers are data, so the
            # design (G, gamma) is too.
            params = [data_var(name) for name in data if name.startswith("adj_")]
            log_p = data["_adj_op"](pt.log(tau_mu) + log_w_x, *params)
            if priors.two_groups:
                # An omitted feature is null or slab: mix the two probabilities of F <= gamma.
                log_p = pt.logaddexp(log_pi0 + data_var("log_p_null"), log_pi1 + log_p)
            pm.Potential("selection_adjustment", n_omitted * log_p)
    return model


def class_means_log_density(d, s, xbar, n_classes: int, xp=np):
    """log N(xbar_j | 0, diag(d_j) + s 11') per feature, with mu and nu integrated out.

    The determinant lemma and Sherman-Morrison give it in O(G) per feature. One formula for
    the PyMC model (``xp=pytensor.tensor``) and the fast plug-in predictive of
    :mod:`selbayes.estimators.model_selection` (``xp=numpy``, broadcast over leading axes).

    Parameters
    ----------
    d : array or tensor of shape (..., k, G)
        1/(tau_mu lambda_j) + 1/(n_g tau_x_j): the diagonal of the class means' covariance.
    s : array or tensor broadcasting against (..., k)
        1/tau_nu.
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
    """
    inv_sum = (1.0 / d).sum(axis=-1)
    lin = (xbar / d).sum(axis=-1)
    logdet = xp.log(d).sum(axis=-1) + xp.log1p(s * inv_sum)
    quad = (xbar ** 2 / d).sum(axis=-1) - s * lin ** 2 / (1.0 + s * inv_sum)
    return -0.5 * (logdet + quad) - 0.5 * n_classes * np.log(2 * np.pi)


def draw_class_means(idata, data: dict, priors: GaussianPriors, random_state=None):
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
        The :func:`model_data` of the fit (``xbar_obs`` (k, G), ``class_counts`` (G,)).
    priors : GaussianPriors
        The fit's priors (unused by the draw itself; kept for a uniform signature).
    random_state : int, numpy.random.Generator or None
        Seed of the Gaussian draws.

    Returns
    -------
    xarray.DataTree
        ``idata`` itself, its posterior group now also holding ``nu`` (chain, draw, feature)
        and ``mu`` (chain, draw, feature, class), in data units.

    Raises
    ------
    TypeError
        If ``random_state`` is not None, an int or a Generator.

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
    tau_mu = post["tau_mu"].values[..., None]                       # (c, d, 1)
    tau_nu = post["tau_nu"].values[..., None]
    tau_x = post["tau_x"].values                                    # (c, d, k)
    a = 1.0 / tau_mu
    if "lambda_mu" in post:
        a = a / post["lambda_mu"].values
    a = np.broadcast_to(a, tau_x.shape)[..., None]                  # (c, d, k, 1)
    v = 1.0 / (data["class_counts"] * tau_x[..., None])             # (c, d, k, G)
    xbar = data["xbar_obs"]                                         # (k, G)
    w = 1.0 / (a + v)
    var_nu = 1.0 / (tau_nu + w.sum(-1))                             # (c, d, k)
    mean_nu = var_nu * (w * xbar).sum(-1)
    nu = mean_nu + np.sqrt(var_nu) * rng.standard_normal(var_nu.shape)
    prec = 1.0 / a + 1.0 / v
    mean_mu = (nu[..., None] / a + xbar / v) / prec
    mu = mean_mu + rng.standard_normal(mean_mu.shape) / np.sqrt(prec)
    if "pi0" in post:
        # Draws for the default model stay bit-identical: these random numbers come after.
        log_odds = marker_log_odds(tau_x, tau_mu[..., 0], tau_nu[..., 0], post["pi0"].values,
                                   xbar, data["class_counts"],
                                   post["lambda_mu"].values if "lambda_mu" in post else None)
        marker = np.log(rng.uniform(size=log_odds.shape)) < -np.logaddexp(0.0, -log_odds)
        w0 = 1.0 / v
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


# ---------------------------------------------------------------------------- sampling
def _cache_key(data: dict, priors: GaussianPriors, parameterization: str) -> tuple:
    return ("gaussian", parameterization, data["xbar_obs"].shape, data.get("_adj_op"),
            tuple((name, value.shape) for name, value in data.items()
                  if name.startswith("adj_")),
            tuple(sorted(priors.to_dict().items())))


def sample_nutpie(data: dict, priors: GaussianPriors, coords: dict, *, draws: int, tune: int,
                  chains: int, seed: int | None, target_accept: float, progressbar: bool,
                  parameterization: str = "marginal"):
    """Sample with nutpie, compiling the model once per shape and prior and reusing it.

    numba compilation takes tens of seconds while a small fit samples in about one, so
    cross-validation folds and SBC replicates of one shape share a compiled model; only
    ``pm.Data`` values change between calls (:func:`selbayes.models._nutpie.sample_compiled`,
    shared with naive Bayes). The uncorrected model has no adjustment Potential, so it is
    compiled separately. The machine code is also kept on disk
    (:func:`selbayes._compile_cache.compile_pymc_model`), so a later process reuses it; with
    ``progressbar`` a line on stderr announces a compilation.

    Parameters
    ----------
    data : dict
        From :func:`model_data`.
    priors : GaussianPriors
        Priors of the model (part of the cache key).
    coords : dict
        ``{"feature": labels (k,), "class": labels (G,)}`` for the result's coordinates.
    draws, tune, chains : int
        Kept draws per chain, warm-up draws per chain, and chains.
    seed : int or None
        Seed of nutpie and of :func:`draw_class_means`.
    target_accept : float
        NUTS target acceptance probability, in (0, 1).
    progressbar : bool
        Show nutpie's progress bar.
    parameterization : {"marginal", "noncentered"}
        See :func:`build_model`.

    Returns
    -------
    (xarray.DataTree, pymc.Model)
        The result (coordinates relabelled to ``coords``; with ``"marginal"`` it also holds
        exact draws of ``nu`` and ``mu``) and the model of this shape, as first built for the
        cache (its ``pm.Data`` hold that first fit's values; rebuilding it for every fit would
        cost more than a small fit's sampling).

    Raises
    ------
    ValueError
        If ``parameterization`` is unknown.

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 50)); y = np.repeat([0, 1], 10)
    >>> sel = selbayes.select_features(X, y, k=3)
    >>> data = model_data(X[:, sel.indices], y, sel)
    >>> coords = {"feature": sel.indices.tolist(), "class": ["0", "1"]}
    >>> idata, model = sample_nutpie(data, GaussianPriors(), coords, draws=200, tune=200,
    ...                              chains=2, seed=1, target_accept=0.9,
    ...                              progressbar=False)  # doctest: +SKIP
    >>> idata["posterior"]["mu"].shape  # doctest: +SKIP
    (2, 200, 3, 2)
    """
    from ._nutpie import sample_compiled

    idata, model = sample_compiled(
        _cache_key(data, priors, parameterization),
        lambda: _model_from_data(data, priors, coords, parameterization, static_shapes=True),
        data, coords, draws=draws, tune=tune, chains=chains, seed=seed,
        target_accept=target_accept, progressbar=progressbar)
    if parameterization == "marginal":
        draw_class_means(idata, data, priors, random_state=seed)
    return idata, model


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
    tau_x = np.asarray(tau_x, dtype=np.float64)
    xbar = np.asarray(xbar, dtype=np.float64)
    G = xbar.shape[1]
    a = 1.0 / np.asarray(tau_mu, dtype=np.float64)[..., None]                # (..., 1)
    if lambda_mu is not None:
        a = a / np.asarray(lambda_mu, dtype=np.float64)
    v = 1.0 / (np.asarray(class_counts, dtype=np.float64) * tau_x[..., None])   # (..., k, G)
    s = 1.0 / np.asarray(tau_nu, dtype=np.float64)[..., None]
    log_slab = class_means_log_density(a[..., None] + v, s, xbar, G)
    log_null = class_means_log_density(v, s, xbar, G)
    pi0 = np.asarray(pi0, dtype=np.float64)[..., None]
    return np.log1p(-pi0) - np.log(pi0) + log_slab - log_null


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

    The mean over posterior draws of the per-draw probability sigmoid(:func:`marker_log_odds`)
    (Rao-Blackwellised: the indicator itself is never sampled). After selection these are
    the probabilities the data and the omitted features together give: the selection factor
    moves pi0 and with it every feature's probability.

    Parameters
    ----------
    idata : xarray.DataTree, arviz InferenceData or mapping
        A two-groups fit: a ``posterior`` group holding ``marker_prob`` (chain, draw,
        feature), or ``pi0``, ``tau_mu``, ``tau_nu`` (chain, draw) and ``tau_x`` (chain,
        draw, feature) (and ``lambda_mu`` with a t slab); or a mapping of those draw arrays
        with any leading draw axes.
    data : dict, optional
        The fit's :func:`model_data` (``xbar_obs``, ``class_counts``); needed only when
        ``marker_prob`` is not stored.

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
            post["tau_x"], post["tau_mu"], post["tau_nu"], post["pi0"], data["xbar_obs"],
            data["class_counts"], post.get("lambda_mu"))))
    else:
        raise ValueError("the posterior has no pi0 or marker_prob: marker probabilities "
                         "need the two-groups prior, priors={'pi0_a': 1, 'pi0_b': 1}")
    return r.reshape(-1, r.shape[-1]).mean(axis=0)


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

    Examples
    --------
    >>> import numpy as np
    >>> np.round(np.exp(class_log_prior([3, 1], c=1.0)), 4).tolist()   # (4/6, 2/6)
    [0.6667, 0.3333]
    """
    counts = np.asarray(class_counts, dtype=np.float64)
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
        :func:`predictive_log_proba_two_groups`.

    Returns
    -------
    mean : ndarray of shape (S, k, G)
        Predictive mean of x*_j in class g (data units).
    precision : ndarray of shape (S, k, G)
        Predictive precision 1 / (1 / tau_x + Var(mu | draw, data)) (1 / (data units)^2).

    Raises
    ------
    ValueError
        If ``slab`` is given with another shape than ``tau_x``.

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
    tau_x = np.asarray(tau_x, dtype=np.float64)
    a = (1.0 / np.asarray(tau_mu, dtype=np.float64))[:, None, None]
    if lambda_mu is not None:
        a = a / np.asarray(lambda_mu, dtype=np.float64)[:, :, None]
    v = 1.0 / (np.asarray(class_counts, dtype=np.float64) * tau_x[:, :, None])     # (S, k, G)
    w = 1.0 / (a + v)
    var_nu = 1.0 / (np.asarray(tau_nu, dtype=np.float64)[:, None] + w.sum(-1))     # (S, k)
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

    Examples
    --------
    With many cases the mean is the pooled mean and the precision tau_x:

    >>> import numpy as np
    >>> m, p = null_predictive_moments(np.array([[4.0]]), np.array([1.0]),
    ...                                np.array([[1.0, 3.0]]), np.array([1e6, 3e6]))
    >>> np.round(m, 3).tolist(), np.round(p, 3).tolist()
    ([[2.5]], [[4.0]])
    """
    tau_x = np.asarray(tau_x, dtype=np.float64)
    w = np.asarray(class_counts, dtype=np.float64) * tau_x[:, :, None]          # (S, k, G)
    var_nu = 1.0 / (np.asarray(tau_nu, dtype=np.float64)[:, None] + w.sum(-1))
    mean = var_nu * (w * np.asarray(xbar, dtype=np.float64)).sum(-1)
    return mean, 1.0 / (1.0 / tau_x + var_nu)


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
        ``mean``, ``precision`` (S, k, G): the slab predictive (:func:`predictive_moments`);
        ``null_mean``, ``null_precision`` (S, k): the null predictive
        (:func:`null_predictive_moments`); ``marker_prob`` (S, k): the per-draw marker
        probability sigmoid(:func:`marker_log_odds`).

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


def _check_prior_and_columns(class_log_prior_, G: int, X: np.ndarray, k: int) -> np.ndarray:
    """``class_log_prior_`` as a float array of shape (G,), once it and the k columns of the
    test data ``X`` are checked (the shared checks of the predictive functions)."""
    class_log_prior_ = np.asarray(class_log_prior_, dtype=np.float64)
    if class_log_prior_.shape != (G,):
        raise ValueError(f"class_log_prior_ must have shape (G,) = ({G},); got "
                         f"{class_log_prior_.shape}")
    if X.shape[1] != k:
        raise ValueError(f"test data have {X.shape[1]} retained columns; the model has {k}")
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
        If ``X_test_selected`` is not a finite 2-D array with k columns, ``mean`` is not 3-D,
        ``precision`` does not match it, or ``class_log_prior_`` does not have G entries.
    TypeError
        If ``X_test_selected`` is not numeric.

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
    class_log_prior_ = _check_prior_and_columns(class_log_prior_, G, X, k)
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


def predictive_log_proba_two_groups(X_test_selected, mean, precision, null_mean,
                                    null_precision, marker_prob, class_log_prior_,
                                    max_bytes: float = 2e8) -> np.ndarray:
    """log P(y* = g | x*, training data) under the two-groups prior, indicators averaged out.

    Given one draw, feature j is a marker with probability r[s, j] (independently across
    features), so its predictive density in class g is
    r N(x*_j | mean[s, j, g], 1/precision[s, j, g]) + (1 - r) N(x*_j | null_mean[s, j],
    1/null_precision[s, j]); the product over features is averaged over draws (logsumexp)
    and combined with the class prior as in :func:`predictive_log_proba`. This is the exact
    posterior predictive (no indicator is sampled).

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
        (S, k), ``class_log_prior_`` not (G,), or ``X_test_selected`` without k columns).
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
    X = check_matrix(X_test_selected, name="X_test_selected")
    m_ = np.asarray(mean, dtype=np.float64)
    P = np.asarray(precision, dtype=np.float64)
    if m_.ndim != 3 or P.shape != m_.shape:
        raise ValueError(f"mean and precision must have one shape (n_draws, k, G); got "
                         f"{m_.shape} and {P.shape}")
    S, k, G = m_.shape
    m0 = np.asarray(null_mean, dtype=np.float64)
    P0 = np.asarray(null_precision, dtype=np.float64)
    r = np.asarray(marker_prob, dtype=np.float64)
    for name, arr in (("null_mean", m0), ("null_precision", P0), ("marker_prob", r)):
        if arr.shape != (S, k):
            raise ValueError(f"{name} must have shape (n_draws, k) = {(S, k)}; got "
                             f"{arr.shape}")
    class_log_prior_ = _check_prior_and_columns(class_log_prior_, G, X, k)
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
        ll = np.zeros((xb.shape[0], S, G))
        for j0 in range(0, k, kb):
            sl = slice(j0, j0 + kb)
            x = xb[:, None, sl]                                                    # (c, 1, kb)
            null = log_1mr[None, :, sl] + half_log_P0[None, :, sl] \
                - 0.5 * P0[None, :, sl] * (x - m0[None, :, sl]) ** 2              # (c, S, kb)
            slab = half_log_P[None, :, sl] - 0.5 * P[None, :, sl] * (
                x[..., None] - m_[None, :, sl]) ** 2                               # (c,S,kb,G)
            slab += log_r[None, :, sl, None]
            ll += np.logaddexp(slab, null[..., None]).sum(axis=2)
        lp = logsumexp(ll, axis=1) - np.log(S) + class_log_prior_[None, :]
        out[start:start + cb] = lp - logsumexp(lp, axis=1, keepdims=True)
    return out
