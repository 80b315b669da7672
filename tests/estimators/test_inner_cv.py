"""Choosing k, lambda and the predictive temperature inside fit: choose_k (a pure function of
its settings), the split of one path's curve per k, the KChoice record, and the classifier's
"auto" settings built on them."""

import warnings

import numpy as np
import pytest

from selbayes.estimators._inner_cv import InnerCVImpossibleError, choose_k, inner_cv_cases
from selbayes.estimators._k_choice import KChoice, choices_per_k, share_label_noise
from selbayes.estimators._k_grid import DEFAULT_T_GRID
from selbayes.models import correlation_temperature
from tests.estimators._choices import same_choice as _same_choice
from tests.estimators._data import two_class_gaussian

# the settings of the naive model's own predictive: T = 1, no label noise
OWN = dict(temperature_grid=[1.0], label_noise=0.0)
# T chosen over the default grid, no label noise
AUTO_T = dict(temperature_grid=DEFAULT_T_GRID, label_noise=0.0)


def _redundant(seed, copies):
    """One informative signal seen through `copies` nearly identical features, plus noise."""
    rng = np.random.default_rng(seed)
    n = 80
    y = np.repeat([0, 1], n // 2)
    signal = 0.9 * y + rng.normal(size=n)
    X = rng.normal(size=(n, 400))
    X[:, :copies] = signal[:, None] + 0.05 * rng.normal(size=(n, copies))
    return X, y


def test_choose_k_tempers_redundant_features_and_records_the_curve():
    X, y = _redundant(3, copies=30)
    ch = choose_k(X, y, grid=[30], random_state=0, **AUTO_T)
    # 30 copies of one signal: the naive predictive counts it 30 times; the inner CV must
    # prefer a large temperature (the ideal is near 30)
    assert ch.temperature >= 8
    tab = ch.table()
    assert list(tab.columns) == ["k", "decorrelate", "temperature", "score", "se"]
    assert ch.score[np.argmin(ch.score)] == tab.score.min()
    assert np.all(ch.se > 0) and ch.extra["case_losses"].shape == (len(ch.grid), 80)


def test_choose_k_keeps_temperature_one_for_independent_features():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 40)
    X = rng.normal(size=(80, 400))
    X[:, :10] += 0.7 * y[:, None]
    ch = choose_k(X, y, grid=[10], random_state=0, **AUTO_T)
    assert ch.temperature <= 2.0


def test_choose_k_with_the_correlation_rule_scores_one_temperature_per_k():
    X, y = _redundant(3, copies=30)
    ch = choose_k(X, y, grid=[10, 30], random_state=0, temperature_grid="correlation",
                  label_noise=0.0)
    assert [g[0] for g in ch.grid] == [10, 30] and ch.extra["case_losses"].shape == (2, 80)
    # 30 near-copies of one signal: T near the number of copies kept
    t10, t30 = (g[2] for g in ch.grid)
    assert 8 < t10 < 12 and 25 < t30 < 35
    assert ch.criterion.endswith("correlation_T")
    with pytest.raises(ValueError, match="temperature_grid must be numbers or 'correlation'"):
        choose_k(X, y, grid=[10], temperature_grid="cv")


def test_choose_k_rejects_bad_grids_and_tiny_classes():
    X, y = _redundant(5, copies=3)
    with pytest.raises(ValueError, match="no candidate k"):
        choose_k(X, y, grid=[400, 1000], **OWN)
    # one class with two cases or more: nothing for inner folds to split
    with pytest.raises(InnerCVImpossibleError, match=r"only 1 of the 3 classes.*\{'0': 1"):
        choose_k(X, np.r_[0, 1, np.full(y.size - 2, 2)], **OWN)


def test_a_class_of_one_case_is_left_out_of_the_inner_folds():
    """A class with a single case cannot be on both sides of an inner split: choose_k scores
    the other classes' cases on their own folds, exactly as it does given only those cases,
    and says which cases its arrays and folds are of."""
    X, y = _redundant(5, copies=3)
    y = y.copy()
    y[7] = 2                                     # class 2: one case
    assert inner_cv_cases(y).tolist() == [i for i in range(y.size) if i != 7]
    ch = choose_k(X, y, grid=[3, 20], random_state=0, label_noise="cv")
    rest = np.flatnonzero(y != 2)
    alone = choose_k(X[rest], y[rest], grid=[3, 20], random_state=0, label_noise="cv")
    np.testing.assert_array_equal(ch.extra["cases"], rest)
    assert "cases" not in alone.extra and ch.k == alone.k
    np.testing.assert_array_equal(ch.score, alone.score)
    np.testing.assert_array_equal(ch.extra["case_log_proba"], alone.extra["case_log_proba"])
    assert ch.extra["label_noise_c"] == alone.extra["label_noise_c"]
    for (tr, te), (tr2, te2) in zip(ch.extra["folds"], alone.extra["folds"], strict=True):
        np.testing.assert_array_equal(tr, tr2)
        np.testing.assert_array_equal(te, te2)
    # the per-k split of the curve keeps the cases with the folds
    np.testing.assert_array_equal(choices_per_k(ch, [3])[3].extra["cases"], rest)


# --------------------------------------------------------------------------- the estimator
def _fast(**kw):
    from selbayes import HierarchicalGaussianClassifier

    base = dict(draws=200, tune=200, chains=1, random_state=0, progressbar=False)
    return HierarchicalGaussianClassifier(**{**base, **kw})


def test_k_auto_with_few_features_and_a_grid_above_p():
    """Fewer features than the default grid's first k: the grid is the largest k there is
    (the audit's 'no candidate k in [3] is below p = 3'); a given grid with no k below p is an
    error naming that grid, not a clipped one."""
    X, y = two_class_gaussian(n=30, p=3)
    clf = _fast(method="plugin").fit(X, y)
    assert clf.k_ == 2 and clf.k_choice_.k == 2
    with pytest.raises(ValueError, match=r"k_grid \[500, 1000\] has no k up to 2 \(k must "
                                         r"leave at least one of the 3 features omitted\)"):
        _fast(method="plugin", k_grid=[1000, 500]).fit(X, y)


