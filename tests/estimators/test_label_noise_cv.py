"""label_noise="cv": the label-noise share c / (n + 2) chosen by the inner cross-validation at
the chosen k (selbayes.estimators._inner_cv and _k_choice; reports/plasmode/label_noise_cv/)."""

import numpy as np
import pytest

from selbayes.estimators._inner_cv import choose_k
from selbayes.estimators._k_choice import (
    LABEL_NOISE_SHARES,
    choices_per_k,
    chosen_share,
    share_label_noise,
)
from tests.estimators._data import sparse_strong, two_class_gaussian

# 40 cases in two classes of 20, 5 stratified inner folds: every inner training set has 32
# cases, so the share c / (32 + 2) is one number for all folds and a fixed label_noise can
# reproduce it
N, N_TRAIN = 40, 32


def test_share_losses_equal_fixed_label_noise_runs_and_k_is_chosen_as_with_auto():
    """A second route: choose_k with the fixed eps c / 34 gives, for every candidate, the same
    inner case losses as the "cv" run's column for c; the k (and T) are those of "auto", and
    the chosen c is the column with the lowest mean."""
    X, y = two_class_gaussian(seed=3, n=N, p=150)
    settings = dict(grid=[2, 4, 8, 32], random_state=5)
    cv = choose_k(X, y, label_noise="cv", **settings)
    auto = choose_k(X, y, label_noise="auto", **settings)
    assert (cv.k, cv.temperature) == (auto.k, auto.temperature)
    np.testing.assert_array_equal(cv.extra["case_losses"], auto.extra["case_losses"])
    S = cv.extra["share_case_losses"]
    assert S.shape == (len(cv.grid), len(LABEL_NOISE_SHARES), N)
    for i, c in enumerate(LABEL_NOISE_SHARES):
        fixed = choose_k(X, y, label_noise=c / (N_TRAIN + 2), **settings)
        np.testing.assert_allclose(S[:, i], fixed.extra["case_losses"], rtol=1e-12)
    best = [g[0] for g in cv.grid].index(cv.k)
    means = S[best].mean(axis=-1)
    assert cv.extra["label_noise_c"] == LABEL_NOISE_SHARES[int(np.argmin(means))]


def test_strong_markers_without_mislabelled_cases_choose_no_share():
    """A few strong markers, labels drawn without error: every inner test case is predicted
    with near certainty, so any share only costs (about eps nats a case) and c = 0 wins."""
    X, y = sparse_strong(0, n=60, p=600, markers=4, effect=3.0)
    ch = choose_k(X, y, grid=[2, 4, 8], label_noise="cv", random_state=0)
    assert ch.extra["label_noise_c"] == 0.0


def test_mislabelled_cases_choose_a_share():
    """The same data with 6 of 60 labels flipped: the flipped cases cost many nats each
    without a share, so a positive one wins."""
    X, y = sparse_strong(0, n=60, p=600, markers=4, effect=3.0)
    y = y.copy()
    flip = np.r_[0:3, 30:33]
    y[flip] = 1 - y[flip]
    ch = choose_k(X, y, grid=[2, 4, 8], label_noise="cv", random_state=0)
    assert ch.extra["label_noise_c"] > 0.0


def test_ties_keep_laplaces_share_and_the_share_is_capped():
    assert LABEL_NOISE_SHARES[0] == 1.0
    assert chosen_share(np.zeros((len(LABEL_NOISE_SHARES), 5))) == 1.0
    assert share_label_noise(1.0, 48) == 1 / 50
    assert share_label_noise(0.0, 48) == 0.0
    assert share_label_noise(4.0, 4) == 0.5               # 4 / 6 would exceed one half


def test_a_path_split_per_k_chooses_the_share_at_each_k_as_alone():
    X, y = two_class_gaussian(seed=4, n=N, p=150)
    settings = dict(label_noise="cv", random_state=2)
    per_k = choices_per_k(choose_k(X, y, grid=[2, 6, 20], **settings), [2, 6, 20])
    for k, got in per_k.items():
        alone = choose_k(X, y, grid=[k], **settings)
        np.testing.assert_array_equal(got.extra["share_case_losses"],
                                      alone.extra["share_case_losses"])
        assert got.extra["label_noise_c"] == alone.extra["label_noise_c"]


