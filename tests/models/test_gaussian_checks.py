"""replicated_f_statistics in blocks of draws: the same values as in one piece."""

from __future__ import annotations

import numpy as np
import pytest

from selbayes.models._gaussian_checks import replicated_f_statistics


def _unblocked(t, m, counts, rng):
    """The replicated F statistics as computed before 2026-11-28 (one piece)."""
    n, G = int(counts.sum()), counts.shape[0]
    sd = 1.0 / np.sqrt(counts[None, None, :] * t[:, :, None])
    xbar = m + sd * rng.standard_normal(m.shape)
    ssw = rng.chisquare(n - G, size=t.shape) / t
    grand = (xbar * counts).sum(axis=2, keepdims=True) / n
    ssb = (counts * (xbar - grand) ** 2).sum(axis=2)
    return (ssb / (G - 1)) / (ssw / (n - G))


@pytest.mark.parametrize("max_bytes", [1.0, 700.0, 2e8])    # one draw a block, a few, one
def test_blocks_of_draws_give_the_unblocked_values(max_bytes):
    rng = np.random.default_rng(5)
    S, k, G = 9, 4, 3
    t, m = rng.gamma(3.0, 1.0, (S, k)), rng.normal(size=(S, k, G))
    counts = np.array([5, 7, 8])
    got = replicated_f_statistics(t, m, counts, np.random.default_rng(2), max_bytes=max_bytes)
    np.testing.assert_array_equal(got, _unblocked(t, m, counts, np.random.default_rng(2)))