def test_default_fit_is_invariant_to_units_and_shifts():
    """Standardisation makes the inputs identical up to rounding: with the same seed the inner
    choice (k, T), the standardised kept features the model sees and the predictions of the
    deterministic plug-in fit must agree to rounding error, not MC error. NUTS draws are not
    compared one by one: a trajectory amplifies a rounding difference in its input (two such
    fits at k = 8 of these data, inputs equal to 1e-15, gave mean tau_mu 139 and 128 over 200
    draws of one chain: a Monte Carlo difference, not one of the model)."""
    X, y = two_class_gaussian(1)
    rng = np.random.default_rng(2)
    shift = rng.normal(size=X.shape[1]) * 50

    def kept(clf, X):
        idx = clf.selection_.indices
        return (X[:, idx] - clf.feature_center_) / clf.feature_scale_

    # the default configuration (k by inner CV, the correlation temperature, label noise);
    # the grid's choice here, k = 10 with two classes, is the t-prior model
    # tests/cli/test_predict.py and tests/evaluation/test_ppc.py sample (make test's time is
    # mostly compiling; each k is a model of its own)
    grid = [4, 10]
    ref_clf = _fast(k_grid=grid).fit(X, y)
    assert ref_clf.k_ == 10
    ref_plugin = _fast(k_grid=grid, method="plugin").fit(X, y).predict_proba(X)
    for c in (1e-4, 1e4):
        clf = _fast(k_grid=grid).fit(c * X + shift, y)
        assert clf.k_ == ref_clf.k_
        assert np.isclose(clf.temperature_, ref_clf.temperature_, rtol=1e-9)
        np.testing.assert_allclose(kept(clf, c * X + shift), kept(ref_clf, X), atol=1e-9)
        plugin = _fast(k_grid=grid, method="plugin").fit(c * X + shift, y)
        np.testing.assert_allclose(plugin.predict_proba(c * X + shift), ref_plugin, atol=1e-9)


def test_a_class_of_one_training_case_is_fitted_and_survives_save_load(tmp_path):
    """The Gaussian classifier fits a class with a single training case (its mean is that
    case; the pooled within-class variance comes from the others), warns, chooses its inner
    settings on the other classes, and the fit survives save and load."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = _redundant(5, copies=3)
    y = y.copy()
    y[7] = 2
    X = X.copy()
    X[7, 100:110] += 6.0                         # its own markers, far out
    with pytest.warns(UserWarning, match="2 have a single training case"):
        clf = _fast(method="plugin", k_grid=[3, 20]).fit(X, y)
    rest = np.flatnonzero(y != 2)
    assert clf.k_ == _fast(method="plugin", k_grid=[3, 20]).fit(X[rest], y[rest]).k_
    proba = clf.predict_proba(X)
    assert proba.shape == (y.size, 3)
    back = HierarchicalGaussianClassifier.load(clf.save(tmp_path / "one.nc"))
    np.testing.assert_allclose(back.predict_proba(X), proba, atol=1e-12)


def test_the_label_check_beside_a_class_of_one_case_names_cases_by_their_own_numbers():
    """The held-out label check runs on the cases the inner folds split: a mislabelled case
    is named by its own case number (not its place among those cases), and the single
    case's row of loo_checks_ is empty beside its PSIS-LOO row."""
    from selbayes.evaluation import SuspectLabelWarning

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 200))
    y = np.repeat([0, 1], 20)
    X[y == 1, :20] += 5.0
    y[7], y[12] = 2, 1                         # 7: a class of its own; 12: a wrong label
    X[7, 100:110] += 6.0
    with pytest.warns(SuspectLabelWarning, match=r"1 of 39 training cases .*: 12 \(p ="):
        clf = _fast(method="plugin", k_grid=[3, 20]).fit(X, y)
    table = clf.loo_checks_
    assert len(table) == 40 and np.isfinite(table["pareto_k"]).all()
    assert np.isnan(table.loc[7, "held_out_proba"])
    assert bool(table.loc[12, "suspect_label"])
    assert table["suspect_label"].eq(True).sum() == 1


def test_auto_choice_is_stored_and_survives_save_load(tmp_path):
    from selbayes import HierarchicalGaussianClassifier

    X, y = two_class_gaussian(3)
    # the grid ends at 10, the shape tests/cli/test_predict.py's round trip compiles (one
    # compile for both)
    clf = _fast(k="auto", temperature="auto", k_grid=[2, 10]).fit(X, y)
    assert clf.k_ in (2, 10) and clf.selection_.n_selected == clf.k_
    assert clf.k_choice_.k == clf.k_ and clf.k_choice_.temperature == clf.temperature_
    assert len(clf.k_choice_.grid) == 2 * len(DEFAULT_T_GRID)
    # the default label_noise="cv": the share c / (n + 2) that the same inner CV chose
    assert clf.label_noise_ == share_label_noise(clf.k_choice_.extra["label_noise_c"], len(y))
    proba = clf.predict_proba(X)
    path = clf.save(tmp_path / "m.nc")
    back = HierarchicalGaussianClassifier.load(path)
    np.testing.assert_allclose(back.predict_proba(X), proba, atol=1e-12)
    assert back.temperature_ == clf.temperature_ and back.k_ == clf.k_
    np.testing.assert_allclose(back.k_choice_.score, clf.k_choice_.score)