def test_choose_k_names_a_bad_label_noise():
    X, y = two_class_gaussian(seed=0, n=N, p=60)
    with pytest.raises(ValueError, match="label_noise must be .* 'auto' or 'cv'; got 'xv'"):
        choose_k(X, y, grid=[2], label_noise="xv")


def test_classifier_uses_the_chosen_share_at_a_given_k():
    """With k given and label_noise="cv" the classifier scores the shares at that k only; its
    label_noise_ is c / (n + 2) and its probabilities are those of the same classifier with
    that eps given as a number (the plug-in route, no MCMC)."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = sparse_strong(1, n=60, p=400, markers=4, effect=1.0)
    kw = dict(k=8, method="plugin", random_state=0, progressbar=False)
    clf = HierarchicalGaussianClassifier(label_noise="cv", **kw).fit(X, y)
    c = clf.k_choice_.extra["label_noise_c"]
    assert [g[0] for g in clf.k_choice_.grid] == [8] and clf.k_ == 8
    assert clf.label_noise_ == share_label_noise(c, 60)
    same = HierarchicalGaussianClassifier(label_noise=clf.label_noise_, **kw).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), same.predict_proba(X), rtol=1e-12)
    with pytest.raises(ValueError, match="label_noise"):
        HierarchicalGaussianClassifier(label_noise="xv", **kw).fit(X, y)


def test_k_all_chooses_the_share_at_p_minus_1_and_one_feature_keeps_laplaces():
    """k="all": the inner cross-validation keeps 1 <= k < p, so the share is chosen at p - 1;
    with a single feature there is no k to fit and the share stays 1 / (n + 2) (it used to
    fail with the selection's "1 <= k < p" message). The bar says what it does: no "choosing
    k" when k is given."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = two_class_gaussian(seed=2, n=N, p=6)
    clf = HierarchicalGaussianClassifier(k="all", method="plugin", random_state=0,
                                         progressbar=False).fit(X, y)
    assert [g[0] for g in clf.k_choice_.grid] == [5] and clf.n_features_in_ == 6
    assert clf.label_noise_ == share_label_noise(clf.k_choice_.extra["label_noise_c"], N)
    one = HierarchicalGaussianClassifier(k="all", method="plugin", random_state=0,
                                         progressbar=False).fit(X[:, :1], y)
    assert one.k_choice_ is None and one.label_noise_ == 1 / (N + 2)


def test_settings_the_inner_cv_cannot_choose_are_named():
    """One feature: every "auto" setting (not the share, which has Laplace's to fall back on)
    is an error naming it; no feature with F > 0: the selection's own message, before any
    inner cross-validation."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = two_class_gaussian(seed=2, n=N, p=6)
    kw = dict(method="plugin", random_state=0, progressbar=False)
    with pytest.raises(ValueError, match=r'k, temperature="auto" .* n_features = 1'):
        HierarchicalGaussianClassifier(k="auto", temperature="auto", **kw).fit(X[:, :1], y)
    flat = np.tile(X[: N // 2], (2, 1))               # both classes the same cases: F = 0
    with pytest.raises(ValueError, match="no feature of X is related to the class"):
        HierarchicalGaussianClassifier(k="auto", **kw).fit(flat, y)


def test_the_bar_names_a_choice_of_k_only_when_k_is_chosen(capsys):
    X, y = two_class_gaussian(seed=2, n=N, p=30)
    choose_k(X, y, grid=[4], label_noise="cv", random_state=0, progressbar=True)
    err = capsys.readouterr().err
    assert "inner cross-validation, k = 4" in err and "choosing k" not in err
    choose_k(X, y, grid=[2, 4], label_noise="cv", random_state=0, progressbar=True)
    assert "choosing k: inner cross-validation, k = 2 to 4" in capsys.readouterr().err
