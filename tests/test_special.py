"""selbayes._special: the log rising factorial against sums of logs, in all three versions."""

from __future__ import annotations

import math

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from scipy.special import gammaln

from selbayes._special import A_SWITCH, log_rising, log_rising_nb, log_rising_pt

# a from tiny to huge, both sides of the switch; m the counts of the binary models
A = np.array([1e-8, 0.3, 1.0, 7.5, 999.9, A_SWITCH, 1000.1, 3e3, 1e5, 1e8, 1e12, 1e16, 1e20,
              1e100, 1e300])
M = np.array([0, 1, 3, 17, 60, 200])


def _reference(a: float, m: int) -> float:
    """log prod_{i < m} (a + i), summed exactly rounded (math.fsum): no log Gamma involved."""
    return m * math.log(a) + math.fsum(math.log1p(i / a) for i in range(m))


def _grid():
    aa, mm = np.meshgrid(A, M, indexing="ij")
    ref = np.array([[_reference(a, int(m)) for m in M] for a in A])
    return aa, mm, ref


def test_numpy_matches_sums_of_logs_everywhere():
    aa, mm, ref = _grid()
    got = log_rising(aa, mm)
    # rounding: gammaln's below the switch (values < 1e4, 1e-16 relative); the sum's own
    np.testing.assert_allclose(got, ref, rtol=2e-13, atol=1e-12)
    assert np.all(got[:, 0] == 0.0)


def test_the_log_gamma_difference_it_replaces_fails_at_large_a():
    """The grid reaches where the naive formula is wrong (so the test above can fail)."""
    aa, mm, ref = _grid()
    with np.errstate(invalid="ignore"):
        naive = gammaln(aa + mm) - gammaln(aa)
    assert np.nanmax(np.abs(naive - ref)) > 1.0


def test_zero_a():
    np.testing.assert_array_equal(log_rising(0.0, np.array([0, 1, 5])), [0.0, -np.inf, -np.inf])


def test_pytensor_twin_values_and_gradient():
    a, m = pt.dvector("a"), pt.dvector("m")
    aa, mm, ref = _grid()
    values = pytensor.function([a, m], log_rising_pt(a[:, None], m[None, :]))   # one compile
    np.testing.assert_allclose(values(A, M.astype(float)), ref, rtol=2e-13, atol=1e-12)
    # d/da = sum_{i < m} 1 / (a + i), relative to its size, on both sides of the switch
    grad = pytensor.function([a], pytensor.grad(log_rising_pt(a, 60.0).sum(), a))
    pts = np.array([0.5, 10.0, 999.0, A_SWITCH, 1001.0, 1e6, 1e16])
    want = np.array([math.fsum(1.0 / (x + i) for i in range(60)) for x in pts])
    np.testing.assert_allclose(grad(pts), want, rtol=1e-12)


def test_pytensor_gradient_is_finite_at_extremes():
    a = pt.dvector("a")
    g = pytensor.grad(log_rising_pt(a, 3.0).sum(), a).eval({a: [1e-300, 1e300]})
    assert np.all(np.isfinite(g))


def test_numba_twin_matches_numpy():
    aa, mm, ref = _grid()
    got = np.array([[log_rising_nb(float(a), float(m)) for m in M] for a in A])
    np.testing.assert_allclose(got, ref, rtol=2e-13, atol=1e-12)


@pytest.mark.parametrize("m", [1, 5, 200])
def test_continuous_across_the_switch(m):
    below, above = np.nextafter(A_SWITCH, 0.0), A_SWITCH
    ref = _reference(above, m)
    assert abs(log_rising(below, m) - log_rising(above, m)) < 1e-11 * max(1.0, abs(ref))
