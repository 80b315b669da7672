"""Choosing the prior on the class means by inner cross-validation (``effect_prior="auto"``):
the candidates, the pure choice function against separate ``choose_k`` runs, the direction of
the choice on simulated data whose truth is known, and the classifier built on it."""

import warnings

import numpy as np
import pytest

from selbayes.estimators._inner_cv import choose_k
from selbayes.estimators._prior_choice import (
    DEFAULT_EFFECT_PRIOR_GRID,
    PriorChoice,
    choose_effect_prior,
    effect_prior_candidates,
)
from tests.estimators._data import sparse_strong as _sparse_strong

QUICK = dict(temperature_grid=[1.0], label_noise=0.0, n_draws=50)


# ---------------------------------------------------------------------------- candidates
def test_candidates_are_the_t_prior_at_each_df_and_the_normal_prior():
    cands = effect_prior_candidates({"alpha_x": 3.0}, (1, 4.0, "normal"))
    assert [(label, df) for label, df, _ in cands] == [
        ("t (df = 1)", 1.0), ("t (df = 4)", 4.0), ("normal", None)]
    assert [pr.mu_t_df for _, _, pr in cands] == [1.0, 4.0, None]
    assert all(pr.alpha_x == 3.0 for _, _, pr in cands)        # the other settings kept
    assert [df for _, df, _ in effect_prior_candidates(None, None)] == [
        None if v == "normal" else float(v) for v in DEFAULT_EFFECT_PRIOR_GRID]


@pytest.mark.parametrize(("priors", "grid", "match"), [
    (None, (), "at least one candidate"),
    (None, (2, "cauchy"), "entries must be t degrees of freedom"),
    (None, (0.0,), "entries must be t degrees of freedom"),
    (None, (np.inf,), "entries must be t degrees of freedom"),
    (None, (True,), "entries must be t degrees of freedom"),
    (None, (2, 2.0), "lists 2.0 twice"),
    ({"mu_t_df": 3.0}, (2,), "priors set mu_t_df"),
    ({"pi0_a": 1.0, "pi0_b": 1.0}, (2,), "pi0_a/pi0_b"),
])
def test_bad_candidates_give_one_clear_error(priors, grid, match):
    with pytest.raises(ValueError, match=match):
        effect_prior_candidates(priors, grid)


# ---------------------------------------------------------------------------- the choice
def test_each_candidate_is_scored_as_choose_k_scores_it_on_the_same_folds():
    """The choice is a paired comparison: every candidate's row equals a separate
    ``choose_k`` with that prior and the same integer seed, and the chosen one has the
    lowest score (a second computation of each score, not the function's own)."""
    X, y = _sparse_strong(0)
    cands = effect_prior_candidates(None, (1.0, "normal"))
    ch = choose_effect_prior(X, y, cands, grid=[4, 40], random_state=7, **QUICK)
    seed = int(np.random.default_rng(7).integers(2 ** 31 - 1))
    for i, (_, _, pr) in enumerate(cands):
        ref = choose_k(X, y, grid=[4, 40], priors=pr, random_state=seed, **QUICK)
        assert ch.k[i] == ref.k and ch.temperature[i] == ref.temperature
        assert ch.score[i] == pytest.approx(ref.score.min(), rel=1e-12)
    assert ch.chosen == int(np.argmin(ch.score)) and ch.diff[ch.chosen] == 0.0
    np.testing.assert_allclose(ch.diff, ch.score - ch.score[ch.chosen], atol=1e-12)
    assert np.all(ch.diff_se >= 0)
    with pytest.raises(TypeError, match="candidates"):
        choose_effect_prior(X, y, cands, priors={}, grid=[4])


def test_a_few_strong_markers_choose_heavy_tails_over_the_normal_prior():
    """On sparse strong data the corrected normal prior shrinks the markers (issue 27's coin
    flips), so its inner score is worse than the t prior's: over six independent simulated
    data sets the mean paired difference (normal - t) is positive beyond 2 SE over the data
    sets (each set alone is too small to tell), and the t prior is chosen in most."""
    diffs, families = [], []
    for seed in range(6):
        X, y = _sparse_strong(seed, n=60, p=2000, markers=4, effect=1.5)
        ch = choose_effect_prior(X, y, effect_prior_candidates(None, (2.0, "normal")),
                                 grid=[4, 20], random_state=seed, **QUICK)
        diffs.append(ch.score[1] - ch.score[0])
        families.append(ch.family)
    d = np.array(diffs)
    assert d.mean() > 2 * d.std(ddof=1) / np.sqrt(d.size)
    assert families.count("t") >= 4


