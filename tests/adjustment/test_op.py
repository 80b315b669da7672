"""FStatAdjustment Op: values, gradient, numba compilation without object-mode fallback."""

from __future__ import annotations

import warnings

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.gradient import verify_grad

from selbayes.adjustment import FStatOmitLogProb
from selbayes.adjustment.spline_op import FStatAdjustment, fstat_adjustment

TABLE = FStatOmitLogProb(np.array([34, 34, 33, 33, 33, 33]), threshold=3.15, alpha_x=4.0)
# Points below the table, across it and above it (table range (-30, log(200) + 30)).
POINTS = np.array([-45.0, -31.0, -12.3, 0.0, 2.7, 9.1, 34.0, 40.0, 60.0])


def _params():
    p = TABLE.spline_parameters()
    return p["coef"], p["edges"]


def _expression_reference(points):
    """Value and slope from FStatOmitLogProb's ordinary pytensor expression of the same table:
    an implementation independent of the Op's (which FStatOmitLogProb.evaluate shares)."""
    x = pt.dvector("x")
    out = TABLE(x)
    f = pytensor.function([x], [out, pytensor.grad(out.sum(), x)], mode="FAST_COMPILE")
    return f(points)


def test_op_value_matches_interpolant_and_name():
    x = pt.dvector("x")
    out = fstat_adjustment(TABLE, x)
    assert isinstance(out.owner.op, FStatAdjustment)
    assert str(out.owner.op) == "FStatAdjustment{G=6, gamma=3.15}"
    f = pytensor.function([x], [out, pytensor.grad(out.sum(), x)], mode="FAST_COMPILE")
    val, der = f(POINTS)
    ref, dref = _expression_reference(POINTS)
    np.testing.assert_allclose(val, ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(der, dref, rtol=0, atol=1e-14)


@pytest.mark.parametrize("x0", POINTS)
def test_op_verify_grad_table_and_tails(x0):
    coef, edges = _params()
    op = FStatAdjustment(TABLE.spacing, False, 6, 3.15)
    verify_grad(lambda x: op(x, pt.constant(coef), pt.constant(edges)), [np.array([x0])],
                rng=np.random.default_rng(0), abs_tol=1e-6, rel_tol=1e-5)


def test_op_numba_mode_no_object_mode():
    x = pt.dvector("x")
    out = fstat_adjustment(TABLE, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an object-mode fallback warns
        f = pytensor.function([x], [out, pytensor.grad(out.sum(), x)], mode="NUMBA")
        val, der = f(POINTS)
    ref, dref = _expression_reference(POINTS)
    np.testing.assert_allclose(val, ref, rtol=0, atol=1e-13)
    np.testing.assert_allclose(der, dref, rtol=0, atol=1e-12)


def test_op_jax_backend_agrees():
    pytest.importorskip("jax")
    x = pt.dvector("x")
    out = fstat_adjustment(TABLE, x)
    f = pytensor.function([x], [out, pytensor.grad(out.sum(), x)], mode="JAX")
    val, der = f(POINTS)
    ref, dref = _expression_reference(POINTS)
    np.testing.assert_allclose(val, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(der, dref, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore:MCMC diagnostics failed")
def test_gaussian_fit_model_contains_the_op():
    """A small fit: the selection Potential of ``model_`` is built on FStatAdjustment."""
    from pytensor.graph.traversal import ancestors

    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 15)
    X = rng.normal(size=(45, 60)) + 0.8 * (y[:, None] == np.arange(3)[None, :]).repeat(20, 1)
    from pymc.testing import mock_sample_setup_and_teardown

    # The model's structure is the point, not its draws: PyMC's mocked sampling skips the
    # compile and the MCMC run.
    gen = mock_sample_setup_and_teardown()
    next(gen)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = HierarchicalGaussianClassifier(k=3, draws=10, tune=10, chains=1,
                                                 sampler="pymc", random_state=0,
                                                 progressbar=False).fit(X, y)
    finally:
        next(gen, None)
    pot = clf.model_["selection_adjustment"]
    ops = [v.owner.op for v in ancestors([pot]) if v.owner is not None]
    assert any(isinstance(op, FStatAdjustment) and not op.derivative for op in ops)
    assert "FStatAdjustment" in pytensor.printing.debugprint(pot, file="str")
