"""The check for training samples that look like replicates (selbayes/evaluation/_replicates.py):
groups (pairs, triplets, ...) found where samples are replicates, none where they are
independent, the pair rule as the special case max_size=2 (checked against a direct
implementation of that rule), the warning's threshold, and clear errors."""

import numpy as np
import pandas as pd
import pytest

from selbayes.evaluation import replicate_groups, replicate_labels
from selbayes.evaluation._replicates import PAIR_SHARE, _profile_correlations, replicate_message


def _data(seed, n=60, p=500, twins=0, technical=0.1, size=2):
    """n samples of two classes (genes shifted by class); the first ``twins`` blocks of
    ``size`` rows (size * i, ..., size * i + size - 1) share one sample's own profile, each
    measurement with its technical noise."""
    rng = np.random.default_rng(seed)
    y = np.tile([0, 1], n // 2)
    shift = 0.8 * (np.arange(p) < 20)
    own = rng.normal(size=(n, p))
    for i in range(twins):
        block = np.arange(size * i, size * i + size)
        y[block] = y[block[0]]
        own[block] = np.sqrt(1 - technical) * own[block[0]] \
            + np.sqrt(technical) * rng.normal(size=(size, p))
    return own + y[:, None] * shift, y


def _as_sets(found):
    return {tuple(g) for g in found.groupby("group")["case"].apply(list)}


def _pairs_directly(X, y, gap=0.2):
    """The pair rule written out on its own: two samples each the other's nearest, the
    correlation above each one's second nearest by more than ``gap``."""
    C = _profile_correlations(X, y)
    np.fill_diagonal(C, -np.inf)
    s = np.sort(C, axis=1)[:, ::-1]
    near = C.argmax(axis=1)
    return {(i, int(near[i])) for i in range(len(y)) if near[near[i]] == i and i < near[i]
            and s[i, 0] - s[i, 1] > gap and s[near[i], 0] - s[near[i], 1] > gap}


@pytest.mark.parametrize("seed", range(5))
def test_independent_samples_form_no_groups(seed):
    X, y = _data(seed)
    assert len(replicate_groups(X, y)) == 0


@pytest.mark.parametrize("seed", range(3))
def test_twins_are_found_and_only_they(seed):
    X, y = _data(seed, twins=8)
    assert _as_sets(replicate_groups(X, y)) == {(2 * i, 2 * i + 1) for i in range(8)}


@pytest.mark.parametrize("size", [3, 4, 5])
def test_triplets_and_larger_groups_are_found_which_the_pair_rule_misses(size):
    X, y = _data(0, twins=6, size=size)
    blocks = {tuple(range(size * i, size * i + size)) for i in range(6)}
    assert _as_sets(replicate_groups(X, y)) == blocks
    assert (replicate_groups(X, y)["size"] == size).all()
    # the pair rule (max_size=2) finds none of them: a member's second nearest is a replicate
    assert len(replicate_groups(X, y, max_size=2)) == 0 == len(_pairs_directly(X, y))


def test_pairs_and_triplets_together():
    X, y = _data(1, n=60, twins=4, size=3)                   # rows 0-11: four triplets
    rng = np.random.default_rng(5)
    X[13] = np.sqrt(0.9) * (X[12] - y[12] * 0.8 * (np.arange(500) < 20)) \
        + np.sqrt(0.1) * rng.normal(size=500) + y[12] * 0.8 * (np.arange(500) < 20)
    y[13] = y[12]                                             # and one pair: rows 12, 13
    found = replicate_groups(X, y)
    assert _as_sets(found) == {(0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11), (12, 13)}
    assert replicate_message(found, 60).startswith(
        "14 of the 60 samples form 5 groups of 2 to 3 samples, each group far more alike")


@pytest.mark.parametrize("seed,twins,technical", [(0, 8, 0.1), (1, 12, 0.5), (2, 20, 0.7),
                                                  (3, 0, 0.1)])
def test_max_size_two_is_the_pair_rule(seed, twins, technical):
    """An independent reference: the pair rule written directly, on draws where it finds all,
    some and none of the pairs."""
    X, y = _data(seed, twins=twins, technical=technical)
    got = {tuple(g) for g in _as_sets(replicate_groups(X, y, max_size=2))}
    assert got == _pairs_directly(X, y)


def test_groups_are_sorted_by_correlation_with_margins_above_the_gap():
    X, y = _data(0, twins=6)
    found = replicate_groups(X, y)
    per_group = found.drop_duplicates("group")
    assert per_group["correlation"].is_monotonic_decreasing
    assert (per_group["group"].to_numpy() == np.arange(len(per_group))).all()
    assert (found["margin"] > 0.2).all() and (found["correlation"] <= 1 + 1e-12).all()
    assert list(found.columns) == ["group", "case", "size", "correlation", "margin"]
    # a stricter margin keeps fewer (or the same) groups
    assert len(replicate_groups(X, y, gap=0.95)) <= len(found)


def test_warning_only_from_a_share_of_the_samples_on():
    X, y = _data(1, n=60, twins=3)              # 6 of 60 samples: the share, exactly
    found = replicate_groups(X, y)
    assert len(found) == 6 == PAIR_SHARE * 60
    msg = replicate_message(found, 60, case_names=[f"s{i}" for i in range(60)])
    assert msg.startswith("6 of the 60 samples form 3 pairs") and "'s0' and 's1'" in msg
    assert replicate_message(found[found["group"] < 2], 60) is None    # 4 of 60: below it
    assert replicate_message(found[found["group"] < 1], 8) is None     # 2 samples: fewer than 4
    first, second = found.loc[found["group"] == 0, "case"]
    assert f"row {first} and row {second}" in replicate_message(found[found["group"] < 2], 8)
    X, y = _data(2, n=30, twins=2, size=3)
    msg = replicate_message(replicate_groups(X, y), 30)
    assert msg.startswith("6 of the 30 samples form 2 groups of 3 samples, each group")
    assert "row 0, row 1 and row 2" in msg or "row 3, row 4 and row 5" in msg


def test_genes_that_do_not_vary_and_bad_input():
    X, y = _data(2, twins=5)
    X[:, :50] = 3.0                             # constant genes are left out
    assert len(replicate_groups(X, y)) == 10
    empty = replicate_groups(np.ones((6, 4)), np.array([0, 1] * 3))
    assert len(empty) == 0 and list(empty.columns)[:2] == ["group", "case"]
    assert empty["case"].dtype == np.int64
    with pytest.raises(ValueError, match="one row per label"):
        replicate_groups(X, y[:-1])
    with pytest.raises(ValueError, match="at least 3 samples"):
        replicate_groups(X[:2], y[:2])
    for bad in (1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="max_size must be an integer of at least 2"):
            replicate_groups(X, y, max_size=bad)
    assert isinstance(replicate_groups(X, y), pd.DataFrame)
    # few samples: groups no larger than leaves one sample outside
    small = replicate_groups(X[:4], y[:4], max_size=5)
    assert small.empty or small["size"].max() <= 3


def test_replicate_labels_put_each_group_found_together_and_every_other_sample_alone():
    from selbayes.evaluation import replicate_labels
    from selbayes.evaluation._replicates import kept_groups

    X, y = _data(0, n=30, twins=2, size=3)               # rows 0-2 and 3-5: two triplets
    found, labels = kept_groups(X, y, "auto")
    assert labels.tolist()[:6] == [0, 0, 0, 1, 1, 1]
    assert np.unique(labels).size == 30 - 4              # 24 samples alone, 2 groups
    np.testing.assert_array_equal(replicate_labels(found, 30), labels)
    with pytest.raises(ValueError, match=r"sample numbers must lie in \[0, 5\)"):
        replicate_labels(found, 5)
    none, no_labels = kept_groups(X[:2], y[:2], "auto")   # too few samples: nothing found
    assert no_labels is None and len(none) == 0 and list(none.columns)[0] == "group"
    assert kept_groups(*_data(1), "auto")[1] is None      # independent samples


def test_spread_gap_finds_pairs_less_alike_where_unrelated_samples_lie_close():
    """Independent genes: unrelated samples' correlations spread by about 1/sqrt(p), so pairs
    correlating at 0.2 clear 4 spreads though not the 0.2 margin; independent samples form
    no group either way; a bad spread_gap is named."""
    X, y = _data(0, n=60, p=2000, twins=10, technical=0.8)
    assert len(replicate_groups(X, y)) == 0
    got = _as_sets(replicate_groups(X, y, spread_gap=4.0))
    assert got <= {(2 * i, 2 * i + 1) for i in range(10)} and len(got) >= 6
    assert len(replicate_groups(*_data(1, n=60, p=2000), spread_gap=4.0)) == 0
    with pytest.raises(ValueError, match="spread_gap must be positive or None"):
        replicate_groups(X, y, spread_gap=0.0)


def test_kept_groups_keeps_near_copies_by_default_and_every_group_with_auto():
    """Technical share 0.1 (near-copies, correlation about 0.9) in the first 5 pairs and 0.5
    (about 0.5) in the next 5: all ten found; "near_copies" keeps exactly the groups whose
    smallest correlation reaches NEAR_COPY (the first five), "auto" all, None none; sparse X
    is not looked in except by "auto", which refuses it; an unknown mode is named."""
    import scipy.sparse as sp

    from selbayes.evaluation._replicates import NEAR_COPY, group_mode, kept_groups

    X, y = _data(5, n=60, p=2000, twins=5, technical=0.1)
    X2, _ = _data(6, n=60, p=2000, twins=10, technical=0.5)
    X[10:20] = X2[10:20]
    y[10:20] = np.repeat(np.arange(5) % 2, 2)
    X[10:20] += y[10:20, None] * 0.8 * (np.arange(2000) < 20)
    found, labels = kept_groups(X, y, "near_copies")
    assert _as_sets(found) == {(2 * i, 2 * i + 1) for i in range(10)}
    np.testing.assert_array_equal(found["kept"], found["correlation"] >= NEAR_COPY)
    assert set(found.loc[found["kept"], "case"]) == set(range(10))
    assert np.unique(labels[:10]).size == 5 and np.unique(labels).size == 60 - 5
    every, all_labels = kept_groups(X, y, "auto")
    assert every["kept"].all() and np.unique(all_labels).size == 60 - 10
    none, no_labels = kept_groups(X, y, None)
    assert not none["kept"].any() and no_labels is None
    assert kept_groups(sp.csr_matrix(X), y, "near_copies") == (None, None)
    with pytest.raises(ValueError, match="dense X"):
        kept_groups(sp.csr_matrix(X), y, "auto")
    assert group_mode("auto") == ("auto", None) and group_mode(None) == (None, None)
    assert group_mode([1, 2])[0] is None
    with pytest.raises(ValueError, match="got 'all'"):
        group_mode("all")


def test_groups_name_samples_by_row_number_and_id_as_the_fits_other_tables_do():
    """The row number was a column named "sample", which in loo_checks_ holds the sample's id:
    the same word for two things. Now "case" is the row number in both, and a DataFrame's
    index gives "sample" its ids."""
    rng = np.random.default_rng(63900)
    base = rng.normal(size=(8, 150))
    X = np.vstack([base, base[[2]] + 0.2 * rng.normal(size=(1, 150))])   # row 8 copies row 2
    ids = [f"GSM{100 + i}" for i in range(9)]
    y = np.array([0, 1] * 4 + [0])
    found = replicate_groups(pd.DataFrame(X, index=ids), y)
    assert found["case"].tolist() == [2, 8] and found["sample"].tolist() == ["GSM102", "GSM108"]
    assert "sample" not in replicate_groups(X, y).columns
    old = found.drop(columns="case").assign(sample=[2, 8])    # a table saved before the rename
    assert replicate_labels(old, 9).tolist() == replicate_labels(found, 9).tolist()
