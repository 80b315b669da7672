"""scikit-learn style estimator for binary naive Bayes with correlation-selection correction."""

from __future__ import annotations

import json

import numpy as np

from .._validation import check_random_state
from ..filters._selection import Selection
from ..models._priors import NaiveBayesPrior
from ._base import Posterior, SelectionClassifier, require_sampler
from ._params import StrOptions, priors_constraint

__all__ = ["BinaryNaiveBayesClassifier", "METHODS"]

METHODS = ("quadrature", "mcmc")


class BinaryNaiveBayesClassifier(SelectionClassifier):
    """Bayesian binary naive Bayes that conditions on absolute-correlation feature selection.

    ``fit`` takes all p binary features and a binary class, keeps the k features with the
    largest |correlation| with the class (so selection is internal to any cross-validation),
    and computes the posterior of the model of Li (2007) [1]_, section 2.3 (see
    :mod:`selbayes.models._naive_bayes`). With ``correct_selection=True`` the posterior also
    conditions on the p - k omitted features having |COR| <= gamma, which keeps the predictive
    probabilities calibrated (thesis Table 2.1).

    Parameters
    ----------
    k : int or "all", default 10
        Number of features to keep (1 <= k < p), or "all" (nothing omitted, nothing to
        correct). ``threshold`` overrides ``k``
        (a ``k`` other than the default given with it warns that it is unused).
    threshold : float, optional
        Keep the features with |COR| > threshold. Unlike fixed k, this selection rule is
        exactly what the correction conditions on (ties at gamma carry no information).
    correct_selection : bool, default True
        Include the factor P(|COR| <= gamma | alpha)^(p - k).
    method : {"quadrature", "mcmc"}
        ``"quadrature"``: exact up to quadrature (alpha on prior quantiles, theta integrated
        per feature; :func:`selbayes.models.fit_naive_bayes_quadrature`),
        fast and deterministic. ``"mcmc"``: NUTS over (alpha, theta_1..k) in PyMC.
    priors : NaiveBayesPrior or dict, optional
        Fields ``alpha_shape``, ``alpha_scale`` (alpha ~ InverseGamma), ``f0``, ``f1``
        (psi ~ Beta(f1, f0)); default the thesis' 0.5, 5, 1, 1. ``pi0_a`` and ``pi0_b``
        (e.g. 1 and 1) switch on the two-groups prior: a share pi0 ~ Beta(pi0_a, pi0_b) of
        the features has no class difference, which keeps strong markers strong where the
        one-group correction shrinks them, and gives ``marker_probabilities_``
        (:mod:`selbayes.models._naive_bayes_two_groups`; method "quadrature" only).
    quadrature : {"accurate", "thesis"}
        Quadrature preset (method "quadrature"): converged rules, or the thesis' K = 30 and
        21-point rules.
    draws, tune, chains : int
        MCMC settings per chain (method "mcmc").
    sampler : {"auto", "nutpie", "pymc", "numpyro", "blackjax"}
        NUTS implementation; "auto" is nutpie when installed.
    target_accept : float, default 0.9
    max_predict_draws : int or None, default 1000
        Posterior draws (evenly thinned) used for prediction (method "mcmc").
    random_state : int, Generator or None
        Seed of the sampler (method "mcmc"; the quadrature is deterministic).
    progressbar : bool, default True

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted class labels; ``classes_[1]`` is the thesis' "class 1".
    selection_ : Selection
    counts_ : ndarray of int, shape (k, 2)
        Ones among the training cases of each class, per retained feature.
    class_counts_ : ndarray of int, shape (2,)
    quadrature_fit_ : NaiveBayesQuadratureFit
        Method "quadrature": the grid posterior of alpha (``alpha_grid``, ``alpha_posterior``).
    marker_probabilities_ : ndarray of shape (k,) or None
        With the two-groups prior: the posterior probability that each kept feature is a
        marker (has a class difference), given the data and the selection; None otherwise.
    alpha_draws_, theta_draws_ : ndarray, shapes (S,) and (S, k)
        Method "mcmc": the draws used for prediction.
    sampler_used_ : str or None
        Method "mcmc": the NUTS implementation that ran, ``"nutpie"`` or ``"pymc"``; None
        with method "quadrature".
    model_ : pymc.Model
        Method "mcmc": the model sampled (absent otherwise, after ``load`` and after
        pickling).
    diagnostics_ : pandas.DataFrame
        Method "mcmc": :func:`selbayes.evaluation.check` of alpha and theta.
    loo_checks_ : pandas.DataFrame or None
        The PSIS-LOO Pareto k of each training case (``pareto_k``, ``influential``;
        reported, not warned on) where the posterior stores a log likelihood; None
        otherwise.
    data_min_, data_max_ : None
        Kept for the common interface (the training range of continuous features); binary
        features have none.
    idata_ : xarray.DataTree
        ``attrs`` record the selection, priors and settings; method "mcmc" holds the posterior
        and sampler statistics, method "quadrature" the group ``alpha_grid``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (p,)
        Column names of a DataFrame passed to ``fit`` (absent for array input, whose
        features are named ``x0`` ... ``x{p-1}``).
    selected_features_ : ndarray of str, shape (k,)
        Names of the selected features, best first; ``selection_.indices`` holds their
        positions. They are the ``feature`` coordinate of ``idata_`` (and class labels the
        ``class`` coordinate).

    References
    ----------
    .. [1] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes import BinaryNaiveBayesClassifier
    >>> from selbayes.datasets import binary_naive_bayes
    >>> d = binary_naive_bayes(None, 500, alpha=30.0, class_counts=(30, 30), random_state=0)
    >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
    >>> clf.predict_proba(d.X[:3]).shape
    (3, 2)
    """

    def __init__(self, k: int | str | None = 10, threshold: float | None = None,
                 correct_selection: bool = True, method: str = "quadrature", priors=None,
                 quadrature: str = "accurate", draws: int = 1000, tune: int = 1000,
                 chains: int = 4, sampler: str = "auto", target_accept: float = 0.9,
                 max_predict_draws: int | None = 1000, random_state=None,
                 progressbar: bool = True):
        self.k = k
        self.threshold = threshold
        self.correct_selection = correct_selection
        self.method = method
        self.priors = priors
        self.quadrature = quadrature
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.sampler = sampler
        self.target_accept = target_accept
        self.max_predict_draws = max_predict_draws
        self.random_state = random_state
        self.progressbar = progressbar

    _parameter_constraints = {
        **SelectionClassifier._parameter_constraints,
        **SelectionClassifier._nuts_constraints,
        "method": [StrOptions(set(METHODS))],
        # its fields are checked (messages naming the field) by NaiveBayesPrior.from_dict
        "priors": priors_constraint(NaiveBayesPrior),
        "quadrature": [StrOptions({"accurate", "thesis"})],
    }
    # random_state: the shared constraint (an int or None); a Generator or SeedSequence, which
    # this estimator took before, still works for one release with a FutureWarning.
    _deprecated_seed_types = (np.random.Generator, np.random.SeedSequence)
    _statistic = "abs_corr"
    _binary_features = True
    _binary_classes = True
    _min_per_class = 1
    _diagnostic_vars = ("alpha", "theta")

    _internal_groups = ("quadrature_internal", "predictive_draws")

    # ------------------------------------------------------------------ hooks
    def _validate_params(self, skip=()) -> None:
        """The base checks, then the one combination not built (before any work)."""
        super()._validate_params(skip=skip)
        if self.method == "mcmc" and self._prior_object().two_groups:
            raise ValueError("the two-groups prior (priors pi0_a, pi0_b) is computed by "
                             "quadrature: use method='quadrature' (the default)")

    def _prior_object(self):
        from ..models._priors import NaiveBayesPrior

        return NaiveBayesPrior.from_dict(self.priors)

    _prior = _prior_object

    def _fit_selected(self, X_sel, y01, selection: Selection, transform=None) -> Posterior:
        """Counts of ones per class, then the quadrature or MCMC posterior."""
        ones1 = X_sel[y01 == 1].sum(axis=0)
        ones0 = X_sel[y01 == 0].sum(axis=0)
        self.counts_ = np.stack([ones0, ones1], axis=1).astype(np.int64)
        self.class_counts_ = np.asarray(selection.class_counts, dtype=np.int64)
        if self.method == "quadrature":
            return self._fit_quadrature(X_sel, y01, selection)
        return self._fit_mcmc(X_sel, y01, selection)

    def _fit_quadrature(self, X_sel, y01, selection) -> Posterior:
        import xarray as xr

        from ..models._naive_bayes_quadrature import fit_naive_bayes_quadrature

        prior = self._prior_object()
        if prior.two_groups:
            from ..models._naive_bayes_two_groups import fit_naive_bayes_two_groups

            fit = fit_naive_bayes_two_groups(X_sel, y01, selection,
                                             corrected=bool(self.correct_selection),
                                             prior=prior, quadrature=self.quadrature)
        else:
            fit = fit_naive_bayes_quadrature(X_sel, y01, selection,
                                             corrected=bool(self.correct_selection),
                                             prior=prior, quadrature=self.quadrature)
        self.quadrature_fit_ = fit
        self.marker_probabilities_ = getattr(fit, "marker_probabilities", None)
        self.sampler_used_ = None
        return Posterior(
            idata=xr.DataTree(children={"alpha_grid": xr.DataTree(_grid_dataset(fit))}))

    def _fit_mcmc(self, X_sel, y01, selection) -> Posterior:
        from ..models._naive_bayes import _model_from_data, model_data, sample_nutpie

        prior = self._prior_object()
        self.sampler_used_ = require_sampler(self.sampler)
        data = model_data(X_sel, y01, selection, prior, corrected=bool(self.correct_selection))
        coords = {"feature": [int(i) for i in selection.indices], "class": [0, 1]}
        seed = self.random_state
        if isinstance(seed, np.random.Generator | np.random.SeedSequence):
            seed = int(check_random_state(seed).integers(2**31 - 1))
        if self.sampler_used_ == "nutpie":
            idata, model = sample_nutpie(
                data, prior, coords, draws=self.draws, tune=self.tune, chains=self.chains,
                seed=None if seed is None else int(seed), target_accept=self.target_accept,
                progressbar=self.progressbar)
        else:
            model = _model_from_data(data, prior, coords)
            idata = self._run_nuts(model, seed)
        return Posterior(idata=idata, model=model)

    def _store_predictive(self, posterior: Posterior) -> None:
        """Method "mcmc": the thinned draws of alpha and theta (quadrature: nothing to do)."""
        if self.method == "quadrature":
            return
        self.marker_probabilities_ = None
        post = self.idata_.posterior
        alpha = post["alpha"].transpose("chain", "draw").values.reshape(-1)
        theta = post["theta"].transpose("chain", "draw", "feature").values
        theta = theta.reshape(-1, theta.shape[-1])
        keep = self._thin_index(alpha.shape[0])
        self.alpha_draws_ = alpha[keep]
        self.theta_draws_ = theta[keep]

    def _extra_attrs(self) -> dict:
        attrs = {"selbayes_method": self.method,
                 "selbayes_corrected": int(bool(self.correct_selection))}
        if self.method == "quadrature":
            attrs["selbayes_quadrature_settings"] = json.dumps(self.quadrature_fit_.settings)
        return attrs

    def _extra_constant_data(self) -> dict:
        import xarray as xr

        return {"train_counts": xr.DataArray(
            self.counts_, dims=["feature", "class"],
            coords={"feature": self.selected_features_.astype(str),
                    "class": self._class_labels()})}

    def _predict_log_proba_selected(self, X_sel) -> np.ndarray:
        """Quadrature: a sum over the alpha grid with theta integrated per feature; MCMC: an
        average over the thinned posterior draws."""
        if self.method == "quadrature":
            return self.quadrature_fit_.predict_log_proba(X_sel)
        from ..models._naive_bayes import predictive_log_proba

        return predictive_log_proba(X_sel, self.alpha_draws_, self.theta_draws_, self.counts_,
                                    self.class_counts_, self._prior_object())

    def _predictive_state(self) -> dict:
        import xarray as xr

        if self.method == "quadrature":
            fit = self.quadrature_fit_
            if getattr(fit, "pi0_grid", None) is not None:
                # two groups: the predictive per count pair, and each feature's pair
                return {"quadrature_internal": xr.Dataset({
                    "log_pi": xr.DataArray(fit._log_pi, dims=["class_index", "x_value",
                                                              "alpha_node", "count_pair"]),
                    "pair_of_feature": xr.DataArray(fit._pair_of_feature, dims=["selected"]),
                    "marker_probability": xr.DataArray(fit.marker_probabilities,
                                                       dims=["selected"])})}
            return {"quadrature_internal": xr.Dataset({"log_pi": xr.DataArray(
                fit._log_pi, dims=["class_index", "x_value", "alpha_node", "selected"])})}
        return {"predictive_draws": xr.Dataset({
            "alpha": xr.DataArray(self.alpha_draws_, dims=["sample"]),
            "theta": xr.DataArray(self.theta_draws_, dims=["sample", "selected"])})}

    def _restore_predictive(self, tree, cd) -> None:
        self.counts_ = cd["train_counts"].values.astype(np.int64)
        self.class_counts_ = self.selection_.class_counts
        if self.method == "quadrature":
            self.quadrature_fit_ = _grid_fit(tree, self, tree.attrs)
            self.marker_probabilities_ = getattr(self.quadrature_fit_, "marker_probabilities",
                                                 None)
            self.sampler_used_ = None
        else:
            draws = tree["predictive_draws"].to_dataset()
            self.alpha_draws_ = draws["alpha"].values
            self.theta_draws_ = draws["theta"].values


