"""scikit-learn style estimator for the binary mixture model corrected for correlation selection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator import EvaluateMixin, PersistenceMixin, sanitize_attrs
from ._validation import check_binary, check_labels, check_matrix
from .selection import select_features

__all__ = ["BinaryMixtureClassifier"]


class BinaryMixtureClassifier(EvaluateMixin, PersistenceMixin, ClassifierMixin,
                              BaseEstimator):
    """Two-component binary mixture classifier that conditions on correlation selection.

    ``fit`` takes all p binary features, keeps the k with the largest |correlation| with the
    binary class (:func:`selbayes.select_features` with ``statistic="abs_corr"``), and samples
    the posterior of the mixture model of seed 001 section 2.4 (see
    :mod:`selbayes.models.mixture`): each class is a mixture of latent clusters z. With
    ``correct_selection=True`` the posterior also conditions on the p - k omitted features having
    |Cor| <= gamma, through the factor P(|COR| <= gamma | alpha, N(z))^(p - k)
    (:mod:`selbayes.adjustment.mixture`), which depends on the latent labels.

    Parameters
    ----------
    k : int, optional
        Number of features to keep (1 <= k < p). ``threshold`` overrides it.
    threshold : float, optional
        Keep features with |Cor| > threshold.
    n_components : int, default 2
        Latent components per model; the thesis' model (and this implementation) has 2.
    correct_selection : bool, default True
        Include the selection adjustment factor.
    z_update : {"exact", "approximate"}, default "exact"
        "approximate" drops the factor from the latent-label updates (the R package's
        shortcut); the chain then does not target the corrected posterior.
    prior : MixturePrior or dict, optional
        Fitting prior (default: thesis values f0 = f1 = 1, alpha, alpha0 ~ IG(0.5, 5)).
    draws, tune, chains, thin : int
        MCMC settings per chain.
    label_sweeps, theta_steps : int
        Gibbs sweeps over z and Metropolis steps per theta in each iteration.
    n_theta : int, optional
        Theta nodes of the adjustment factor (default: converged).
    max_predict_draws : int or None, default 1000
        Posterior draws (evenly thinned) used for prediction; None uses all.
    random_state : int, optional
    progressbar : bool, default False

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` plays the role of y = 1.
    selection_ : Selection
    idata_ : xarray.DataTree
        Posterior (``alpha``, ``alpha0``, ``n_z1``, ``counts``, ...) with ``attrs`` recording
        the selection, the settings, the version and a model id.
    psi_hat_, phi_hat_ : ndarray
        Predictive draws (thinned): shapes (S,) and (S, 2, k + 1).
    diagnostics_ : pandas.DataFrame
        :func:`selbayes.diagnostics.check` of alpha and alpha0.
    n_features_in_ : int

    Examples
    --------
    >>> from selbayes.simulate import binary_mixture
    >>> d = binary_mixture(None, 500, class_counts=[60, 60], random_state=0)
    >>> clf = BinaryMixtureClassifier(k=5, draws=100, tune=50, chains=2, random_state=1)
    >>> clf.fit(d.X[:100], d.y[:100]).predict_proba(d.X[100:]).shape      # doctest: +SKIP
    (20, 2)
    """

    def __init__(self, k: int | None = 10, threshold: float | None = None,
                 n_components: int = 2, correct_selection: bool = True,
                 z_update: str = "exact", prior=None, draws: int = 1000, tune: int = 500,
                 chains: int = 4, thin: int = 1, label_sweeps: int = 1, theta_steps: int = 5,
                 n_theta: int | None = None, max_predict_draws: int | None = 1000,
                 random_state: int | None = None, progressbar: bool = False):
        self.k = k
        self.threshold = threshold
        self.n_components = n_components
        self.correct_selection = correct_selection
        self.z_update = z_update
        self.prior = prior
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.thin = thin
        self.label_sweeps = label_sweeps
        self.theta_steps = theta_steps
        self.n_theta = n_theta
        self.max_predict_draws = max_predict_draws
        self.random_state = random_state
        self.progressbar = progressbar

    # ------------------------------------------------------------------ fitting
    def _prior(self):
        from .models.mixture import MixturePrior

        return MixturePrior.from_dict(self.prior)

    def _check_params(self):
        if self.n_components != 2:
            raise ValueError(f"n_components must be 2 (the two-component mixture of seed 001); "
                             f"got {self.n_components!r}")
        if self.max_predict_draws is not None and (
                isinstance(self.max_predict_draws, bool)
                or not isinstance(self.max_predict_draws, int) or self.max_predict_draws < 1):
            raise ValueError(f"max_predict_draws must be a positive integer or None; got "
                             f"{self.max_predict_draws!r}")

    def fit(self, X, y):
        """Select features on (X, y) and sample the mixture posterior.

        Parameters
        ----------
        X : array-like of 0/1, shape (n_samples, p)
            All p binary features.
        y : array-like of shape (n_samples,)
            Two class labels (any sortable values); ``classes_[1]`` is the thesis' y = 1.

        Returns
        -------
        self : BinaryMixtureClassifier
            The fitted classifier (``classes_``, ``selection_``, ``idata_``, ...).

        Raises
        ------
        ValueError
            If ``X`` is not a finite 0/1 matrix, ``y`` does not have exactly two classes (or
            its length differs from ``X``), or a setting (``n_components``,
            ``max_predict_draws``, ``k``) is invalid.

        Examples
        --------
        >>> from selbayes import BinaryMixtureClassifier
        >>> from selbayes.simulate import binary_mixture
        >>> d = binary_mixture(None, 500, class_counts=[60, 60], random_state=0)
        >>> clf = BinaryMixtureClassifier(k=5, draws=100, tune=50, chains=2,
        ...                               random_state=1)
        >>> clf = clf.fit(d.X[:100], d.y[:100])                       # doctest: +SKIP
        """
        from .models.mixture import sample_mixture

        self._check_params()
        prior = self._prior()
        X = check_binary(check_matrix(X), name="X")
        classes, y_index, _ = check_labels(y, X.shape[0])
        if len(classes) != 2:
            raise ValueError(f"y must have exactly 2 classes; got {len(classes)}")
        k, threshold = self.k, self.threshold
        if threshold is not None:
            k = None
        selection = select_features(X, y_index, k=k, threshold=threshold,
                                    statistic="abs_corr")
        Xs = X[:, selection.indices]
        res = sample_mixture(
            Xs, y_index, n_omitted=selection.n_omitted, threshold=selection.threshold,
            corrected=self.correct_selection, z_update=self.z_update, prior=prior,
            draws=self.draws, tune=self.tune, chains=self.chains, thin=self.thin,
            label_sweeps=self.label_sweeps, theta_steps=self.theta_steps,
            n_theta=self.n_theta, random_state=self.random_state, progressbar=self.progressbar)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        self.selection_ = selection
        self.idata_ = res.idata
        psi = res.psi_hat.reshape(-1)
        phi = res.phi_hat.reshape(-1, *res.phi_hat.shape[2:])
        if self.max_predict_draws is not None and psi.shape[0] > self.max_predict_draws:
            keep = np.linspace(0, psi.shape[0] - 1, self.max_predict_draws).round().astype(int)
            psi, phi = psi[keep], phi[keep]
        self.psi_hat_, self.phi_hat_ = psi, phi
        self._record()
        from .diagnostics import check

        self.diagnostics_ = check(self.idata_, var_names=["alpha", "alpha0"])
        return self

    # ------------------------------------------------------------------ provenance
    def _config(self) -> dict:
        params = self.get_params(deep=False)
        params["prior"] = self._prior().__dict__.copy()
        return params

    def _record(self) -> None:
        import xarray as xr

        self.idata_.attrs.update(self._provenance_attrs())
        self.idata_["constant_data"] = xr.DataTree(xr.Dataset(self._selection_data()))

    # ------------------------------------------------------------------ prediction
    def _selected_test(self, X) -> np.ndarray:
        check_is_fitted(self, "selection_")
        X = check_binary(check_matrix(X), name="X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the classifier was fitted on "
                f"{self.n_features_in_}; pass all features (selection happens inside)")
        return X[:, self.selection_.indices]

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(y* = c | x*, training data, selection), shape (n_samples, 2), ``classes_`` order.

        A ratio of Monte Carlo averages over the posterior draws (spec 7.3, eq 2.85).

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
        >>> from selbayes import BinaryMixtureClassifier
        >>> from selbayes.simulate import binary_mixture
        >>> d = binary_mixture(None, 500, class_counts=[60, 60], random_state=0)
        >>> clf = BinaryMixtureClassifier(k=5, draws=100, tune=50, chains=2,
        ...                               random_state=1)
        >>> clf = clf.fit(d.X[:100], d.y[:100])                       # doctest: +SKIP
        >>> clf.predict_log_proba(d.X[100:]).shape                   # doctest: +SKIP
        (20, 2)
        """
        from .models.mixture import predict_log_proba

        return predict_log_proba(self._selected_test(X), self.psi_hat_, self.phi_hat_)

    def predict_proba(self, X) -> np.ndarray:
        """Predictive class probabilities P(y* = c | x*, training data, selection).

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
        >>> from selbayes import BinaryMixtureClassifier
        >>> from selbayes.simulate import binary_mixture
        >>> d = binary_mixture(None, 500, class_counts=[60, 60], random_state=0)
        >>> clf = BinaryMixtureClassifier(k=5, draws=100, tune=50, chains=2,
        ...                               random_state=1)
        >>> clf = clf.fit(d.X[:100], d.y[:100])                       # doctest: +SKIP
        >>> clf.predict_proba(d.X[100:]).sum(axis=1).round(6)      # doctest: +SKIP
        array([1., 1., ...])
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X, loss=None) -> np.ndarray:
        """Bayes decision: argmax probability, or the class minimising expected ``loss``.

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
        >>> from selbayes import BinaryMixtureClassifier
        >>> from selbayes.simulate import binary_mixture
        >>> d = binary_mixture(None, 500, class_counts=[60, 60], random_state=0)
        >>> clf = BinaryMixtureClassifier(k=5, draws=100, tune=50, chains=2,
        ...                               random_state=1)
        >>> clf = clf.fit(d.X[:100], d.y[:100])                       # doctest: +SKIP
        >>> clf.predict(d.X[100:], loss=[[0, 1], [5, 0]]).shape     # doctest: +SKIP
        (20,)
        """
        return self._decide(self.predict_proba(X), loss)

    # ------------------------------------------------------------------ persistence
    def save(self, path) -> Path:
        """Write the fitted classifier (its ArviZ result with attrs, predictive draws) to netCDF.

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
        >>> clf.save("mixture.nc")                                    # doctest: +SKIP
        PosixPath('mixture.nc')
        """
        import xarray as xr

        check_is_fitted(self, "idata_")
        path = Path(path)
        tree = self.idata_.copy()
        tree["predictive_draws"] = xr.DataTree(xr.Dataset({
            "psi_hat": xr.DataArray(self.psi_hat_, dims=["sample"]),
            "phi_hat": xr.DataArray(self.phi_hat_, dims=["sample", "component", "feature"]),
        }))
        sanitize_attrs(tree)
        tree.to_netcdf(path, engine="h5netcdf")
        return path

    @classmethod
    def load(cls, path) -> BinaryMixtureClassifier:
        """Read a classifier written by :meth:`save`, checking the version and model id.

        Parameters
        ----------
        path : str or os.PathLike
            A netCDF file written by :meth:`save`.

        Returns
        -------
        BinaryMixtureClassifier
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
        >>> clf = BinaryMixtureClassifier.load("mixture.nc")         # doctest: +SKIP
        """
        tree, obj, cd = cls._open_saved(path)
        draws = tree["predictive_draws"].to_dataset()
        obj.psi_hat_ = draws["psi_hat"].values
        obj.phi_hat_ = draws["phi_hat"].values
        del tree["predictive_draws"]
        obj.idata_ = tree
        return obj
