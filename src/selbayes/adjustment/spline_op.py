"""The tabulated F-statistic adjustment as a genuine pytensor Op.

``FStatAdjustment(x, coef, edges)`` evaluates log P(F <= gamma | log(tau_mu w_x) = x) from the
quintic Hermite table of :class:`~selbayes.adjustment.FStatOmitLogProb` (values and exact
derivatives at the knots; Li 2009, eqs 26-34 for the quantity) with its linear lower tail and
exponential upper tail, elementwise. Its gradient in x is a second Op (``derivative=True``);
the table parameters are data (no gradient). A numba implementation is registered with
pytensor's numba dispatcher, so NUMBA mode and nutpie compile it natively, and a JAX
implementation with pytensor's JAX dispatcher (when jax is installed). The Gaussian model's
selection Potential is built on it; ``FStatOmitLogProb.__call__`` still builds the same
interpolant as an expression, which pytensor's pure C backend can compile (the Op has no C code).

Not yet done: a C implementation, the |correlation| and mixture subclasses.
"""
from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import grad_undefined
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

from ._spline import pieces_numpy

__all__ = ["FStatAdjustment", "fstat_adjustment"]


def _evaluate(x, coef, edges, spacing, derivative, xp=np):
    """Value (or derivative) of the table with its tails; ``edges`` in ``EDGE_KEYS`` order.

    ``xp`` is NumPy (``perform``, :meth:`FStatOmitLogProb.evaluate`) or ``jax.numpy`` (the JAX
    implementation); the numba implementation is the same arithmetic as a loop.
    """
    x_lo, x_hi, l_lo, dl_lo, l_hi, dl_hi, b = (edges[i] for i in range(7))
    mid, dmid = pieces_numpy(x, coef, x_lo, x_hi, spacing, xp=xp)
    e = xp.exp(-b * (xp.maximum(x, x_hi) - x_hi))
    if derivative:
        return xp.where(x < x_lo, dl_lo, xp.where(x > x_hi, dl_hi * e, dmid))
    low = l_lo + dl_lo * (xp.minimum(x, x_lo) - x_lo)
    up = l_hi + dl_hi / b * (1.0 - e)
    return xp.where(x < x_lo, low, xp.where(x > x_hi, up, mid))


