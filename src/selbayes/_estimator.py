"""Behaviour shared by the selbayes classifiers."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["EvaluateMixin"]


class EvaluateMixin:
    """``evaluate(X, y)``: the calibration summary of a fitted classifier on labelled data."""

    def evaluate(self, X, y, loss=None) -> dict:
        """Calibration summary on labelled data (error, expected error, AMLP, Brier, ECE).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
            Labels from ``classes_``; unseen labels raise ``ValueError``.
        loss : array-like of shape (G, G), optional
            Also report actual and expected loss of the Bayes decision under this loss.
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
