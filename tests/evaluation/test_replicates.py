"""The check for training samples that look like replicates (selbayes/evaluation/_replicates.py):
pairs found where samples are twins, none where they are independent, the warning's threshold,
and clear errors."""

import numpy as np
import pandas as pd
import pytest

from selbayes.evaluation import replicate_pairs
from selbayes.evaluation._replicates import PAIR_SHARE, replicate_message


def _data(seed, n=60, p=500, twins=0, technical=0.1):
    """n samples of two classes (genes shifted by class); the first ``twins`` pairs of rows
    (2i, 2i + 1) share a sample's own profile, the second measurement with technical noise."""
    rng = np.random.default_rng(seed)
    y = np.tile([0, 1], n // 2)
    X = rng.normal(size=(n, p)) + 0.8 * y[:, None] * (np.arange(p) < 20)
    for i in range(twins):
        a, b = 2 * i, 2 * i + 1
        y[b] = y[a]
        X[b] = (X[a] - 0.8 * y[a] * (np.arange(p) < 20)) * np.sqrt(1 - technical) \
            + np.sqrt(technical) * rng.normal(size=p) + 0.8 * y[a] * (np.arange(p) < 20)
    return X, y


@pytest.mark.parametrize("seed", range(5))
def test_independent_samples_form_no_pairs(seed):
    X, y = _data(seed)
    assert len(replicate_pairs(X, y)) == 0


@pytest.mark.parametrize("seed", range(3))
def test_twins_are_found_and_only_they(seed):
    X, y = _data(seed, twins=8)
    got = set(map(tuple, replicate_pairs(X, y)[["first", "second"]].to_numpy()))
    assert got == {(2 * i, 2 * i + 1) for i in range(8)}


def test_pairs_are_sorted_by_correlation_with_margins_above_the_gap():
    X, y = _data(0, twins=6)
    pairs = replicate_pairs(X, y)
    assert pairs["correlation"].is_monotonic_decreasing
    assert (pairs["margin"] > 0.2).all() and (pairs["correlation"] <= 1 + 1e-12).all()
    # a stricter margin keeps fewer (or the same) pairs
    assert len(replicate_pairs(X, y, gap=0.95)) <= len(pairs)


def test_warning_only_from_a_share_of_the_samples_on():
    X, y = _data(1, n=60, twins=3)              # 6 of 60 samples: the share, exactly
    pairs = replicate_pairs(X, y)
    assert 2 * len(pairs) == 6 == PAIR_SHARE * 60
    msg = replicate_message(pairs, 60, case_names=[f"s{i}" for i in range(60)])
    assert msg.startswith("6 of the 60 samples form 3 pairs") and "'s0' and 's1'" in msg
    assert replicate_message(pairs.iloc[:2], 60) is None            # 4 of 60: below it
    assert replicate_message(pairs.iloc[:1], 8) is None             # 2 samples: fewer than 4
    first, second = pairs.loc[0, ["first", "second"]]
    assert f"row {first} and row {second}" in replicate_message(pairs.iloc[:2], 8)


def test_genes_that_do_not_vary_and_bad_input():
    X, y = _data(2, twins=5)
    X[:, :50] = 3.0                             # constant genes are left out
    assert len(replicate_pairs(X, y)) == 5
    assert len(replicate_pairs(np.ones((6, 4)), np.array([0, 1] * 3))) == 0
    with pytest.raises(ValueError, match="one row per label"):
        replicate_pairs(X, y[:-1])
    with pytest.raises(ValueError, match="at least 3 samples"):
        replicate_pairs(X[:2], y[:2])
    assert isinstance(replicate_pairs(X, y), pd.DataFrame)
