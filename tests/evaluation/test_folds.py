"""Folds are made in one place (selbayes.evaluation._folds), and routing every caller through it
changed no split: each test rebuilds the folds the way the caller built them before (the code
is copied here as it was) and compares them, index for index, for several seeds and labels."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import KFold, LeaveOneOut, StratifiedKFold

from selbayes.evaluation import _folds as F

SEEDS = [0, 1, 7, 2009, 2**31 - 2]


def _labels():
    rng = np.random.default_rng(3)
    return {
        "balanced": np.repeat([0, 1], 10),
        "three_classes": rng.permutation(np.repeat([0, 1, 2], [12, 9, 7])),
        "small_class": rng.permutation(np.repeat([0, 1, 2], [20, 6, 3])),     # 3 < folds
        "srbct_like": rng.permutation(np.repeat([0, 1, 2, 3], [29, 11, 18, 25])),
    }


LABELS = _labels()


def _same(a, b):
    assert len(a) == len(b)
    for (tr_a, te_a), (tr_b, te_b) in zip(a, b, strict=True):
        np.testing.assert_array_equal(tr_a, tr_b)
        np.testing.assert_array_equal(te_a, te_b)


def _old_make_folds(y, folds, seed):
    # evaluation.cross_validation.make_folds before the move (int and "loo" branches)
    y = np.asarray(y)
    n = y.shape[0]
    _, y_index, counts = np.unique(y, return_inverse=True, return_counts=True)
    if folds == "loo":
        return list(LeaveOneOut().split(np.zeros((n, 1))))
    cls = StratifiedKFold if counts.min() >= folds else KFold
    return list(cls(int(folds), shuffle=True, random_state=seed)
                .split(np.zeros((n, 1)), y_index))


@pytest.mark.parametrize("name", sorted(LABELS))
@pytest.mark.parametrize("folds", [3, 5, "loo"])
def test_make_folds_is_the_old_construction(name, folds):
    y = LABELS[name]
    for seed in SEEDS:
        try:
            old = _old_make_folds(y, folds, seed)
        except ValueError:
            continue
        try:
            new = F.make_folds(y, folds, random_state=seed)
        except ValueError:          # a training fold lacks a class: refused before and after
            continue
        _same(new, old)


def test_make_folds_is_still_importable_from_cross_validation():
    from selbayes.evaluation import _cross_validation as cross_validation

    assert cross_validation.make_folds is F.make_folds
    assert cross_validation._check_splits is F.check_splits


def _old_benchmark_splits(y_idx, folds, repeats, seed):
    # benchmark.runner._make_splits before the move
    root = np.random.SeedSequence(seed)
    out = []
    for r, ss in enumerate(root.spawn(repeats)):
        split_seed = int(ss.generate_state(1)[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            splits = list(StratifiedKFold(folds, shuffle=True, random_state=split_seed)
                          .split(np.zeros((len(y_idx), 1)), y_idx))
        out.append((r, splits))
    return out


@pytest.mark.parametrize("name", sorted(LABELS))
def test_benchmark_splits_are_the_old_construction(name):
    from selbayes.benchmark._runner import _make_splits

    y = np.unique(LABELS[name], return_inverse=True)[1]
    for seed in SEEDS[:4]:
        for folds, repeats in ((3, 2), (5, 1)):
            old = _old_benchmark_splits(y, folds, repeats, seed)
            for got in (F.repeated_stratified_folds(y, folds, repeats, seed),
                        _make_splits(y, folds, repeats, seed)):
                assert [r for r, _ in got] == [r for r, _ in old]
                for (_, a), (_, b) in zip(got, old, strict=True):
                    _same(a, b)


def test_inner_splitters_split_as_before():
    # benchmark.methods._inner_cv and experiments.gaussian._baseline built
    # StratifiedKFold(n, shuffle=True, random_state=seed); estimators._inner_cv listed its splits
    from selbayes.benchmark._methods import _inner_cv
    from selbayes.estimators._inner_cv import _stratified_folds

    for name, y in LABELS.items():
        y = np.unique(y, return_inverse=True)[1]
        X = np.zeros((len(y), 4))
        for seed in SEEDS:
            old = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(X, y))
            _same(list(_inner_cv(3, seed).split(X, y)), old)
            _same(list(F.stratified_splitter(3, seed).split(X, y)), old)
            if np.bincount(y).min() >= 3:
                _same(F.stratified_folds(y, 3, seed), old)
                # the estimators' inner CV draws its seed from the generator first
                n, got = _stratified_folds(y, 3, np.random.default_rng(seed))
                s = int(np.random.default_rng(seed).integers(2 ** 31 - 1))
                ref = list(StratifiedKFold(3, shuffle=True, random_state=s).split(
                    np.zeros(len(y)), y))
                assert n == 3, name
                _same(got, ref)


def test_the_comparison_can_fail():
    # another seed gives other folds, so equal folds above are not an accident of the data
    y = LABELS["three_classes"]
    a, b = F.make_folds(y, 5, random_state=0), F.make_folds(y, 5, random_state=1)
    with pytest.raises(AssertionError):
        _same(a, b)


def test_repeated_folds_refuse_more_folds_than_cases():
    with pytest.raises(ValueError, match=r"folds \(5\) exceeds the number of cases \(4\)"):
        F.repeated_stratified_folds(np.array([0, 0, 1, 1]), 5, 1, 0)


def test_stratified_folds_warn_about_small_classes_only_when_asked():
    y = np.repeat([0, 1], [8, 2])
    with pytest.warns(UserWarning, match="least populated class"):
        F.stratified_folds(y, 3, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        folds = F.stratified_folds(y, 3, 0, small_classes_ok=True)
    assert sorted(np.concatenate([t for _, t in folds]).tolist()) == list(range(10))


# ------------------------------------------------------------------------------ grouped folds
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_grouped_folds_keep_each_group_in_one_fold(seed):
    rng = np.random.default_rng(seed)
    # pairs of twins (same class), a few groups of three and one of mixed classes
    y = np.repeat([0, 1], [40, 30])
    groups = np.concatenate([np.repeat(np.arange(30), 2), [30, 30, 30, 31, 31, 32, 32, 33,
                                                           33, 33]])
    y[-3:] = [1, 0, 1]                                          # group 33 mixes the classes
    perm = rng.permutation(y.size)
    y, groups = y[perm], np.array([f"g{g}" for g in groups[perm]])
    out = F.repeated_stratified_folds(y, 5, 3, seed, groups=groups)
    assert [r for r, _ in out] == [0, 1, 2]
    for _, splits in out:
        tested = np.concatenate([test for _, test in splits])
        assert np.array_equal(np.sort(tested), np.arange(y.size))      # each case tested once
        for train, test in splits:
            assert set(groups[test]).isdisjoint(groups[train])
            # stratified as far as whole groups allow: class 1's share within 0.15 of 3/7
            # (two cases of a 14-case fold; groups hold at most three)
            assert abs(y[test].mean() - y.mean()) < 0.15
    # the repeats shuffle differently
    first_tests = [splits[0][1] for _, splits in out]
    assert not all(np.array_equal(a, first_tests[0]) for a in first_tests[1:])


def test_ungrouped_folds_split_twins_so_the_grouped_test_can_fail():
    y = np.repeat([0, 1], 30)
    twins = np.arange(60) // 2
    (_, splits), = F.repeated_stratified_folds(y, 5, 1, 0)
    assert any(not set(twins[test]).isdisjoint(twins[train]) for train, test in splits)


@pytest.mark.parametrize("groups, match", [
    (np.arange(5), r"one label per case \(20\)"),
    (np.arange(40).reshape(20, 2), "one label per case"),
    ([None] + list(range(19)), "1 missing label"),
    (np.r_[np.nan, np.arange(19.0)], "missing label"),
    (np.repeat([0, 1, 2], [7, 7, 6]), r"folds \(5\) exceeds the number of groups \(3\)"),
])
def test_grouped_folds_refuse_bad_groups(groups, match):
    with pytest.raises(ValueError, match=match):
        F.repeated_stratified_folds(np.repeat([0, 1], 10), 5, 1, 0, groups=groups)


def test_a_class_in_one_group_is_named_not_a_fold_that_lacks_it():
    """A class whose cases are all in one group is tested in one fold with none of them to
    train on: the error names the class (by its label where given) and the cause, instead of
    a fold that lacks a class code; a class over two groups folds."""
    y = np.repeat([0, 1, 2], [10, 10, 2])
    groups = np.r_[np.arange(20), 20, 20]                  # class 2's two cases: one group
    with pytest.raises(ValueError, match=r"class\(es\) 'rare' \(2 cases\) have all their "
                                         r"cases in one group"):
        F.repeated_stratified_folds(y, 5, 1, 0, groups=groups,
                                    classes=np.array(["a", "b", "rare"]))
    with pytest.raises(ValueError, match=r"class\(es\) 2 \(2 cases\)"):
        F.repeated_stratified_folds(y, 5, 1, 0, groups=groups)
    (_, splits), = F.repeated_stratified_folds(y, 5, 1, 0, groups=np.arange(22))
    assert len(splits) == 5


@pytest.mark.parametrize("random_state, error, match", [
    (-1, ValueError, "random_state must be >= 0"),
    (True, TypeError, "random_state must be None, an int"),
    ("0", TypeError, "random_state must be None, an int"),
])
@pytest.mark.parametrize("folds", [4, "loo"])
def test_make_folds_refuses_a_bad_random_state(random_state, error, match, folds):
    with pytest.raises(error, match=match):
        F.make_folds(np.repeat([0, 1], 10), folds=folds, random_state=random_state)


def test_make_folds_takes_seeds_beyond_scikit_learns():
    """Seeds of 2**32 and above (which cross_validate takes) are hashed to one sklearn takes;
    smaller ones are passed as they are."""
    y = np.repeat([0, 1], 10)
    big = F.make_folds(y, folds=4, random_state=2**40)
    assert [t.tolist() for _, t in big] == [t.tolist() for _, t in
                                            F.make_folds(y, folds=4, random_state=2**40)]
    ref = StratifiedKFold(4, shuffle=True, random_state=5).split(np.zeros((20, 1)), y)
    assert [t.tolist() for _, t in F.make_folds(y, 4, 5)] == [t.tolist() for _, t in ref]
