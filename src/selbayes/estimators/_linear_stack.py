"""The Gaussian classifier stacked with a Bayesian probit regression on all features.

Where the class difference is a linear function of many correlated genes, a model of the few
genes with the largest F statistics loses to a linear model of all of them (on plasmode data:
reports/plasmode, the gap to L2 logistic regression in plasmode_dense and plasmode_module).
Three ways of putting the kept genes' correlation into the Gaussian model's predictive did not
close it. A second model does: :class:`LinearStackedClassifier` fits the selection-corrected
classifier as usual and, beside it, the Bayesian probit regression of all features of
:func:`selbayes.models.fit_linear_probit` (expectation propagation, its prior scale
integrated over). The two are weighted by stacking (Yao, Vehtari, Simpson and Gelman 2018) on
the inner test cases that chose k: the Gaussian model's losses there are those of its chosen
candidate, the probit model is fitted on the same inner training folds. Where a few genes
carry strong effects the weight stays on the Gaussian model (the probit model of all genes is
near a coin flip there); where the signal is spread it moves to the linear model. Offline, on
the plug-in posterior, this was better than the Gaussian model alone beyond 2 SE in
plasmode_dense, worse nowhere, and confirmed on new replicates and on held-out X
(reports/plasmode/bayes_linear_ep, bayes_linear_ep_confirm). Not the default until the
protocol with MCMC has run. Two classes only.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import check_matrix
from ._around_gaussian import AroundGaussian
from ._base import _dense, validate_params

__all__ = ["LinearStackedClassifier"]


class LinearStackedClassifier(AroundGaussian):
    """The hierarchical Gaussian classifier stacked with a Bayesian probit regression of all
    features (module docstring).

    ``fit`` fits ``estimator`` (``k="auto"``; its inner cross-validation chooses k and the
    label-noise share), then the probit model of all features on each of the same inner
    training folds, and computes the stacking weights of the two from the inner test cases'
    probabilities of their own class (:func:`selbayes.estimators.stacking_weights`). The probit
    model is refitted on all training cases; ``predict_proba`` is the weighted average of the
    two predictive distributions. The probit model costs a few seconds (n x n matrices
    whatever the number of features).

    Parameters
    ----------
    estimator : HierarchicalGaussianClassifier, optional
        The selection-corrected model, with ``k="auto"`` (the default
        ``HierarchicalGaussianClassifier()``).

    Attributes
    ----------
    estimator_ : HierarchicalGaussianClassifier
        The fitted Gaussian model.
    linear_ : selbayes.models.LinearProbitFit
        The probit model of all features, fitted on all training cases.
    weights_ : ndarray of shape (2,)
        Stacking weights of the Gaussian model and of the probit model (sum 1).
    inner_scores_ : dict
        Mean inner log loss (nats) of ``"gaussian"`` (its chosen candidate and share),
        ``"linear"`` and ``"stack"``.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.
    k_ : int
        The Gaussian model's k.

    References
    ----------
    Yao, Y., Vehtari, A., Simpson, D. and Gelman, A. (2018). Using stacking to average
    Bayesian predictive distributions. Bayesian Analysis 13, 917-1007. Rasmussen, C. E. and
    Williams, C. K. I. (2006). Gaussian Processes for Machine Learning, ch. 3.

    Examples
    --------
    >>> import numpy as np, warnings
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :5] += 1.2 * y[:, None]
    >>> base = HierarchicalGaussianClassifier(k_grid=(5, 20, 100), method="plugin",
    ...                                       progressbar=False, random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")                   # the fits' diagnostics
    ...     clf = LinearStackedClassifier(base).fit(X, y)
    >>> clf.predict_proba(X[:3]).shape, round(float(clf.weights_.sum()), 12)
    ((3, 2), 1.0)
    """

    _parameter_constraints: dict = {"estimator": "no_validation"}

    def __init__(self, estimator=None):
        self.estimator = estimator

    _WHY_K_AUTO = "its inner cross-validation gives the cases the stack is weighted on"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False      # the probit model is binary
        return tags

    def fit(self, X, y):
        """Fit the Gaussian model, the probit model of all features, and their weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
            Two classes.

        Returns
        -------
        self : LinearStackedClassifier

        Raises
        ------
        ValueError
            For a bad setting or input (named), as ``estimator.fit`` raises them; for more
            than two classes; for an ``estimator`` that does not choose k.
        TypeError
            If ``estimator`` is not a HierarchicalGaussianClassifier.
        """
        from scipy.special import logsumexp

        from .._validation import check_labels
        from ..models._linear_probit import fit_linear_probit
        from ._stacking import stacking_weights

        validate_params(self)
        base = self._base()
        Xd = _dense(check_matrix(X, accept_sparse=True))
        classes, yi, _ = check_labels(y, Xd.shape[0])
        if classes.size != 2:       # before the Gaussian fit, which would be wasted
            raise ValueError(f"LinearStackedClassifier has two classes only (its probit model "
                             f"of all features is binary); got {classes.size} classes. "
                             "Use HierarchicalGaussianClassifier for more.")
        first = base.fit(X, y)
        choice = first.k_choice_
        gauss_loss = choice._chosen_case_losses()
        lin_loss = np.zeros(yi.size)
        for tr, te in choice.extra["folds"]:
            lp = fit_linear_probit(Xd[tr], yi[tr]).predict_log_proba(Xd[te])
            lin_loss[te] = -lp[np.arange(te.size), yi[te]]
        L = np.vstack([gauss_loss, lin_loss])
        w = stacking_weights(-L)
        self.estimator_ = first
        self.linear_ = fit_linear_probit(Xd, yi)
        self.weights_ = np.asarray(w, dtype=np.float64)
        stack = -logsumexp(-L, b=self.weights_[:, None], axis=0)    # the mixture's losses
        self.inner_scores_ = {"gaussian": float(gauss_loss.mean()),
                              "linear": float(lin_loss.mean()), "stack": float(stack.mean())}
        return self._describe_data(first)

    @property
    def linear_weight_(self) -> float:
        """The stacking weight of the probit model of all features (``weights_[1]``)."""
        check_is_fitted(self, "weights_")
        return float(self.weights_[1])

    @property
    def t_df_(self):
        """The Gaussian model's t prior degrees of freedom (its ``t_df_``)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.t_df_

    @property
    def label_noise_(self):
        """The Gaussian model's label-noise share (its ``label_noise_``)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.label_noise_

    @property
    def selected_features_(self) -> np.ndarray:
        """The Gaussian model's selected features (the probit model uses all of them)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.selected_features_

    def predict_proba(self, X) -> np.ndarray:
        """The two models' predictive probabilities averaged with ``weights_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "estimator_")
        p_gauss = self.estimator_.predict_proba(X)
        p_lin = np.exp(self.linear_.predict_log_proba(_dense(check_matrix(X, accept_sparse=True))))
        return self.weights_[0] * p_gauss + self.weights_[1] * p_lin

    def save(self, path) -> Path:
        """Write the fitted classifier to one netCDF file (h5netcdf).

        The Gaussian model's saved fit is the group ``gaussian``; the probit model's training
        values, grid and sites are the group ``linear``; the weights are the root's.

        Parameters
        ----------
        path : str or os.PathLike
            Destination file (conventionally ``*.nc``); overwritten if it exists.

        Returns
        -------
        pathlib.Path

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        FileNotFoundError, IsADirectoryError
            If the folder of ``path`` does not exist, or ``path`` is a folder.
        """
        import xarray as xr

        check_is_fitted(self, "estimator_")
        lin = self.linear_
        nan = np.full(lin.Z.shape[0], np.nan)
        sites = [s if s is not None else (nan, nan) for s in lin.sites]
        linear = xr.Dataset({
            "mean": ("feature", lin.mean), "sd": ("feature", lin.sd),
            "keep": ("feature", lin.keep.astype(np.int8)),
            "Z": (("case", "kept"), lin.Z), "y": ("case", lin.y),
            "log_s": ("grid", lin.log_s), "grid_weight": ("grid", lin.weights),
            "site_nu": (("grid", "case"), np.stack([s[0] for s in sites])),
            "site_tau": (("grid", "case"), np.stack([s[1] for s in sites]))})
        root = xr.DataTree(xr.Dataset({"weight": ("model", self.weights_)}))
        root.attrs = {"selbayes_inner_scores": json.dumps(self.inner_scores_)}
        return self._write(path, root, {}, {"gaussian": self.estimator_._saved_tree(),
                                            "linear": xr.DataTree(linear)})

    @classmethod
    def load(cls, path):
        """Read a classifier written by :meth:`save`; its predictions equal the saved one's.

        Parameters
        ----------
        path : str or os.PathLike

        Returns
        -------
        LinearStackedClassifier

        Raises
        ------
        ValueError
            If the file holds another estimator, was written by a selbayes version with a
            different major.minor, or is not a readable selbayes fit.
        FileNotFoundError
            If ``path`` does not exist.
        """
        from ..models._linear_probit import LinearProbitFit

        tree, attrs, _, base = cls._read(path)
        try:
            obj = cls(base)
            obj.estimator_ = cls._load_gaussian(tree, "gaussian", path)
            ds = tree["linear"].to_dataset()
            nu, tau = ds["site_nu"].values, ds["site_tau"].values
            obj.linear_ = LinearProbitFit(
                mean=ds["mean"].values, sd=ds["sd"].values, keep=ds["keep"].values.astype(bool),
                Z=ds["Z"].values, y=ds["y"].values, log_s=ds["log_s"].values,
                weights=ds["grid_weight"].values,
                sites=[None if np.isnan(a).all() else (a, b)
                       for a, b in zip(nu, tau, strict=True)])
            obj.weights_ = tree.to_dataset()["weight"].values
            obj.inner_scores_ = json.loads(attrs["selbayes_inner_scores"])
        except (KeyError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not a readable selbayes fit: it lacks {exc}") from exc
        return obj._describe_data(obj.estimator_)

