"""The training-range check at predict time (selbayes.estimators._training_range): rows of X
outside their features' training range on most features are data on another scale than in
fit. The chance share outside is checked against its closed form, 2 / (n + 1)."""

import warnings

import numpy as np
import pytest
import xarray as xr

from selbayes.estimators import FarFromTrainingWarning, HierarchicalGaussianClassifier
from selbayes.estimators._training_range import (
    MIN_TRAINING_SAMPLES,
    MOST_OUTSIDE,
    outside_range_message,
    rows_outside_training_range,
    training_range,
)


def test_the_share_outside_the_training_range_is_two_in_n_plus_one_by_chance():
    """A new sample exchangeable with n training ones lies below all of them with probability
    1 / (n + 1), and above all with the same: the share the message quotes. The tolerance is
    4 Monte Carlo SEs over the features (independent, each with its own training range)."""
    rng = np.random.default_rng(65900)
    n, p, m = 20, 4000, 50
    train, test = rng.normal(size=(n, p)), rng.normal(size=(m, p))
    low, high = training_range(train)
    per_feature = ((test < low) | (test > high)).mean(axis=0)
    se = per_feature.std(ddof=1) / np.sqrt(p)
    assert abs(per_feature.mean() - 2 / (n + 1)) < 4 * se
    rows, _, _ = rows_outside_training_range(test, low, high, n)
    assert rows.size == 0                     # far below MOST_OUTSIDE by chance


def test_another_scale_is_found_in_the_direction_of_its_values():
    """log2 values against unlogged training ones lie below every feature's range, unlogged
    values against log2 ones above it; the message names each direction's likely mistake."""
    rng = np.random.default_rng(65901)
    logged = rng.normal(8.0, 1.0, size=(50, 200))
    unlogged = 2.0 ** logged
    low, high = training_range(unlogged[:40])
    rows, below, above = rows_outside_training_range(logged[40:], low, high, 40)
    assert rows.tolist() == list(range(10)) and np.all(below == 1.0) and np.all(above == 0)
    text = outside_range_message(rows, below, above, 10, 40)
    assert "100% of their features lie below the smallest training value" in text
    assert "log2 values given to a fit on unlogged ones" in text
    assert f"about {2 / 41:.0%} lie outside" in text

    low, high = training_range(logged[:40])
    rows, below, above = rows_outside_training_range(unlogged[40:], low, high, 40)
    text = outside_range_message(rows, below, above, 10, 40)
    assert rows.size == 10 and "unlogged values given to a fit on log2 ones" in text


def test_values_spread_wider_than_in_fit_are_named_as_such():
    """Test rows multiplied by ten lie outside the range on both sides (about 40% each way):
    the message gives the share outside in all and on each side, and names rescaling, not a
    log2 mistake (it quoted one side's 40%, under its own 50%, and blamed log2 taken twice)."""
    rng = np.random.default_rng(65903)
    train, test = rng.normal(size=(40, 200)), 10.0 * rng.normal(size=(5, 200))
    low, high = training_range(train)
    rows, below, above = rows_outside_training_range(test, low, high, 40)
    assert rows.size == 5 and np.all(below > 0.3) and np.all(above > 0.3)
    text = outside_range_message(rows, below, above, 5, 40)
    total, b, a = (f"{v:.0%}" for v in (np.median(below) + np.median(above),
                                        np.median(below), np.median(above)))
    assert (f"{total} of their features lie outside the training range of the feature, {b} "
            f"below the smallest training value and {a} above the largest") in text
    assert "spread wider than in fit: rescaled" in text and "log2" not in text.split(". ")[1]
    # the printed total is the sum of the printed parts (40.5% and 40.5% are 80%, not 81%)
    text = outside_range_message(np.array([0]), np.array([0.405]), np.array([0.405]), 1, 40)
    assert "80% of their features lie outside the training range of the feature, 40% below" \
        in text
    # rows of different kinds are read one by one: the most common kind is described, and
    # the others said to differ (medians over the mix read as "30% below and 30% above")
    text = outside_range_message(np.arange(3), np.array([0.9, 0.95, 0.0]),
                                 np.array([0.0, 0.0, 0.9]), 3, 40)
    assert ("in 2 of them, 92% of their features lie below the smallest training value of the "
            "feature; the others lie outside the other way or both ways") in text
    assert "log2 values given to a fit on unlogged ones" in text


def test_the_check_is_skipped_where_it_cannot_be_read():
    """Under MIN_TRAINING_SAMPLES training samples the chance share is too close to
    MOST_OUTSIDE; features constant in training (all zeros) are left out, and with fewer than
    ten varying ones nothing is judged."""
    far = np.full((1, 30), 100.0)
    low, high = np.zeros(30), np.ones(30)
    assert rows_outside_training_range(far, low, high, MIN_TRAINING_SAMPLES - 1)[0].size == 0
    assert rows_outside_training_range(far, low, high, MIN_TRAINING_SAMPLES)[0].size == 1
    high[:25] = 0.0                          # 25 constant features, 5 varying: not judged
    assert rows_outside_training_range(far, low, high, 40)[0].size == 0
    high[:25] = 1.0
    half = far.copy()
    half[0, : int(30 * (1 - MOST_OUTSIDE))] = 0.5   # exactly half outside: not "most"
    assert rows_outside_training_range(half, low, high, 40)[0].size == 0


def _narrow_unlogged(seed=65902):
    """Unlogged intensities of narrow range, 2^N(8, 1), with a class shift on five genes:
    --transform auto leaves them as given, and the predictive check of the kept genes does
    not see log2 values given in their place (about 1.2 predictive SDs from the class
    means)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 30)
    logged = rng.normal(8.0, 1.0, size=(60, 100))
    logged[y == 1, :5] += 1.0
    return 2.0 ** logged, logged, y


def test_log2_values_given_to_a_fit_on_narrow_unlogged_values_warn(tmp_path):
    """The audit's silent case: every probability the same, without a word. Now the
    FarFromTrainingWarning names the rows (positions, for selbayes predict to turn into ids),
    once, and the kept-gene check does not name them again. The training range is saved with
    the fit; a file written before it was loads and checks nothing."""
    unlogged, logged, y = _narrow_unlogged()
    clf = HierarchicalGaussianClassifier(k=5, method="plugin", progressbar=False,
                                         random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(unlogged[::2], y[::2])
    with warnings.catch_warnings():
        warnings.simplefilter("error", FarFromTrainingWarning)
        clf.predict_proba(unlogged[1::2])                  # the same scale: silent
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        expected = clf.predict_proba(logged[1::2])
    far = [w.message for w in said if w.category is FarFromTrainingWarning]
    assert len(far) == 1 and far[0].rows == list(range(30))
    assert "below the smallest training value" in str(far[0])

    path = clf.save(tmp_path / "fit.nc")
    back = HierarchicalGaussianClassifier.load(path)
    np.testing.assert_array_equal(back.data_min_, clf.data_min_)
    with pytest.warns(FarFromTrainingWarning, match="below the smallest training value"):
        back.predict_proba(logged[1::2])

    tree = xr.open_datatree(path, engine="h5netcdf").load()
    cd = tree["constant_data"].to_dataset().drop_vars(["training_min", "training_max"])
    tree["constant_data"] = xr.DataTree(cd)
    tree.to_netcdf(tmp_path / "old.nc", engine="h5netcdf")
    old = HierarchicalGaussianClassifier.load(tmp_path / "old.nc")
    assert old.data_min_ is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", FarFromTrainingWarning)
        np.testing.assert_array_equal(old.predict_proba(logged[1::2]), expected)