def test_the_record_prints_as_a_table_and_reads_back():
    ch = PriorChoice(labels=["t (df = 1)", "normal"], df=np.array([1.0, np.nan]),
                     k=np.array([5, 20]), temperature=np.array([1.0, 1.3]),
                     score=np.array([0.2, 0.3]), se=np.array([0.02, 0.03]),
                     diff=np.array([0.0, 0.1]), diff_se=np.array([0.0, 0.01]), chosen=0)
    text = str(ch)
    assert text.startswith("PriorChoice: t (df = 1)") and "*  t (df = 1)" in text
    import xarray as xr

    back = PriorChoice.from_constant_data(xr.Dataset(ch.to_constant_data()),
                                          chosen_label="t (df = 1)")
    assert back.labels == ch.labels and back.chosen == 0 and back.t_df == 1.0
    np.testing.assert_array_equal(back.k, ch.k)
    np.testing.assert_allclose(back.diff_se, ch.diff_se)
    assert PriorChoice.from_constant_data(xr.Dataset(ch.to_constant_data()),
                                          chosen_label="normal").t_df is None


# ---------------------------------------------------------------------------- the classifier
def _fit(**kw):
    from selbayes import HierarchicalGaussianClassifier

    settings = dict(method="plugin", draws=100, random_state=0, progressbar=False,
                    label_noise=0.0, k_grid=[4, 20])
    settings.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return HierarchicalGaussianClassifier(**settings)


def test_the_classifier_fits_the_chosen_prior_at_the_chosen_k(tmp_path):
    """An "auto" fit predicts exactly as a fit given the chosen prior, k and T directly;
    the choice is recorded and survives save / load."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = _sparse_strong(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = _fit(effect_prior="auto", effect_prior_grid=[1.0, 2.0, "normal"]).fit(X, y)
        pc = auto.prior_choice_
        assert pc.label == auto.idata_.attrs["selbayes_effect_prior_chosen"]
        assert auto.k_ == pc.k[pc.chosen] and auto.k_choice_.k == auto.k_
        family = pc.family
        fixed = _fit(effect_prior=family, k=int(auto.k_),
                     priors=None if pc.t_df is None else {"mu_t_df": pc.t_df}).fit(X, y)
    assert auto.t_df_ == pc.t_df
    assert auto._fitted_priors().mu_t_df == pc.t_df
    np.testing.assert_allclose(auto.predict_proba(X), fixed.predict_proba(X), rtol=1e-10)
    back = HierarchicalGaussianClassifier.load(auto.save(tmp_path / "auto.nc"))
    assert back.prior_choice_.label == pc.label and back.t_df_ == auto.t_df_
    np.testing.assert_allclose(back.prior_choice_.score, pc.score)
    np.testing.assert_allclose(back.predict_proba(X), auto.predict_proba(X))


def test_auto_refuses_what_it_cannot_choose():
    from selbayes import HierarchicalGaussianClassifier

    X, y = _sparse_strong(2, p=200)
    with pytest.raises(ValueError, match="priors set mu_t_df"):
        _fit(effect_prior="auto", priors={"mu_t_df": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="effect_prior_grid entries"):
        _fit(effect_prior="auto", effect_prior_grid=["cauchy"]).fit(X, y)
    with pytest.raises(ValueError, match="fit_path"):
        HierarchicalGaussianClassifier(effect_prior="auto").fit_path(X, y, [4, 8])
    # a fixed k still chooses the prior (k_grid is then that k alone); so does a threshold,
    # at the number of features it keeps
    clf = _fit(effect_prior="auto", effect_prior_grid=[2.0, "normal"], k=6).fit(X, y)
    assert clf.k_ == 6 and set(clf.prior_choice_.k) == {6}
    from selbayes.filters import select_features

    scores = np.sort(select_features(X, y, k=5).scores)[::-1]
    clf = _fit(effect_prior="auto", effect_prior_grid=[2.0, "normal"],
               threshold=float(scores[4] + scores[5]) / 2).fit(X, y)
    assert clf.selection_.n_selected == 5 and set(clf.prior_choice_.k) == {5}