def test_default_temperature_is_the_correlation_rule_of_the_selected_features():
    from selbayes.preprocessing import Standardization

    X, y = _redundant(6, copies=4)
    clf = _fast(k=4).fit(X, y)
    assert clf.temperature == "correlation"
    Xs = X[:, clf.selection_.indices]
    assert np.isclose(clf.temperature_, correlation_temperature(
        Standardization("within").fit(Xs, y, 2).transform(Xs), y, 2), rtol=1e-9)
    assert 3 < clf.temperature_ < 5                     # 4 near-copies of one signal
    auto = _fast(k="auto", k_grid=[2, 4]).fit(X, y)
    # the inner CV standardises all p features, the fit only the kept ones: equal to rounding
    assert np.isclose(auto.k_choice_.temperature, auto.temperature_, rtol=1e-12)


def test_decorrelated_fit_predicts_through_the_stored_rows():
    X, y = two_class_gaussian(4, p=60)
    clf = _fast(k=4, temperature=1.0, decorrelate=5.0).fit(X, y)
    assert clf.transform_rows_.shape == (4, 60)
    from selbayes.preprocessing import prepare_features

    Z, _ = prepare_features(X, y, 2, decorrelate=5.0)
    np.testing.assert_allclose(clf._select_test_columns(X), Z[:, clf.selection_.indices],
                               atol=1e-10)


def test_exact_model_settings_give_the_untransformed_model():
    """EXACT_MODEL: no standardisation, no tempering, no label noise: the predictive is the
    model's own, computed on the raw selected columns."""
    from selbayes.estimators import EXACT_MODEL
    from selbayes.models import (
        class_log_prior,
        factorised_predictive_log_proba,
        hyperparameter_groups,
    )

    X, y = two_class_gaussian(5)
    # k = 10: the shape of the model tests/test_demo.py compiles (one compile for both)
    clf = _fast(k=10, **EXACT_MODEL).fit(3.0 * X + 1.0, y)
    assert clf.k_choice_ is None and clf.temperature_ == 1.0 and clf.label_noise_ == 0.0
    raw = (3.0 * X + 1.0)[:, clf.selection_.indices]
    tau_mu = clf.idata_.posterior["tau_mu"].values.ravel()    # every draw kept (< 1000)
    ref = factorised_predictive_log_proba(raw, clf.pred_mean_, clf.pred_precision_,
                                          class_log_prior(clf.selection_.class_counts, 1.0),
                                          max_draws=None, groups=hyperparameter_groups(tau_mu))
    np.testing.assert_allclose(clf.predict_log_proba(3.0 * X + 1.0), ref, atol=1e-12)


def test_choose_k_works_with_a_class_of_two_training_cases():
    # A rare class (2 training cases, as in 5-fold CV on a class of 3) leaves one case of it in
    # each inner training fold; the F statistic and the model still apply (n - G >= 1).
    X, y = _redundant(6, copies=5)
    y = y.copy()
    y[:2] = 2                                   # class 2: two cases
    ch = choose_k(X, y, grid=[5, 20], random_state=0, **OWN)
    assert ch.n_splits == 2 and ch.k in (5, 20)
    assert np.all(np.isfinite(ch.score))


def _within_one_se(choice) -> list:
    """Rows of ``choice``'s curve within one paired SE of its best, by brute force from the
    stored case losses (the reference of the one-SE rules)."""
    L = choice.extra["case_losses"]
    b = int(np.argmin(choice.score))
    return [i for i in range(len(choice.grid)) if choice.score[i]
            <= choice.score[b] + np.std(L[i] - L[b], ddof=1) / np.sqrt(L.shape[1])]


def test_one_se_rule_takes_the_smallest_temperature_within_a_paired_se():
    """Reference: the rule recomputed here from the stored case losses by brute force."""
    X, y = _redundant(3, copies=30)
    ref = choose_k(X, y, grid=[10, 30], random_state=0, **AUTO_T)
    ch = choose_k(X, y, grid=[10, 30], random_state=0, rule="one_se", **AUTO_T)
    np.testing.assert_array_equal(ch.score, ref.score)        # same curve, other pick
    within = _within_one_se(ref)
    t_min = min(ref.grid[i][2] for i in within)
    expected = min((i for i in within if ref.grid[i][2] == t_min), key=lambda i: ref.score[i])
    assert (ch.k, ch.temperature) == (ref.grid[expected][0], ref.grid[expected][2])
    assert ch.temperature <= ref.temperature
    assert ch.extra["rule"] == "one_se"
    with pytest.raises(ValueError, match="rule must be"):
        choose_k(X, y, grid=[10], random_state=0, rule="min", **AUTO_T)


def test_largest_k_rule_takes_the_largest_k_within_a_paired_se():
    """Reference: the rule recomputed here from the stored case losses by brute force, on
    weak signal spread over 100 of 300 features, where the inner curve is flat and the rule
    moves k away from the best score's k = 5."""
    from selbayes.estimators._k_choice import pick_candidate

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 300))
    X[:, :100] += 0.12 * y[:, None]
    ref = choose_k(X, y, grid=[5, 20, 100], random_state=0, **OWN)
    ch = choose_k(X, y, grid=[5, 20, 100], random_state=0, rule="largest_k_one_se", **OWN)
    np.testing.assert_array_equal(ch.score, ref.score)        # same curve, other pick
    within = _within_one_se(ref)
    k_max = max(ref.grid[i][0] for i in within)
    assert ch.k == k_max and ch.extra["rule"] == "largest_k_one_se"
    assert ref.k == 5 and ch.k > ref.k                  # the data make the two rules differ
    assert "(the largest k within one paired SE of the best" in " ".join(str(ch).split())
    L = ref.extra["case_losses"]
    with pytest.raises(ValueError, match="needs the candidates' ks"):
        pick_candidate(L, [1.0] * len(L), "largest_k_one_se")
    with pytest.raises(ValueError, match="'largest_k_one_se'"):
        pick_candidate(L, [1.0] * len(L), "largest")