class FStatAdjustment(Op):
    """log P(omitted F statistic <= gamma | x = log(tau_mu w_x)), elementwise, as one Op.

    Parameters
    ----------
    spacing : float
        Knot spacing of the table (fixes the Op).
    derivative : bool
        Evaluate d/dx instead (the gradient Op).
    n_classes, threshold : int, float
        For the readable name only.

    Inputs are ``x`` (float64, any shape), ``coef`` (6, n_pieces) and ``edges`` (7,), from
    :meth:`FStatOmitLogProb.spline_parameters`; the output has the shape of ``x`` (nats). The
    gradient is a second instance with ``derivative=True``; numba and JAX implementations are
    registered, so NUMBA mode (nutpie) never falls back to object mode.

    References
    ----------
    .. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
       Bayesian Gaussian classification models, eqs 26-34.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.adjustment import FStatOmitLogProb
    >>> table = FStatOmitLogProb(np.array([20, 20, 20]), threshold=3.0, alpha_x=4.0)
    >>> out = fstat_adjustment(table, np.array([0.0, 2.0]))
    >>> str(out.owner.op)
    'FStatAdjustment{G=3, gamma=3}'
    >>> bool(np.all(out.eval() < 0))      # log probabilities
    True
    """

    __props__ = ("spacing", "derivative", "n_classes", "threshold")

    def __init__(self, spacing, derivative=False, n_classes=0, threshold=0.0):
        self.spacing = float(spacing)
        self.derivative = bool(derivative)
        self.n_classes = int(n_classes)
        self.threshold = float(threshold)

    def __str__(self):
        name = "FStatAdjustmentGrad" if self.derivative else "FStatAdjustment"
        if self.n_classes == 0:  # design held in data (one compiled model, many designs)
            return f"{name}{{spacing={self.spacing:g}}}"
        return f"{name}{{G={self.n_classes}, gamma={self.threshold:g}}}"

    def make_node(self, x, coef, edges):
        x = pt.as_tensor_variable(x)
        x = x if x.dtype == "float64" else pt.cast(x, "float64")
        coef = pt.as_tensor_variable(coef)
        edges = pt.as_tensor_variable(edges)
        if coef.ndim != 2 or edges.ndim != 1:
            raise TypeError("coef must be a matrix (6, n_pieces) and edges a vector (7,)")
        return Apply(self, [x, coef, edges], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, coef, edges = inputs
        output_storage[0][0] = np.asarray(
            _evaluate(np.asarray(x, dtype=np.float64), coef, edges, self.spacing,
                      self.derivative), dtype=np.float64)

    def infer_shape(self, node, shapes):
        return [shapes[0]]

    def pullback(self, inputs, outputs, output_grads):
        x, coef, edges = inputs
        if self.derivative:
            return [grad_undefined(self, 0, x, "second derivative of the adjustment table"),
                    grad_undefined(self, 1, coef), grad_undefined(self, 2, edges)]
        dop = FStatAdjustment(self.spacing, True, self.n_classes, self.threshold)
        return [output_grads[0] * dop(x, coef, edges),
                grad_undefined(self, 1, coef, "the table is data"),
                grad_undefined(self, 2, edges, "the table is data")]



def fstat_adjustment(table, log_scale):
    """``FStatAdjustment`` applied to ``log_scale`` with the table of an ``FStatOmitLogProb``.

    Parameters
    ----------
    table : selbayes.adjustment.FStatOmitLogProb
        The tabulated factor of one design (class counts, threshold gamma, alpha_x).
    log_scale : tensor-like of float
        x = log(tau_mu w_x), any shape.

    Returns
    -------
    pytensor.tensor.TensorVariable
        log P(omitted F <= gamma | x), same shape as ``log_scale`` (nats).

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.adjustment import FStatOmitLogProb
    >>> table = FStatOmitLogProb(np.array([10, 10]), threshold=4.0, alpha_x=4.0)
    >>> fstat_adjustment(table, np.zeros(3)).eval().shape
    (3,)
    """
    params = table.spline_parameters()
    op = FStatAdjustment(table.spacing, False, table.n_classes, table.threshold)
    return op(log_scale, pt.constant(params["coef"], name="fstat_coef"),
              pt.constant(params["edges"], name="fstat_edges"))


def _register_numba():
    try:
        from pytensor.link.numba.dispatch.basic import numba_funcify, numba_njit
    except ImportError:  # numba not installed
        return

    @numba_funcify.register(FStatAdjustment)
    def _funcify(op, node=None, **kwargs):
        h = op.spacing
        derivative = op.derivative

        @numba_njit
        def fstat_adjustment_numba(x, coef, edges):
            x_lo, x_hi, l_lo, dl_lo = edges[0], edges[1], edges[2], edges[3]
            l_hi, dl_hi, b = edges[4], edges[5], edges[6]
            out = np.empty_like(x)
            xf = x.ravel()
            of = out.ravel()
            last = coef.shape[1] - 1
            for i in range(xf.size):
                xi = xf[i]
                if xi < x_lo:
                    of[i] = dl_lo if derivative else l_lo + dl_lo * (xi - x_lo)
                elif xi > x_hi:
                    e = np.exp(-b * (xi - x_hi))
                    of[i] = dl_hi * e if derivative else l_hi + dl_hi / b * (1.0 - e)
                else:
                    pos = (xi - x_lo) / h
                    k = min(max(int(np.floor(pos)), 0), last)
                    t = pos - k
                    if derivative:
                        v = 5.0 * coef[5, k]
                        for j in range(4, 0, -1):
                            v = v * t + j * coef[j, k]
                        of[i] = v / h
                    else:
                        v = coef[5, k]
                        for j in range(4, -1, -1):
                            v = v * t + coef[j, k]
                        of[i] = v
            return out.reshape(x.shape)

        return fstat_adjustment_numba


def _register_jax():
    try:
        import jax.numpy as jnp
        from pytensor.link.jax.dispatch import jax_funcify
    except ImportError:  # jax not installed
        return

    @jax_funcify.register(FStatAdjustment)
    def _funcify(op, node=None, **kwargs):
        h = op.spacing
        derivative = op.derivative

        def fstat_adjustment_jax(x, coef, edges):
            return _evaluate(x, coef, edges, h, derivative, xp=jnp)

        return fstat_adjustment_jax


_register_numba()
_register_jax()