def _grid_dataset(fit):
    import xarray as xr

    K = fit.alpha_grid.shape[0]
    log_pkeep = fit.log_pkeep if fit.log_pkeep is not None else np.full(K, np.nan)
    extra = {}
    if getattr(fit, "pi0_grid", None) is not None:         # two groups: (alpha, pi0) nodes
        extra = {"pi0": xr.DataArray(fit.pi0_grid, dims=["alpha_node"])}
    return xr.Dataset({
        **extra,
        "alpha": xr.DataArray(fit.alpha_grid, dims=["alpha_node"]),
        "log_weight": xr.DataArray(fit.log_alpha_weights, dims=["alpha_node"]),
        "log_likelihood": xr.DataArray(fit.log_likelihood, dims=["alpha_node"]),
        "log_adjustment": xr.DataArray(fit.log_adjustment, dims=["alpha_node"]),
        "log_pkeep": xr.DataArray(log_pkeep, dims=["alpha_node"]),
    }, attrs={"psi_hat": float(fit.psi_hat), "n_omitted": int(fit.n_omitted),
              "corrected": int(fit.corrected),
              "threshold": np.nan if fit.threshold is None else float(fit.threshold),
              "log_p0": np.nan if getattr(fit, "log_p0", None) is None else float(fit.log_p0)})