def test_the_classifier_offers_every_rule_and_passes_it_on(tmp_path):
    """Every rule of choose_k is a valid choice_rule; the fitted choice records it and says
    it when printed, also after save and load."""
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._k_choice import RULES

    options = HierarchicalGaussianClassifier._parameter_constraints["choice_rule"][0].options
    assert set(options) == set(RULES)
    clf = HierarchicalGaussianClassifier(choice_rule="largest_k_one_se")
    assert clf._choice_settings(None)["rule"] == "largest_k_one_se"
    X, y = two_class_gaussian(seed=1, n=40, p=60)
    est = HierarchicalGaussianClassifier(choice_rule="one_se", k_grid=[5, 20], method="plugin",
                                         draws=100, random_state=0, progressbar=False).fit(X, y)
    est.save(tmp_path / "fit.nc")
    back = HierarchicalGaussianClassifier.load(tmp_path / "fit.nc")
    for fitted in (est, back):
        assert fitted.k_choice_.extra["rule"] == "one_se"
        assert "the smallest temperature within one paired SE" in " ".join(
            str(fitted.k_choice_).split())


def test_a_path_curve_split_per_k_equals_choosing_at_each_k_alone():
    """The candidates do not interact: the same folds and seeds score each, so the curve of one
    k inside a path's inner CV is exactly that of choose_k at that k alone, bit for bit."""
    X, y = _redundant(7, copies=6)
    settings = dict(temperature_grid=[1.0, 3.0], label_noise="auto", random_state=1)
    per_k = choices_per_k(choose_k(X, y, grid=[3, 6, 12], **settings), [3, 6, 12, 999])
    assert sorted(per_k) == [3, 6, 12]                 # k >= p is left to the fit to report
    for k, got in per_k.items():
        alone = choose_k(X, y, grid=[k], **settings)
        _same_choice(got, alone)
        np.testing.assert_array_equal(got.extra["case_losses"], alone.extra["case_losses"])


def test_choose_k_reads_no_estimator():
    """A pure function of explicit settings: an estimator in X's place is bad input, not a
    source of settings."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = two_class_gaussian(0)
    with pytest.raises((TypeError, ValueError)):
        choose_k(HierarchicalGaussianClassifier(), X, y)
    with pytest.raises(TypeError):
        choose_k(X, y, [5, 10])                       # settings are keyword-only


def _spread(seed, p=300, n_effects=240):
    """Weak effects on most features: the inner score keeps falling as k grows."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, p))
    X[:, :n_effects] += 0.35 * y[:, None]
    return X, y


def test_extended_grid_equals_the_grid_written_out():
    """Extension scores the next k on the same folds and seeds, so its curve is that of
    choose_k over the grid with those values written out, bit for bit; it stops at the
    first k that scores worse than the best, or at extend_to."""
    X, y = _spread(0)
    settings = dict(temperature_grid="correlation", label_noise="auto", random_state=2)
    plain = choose_k(X, y, grid=[2, 5], **settings)
    assert plain.k == 5                                 # the curve still falls at the end
    ext = choose_k(X, y, grid=[2, 5], extend_to=299, **settings)
    ks = ext.extra["k_grid"]
    assert ks[:3] == [2, 5, 10] and len(ks) > 3 and ext.k > 5
    # stopped because the last k scored worse than the best, or at the cap
    assert ext.k != ks[-1] or ks[-1] == 299
    _same_choice(ext, choose_k(X, y, grid=ks, **settings))
    capped = choose_k(X, y, grid=[2, 5], extend_to=12, **settings)
    assert capped.extra["k_grid"][-1] <= 12


def test_progress_shows_each_pass_over_the_folds_and_changes_nothing(capsys):
    """One bar for the grid and one per continued k, each over the inner folds; the choice
    is the bar-less one, bit for bit."""
    X, y = _spread(0)
    settings = dict(temperature_grid="correlation", label_noise="auto", random_state=2,
                    grid=[2, 5], extend_to=299, cv=3)
    quiet = choose_k(X, y, **settings)
    assert "choosing k" not in capsys.readouterr().err
    shown = choose_k(X, y, progressbar=True, **settings)
    err = capsys.readouterr().err
    _same_choice(shown, quiet)
    assert "choosing k: inner cross-validation, k = 2 to 5" in err and "3/3" in err
    assert f"k = {quiet.extra['k_grid'][2]}:" in err           # the first continued k


def test_default_grid_is_extended_when_switched_on_and_a_given_grid_never(monkeypatch):
    import selbayes.estimators._gaussian as gauss
    import selbayes.estimators._k_grid as k_grid

    X, y = _spread(1)
    monkeypatch.setattr(k_grid, "DEFAULT_K_GRID", (2, 5))
    monkeypatch.setattr(gauss, "EXTEND_DEFAULT_K_GRID", False)
    off = _fast(method="plugin").fit(X, y)
    assert off.k_choice_.extra["k_grid"] == [2, 5]
    monkeypatch.setattr(gauss, "EXTEND_DEFAULT_K_GRID", True)
    clf = _fast(method="plugin").fit(X, y)
    # the best of (2, 5) is at the end, so 10 is scored (and more while the best is last)
    assert clf.k_choice_.extra["k_grid"][:3] == [2, 5, 10]
    assert clf.k_ == clf.k_choice_.k
    given = _fast(method="plugin", k_grid=(2, 5)).fit(X, y)
    assert given.k_choice_.extra["k_grid"] == [2, 5] and given.k_ == 5


