"""Comparing two KChoice records (the inner cross-validation's outcome)."""

import numpy as np


def same_choice(a, b):
    """Assert that two KChoice records chose the same values from the same curve."""
    assert (a.k, a.decorrelate, a.temperature, a.grid, a.criterion, a.n_splits) == (
        b.k, b.decorrelate, b.temperature, b.grid, b.criterion, b.n_splits)
    np.testing.assert_array_equal(a.score, b.score)
    np.testing.assert_array_equal(a.se, b.se)
