"""scikit-learn style estimator: the hierarchical Gaussian classifier with selection correction."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ._estimator import SAMPLERS, Interval, SelectionClassifier, StrOptions, require_sampler
from .models.priors import GaussianPriors
from .selection import Selection
from .transforms import Decorrelation

__all__ = ["HierarchicalGaussianClassifier", "SAMPLERS"]

# Kept one release for code that imported the private helper from here.
_require_sampler = require_sampler


class HierarchicalGaussianClassifier(SelectionClassifier):
    """Hierarchical Bayesian Gaussian classifier that conditions on F-statistic selection.

    ``fit`` takes all p features, selects k of them by the one-way F statistic (so selection is
    internal to any cross-validation), and samples the posterior of the hierarchical Gaussian
    model of Li (2009) [1]_ (see :mod:`selbayes.models.gaussian`). With
    ``correct_selection=True`` the posterior also conditions on the p - k omitted features
    having F <= gamma, which keeps the predictive probabilities calibrated.

    Parameters
    ----------
    k : int or "all", optional
        Number of features to keep (1 <= k < p), or "all" to use every feature (nothing is
        omitted, so there is nothing to correct). ``threshold`` overrides ``k``.
    threshold : float, optional
        Keep features with F > threshold.
    correct_selection : bool, default True
        Add the selection adjustment factor P(F <= gamma | tau_mu w_x)^(p - k).
    priors : GaussianPriors or dict, optional
        Prior settings; default: the paper's fitting priors.
    decorrelate : float or None, default None
        If a number lambda, whiten all p features with the shrunk pooled within-class covariance
        (Li 2009 [1]_, eq 12) fitted on the training data before selecting.
    draws, tune, chains : int
        MCMC settings per chain.
    sampler : {"auto", "nutpie", "pymc", "numpyro", "blackjax"}
        NUTS implementation. "auto" (the default) is nutpie when installed (it is a dependency
        of selbayes; several times faster here) and PyMC's own NUTS otherwise.
    target_accept : float, default 0.9
    max_predict_draws : int or None, default 1000
        Posterior draws (evenly thinned) used for prediction; None uses all. Prediction
        integrates the class means out per draw (Rao-Blackwellised), so far fewer draws are
        needed than with sampled means when k is large.
    random_state : int, optional
    progressbar : bool, default True
    parameterization : {"marginal", "noncentered"}, default "marginal"
        "marginal" integrates the class means out analytically (NUTS sees only the k + 2
        precisions; mu and nu are drawn exactly afterwards), which samples cleanly whether
        the selected features are weak or strong. "noncentered" samples them directly.

    Attributes
    ----------
    classes_ : ndarray of shape (G,)
    selection_ : Selection
        Integer positions of the selected features (``selection_.indices``), their scores
        and gamma.
    selected_features_ : ndarray of str, shape (k,)
        Names of the selected features, best first.
    feature_names_in_ : ndarray of str, shape (p,)
        Column names of a DataFrame passed to ``fit`` (absent for array input, whose
        features are named ``x0`` ... ``x{p-1}``).
    n_features_in_ : int
    idata_ : xarray.DataTree
        The ArviZ result, with the selected features' names as the ``feature`` coordinate and
        the class labels as the ``class`` coordinate. Groups:

        ``posterior``
            ``tau_mu``, ``tau_nu`` (scalars), ``tau_x``, ``nu`` (per feature) and ``mu``
            (feature x class), per chain and draw.
        ``sample_stats``
            NUTS statistics (energy, divergences, tree depth, ...).
        ``log_likelihood``
            ``x`` (chain, draw, case): log density of each training case's selected
            features given its class, sum over features of log N(x_ij | mu_j,y_i, 1/tau_x_j)
            (nats), so ``az.loo`` works.
        ``posterior_predictive``
            ``f_statistic`` (chain, draw, feature): the one-way F statistic of each
            selected feature in a replicated training set with the same class counts.
        ``observed_data``
            ``f_statistic`` (feature): the observed F statistics, for
            ``az.plot_ppc_dist(idata_, var_names=["f_statistic"])``; ``x`` (case, feature)
            and ``y`` (case): the selected training features (after ``decorrelate``) and
            labels; ``ssw``: within-class sums of squares.
        ``constant_data``
            The selection (``selection_indices``, ``selection_scores`` of all p features,
            ``selection_class_counts``), the class means and the adjustment table.

        ``idata_.attrs`` record the selection, the priors, the settings, the selbayes
        version and a model id.

    References
    ----------
    .. [1] Li, L. (2009). Bayesian classification and regression with high dimensional
       features. arXiv:0709.2152.
    .. [2] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto.

    Examples
    --------
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> clf = HierarchicalGaussianClassifier(k=10, draws=500, chains=2)   # doctest: +SKIP
    >>> clf.fit(X_train, y_train).predict_proba(X_test)                   # doctest: +SKIP
    """

    def __init__(self, k: int | None = 10, threshold: float | None = None,
                 correct_selection: bool = True, priors=None, decorrelate: float | None = None,
                 draws: int = 1000, tune: int = 1000, chains: int = 4, sampler: str = "auto",
                 target_accept: float = 0.9, max_predict_draws: int | None = 1000,
                 random_state: int | None = None, progressbar: bool = True,
                 parameterization: str = "marginal"):
        self.k = k
        self.threshold = threshold
        self.correct_selection = correct_selection
        self.priors = priors
        self.decorrelate = decorrelate
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.sampler = sampler
        self.target_accept = target_accept
        self.max_predict_draws = max_predict_draws
        self.random_state = random_state
        self.progressbar = progressbar
        self.parameterization = parameterization

    _parameter_constraints = {
        "k": [Interval(Integral, 1, None, closed="left"), StrOptions({"all"}), None],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "correct_selection": ["boolean"],
        "priors": [GaussianPriors, dict, None],
        "decorrelate": [Interval(Real, 0, None, closed="left"), None],
        "draws": [Interval(Integral, 1, None, closed="left")],
        "tune": [Interval(Integral, 0, None, closed="left")],
        "chains": [Interval(Integral, 1, None, closed="left")],
        "sampler": [StrOptions(set(SAMPLERS))],
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        "max_predict_draws": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": [Interval(Integral, None, None, closed="neither"), None],
        "progressbar": ["boolean"],
        "parameterization": [StrOptions({"marginal", "noncentered"})],
    }
    _statistic = "f"
    _diagnostic_vars = ("tau_mu", "tau_nu", "tau_x")
    _internal_groups = ("predictive_draws",)

    # ------------------------------------------------------------------ hooks
    def _prior_object(self) -> GaussianPriors:
        return GaussianPriors.from_dict(self.priors)

    _priors = _prior_object

    def _prepare_features(self, X, y_index, classes) -> np.ndarray:
        """Whiten all p features with the shrunk pooled covariance (``decorrelate``), if set."""
        self.sampler_used_ = require_sampler(self.sampler)
        self._transform = None
        if self.decorrelate is None:
            return X
        X = X.toarray() if hasattr(X, "toarray") else X     # whitening mixes every column
        self._transform = Decorrelation(self.decorrelate).fit(X, y_index, len(classes))
        return self._transform.transform(X)

    def _fit_selected(self, X_sel, y_index, selection: Selection) -> None:
        """Sample the posterior of the selected features (``idata_``, ``model_``)."""
        from .models.gaussian import build_model, draw_class_means, model_data, sample_nutpie

        priors = self._prior_object()
        y = self.classes_[y_index]
        self.transform_rows_ = (None if self._transform is None
                                else self._transform.rows(selection.indices))
        del self._transform
        coords = {"feature": [int(i) for i in selection.indices],
                  "class": [str(c) for c in selection.classes]}
        seed = self.random_state
        data = model_data(X_sel, y, selection, priors, corrected=self.correct_selection)
        if self.sampler_used_ == "nutpie":
            # The compiled model is cached per shape and reused (numba compile dominates).
            idata, model = sample_nutpie(
                data, priors, coords, draws=self.draws, tune=self.tune, chains=self.chains,
                seed=None if seed is None else int(seed), target_accept=self.target_accept,
                progressbar=self.progressbar, parameterization=self.parameterization)
        else:
            model = build_model(X_sel, y, selection, priors, corrected=self.correct_selection,
                                parameterization=self.parameterization)
            idata = self._run_nuts(model, seed)
            if self.parameterization == "marginal":
                draw_class_means(idata, data, priors, random_state=seed)
        self.idata_ = idata
        self.model_ = model
        self._model_data = data

    def _store_predictive(self) -> None:
        """Per-draw predictive moments with mu integrated out (Rao-Blackwellised; see
        :func:`selbayes.models.gaussian.predictive_moments`), on evenly thinned draws."""
        from .models.gaussian import predictive_moments

        data = self.__dict__.pop("_model_data")
        post = self.idata_.posterior

        def flat(name):
            v = post[name].values
            return v.reshape(-1, *v.shape[2:])

        keep = self._thin_index(flat("tau_mu").shape[0])
        lam = flat("lambda_mu")[keep] if "lambda_mu" in post else None
        self.pred_mean_, self.pred_precision_ = predictive_moments(
            flat("tau_x")[keep], flat("tau_mu")[keep], flat("tau_nu")[keep], data["xbar_obs"],
            data["class_counts"], lambda_mu=lam)

    def _add_checks(self, X_sel, y_index) -> None:
        """``log_likelihood``, ``posterior_predictive`` and ``observed_data`` for ArviZ.

        ``log_likelihood["x"]`` (chain, draw, case): log N(x_i | mu[:, y_i], 1 / tau_x) of each
        training case's selected features given its class, so ``az.loo`` works.
        ``posterior_predictive["f_statistic"]`` (chain, draw, feature): the one-way F statistic
        of each selected feature in a replicated training set with the same class counts,
        drawn exactly from its sufficient statistics (class means ~ N(mu, 1 / (n_g tau_x)),
        within-class sum of squares ~ chi2(n - G) / tau_x); ``observed_data["f_statistic"]``
        holds the observed ones, so ``az.plot_ppc_dist`` compares them.
        """
        import xarray as xr

        from ._validation import check_random_state
        from .selection import f_statistic

        post = self.idata_.posterior
        tau = post["tau_x"].transpose("chain", "draw", "feature").values
        mu = post["mu"].transpose("chain", "draw", "feature", "class").values
        C, D, k = tau.shape
        G = mu.shape[-1]
        t = tau.reshape(-1, k)
        m = mu.reshape(-1, k, G)
        n = X_sel.shape[0]
        counts = np.bincount(y_index, minlength=G)

        # Per-case log likelihood, expanded around the observed class means so that no
        # (draws x cases x features) array is formed and large offsets do not cancel.
        loglik = np.empty((t.shape[0], n))
        half_log_t = 0.5 * np.log(t / (2 * np.pi)).sum(axis=1)
        for g in range(G):
            rows = np.flatnonzero(y_index == g)
            centre = X_sel[rows].mean(axis=0)
            dX = X_sel[rows] - centre
            dm = m[:, :, g] - centre
            quad = t @ (dX ** 2).T - 2 * (t * dm) @ dX.T + (t * dm ** 2).sum(axis=1)[:, None]
            loglik[:, rows] = half_log_t[:, None] - 0.5 * quad

        # Replicated F statistics from the exact sampling distribution of the statistics.
        seed = None if self.random_state is None else int(self.random_state) + 1
        rng = check_random_state(seed)
        sd = 1.0 / np.sqrt(counts[None, None, :] * t[:, :, None])
        xbar = m + sd * rng.standard_normal(m.shape)
        ssw = rng.chisquare(n - G, size=t.shape) / t
        grand = (xbar * counts).sum(axis=2, keepdims=True) / n
        ssb = (counts * (xbar - grand) ** 2).sum(axis=2)
        f_rep = (ssb / (G - 1)) / (ssw / (n - G))

        features = post["tau_x"]["feature"].values
        case = np.arange(n)
        self.idata_["log_likelihood"] = xr.DataTree(xr.Dataset(
            {"x": (("chain", "draw", "case"), loglik.reshape(C, D, n))},
            coords={"chain": post["chain"].values, "draw": post["draw"].values, "case": case}))
        self.idata_["posterior_predictive"] = xr.DataTree(xr.Dataset(
            {"f_statistic": (("chain", "draw", "feature"), f_rep.reshape(C, D, k))},
            coords={"chain": post["chain"].values, "draw": post["draw"].values,
                    "feature": features}))
        obs = (self.idata_["observed_data"].to_dataset()
               if "observed_data" in self.idata_.children else xr.Dataset())
        obs = obs.assign(
            f_statistic=xr.DataArray(f_statistic(X_sel, y_index, G), dims=["feature"],
                                     coords={"feature": features}),
            x=xr.DataArray(X_sel, dims=["case", "feature"],
                           coords={"case": case, "feature": features}),
            y=xr.DataArray(np.asarray(self._class_labels())[y_index], dims=["case"],
                           coords={"case": case}))
        self.idata_["observed_data"] = xr.DataTree(obs)

    def _extra_constant_data(self) -> dict:
        import xarray as xr

        if self.transform_rows_ is None:
            return {}
        return {"transform_rows": xr.DataArray(self.transform_rows_,
                                               dims=["feature", "all_features"])}

    def _select_test_columns(self, X) -> np.ndarray:
        if self.transform_rows_ is not None:
            return np.asarray(X @ self.transform_rows_.T)
        return super()._select_test_columns(X)

    def _predict_log_proba_selected(self, X_sel) -> np.ndarray:
        """Average the per-draw Student-t / Gaussian predictive densities of the selected
        features over the (thinned) posterior draws, with the class means integrated out."""
        from .models.gaussian import class_log_prior, predictive_log_proba

        lp = class_log_prior(self.selection_.class_counts, self._prior_object().c)
        return predictive_log_proba(X_sel, self.pred_mean_, self.pred_precision_, lp)

    def _predictive_state(self) -> dict:
        import xarray as xr

        dims = ["sample", "selected", "class_index"]
        return {"predictive_draws": xr.Dataset({
            "mean": xr.DataArray(self.pred_mean_, dims=dims),
            "precision": xr.DataArray(self.pred_precision_, dims=dims)})}

    def _restore_predictive(self, tree, cd) -> None:
        self.transform_rows_ = cd["transform_rows"].values if "transform_rows" in cd else None
        draws = tree["predictive_draws"].to_dataset()
        self.pred_mean_ = draws["mean"].values
        self.pred_precision_ = draws["precision"].values