@pytest.mark.parametrize("label_noise", ["auto", "cv"])
def test_inner_scores_are_in_the_order_of_the_cases(label_noise):
    """The inner test cases' losses and log probabilities are stored case by case in the order
    of y (another model's losses on the same folds are paired with them): a mislabelled case
    has the largest loss at its own index, not at its place among the concatenated folds."""
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 200))
    X[:, :10] += 2.5 * y[:, None]
    wrong = 7                                   # a class-0 case with class-1 expression
    y_obs = y.copy()
    y_obs[wrong] = 1 - y[wrong]
    ch = choose_k(X, y_obs, grid=[10], label_noise=label_noise, random_state=0)
    order = np.concatenate([te for _, te in ch.extra["folds"]])
    assert np.flatnonzero(order == wrong)[0] != wrong    # the check can tell the two apart
    losses, logp = ch._chosen_case_losses(), ch._chosen_case_log_proba()
    assert int(np.argmax(losses)) == wrong
    np.testing.assert_allclose(losses, -logp[np.arange(40), y_obs], rtol=1e-12)
    np.testing.assert_allclose(np.exp(logp).sum(axis=1), 1.0, rtol=1e-12)
    assert ch.extra["case_log_proba"].shape == (1, 40, 2)


def test_one_repeat_is_the_single_split_and_more_repeats_average_each_case_over_splits():
    """repeats=1 is the inner CV as before, bit for bit. With repeats=3 the first split is that
    one, the others are further stratified partitions of the same cases, a case's loss is its
    mean over the three (so it differs from the first split's own), the score is the mean of
    those losses, and a mislabelled case keeps the largest loss at its own index (fails if
    a split's losses were added in its folds' order instead of the cases')."""
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 200))
    X[:, :10] += 1.5 * y[:, None]
    wrong = 7
    y_obs = y.copy()
    y_obs[wrong] = 1 - y[wrong]
    settings = dict(grid=[5, 20], label_noise="cv", random_state=0)
    one, also_one = choose_k(X, y_obs, **settings), choose_k(X, y_obs, repeats=1, **settings)
    three = choose_k(X, y_obs, repeats=3, **settings)
    for key in ("case_losses", "case_log_proba", "share_case_losses"):
        np.testing.assert_array_equal(one.extra[key], also_one.extra[key])
    assert len(one.extra["splits"]) == 1 and len(three.extra["splits"]) == 3
    first = [te for _, te in three.extra["folds"]]
    for (_, a), (_, b) in zip(one.extra["folds"], three.extra["folds"], strict=True):
        np.testing.assert_array_equal(a, b)
    tests = [np.sort(np.concatenate([te for _, te in split])) for split in three.extra["splits"]]
    for t in tests:
        np.testing.assert_array_equal(t, np.arange(40))           # each split a partition
    for split in three.extra["splits"][1:]:                       # and not the first again
        assert any(not np.array_equal(np.sort(a), np.sort(b))
                   for a, b in zip(first, [te for _, te in split], strict=True))
        for tr, te in split:                                      # stratified: both classes
            assert set(y_obs[te]) == {0, 1} and np.intersect1d(tr, te).size == 0
    # the log probabilities are the first split's, the losses the mean over three
    np.testing.assert_array_equal(three.extra["case_log_proba"], one.extra["case_log_proba"])
    L1, L3 = one.extra["case_losses"], three.extra["case_losses"]
    assert L3.shape == L1.shape and not np.allclose(L3, L1)
    np.testing.assert_allclose(three.score, L3.mean(axis=1), rtol=1e-12)
    assert int(np.argmax(three._chosen_case_losses())) == wrong
    assert "x 3 splits" in " ".join(str(three).split())
    with pytest.raises(ValueError, match="repeats must be a positive integer"):
        choose_k(X, y_obs, grid=[5], repeats=0)


def test_the_classifier_passes_inner_repeats_on_and_rejects_a_bad_value(tmp_path):
    """inner_repeats reaches choose_k (its splits are recorded on the fitted choice, which
    says so when printed, also after save and load); 0 is named in the error."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = two_class_gaussian(seed=1, n=40, p=60)
    est = HierarchicalGaussianClassifier(inner_repeats=2, k_grid=[5, 20], method="plugin",
                                         draws=100, random_state=0, progressbar=False)
    est.fit(X, y)
    assert len(est.k_choice_.extra["splits"]) == 2 and est.k_choice_.n_repeats == 2
    est.save(tmp_path / "fit.nc")
    back = HierarchicalGaussianClassifier.load(tmp_path / "fit.nc")
    assert back.inner_repeats == 2
    assert "5 inner folds x 2 splits" in " ".join(str(back.k_choice_).split())
    np.testing.assert_array_equal(back.k_choice_.score, est.k_choice_.score)
    with pytest.raises(ValueError, match="inner_repeats"):
        HierarchicalGaussianClassifier(inner_repeats=0, method="plugin").fit(X, y)


def test_repeated_scores_are_the_means_of_single_split_runs(monkeypatch):
    """The reference is three ordinary runs: with the fold maker patched to hand out three
    given splits (drawing from the random stream as the real one does, so the plug-in's draws
    are the same), repeats=3's case losses, per-share losses and scores are the means of the
    three single-split runs', its chosen k the best of those mean scores, and its log
    probabilities and folds the first run's."""
    from selbayes.estimators import _inner_cv
    from selbayes.evaluation._folds import stratified_folds

    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 150))
    X[:, :8] += 0.8 * y[:, None]
    given = [stratified_folds(y, 5, seed) for seed in (11, 12, 13)]
    real = _inner_cv._stratified_folds

    def handing(queue):
        def fake(y_index, n_splits, rng, groups=None, classes=None):
            n, _ = real(y_index, n_splits, rng)      # the same draws from the stream
            return n, queue.pop(0)
        return fake

    settings = dict(grid=[5, 20, 50], label_noise="cv", random_state=0)
    singles = []
    for split in given:
        monkeypatch.setattr(_inner_cv, "_stratified_folds", handing([split]))
        singles.append(choose_k(X, y, **settings))
    monkeypatch.setattr(_inner_cv, "_stratified_folds", handing(list(given)))
    three = choose_k(X, y, repeats=3, **settings)
    for key in ("case_losses", "share_case_losses"):
        np.testing.assert_allclose(three.extra[key],
                                   np.mean([s.extra[key] for s in singles], axis=0), rtol=1e-12)
    mean_score = np.mean([s.score for s in singles], axis=0)
    np.testing.assert_allclose(three.score, mean_score, rtol=1e-12)
    assert three.k == three.grid[int(np.argmin(mean_score))][0]
    np.testing.assert_array_equal(three.extra["case_log_proba"],
                                  singles[0].extra["case_log_proba"])
    assert all(a is b for a, b in zip(three.extra["splits"], given, strict=True))
    # the three runs differ, so the mean is a real test of the averaging
    assert not np.allclose(singles[0].extra["case_losses"], singles[1].extra["case_losses"])


