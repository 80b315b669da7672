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
