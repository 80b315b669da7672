"""scikit-learn style estimator: the hierarchical Gaussian classifier with selection correction."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator import EvaluateMixin, PersistenceMixin, sanitize_attrs
from ._validation import check_labels, check_matrix
from .selection import Selection, select_features
from .transforms import Decorrelation

__all__ = ["HierarchicalGaussianClassifier", "SAMPLERS"]

SAMPLERS = {"auto": None, "pymc": None, "nutpie": "nutpie", "numpyro": "numpyro",
            "blackjax": "blackjax"}
_EXTRA = {"nutpie": "nutpie", "numpyro": "numpyro", "blackjax": "blackjax"}


def _require_sampler(sampler: str) -> str:
    """Return the NUTS implementation to use, raising if it is unknown or not installed."""
    import importlib.util

    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {sorted(SAMPLERS)}; got {sampler!r}")
    if sampler == "auto":
        return "nutpie" if importlib.util.find_spec("nutpie") is not None else "pymc"
    module = SAMPLERS[sampler]
    if module is None:
        return sampler
    if importlib.util.find_spec(module) is None:
        raise ImportError(
            f"sampler {sampler!r} needs the package {module!r}, which is not installed; "
            f"install it with: pip install 'selbayes[{_EXTRA[sampler]}]'"
        )
    return sampler


class HierarchicalGaussianClassifier(EvaluateMixin, PersistenceMixin, ClassifierMixin,
                                     BaseEstimator):
    """Hierarchical Bayesian Gaussian classifier that conditions on F-statistic selection.

    ``fit`` takes all p features, selects k of them by the one-way F statistic (so selection is
    internal to any cross-validation), and samples the posterior of the model of seed 000
    (see :mod:`selbayes.models.gaussian`). With ``correct_selection=True`` the posterior also
    conditions on the p - k omitted features having F <= gamma, which keeps the predictive
    probabilities calibrated.

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
        (seed 000 eq 12) fitted on the training data before selecting.
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
    idata_ : xarray.DataTree
        The ArviZ result; ``idata_.attrs`` and its ``constant_data`` record the selection, the
        priors and the sampler settings.
    n_features_in_ : int

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

    # ------------------------------------------------------------------ fitting
    def _priors(self):
        from .models.priors import GaussianPriors

        return GaussianPriors.from_dict(self.priors)

    def fit(self, X, y):
        """Select features on (X, y), build the model and sample its posterior.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features.
        y : array-like of shape (n_samples,)
            Class labels (any sortable hashable values).

        Returns
        -------
        self : HierarchicalGaussianClassifier
            The fitted classifier (``classes_``, ``selection_``, ``idata_``, ...).

        Raises
        ------
        ValueError
            If ``sampler`` is unknown, ``k`` is neither an integer nor "all", or ``X``/``y``
            are malformed (non-finite, mismatched lengths, a class with too few cases).
        ImportError
            If the requested ``sampler`` needs a package that is not installed.

        Warns
        -----
        selbayes.diagnostics.SamplingWarning
            If the sampler diagnostics (divergences, R-hat, ESS) look bad.

        Examples
        --------
        >>> from selbayes import HierarchicalGaussianClassifier
        >>> from selbayes.simulate import gaussian_classification
        >>> d = gaussian_classification(40, 200, 2, random_state=0)      # doctest: +SKIP
        >>> clf = HierarchicalGaussianClassifier(k=5, draws=200, tune=200, chains=2,
        ...                                      random_state=0).fit(d.X, d.y)  # doctest: +SKIP
        >>> clf.selection_.indices.shape                                  # doctest: +SKIP
        (5,)
        """
        self.sampler_used_ = _require_sampler(self.sampler)
        priors = self._priors()
        X = check_matrix(X)
        classes, y_index, _ = check_labels(y, X.shape[0])
        k, threshold = self.k, self.threshold
        if threshold is not None:
            k = None
        Xs = X
        transform = None
        if self.decorrelate is not None:
            transform = Decorrelation(self.decorrelate).fit(X, y_index, len(classes))
            Xs = transform.transform(X)
        if isinstance(k, str):
            if k != "all":
                raise ValueError(f"k must be an integer or 'all'; got {k!r}")
            selection = _select_all(Xs, classes[y_index])
        else:
            selection = select_features(Xs, classes[y_index], k=k, threshold=threshold,
                                        statistic="f")
        X_sel = Xs[:, selection.indices]
        self._fit_selected(X_sel, classes[y_index], selection, priors)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        self.selection_ = selection
        self.transform_rows_ = None if transform is None else transform.rows(selection.indices)
        self._record(priors)
        return self

    def _fit_selected(self, X_sel, y, selection: Selection, priors) -> None:
        import pymc as pm

        from .models.gaussian import build_model, draw_class_means, model_data, sample_nutpie

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
            kwargs = dict(draws=self.draws, tune=self.tune, chains=self.chains,
                          random_seed=seed, progressbar=self.progressbar,
                          nuts={"target_accept": self.target_accept})
            if self.sampler_used_ == "pymc":
                # pymc 6 picks nutpie by itself when installed: name the sampler explicitly.
                kwargs.update(nuts_sampler="pymc", cores=min(self.chains, os.cpu_count() or 1))
            else:
                kwargs.update(nuts_sampler=self.sampler_used_)
            with model, warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*invalid value encountered.*")
                idata = pm.sample(**kwargs, compute_convergence_checks=False)
            if self.parameterization == "marginal":
                draw_class_means(idata, data, priors, random_state=seed)
        self.idata_ = idata
        self.model_ = model
        self._store_predictive(idata, data)
        self._warn_diagnostics()

    def _store_predictive(self, idata, data: dict) -> None:
        """Per-draw predictive moments with mu integrated out (Rao-Blackwellised; see
        :func:`selbayes.models.gaussian.predictive_moments`), on evenly thinned draws."""
        from .models.gaussian import predictive_moments

        post = idata.posterior

        def flat(name):
            v = post[name].values
            return v.reshape(-1, *v.shape[2:])

        n_draws = flat("tau_mu").shape[0]
        keep = np.arange(n_draws)
        if self.max_predict_draws is not None and n_draws > self.max_predict_draws:
            keep = np.linspace(0, n_draws - 1, self.max_predict_draws).round().astype(int)
        lam = flat("lambda_mu")[keep] if "lambda_mu" in post else None
        self.pred_mean_, self.pred_precision_ = predictive_moments(
            flat("tau_x")[keep], flat("tau_mu")[keep], flat("tau_nu")[keep], data["xbar_obs"],
            data["class_counts"], lambda_mu=lam)

    def _warn_diagnostics(self) -> None:
        try:
            from .diagnostics import check
        except ImportError:  # pragma: no cover - diagnostics module missing
            return
        self.diagnostics_ = check(self.idata_, var_names=["tau_mu", "tau_nu", "tau_x"])

    # ------------------------------------------------------------------ provenance
    def _config(self) -> dict:
        params = self.get_params(deep=False)
        params["priors"] = self._priors().to_dict()
        return params

    def _record(self, priors) -> None:
        self.idata_.attrs.update(self._provenance_attrs())
        import xarray as xr

        cd = self._selection_data()
        if self.transform_rows_ is not None:
            cd["transform_rows"] = xr.DataArray(self.transform_rows_,
                                                dims=["selected", "all_features"])
        ds = xr.Dataset(cd)
        if "constant_data" in self.idata_.children:
            merged = self.idata_["constant_data"].to_dataset().merge(ds)
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
                f"{self.n_features_in_}; pass all features (selection happens inside)"
            )
        if self.transform_rows_ is not None:
            return X @ self.transform_rows_.T
        return X[:, self.selection_.indices]

    def predict_log_proba(self, X) -> np.ndarray:
        """Log predictive class probabilities log P(y* = g | x*, training data, selection).

        Averages the per-draw Student-t / Gaussian predictive densities of the selected
        features over the (thinned) posterior draws, with the class means integrated out.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features (the same columns as in ``fit``; selection happens inside).

        Returns
        -------
        ndarray of shape (n_samples, G)
            Natural-log probabilities, columns in ``classes_`` order; ``exp`` of each row sums
            to 1.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``X`` is not a finite 2-D array with ``n_features_in_`` columns.

        Examples
        --------
        >>> lp = clf.predict_log_proba(X_test)          # doctest: +SKIP
        >>> lp.shape == (len(X_test), len(clf.classes_))  # doctest: +SKIP
        True
        """
        from .models.gaussian import class_log_prior, predictive_log_proba

        Xs = self._selected_test(X)
        lp = class_log_prior(self.selection_.class_counts, self._priors().c)
        return predictive_log_proba(Xs, self.pred_mean_, self.pred_precision_, lp)

    def predict_proba(self, X) -> np.ndarray:
        """Predictive class probabilities P(y* = g | x*, training data, selection).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features (selection happens inside).

        Returns
        -------
        ndarray of shape (n_samples, G)
            Probabilities in ``classes_`` order; rows sum to 1.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``X`` is not a finite 2-D array with ``n_features_in_`` columns.

        Examples
        --------
        >>> clf.predict_proba(X_test).sum(axis=1)      # doctest: +SKIP
        array([1., 1., ...])
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X, loss=None) -> np.ndarray:
        """Bayes decision: the class of least expected loss (the most probable when loss is None).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features (selection happens inside).
        loss : array-like of shape (G, G), optional
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
            If ``loss`` does not have shape (G, G) or ``X`` has the wrong number of columns.

        Examples
        --------
        >>> clf.predict(X_test, loss=[[0, 1], [10, 0]])   # doctest: +SKIP
        """
        return self._decide(self.predict_proba(X), loss)

    # ------------------------------------------------------------------ persistence
    def save(self, path) -> Path:
        """Write the fitted classifier (its ArviZ result, with attrs) to netCDF (h5netcdf).

        The file holds ``idata_`` (posterior, sampler stats, ``constant_data`` with the
        selection), the provenance attrs (version, settings, model id) and the thinned
        predictive moments, so :meth:`load` can predict without refitting.

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
        >>> clf.save("model.nc")                                        # doctest: +SKIP
        PosixPath('model.nc')
        >>> HierarchicalGaussianClassifier.load("model.nc").predict(X_test)  # doctest: +SKIP
        """
        check_is_fitted(self, "idata_")
        path = Path(path)
        tree = self.idata_.copy()
        tree["predictive_draws"] = _draws_tree(self.pred_mean_, self.pred_precision_)
        sanitize_attrs(tree)
        tree.to_netcdf(path, engine="h5netcdf")
        return path

    @classmethod
    def load(cls, path) -> HierarchicalGaussianClassifier:
        """Read a classifier written by :meth:`save`, checking the version and model id.

        Parameters
        ----------
        path : str or os.PathLike
            A netCDF file written by :meth:`save`.

        Returns
        -------
        HierarchicalGaussianClassifier
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
        >>> clf = HierarchicalGaussianClassifier.load("model.nc")   # doctest: +SKIP
        """
        tree, obj, cd = cls._open_saved(path)
        obj.transform_rows_ = (cd["transform_rows"].values if "transform_rows" in cd else None)
        draws = tree["predictive_draws"].to_dataset()
        obj.pred_mean_ = draws["mean"].values
        obj.pred_precision_ = draws["precision"].values
        del tree["predictive_draws"]
        obj.idata_ = tree
        return obj


def _select_all(X, y) -> Selection:
    """A Selection that keeps every feature (ranked by F, nothing omitted)."""
    p = X.shape[1]
    base = select_features(X, y, k=1, statistic="f")
    order = np.lexsort((np.arange(p), -base.scores))
    return Selection(indices=order.astype(np.int64), scores=base.scores,
                     threshold=float(base.scores[order[-1]]), n_features=p, n_selected=p,
                     statistic="f", class_counts=base.class_counts, classes=base.classes,
                     rule="all", n_ties_at_threshold=0)


def _draws_tree(mean, precision):
    import xarray as xr

    dims = ["sample", "selected", "class_index"]
    return xr.DataTree(xr.Dataset({"mean": xr.DataArray(mean, dims=dims),
                                   "precision": xr.DataArray(precision, dims=dims)}))