def _hand_choice(L, S=None, rule="best"):
    """A KChoice over candidates k = 5, 10, 20 whose inner losses are ``L`` (3, 10), folds
    of cases 0-4 and 5-9, every class's log probabilities built so that the true class's is
    -L (two classes, the true class 0)."""
    lp = np.stack([-L, np.log(-np.expm1(-L))], axis=-1)              # (3, 10, 2)
    extra = {"case_losses": L, "case_log_proba": lp, "rule": rule,
             "folds": [(np.arange(5, 10), np.arange(5)), (np.arange(5), np.arange(5, 10))]}
    if S is not None:
        extra.update(share_case_losses=S, share_case_log_proba=np.stack(
            [-S, np.log(-np.expm1(-S))], axis=-1), label_noise_c=1.0)
    return KChoice(k=5, decorrelate=None, temperature=1.0,
                   grid=[(5, None, 1.0), (10, None, 1.0), (20, None, 1.0)],
                   score=L.mean(axis=1), se=np.zeros(3),
                   criterion="inner_cv_log_score_plugin", n_splits=2, extra=extra)


def test_each_fold_is_scored_at_the_choice_of_the_other_folds_cases():
    """Candidate 0 is best on all cases only through fold 0's cases (written out: 0.1 there
    against 0.5 and 0.6, and 0.5 on fold 1 against 0.4 and 0.45); so fold 0's cases are
    scored at the choice of fold 1's (candidate 1), fold 1's at that of fold 0's (candidate
    0): the honest score 0.5 per case, above the chosen candidate's 0.3."""
    L = np.array([[0.1] * 5 + [0.5] * 5, [0.5] * 5 + [0.4] * 5, [0.6] * 5 + [0.45] * 5])
    ch = _hand_choice(L)
    assert ch._chosen_row() == 0 and ch._fold_choices() == [(1, None), (0, None)]
    honest = -ch._fold_chosen_case_log_proba()[:, 0]
    np.testing.assert_allclose(honest, [0.5] * 5 + [0.5] * 5)
    assert honest.mean() > ch._chosen_case_losses().mean() + 0.19


def test_each_fold_chooses_its_label_noise_share_on_the_other_folds_cases():
    """With a share curve the fold's share too is chosen on the other cases (at the fold's
    candidate), and its log probabilities are that share's."""
    from selbayes.estimators._k_choice import LABEL_NOISE_SHARES

    L = np.full((3, 10), 0.5)
    L[1] = 0.4                                                   # candidate 1 everywhere
    S = np.full((3, len(LABEL_NOISE_SHARES), 10), 0.6)
    S[1, LABEL_NOISE_SHARES.index(4.0), :5] = 0.2                 # share 4 best on fold 0
    S[1, LABEL_NOISE_SHARES.index(0.0), 5:] = 0.3                 # share 0 best on fold 1
    ch = _hand_choice(L, S)
    assert ch._fold_choices() == [(1, 0.0), (1, 4.0)]
    honest = -ch._fold_chosen_case_log_proba()[:, 0]
    np.testing.assert_allclose(honest, [0.6] * 5 + [0.6] * 5)


def test_a_grid_clipped_at_p_scores_every_usable_feature_as_its_last_candidate(tmp_path):
    """k_grid_beyond_p="clip" (the default): grid values above the largest usable k (p - 1)
    become that k, so the inner cross-validation scores (nearly) all features where p is at
    most the grid's last value; its curve is the one of the grid with p - 1 written out, and
    "drop" (the default before 2026-12-06) leaves those values out."""
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._k_grid import usable_k_grid

    X, y = two_class_gaussian(n=40, p=30)
    ks = lambda clf: [int(g[0]) for g in clf.k_choice_.grid]            # noqa: E731
    dropped = _fast(method="plugin", k_grid=[5, 10, 50, 100], k_grid_beyond_p="drop").fit(X, y)
    clipped = _fast(method="plugin", k_grid=[5, 10, 50, 100]).fit(X, y)
    written = _fast(method="plugin", k_grid=[5, 10, 29]).fit(X, y)
    assert ks(dropped) == [5, 10] and ks(clipped) == [5, 10, 29] == ks(written)
    np.testing.assert_array_equal(clipped.k_choice_.score, written.k_choice_.score)
    np.testing.assert_array_equal(clipped.k_choice_.score[:2], dropped.k_choice_.score)
    assert clipped.k_ == written.k_
    back = HierarchicalGaussianClassifier.load(clipped.save(tmp_path / "clip.nc"))
    assert back.get_params()["k_grid_beyond_p"] == "clip"
    # the grid rule alone: nothing changes where p is above the grid's end
    assert usable_k_grid([5, 2000], 22282, "clip") == [5, 2000]
    assert usable_k_grid([5, 2000], 1999) == [5, 1999]
    assert usable_k_grid([5, 2000], 1999, "drop") == [5]
    with pytest.raises(ValueError, match="k_grid_beyond_p"):
        _fast(method="plugin", k_grid_beyond_p="cap").fit(X, y)


