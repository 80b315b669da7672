"""Bad input to the models' data and graph builders is named: the argument and what was
expected, never a NaN or a traceback from deep inside numpy or pytensor (the shared checks
are tested in tests/test_validation.py)."""

from __future__ import annotations

import numpy as np
import pytest

import selbayes
from selbayes.models import (
    NaiveBayesPrior,
    build_mixture_model,
    build_model,
    fit_naive_bayes_quadrature,
    fit_naive_bayes_two_groups,
    model_data,
    null_log_prob,
    sample_mixture,
)


def _gaussian_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 50))
    y = np.repeat([0, 1], 10)
    sel = selbayes.select_features(X, y, k=3)
    return X[:, sel.indices], y, sel


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"adjustment_method": "tabel"}, ValueError, "adjustment_method must be one of"),
    ({"adjustment_method": "tabel", "corrected": False}, ValueError, "adjustment_method"),
    ({"selection": None}, TypeError, "selection must be a Selection"),
    ({"selection": "f"}, TypeError, "selection must be a Selection"),
    ({"corrected": "no"}, TypeError, "corrected must be True or False"),
    ({"corrected": 1}, TypeError, "corrected must be True or False"),
])
def test_model_data_names_bad_input(kwargs, exc, match):
    X, y, sel = _gaussian_problem()
    args = {"X_selected": X, "y": y, "selection": sel, **kwargs}
    with pytest.raises(exc, match=match):
        model_data(**args)


def test_build_model_names_feature_names_of_another_length():
    X, y, sel = _gaussian_problem()
    with pytest.raises(ValueError, match="feature_names must name the 3 retained features"):
        build_model(X, y, sel, feature_names=["a"])


@pytest.mark.parametrize("class_counts, threshold, exc, match", [
    ([5, 5], 0.0, ValueError, "threshold must be > 0"),
    ([5, 5], -1.0, ValueError, "threshold"),
    ([5, 5], np.nan, ValueError, "threshold"),
    ([5, 5], True, TypeError, "threshold must be a number"),
    ([5, 5], "3", TypeError, "threshold must be a number"),
    ([5], 2.0, ValueError, "class_counts needs at least 2 classes"),
    ([-5, 5], 2.0, ValueError, "class_counts must be positive"),
    ([1, 1], 2.0, ValueError, "class_counts must leave at least one within-class"),
    ([1.5, 3], 2.0, ValueError, "class_counts must hold whole numbers"),
])
def test_null_log_prob_names_bad_input(class_counts, threshold, exc, match):
    with pytest.raises(exc, match=match):
        null_log_prob(class_counts, threshold)


def _binary_problem():
    rng = np.random.default_rng(0)
    return rng.integers(0, 2, size=(20, 4)), np.repeat([0, 1], 10)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"selection": (5, "0.3")}, TypeError, "threshold"),
    ({"selection": (5, True)}, TypeError, "threshold"),
    ({"corrected": "no"}, TypeError, "corrected must be True or False"),
    ({"adjustment_n_theta": 0}, ValueError, "adjustment_n_theta must be an integer >= 2"),
    ({"adjustment_n_theta": "5"}, ValueError, "adjustment_n_theta"),
    ({"n_theta": 1.5}, ValueError, "n_theta must be an integer >= 2"),
])
def test_naive_bayes_quadrature_names_bad_input(kwargs, exc, match):
    X, y = _binary_problem()
    args = {"selection": (96, 0.3), "n_alpha": 20, **kwargs}
    with pytest.raises(exc, match=match):
        fit_naive_bayes_quadrature(X, y, **args)


def test_naive_bayes_two_groups_names_an_unknown_grid_setting():
    X, y = _binary_problem()
    with pytest.raises(TypeError, match=r"unknown setting\(s\) \['n_alhpa'\]"):
        fit_naive_bayes_two_groups(X, y, (96, 0.3), prior=NaiveBayesPrior(pi0_a=1, pi0_b=1),
                                   n_alhpa=20)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"random_state": -1}, ValueError, "random_state must be None, an int >= 0"),
    ({"random_state": 1.5}, TypeError, "random_state"),
    ({"corrected": "no"}, TypeError, "corrected must be True or False"),
    ({"factor": "x"}, TypeError, "factor must be a MixtureOmitFactor"),
    ({"threshold": "0.3"}, TypeError, "threshold must be a number"),
    ({"threshold": True}, TypeError, "threshold must be a number"),
])
def test_sample_mixture_names_bad_input_before_sampling(kwargs, exc, match):
    X, y = _binary_problem()
    args = {"n_omitted": 96, "threshold": 0.3, "draws": 1, "tune": 0, "chains": 1,
            "backend": "reference", **kwargs}
    with pytest.raises(exc, match=match):
        sample_mixture(X, y, **args)


@pytest.mark.parametrize("change, exc, match", [
    (lambda X, y: {"X": 2 * X}, ValueError, "X must hold only 0 and 1"),
    (lambda X, y: {"X": np.where(X == 1, np.nan, 0.0)}, ValueError, "X must hold only 0 and 1"),
    (lambda X, y: {"y": 2 * y}, ValueError, "y must hold only 0 and 1"),
    (lambda X, y: {"y": np.zeros_like(y)}, ValueError, "y must contain both classes"),
    (lambda X, y: {"n_omitted": -1}, ValueError, "n_omitted must be an integer >= 0"),
    (lambda X, y: {"n_omitted": 1.5}, ValueError, "n_omitted"),
    (lambda X, y: {"corrected": "no"}, TypeError, "corrected must be True or False"),
    (lambda X, y: {"factor": "x"}, TypeError, "factor must be a MixtureOmitFactor"),
])
def test_build_mixture_model_names_bad_input(change, exc, match):
    X, y = _binary_problem()
    args = {"X": X, "y": y, "n_omitted": 96, "corrected": False, **change(X, y)}
    with pytest.raises(exc, match=match):
        build_mixture_model(**args)


def test_build_mixture_model_names_a_factor_of_other_class_counts():
    from selbayes.adjustment import MixtureOmitFactor

    X, y = _binary_problem()
    with pytest.raises(ValueError, match=r"factor was built for class counts \(5, 5\)"):
        build_mixture_model(X, y, n_omitted=96, factor=MixtureOmitFactor(5, 5, 0.3))
