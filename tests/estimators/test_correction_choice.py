"""Choosing the selection correction itself by inner cross-validation
(``correct_selection="auto"``): the pure choice function against separate ``choose_k`` runs,
the classifier built on it (the same fit as the chosen model given directly), its record
through save / load, and the combinations it refuses."""

import warnings

import numpy as np
import pytest
import xarray as xr

from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators._correction_choice import CorrectionChoice, choose_correction
from selbayes.estimators._inner_cv import choose_k
from tests.estimators._data import sparse_strong

QUICK = dict(temperature_grid=[1.0], label_noise=0.0, n_draws=50)


def _data(seed=0, p=300):
    return sparse_strong(seed, n=40, p=p, markers=3)


def test_both_models_are_scored_as_choose_k_scores_them_on_the_same_folds():
    """Each row equals a separate ``choose_k`` with that correction and the same integer
    seed (the seed is used as given, so the corrected row is the default fit's own inner
    cross-validation), and the lower score is chosen."""
    X, y = _data(0)
    ch = choose_correction(X, y, priors=None, grid=[3, 30], random_state=5, **QUICK)
    assert ch.labels == ["corrected", "uncorrected"]
    for i, corrected in enumerate((True, False)):
        ref = choose_k(X, y, grid=[3, 30], corrected=corrected, random_state=5, **QUICK)
        assert ch.k[i] == ref.k and ch.temperature[i] == ref.temperature
        assert ch.score[i] == pytest.approx(ref.score.min(), rel=1e-12)
    assert ch.chosen == int(np.argmin(ch.score))
    assert ch.corrected is (ch.chosen == 0)
    np.testing.assert_allclose(ch.diff, ch.score - ch.score[ch.chosen], atol=1e-12)
    with pytest.raises(TypeError, match="corrected="):
        choose_correction(X, y, priors=None, corrected=True, grid=[3])


def test_the_record_prints_as_a_table_and_reads_back():
    ch = CorrectionChoice(labels=["corrected", "uncorrected"],
                          k=np.array([5, 500]), temperature=np.array([2.0, 60.0]),
                          score=np.array([0.62, 0.35]), se=np.array([0.04, 0.05]),
                          diff=np.array([0.27, 0.0]), diff_se=np.array([0.05, 0.0]), chosen=1)
    text = str(ch)
    assert text.startswith("CorrectionChoice: uncorrected") and "*  uncorrected" in text
    assert list(ch.table().columns)[0] == "model"
    cd = xr.Dataset(ch.to_constant_data())
    assert "correction_choice_score" in cd and "prior_choice_score" not in cd
    back = CorrectionChoice.from_constant_data(cd, chosen_label="uncorrected")
    assert back.labels == ch.labels and back.chosen == 1 and back.corrected is False
    np.testing.assert_allclose(back.score, ch.score)


def _clf(**kw):
    settings = dict(method="plugin", draws=100, random_state=0, progressbar=False,
                    label_noise=0.0, k_grid=[3, 30])
    settings.update(kw)
    return HierarchicalGaussianClassifier(**settings)


@pytest.mark.parametrize("seed", [0, 3])     # 0 chooses the uncorrected model, 3 the corrected
def test_the_classifier_fits_the_chosen_model_as_if_given(seed, tmp_path):
    """An "auto" fit predicts exactly as a fit given the chosen correction and the same seed
    (its inner cross-validation is then the same one); the choice survives save / load."""
    X, y = _data(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = _clf(correct_selection="auto").fit(X, y)
        cc = auto.correction_choice_
        assert auto.correct_selection_ is cc.corrected
        assert auto.idata_.attrs["selbayes_corrected"] == int(cc.corrected)
        assert auto.k_ == cc.k[cc.chosen] == auto.k_choice_.k
        given = _clf(correct_selection=cc.corrected).fit(X, y)
    assert given.correct_selection_ is cc.corrected and given.correction_choice_ is None
    assert given.k_ == auto.k_
    np.testing.assert_allclose(auto.predict_proba(X), given.predict_proba(X), rtol=1e-10)
    back = HierarchicalGaussianClassifier.load(auto.save(tmp_path / "auto.nc"))
    assert back.correction_choice_.label == cc.label
    assert back.correct_selection_ is cc.corrected
    np.testing.assert_allclose(back.predict_proba(X), auto.predict_proba(X))


def test_auto_refuses_what_it_cannot_combine():
    X, y = _data(1, p=120)
    with pytest.raises(ValueError, match="cannot be combined"):
        _clf(correct_selection="auto", effect_prior="auto").fit(X, y)
    with pytest.raises(ValueError, match="correct_selection='auto'"):
        _clf(correct_selection="auto").fit_path(X, y, [3, 6])
    with pytest.raises(ValueError, match="correct_selection must be"):
        _clf(correct_selection="sometimes").fit(X, y)