# ------------------------------------------------------------------------------ grouped cases
def _twins(seed=0, n=40, p=200):
    """Cases 2i and 2i + 1 are twins (the second a noisy copy of the first, same class): one
    group per pair."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :5] += 0.8 * y[:, None]
    X[1::2] = X[0::2] + 0.05 * rng.normal(size=(n // 2, p))
    return X, y, np.arange(n) // 2


def _splits_groups(split, groups) -> bool:
    """Whether some inner fold has a group on both sides."""
    return any(not set(groups[tr]).isdisjoint(groups[te]) for tr, te in split)


def test_groups_keep_every_inner_split_whole():
    """With groups no inner split of any repeat puts a twin on each side; without them some
    split does (so the check can fail). The record says how many groups."""
    X, y, groups = _twins()
    ch = choose_k(X, y, grid=[2, 8], random_state=0, repeats=3, groups=groups, **OWN)
    assert len(ch.extra["splits"]) == 3
    assert not any(_splits_groups(s, groups) for s in ch.extra["splits"])
    assert ch.extra["n_groups"] == 20
    assert "5 inner folds of 20 groups kept whole" in " ".join(str(ch).split())
    for split in ch.extra["splits"]:      # each split tests every case once
        np.testing.assert_array_equal(np.sort(np.concatenate([te for _, te in split])),
                                      np.arange(y.size))
    plain = choose_k(X, y, grid=[2, 8], random_state=0, repeats=3, **OWN)
    assert any(_splits_groups(s, groups) for s in plain.extra["splits"])
    assert "n_groups" not in plain.extra


def test_groups_with_a_class_of_one_case():
    """A class with a single training case is left out of the inner folds, and so is its
    group code: the groups of the other cases are kept whole."""
    X, y, groups = _twins()
    X = np.vstack([X, X[:1] + 3.0])
    y, groups = np.append(y, 2), np.append(groups, 99)
    ch = choose_k(X, y, grid=[2, 8], random_state=0, groups=groups, **OWN)
    cases = ch.extra["cases"]
    assert 40 not in cases and not _splits_groups(ch.extra["folds"], groups[cases])


def test_groups_that_cannot_be_split_are_named():
    X, y, _ = _twins()
    with pytest.raises(InnerCVImpossibleError, match="form a single group"):
        choose_k(X, y, grid=[2], random_state=0, groups=np.zeros(40), **OWN)
    # every case of class 1 in one group: the fold testing it trains without class 1
    lumped = np.where(y == 1, 100, np.arange(40))
    with pytest.raises(InnerCVImpossibleError, match=r"no case of class\(es\) \[1\]"):
        choose_k(X, y, grid=[2], random_state=0, groups=lumped, **OWN)
    with pytest.raises(ValueError, match=r"one label per case \(40\)"):
        choose_k(X, y, grid=[2], random_state=0, groups=np.arange(39), **OWN)
    with pytest.raises(ValueError, match="missing label"):
        choose_k(X, y, grid=[2], random_state=0, groups=[None] + list(range(39)), **OWN)


def test_classifier_passes_groups_to_its_inner_choices():
    """fit(X, y, groups=...) gives the groups to every inner choice (k; the prior, whose
    candidates are scored on the same folds); fit_path too."""
    X, y, groups = _twins()
    clf = _fast(method="plugin", k_grid=(2, 8, 32)).fit(X, y, groups=groups)
    assert clf.k_choice_.extra["n_groups"] == 20
    assert not _splits_groups(clf.k_choice_.extra["folds"], groups)
    plain = _fast(method="plugin", k_grid=(2, 8, 32)).fit(X, y, groups=None)
    assert _splits_groups(plain.k_choice_.extra["folds"], groups)
    by_prior = _fast(method="plugin", k_grid=(2, 8), effect_prior="auto").fit(X, y,
                                                                              groups=groups)
    assert all(not _splits_groups(c.extra["folds"], groups)
               for c in by_prior.prior_choice_.k_choices)
    path = _fast(method="plugin", temperature="auto").fit_path(X, y, [2, 8], groups=groups)
    assert not _splits_groups(path[8].k_choice_.extra["folds"], groups)
    with pytest.raises(InnerCVImpossibleError, match="single group"):
        _fast(method="plugin").fit(X, y, groups=np.zeros(40))


def test_groups_that_leave_too_few_training_cases_are_named():
    """One large group and two single cases in two folds: the fold that tests the large group
    trains on one case, too few for a within-class variance, which is named (not a NaN from
    deep inside)."""
    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 5)
    X = rng.normal(size=(10, 30)) + y[:, None]
    groups = np.array([0] * 8 + [1, 2])
    with pytest.raises(InnerCVImpossibleError, match=r"holds 1 case\(s\) for 2 classes"):
        choose_k(X, y, grid=[2], cv=2, random_state=0, groups=groups, **OWN)


def test_samples_that_look_like_replicates_are_warned_of_unless_grouped(tmp_path):
    """Twins with groups=None: a ReplicateWarning names the first pairs by sample id, and the
    table of groups is saved and loaded with the fit; with the groups, or independent
    samples, none (and independent samples form no groups)."""
    import pandas as pd

    from selbayes.evaluation import ReplicateWarning

    X, y, groups = _twins()
    frame = pd.DataFrame(X, index=[f"s{i}" for i in range(len(y))])
    with pytest.warns(ReplicateWarning, match=r"40 of the 40 samples form 20 pairs"):
        clf = _fast(method="plugin", k_grid=(2, 8)).fit(frame, y, groups=None)
    found = clf.replicate_groups_
    assert not found["kept"].any()
    assert len(found) == 40 and (found["size"] == 2).all()
    assert set(map(tuple, found.groupby("group")["case"].apply(list))) == {
        (2 * i, 2 * i + 1) for i in range(20)}
    assert found["sample"].tolist() == [f"s{i}" for i in found["case"]]   # as loo_checks_
    loaded = type(clf).load(clf.save(tmp_path / "twins.nc"))
    pd.testing.assert_frame_equal(loaded.replicate_groups_, found)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicateWarning)
        grouped = _fast(method="plugin", k_grid=(2, 8)).fit(frame, y, groups=groups)
        rng = np.random.default_rng(1)
        alone = _fast(method="plugin", k_grid=(2, 8)).fit(rng.normal(size=X.shape) + X[:, :1], y)
    assert grouped.replicate_groups_ is None and len(alone.replicate_groups_) == 0
    assert type(grouped).load(grouped.save(tmp_path / "grouped.nc")).replicate_groups_ is None


def test_groups_auto_keeps_the_replicates_found_whole():
    """groups="auto", and the default for near-copies as these: the twins the replicate check
    finds are kept whole by every inner split (as with the true groups), no ReplicateWarning,
    and groups_ holds them; groups=None splits them (and warns); on independent samples
    nothing is found and the fit equals the one without groups. fit_path too; sparse X is
    refused with "auto" and not looked in by default."""
    import scipy.sparse as sp

    from selbayes.evaluation import ReplicateWarning

    X, y, groups = _twins()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicateWarning)
        clf = _fast(method="plugin", k_grid=(2, 8)).fit(X, y, groups="auto")
        default = _fast(method="plugin", k_grid=(2, 8)).fit(X, y)
    np.testing.assert_array_equal(default.groups_, clf.groups_)
    np.testing.assert_array_equal(default.predict_proba(X), clf.predict_proba(X))
    assert default.replicate_groups_["kept"].all()
    # the codes found pair the same cases as the true groups
    assert len(set(zip(clf.groups_.tolist(), groups.tolist(), strict=True))) == 20
    assert clf.k_choice_.extra["n_groups"] == 20
    assert not _splits_groups(clf.k_choice_.extra["folds"], groups)
    ungrouped = _fast(method="plugin", k_grid=(2, 8))
    with pytest.warns(ReplicateWarning):
        ungrouped.fit(X, y, groups=None)
    assert ungrouped.groups_ is None and _splits_groups(ungrouped.k_choice_.extra["folds"],
                                                        groups)
    rng = np.random.default_rng(1)
    alone = rng.normal(size=X.shape) + X[:, :1]
    a = _fast(method="plugin", k_grid=(2, 8)).fit(alone, y, groups="auto")
    b = _fast(method="plugin", k_grid=(2, 8)).fit(alone, y, groups=None)
    assert a.groups_ is None and len(a.replicate_groups_) == 0
    np.testing.assert_array_equal(a.predict_proba(alone), b.predict_proba(alone))
    for given in ("auto", "near_copies"):
        path = _fast(method="plugin", temperature="auto").fit_path(X, y, [2, 8], groups=given)
        assert not _splits_groups(path[2].k_choice_.extra["folds"], groups)
    with pytest.raises(ValueError, match="groups='auto' looks for replicates"):
        _fast(method="plugin", k_grid=(2, 8)).fit(sp.csr_matrix(X), y, groups="auto")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicateWarning)
        sparse = _fast(method="plugin", k_grid=(2, 8)).fit(sp.csr_matrix(X), y)
    assert sparse.groups_ is None and sparse.replicate_groups_ is None
    with pytest.raises(ValueError, match="'near_copies', 'auto' or None; got 'near'"):
        _fast(method="plugin", k_grid=(2, 8)).fit(X, y, groups="near")
    with pytest.raises(ValueError, match="'near_copies', 'auto' or None; got 'Auto'"):
        _fast(method="plugin").fit_path(X, y, [2, 8], groups="Auto")


def _pairs_alike(seed=3, n=40, p=300, near=10, r=0.6):
    """Cases 2i and 2i + 1 are pairs (same class): the first ``near`` pairs near-copies (a
    noisy copy), the others correlating about ``r`` (a share r of the first's profile, the
    rest its own). One group per pair."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[1::2] = r * X[0::2] + np.sqrt(1 - r ** 2) * X[1::2]
    X[1:2 * near:2] = X[0:2 * near:2] + 0.05 * rng.normal(size=(near, p))
    X[:, :5] += 0.8 * y[:, None]
    return X, y, np.arange(n) // 2


