"""The base classifier every selbayes estimator derives from.

:class:`SelectionClassifier` owns, once for all models, what a scikit-learn classifier that
conditions on feature selection has to do: declarative parameter validation, input validation
(``n_features_in_`` and ``feature_names_in_`` with scikit-learn's semantics), the selection
rule (``k``, ``"all"`` or ``threshold``), the NUTS dispatch, thinning of the predictive
draws, provenance attributes, gene names and class labels as ``idata_`` coordinates,
``predict`` / ``predict_proba`` / ``predict_log_proba`` / ``evaluate``, ``save`` / ``load`` and
pickling. The parameter checks are in :mod:`selbayes.estimators._params`, the file format
and the checked half of ``load`` in :mod:`selbayes.estimators._persistence`. A model supplies
hooks only (the pattern of scikit-learn's ``_BaseNB`` and of pymc-marketing's
``ModelBuilder``):

``_prepare_features(X, y_index, classes, **given) -> (X, transform)``
    Transform all p training features before selection (default: none); ``transform`` is
    whatever the later hooks need from this step (default None).
``_fit_selected(X_sel, y_index, selection, transform) -> Posterior``
    Fit the posterior on the selected columns and return it (:class:`Posterior`: the ArviZ
    result, the compiled model if any, and what the later hooks need from the fit).
``_store_predictive(posterior)``
    Derive from ``idata_`` and the posterior what prediction needs (thinned draws, tables).
``_predict_log_proba_selected(X_sel)``
    Log predictive probabilities from the selected test columns.
``_predictive_state()`` / ``_restore_predictive(tree, constant_data)``
    The predictive state written by ``save`` (extra groups) and read back by ``load``.

Every hook returns what it computes and the next hook receives it as an argument: no state is
handed from one hook to the next through private attributes.
"""

from __future__ import annotations

import functools
import io
import json
import multiprocessing
import numbers
import os
import warnings
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import _check_feature_names, check_is_fitted

from .._interrupt import interrupts_reraised
from .._validation import (
    check_binary,
    check_labels,
    check_matrix,
    is_positions,
    labels_1d,
    warn_at_user,
    warn_if_misaligned,
    warn_of_label_variants,
)
from ..evaluation._calibration import bayes_decision, check_loss
from ..filters._selection import Selection, select_features
from ._params import Interval, StrOptions, validate_params
from ._persistence import (
    PersistenceMixin,
    sanitize_attrs,
    user_params,
    write_saved_tree,
)
from ._preselection import warn_if_preselected
from ._training_range import outside_range_message, rows_outside_training_range, training_range

__all__ = ["SelectionClassifier", "EvaluateMixin", "FarFromTrainingWarning", "SAMPLERS",
           "require_sampler", "Posterior"]

SAMPLERS = {"auto": None, "pymc": None, "nutpie": "nutpie", "numpyro": "numpyro",
            "blackjax": "blackjax"}


#: True while a classifier that wraps fitted SelectionClassifiers (the stacks) has them predict:
#: it checks the feature names itself, so that scikit-learn's warning about them (a DataFrame
#: after a fit on an array, or the reverse) names the wrapper the user built, not the
#: component that happened to check. A ContextVar, not a warnings filter: each thread has its
#: own value, where a filter set in one thread is seen (and can be left behind) by all.
WRAPPER_CHECKS_NAMES: ContextVar[bool] = ContextVar("selbayes_wrapper_checks_names",
                                                    default=False)

#: The tables of fit's checks that ``save`` writes and ``load`` restores, and the root
#: attribute that holds them (a JSON object of pandas' JSON tables).
_CHECK_TABLES = ("diagnostics_", "prior_checks_", "ppc_checks_", "loo_checks_",
                 "replicate_groups_")
_CHECK_TABLES_ATTR = "selbayes_check_tables"


class FarFromTrainingWarning(UserWarning):
    """Rows of X given to ``predict_proba`` lie far from the training data on most of the kept
    features: most often data on another scale or transformed otherwise than in ``fit``
    (raw intensities against a fit on log2 values, or log2 taken twice), or a strong batch
    effect. Their probabilities are extrapolations of the model, typically near 0 or 1."""


def require_sampler(sampler: str) -> str:
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
            f"install it with: pip install 'selbayes[{module}]'"
        )
    return sampler


@dataclass(kw_only=True)
class Posterior:
    """What ``_fit_selected`` returns: the fitted posterior of the selected features.

    A model subclasses it to add what its later hooks (``_store_predictive``, ``_add_checks``,
    ``_check_diagnostics``) need from the fit.

    Attributes
    ----------
    idata : xarray.DataTree
        The ArviZ result; becomes ``idata_``.
    model : pymc.Model, optional
        The compiled model; becomes ``model_`` when not None.
    X : ndarray of shape (n, k), optional
        The selected training features in the units the model was fitted in.
    case_names : sequence of length n, optional
        The training cases' sample ids (a DataFrame's index), for the checks' messages; set
        by ``fit``.
    y_index : ndarray of int, shape (n,), optional
        The training cases' class indices into ``classes_``, for the checks; set by ``fit``.

    Examples
    --------
    >>> Posterior(idata=None).model is None
    True
    """

    idata: Any
    model: Any = None
    X: Any = None
    case_names: Any = None
    y_index: Any = None


# ------------------------------------------------------------------------------ parameters
#: The one constraint of ``random_state`` in every estimator: an int seed >= 0 or None. An int
#: (not a Generator) is recorded in ``idata_.attrs``, so a saved fit says how to reproduce it,
#: and every sampler takes it (NumPy and PyMC refuse negative seeds).
RANDOM_STATE_CONSTRAINT = [Interval(numbers.Integral, 0, None, closed="left"), None]
#: The one constraint of ``sampler`` in every estimator: the NUTS implementation.
SAMPLER_CONSTRAINT = [StrOptions(set(SAMPLERS))]


