"""The Gaussian model split by role: the model (``_gaussian``), what a draw implies for the class
means and new cases (``_gaussian_posterior``) and the two-groups prior (``_gaussian_two_groups``).
The names that moved out of the model module (``selbayes.models.gaussian``, now
``selbayes.models._gaussian``) stay importable from it for one release, as the same objects."""

import importlib

import pytest

from selbayes.models import _gaussian as gaussian

MOVED = {
    "_gaussian_posterior": ["class_means_log_density", "draw_class_means", "marker_log_odds",
                           "class_log_prior", "predictive_moments", "null_predictive_moments",
                           "predictive_log_proba"],
    "_gaussian_two_groups": ["null_log_prob", "marker_probabilities", "two_groups_predictive",
                            "predictive_log_proba_two_groups"],
}


@pytest.mark.parametrize("module, name", [(m, n) for m, names in MOVED.items() for n in names])
def test_moved_names_live_in_their_module_and_stay_importable_from_the_old_one(module, name):
    new = importlib.import_module(f"selbayes.models.{module}")
    assert name in new.__all__
    obj = getattr(new, name)
    assert obj.__module__ == new.__name__
    assert getattr(gaussian, name) is obj                 # the old path, one more release
    assert name not in gaussian.__all__


def test_model_module_keeps_the_model_and_refuses_unknown_names():
    assert set(gaussian.__all__) == {"sufficient_statistics", "model_data", "build_model",
                                     "sample_nutpie"}
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        gaussian.not_a_name  # noqa: B018
