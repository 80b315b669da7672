"""selbayes.estimators._model_selection, the former home of the inner cross-validation, is a
re-export for one release: the old names are the new objects, and the old call
choose_k(estimator, X, y) still gives what the estimator's settings mean."""

import numpy as np
import pytest

import selbayes.estimators._model_selection as old
from selbayes.estimators import _inner_cv, _k_choice, _k_grid
from selbayes.models import _gaussian_plugin as gaussian_plugin
from selbayes.preprocessing import _features as features
from tests.estimators._data import two_class_gaussian


@pytest.mark.parametrize("name", sorted(set(old.__all__) - {"choose_k"}) + [
    "_hyper_mode", "_fold_losses", "_candidate_selections", "_stratified_folds"])
def test_old_names_are_the_moved_objects(name):
    # the module that defines it (the inner CV also imports the plug-in's names)
    homes = [m for m in (_inner_cv, _k_choice, _k_grid, gaussian_plugin, features)
             if getattr(getattr(m, name, None), "__module__", None) == m.__name__
             or (name.isupper() and name in vars(m) and m is _k_grid)]
    assert len(homes) == 1, name
    assert getattr(old, name) is getattr(homes[0], name)


def test_old_choose_k_call_reads_the_estimators_settings_and_warns():
    from selbayes import HierarchicalGaussianClassifier

    X, y = two_class_gaussian(2)
    est = HierarchicalGaussianClassifier(temperature="auto", label_noise=0.0,
                                         choice_rule="one_se", random_state=0)
    with pytest.warns(FutureWarning, match="pass the settings as arguments"):
        got = old.choose_k(est, X, y, grid=[2, 4], random_state=0)
    ref = _inner_cv.choose_k(X, y, grid=[2, 4], temperature_grid=_k_grid.DEFAULT_T_GRID,
                             label_noise=0.0, rule="one_se", random_state=0,
                             priors=est._prior_object())
    assert (got.k, got.temperature, got.grid) == (ref.k, ref.temperature, ref.grid)
    np.testing.assert_array_equal(got.score, ref.score)
    # the estimator's own inner CV is the same call
    own = est._choose(X, y, est._choice_settings([2, 4]))
    np.testing.assert_array_equal(own.score, ref.score)
    # the new form passes through unchanged
    new = old.choose_k(X, y, grid=[2, 4], temperature_grid=_k_grid.DEFAULT_T_GRID,
                       label_noise=0.0, rule="one_se", random_state=0,
                       priors=est._prior_object())
    np.testing.assert_array_equal(new.score, ref.score)