# ------------------------------------------------------------------------------ mixins
def _label_type_hint(y: np.ndarray, classes: np.ndarray) -> str:
    """The end of :meth:`EvaluateMixin.evaluate`'s message where ``y`` names the classes in
    another type (text "0"/"1" for the numbers 0/1, as a file read by pandas or the command
    line's fit gives them): how to convert it; "" otherwise."""
    if {str(v) for v in np.unique(y)} - {str(c) for c in classes}:
        return ""
    if np.issubdtype(classes.dtype, np.number):
        kind = "float" if classes.dtype.kind == "f" else "int"
        return (": y holds text where the classifier's classes are numbers; convert it "
                f"(y.astype({kind}))")
    return ": y holds numbers where the classifier's classes are text; convert it (y.astype(str))"


class EvaluateMixin:
    """``evaluate(X, y)``: the calibration summary of a fitted classifier on labelled data;
    ``summary()``: what was fitted; and the Bayes decision shared by every ``predict``."""

    def summary(self) -> str:
        """What was fitted, in a few lines (what ``selbayes fit`` prints).

        Returns
        -------
        str
            The samples, features and classes; k and how it was chosen, the threshold gamma
            and the first kept features; the prior, temperature and label noise chosen; the
            MCMC diagnostics and the checks of the labels and replicates; for a stack, its
            weights and inner scores. Lines end with newlines; ``print`` it.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier is not fitted.

        Examples
        --------
        >>> from selbayes.estimators import LinearStackedClassifier
        >>> clf = LinearStackedClassifier().fit(X, y)                 # doctest: +SKIP
        >>> print(clf.summary())                                      # doctest: +SKIP
        fitted: HierarchicalGaussianClassifier, 40 samples x 300 features; classes a (20), b (20)
        k: 5 (chosen by 5-fold inner CV from 5, 10, 20, 50, 100, 200, 299); ...
        """
        from sklearn.utils.validation import check_is_fitted

        from ._summary import summary_lines

        check_is_fitted(self)
        return "\n".join(summary_lines(self))

    def _decide(self, proba: np.ndarray, loss=None) -> np.ndarray:
        """Labels of least expected loss (the most probable when ``loss`` is None)."""
        if loss is None:
            return self.classes_[np.argmax(proba, axis=1)]
        return self.classes_[bayes_decision(proba, check_loss(self._loss_by_class(loss),
                                                              len(self.classes_)))]

    def _loss_by_class(self, loss):
        """A loss DataFrame labelled by class, reordered to ``classes_`` (its labels must be
        the classes); any other loss as given (rows and columns in ``classes_`` order)."""
        import pandas as pd

        if not isinstance(loss, pd.DataFrame):
            return loss
        classes = list(self.classes_)
        for axis, labels in (("index (true classes)", loss.index),
                             ("columns (decisions)", loss.columns)):
            if sorted(map(str, labels)) != sorted(map(str, classes)) or labels.has_duplicates:
                raise ValueError(f"the loss DataFrame's {axis} are {[str(v) for v in labels]}; "
                                 f"they must be the classes {[str(c) for c in classes]} (any "
                                 "order), or pass an array in the order of classes_")
        by_str = {str(c): c for c in classes}
        relabel = {lab: by_str[str(lab)] for lab in [*loss.index, *loss.columns]}
        loss = loss.rename(index=relabel, columns=relabel)
        return loss.loc[classes, classes].to_numpy(dtype=np.float64)

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy on (X, y) (scikit-learn's ``score``; labels paired by position,
        with a warning when a Series ``y`` lists X's samples in another order; ``y`` checked
        as in :meth:`evaluate`)."""
        check_is_fitted(self, "classes_")
        y = self._labels_of(X, y)
        return super().score(X, y, sample_weight=sample_weight)

    def _labels_of(self, X, y) -> np.ndarray:
        """``y`` as a 1-D array of labels of ``classes_``, one per row of ``X`` (a warning
        where a Series lists X's samples in another order), or a ValueError that says what
        is wrong."""
        warn_if_misaligned(X, y)
        try:      # a one-column DataFrame (pd.read_csv(path, index_col=0)) or a column vector
            y = labels_1d(y)
        except ValueError:
            raise ValueError(f"y must be 1-D, one label per row of X; got shape "
                             f"{np.shape(y)}") from None
        n_rows = getattr(X, "shape", (len(X),))[0]
        if y.shape[0] != n_rows:
            raise ValueError(f"y has {y.shape[0]} label(s) for the {n_rows} rows of X; give "
                             "one label per row")
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if unseen.size:
            raise ValueError(
                f"y has label(s) {unseen.tolist()} that the classifier was not fitted on "
                f"(classes_: {self.classes_.tolist()})"
                + _label_type_hint(y, self.classes_))
        return y

    def evaluate(self, X, y, loss=None) -> dict:
        """Calibration summary on labelled data (error, expected error, AMLP, Brier, ECE).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
            Labels from ``classes_``; unseen labels raise ``ValueError``.
        loss : array-like of shape (G, G), optional
            Also report actual and expected loss of the Bayes decision under this loss;
            ``loss[i, j]`` is the loss when the truth is class i and the guess is class j, in
            the order of ``classes_``; a DataFrame labelled by class is reordered to it.

        Returns
        -------
        dict
            The keys of :func:`selbayes.evaluation.calibration_summary` (``error_rate``,
            ``expected_error_rate``, ``amlp`` in nats, ``brier``, ``ece``, ``error_gap_se``
            and ``error_gap_p_value`` (is the expected error further from the actual one than
            chance? see :func:`selbayes.evaluation.error_gap_test`), ``n``) and, when
            ``loss`` is given, ``expected_loss`` and ``actual_loss`` (see
            :func:`selbayes.evaluation.expected_vs_actual_loss`).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``y`` holds a label not in ``classes_``, or ``X``/``loss`` have the wrong shape.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.datasets import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> summary = clf.evaluate(d.X, d.y, loss=[[0, 1], [5, 0]])
        >>> sorted(summary)[:4]
        ['actual_loss', 'amlp', 'brier', 'ece']
        >>> 0 <= summary["error_rate"] <= 1
        True
        """
        from ..evaluation._calibration import calibration_summary, expected_vs_actual_loss

        check_is_fitted(self, "classes_")
        y = self._labels_of(X, y)
        proba = self.predict_proba(X)
        out = calibration_summary(proba, y, classes=self.classes_)
        if loss is not None:
            loss = check_loss(self._loss_by_class(loss), len(self.classes_))
            out.update(expected_vs_actual_loss(proba, y, loss, classes=self.classes_))
        return out


# ------------------------------------------------------------------------------ base class
class SelectionClassifier(EvaluateMixin, PersistenceMixin, ClassifierMixin, BaseEstimator):
    """Base of the selbayes classifiers: select features, fit the selected, predict.

    Subclasses set the class attributes and implement the hooks listed in the module
    docstring. ``fit`` runs, in this order: :meth:`_validate_params`,
    :meth:`_validate_training_data`, :meth:`_prepare_features`, :meth:`_resolve_selection`,
    :meth:`_fit_selected`, :meth:`_label_coords`, :meth:`_store_predictive`,
    :meth:`_add_checks`, :meth:`_record` and :meth:`_check_diagnostics`.
    """

    #: sklearn-style constraints, checked at the start of ``fit``; a model extends these.
    _parameter_constraints: dict = {
        "k": [Interval(numbers.Integral, 1, None, closed="left"), StrOptions({"all"}), None],
        "threshold": [Interval(numbers.Real, None, None, closed="neither"), None],
        "correct_selection": ["boolean"],
        "draws": [Interval(numbers.Integral, 1, None, closed="left")],
        "tune": [Interval(numbers.Integral, 0, None, closed="left")],
        "chains": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_predict_draws": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "progressbar": ["boolean"],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }
    #: the constraints of the NUTS settings, for models sampled with NUTS.
    _nuts_constraints: dict = {
        "sampler": SAMPLER_CONSTRAINT,
        "target_accept": [Interval(numbers.Real, 0, 1, closed="neither")],
    }
    #: seeds other than an int that a model still takes for one release, with a
    #: ``FutureWarning`` (its fit turns them into a ``numpy.random.Generator``).
    _deprecated_seed_types: tuple = ()
    #: the selection statistic (``"f"`` or ``"abs_corr"``).
    _statistic = "f"
    #: features must be 0/1.
    _binary_features = False
    #: exactly two classes.
    _binary_classes = False
    #: smallest number of training cases per class.
    _min_per_class = 2
    #: classes that need two training cases or more (where ``_min_per_class`` is 1).
    _min_classes_of_two = 0
    #: posterior variables checked by :func:`selbayes.evaluation.check` (None: no
    #: check).
    _diagnostic_vars: tuple | None = None
    #: name of the constructor parameter holding the priors.
    _priors_param = "priors"
    #: extra groups ``save`` writes for prediction; ``load`` removes them again.
    _internal_groups: tuple = ()

    # ------------------------------------------------------------------ hooks
    def _prepare_features(self, X, y_index, classes, **given):
        """Transform all p training features before selection (default: unchanged).

        Returns ``(X, transform)``: the features selection sees and whatever the later hooks
        need from this step (handed to ``_resolve_selection`` and ``_fit_selected``).
        ``given`` holds precomputed parts a caller may pass to ``_fit`` (default: none).
        """
        return X, None

    def _fit_selected(self, X_sel, y_index, selection: Selection,
                      transform) -> Posterior:  # pragma: no cover
        raise NotImplementedError

    def _store_predictive(self, posterior: Posterior) -> None:  # pragma: no cover
        raise NotImplementedError

    def _warn_far_from_training(self, X_sel, warned=()) -> None:
        """Hook: warn (:class:`FarFromTrainingWarning`) about rows of the selected test
        features far from the training data, other than the rows ``warned`` of already
        (:meth:`_warn_outside_training_range`); models whose inputs cannot be (0/1 data) do
        nothing."""

    def _warn_outside_training_range(self, X) -> np.ndarray:
        """Warn (:class:`FarFromTrainingWarning`) about rows of the validated test features
        outside the training range on most features (:mod:`._training_range`); return
        their positions. Fits without a stored range (0/1 or sparse data, files saved before
        2026-12-06) check nothing."""
        low = getattr(self, "data_min_", None)
        if low is None or hasattr(X, "toarray"):
            return np.array([], dtype=np.int64)
        n = int(self.selection_.class_counts.sum())
        rows, below, above = rows_outside_training_range(X, low, self.data_max_, n)
        if rows.size:
            warning = FarFromTrainingWarning(
                outside_range_message(rows, below, above, X.shape[0], n))
            warning.rows = rows.tolist()        # for a caller holding the ids (selbayes predict)
            warn_at_user(warning, FarFromTrainingWarning)
        return rows

    def _predict_log_proba_selected(self, X_sel) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _predictive_state(self) -> dict:  # pragma: no cover
        raise NotImplementedError

    def _restore_predictive(self, tree, constant_data) -> None:  # pragma: no cover
        raise NotImplementedError

    def _add_checks(self, posterior: Posterior, y_index) -> None:
        """Add ArviZ groups for model checking (``log_likelihood``, ``posterior_predictive``,
        ``observed_data``) to ``idata_`` (default: none)."""

    def _select_test_columns(self, X) -> np.ndarray:
        """The selected columns of validated test features (default: by index), dense."""
        return _dense(X[:, self.selection_.indices])

    def _extra_attrs(self) -> dict:
        """Model-specific attributes recorded on ``idata_`` (default: none)."""
        return {}

    def _extra_constant_data(self) -> dict:
        """Model-specific arrays for the ``constant_data`` group (default: none)."""
        return {}

    def _prior_object(self):  # pragma: no cover
        raise NotImplementedError

    def _priors_dict(self) -> dict:
        return self._prior_object().to_dict()

    # ------------------------------------------------------------------ validation
    def _validate_params(self, skip=()) -> None:
        """Check the settings (``_parameter_constraints``), then build the prior, so that a bad
        ``priors`` fails here, before any work, with the same message in every estimator
        (``PriorBase.from_dict``: ``"unknown prior setting(s) [...]; known: [...]"``)."""
        seed = self.get_params(deep=False).get("random_state")
        if self._deprecated_seed_types and isinstance(seed, self._deprecated_seed_types) \
                and not isinstance(seed, numbers.Integral):
            warn_at_user(f"{type(self).__name__}(random_state=<{type(seed).__name__}>) is "
                         "deprecated: give an int seed (recorded with the fit, as in the "
                         "other classifiers) or None; other seeds will be refused in the "
                         "next release", FutureWarning)
            skip = (*skip, "random_state")
        validate_params(self, skip=skip)
        self._warn_if_k_unused()
        self._prior_object()

    def _warn_if_k_unused(self) -> None:
        """A ``threshold`` overrides ``k`` (the Parameters say so); a ``k`` given besides it,
        other than the class's default, is not used, and the user who set both meant one of
        them: say which one counts."""
        import inspect

        threshold = getattr(self, "threshold", None)
        k_param = inspect.signature(type(self).__init__).parameters.get("k")
        if threshold is None or k_param is None or getattr(self, "k", None) is None:
            return                                  # a subclass without k, or no threshold
        default = k_param.default
        if not _same_setting(self.k, default):
            warn_at_user(f"{type(self).__name__}(k={self.k!r}, threshold={threshold!r}): the "
                         "threshold overrides k, so k is not used: leave k at its default "
                         f"({default!r}), or set threshold=None to keep k={self.k!r}",
                         UserWarning)

    def _validate_training_data(self, X, y):
        """Validate (X, y); record ``n_features_in_`` and ``feature_names_in_``."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y "
                             "is None")
        _check_target_type(y)
        names = _column_names(X)
        dup = pd_index_duplicates(names) if names is not None else []
        if dup:
            # as read_table and the command line do: names that cannot identify a column
            # would leave predict taking the columns by position, unchecked (1 and "1" are
            # one name once names are strings)
            raise ValueError(f"X has {len(dup)} duplicated column name(s): {dup[:10]}; gene "
                             "names must be unique: rename or drop them (e.g. "
                             "X.loc[:, ~X.columns.duplicated()]), or pass X.to_numpy()")
        warn_if_misaligned(X, y)
        _check_feature_names(self, _names_view(X), reset=True)
        X = check_matrix(X, accept_sparse=True)
        self.n_features_in_ = X.shape[1]
        classes, y_index, _ = check_labels(y, X.shape[0], min_per_class=self._min_per_class,
                                           min_classes_of_two=self._min_classes_of_two)
        # "Tumour" and "tumour": two classes, rarely what was meant
        warn_of_label_variants(classes[y_index], stacklevel=None)
        if self._binary_classes and classes.shape[0] != 2:
            raise ValueError(f"Only binary classification is supported. y must be a binary "
                             f"class (exactly 2 classes); got "
                             f"{classes.shape[0]} classes {classes.tolist()[:10]}")
        if self._binary_features:
            check_binary(X, name="X")
        return X, classes, y_index

    def _check_test_names(self, X) -> None:
        """Raise if a DataFrame's columns differ from those seen in ``fit``, naming them.

        An ndarray after a DataFrame fit (or the reverse) warns as scikit-learn does.
        """
        fitted = getattr(self, "feature_names_in_", None)
        cols = getattr(X, "columns", None)
        if fitted is not None and cols is not None:
            # names not all strings (Entrez ids): select by their string form
            take = ("X[clf.feature_names_in_]" if all(isinstance(c, str) for c in cols)
                    else "X.rename(columns=str)[clf.feature_names_in_]")
            cols = np.asarray([str(c) for c in cols], dtype=object)
            if len(cols) != len(fitted) or not np.array_equal(cols, fitted):
                missing = [c for c in fitted if c not in set(cols)]
                unseen = [c for c in cols if c not in set(fitted)]
                parts = []
                if missing:
                    parts.append(f"missing column(s) seen at fit: {missing[:10]}")
                if unseen:
                    parts.append(f"column(s) not seen at fit: {unseen[:10]}")
                if not parts:
                    moved = [(i, c, f) for i, (c, f) in enumerate(zip(cols, fitted, strict=True))
                             if c != f]
                    desc = ", ".join(f"position {i} holds {c!r} (fit had {f!r})"
                                     for i, c, f in moved[:5])
                    parts.append(f"columns are in another order: {desc}")
                # the fix in code: selecting fit's names drops extra columns and restores
                # the order; a missing column has to be added first
                fix = (f"X must hold every column of fit: add the missing ones, then pass "
                       f"{take}" if missing else f"Pass the columns of fit, in order: {take}")
                raise ValueError("X's columns do not match those seen in fit: "
                                 + "; ".join(parts) + ". " + fix)
        if fitted is None and cols is not None:
            _warn_of_shuffled_positions(cols, self.n_features_in_)
        if not WRAPPER_CHECKS_NAMES.get():          # a stack checks them itself
            _check_feature_names(self, _names_view(X), reset=False)

    def _validate_test(self, X) -> np.ndarray:
        check_is_fitted(self, "selection_")
        self._check_test_names(X)
        X = check_matrix(X, accept_sparse=True)
        check_width(X.shape[1], self.n_features_in_, type(self).__name__)
        if self._binary_features:
            check_binary(X, name="X")
        return X

    # ------------------------------------------------------------------ names
    def _feature_names(self) -> np.ndarray:
        """Gene names: ``feature_names_in_``, or ``x0`` ... ``x{p-1}`` for array input."""
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = np.asarray([f"x{j}" for j in range(self.n_features_in_)], dtype=object)
        return np.asarray(names, dtype=object)

    def _class_labels(self) -> list[str]:
        return [str(c) for c in self.classes_]

    @property
    def selected_features_(self) -> np.ndarray:
        """Names of the selected features, best first (``feature_names_in_`` or ``x<j>``)."""
        check_is_fitted(self, "selection_")
        return self._feature_names()[self.selection_.indices]

    # ------------------------------------------------------------------ fit
    def _resolve_selection(self, X, y_index, classes, transform=None) -> Selection:
        """Apply the selection rule: ``threshold`` if given, else ``k`` (an int or "all")."""
        y_sel = classes[y_index] if self._statistic == "f" else y_index
        threshold = getattr(self, "threshold", None)
        if threshold is not None:
            sel = select_features(X, y_sel, threshold=threshold, statistic=self._statistic)
        elif isinstance(self.k, str):
            sel = _select_all(X, y_sel, self._statistic)
        else:
            sel = select_features(X, y_sel, k=self.k, statistic=self._statistic)
        self._check_selection(sel)
        return sel

    def _check_selection(self, sel: Selection) -> None:
        """Clear errors for a selection with nothing (or nothing more) to select."""
        if not np.any(sel.scores > 0):
            raise ValueError(
                f"no feature of X is related to the class at all: all {sel.n_features} scores "
                "are 0 (every feature is constant, or has the same mean in every class); there "
                "is nothing to select")
        if self._statistic == "f" and not sel.threshold > 0:
            m = int(np.sum(sel.scores > 0))
            raise ValueError(
                f"only {m} of the {sel.n_features} features have F > 0 (the others are "
                f"constant or have equal class means), so k = {sel.n_selected} would keep "
                f"features with F = 0; choose k <= {m} or a threshold > 0")

    def fit(self, X, y):
        """Select features on (X, y) and compute the posterior of the selected ones.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features (a DataFrame's column names become ``feature_names_in_``).
        y : array-like of shape (n_samples,)
            Class labels (any sortable hashable values).

        Returns
        -------
        self
            The fitted classifier (``classes_``, ``selection_``, ``idata_``, ...).
        """
        return self._fit(X, y)

    def _fit(self, X, y, *, checks: bool = True, **given):
        """``fit``, with precomputed parts ``given`` to ``_prepare_features`` (for example the
        shared ranking of a path of fits). ``checks=False``: a fit kept only for its
        predictions (the stack's refits on its inner folds) skips the ArviZ check groups, the
        convergence diagnostics and the model checks, which change no prediction
        (``benchmarks/results/stack_cost.md``); its ``diagnostics_`` and the other check
        attributes are not set."""
        self._validate_params()
        case_names = _sample_ids(X)                     # for the checks' messages
        X, classes, y_index = self._validate_training_data(X, y)
        if not self._binary_features and not hasattr(X, "toarray"):   # dense only
            # Gaussian models misread unlogged intensities (reports/raw_intensities).
            from ..preprocessing._intensity import warn_if_raw_intensities

            warn_if_raw_intensities(X, stacklevel=None)  # the user's line, also via a stack
            self.data_min_, self.data_max_ = training_range(X)
        else:                          # 0/1 or sparse (counts): no scale to check at predict
            self.data_min_ = self.data_max_ = None
        self.classes_ = classes
        Xp, transform = self._prepare_features(X, y_index, classes, **given)
        selection = self._resolve_selection(Xp, y_index, classes, transform)
        self.selection_ = selection
        if checks and self._statistic == "f":      # a filter before fit hides the omitted
            warn_if_preselected(selection.scores, X.shape[0], classes.size)
        X_sel = _dense(Xp[:, selection.indices])     # sparse input: densify the k kept only
        posterior = self._fit_selected(X_sel, y_index, selection, transform)
        if posterior.X is None:
            posterior.X = X_sel
        posterior.case_names, posterior.y_index = case_names, y_index
        self.idata_ = posterior.idata
        if posterior.model is not None:
            self.model_ = posterior.model
        elif hasattr(self, "model_"):         # a refit without a model: no stale one from before
            del self.model_
        self._label_coords()
        self._store_predictive(posterior)
        if checks:
            self._add_checks(posterior, y_index)
        self._record()
        if checks:
            self._check_diagnostics(posterior)
        return self

    def _label_coords(self) -> None:
        """Gene names on the ``feature`` dim and class labels on the ``class`` dim of idata_."""
        import xarray as xr

        names = self.selected_features_.astype(str).tolist()
        labels = self._class_labels()
        for group in list(self.idata_.children):
            # A deep copy: PyMC's multiprocess sampler can leave draws in shared-memory
            # buffers, which joblib's worker-to-parent pickling cannot send.
            ds = self.idata_[group].to_dataset().copy(deep=True)
            new = {}
            if "feature" in ds.dims and ds.sizes["feature"] == len(names):
                new["feature"] = names
            if "class" in ds.dims and ds.sizes["class"] == len(labels):
                new["class"] = labels
            self.idata_[group] = xr.DataTree(ds.assign_coords(new))

    def _run_nuts(self, model, seed):
        """Sample ``model`` with the chosen NUTS implementation other than nutpie."""
        import pymc as pm

        kwargs = dict(draws=self.draws, tune=self.tune, chains=self.chains,
                      random_seed=seed, progressbar=self.progressbar,
                      nuts={"target_accept": self.target_accept})
        if self.sampler_used_ == "pymc":
            # pymc 6 picks nutpie by itself when installed: name the sampler explicitly.
            # Inside a worker process (joblib/loky, dask) the caller already runs in parallel,
            # and PyMC cannot start its own chain processes there: sample chains in turn.
            in_worker = multiprocessing.parent_process() is not None
            cores = 1 if in_worker else min(self.chains, os.cpu_count() or 1)
            kwargs.update(nuts_sampler="pymc", cores=cores)
        else:
            kwargs.update(nuts_sampler=self.sampler_used_)
        # pm.sample (and nutpie under it) keep the draws so far on Ctrl-C: the interrupt goes
        # on after it
        with model, warnings.catch_warnings(), interrupts_reraised():
            warnings.filterwarnings("ignore", message=".*invalid value encountered.*")
            return pm.sample(**kwargs, compute_convergence_checks=False)

    def _thin_index(self, n_draws: int) -> np.ndarray:
        """Evenly spaced indices of at most ``max_predict_draws`` of ``n_draws`` draws."""
        if self.max_predict_draws is not None and n_draws > self.max_predict_draws:
            return np.linspace(0, n_draws - 1, self.max_predict_draws).round().astype(int)
        return np.arange(n_draws)

    def _check_diagnostics(self, posterior: Posterior | None = None) -> None:
        """Convergence diagnostics of the posterior variables ``_diagnostic_vars``
        (``diagnostics_``), and the PSIS-LOO Pareto k of every training case where the fit
        stores a log likelihood (``loo_checks_``, :func:`selbayes.evaluation._loo_check.loo_check`).
        The Pareto k is reported, not warned on: with many kept features every case's
        likelihood sums them all and k exceeds 0.7 in almost every fit of expression data, which
        says nothing about single cases (:mod:`selbayes.evaluation._label_check`, the check
        that warns)."""
        self.loo_checks_ = None                  # no table left over from an earlier fit
        if self._diagnostic_vars is None or "posterior" not in self.idata_.children:
            return
        from ..evaluation._diagnostics import check
        from ..evaluation._loo_check import loo_check

        # Optional variables (e.g. the two-groups prior's pi0) are checked when present.
        present = self.idata_["posterior"].data_vars
        # Independent draws given fixed hyperparameters (method "plugin") have no chain to
        # converge: no R-hat or ESS to report.
        self.diagnostics_ = (
            None if getattr(self, "method", "mcmc") != "mcmc"
            else check(self.idata_, var_names=[v for v in self._diagnostic_vars
                                               if v in present]))
        self.loo_checks_ = loo_check(self.idata_, warn=False,
                                     case_names=getattr(posterior, "case_names", None))

    # ------------------------------------------------------------------ provenance
    def _config(self) -> dict:
        """The settings that define the model, the model id's input: as given, the priors
        resolved (``priors=None`` and the prior they stand for share an id)."""
        params = user_params(self)
        params[self._priors_param] = self._priors_dict()
        return params

    def _record(self) -> None:
        import xarray as xr

        self.idata_.attrs.update({**self._provenance_attrs(), **self._extra_attrs()})
        ds = xr.Dataset({**self._selection_data(), **self._extra_constant_data()})
        if "constant_data" in self.idata_.children:
            merged = self.idata_["constant_data"].to_dataset().merge(ds, compat="override")
            self.idata_["constant_data"] = xr.DataTree(merged)
        else:
            self.idata_["constant_data"] = xr.DataTree(ds)

    # ------------------------------------------------------------------ prediction
    def predict_log_proba(self, X) -> np.ndarray:
        """Log predictive class probabilities log P(y* = g | x*, training data, selection).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features, the columns of ``fit`` in the same order (selection happens
            inside).

        Returns
        -------
        ndarray of shape (n_samples, G)
            Natural-log probabilities, columns in ``classes_`` order.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``X`` is malformed, has another number of columns than in ``fit``, or is a
            DataFrame whose columns differ from (or are reordered against) those of ``fit``;
            or if some rows hold values so far outside the training data that float64 cannot
            tell the classes apart (NaN log probabilities, or rows whose probabilities do not
            sum to 1).
        """
        X = self._validate_test(X)
        warned = self._warn_outside_training_range(X)
        X_sel = self._select_test_columns(X)
        self._warn_far_from_training(X_sel, warned)
        return _checked_log_proba(self._predict_log_proba_selected(X_sel), X_sel)

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
            As :meth:`predict_log_proba`.
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X, loss=None) -> np.ndarray:
        """Bayes decision: the class of least expected loss (the most probable without loss).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features (selection happens inside).
        loss : array-like of shape (G, G), optional
            ``loss[i, j]`` is the loss when the truth is class i and the guess is class j, in
            the order of ``classes_`` (a DataFrame labelled by class is reordered to it);
            finite and non-negative.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels, drawn from ``classes_``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``loss`` is not a finite, non-negative (G, G) matrix, or ``X`` is bad (see
            :meth:`predict_log_proba`).
        """
        return self._decide(self.predict_proba(X), loss)

    # ------------------------------------------------------------------ persistence
    def save(self, path) -> Path:
        """Write the fitted classifier (its ArviZ result, with attrs) to netCDF (h5netcdf).

        The file holds ``idata_`` (with ``constant_data`` recording the selection), the
        provenance attrs (version, settings, model id), the model's predictive state, so
        :meth:`load` can predict without refitting, and the tables of fit's checks
        (``diagnostics_``, ``prior_checks_``, ``ppc_checks_``, ``loo_checks_``, and
        ``replicate_groups_`` where the estimator has it). Attributes
        are stored as netCDF-native values, so the file opens with plain ArviZ/xarray and
        ArviZ's plots work on it. It holds training data (``constant_data``: the labels and
        the kept features' values as the model saw them): share it as you would the data.

        Parameters
        ----------
        path : str or os.PathLike
            Destination file (conventionally ``*.nc``); overwritten if it exists; ``~`` is
            the home folder.

        Returns
        -------
        pathlib.Path
            ``path`` as a Path.

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
        return write_saved_tree(self._saved_tree(), path)

    def _saved_tree(self):
        """The tree :meth:`save` writes: ``idata_`` with the predictive state's groups, and
        the tables of fit's checks (``diagnostics_``, ``prior_checks_``, ``ppc_checks_``,
        ``loo_checks_``, ``replicate_groups_``, those the fit set, None included) in one
        attribute of the root, as pandas' JSON table schema (types and index kept; floats to
        15 significant digits)."""
        import pandas as pd
        import xarray as xr

        check_is_fitted(self, "idata_")
        tree = self.idata_.copy()
        for name, ds in self._predictive_state().items():
            tree[name] = xr.DataTree(ds)
        tables = {name: (table.to_json(orient="table", double_precision=15)
                         if isinstance(table := getattr(self, name), pd.DataFrame) else None)
                  for name in _CHECK_TABLES if hasattr(self, name)}
        tree.attrs = {**tree.attrs, _CHECK_TABLES_ATTR: json.dumps(tables)}
        sanitize_attrs(tree)
        return tree

    @classmethod
    def load(cls, path):
        """Read a classifier written by :meth:`save`, checking the version and model id.

        Parameters
        ----------
        path : str or os.PathLike
            A netCDF file written by :meth:`save`; ``~`` is the home folder.

        Returns
        -------
        SelectionClassifier
            A fitted classifier whose predictions equal those of the saved one.

        Raises
        ------
        ValueError
            If the file holds another estimator, was written by a selbayes version with a
            different major.minor, its settings no longer match its model id, or it is not a
            readable selbayes fit.
        FileNotFoundError
            If ``path`` does not exist.
        """
        return cls._load_tree(*cls._open_saved(path), path)

    @classmethod
    def _load_tree(cls, tree, obj, cd, path):
        """The fitted classifier from :meth:`_from_tree`'s result."""
        import pandas as pd

        try:
            obj._restore_predictive(tree, cd)
        except KeyError as exc:
            raise ValueError(f"{path} is not a readable selbayes fit: it lacks {exc}") from exc
        for name in cls._internal_groups:
            if name in tree.children:
                del tree[name]
        attrs = dict(tree.attrs)
        # the checks' tables (files written before 2026-12-03 have none: left unset)
        try:
            for name, table in json.loads(attrs.pop(_CHECK_TABLES_ATTR, "{}")).items():
                setattr(obj, name, None if table is None
                        else pd.read_json(io.StringIO(table), orient="table"))
        except ValueError as exc:         # json's and pandas' parse errors are ValueErrors
            raise ValueError(f"{path} is not a readable selbayes fit: its attribute "
                             f"{_CHECK_TABLES_ATTR!r} does not hold the checks' tables "
                             f"({exc})") from exc
        tree.attrs = attrs
        obj.idata_ = tree
        return obj

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        """Drop the compiled model (``model_``) and any compiled function: they do not pickle,
        and prediction needs only the stored predictive state."""
        state = super().__getstate__()
        return {k: v for k, v in state.items()
                if k != "model_" and not isinstance(v, functools.partial)}

    def __setstate__(self, state):
        super().__setstate__(state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = not self._binary_classes
        tags.classifier_tags.poor_score = True     # tiny MCMC runs in sklearn's checks
        return tags


def _check_target_type(y) -> None:
    """Reject a continuous target (scikit-learn's "Unknown label type"), and warn on a column
    vector y as scikit-learn does; other label problems are left to ``check_labels``."""
    from sklearn.exceptions import DataConversionWarning
    from sklearn.utils.multiclass import type_of_target

    shape = np.asarray(y).shape
    if len(shape) == 2 and shape[1] == 1:
        warn_at_user("A column-vector y was passed when a 1d array was expected. Please "
                     "change the shape of y to (n_samples,), for example using ravel().",
                     DataConversionWarning)
    try:
        kind = type_of_target(y)
    except (ValueError, TypeError):          # NaN, mixed types: check_labels names them
        return
    if kind in ("continuous", "continuous-multioutput"):
        raise ValueError(f"Unknown label type: {kind}. y holds real values; a classifier needs "
                         "class labels (for example integers or strings)")


def check_width(n_columns: int, n_features_in: int, who: str) -> None:
    """Raise if X's ``n_columns`` differ from the ``n_features_in`` that the classifier named
    ``who`` was fitted on."""
    if n_columns != n_features_in:
        raise ValueError(
            f"X has {n_columns} features, but {who} is expecting {n_features_in} features as "
            "input (those of fit); pass all features (selection happens inside)")


def _dense(X) -> np.ndarray:
    """A scipy.sparse matrix as a dense float64 ndarray; an ndarray unchanged."""
    return X.toarray() if hasattr(X, "toarray") else X


#: Beyond this magnitude of a selected test feature (in the model's units) float64 cannot
#: resolve the classes' log densities (squares of 1e30 and more against differences of 1e15).
MAX_RESOLVED_VALUE = 1e15


def _checked_log_proba(log_proba: np.ndarray, X_sel) -> np.ndarray:
    """``log_proba`` (n, G) after checking that every row is a distribution.

    Far outside the training data (values of 1e16 and more in the model's units, e.g. a
    netCDF fill value of 9.97e36) each class's log density (of order -x^2) is so large in
    magnitude that float64 loses the differences between them (of order x): the rows came out
    [1, 1], [0.5, 0.5] or NaN. A ValueError naming the rows instead of a result that is not,
    or is not truly, the predictive distribution. ``X_sel``: the selected test features as
    the model reads them (standardised for the Gaussian model)."""
    from scipy.special import logsumexp

    with np.errstate(invalid="ignore"):
        total = logsumexp(log_proba, axis=1)
        extreme = np.abs(_dense(X_sel)).max(axis=1, initial=0.0) > MAX_RESOLVED_VALUE
    # -inf is a class of probability 0 (a row may hold some); NaN or +inf never
    bad = (np.isnan(log_proba) | np.isposinf(log_proba)).any(axis=1) \
        | ~(np.abs(total) < 1e-6) | extreme
    if bad.any():
        rows = np.flatnonzero(bad)
        values = np.abs(_dense(X_sel[rows]))
        raise ValueError(
            f"{rows.size} row(s) of X (positions {rows[:5].tolist()}) give class "
            f"probabilities that float64 cannot resolve: their selected features reach "
            f"|x| = {values.max():.3g}, far outside the training data. Check the units of "
            "X, and for fill values of missing data (netCDF's 9.97e36, -999, ...)")
    return log_proba


def _sample_ids(obj):
    """A pandas object's index (its sample ids), else None (a list's ``index`` is a method).
    A MultiIndex (``pd.concat(..., keys=batches)``) gives one name per row, the tuple as text:
    as an array it was 2-D, and the checks' tables of sample names failed inside pandas."""
    import pandas as pd

    index = getattr(obj, "index", None)
    if isinstance(index, pd.MultiIndex):
        return pd.Index([str(t) for t in index], dtype=object)
    return index if isinstance(index, pd.Index) else None


def _column_names(X):
    """A DataFrame's column names as strings, or None where it has none to check.

    Integer gene ids (Entrez) are names too: scikit-learn keeps names only when all are
    strings, so without this a fit on them recorded none and a reordered X passed unchecked.
    pandas' default columns 0..p-1 (``pd.DataFrame(X)``) are positions, not names: None, as
    for an array.
    """
    import pandas as pd

    cols = getattr(X, "columns", None)
    if not isinstance(cols, pd.Index):
        return None
    if is_positions(cols):
        return None
    return [str(c) for c in cols]


def _warn_of_shuffled_positions(cols, p: int) -> None:
    """Warn if a DataFrame's columns are the positions 0..p-1 in another order.

    A fit on ``pd.DataFrame(X)`` records no names: pandas' default columns are positions.
    Its columns reordered (``frame[reversed(frame.columns)]``) are then names to
    scikit-learn, which only warned "X has feature names, but ... was fitted without feature
    names" and predicted from the columns by position: the wrong genes. A warning, not an
    error: after a fit on an array the order its columns had is unknown (a frame reordered
    before ``.to_numpy()`` is the right input then), and a fit keeps no record of which."""
    import pandas as pd

    if (len(cols) != p or not pd.api.types.is_integer_dtype(cols.dtype)
            or is_positions(cols) or not is_positions(cols.sort_values())):
        return                  # not the positions 0..p-1 in another order
    labels = np.asarray(cols, dtype=np.int64)
    first = int(np.flatnonzero(labels != np.arange(p))[0])
    warn_at_user(
        f"X's columns are the positions 0..{p - 1} in another order (position {first} "
        f"holds column {int(labels[first])}) and are read by position, as fit had no "
        "column names: if fit had pandas' default columns in order (pd.DataFrame(X)), "
        "pass them in order, X.sort_index(axis=1)", UserWarning)


def _names_view(X):
    """What scikit-learn's feature-name check is given for ``X``: an empty DataFrame with
    ``X``'s column names as strings (:func:`_column_names`; only the names are read), ``X``
    itself when it has no names, and an unnamed array for duplicated names (which
    scikit-learn rejects)."""
    import pandas as pd

    names = _column_names(X)
    if names is None:
        return X
    if pd_index_duplicates(names):
        return np.empty((0, len(names)))
    return pd.DataFrame(columns=pd.Index(names, dtype=object))


def pd_index_duplicates(columns) -> list:
    """Column names that occur more than once, in order of first occurrence."""
    seen, dup = set(), []
    for c in columns:
        if c in seen and c not in dup:
            dup.append(c)
        seen.add(c)
    return dup


def _select_all(X, y, statistic: str) -> Selection:
    """A Selection that keeps every feature (ranked by score, nothing omitted)."""
    from ..filters._selection import _f_statistic_sparse, abs_correlation, f_statistic

    p = X.shape[1]
    classes, y_index, counts = check_labels(y, X.shape[0], min_per_class=1)
    if statistic == "f":
        scores = (_f_statistic_sparse if hasattr(X, "toarray") else f_statistic)(
            X, y_index, len(classes))
    else:
        scores = abs_correlation(X, y_index)
    order = np.lexsort((np.arange(p), -scores))
    return Selection(indices=order.astype(np.int64), scores=scores,
                     threshold=float(scores[order[-1]]), n_features=p, n_selected=p,
                     statistic=statistic, class_counts=counts, classes=classes,
                     rule="all", n_ties_at_threshold=0)


def _same_setting(value, default) -> bool:
    """Whether a setting equals its default (an int k and "auto" or 10 compared without
    numpy's elementwise comparison or a str/int mismatch error)."""
    if isinstance(value, str) and isinstance(default, str):     # numpy's str_ too
        return str(value) == str(default)
    return type(value) is type(default) and value == default or (
        isinstance(value, numbers.Integral) and isinstance(default, numbers.Integral)
        and not isinstance(value, bool) and int(value) == int(default))
