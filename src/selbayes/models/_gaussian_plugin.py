"""The fast plug-in predictive of the hierarchical Gaussian classifier, and its adjustments.

A full MCMC fit per inner fold and candidate k would cost minutes (every k is a new shape to
compile), so the inner cross-validation of the classifier scores candidates with a fast
approximation of the same model, :func:`plugin_log_proba`: tau_mu and tau_nu at the mode of their
(corrected) marginal posterior and tau_x drawn from its conditional given the within-class sums
of squares. The corrected posterior of tau_mu carries the factor P(F <= gamma | tau_mu w_x)^(p -
k), which makes it sharp, so a point estimate loses little.

The predictive adjustments used by the fitted classifier and by its inner cross-validation live
here too: the tempered predictive (:func:`temper_log_proba`) with the temperature from the kept
features' within-class correlation (:func:`correlation_temperature`), and the label-noise
mixture (:func:`label_noise_log_proba`, :func:`default_label_noise`).

References
----------
Li, L. (2009). Calibrating predictions based on a selected subset of features from Bayesian
Gaussian classification models (manuscript), eqs 13-15 and 23-24.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize
from scipy.special import gammaln, logsumexp

from .._validation import (
    check_class_index,
    check_flag,
    check_int,
    check_matrix,
    check_positive,
    check_positive_int,
    check_random_state,
    check_real,
)
from ..filters._selection import Selection
from ._gaussian import (
    _check_selected_on,
    _check_selection,
    _require_f_statistic,
    sufficient_statistics,
    warn_if_off_scale,
)
from ._gaussian_posterior import (
    _log_mean_exp,
    class_log_prior,
    class_means_log_density,
    factorised_predictive_log_proba,
    predictive_log_proba,
    predictive_moments,
)
from ._priors import GaussianPriors

__all__ = ["plugin_log_proba", "plugin_posterior", "plugin_idata", "check_plugin_priors",
           "temper_log_proba", "label_noise_log_proba", "default_label_noise",
           "correlation_temperature"]


def _log_gamma_density_log(u, alpha, w):
    """log density of log(tau) when tau ~ Gamma(alpha/2, rate alpha w / 2) (Jacobian in)."""
    a, b = alpha / 2, alpha * w / 2
    return a * np.log(b) - gammaln(a) + a * u - b * np.exp(u)


def _class_means_loglik(log_tau_mu, log_tau_nu, xbar, counts, tau_x, t_nodes=None):
    """log p(xbar | tau_mu, tau_nu, tau_x), mu and nu integrated out; vectorised over the
    leading shape of the two log precisions (the PyMC model's own formula). With
    ``t_nodes = (lam, log_w)`` (:func:`_t_scale_nodes`) each feature's scale lambda_j of the t
    prior is integrated out too, by quadrature. ``log_tau_nu = -inf`` (tau_nu = 0): a flat
    prior on nu."""
    if t_nodes is not None:
        return _feature_loglik_t(log_tau_mu, log_tau_nu, xbar, counts, tau_x, *t_nodes).sum(-1)
    u = np.asarray(log_tau_mu, dtype=np.float64)[..., None, None]
    d = np.exp(-u) + 1.0 / (counts[None, :] * tau_x[:, None])                # (..., k, G)
    s = None if _flat(log_tau_nu) else np.exp(
        -np.asarray(log_tau_nu, dtype=np.float64))[..., None]
    return class_means_log_density(d, s, xbar, xbar.shape[1]).sum(-1)


def _flat(log_tau_nu) -> bool:
    """Whether log tau_nu is -inf: the flat prior on nu (``GaussianPriors(alpha_nu=None)``)."""
    return bool(np.all(np.isneginf(log_tau_nu)))


def _t_scale_nodes(df: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes lambda_q and normalised log weights of lambda ~ Gamma(df/2, rate df/2).

    The t prior on the class means of a feature is N(nu, 1/(tau_mu lambda)) with this lambda
    (Li 2012's BCBCSF); averaging a function of lambda over the nodes with these weights
    approximates its prior expectation. Midpoint rule in log lambda: nodes 0.3 apart from
    lambda = 1e-7 (a strong marker's likelihood, the narrowest integrand away from the prior's
    bulk, has width about 1 in log lambda and can sit far in the prior's lower tail) to the
    prior's 1 - 1e-7 quantile, and sd/4 apart between its 1e-7 and 1 - 1e-7 quantiles (sd of
    log lambda; a large df makes the prior itself narrow). Against adaptive quadrature the
    error is below 1e-5 nats per feature at df = 2 (tests/models/test_gaussian_plugin.py).
    """
    from scipy.special import gammaincinv, logsumexp, polygamma

    a = df / 2.0
    lo, hi = np.log(gammaincinv(a, 1e-7) / a), np.log(gammaincinv(a, 1 - 1e-7) / a)
    step = min(0.3, float(np.sqrt(polygamma(1, a))) / 4)
    fine = np.linspace(lo, hi, int(np.ceil((hi - lo) / step)) + 1)
    coarse = np.arange(min(np.log(1e-7), lo), hi, 0.3)
    t = np.union1d(fine, coarse[coarse < lo - 0.5 * step])
    edges = np.concatenate([[t[0]], (t[1:] + t[:-1]) / 2, [t[-1]]])
    log_w = (a * np.log(a) - gammaln(a) + a * t - a * np.exp(t)     # density of log lambda
             + np.log(np.maximum(np.diff(edges), 1e-300)))
    return np.exp(t), log_w - logsumexp(log_w)


def _feature_loglik_t(log_tau_mu, log_tau_nu, xbar, counts, tau_x, lam, log_w,
                      per_node=False):
    """Per-feature log p(xbar_j | tau_mu, tau_nu, tau_x_j) under the t prior (lambda_j out).

    At each node lambda_q: :func:`_node_log_density`, or with two classes and a flat prior on
    nu :func:`_contrast_log_density`. Returns shape (..., k); with ``per_node`` the
    unnormalised log posterior of each node, shape (..., k, Q)."""
    u = np.asarray(log_tau_mu, dtype=np.float64)[..., None, None]
    flat = _flat(log_tau_nu)
    s = None if flat else np.exp(-np.asarray(log_tau_nu, dtype=np.float64))[..., None, None]
    a = np.exp(-u) / lam                                                     # (..., 1, Q)
    noise = 1.0 / (counts[None, :] * tau_x[:, None])                         # (k, G)
    density = _contrast_log_density if flat and xbar.shape[1] == 2 else _node_log_density
    ld = density(a, noise, s, xbar) + log_w                                  # (..., k, Q)
    if per_node:
        return ld
    # log-sum-exp over the nodes by the predictive's own helper (ld is a temporary here):
    # scipy.special.logsumexp's argument handling cost more than the sum at the small k of
    # the inner cross-validation, where the mode search over df calls this thousands of times.
    return _log_mean_exp(ld, axis=-1) + np.log(ld.shape[-1])


def _node_log_density(a, noise, s, xbar):
    """log N(xbar_j | 0, diag(a_q + noise_j) + s 11') at every node: the effect variance
    ``a`` = 1 / (tau_mu lambda_q), shape (..., 1, Q), the noise variances 1 / (n_g tau_x_j),
    shape (k, G), ``s`` = 1 / tau_nu (None: a flat prior on nu). Returns (..., k, Q).

    :func:`selbayes.models.class_means_log_density` written out with a loop over the G
    classes (sums over a short last axis are slow in NumPy, and this runs on arrays of shape
    (..., k, Q))."""
    inv_sum = lin = quad = logdet = 0.0
    for g in range(xbar.shape[1]):
        d = a + noise[:, g, None]                                            # (..., k, Q)
        inv = 1.0 / d
        inv_sum = inv_sum + inv
        lin = lin + xbar[:, g, None] * inv
        quad = quad + xbar[:, g, None] ** 2 * inv
        logdet = logdet + np.log(d)
    if s is None:   # the contrasts' density (class_means_log_density with s=None)
        return (-0.5 * (logdet + np.log(inv_sum) + quad - lin ** 2 / inv_sum)
                - 0.5 * (xbar.shape[1] - 1) * np.log(2 * np.pi))
    one = 1.0 + s * inv_sum
    return (-0.5 * (logdet + np.log(one) + quad - s * lin ** 2 / one)
            - 0.5 * xbar.shape[1] * np.log(2 * np.pi))


def _contrast_log_density(a, noise, s, xbar):
    """:func:`_node_log_density` for two classes and a flat prior on nu (``s`` None): the
    density of the one contrast xbar_1 - xbar_2 ~ N(0, d_1 + d_2), the general formula with
    its determinant and quadratic form simplified. One log per node instead of three, and no
    cancellation; most data sets have two classes, and it is the default's case
    (standardised genes have a flat prior on their means): a default fit's mode searches take
    half the time at large k (``benchmarks/results/mode_search_cost.md``)."""
    var = 2.0 * a + (noise[:, 0] + noise[:, 1])[:, None]                     # (..., k, Q)
    diff2 = ((xbar[:, 0] - xbar[:, 1]) ** 2)[:, None]
    return -0.5 * (np.log(var) + diff2 / var) - 0.5 * np.log(2 * np.pi)


#: Features above which the coarse grid of :func:`_hyper_mode` uses an evenly spaced subset.
GRID_FEATURES = 2000


def _noise_precision(priors, counts, ssw):
    """tau_x_j | SSW_j ~ Gamma(a, rate_j) (the within-class sums of squares alone), and the
    tau_x at which the mode search evaluates the class means' density: (a, rate, tau_x).

    That tau_x is 1 / E[1 / tau_x_j | SSW_j] = (a - 1) / rate_j, the noise variance at its
    conditional mean. The class means' density depends on tau_x through the noise variance
    1 / (n_g tau_x) added to the effect variance 1 / tau_mu, so what the mode of tau_mu needs
    right is the spread of the class means that noise explains. Until 2026-12-05 tau_x was at
    its conditional mean a / rate_j, which puts the noise variance low by the factor
    (a - 1) / a (5% with 40 training cases); summed over thousands of features the excess
    spread was read as signal: with 40 training cases of a dense weak signal log tau_mu was
    0.3 to 1.9 below its mode with tau_x integrated out exactly (0.2 with 80 cases), and the
    plug-in predictive overconfident the more the larger k (calibration slope 0.4 to 0.6 with
    every feature kept). Never below a / (2 rate_j), which it reaches at a = 2: with fewer
    degrees of freedom and a prior on tau_x vaguer than the default (alpha_x = 4) the mean is
    dominated by its tail, or infinite (a <= 1)."""
    n, G = counts.sum(), counts.shape[0]
    a = priors.alpha_x / 2 + (n - G) / 2
    rate = priors.alpha_x * priors.w_x / 2 + ssw / 2
    return a, rate, max(a - 1.0, a / 2.0) / rate


def _omission_factors(selection, counts, priors, dfs) -> dict:
    """For each df of ``dfs`` (None: the normal prior), u -> (p - k) log P(F <= gamma |
    tau_mu = e^u, w_x), u clipped to [-10, 14].

    The exact adjustment (:func:`selbayes.adjustment.fstat_log_omit_prob`) in two parts: one
    table in log t for all of ``dfs`` (:meth:`ExactTable.build_for_dfs`: 0.3 ms with equal
    class sizes, 5 to 7 ms with unequal ones), and one quadrature over it per value (about
    0.02 ms). Until 2026-12-07 each mode search evaluated the adjustment on 481 points 0.05
    apart and interpolated by a cubic spline: 3 to 10 ms per df searched (more with unequal
    classes), about a fifth of a default fit's inner cross-validation, for the values at the
    15 or so points each search visits (``benchmarks/results/mode_search_cost.md``).
    """
    from ..adjustment._fstat import validate_design, validate_t_df
    from ..adjustment._fstat_exact import ExactTable

    log_w = float(np.log(priors.w_x))
    design = validate_design(counts.astype(np.int64), selection.threshold, priors.alpha_x)
    tables = ExactTable.build_for_dfs(*design, -10.0 + log_w, 14.0 + log_w,
                                      [validate_t_df(df) for df in dfs])
    n_omitted = selection.n_omitted

    def factor(table):
        return lambda u: n_omitted * table.evaluate(np.clip(u, -10.0, 14.0) + log_w)

    return {df: factor(tables[validate_t_df(df)]) for df in dfs}


def _hyper_mode(xbar, ssw, counts, selection, priors, corrected, t_nodes=None, mu_t_df=None,
                x0=None, factor=None):
    """Mode of (log tau_mu, log tau_nu) given tau_x (:func:`_noise_precision`), and the
    objective's value there (minus the log density, up to a constant that does not depend on
    the t prior's df ``mu_t_df``: values for different df can be compared). With ``x0`` (the
    mode of a neighbouring df) the coarse grid is skipped and the refinement starts there.
    ``factor``: the selection factor of this df (:func:`_omission_factors`), when the caller
    made it for several df at once.
    With a flat prior on nu (``priors.flat_nu``) only log tau_mu is searched and log tau_nu
    is returned as -inf (tau_nu = 0)."""
    mu_t_df = priors.mu_t_df if mu_t_df is None else mu_t_df
    tau_x = _noise_precision(priors, counts, ssw)[2]
    # With the t prior every grid point integrates over the nodes of each lambda_j: a coarser
    # first grid (the local refinement below finds the mode within it).
    flat = priors.flat_nu
    us = np.linspace(-8.0, 12.0, 41 if t_nodes is None else 21)
    vs = (np.array([-np.inf]) if flat
          else np.linspace(-8.0, 8.0, 17 if t_nodes is None else 9))

    def log_prior_nu(v):
        return 0.0 if flat else _log_gamma_density_log(v, priors.alpha_nu, priors.w_nu)

    adj = None
    if corrected and selection.n_omitted > 0:
        adj = factor or _omission_factors(selection, counts, priors, (mu_t_df,))[mu_t_df]

    def objective(uv, xbar=xbar, tau_x=tau_x, scale=1.0):
        u, v = (uv[0], -np.inf) if flat else uv
        val = (_log_gamma_density_log(u, priors.alpha_mu, priors.w_mu) + log_prior_nu(v)
               + scale * _class_means_loglik(u, v, xbar, counts, tau_x, t_nodes))
        if adj is not None:
            val = val + float(adj(u))
        return -float(val)

    # The grid only finds the basin of the mode: above GRID_FEATURES features it sums over
    # an evenly spaced subset (every rank of the F ordering represented) scaled to k, which
    # cut the mode search at k = 20 000 (t prior) from 38 s to 6 s; the refinement below uses
    # every feature. Up to GRID_FEATURES (every k of the default grids) the grid is exact.
    k = xbar.shape[0]
    sub = (np.linspace(0, k - 1, GRID_FEATURES).round().astype(int) if k > GRID_FEATURES
           else slice(None))
    gx, gt, scale = xbar[sub], tau_x[sub], (k / GRID_FEATURES if k > GRID_FEATURES else 1.0)
    if x0 is None:
        # A coarse grid first (the corrected objective can have a second, spurious mode at
        # very small tau_mu), then a local refinement.
        U, Vv = np.meshgrid(us, vs, indexing="ij")
        vals = _log_gamma_density_log(U, priors.alpha_mu, priors.w_mu) + log_prior_nu(Vv)
        if t_nodes is None:
            vals = vals + scale * _class_means_loglik(U, Vv, gx, counts, gt)
        else:   # one row of the grid at a time: (len(vs), k, Q, G) values in memory
            vals = vals + scale * np.stack([_class_means_loglik(U[i], Vv[i], gx, counts, gt,
                                                                t_nodes)
                                            for i in range(len(us))])
        if adj is not None:
            vals = vals + adj(us)[:, None]
        i, j = np.unravel_index(np.argmax(vals), vals.shape)
        x0 = [us[i], vs[j]]
    if flat:
        # One dimension (the flat prior on nu): Brent's method on every feature, from a
        # bracket around the start. It needs about a third of the evaluations of the
        # Nelder-Mead search used until 2026-12-06 (about 11 against 30 per df) and lands
        # nearer the exact mode (within 1e-5 in log tau_mu, Nelder-Mead within 5e-5):
        # benchmarks/results/mode_search.md.
        u0 = float(np.ravel(x0)[0])
        res = optimize.minimize_scalar(lambda u: objective([u]), bracket=(u0 - 0.1, u0 + 0.1),
                                       method="brent", options={"xtol": 1e-5})
        return np.array([float(res.x), -np.inf]), float(res.fun)

    if k > GRID_FEATURES:
        # Refine on the subset first (cheap), then on every feature by quasi-Newton steps
        # from there: with thousands of features the objective is close to quadratic near its
        # mode, and BFGS needs a fifth of the full-data evaluations of Nelder-Mead.
        x0 = optimize.minimize(objective, x0=x0, args=(gx, gt, scale), method="Nelder-Mead",
                               options={"xatol": 1e-3, "fatol": 1e-4}).x
        res = optimize.minimize(objective, x0=x0, method="BFGS", options={"gtol": 1e-3})
    else:
        res = optimize.minimize(objective, x0=x0, method="Nelder-Mead",
                                options={"xatol": 1e-4, "fatol": 1e-6})
    return res.x, float(res.fun)


def _t_df_mode(xbar, ssw, counts, selection, priors, corrected):
    """With the t prior's df unknown (``priors.mu_t_df_grid``): the df whose mode of the
    hyperparameters has the highest posterior density (uniform prior over the grid), its
    mode, and its quadrature nodes. With a fixed df (or none), that df."""
    dfs = priors.mu_t_df_grid or (priors.mu_t_df,)
    # The df nearest 2 (BCBCSF's) with the full search; the others start from the mode of
    # their neighbour towards it (the mode moves little from one df to the next).
    start = int(np.argmin([abs(np.log((df or 2.0) / 2.0)) for df in dfs]))
    modes = {}
    order = [start, *range(start + 1, len(dfs)), *range(start - 1, -1, -1)]
    # the selection factor of every df from one tabulation (its costly part is the same)
    factors = (_omission_factors(selection, counts, priors, dfs)
               if corrected and selection.n_omitted > 0 else {})
    for i in order:
        df = dfs[i]
        t_nodes = None if df is None else _t_scale_nodes(df)
        x0 = None if i == start else modes[i - 1 if i > start else i + 1][0]
        uv, value = _hyper_mode(xbar, ssw, counts, selection, priors, corrected, t_nodes,
                                mu_t_df=df, x0=x0, factor=factors.get(df))
        modes[i] = (uv, value, df, t_nodes)
    uv, _, df, t_nodes = min(modes.values(), key=lambda m: m[1])
    return uv, df, t_nodes


def _check_training(X_train_selected, y_index, selection):
    """The plug-in's training data, checked against the selection they were selected by."""
    _check_selection(selection)
    X = check_matrix(X_train_selected, name="X_train_selected")
    if X.shape[1] != selection.n_selected:
        raise ValueError(f"X_train_selected has {X.shape[1]} columns but the selection retained "
                         f"{selection.n_selected}")
    y_index = check_class_index(y_index, X.shape[0], len(selection.class_counts))
    _check_selected_on(selection, y_index, len(selection.class_counts))
    return X, y_index


def _check_mode(mode) -> tuple[float, float]:
    """(log tau_mu, log tau_nu) as two floats: log tau_mu finite, log tau_nu finite or -inf
    (the flat prior on nu)."""
    expected = ("mode must be two numbers (log tau_mu, log tau_nu), the first finite and the "
                f"second finite or -inf (a flat prior on nu); got {mode!r}")
    try:
        u, v = (float(m) for m in mode)
    except (TypeError, ValueError):
        raise ValueError(expected) from None
    if (not np.isfinite(u) or np.isnan(v) or v == np.inf
            or any(isinstance(m, bool | np.bool_ | str) for m in mode)):
        raise ValueError(expected)
    return u, v


def plugin_log_proba(X_train_selected, y_index, X_test_selected, selection: Selection,
                     priors=None, corrected=True, n_draws=200, random_state=None,
                     predictive="factorised"):
    """Fast approximate predictive log probabilities of the hierarchical Gaussian classifier.

    (log tau_mu, log tau_nu) are set to the mode of their marginal posterior (class means
    integrated out exactly, the noise variance 1 / tau_x at its conditional mean given the
    within-class sums of squares, and, when ``corrected``, the selection factor
    (p - k) log P(F <= gamma | tau_mu w_x));
    tau_x is drawn ``n_draws`` times from Gamma(alpha_x/2 + (n - G)/2, rate alpha_x w_x/2 +
    SSW_j/2); the predictive then averages each feature's density over its own draws and
    multiplies over features (Rao-Blackwellised,
    :func:`selbayes.models.factorised_predictive_log_proba`): with the hyperparameters fixed the
    features are independent, so this is the exact predictive of the plug-in posterior, the one
    a ``method="plugin"`` fit returns and the one the grouped MCMC predictive approximates.
    Before 2026-11-27 it averaged the product over joint draws (``predictive="joint"``), the
    same quantity with a Monte Carlo error of order 1 in the log odds once k is in the
    hundreds, so the inner cross-validation scored a noisier predictive than the fit
    returned. With a
    t prior on the class means (``priors.mu_t_df``) each feature's scale lambda_j is integrated
    out of the marginal posterior of the precisions by quadrature (:func:`_t_scale_nodes`) and
    drawn ``n_draws`` times from its posterior over the nodes for the predictive, so the
    plug-in predictive is that of the fitted model (before 2026-11-25 the scales were set to 1, and
    the inner choice of k scored a model with normal effects).

    Parameters
    ----------
    X_train_selected : ndarray of shape (n, k)
        Training values of the selected (transformed) features.
    y_index : ndarray of int, shape (n,)
        Class index of each training case, 0..G-1.
    X_test_selected : ndarray of shape (m, k)
    selection : Selection
        The F-statistic selection (p - k and gamma).
    priors : GaussianPriors or dict, optional
    corrected : bool
    n_draws : int
    random_state : int or numpy.random.Generator, optional
    predictive : {"factorised", "joint"}, default "factorised"
        "joint": the average over joint draws used before 2026-11-27 (kept to reproduce it).

    Returns
    -------
    ndarray of shape (m, G)
        Normalised log probabilities (nats).

    Raises
    ------
    ValueError
        For an unknown ``predictive``, test data that are not a finite 2-D array with the
        training data's columns, or the problems :func:`plugin_posterior` names.
    TypeError
        As :func:`plugin_posterior`.

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 200)); X[:, :5] += 1.5 * y[:, None]
    >>> sel = selbayes.select_features(X, y, k=5)
    >>> lp = plugin_log_proba(X[:, sel.indices], y, X[:3, sel.indices], sel, random_state=0)
    >>> lp.shape, bool(np.allclose(np.exp(lp).sum(1), 1))
    ((3, 2), True)
    """
    if predictive not in ("factorised", "joint"):
        raise ValueError(f"predictive must be 'factorised' or 'joint'; got {predictive!r}")
    priors = GaussianPriors.from_dict(priors)
    post = plugin_posterior(X_train_selected, y_index, selection, priors, corrected=corrected,
                            n_draws=n_draws, random_state=random_state)
    S = n_draws
    mean, prec = predictive_moments(post["tau_x"], np.full(S, post["tau_mu"]),
                                    np.full(S, post["tau_nu"]), post["xbar"], post["counts"],
                                    lambda_mu=post["lambda_mu"])
    lp = class_log_prior(post["counts"], priors.c)
    if predictive == "joint":
        return predictive_log_proba(X_test_selected, mean, prec, lp)
    return factorised_predictive_log_proba(X_test_selected, mean, prec, lp, max_draws=None)


def plugin_posterior(X_train_selected, y_index, selection: Selection, priors=None,
                     corrected=True, n_draws=200, random_state=None, mode=None) -> dict:
    """The plug-in posterior of the hierarchical Gaussian model: the hyperparameters at their
    mode, the per-feature precisions drawn.

    (log tau_mu, log tau_nu) maximise their marginal posterior (class means integrated out,
    each feature's noise variance 1 / tau_x at its conditional mean given its within-class sum of
    squares, the t prior's lambda_j integrated out by quadrature, and with ``corrected`` the
    selection factor (p - k) log P(F <= gamma | tau_mu w_x)). Then, per draw,
    tau_x_j ~ Gamma(alpha_x/2 + (n - G)/2, rate alpha_x w_x/2 + SSW_j/2) and, with the t prior,
    lambda_j from its posterior over the quadrature nodes at the mode. Every feature's
    parameters are independent given the hyperparameters, and with thousands of features the
    hyperparameters' posterior is sharp, so fixing them at the mode loses little: the
    plug-in's log score is within 0.03 nats of NUTS's at k = 10 and 200, and at k = 1000 as
    good (the slow tests of ``tests/models/test_gaussian_plugin.py`` and
    ``tests/estimators/test_gaussian_plugin_method.py``). It is an approximation all the same:
    at k = 1000 its log odds differ from NUTS's by a mean 0.57, where NUTS's own Monte Carlo
    error is 0.09 (``benchmarks/results/predictive_mc_error.md``); tau_x_j is drawn given the
    within-class sum of squares alone, not the class means. The cost is O(k) and no sampler
    runs. :func:`plugin_log_proba` and ``HierarchicalGaussianClassifier(method=
    "plugin")`` use it. The two-groups prior (``pi0``) is not covered: its pi0 is left out.

    Parameters
    ----------
    X_train_selected : ndarray of shape (n, k)
        Training values of the selected (transformed) features.
    y_index : ndarray of int, shape (n,)
        Class index of each training case, 0..G-1.
    selection : Selection
        The F-statistic selection (p - k and gamma).
    priors : GaussianPriors or dict, optional
    corrected : bool
        Whether the selection factor enters the mode.
    n_draws : int
        Draws S of the per-feature precisions.
    random_state : int or numpy.random.Generator, optional
    mode : tuple of float, optional
        (log tau_mu, log tau_nu) at the mode, when it is known already (the search over the
        t prior's df that chose ``priors.mu_t_df`` found it on these data): not searched again.
        Only with a fixed df (``priors.mu_t_df_grid`` None).

    Returns
    -------
    dict
        ``tau_mu``, ``tau_nu`` (floats, 1 / (data units)^2), ``tau_x`` (S, k), ``lambda_mu``
        (S, k) or None without the t prior, ``mu_t_df`` (the t prior's df; with
        ``priors.mu_t_df_grid`` the df whose mode has the highest posterior density, a
        plug-in choice as the mode itself is; None without the t prior), and the
        sufficient statistics ``counts`` (G,), ``xbar`` (k, G) and ``ssw`` (k,).

    Raises
    ------
    ValueError
        If ``X_train_selected`` is not a finite 2-D array of ``selection.n_selected``
        columns, ``y_index`` is not one class index 0..G-1 per row with every class
        present, ``n_draws`` is not a positive integer, ``mode`` is not two numbers,
        or ``mode`` is given with a grid of df (``priors.mu_t_df_grid``), or
        ``random_state`` is a negative int.
    TypeError
        If ``selection`` is not a Selection, ``corrected`` is not a bool, or
        ``random_state`` is not None, an int or a numpy Generator.

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 200)); X[:, :5] += 1.5 * y[:, None]
    >>> sel = selbayes.select_features(X, y, k=5)
    >>> post = plugin_posterior(X[:, sel.indices], y, sel, n_draws=10, random_state=0)
    >>> post["tau_x"].shape, post["lambda_mu"] is None
    ((10, 5), True)
    """
    priors = GaussianPriors.from_dict(priors)
    X_train_selected, y_index = _check_training(X_train_selected, y_index, selection)
    corrected = check_flag(corrected, "corrected")
    if corrected:
        _require_f_statistic(selection)
    n_draws = check_positive_int(n_draws, name="n_draws", what="draws of the precisions")
    rng = check_random_state(random_state)
    if mode is not None:
        mode = _check_mode(mode)
        if priors.mu_t_df_grid:
            raise ValueError("a given mode needs a fixed df of the t prior (mu_t_df_grid None)")
    G = len(selection.class_counts)
    counts, xbar, ssw = sufficient_statistics(X_train_selected, y_index, G)
    warn_if_off_scale(ssw, X_train_selected.shape[0], G, priors)
    counts = counts.astype(np.float64)
    if mode is None:
        (u, v), df, t_nodes = _t_df_mode(xbar, ssw, counts, selection, priors, corrected)
    else:
        (u, v), df = mode, priors.mu_t_df
        t_nodes = None if df is None else _t_scale_nodes(df)
    a, rate, tau_x_mode = _noise_precision(priors, counts, ssw)     # as in _hyper_mode
    tau_x = rng.gamma(a, 1.0, size=(n_draws, ssw.shape[0])) / rate
    lam = None
    if t_nodes is not None:
        # lambda_j | xbar_j at the mode, over the nodes; n_draws draws by inverse CDF.
        from scipy.special import softmax

        post = softmax(_feature_loglik_t(u, v, xbar, counts, tau_x_mode, *t_nodes,
                                         per_node=True), axis=-1)            # (k, Q)
        cdf = np.cumsum(post, axis=-1)
        r = rng.random((n_draws, cdf.shape[0]))
        # In blocks of draws: (draws, k, Q) comparisons at k = 20 000 would not fit in memory.
        step = max(1, int(5e7 // cdf.size))
        idx = np.concatenate([(r[s:s + step, :, None] > cdf[None]).sum(-1)
                              for s in range(0, n_draws, step)])
        lam = t_nodes[0][np.minimum(idx, cdf.shape[1] - 1)]                  # (S, k)
    return {"tau_mu": float(np.exp(u)), "tau_nu": float(np.exp(v)), "tau_x": tau_x,
            "lambda_mu": lam, "mu_t_df": df, "counts": counts, "xbar": xbar, "ssw": ssw}


def check_plugin_priors(priors: GaussianPriors) -> None:
    """Refuse the priors the plug-in does not cover: the two-groups prior (its pi0) and a
    hyperprior on w_x (the plug-in fixes w_x).

    Parameters
    ----------
    priors : GaussianPriors

    Raises
    ------
    ValueError
        Naming the setting and the alternative.

    Examples
    --------
    >>> check_plugin_priors(GaussianPriors(mu_t_df=2.0))            # the t prior: covered
    >>> check_plugin_priors(GaussianPriors(mu_t_df_grid=(1.0, 8.0)))  # its df chosen: too
    >>> check_plugin_priors(GaussianPriors(pi0_a=1.0, pi0_b=1.0))
    Traceback (most recent call last):
    ...
    ValueError: method='plugin' does not cover effect_prior='two_groups': ...
    """
    priors = GaussianPriors.from_dict(priors)
    if priors.two_groups or priors.w_x_alpha is not None:
        what = ("effect_prior='two_groups'" if priors.two_groups
                else "a hyperprior on w_x (priors w_x_alpha)")
        raise ValueError(f"method='plugin' does not cover {what}: it fixes the "
                         "hyperparameters at their mode and has no pi0 or w_x to sample; "
                         "use method='mcmc' or effect_prior 't'/'normal'")


def plugin_idata(X_train_selected, y_index, selection: Selection, priors, data: dict,
                 coords: dict, corrected=True, draws=1000, random_state=None, mode=None):
    """The plug-in posterior (:func:`plugin_posterior`) as an ArviZ ``posterior`` group.

    One chain of ``draws`` draws: ``tau_mu`` and ``tau_nu`` constant at their mode, ``tau_x``
    and (t prior) ``lambda_mu`` drawn per feature, then ``nu`` and ``mu`` drawn exactly given
    them (:func:`selbayes.models.draw_class_means`), so everything
    downstream of a marginal-model MCMC fit (prediction, checks, save) reads it unchanged.

    Parameters
    ----------
    X_train_selected : ndarray of shape (n, k)
    y_index : ndarray of int, shape (n,)
    selection : Selection
    priors : GaussianPriors
        Without ``pi0_a`` (the two-groups prior) and without ``w_x_alpha`` (w_x is fixed).
    data : dict
        The :func:`selbayes.models.model_data` of the fit.
    coords : dict
        ``feature`` (k,) and ``class`` (G,) coordinates.
    corrected : bool
    draws : int
    random_state : int, numpy.random.Generator or None
    mode : tuple of float, optional
        The hyperparameters' mode when known (see :func:`plugin_posterior`).

    Returns
    -------
    xarray.DataTree
        With a ``posterior`` group of dims (chain = 1, draw, feature[, class]).

    Raises
    ------
    ValueError
        If ``priors`` is the two-groups prior or puts a hyperprior on w_x, or for the
        problems :func:`plugin_posterior` names.
    TypeError
        As :func:`plugin_posterior`.

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> from selbayes.models import model_data
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 200)); X[:, :5] += 1.5 * y[:, None]
    >>> sel = selbayes.select_features(X, y, k=5)
    >>> pri = GaussianPriors(mu_t_df=2.0)
    >>> data = model_data(X[:, sel.indices], y, sel, pri)
    >>> tree = plugin_idata(X[:, sel.indices], y, sel, pri, data,
    ...                     {"feature": list(range(5)), "class": ["0", "1"]}, draws=50,
    ...                     random_state=0)
    >>> dict(tree.posterior["mu"].sizes)
    {'chain': 1, 'draw': 50, 'feature': 5, 'class': 2}
    """
    import xarray as xr

    from ._gaussian_posterior import draw_class_means

    priors = GaussianPriors.from_dict(priors)
    check_plugin_priors(priors)
    rng = check_random_state(random_state)
    post = plugin_posterior(X_train_selected, y_index, selection, priors, corrected=corrected,
                            n_draws=draws, random_state=rng, mode=mode)
    cd, fd = ("chain", "draw"), ("chain", "draw", "feature")
    # As the PyMC model: no tau_nu under a flat prior on nu.
    nu = {} if priors.flat_nu else {"tau_nu": (cd, np.full((1, draws), post["tau_nu"]))}
    ds = xr.Dataset({"tau_mu": (cd, np.full((1, draws), post["tau_mu"])), **nu,
                     "tau_x": (fd, post["tau_x"][None])},
                    coords={"chain": [0], "draw": np.arange(draws), **coords})
    if post["lambda_mu"] is not None:
        ds["lambda_mu"] = (fd, post["lambda_mu"][None])
    return draw_class_means(xr.DataTree.from_dict({"posterior": ds}), data, priors,
                            random_state=rng)


def temper_log_proba(log_proba, class_log_prior_, temperature):
    """Predictive tempered by T: P_T(g | x) proportional to pi_g [p(x | g, data)]^(1/T).

    The naive (independent-feature) predictive multiplies the evidence of correlated features
    as if each were new information, so its log likelihood ratios are too large by roughly the
    features' redundancy; dividing them by a scalar T >= 1 is the curvature adjustment of a
    composite likelihood (Pauli, Racugno and Ventura 2011; Varin, Reid and Firth 2011), with T
    chosen by inner cross-validated log score (the classifier's ``temperature="auto"``) or from
    the features' correlation (:func:`correlation_temperature`). T = 1 is the model's own
    predictive.

    Parameters
    ----------
    log_proba : ndarray of shape (m, G)
        Normalised log predictive probabilities (nats).
    class_log_prior_ : ndarray of shape (G,)
        The log class probabilities that ``log_proba`` includes.
    temperature : float
        T > 0.

    Returns
    -------
    ndarray of shape (m, G)
        Normalised tempered log probabilities.

    Raises
    ------
    ValueError
        If ``temperature`` is not a positive finite number, or ``log_proba`` is not (m, G)
        with ``class_log_prior_`` of shape (G,).
    TypeError
        If ``temperature`` is not a number.

    Examples
    --------
    >>> import numpy as np
    >>> lp = np.log([[0.9, 0.1]]); prior = np.log([0.5, 0.5])
    >>> np.round(np.exp(temper_log_proba(lp, prior, 2.0)), 3).tolist()   # odds 9 -> 3
    [[0.75, 0.25]]
    """
    temperature = check_positive(temperature, name="temperature")
    log_proba, class_log_prior_ = _check_log_proba(log_proba, class_log_prior_)
    return _tempered(log_proba, class_log_prior_, temperature)


def _tempered(log_proba, class_log_prior_, temperature):
    """:func:`temper_log_proba` of checked arguments. The classifiers call it directly: their
    rows that float64 cannot resolve (features at 1e17) are named by their own later check,
    which the normalisation check here would pre-empt with a vaguer message."""
    if temperature == 1:
        return log_proba
    z = (log_proba - class_log_prior_) / temperature + class_log_prior_
    return z - logsumexp(z, axis=1, keepdims=True)


def label_noise_log_proba(log_proba, class_log_prior_, eps):
    """Predictive with a label-noise component: (1 - eps) P(g | x) + eps pi_g.

    A case's label is, with probability eps, unrelated to its features (mislabelled or
    atypical cases, which real expression sets contain). This bounds the loss of any case by
    -log(eps pi_g) nats, at a cost of about eps (1 - pi_g) nats on cases predicted with
    certainty. The default eps = 1 / (n + 2) is Laplace's rule of succession: the posterior mean
    of a mislabelling rate with a uniform prior when none of the n training labels is known to
    be wrong.

    Parameters
    ----------
    log_proba : ndarray of shape (m, G)
        Normalised log predictive probabilities (nats).
    class_log_prior_ : ndarray of shape (G,)
        log pi_g, the class probabilities (e.g.
        :func:`selbayes.models.class_log_prior`).
    eps : float
        Mislabelling probability, 0 <= eps < 1 (0 returns ``log_proba`` unchanged).

    Returns
    -------
    ndarray of shape (m, G)

    Raises
    ------
    ValueError
        If ``eps`` is outside [0, 1), or ``log_proba`` is not (m, G) with
        ``class_log_prior_`` of shape (G,).
    TypeError
        If ``eps`` is not a number.

    Examples
    --------
    >>> import numpy as np
    >>> lp = np.log([[1e-30, 1.0]]); prior = np.log([0.5, 0.5])
    >>> np.round(np.exp(label_noise_log_proba(lp, prior, 0.02)), 3).tolist()
    [[0.01, 0.99]]
    """
    eps = check_real(eps, name="label noise eps", low=0.0, high=1.0, closed="left")
    log_proba, class_log_prior_ = _check_log_proba(log_proba, class_log_prior_)
    return _with_label_noise(log_proba, class_log_prior_, eps)


def _with_label_noise(log_proba, class_log_prior_, eps):
    """:func:`label_noise_log_proba` of checked arguments (called directly as
    :func:`_tempered` is)."""
    if eps == 0:
        return log_proba
    return np.logaddexp(np.log1p(-eps) + log_proba, np.log(eps) + class_log_prior_[None, :])


def _check_log_proba(log_proba, class_log_prior_):
    """(m, G) log probabilities and the (G,) log class probabilities they include."""
    lp = np.asarray(log_proba, dtype=np.float64)
    prior = np.asarray(class_log_prior_, dtype=np.float64)
    if lp.ndim != 2:
        raise ValueError(f"log_proba must have shape (m, G); got {lp.shape}")
    if prior.shape != (lp.shape[1],):
        raise ValueError(f"class_log_prior_ must have shape (G,) = ({lp.shape[1]},), one entry "
                         f"per column of log_proba; got {prior.shape}")
    # probabilities given for their logs, or rows that do not sum to 1, came back as if
    # they were log probabilities (unchanged at T = 1 or eps = 0, not normalised otherwise)
    for name, rows in (("log_proba", lp), ("class_log_prior_", prior[None, :])):
        if np.isnan(rows).any() or np.isposinf(rows).any():
            raise ValueError(f"{name} holds NaN or +inf; it must hold log probabilities")
        with np.errstate(divide="ignore"):
            total = logsumexp(rows, axis=1)
        worst = int(np.argmax(np.abs(total))) if total.size else 0
        if total.size and not abs(total[worst]) <= _NORMALISED:
            raise ValueError(
                f"{name} must hold log probabilities, each row summing to 1 once "
                f"exponentiated; row {worst} sums to {np.exp(total[worst]):.6g} (probabilities "
                "given for their logs? pass np.log of them)")
    return lp, prior


# How far from 0 the log of a row's total may be: rounding of normalised log probabilities
# leaves about 1e-15; 1e-6 also lets through rows floored at 1e-300 or rounded to 1e-9.
_NORMALISED = 1e-6


def default_label_noise(n: int) -> float:
    """Laplace's rule of succession, 1 / (n + 2), for n training cases.

    Parameters
    ----------
    n : int
        Training cases.

    Returns
    -------
    float
        The label-noise probability eps.

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 0.

    Examples
    --------
    >>> default_label_noise(48)
    0.02
    """
    n = check_int(n, name="n", low=0, what="the number of training cases")
    return 1.0 / (n + 2.0)


def correlation_temperature(X_selected, y_index, n_classes) -> float:
    """Predictive temperature from the within-class correlation of the selected features.

    The naive (independent-feature) predictive's log likelihood ratio between classes g and h
    is, up to a constant, s = d'x with d_j = (mu_gj - mu_hj) / sigma_j^2. Along d the classes
    are separated by d'(mu_g - mu_h) = ||delta||^2 (delta_j = (mu_gj - mu_hj) / sigma_j), but
    with correlated features s varies within a class by delta' R delta, R the within-class
    correlation matrix, not by ||delta||^2 as the naive model assumes. The calibrated log odds
    along d are therefore s / T with

        T = delta' R delta / delta' delta,

    the variance inflation (Kish's design effect) of the naive evidence along the direction
    that separates the classes: 1 for independent features, up to k for k copies of one
    feature. With G > 2 classes the pairs are pooled, weighted by n_g n_h. Means, standard
    deviations and R are the training sample's; ``delta' R delta`` is computed as
    ||E delta||^2 / (n - G) from the within-class residuals E, so no k x k matrix is formed.

    T is a property of the features and the classes, not of how the class means are
    estimated: the same T serves the corrected and the uncorrected model, which differ in how
    far they shrink the class-mean differences (the selection correction) rather than in how
    they count correlated evidence (the temperature). T is floored at 1: below 1 (features
    whose noise cancels along d) the estimate is dominated by the sampling error of R
    (standard deviation about sqrt(2 / (n - G)) for independent features), and the model's own
    predictive is then kept.

    Parameters
    ----------
    X_selected : ndarray of shape (n, k)
        Training values of the selected features (any units; each feature is scaled by its
        pooled within-class standard deviation here).
    y_index : ndarray of int, shape (n,)
        Class index of each training case, 0..G-1 (at least n_classes + 1 cases).
    n_classes : int
        G.

    Returns
    -------
    float
        T >= 1 (for :func:`temper_log_proba`).

    Raises
    ------
    ValueError
        If ``X_selected`` is not a finite 2-D array, ``n_classes`` is not an integer >= 2,
        or ``y_index`` is not one class index 0..G-1 per row.
    TypeError
        If ``X_selected`` is not numeric.

    References
    ----------
    Kish, L. (1965). Survey Sampling. Wiley (the design effect). Pauli, F., Racugno, W. and
    Ventura, L. (2011). Bayesian composite marginal likelihoods. Statistica Sinica 21,
    149-164 (the curvature adjustment of a composite likelihood).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 200); s = rng.normal(size=400) + y
    >>> X = np.column_stack([s + 0.1 * rng.normal(size=400) for _ in range(10)])
    >>> round(correlation_temperature(X, y, 2))        # 10 near-copies of one feature
    10
    >>> correlation_temperature(rng.normal(size=(400, 10)) + y[:, None], y, 2) < 1.5
    True
    """
    X = check_matrix(X_selected, name="X_selected")
    G = check_int(n_classes, name="n_classes", low=2, what="the number of classes")
    y_index = check_class_index(y_index, X.shape[0], G, all_present=False)
    n = X.shape[0]
    counts = np.bincount(y_index, minlength=G).astype(np.float64)
    present = np.flatnonzero(counts > 0)
    if n - G < 1 or present.size < 2:
        return 1.0
    means = np.zeros((G, X.shape[1]))
    np.add.at(means, y_index, X)
    means[present] /= counts[present, None]
    E = X - means[y_index]
    sd = np.sqrt((E ** 2).sum(axis=0) / (n - G))
    ok = sd > 0                                  # a constant feature carries no evidence
    E, means, sd = E[:, ok], means[:, ok], sd[ok]
    if not ok.any():
        return 1.0
    g, h = np.triu_indices(present.size, 1)
    g, h = present[g], present[h]
    delta = (means[g] - means[h]) / sd                               # (pairs, k)
    w = counts[g] * counts[h]
    num = (w * (((E / sd) @ delta.T) ** 2).sum(axis=0)).sum() / (n - G)
    den = (w * (delta ** 2).sum(axis=1)).sum()
    if not den > 0:
        return 1.0
    return float(max(1.0, num / den))
