"""The candidate grids and the k a fit can keep (selbayes.estimators._k_grid); the grids in
use are tested through choose_k and the classifier in test_inner_cv.py."""

import numpy as np
import pytest

from selbayes.estimators._k_grid import DEFAULT_K_GRID, fold_k, next_k, usable_k_grid
from selbayes.filters import selection_from_scores


def test_next_k_continues_the_one_two_five_series_up_to_the_limit():
    series, k = [], 1
    while (k := next_k(k, 700)) is not None:
        series.append(k)
    assert series == [2, 5, 10, 20, 50, 100, 200, 500, 700]
    assert next_k(3, 10 ** 6) == 5 and next_k(7, 10 ** 6) == 10 and next_k(10, 10) is None


def test_usable_grid_clips_or_drops_the_values_a_fit_cannot_keep():
    """Reference: the rule written out by hand for every cap from 1 to 2500."""
    for cap in range(1, 2501):
        kept = [k for k in DEFAULT_K_GRID if k <= cap]
        clipped = kept + ([cap] if cap < DEFAULT_K_GRID[-1] and cap not in kept else [])
        assert usable_k_grid(DEFAULT_K_GRID, cap) == (clipped or [cap])
        assert usable_k_grid(DEFAULT_K_GRID, cap, "drop") == (kept or [cap])
    with pytest.raises(ValueError, match='beyond must be "drop" or "clip"'):
        usable_k_grid(DEFAULT_K_GRID, 10, "extend")


def test_a_fold_keeps_at_most_its_features_with_signal_and_below_p():
    rng = np.random.default_rng(57901)
    for _ in range(200):
        p = int(rng.integers(2, 50))
        scores = np.where(rng.random(p) < 0.3, 0.0, rng.exponential(size=p))
        k = int(rng.integers(1, 60))
        assert fold_k(k, scores) == max(1, min(k, p - 1, int(np.count_nonzero(scores))))
    assert fold_k(5, np.zeros(10)) == 1               # nothing varies: still one feature


def test_a_fold_keeps_every_feature_with_infinite_f_and_one_more():
    """A gene spread within a class by one case alone has F infinite in a fold that leaves
    that case out; with k at most the infinite ones the fold's threshold gamma was infinite
    ("threshold must be > 0 and finite; got inf", from deep in the adjustment)."""
    scores = np.r_[np.inf, 2.0, np.inf, 1.0, 0.0, 0.5]
    assert [fold_k(k, scores) for k in (1, 2, 3, 4, 6)] == [3, 3, 3, 4, 5]
    sel = selection_from_scores(scores, fold_k(1, scores), None, "f", [3, 3], np.arange(2))
    assert sel.threshold == 2.0 and set(sel.indices) == {0, 1, 2}
    with pytest.raises(ValueError, match=r"2 feature\(s\) \(positions \[0, 1\]\) have no "
                                         r"spread within any class .* where it has 2 to keep"):
        fold_k(1, np.r_[np.inf, np.inf, 0.0, 0.0])
    with pytest.raises(ValueError, match="where it has 2 to keep"):     # p - 1 = 2 of them
        fold_k(1, np.r_[np.inf, np.inf, 5.0])
