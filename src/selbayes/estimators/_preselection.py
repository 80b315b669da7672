"""A warning for X whose features were already selected on the labels (a ``SelectKBest`` before
the classifier in a scikit-learn ``Pipeline``, a t-test filter, a list of top genes).

The correction for selection conditions on the omitted features scoring below the threshold;
features removed before ``fit`` are invisible to it, and the probabilities are overconfident
as without the correction (on pure noise, ``SelectKBest(k=20)`` of 300 genes before the
classifier gave a held-out log loss of 0.86 against 0.74 with all genes given, 0.69 being a
coin flip). A full expression matrix holds genes unrelated to the class, whose F statistics
fall below the median of their null distribution about half of the time; a matrix whose every
feature lies above it was most likely filtered on these labels.
"""

from __future__ import annotations

import numpy as np

from .._validation import warn_at_user

__all__ = ["PreselectedFeaturesWarning", "warn_if_preselected", "MIN_FEATURES"]

#: Below this many features the check says nothing: a short list of markers chosen on other
#: data (the literature) is a legitimate X, and with m features unrelated to the class all m
#: lie above the null median with probability 0.5^m, 0.001 at m = 10.
MIN_FEATURES = 10


class PreselectedFeaturesWarning(UserWarning):
    """Every feature of X is related to the class beyond the median of what noise gives: X
    looks selected on these labels before ``fit``, which hides the omitted features from the
    correction for selection. Give all features."""


def warn_if_preselected(scores, n_samples: int, n_classes: int) -> bool:
    """Warn (:class:`PreselectedFeaturesWarning`) where every one of the F statistics lies
    above the median of its null distribution F(G - 1, n - G).

    Parameters
    ----------
    scores : ndarray of shape (p,)
        The one-way ANOVA F statistic of every feature of X (``selection_.scores``).
    n_samples, n_classes : int
        n and G of the training data.

    Returns
    -------
    bool
        Whether it warned. Never with fewer than :data:`MIN_FEATURES` features or fewer than
        G + 1 samples (no null distribution).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as said:
    ...     warnings.simplefilter("always")
    ...     warn_if_preselected(np.linspace(5.0, 30.0, 20), n_samples=40, n_classes=2)
    True
    >>> warn_if_preselected(np.linspace(0.0, 30.0, 20), n_samples=40, n_classes=2)
    False
    """
    from scipy import stats

    scores = np.asarray(scores, dtype=np.float64)
    if scores.size < MIN_FEATURES or n_samples <= n_classes:
        return False
    df1, df2 = n_classes - 1, n_samples - n_classes
    largest_p = float(stats.f.sf(scores.min(), df1, df2))
    if largest_p >= 0.5:
        return False
    warn_at_user(
        f"every one of the {scores.size} features of X is related to the class beyond the "
        f"median of what noise gives (the weakest has F = {scores.min():.3g}, p = "
        f"{largest_p:.2g}; in a full expression matrix about half of the genes unrelated to "
        "the class lie below it): X looks selected on these labels already (SelectKBest or "
        "another filter before the classifier, a list of top genes). The correction for "
        "selection sees only the features given, so the probabilities are then overconfident: "
        "give all features and let the classifier select. If these features were chosen on "
        "other data, this does not apply", PreselectedFeaturesWarning)
    return True
