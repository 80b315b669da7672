"""The warning for X filtered on the labels before fit (selbayes.estimators._preselection)."""

import warnings

import numpy as np
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators import PreselectedFeaturesWarning
from selbayes.estimators._preselection import MIN_FEATURES, warn_if_preselected
from selbayes.filters import f_statistic


def _clf():
    return HierarchicalGaussianClassifier(k=5, method="plugin", progressbar=False,
                                          random_state=0)


def test_a_pipeline_s_selectkbest_before_the_classifier_is_warned_of():
    """The audit's case: SelectKBest(20) of 300 noise genes in a Pipeline before the
    classifier undid the correction (held-out log loss 0.86 against 0.74) without a word.
    With all genes given, nothing is said."""
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(65903)
    X, y = rng.normal(size=(60, 300)) + 8.0, np.arange(60) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", PreselectedFeaturesWarning)
        _clf().fit(X, y)
    with pytest.warns(PreselectedFeaturesWarning, match=r"every one of the 20 features of X "
                                                        r"is related to the class"):
        make_pipeline(SelectKBest(f_classif, k=20), _clf()).fit(X, y)


def test_the_chance_of_the_warning_on_unfiltered_noise_is_a_half_to_the_p(monkeypatch):
    """On m features unrelated to the class every F lies above its null median with
    probability 0.5^m: at m = 10, 0.001. The check itself (its MIN_FEATURES floor lowered to
    m = 3), over 4000 simulated data sets, warns in a share 1/8 within 4 binomial SEs."""
    from selbayes.estimators import _preselection

    monkeypatch.setattr(_preselection, "MIN_FEATURES", 3)
    rng = np.random.default_rng(65904)
    n, m, reps = 20, 3, 4000
    y = np.arange(n) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PreselectedFeaturesWarning)
        hits = sum(warn_if_preselected(f_statistic(rng.normal(size=(n, m)), y, 2), n, 2)
                   for _ in range(reps))
    se = np.sqrt(0.125 * 0.875 / reps)
    assert abs(hits / reps - 0.125) < 4 * se
    assert 0.5 ** MIN_FEATURES < 0.001


def test_too_few_features_or_samples_say_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PreselectedFeaturesWarning)
        assert not warn_if_preselected(np.full(MIN_FEATURES - 1, 50.0), 40, 2)
        assert not warn_if_preselected(np.full(MIN_FEATURES, 50.0), 2, 2)
