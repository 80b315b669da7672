"""Behaviour shared by the selbayes classifiers."""

from __future__ import annotations

import hashlib
import json

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._version import __version__
from .selection import Selection

__all__ = ["EvaluateMixin", "PersistenceMixin", "sanitize_attrs"]


class EvaluateMixin:
    """``evaluate(X, y)``: the calibration summary of a fitted classifier on labelled data;
    and the Bayes decision shared by every ``predict``."""

    def _decide(self, proba: np.ndarray, loss=None) -> np.ndarray:
        """Labels of least expected loss (the most probable when ``loss`` is None)."""
        if loss is None:
            return self.classes_[np.argmax(proba, axis=1)]
        loss = np.asarray(loss, dtype=np.float64)
        G = len(self.classes_)
        if loss.shape != (G, G):
            raise ValueError(f"loss must have shape ({G}, {G}); got {loss.shape}")
        return self.classes_[np.argmin(proba @ loss, axis=1)]

    def evaluate(self, X, y, loss=None) -> dict:
        """Calibration summary on labelled data (error, expected error, AMLP, Brier, ECE).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
            Labels from ``classes_``; unseen labels raise ``ValueError``.
        loss : array-like of shape (G, G), optional
            Also report actual and expected loss of the Bayes decision under this loss;
            ``loss[i, j]`` is the loss when the truth is class i and the guess is class j.

        Returns
        -------
        dict
            The keys of :func:`selbayes.calibration.calibration_summary` (``error_rate``,
            ``expected_error_rate``, ``amlp`` in nats, ``brier``, ``ece``, ``n``) and, when
            ``loss`` is given, ``expected_loss`` and ``actual_loss`` (see
            :func:`selbayes.calibration.expected_vs_actual_loss`).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If ``y`` holds a label not in ``classes_``, or ``X``/``loss`` have the wrong shape.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier
        >>> from selbayes.simulate import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(30, 30), random_state=0)
        >>> clf = BinaryNaiveBayesClassifier(k=10).fit(d.X, d.y)
        >>> summary = clf.evaluate(d.X, d.y, loss=[[0, 1], [5, 0]])
        >>> sorted(summary)[:4]
        ['actual_loss', 'amlp', 'brier', 'ece']
        >>> 0 <= summary["error_rate"] <= 1
        True
        """
        from .calibration import calibration_summary, expected_vs_actual_loss

        check_is_fitted(self, "classes_")
        y = np.asarray(y)
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if unseen.size:
            raise ValueError(
                f"y has label(s) {unseen.tolist()} that the classifier was not fitted on "
                f"(classes_: {self.classes_.tolist()})"
            )
        proba = self.predict_proba(X)
        out = calibration_summary(proba, y, classes=self.classes_)
        if loss is not None:
            out.update(expected_vs_actual_loss(proba, y, loss, classes=self.classes_))
        return out


class PersistenceMixin:
    """Provenance attrs, model ids and the checked half of ``load``, shared by the classifiers.

    A subclass provides ``_config()`` (its settings as a JSON-able dict) and the fitted
    attributes ``classes_``, ``n_features_in_`` and ``selection_``.
    """

    def _model_id(self) -> str:
        """A hash of the estimator's class, settings and the package version."""
        blob = json.dumps({"class": type(self).__name__, "config": self._config(),
                           "version": __version__}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def _provenance_attrs(self) -> dict:
        """Attributes recorded on ``idata_``: version, estimator, id, settings, selection."""
        return {
            "selbayes_version": __version__,
            "selbayes_estimator": type(self).__name__,
            "selbayes_model_id": self._model_id(),
            "selbayes_config": json.dumps(self._config(), default=str),
            "selbayes_classes": json.dumps([c.item() if hasattr(c, "item") else c
                                            for c in self.classes_]),
            "selbayes_n_features_in": int(self.n_features_in_),
            **{k: json.dumps(v) if isinstance(v, list) else v
               for k, v in self.selection_.to_attrs().items()},
        }

    def _selection_data(self) -> dict:
        """The selection's arrays for the ``constant_data`` group."""
        import xarray as xr

        sel = self.selection_
        return {
            "selection_indices": xr.DataArray(sel.indices, dims=["selected"]),
            "selection_scores": xr.DataArray(sel.scores, dims=["all_features"]),
            "selection_class_counts": xr.DataArray(sel.class_counts, dims=["class_index"]),
        }

    @classmethod
    def _open_saved(cls, path):
        """Read a file written by ``save`` and rebuild the settings and the selection.

        Returns
        -------
        (xarray.DataTree, estimator, xarray.Dataset)
            The file's tree, a new estimator with ``classes_``, ``n_features_in_`` and
            ``selection_`` set, and the ``constant_data`` group.

        Raises
        ------
        ValueError
            If the file holds another estimator, was written by a selbayes version with a
            different major.minor, or its settings no longer match its model id.
        """
        import xarray as xr

        tree = xr.open_datatree(path, engine="h5netcdf").load()
        attrs = tree.attrs
        if attrs.get("selbayes_estimator") != cls.__name__:
            raise ValueError(f"{path} does not hold a {cls.__name__} "
                             f"(found {attrs.get('selbayes_estimator')!r})")
        saved = str(attrs.get("selbayes_version", "unknown"))
        if saved.split(".")[:2] != __version__.split(".")[:2]:
            raise ValueError(f"{path} was written by selbayes {saved}; this is {__version__}. "
                             "Refit the model.")
        obj = cls(**json.loads(attrs["selbayes_config"]))
        if obj._model_id() != attrs["selbayes_model_id"]:
            raise ValueError(f"model id mismatch in {path}: the file's settings were altered")
        cd = tree["constant_data"].to_dataset()
        classes = np.asarray(json.loads(attrs["selbayes_classes"]))
        obj.classes_ = classes
        obj.n_features_in_ = int(attrs["selbayes_n_features_in"])
        obj.selection_ = Selection(
            indices=cd["selection_indices"].values.astype(np.int64),
            scores=cd["selection_scores"].values,
            threshold=float(attrs["selection_threshold"]),
            n_features=int(attrs["selection_n_features"]),
            n_selected=int(attrs["selection_n_selected"]),
            statistic=str(attrs["selection_statistic"]),
            class_counts=cd["selection_class_counts"].values.astype(np.int64),
            classes=classes,
            rule=str(attrs["selection_rule"]),
            n_ties_at_threshold=int(attrs["selection_n_ties_at_threshold"]),
        )
        return tree, obj, cd


def sanitize_attrs(tree) -> None:
    """netCDF attributes must be numbers, strings or 1-D arrays: JSON-encode anything else."""
    for node in tree.subtree:
        for holder in (node, *node.variables.values()):
            for key, value in list(holder.attrs.items()):
                if isinstance(value, dict | list | tuple | bool) or value is None:
                    holder.attrs[key] = json.dumps(value, default=str)
