"""StackedGaussianClassifier and stacking_weights (selbayes/estimators/_stacking.py).

The weights are checked against a closed form (two candidates) and a second algorithm (a
constrained optimiser on the simplex); the classifier against separately fitted classifiers at
the kept k, with the plug-in posterior so that every fit is deterministic and fast.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators._stacking import StackedGaussianClassifier, stacking_weights

from ._command_line import assert_command_line_predicts
from ._data import sparse_strong
from ._feature_names import assert_frame_after_array_fit_warns_once_as


def _objective(L, w):
    return float(np.sum(np.log(np.exp(L).T @ w)))


def test_weights_two_candidates_match_the_closed_form():
    # Cases 1, 2: p = 0.9 against 0.5; case 3: 0.1 against 0.5. With w on the first,
    # d/dw [2 log(0.5 + 0.4 w) + log(0.5 - 0.4 w)] = 0 gives w = 0.2 / 0.48.
    w = stacking_weights(np.log([[0.9, 0.9, 0.1], [0.5, 0.5, 0.5]]))
    np.testing.assert_allclose(w, [0.2 / 0.48, 1 - 0.2 / 0.48], atol=1e-6)


def test_weights_match_a_constrained_optimiser():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(2), size=(4, 60))[..., 0]          # 4 candidates, 60 cases
    L = np.log(p)
    w = stacking_weights(L)
    res = minimize(lambda v: -_objective(L, v), np.full(4, 0.25), method="SLSQP",
                   bounds=[(0, 1)] * 4,
                   constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1}],
                   options={"ftol": 1e-12, "maxiter": 500})
    assert w.min() >= 0 and w.sum() == pytest.approx(1.0)
    # The objective is concave: the same optimum value (the weights may differ only where
    # it is flat).
    assert _objective(L, w) == pytest.approx(-res.fun, abs=1e-6)
    assert _objective(L, w) >= -res.fun - 1e-6


def test_weights_of_a_dominated_candidate_vanish_and_copies_share():
    L = np.log([[0.9, 0.8, 0.7], [0.5, 0.4, 0.3]])
    # exactly: the optimum is on the boundary (the second's derivative at w = (1, 0) is
    # mean(0.5/0.9, 0.4/0.8, 0.3/0.7) < 1), where EM alone only comes near it
    np.testing.assert_array_equal(stacking_weights(L), [1.0, 0.0])
    twice = np.log([[0.9, 0.6, 0.2], [0.9, 0.6, 0.2]])
    np.testing.assert_allclose(stacking_weights(twice), [0.5, 0.5])


def test_zeroing_is_kept_only_where_it_is_optimal(monkeypatch):
    """Zeroing is proposed for the weights EM leaves small and kept only where the
    derivative condition holds. With the proposal threshold raised to 0.5 it is proposed for
    the closed-form case's first candidate, whose optimum is 0.2 / 0.48 > 0: its derivative at
    w = (0, 1) is mean(0.9/0.5, 0.9/0.5, 0.1/0.5) = 1.27 > 1, so the proposal is refused and
    the closed form still comes back."""
    from selbayes.estimators import _stacking

    monkeypatch.setattr(_stacking, "_PROPOSE_ZERO", 0.5)
    w = stacking_weights(np.log([[0.9, 0.9, 0.1], [0.5, 0.5, 0.5]]))
    np.testing.assert_allclose(w, [0.2 / 0.48, 1 - 0.2 / 0.48], atol=1e-6)


@pytest.mark.parametrize("bad, match", [(np.zeros(3), "2-D"), (np.zeros((0, 3)), "2-D"),
                                        (np.array([[np.nan, 0.0]]), "NaN")])
def test_weights_refuse_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        stacking_weights(bad)


def _base(**kw):
    params = dict(k_grid=(2, 5, 20, 100), method="plugin", draws=200, progressbar=False,
                  random_state=0)
    params.update(kw)
    return HierarchicalGaussianClassifier(**params)


@pytest.fixture(scope="module")
def data():
    X, y = sparse_strong(1, n=40, p=300, markers=3, effect=1.2)
    return X, y


@pytest.fixture(scope="module")
def stacked(data):
    return StackedGaussianClassifier(_base(), max_components=3, min_weight=0.0).fit(*data)


def test_weights_are_the_inner_cvs_stacking_weights(stacked):
    choice = stacked.k_choice_
    w = stacking_weights(-np.asarray(choice.extra["case_losses"]))
    kept = stacked.stacking_["kept"].to_numpy()
    np.testing.assert_allclose(stacked.stacking_["weight"], w)
    np.testing.assert_allclose(stacked.weights_, w[kept][np.argsort(-w[kept])] / w[kept].sum())
    assert stacked.weights_.sum() == pytest.approx(1.0)
    assert len(stacked.estimators_) == kept.sum() <= 3
    assert stacked.k_ == stacked.estimators_[0].k_


def test_components_equal_separate_fits_and_proba_is_their_average(stacked, data):
    X, y = data
    probas = []
    for est in stacked.estimators_:
        alone = clone(_base()).set_params(k=int(est.k_)).fit(X, y)
        np.testing.assert_array_equal(est.predict_proba(X), alone.predict_proba(X))
        probas.append(alone.predict_proba(X))
    expected = sum(w * p for w, p in zip(stacked.weights_, probas, strict=True))
    np.testing.assert_allclose(stacked.predict_proba(X), expected, rtol=1e-12)
    np.testing.assert_allclose(stacked.predict_log_proba(X), np.log(expected), rtol=1e-12)
    np.testing.assert_array_equal(stacked.predict(X),
                                  stacked.classes_[np.argmax(expected, axis=1)])


def test_one_component_is_the_heaviest_candidate(stacked, data):
    one = StackedGaussianClassifier(_base(), max_components=1).fit(*data)
    heaviest = stacked.stacking_.loc[stacked.stacking_["weight"].idxmax()]
    assert len(one.estimators_) == 1 and one.weights_.tolist() == [1.0]
    assert one.k_ == int(heaviest["k"])


def test_names_and_labels_pass_through(data):
    X, y = data
    frame = pd.DataFrame(X, columns=[f"g{i}" for i in range(X.shape[1])])
    labels = np.where(y == 1, "tumour", "normal")
    # min_weight=0: both candidates kept (k = 5 has weight 0.95), so the union has two parts
    clf = StackedGaussianClassifier(_base(k_grid=(5, 20)), max_components=2,
                                    min_weight=0.0).fit(frame, labels)
    assert clf.feature_names_in_[0] == "g0" and clf.n_features_in_ == X.shape[1]
    # the union of the components' selections, in the F order of the largest one
    largest = max(clf.estimators_, key=lambda e: e.k_)
    assert clf.selected_features_.tolist() == largest.selected_features_.tolist()
    for est in clf.estimators_:
        assert set(est.selected_features_) <= set(clf.selected_features_)
    assert set(clf.predict(frame)) <= {"normal", "tumour"}
    assert clf.evaluate(frame, labels)["n"] == len(y)
    assert clone(clf).get_params()["max_components"] == 2


@pytest.mark.parametrize("estimator, error, match", [
    (HierarchicalGaussianClassifier(k=10), ValueError, "k='auto'"),
    (HierarchicalGaussianClassifier(effect_prior="auto"), ValueError, "effect_prior"),
    (HierarchicalGaussianClassifier(correct_selection="auto"), ValueError,
     "correct_selection"),
    (LogisticRegression(), TypeError, "HierarchicalGaussianClassifier"),
])
def test_refuses_what_it_cannot_stack(data, estimator, error, match):
    with pytest.raises(error, match=match):
        StackedGaussianClassifier(estimator).fit(*data)


@pytest.mark.parametrize("params, match", [({"max_components": 0}, "max_components"),
                                           ({"min_weight": 1.5}, "min_weight")])
def test_refuses_bad_settings(data, params, match):
    with pytest.raises(ValueError, match=match):
        StackedGaussianClassifier(_base(), **params).fit(*data)


def test_unfitted_predict_says_so(data):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        StackedGaussianClassifier().predict_proba(data[0])


def test_pickles_with_its_predictions(stacked, data):
    import pickle

    again = pickle.loads(pickle.dumps(stacked))
    np.testing.assert_array_equal(again.predict_proba(data[0]), stacked.predict_proba(data[0]))


def test_save_load_round_trip_and_the_command_line_reads_it(stacked, data, tmp_path):
    path = stacked.save(tmp_path / "stacked.nc")
    again = StackedGaussianClassifier.load(path)
    X = data[0]
    np.testing.assert_array_equal(again.predict_proba(X), stacked.predict_proba(X))
    np.testing.assert_array_equal(again.weights_, stacked.weights_)
    pd.testing.assert_frame_equal(again.stacking_, stacked.stacking_)
    assert again.k_ == stacked.k_ and again.k_choice_ is None
    # the same settings (as the Gaussian classifier's own load restores them: JSON lists for
    # tuples, the priors spelled out)
    assert again.estimator._model_id() == stacked.estimator._model_id()
    assert_command_line_predicts(path, X[:4], stacked.predict_proba(X[:4]), tmp_path)


def test_load_refuses_another_estimators_file(data, tmp_path):
    one = _base(k=5).fit(*data)
    path = one.save(tmp_path / "one.nc")
    with pytest.raises(ValueError, match="does not hold a StackedGaussianClassifier"):
        StackedGaussianClassifier.load(path)


def test_each_refit_is_announced_with_the_progress_bar(data, capsys):
    clf = StackedGaussianClassifier(_base(progressbar=True), min_weight=0.0).fit(*data)
    err = capsys.readouterr().err
    kept = clf.stacking_["kept"].to_numpy()
    # the inner choice's own fit is reused when it is kept; every other kept one is refitted
    refits = int(kept.sum()) - int(kept[clf.k_choice_._chosen_row()])
    assert refits >= 1
    assert err.count("selbayes: stacking, fit") == refits


def test_kept_components_follow_the_rule_and_renormalise():
    from selbayes.estimators._stacking import kept_components

    keep, w = kept_components([0.1, 0.4, 0.03, 0.4, 0.07], max_components=3, min_weight=0.05)
    assert keep == [1, 3, 0]                              # heaviest first, ties by position
    np.testing.assert_allclose(w, np.array([0.4, 0.4, 0.1]) / 0.9)
    keep, w = kept_components([0.04, 0.03, 0.02, 0.01], min_weight=0.05)
    assert keep == [0] and w.tolist() == [1.0]            # none reaches min_weight: the heaviest


def test_random_state_replaces_the_gaussian_models_seed_and_is_saved(data, tmp_path):
    """As LinearStackedClassifier's: the stack's seed is the Gaussian model's."""
    import warnings

    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_stack = StackedGaussianClassifier(_base(random_state=3), min_weight=0.0,
                                             random_state=0).fit(X, y)
        by_base = StackedGaussianClassifier(_base(random_state=0), min_weight=0.0).fit(X, y)
    np.testing.assert_array_equal(by_stack.predict_proba(X), by_base.predict_proba(X))
    again = StackedGaussianClassifier.load(by_stack.save(tmp_path / "seeded.nc"))
    assert again.random_state == 0


def test_every_fitted_attribute_is_documented(stacked):
    """Each attribute ``fit`` sets is listed in the class docstring's Attributes section."""
    from tests._attributes import undocumented_fitted_attributes

    assert undocumented_fitted_attributes(stacked) == []


def test_frame_after_array_fit_warns_naming_the_stack(stacked, data):
    assert_frame_after_array_fit_warns_once_as(stacked, data[0])