def _grid_fit(tree, obj, attrs):
    from ..models._naive_bayes_quadrature import NaiveBayesQuadratureFit

    grid = tree["alpha_grid"].to_dataset()
    log_pkeep = grid["log_pkeep"].values
    thr = float(grid.attrs["threshold"])
    internal = tree["quadrature_internal"].to_dataset()
    cls, extra = NaiveBayesQuadratureFit, {}
    if "pi0" in grid:
        from ..models._naive_bayes_two_groups import NaiveBayesTwoGroupsFit

        log_p0 = float(grid.attrs.get("log_p0", np.nan))
        cls, extra = NaiveBayesTwoGroupsFit, {
            "pi0_grid": grid["pi0"].values,
            "marker_probabilities": internal["marker_probability"].values,
            "log_p0": None if np.isnan(log_p0) else log_p0,
            "_pair_of_feature": internal["pair_of_feature"].values.astype(np.int64)}
    return cls(
        **extra,
        alpha_grid=grid["alpha"].values, log_alpha_weights=grid["log_weight"].values,
        log_likelihood=grid["log_likelihood"].values,
        log_adjustment=grid["log_adjustment"].values,
        log_pkeep=None if np.all(np.isnan(log_pkeep)) else log_pkeep,
        psi_hat=float(grid.attrs["psi_hat"]), class_counts=tuple(int(c) for c in
                                                                 obj.class_counts_),
        corrected=bool(int(grid.attrs["corrected"])), n_omitted=int(grid.attrs["n_omitted"]),
        threshold=None if np.isnan(thr) else thr, prior=obj._prior(),
        settings=json.loads(attrs["selbayes_quadrature_settings"]),
        _log_pi=internal["log_pi"].values)
