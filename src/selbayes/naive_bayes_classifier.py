"""scikit-learn style estimator for binary naive Bayes with correlation-selection correction."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator import EvaluateMixin, PersistenceMixin, sanitize_attrs
from ._validation import check_binary, check_labels, check_matrix, check_random_state
from .gaussian_classifier import _require_sampler
from .selection import Selection, abs_correlation, select_features

__all__ = ["BinaryNaiveBayesClassifier", "METHODS"]

METHODS = ("quadrature", "mcmc")


class BinaryNaiveBayesClassifier(EvaluateMixin, PersistenceMixin, ClassifierMixin,
                                 BaseEstimator):
    """Bayesian binary naive Bayes that conditions on absolute-correlation feature selection.

    ``fit`` takes all p binary features and a binary class, keeps the k features with the
    largest |correlation| with the class (so selection is internal to any cross-validation),
    and computes the posterior of the model of seed 001 section 2.3 (see
    :mod:`selbayes.models.naive_bayes`). With ``correct_selection=True`` the posterior also
    conditions on the p - k omitted features having |COR| <= gamma, which keeps the predictive
    probabilities calibrated (thesis Table 2.1).

    Parameters
    ----------
    k : int or "all", default 10
        Number of features to keep (1 <= k < p), or "all" (nothing omitted, nothing to
        correct). ``threshold`` overrides ``k``.
    threshold : float, optional
        Keep the features with |COR| > threshold. Unlike fixed k, this selection rule is
        exactly what the correction conditions on (ties at gamma carry no information).
    correct_selection : bool, default True
        Include the factor P(|COR| <= gamma | alpha)^(p - k).
    method : {"quadrature", "mcmc"}
        ``"quadrature"``: exact up to quadrature (alpha on prior quantiles, theta integrated
        per feature; :func:`selbayes.models.naive_bayes_quadrature.fit_naive_bayes_quadrature`),
        fast and deterministic. ``"mcmc"``: NUTS over (alpha, theta_1..k) in PyMC.
    priors : NaiveBayesPrior or dict, optional
        Fields ``alpha_shape``, ``alpha_scale`` (alpha ~ InverseGamma), ``f0``, ``f1``
        (psi ~ Beta(f1, f0)); default the thesis' 0.5, 5, 1, 1.
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
    alpha_draws_, theta_draws_ : ndarray, shapes (S,) and (S, k)
        Method "mcmc": the draws used for prediction.
    idata_ : xarray.DataTree
        ``attrs`` record the selection, priors and settings; method "mcmc" holds the posterior
        and sampler statistics, method "quadrature" the group ``alpha_grid``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes import BinaryNaiveBayesClassifier
    >>> from selbayes.simulate import binary_naive_bayes
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

    # ------------------------------------------------------------------ fitting
    def _prior(self):
        from .models.naive_bayes import prior_from_dict

        return prior_from_dict(self.priors)

    def _check_params(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {self.method!r}")
        from .models.naive_bayes_quadrature import QUADRATURE_PRESETS

        if self.quadrature not in QUADRATURE_PRESETS:
            raise ValueError(f"quadrature must be one of {tuple(QUADRATURE_PRESETS)}; got "
                             f"{self.quadrature!r}")
        if isinstance(self.k, str) and self.k != "all":
            raise ValueError(f"k must be an integer or 'all'; got {self.k!r}")

    def fit(self, X, y):
        """Select features by |correlation| on (X, y) and compute the posterior.

        Parameters
        ----------
        X : array-like of 0/1, shape (n_samples, p)
            All p binary features.
        y : array-like of shape (n_samples,)
            Binary class labels (any two sortable values).

        Returns
        -------
        self : BinaryNaiveBayesClassifier
            The fitted classifier (``classes_``, ``selection_``, ``idata_``, ...).

        Raises
        ------
        ValueError
            If ``X`` is not a finite 0/1 matrix, ``y`` does not have exactly two classes (or
            its length differs from ``X``), or a setting (``method``, ``quadrature``,
            ``k``) is invalid.
        ImportError
            If ``method="mcmc"`` and the requested ``sampler`` is not installed.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.simulate import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> clf.selection_.indices.shape
        (10,)
        """
        self._check_params()
        prior = self._prior()
        X = check_matrix(X)
        check_binary(X, name="X")
        classes, y_index, _ = check_labels(y, X.shape[0], min_per_class=1)
        if classes.shape[0] != 2:
            raise ValueError(f"y must be a binary class (exactly two labels); got "
                             f"{classes.shape[0]} classes {classes.tolist()[:10]}")
        if self.threshold is not None:
            selection = select_features(X, y_index, threshold=self.threshold,
                                        statistic="abs_corr")
        elif self.k == "all":
            selection = _select_all(X, y_index)
        else:
            selection = select_features(X, y_index, k=self.k, statistic="abs_corr")
        X_sel = X[:, selection.indices]
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        self.selection_ = selection
        ones1 = X_sel[y_index == 1].sum(axis=0)
        ones0 = X_sel[y_index == 0].sum(axis=0)
        self.counts_ = np.stack([ones0, ones1], axis=1).astype(np.int64)
        self.class_counts_ = np.asarray(selection.class_counts, dtype=np.int64)
        if self.method == "quadrature":
            self._fit_quadrature(X_sel, y_index, selection, prior)
        else:
            self._fit_mcmc(X_sel, y_index, selection, prior)
        self._record(prior)
        return self

    def _fit_quadrature(self, X_sel, y01, selection, prior) -> None:
        import xarray as xr

        from .models.naive_bayes_quadrature import fit_naive_bayes_quadrature

        fit = fit_naive_bayes_quadrature(X_sel, y01, selection,
                                         corrected=bool(self.correct_selection), prior=prior,
                                         quadrature=self.quadrature)
        self.quadrature_fit_ = fit
        self.sampler_used_ = None
        self.idata_ = xr.DataTree(children={"alpha_grid": xr.DataTree(_grid_dataset(fit))})

    def _fit_mcmc(self, X_sel, y01, selection, prior) -> None:
        import pymc as pm

        from .models.naive_bayes import _model_from_data, model_data, sample_nutpie

        self.sampler_used_ = _require_sampler(self.sampler)
        data = model_data(X_sel, y01, selection.n_omitted, selection.threshold,
                          corrected=bool(self.correct_selection))
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
            kwargs = dict(draws=self.draws, tune=self.tune, chains=self.chains,
                          random_seed=seed, progressbar=self.progressbar,
                          nuts={"target_accept": self.target_accept})
            if self.sampler_used_ == "pymc":
                kwargs.update(nuts_sampler="pymc", cores=min(self.chains, os.cpu_count() or 1))
            else:
                kwargs.update(nuts_sampler=self.sampler_used_)
            with model, warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*invalid value encountered.*")
                idata = pm.sample(**kwargs, compute_convergence_checks=False)
        self.idata_ = idata
        self.model_ = model
        alpha = idata.posterior["alpha"].transpose("chain", "draw").values.reshape(-1)
        theta = idata.posterior["theta"].transpose("chain", "draw", "feature").values
        theta = theta.reshape(-1, theta.shape[-1])
        if self.max_predict_draws is not None and alpha.shape[0] > self.max_predict_draws:
            keep = np.linspace(0, alpha.shape[0] - 1, self.max_predict_draws).round().astype(int)
            alpha, theta = alpha[keep], theta[keep]
        self.alpha_draws_ = alpha
        self.theta_draws_ = theta
        try:
            from .diagnostics import check
        except ImportError:  # pragma: no cover
            return
        self.diagnostics_ = check(self.idata_, var_names=["alpha", "theta"])

    # ------------------------------------------------------------------ provenance
    def _config(self) -> dict:
        from .models.naive_bayes import prior_to_dict

        params = self.get_params(deep=False)
        params["priors"] = prior_to_dict(self._prior())
        if isinstance(params["random_state"], np.random.Generator | np.random.SeedSequence):
            params["random_state"] = None
        return params

    def _record(self, prior) -> None:
        import xarray as xr

        attrs = {**self._provenance_attrs(), "selbayes_method": self.method,
                 "selbayes_corrected": int(bool(self.correct_selection))}
        if self.method == "quadrature":
            attrs["selbayes_quadrature_settings"] = json.dumps(self.quadrature_fit_.settings)
        self.idata_.attrs.update(attrs)
        ds = xr.Dataset({
            **self._selection_data(),
            "train_counts": xr.DataArray(self.counts_, dims=["selected", "class_index"]),
        })
        if "constant_data" in self.idata_.children:
            merged = self.idata_["constant_data"].to_dataset().merge(ds, compat="override")
            self.idata_["constant_data"] = xr.DataTree(merged)
        else:
            self.idata_["constant_data"] = xr.DataTree(ds)

    # ------------------------------------------------------------------ prediction
    def _selected_test(self, X) -> np.ndarray:
        check_is_fitted(self, "selection_")
        X = check_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the classifier was fitted on "
                f"{self.n_features_in_}; pass all features (selection happens inside)")
        check_binary(X, name="X")
        return X[:, self.selection_.indices]

    def predict_log_proba(self, X) -> np.ndarray:
        """Log predictive class probabilities log P(y* = c | x*, training data[, selection]).

        Method "quadrature" sums over the alpha grid with theta integrated per feature; method
        "mcmc" averages over the thinned posterior draws.

        Parameters
        ----------
        X : array-like of 0/1, shape (n_samples, p)
            All p binary features (the same columns as in ``fit``; selection happens inside).

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Natural-log probabilities, columns in ``classes_`` order; ``exp`` of each row sums
            to 1.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``X`` is not a 0/1 matrix with ``n_features_in_`` columns.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.simulate import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> lp = clf.predict_log_proba(d.X[:3])
        >>> lp.shape, bool(np.allclose(np.exp(lp).sum(axis=1), 1))
        ((3, 2), True)
        """
        Xs = self._selected_test(X)
        if self.method == "quadrature":
            return self.quadrature_fit_.predict_log_proba(Xs)
        from .models.naive_bayes import predictive_log_proba

        return predictive_log_proba(Xs, self.alpha_draws_, self.theta_draws_, self.counts_,
                                    self.class_counts_, self._prior())

    def predict_proba(self, X) -> np.ndarray:
        """Predictive class probabilities P(y* = c | x*, training data[, selection]).

        Parameters
        ----------
        X : array-like of 0/1, shape (n_samples, p)
            All p binary features (selection happens inside).

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Probabilities in ``classes_`` order; rows sum to 1.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``X`` is not a 0/1 matrix with ``n_features_in_`` columns.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.simulate import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> clf.predict_proba(d.X[:3]).shape
        (3, 2)
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X, loss=None) -> np.ndarray:
        """Bayes decision: the class minimising expected loss (argmax probability if no loss).

        Parameters
        ----------
        X : array-like of 0/1, shape (n_samples, p)
            All p binary features (selection happens inside).
        loss : array-like of shape (2, 2), optional
            ``loss[i, j]`` is the loss when the truth is class i and the guess is class j.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels, drawn from ``classes_``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``loss`` does not have shape (2, 2) or ``X`` is not a 0/1 matrix with
            ``n_features_in_`` columns.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.simulate import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> bool(set(clf.predict(d.X, loss=[[0, 1], [5, 0]])) <= set(clf.classes_))
        True
        """
        return self._decide(self.predict_proba(X), loss)

    # ------------------------------------------------------------------ persistence
    def save(self, path) -> Path:
        """Write the fitted classifier (its ArviZ result, with attrs) to netCDF (h5netcdf).

        Method "quadrature" also stores the per-node predictive tables, method "mcmc" the
        thinned draws, so :meth:`load` can predict without refitting.

        Parameters
        ----------
        path : str or os.PathLike
            Destination file (conventionally ``*.nc``); overwritten if it exists.

        Returns
        -------
        pathlib.Path
            ``path`` as a Path.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.simulate import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> import os, tempfile
        >>> path = clf.save(os.path.join(tempfile.mkdtemp(), "nb.nc"))
        >>> again = BinaryNaiveBayesClassifier.load(path)
        >>> bool(np.allclose(again.predict_proba(d.X), clf.predict_proba(d.X)))
        True
        """
        import xarray as xr

        check_is_fitted(self, "idata_")
        path = Path(path)
        tree = self.idata_.copy()
        if self.method == "quadrature":
            tree["quadrature_internal"] = xr.DataTree(xr.Dataset({
                "log_pi": xr.DataArray(self.quadrature_fit_._log_pi,
                                       dims=["class_index", "x_value", "alpha_node", "selected"])
            }))
        else:
            tree["predictive_draws"] = xr.DataTree(xr.Dataset({
                "alpha": xr.DataArray(self.alpha_draws_, dims=["sample"]),
                "theta": xr.DataArray(self.theta_draws_, dims=["sample", "selected"]),
            }))
        sanitize_attrs(tree)
        tree.to_netcdf(path, engine="h5netcdf")
        return path

    @classmethod
    def load(cls, path) -> BinaryNaiveBayesClassifier:
        """Read a classifier written by :meth:`save`, checking the version and model id.

        Parameters
        ----------
        path : str or os.PathLike
            A netCDF file written by :meth:`save`.

        Returns
        -------
        BinaryNaiveBayesClassifier
            A fitted classifier whose predictions equal those of the saved one.

        Raises
        ------
        ValueError
            If the file holds another estimator, was written by a selbayes version with a
            different major.minor, or its settings no longer match its model id.
        FileNotFoundError
            If ``path`` does not exist.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.simulate import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> import os, tempfile
        >>> path = clf.save(os.path.join(tempfile.mkdtemp(), "nb.nc"))
        >>> BinaryNaiveBayesClassifier.load(path).classes_.tolist()
        [0, 1]
        """
        tree, obj, cd = cls._open_saved(path)
        attrs = tree.attrs
        obj.counts_ = cd["train_counts"].values.astype(np.int64)
        obj.class_counts_ = obj.selection_.class_counts
        if obj.method == "quadrature":
            obj.quadrature_fit_ = _grid_fit(tree, obj, attrs)
            obj.sampler_used_ = None
            del tree["quadrature_internal"]
        else:
            draws = tree["predictive_draws"].to_dataset()
            obj.alpha_draws_ = draws["alpha"].values
            obj.theta_draws_ = draws["theta"].values
            del tree["predictive_draws"]
        obj.idata_ = tree
        return obj


def _select_all(X, y_index) -> Selection:
    """A Selection that keeps every feature (ranked by |COR|, nothing omitted)."""
    p = X.shape[1]
    scores = abs_correlation(X, y_index)
    order = np.lexsort((np.arange(p), -scores))
    counts = np.bincount(y_index, minlength=2).astype(np.int64)
    return Selection(indices=order.astype(np.int64), scores=scores,
                     threshold=float(scores[order[-1]]), n_features=p, n_selected=p,
                     statistic="abs_corr", class_counts=counts, classes=np.array([0, 1]),
                     rule="all", n_ties_at_threshold=0)


def _grid_dataset(fit):
    import xarray as xr

    K = fit.alpha_grid.shape[0]
    log_pkeep = fit.log_pkeep if fit.log_pkeep is not None else np.full(K, np.nan)
    return xr.Dataset({
        "alpha": xr.DataArray(fit.alpha_grid, dims=["alpha_node"]),
        "log_weight": xr.DataArray(fit.log_alpha_weights, dims=["alpha_node"]),
        "log_likelihood": xr.DataArray(fit.log_likelihood, dims=["alpha_node"]),
        "log_adjustment": xr.DataArray(fit.log_adjustment, dims=["alpha_node"]),
        "log_pkeep": xr.DataArray(log_pkeep, dims=["alpha_node"]),
    }, attrs={"psi_hat": float(fit.psi_hat), "n_omitted": int(fit.n_omitted),
              "corrected": int(fit.corrected),
              "threshold": np.nan if fit.threshold is None else float(fit.threshold)})


def _grid_fit(tree, obj, attrs):
    from .models.naive_bayes_quadrature import NaiveBayesQuadratureFit

    grid = tree["alpha_grid"].to_dataset()
    log_pkeep = grid["log_pkeep"].values
    thr = float(grid.attrs["threshold"])
    return NaiveBayesQuadratureFit(
        alpha_grid=grid["alpha"].values, log_alpha_weights=grid["log_weight"].values,
        log_likelihood=grid["log_likelihood"].values,
        log_adjustment=grid["log_adjustment"].values,
        log_pkeep=None if np.all(np.isnan(log_pkeep)) else log_pkeep,
        psi_hat=float(grid.attrs["psi_hat"]), class_counts=tuple(int(c) for c in
                                                                 obj.class_counts_),
        corrected=bool(int(grid.attrs["corrected"])), n_omitted=int(grid.attrs["n_omitted"]),
        threshold=None if np.isnan(thr) else thr, prior=obj._prior(),
        settings=json.loads(attrs["selbayes_quadrature_settings"]),
        _log_pi=tree["quadrature_internal"].to_dataset()["log_pi"].values)