def test_the_default_keeps_near_copies_whole_and_warns_of_the_pairs_less_alike():
    """Five pairs of near-copies and fifteen pairs correlating about 0.6: the check finds
    all twenty; the default keeps the near-copies whole (every member correlating at
    NEAR_COPY or more) and warns of the fifteen others, naming groups='auto', which keeps all
    twenty whole; the kept column says which."""
    from selbayes.evaluation import ReplicateWarning
    from selbayes.evaluation._replicates import NEAR_COPY

    X, y, groups = _pairs_alike(near=5)
    with pytest.warns(ReplicateWarning, match=r"30 of the 40 samples form 15 pairs.*"
                                              r"groups='auto'"):
        clf = _fast(method="plugin", k_grid=(2, 8)).fit(X, y)
    found = clf.replicate_groups_
    assert len(found) == 40 and found["group"].nunique() == 20
    near = found["correlation"] >= NEAR_COPY
    np.testing.assert_array_equal(found["kept"], near)
    assert set(found.loc[near, "case"]) == set(range(10))     # the five near-copies
    codes = clf.groups_
    assert np.unique(codes[:10]).size == 5 and np.unique(codes).size == 5 + 30
    folds = clf.k_choice_.extra["folds"]
    assert not _splits_groups(folds, np.where(np.arange(40) < 10, groups, np.arange(40) + 40))
    assert _splits_groups(folds, groups)            # some pair less alike is split
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicateWarning)
        every = _fast(method="plugin", k_grid=(2, 8)).fit(X, y, groups="auto")
    assert every.replicate_groups_["kept"].all() and np.unique(every.groups_).size == 20
    assert not _splits_groups(every.k_choice_.extra["folds"], groups)
