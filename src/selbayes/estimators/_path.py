"""The result of fitting the Gaussian classifier along a path of k with one F ranking."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["KPath"]


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
