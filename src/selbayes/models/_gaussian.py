"""The hierarchical Gaussian classifier of Li 2009 as a PyMC model: its data, graph and sampler.

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
:class:`selbayes.adjustment.FStatAdjustment` Op.

Two-groups prior (``GaussianPriors(pi0_a=..., pi0_b=...)``; Efron 2008): each feature is null
(mu[j, g] = nu[j] for every g) with probability pi0 ~ Beta(pi0_a, pi0_b), and otherwise its
class means come from the slab above (normal or t). The indicator is summed out per feature:
the marginal likelihood of feature j is pi0 L_null[j] + (1 - pi0) L_slab[j], both Gaussian
densities of the class means; the omitted-feature factor is
(p - k) log[pi0 P(F <= gamma | null) + (1 - pi0) P(F <= gamma | tau_mu w_x)], where the null
probability is the central F(G - 1, n - G) cdf (the F statistic of a null feature does not
depend on tau_x or nu).

This module holds the model: its data (:func:`model_data`), graph (:func:`build_model`) and
sampler (:func:`sample_nutpie`). What a draw of the precisions implies for the class means and
for new cases (exact draws of mu and nu, the predictive class probabilities) is in
:mod:`selbayes.models._gaussian_posterior`; the two-groups prior's marker probabilities and
predictive in :mod:`selbayes.models._gaussian_two_groups`; the fast plug-in predictive that
chooses k in :mod:`selbayes.models._gaussian_plugin`.

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

from .._validation import check_flag, check_labels, check_matrix
from ..filters._selection import Selection

# What a draw of the precisions implies for the class means and new cases, and the two-groups
# prior's additions, moved by role to gaussian_posterior and gaussian_two_groups (2026-11); the
# names this module does not use still import from here for one release.
from ._gaussian_posterior import (  # noqa: F401 (old imports)
    class_log_prior,
    class_means_log_density,
    draw_class_means,
    marker_log_odds,
    null_predictive_moments,
    predictive_log_proba,
    predictive_moments,
)
from ._gaussian_two_groups import (  # noqa: F401 (old imports)
    marker_probabilities,
    null_log_prob,
    predictive_log_proba_two_groups,
    two_groups_predictive,
)
from ._packed_data import data_reader
from ._priors import GaussianPriors

__all__ = ["sufficient_statistics", "model_data", "build_model", "sample_nutpie"]


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


# The adjustment table spans log(tau_mu w_x) in [-30, 15 + margin] for every design with
# n < e^15, where FStatOmitLogProb's own range would end at log(n) + margin (margin 30 for the
# normal prior and a t prior with df >= 2, 60 / df below: upper_margin), so its shape, and with
# it the compiled graph, does not change between folds or SBC replicates; a t prior's table of
# any df >= 1 spans df = 1's range, the longest of them (_shared_range; tabulating df >= 2 past
# its own end costs about 0.05 s), so neither does it change with the df the default chooses
# per fit. Knots 0.1 apart keep the quintic interpolation error near 1e-11 (measured at
# construction, attribute interp_error) while halving the table's cost, which matters for
# small fits.
_TABLE_X_LO = -30.0
_TABLE_LOG_N_MAX = 15.0
_TABLE_SPACING = 0.1


def _table_range(n: int, mu_t_df: float | None) -> tuple[float, float] | None:
    """(x_lo, x_hi) of the adjustment table, fixed for every n < e^15 (None: the Op's own)."""
    from ..adjustment._fstat_op import upper_margin

    if np.log(n) > _TABLE_LOG_N_MAX:
        return None
    return (_TABLE_X_LO, _TABLE_LOG_N_MAX + upper_margin(mu_t_df))


def _shared_range(n: int, mu_t_df: float | None) -> tuple[float, float] | None:
    """(x_lo, x_hi) of the table a model with this df holds: every df >= 1 (the default's
    T_DF_GRID) takes df = 1's range, the longest of them, so that fits which choose different
    df share one compiled model (the t prior's df is data); df < 1 keeps its own."""
    return _table_range(n, None if mu_t_df is None else min(float(mu_t_df), 1.0))


def _check_selection(selection) -> None:
    if not isinstance(selection, Selection):
        raise TypeError("selection must be a Selection (from selbayes.select_features(..., "
                        f"statistic='f')); got {type(selection).__name__}")


def _require_f_statistic(selection: Selection) -> None:
    """The selection factor is P(F <= gamma): refuse another statistic's selection, whose
    threshold would be read as an F threshold (the sampled model and the plug-in alike)."""
    if selection.statistic != "f":
        raise ValueError(f"the selection correction of this model needs an F-statistic "
                         f"selection; got statistic {selection.statistic!r} (use "
                         "select_features(..., statistic='f') or corrected=False)")


def _check_selected_on(selection: Selection, y_index, n_classes: int) -> None:
    """Refuse training data other than those the selection was made on, by their cases per
    class: the selection factor is that of the selection's design (n_g and gamma), so a
    selection made on another subset of cases gave a factor for a design the data never had,
    without a word."""
    counts = np.bincount(np.asarray(y_index), minlength=n_classes)
    if not np.array_equal(counts, np.asarray(selection.class_counts)):
        raise ValueError(
            f"the selection was made on {np.asarray(selection.class_counts).tolist()} cases "
            f"per class, the training data have {counts.tolist()}: select the features on "
            "these training cases (select_features(X_train, y_train, ...))")


#: How far (a factor, either way) the kept features' median within-class variance may lie
#: from the noise variance the priors assume (w_x) before a fit warns.
OFF_SCALE = 4.0


def warn_if_off_scale(ssw, n: int, n_classes: int, priors: GaussianPriors) -> None:
    """Warn where the kept features' within-class variances are far from the priors' scale.

    The priors are not scale-free: tau_x ~ Gamma(alpha_x / 2, rate alpha_x w_x / 2) puts the
    noise variance near w_x (1 by default, the scale of features standardised by their pooled
    within-class SD, the classifiers' ``standardize=True``). Measured on simulated two-class
    data (five markers of one SD among 200 features, 40 cases): features in units 3 times
    larger than that gave the corrected plug-in probabilities of 0.51 to 0.53 where units of
    1 gave 0.77 to 0.94, and units of 0.1 gave 0.53 to 0.56 uncorrected. Silent until
    2026-12-07. Not checked where w_x has a hyperprior (``w_x_alpha``), which adapts.

    Parameters
    ----------
    ssw : ndarray of shape (k,)
        Within-class sums of squares of the kept features.
    n, n_classes : int
        Training cases and classes (n - G degrees of freedom).
    priors : GaussianPriors
    """
    if priors.w_x_alpha is not None or ssw.size == 0:
        return
    ratio = float(np.median(ssw)) / (n - n_classes) / priors.w_x
    if not 1.0 / OFF_SCALE <= ratio <= OFF_SCALE:
        from .._validation import warn_at_user

        # one text for every fit, so a warning inside the folds of a cross-validation is
        # shown once
        warn_at_user(
            "the kept features' within-class variances are far from the noise variance the "
            f"priors assume (w_x; their median more than {OFF_SCALE:g} times larger or "
            "smaller): the model "
            "is not scale-free and its probabilities shrink towards the class frequencies. "
            "Standardise the features (the classifiers' standardize=True), or give w_x "
            "near their variance or a hyperprior (w_x_alpha)", UserWarning)


def _check_inputs(X_selected, y, selection: Selection):
    _check_selection(selection)
    X_selected = check_matrix(X_selected, name="X_selected")
    # a class of one case has a mean and no within-class df (checked below: n - G >= 1)
    classes, y_index, _ = check_labels(y, X_selected.shape[0], min_per_class=1)
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
    _check_selected_on(selection, y_index, G)
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
        Include the selection adjustment (its spline table and p - k in ``n_omitted``).
        Uncorrected, ``n_omitted`` is 0: the same data as a selection that omitted nothing
        (the meaning naive Bayes gives it too, see :mod:`selbayes.models._nutpie`), with a
        table that is 0 everywhere, so that corrected and uncorrected fits of one shape share
        one compiled model.
    adjustment_method : {"table", "exact", "mc"}
        Evaluation of the :class:`~selbayes.adjustment.FStatAdjustment` Op: the quintic table
        of the accurate function (default), the accurate log-t convolution itself, or the
        paper's Monte Carlo expectation (1000 draws, common random numbers, seed 0).

    Returns
    -------
    dict
        ``xbar_obs`` (k, G) class means, ``ssw_obs`` (k,) within-class sums of squares,
        ``class_counts`` (G,) float, ``ssw_shape`` ((n - G)/2, scalar), ``n_omitted`` (p - k,
        float; 0 when uncorrected), with the t prior ``t_df`` (its df, scalar); the Op's
        inputs (with ``n_omitted = 0`` those of a table that is 0 everywhere, or none with
        the ``"exact"`` and ``"mc"`` methods)
        ``adj_<name>`` (for the table ``adj_coef`` (6, m) and ``adj_edges`` (8,)) and
        ``_adj_op`` (the Op, a graph constant, not ``pm.Data``; with ``mu_t_df_grid`` one
        table per df instead, ``adj_<name>__t<i>``, and ``_adj_ops``, pairs of an Op and the
        names of its parameters), with the two-groups prior also ``log_p_null`` (log
        P(F <= gamma) of a null feature, :func:`selbayes.models.null_log_prob`).

    Raises
    ------
    ValueError
        If the classes of ``y`` differ from the selection's, ``X_selected`` does not have
        ``selection.n_selected`` columns, n - G < 1, ``X_selected`` or ``y`` is malformed
        (non-finite values, wrong length, fewer than two classes), a prior setting is
        unknown or not positive, or ``adjustment_method`` is unknown.
    TypeError
        If ``X_selected`` is not numeric, ``selection`` is not a Selection, or ``corrected``
        is not a bool.

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
    >>> uncorrected["n_omitted"], float(abs(uncorrected["adj_coef"]).max())
    (np.float64(0.0), 0.0)
    """
    from ..adjustment._fstat_op import FStatAdjustment

    priors = GaussianPriors.from_dict(priors)
    corrected = check_flag(corrected, "corrected")
    if adjustment_method not in FStatAdjustment.EVALUATIONS:
        raise ValueError(f"adjustment_method must be one of {tuple(FStatAdjustment.EVALUATIONS)}"
                         f"; got {adjustment_method!r}")
    X_selected, classes, y_index = _check_inputs(X_selected, y, selection)
    n = X_selected.shape[0]
    G = classes.shape[0]
    counts, xbar, ssw = sufficient_statistics(X_selected, y_index, G)
    warn_if_off_scale(ssw, X_selected.shape[0], G, priors)
    data = {"xbar_obs": xbar, "ssw_obs": ssw, "class_counts": counts.astype(np.float64),
            "ssw_shape": np.float64((n - G) / 2), "n_omitted": np.float64(0.0)}
    if priors.mu_t_df is not None:
        # The t prior's df is data, not a graph constant: fits that differ only in it (the
        # default chooses it per fit from T_DF_GRID) share one compiled model.
        data["t_df"] = np.float64(priors.mu_t_df)
    dfs = priors.t_df_values or (None,)
    # the "table" evaluation over a range fixed for n < e^15: the graph every fit of a shape
    # shares (tables of the factor, or zero, over _shared_range)
    shared_table = adjustment_method == "table" and _table_range(n, None) is not None
    table_range = _shared_range if shared_table else _table_range
    if corrected and selection.n_omitted > 0:
        from ..adjustment._fstat_op import fstat_parameters

        _require_f_statistic(selection)

        data["n_omitted"] = np.float64(selection.n_omitted)
        # label=False: the design (G, gamma) is data, so one compiled model serves many.
        tables = [fstat_parameters(counts, selection.threshold, priors.alpha_x,
                                   method=adjustment_method, table_range=table_range(n, df),
                                   spacing=_TABLE_SPACING, mu_t_df=df, label=False)
                  for df in dfs]
        log_p_null = null_log_prob(counts, selection.threshold) if priors.two_groups else None
    elif shared_table:
        from ..adjustment._fstat_op import FStatAdjustment, zero_table_parameters

        # Uncorrected, or nothing omitted: the corrected model's graph with a table that is 0
        # everywhere (and n_omitted = 0), so that the two share one compiled model of each
        # shape instead of compiling two (the table's range no longer depends on n).
        op = FStatAdjustment("table", _TABLE_SPACING, False, ())
        tables = [(op, zero_table_parameters(table_range(n, df), _TABLE_SPACING))
                  for df in dfs]
        log_p_null = np.float64(0.0) if priors.two_groups else None
    else:
        return data               # another evaluation method: no Potential and no table
    # With mu_t_df_grid, one table per df (each df has its own P(F <= gamma)): the parameters
    # of the i-th are adj_<name>__t<i>; _adj_ops pairs each Op with the names of its
    # parameters, in the Op's order.
    named = []
    for i, (op, params) in enumerate(tables):
        suffix = f"__t{i}" if priors.mu_t_df_grid is not None else ""
        names = tuple(f"adj_{name}{suffix}" for name in params)
        data.update(zip(names, params.values(), strict=True))
        named.append((op, names))
    if priors.mu_t_df_grid is None:
        data["_adj_op"] = named[0][0]
    else:
        data["_adj_ops"] = tuple(named)
    if log_p_null is not None:
        data["log_p_null"] = log_p_null
    return data


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
        Give the selection adjustment Potential its p - k (uncorrected: ``n_omitted = 0``
        and a table that is 0 everywhere, so the Potential is 0; see :func:`model_data`).
    adjustment_method : {"table", "exact", "mc"}
        Evaluation of the :class:`~selbayes.adjustment.FStatAdjustment` Op: the quintic table
        of the accurate function (default), the accurate log-t convolution itself, or the
        paper's Monte Carlo expectation (1000 draws, common random numbers, seed 0).
    feature_names : sequence of str, optional
        Coordinate labels for the ``feature`` dimension (default: original column indices).
    parameterization : {"marginal", "noncentered"}
        "marginal" (default) integrates the class means mu and feature means nu out
        analytically, so NUTS samples only the k + 2 precisions (no funnel however strongly
        the features are selected); :func:`selbayes.models.draw_class_means`
        then draws mu and nu exactly.
        "noncentered" samples mu = nu + z / sqrt(tau_mu), nu = z_nu / sqrt(tau_nu).

    Returns
    -------
    pymc.Model
        Free variables ``tau_mu``, ``tau_nu``, ``tau_x`` (k) (``w_x`` with a hyperprior,
        ``lambda_mu`` (k) with the t prior, and with its df unknown (``mu_t_df_grid``) the
        Potential ``t_df_mixture`` and the deterministic ``t_df_prob`` (one per df), ``pi0``
        and the deterministic ``marker_prob`` (k) with the two-groups prior); observed
        ``ssw`` (k); the Potential
        ``class_means_likelihood`` (marginal) or free ``z_nu``, ``z_mu``, deterministics
        ``nu`` (k), ``mu`` (k, G) and observed ``xbar`` (k, G) (noncentered); and the Potential
        ``selection_adjustment`` (0 when uncorrected; absent when uncorrected with the
        ``"exact"`` or ``"mc"`` method). All data enter through ``pm.Data`` (see
        :func:`model_data`), so a compiled model can be reused with other data of equal shape.

    Raises
    ------
    ValueError
        If ``parameterization`` is unknown, ``feature_names`` does not name the k retained
        features, or for the problems listed in :func:`model_data`.
    NotImplementedError
        For the two-groups prior with ``parameterization="noncentered"``.
    TypeError
        As :func:`model_data`.

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
    if len(names) != data["xbar_obs"].shape[0]:
        raise ValueError(f"feature_names must name the {data['xbar_obs'].shape[0]} retained "
                         f"features; got {len(names)} names")
    coords = {"feature": names, "class": [str(c) for c in selection.classes]}
    return _model_from_data(data, priors, coords, parameterization)


PARAMETERIZATIONS = ("marginal", "noncentered")


def _model_from_data(data: dict, priors: GaussianPriors, coords: dict,
                     parameterization: str = "marginal", *,
                     packed: bool = False) -> pm.Model:
    """The ``pm.Model`` of ``data`` (see :func:`build_model`); ``packed``: the compiled form,
    every array a static slice of one ``pm.Data`` (:mod:`selbayes.models._packed_data`)."""
    if parameterization not in PARAMETERIZATIONS:
        raise ValueError(f"parameterization must be one of {PARAMETERIZATIONS}; "
                         f"got {parameterization!r}")
    if priors.two_groups and parameterization != "marginal":
        raise NotImplementedError("the two-groups prior (pi0_a, pi0_b) sums its indicators "
                                  "out and needs parameterization='marginal'")
    if priors.flat_nu and parameterization != "marginal":
        raise NotImplementedError("a flat prior on nu (alpha_nu=None) leaves nu out of the "
                                  "likelihood and needs parameterization='marginal'")

    with pm.Model(coords=coords) as model:
        data_var = data_reader(data, packed=packed)
        xbar_obs = data_var("xbar_obs", dims=("feature", "class"))
        ssw_obs = data_var("ssw_obs", dims="feature")
        counts = data_var("class_counts", dims="class")
        ssw_shape = data_var("ssw_shape")
        tau_mu = pm.Gamma("tau_mu", alpha=priors.alpha_mu / 2,
                          beta=priors.alpha_mu * priors.w_mu / 2)
        # A flat prior on nu (alpha_nu=None, for centred features): no tau_nu, and the class
        # means enter through their contrasts alone (s = None below).
        tau_nu = None if priors.flat_nu else pm.Gamma(
            "tau_nu", alpha=priors.alpha_nu / 2, beta=priors.alpha_nu * priors.w_nu / 2)
        s_nu = None if priors.flat_nu else 1.0 / tau_nu
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
            t_df = data_var("t_df")
            lam = pm.Gamma("lambda_mu", alpha=t_df / 2, beta=t_df / 2, dims="feature")
            scale = tau_mu * lam[:, None]
        elif priors.mu_t_df_grid is not None:
            # df unknown, uniform over the grid and summed out below (with the selection
            # factor, which depends on df); here lambda_j gets a flat density on (0, inf),
            # its prior given df enters the sum.
            lam = pm.HalfFlat("lambda_mu", dims="feature")
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
            log_slab = class_means_log_density(1.0 / scale + v, s_nu, xbar_obs,
                                               len(coords["class"]), xp=pt)
            if not priors.two_groups:
                pm.Potential("class_means_likelihood", pt.sum(log_slab))
            else:
                # A null feature has mu_jg = nu_j: its class means vary by noise alone.
                pi0 = pm.Beta("pi0", alpha=priors.pi0_a, beta=priors.pi0_b)
                log_pi0, log_pi1 = pt.log(pi0), pt.log1p(-pi0)
                log_null = class_means_log_density(v, s_nu, xbar_obs,
                                                   len(coords["class"]), xp=pt)
                pm.Potential("class_means_likelihood", pt.sum(
                    pt.logaddexp(log_pi0 + log_null, log_pi1 + log_slab)))
                pm.Deterministic("marker_prob", pt.sigmoid(
                    log_pi1 + log_slab - log_pi0 - log_null), dims="feature")

        selection_terms = 0.0
        if "_adj_op" in data or "_adj_ops" in data:
            # Uncorrected or nothing omitted: n_omitted = 0 and a zero table (model_data),
            # except with the "mc" and "exact" methods, which then have no Potential.
            n_omitted = data_var("n_omitted")
            # One FStatAdjustment Op (selbayes.adjustment._op) per df of the t prior; its
            # numbers are data, so the design (G, gamma) is too.
            tables = data.get("_adj_ops") or (
                (data["_adj_op"], tuple(name for name in data if name.startswith("adj_"))),)
            log_p = [op(pt.log(tau_mu) + log_w_x, *map(data_var, names))
                     for op, names in tables]
            log_p = pt.stack(log_p) if len(tables) > 1 else log_p[0]
            if priors.two_groups:
                # An omitted feature is null or slab: mix the two probabilities of F <= gamma.
                log_p = pt.logaddexp(log_pi0 + data_var("log_p_null"), log_pi1 + log_p)
            if priors.mu_t_df_grid is None:
                pm.Potential("selection_adjustment", n_omitted * log_p)
            else:
                selection_terms = n_omitted * log_p                 # (m,), one per df
        if priors.mu_t_df_grid is not None:
            _t_df_mixture(lam, priors.mu_t_df_grid, selection_terms)
    return model


def _t_df_mixture(lam, dfs, selection_terms) -> None:
    """The t prior's unknown df summed out: log sum_d (1/m) prod_j Gamma(lambda_j | d/2,
    rate d/2) P_d(F <= gamma)^(p - k), and the posterior probability of each df."""
    from scipy.special import gammaln

    a = np.asarray(dfs, dtype=np.float64) / 2                                # (m,)
    k = lam.shape[0]
    log_lam_sum, lam_sum = pt.sum(pt.log(lam)), pt.sum(lam)
    log_prior = k * (a * np.log(a) - gammaln(a)) + (a - 1) * log_lam_sum - a * lam_sum
    terms = log_prior + selection_terms - np.log(len(a))
    pm.Potential("t_df_mixture", pt.logsumexp(terms))
    model = pm.modelcontext(None)
    model.add_coord("t_df", [float(d) for d in dfs])
    pm.Deterministic("t_df_prob", pt.special.softmax(terms), dims="t_df")


# ---------------------------------------------------------------------------- sampling
def _cache_key(data: dict, priors: GaussianPriors, parameterization: str) -> tuple:
    # the data's names and shapes are added by sample_compiled
    return ("gaussian", parameterization, data.get("_adj_op"), data.get("_adj_ops"),
            # the t prior's df is data (model_data's "t_df"): only whether there is one is
            # part of the key
            tuple(sorted({**priors.to_dict(), "mu_t_df": priors.mu_t_df is not None}.items())))


def sample_nutpie(data: dict, priors: GaussianPriors, coords: dict, *, draws: int, tune: int,
                  chains: int, seed: int | None, target_accept: float, progressbar: bool,
                  parameterization: str = "marginal"):
    """Sample with nutpie, compiling the model once per shape and prior and reusing it.

    numba compilation takes tens of seconds while a small fit samples in about one, so
    cross-validation folds and SBC replicates of one shape share a compiled model; only
    ``pm.Data`` values change between calls (:func:`selbayes.models._nutpie.sample_compiled`,
    shared with naive Bayes). The uncorrected model is the corrected one with ``n_omitted =
    0`` and a zero table, so the two share one compiled model. The machine code is also kept on disk
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
        Seed of nutpie and of :func:`selbayes.models.draw_class_means`.
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
        lambda: _model_from_data(data, priors, coords, parameterization, packed=True),
        data, coords, draws=draws, tune=tune, chains=chains, seed=seed,
        target_accept=target_accept, progressbar=progressbar)
    if parameterization == "marginal":
        draw_class_means(idata, data, priors, random_state=seed)
    return idata, model


