"""The result of fitting the Gaussian classifier along a path of k with one F ranking."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._validation import warn_if_misaligned

__all__ = ["KPath", "fit_k_path"]


class KPath(Mapping):
    """Fitted classifiers along a path of k sharing one F ranking
    (:meth:`HierarchicalGaussianClassifier.fit_path`).

    A read-only mapping k -> fitted :class:`HierarchicalGaussianClassifier`, in the order of
    the ks given.

    Parameters
    ----------
    estimators : dict
        k -> fitted classifier.
    ranking : Selection
        The F statistics of all p features that every k selected from.

    Attributes
    ----------
    ks : list of int
    ranking : Selection

    Examples
    --------
    >>> path = KPath({}, None)
    >>> path.ks, len(path)
    ([], 0)
    """

    def __init__(self, estimators: dict, ranking):
        self._est = dict(estimators)
        self.ranking = ranking

    @property
    def ks(self) -> list:
        return list(self._est)

    def __getitem__(self, k):
        return self._est[k]

    def __iter__(self):
        return iter(self._est)

    def __len__(self) -> int:
        return len(self._est)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of every k: shape (len(ks), n_samples, G), in ``ks`` order."""
        return np.stack([est.predict_proba(X) for est in self._est.values()])

    def predict_log_proba(self, X) -> np.ndarray:
        """Log class probabilities of every k: shape (len(ks), n_samples, G)."""
        return np.stack([est.predict_log_proba(X) for est in self._est.values()])

    def __repr__(self) -> str:
        return f"KPath(ks={self.ks})"


def fit_k_path(estimator, X, y, ks, groups="near_copies") -> KPath:
    """:meth:`HierarchicalGaussianClassifier.fit_path`: one F ranking, one inner
    cross-validation for every k when something is "auto", then a clone of ``estimator`` fitted
    per k (``estimator`` itself is left unfitted). Parameters, result and errors: that method's.
    """
    from numbers import Integral

    from sklearn.base import clone

    from ..evaluation._replicates import group_mode, kept_groups
    from ._gaussian import _rank

    group_kind, groups = group_mode(groups)            # an unknown string before any work
    if group_kind is None:                            # given labels: paired by position
        warn_if_misaligned(X, groups, name="groups")

    ks = list(dict.fromkeys(ks)) if ks is not None else []
    if not ks or not all(isinstance(k, Integral) and not isinstance(k, bool) for k in ks):
        raise ValueError(f"ks must be a non-empty sequence of integers; got {ks!r}")
    if estimator.threshold is not None:
        raise ValueError("fit_path takes numbers of features ks; threshold must be None")
    if estimator.effect_prior == "auto":
        raise ValueError("fit_path shares one inner cross-validation over k, which "
                         "effect_prior='auto' would need per prior: pass a fixed effect_prior "
                         "(the one fit() chose is prior_choice_.family), or fit() each k")
    if estimator.correct_selection == "auto":
        raise ValueError("fit_path shares one inner cross-validation over k, which "
                         "correct_selection='auto' would need per model: pass "
                         "correct_selection=True or False (the one fit() chose is "
                         "correct_selection_), or fit() each k")
    if min(ks) < 1:                       # named as ks, before set_params names it k
        raise ValueError(f"every k of ks must be >= 1; got {[k for k in ks if k < 1]}")
    template = clone(estimator).set_params(k=int(ks[0]))
    template._validate_params()
    Xv, classes, y_index = template._validate_training_data(X, y)
    bad = [k for k in ks if not 1 <= k < Xv.shape[1]]
    if bad:               # before any fit, not after the first ones
        raise ValueError(f"every k of ks must satisfy 1 <= k < p = {Xv.shape[1]}; got {bad}")
    ranking = _rank(Xv, y_index, classes)
    if group_kind is not None:
        groups = kept_groups(Xv, y_index, group_kind)[1]   # the same groups for every k
    choices = {}
    if estimator.temperature == "auto" or estimator.decorrelate == "auto":
        # One inner cross-validation for every k; per k the KChoice a separate fit at that
        # k would store (same folds and seeds: the candidates do not interact).
        from ..evaluation._folds import group_codes
        from ._k_choice import choices_per_k

        codes = None if groups is None else group_codes(groups, Xv.shape[0])
        choices = choices_per_k(estimator._choose(
            Xv.toarray() if hasattr(Xv, "toarray") else Xv, classes[y_index],
            estimator._choice_settings(ks, groups=codes)), ks)
    out = {}
    for k in ks:
        # decorrelated fits rank their own (whitened) features
        given = {"ranking": ranking} if estimator.decorrelate != "auto" else {}
        out[int(k)] = clone(estimator).set_params(k=int(k))._fit(
            X, y, choice=choices.get(k), groups=groups, **given)
    return KPath(out, ranking)
