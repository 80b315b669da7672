"""What the classifiers built around a HierarchicalGaussianClassifier share.

:class:`~selbayes.estimators.StackedGaussianClassifier` (its candidates of k stacked) and
:class:`~selbayes.estimators.LinearStackedClassifier` (it and a probit model of all genes
stacked) both take a Gaussian classifier that chooses k, fit it, and average predictive
distributions. The checks of that estimator, the data attributes read off a fitted
Gaussian classifier, the predictions derived from ``predict_proba``, and ``save`` and
``load`` (one netCDF file with a group per Gaussian fit) are written once here; each subclass
adds its ``fit`` and three hooks: the stacked models' probabilities
(:meth:`_component_probas`), what it saves (:meth:`_saved_parts`) and how it is rebuilt from
that (:meth:`_restore`).
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._version import __version__
from ._base import EvaluateMixin, check_width
from ._persistence import (
    check_saved_by,
    read_saved_tree,
    sanitize_attrs,
    settings_json,
    user_params,
    write_saved_tree,
)

__all__ = ["AroundGaussian"]


class AroundGaussian(EvaluateMixin, ClassifierMixin, BaseEstimator):
    """Base of the classifiers that wrap a HierarchicalGaussianClassifier (module docstring).

    Subclasses set ``_WHY_K_AUTO`` (why the wrapped estimator must choose k) and
    ``_FITTED`` (the attribute ``fit`` sets), may extend :meth:`_base`'s checks, and implement
    :meth:`_component_probas` for :meth:`predict_proba`, and :meth:`_saved_parts` and
    :meth:`_restore` for :meth:`save` and :meth:`load`.

    Examples
    --------
    >>> from selbayes.estimators import StackedGaussianClassifier
    >>> issubclass(StackedGaussianClassifier, AroundGaussian)
    True
    """

    #: The end of the error for a wrapped estimator that does not choose k.
    _WHY_K_AUTO = "the wrapper needs its inner cross-validation"
    #: The attribute a fitted classifier has (checked before predicting or saving).
    _FITTED = "estimator_"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = True          # as the Gaussian classifier it wraps
        return tags

    def set_params(self, **params):
        """scikit-learn's ``set_params``; ``estimator__<setting>`` with ``estimator=None``
        (the default, built at ``fit``) names the way out rather than scikit-learn's
        "'NoneType' object has no attribute 'set_params'".

        Parameters
        ----------
        **params : dict
            Settings of the classifier, and ``estimator__<setting>`` of the wrapped one.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For an ``estimator__`` setting while ``estimator`` is None (and not given in the
            same call), or a setting the classifier does not have.
        """
        nested = sorted(key for key in params if key.startswith("estimator__"))
        if nested and params.get("estimator", self.estimator) is None:
            raise ValueError(
                f"{type(self).__name__}: {nested[0]} sets a setting of estimator, which is "
                "None (the default Gaussian classifier is built at fit); give it first: "
                "set_params(estimator=HierarchicalGaussianClassifier(), "
                f"{nested[0]}=...)")
        return super().set_params(**params)

    def _base(self):
        """A clone of ``estimator`` (the default Gaussian classifier when None), checked."""
        from ._gaussian import HierarchicalGaussianClassifier

        if self.estimator is None:
            return self._seeded(HierarchicalGaussianClassifier())
        if not isinstance(self.estimator, HierarchicalGaussianClassifier):
            raise TypeError(f"estimator must be a HierarchicalGaussianClassifier; got "
                            f"{type(self.estimator).__name__}")
        base = clone(self.estimator)
        if base.k != "auto" or base.threshold is not None:
            raise ValueError(f"estimator must choose k (k='auto', no threshold): "
                             f"{self._WHY_K_AUTO}; got k={base.k!r}, "
                             f"threshold={base.threshold!r}")
        return self._seeded(base)

    def _seeded(self, base):
        """``base`` with the classifier's ``random_state`` where one is given: the Gaussian
        model's seed is the one the whole fit draws from (its sampling and inner splits)."""
        if self.random_state is not None:
            base.set_params(random_state=self.random_state)
        return base

    def _describe_data(self, first):
        """``k_`` and the data attributes (classes, feature count and names), read off the
        fitted Gaussian classifier ``first`` (all fits saw the same X and y)."""
        self.k_ = int(first.k_)
        self.classes_ = first.classes_
        self.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            self.feature_names_in_ = first.feature_names_in_
        elif hasattr(self, "feature_names_in_"):    # a refit on an array: no stale names
            del self.feature_names_in_
        return self

    def predict_proba(self, X) -> np.ndarray:
        """The stacked models' predictive probabilities averaged with ``weights_``.

        sum_m ``weights_[m]`` p_m(x), each p_m a stacked model's ``predict_proba``. For
        :class:`~selbayes.estimators.LinearStackedClassifier`: the Gaussian classifier's
        (its posterior predictive, recalibrated by its temperature and label-noise share),
        the probit model's posterior predictive and, where its gate opened, L1 logistic
        regression's probabilities; for
        :class:`~selbayes.estimators.StackedGaussianClassifier`: the kept candidates'
        Gaussian fits.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features of ``fit``, in its order (a DataFrame's columns are checked by
            name: other or reordered columns are refused, naming them).

        Returns
        -------
        ndarray of shape (n_samples, G)
            Probabilities in ``classes_`` order; rows sum to 1.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the stack has not been fitted.
        ValueError
            If X has another number of features than in ``fit`` (or, for a DataFrame,
            other column names), or values a component refuses.
        """
        check_is_fitted(self, self._FITTED)
        # the components validate X (ragged lists, objects that refuse numpy's functions,
        # ...); only its width is checked here
        try:
            shape = np.shape(X)
        except (ValueError, TypeError):
            shape = ()
        if not hasattr(X, "columns") and len(shape) == 2:   # a frame's columns: by name
            check_width(shape[1], self.n_features_in_, type(self).__name__)
        with self._names_checked_here(X):
            probas = self._component_probas(X)
        return sum(w * p for w, p in zip(self.weights_, probas, strict=True))

    @contextmanager
    def _names_checked_here(self, X):
        """Run the components' predictions without their check of feature names, then check
        the names here: scikit-learn's warning (a DataFrame after a fit on an array, or the
        reverse) then names this classifier, not the component that happened to check (a
        user never built that ``HierarchicalGaussianClassifier`` by hand). The components'
        check is switched off through ``WRAPPER_CHECKS_NAMES`` (per thread), not a warnings
        filter, which other threads would see."""
        from sklearn.utils.validation import _check_feature_names

        from ._base import WRAPPER_CHECKS_NAMES, _names_view

        token = WRAPPER_CHECKS_NAMES.set(True)
        try:
            yield
        finally:
            WRAPPER_CHECKS_NAMES.reset(token)
        # reached only when the components accepted X (a frame's columns matched by name)
        _check_feature_names(self, _names_view(X), reset=False)

    def _component_probas(self, X) -> list:
        """Each stacked model's predictive probabilities of ``X``, (n_samples, G), in the
        order of ``weights_``."""
        raise NotImplementedError

    def predict_log_proba(self, X) -> np.ndarray:
        """Log of :meth:`predict_proba` (nats), shape (n_samples, G)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X, loss=None) -> np.ndarray:
        """The most probable class (or, with ``loss``, the Bayes decision), shape (n_samples,).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        loss : array-like of shape (G, G), optional
            ``loss[i, j]``: the loss when the truth is class i and the guess is class j.
        """
        return self._decide(self.predict_proba(X), loss)

    def save(self, path) -> Path:
        """Write the fitted classifier to one netCDF file (h5netcdf).

        Each Gaussian fit is a group of the file, as ``HierarchicalGaussianClassifier.save``
        writes it; what the classifier computed besides (weights, scores, another model) is
        the root's variables or a group of its own, and its settings and the wrapped
        estimator's are the root's attributes. The subclass's Notes list the
        groups. It holds training data (the Gaussian fits' labels and kept features; the
        stacked classifier's probit model, every feature standardised with the means and SDs
        that undo it): share it as you would the data.

        Parameters
        ----------
        path : str or os.PathLike
            Destination file (conventionally ``*.nc``); overwritten if it exists; ``~`` is
            the home folder.

        Returns
        -------
        pathlib.Path

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        FileNotFoundError, IsADirectoryError
            If the folder of ``path`` does not exist, or ``path`` is a folder.
        PermissionError, OSError
            If the file cannot be written there (no permission, a folder that takes no new
            files, a read-only or full disk), naming the reason.
        """
        check_is_fitted(self, self._FITTED)
        return self._write(path, *self._saved_parts())

    @classmethod
    def load(cls, path):
        """Read a classifier written by :meth:`save`; its predictions equal the saved one's.

        Parameters
        ----------
        path : str or os.PathLike
            A netCDF file written by :meth:`save`; ``~`` is the home folder.

        Returns
        -------
        The subclass's instance, fitted.

        Raises
        ------
        ValueError
            If the file holds another estimator, was written by a selbayes version with a
            different major.minor, or is not a readable selbayes fit.
        FileNotFoundError
            If ``path`` does not exist.
        """
        from ._persistence import _warn_saved_transform

        tree, attrs, config, base = cls._read(path)
        try:
            fitted = cls._restore(tree, attrs, config, base, path)
        except (KeyError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not a readable selbayes fit: it lacks {exc}") from exc
        # `selbayes fit --transform log2` marks the file's root: the stacked fit expects X
        # transformed as the Gaussian classifier's load says of its own file
        _warn_saved_transform(attrs, path)
        return fitted

    def _saved_parts(self):
        """(root, settings, groups) for :meth:`_write`: an xarray.DataTree of the subclass's
        own variables, its settings (dict), and name -> DataTree of the groups below."""
        raise NotImplementedError

    @classmethod
    def _restore(cls, tree, attrs: dict, config: dict, base, path):
        """The fitted classifier from :meth:`_read`'s output (a missing entry raises
        KeyError, which :meth:`load` reports naming ``path``)."""
        raise NotImplementedError

    def _write(self, path, root, settings: dict, groups: dict):
        """Write ``root`` (an xarray.DataTree of the subclass's own variables) with the
        settings and version as its attributes and ``groups`` (name -> DataTree, e.g. a
        Gaussian fit's ``_saved_tree()``) below it, to one netCDF file; the path written."""
        # the wrapped estimator's settings as given, so that the loaded stack's get_params
        # equals the fitted one's (files before 2026-12-07 hold its resolved settings)
        base = None if self.estimator is None else user_params(self.estimator)
        root.attrs = {"selbayes_version": __version__,
                      "selbayes_estimator": type(self).__name__,
                      "selbayes_config": settings_json({**settings, "estimator": base}),
                      **root.attrs}
        for name, tree in groups.items():
            root[name] = tree
        sanitize_attrs(root)
        return write_saved_tree(root, path)

    @classmethod
    def _read(cls, path):
        """(tree, its root attributes, the settings, the wrapped estimator or None) of a file
        written by :meth:`_write` for this class; errors name the file."""
        from ._gaussian import HierarchicalGaussianClassifier as HGC

        tree = read_saved_tree(path)
        attrs = tree.attrs
        check_saved_by(attrs, cls.__name__, path)
        try:
            config = json.loads(attrs["selbayes_config"])
        except (KeyError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not a readable selbayes fit: it lacks {exc}") from exc
        base = None if config.get("estimator") is None else HGC(**config["estimator"])
        return tree, attrs, config, base

    @staticmethod
    def _load_gaussian(tree, group: str, path):
        """The Gaussian classifier saved as group ``group`` of ``tree``."""
        from ._gaussian import HierarchicalGaussianClassifier as HGC

        source = f"{path} ({group})"
        return HGC._load_tree(*HGC._from_tree(tree[group].copy(), source), source)
