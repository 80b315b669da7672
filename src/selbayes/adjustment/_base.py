"""The base class of the selection-adjustment Ops: one pytensor Op, elementwise in one input x.

The corrected posterior of a model fitted to the k features that passed a selection carries
(p - k) log P(an omitted feature fails the selection | hyperparameters) (Li 2009 eqs 23-24;
Li 2007 eqs 2.52-2.55 and 2.97). :class:`SelectionAdjustment` evaluates that log probability,
elementwise in one continuous input x; one subclass per statistic names x and the evaluation
methods it offers:

* :class:`~selbayes.adjustment.FStatAdjustment` (x = log(tau_mu w_x), the F statistic);
* :class:`~selbayes.adjustment.CorrAdjustment` (x = log alpha, the |correlation| of
  binary naive Bayes);
* :class:`~selbayes.adjustment.MixtureAdjustment` (x = log alpha and the counts of the
  latent labels, the binary mixture).

Implementations: a NumPy ``perform``
(:mod:`selbayes.adjustment.backends._numpy_kernels`), C code for the table (PyMC's default CVM
backend, :mod:`selbayes.adjustment.backends._c`), numba and JAX implementations registered by
:mod:`selbayes.adjustment.backends._numba` and :mod:`selbayes.adjustment.backends._jax`, and a
gradient in x (a second instance of the same Op with ``derivative=True``; the other inputs are
data and disconnected).

References
----------
.. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models, eqs 23-34.
.. [2] Li, L. (2007). Bayesian classification and regression with high dimensional features.
   PhD thesis, University of Toronto, sections 2.3-2.4.
"""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType, grad_undefined
from pytensor.graph.basic import Apply
from pytensor.link.c.interface import MethodNotDefined
from pytensor.link.c.op import COp

from .._validation import check_real
from .backends._c import C_CODE_VERSION, table_c_code
from .backends._numpy_kernels import INPUTS, KERNELS

__all__ = ["SelectionAdjustment"]

# Recent lattice evaluations (see SelectionAdjustment.perform); insertion-ordered, oldest first.
_RECENT: dict = {}
_RECENT_SIZE = 64


class SelectionAdjustment(COp):
    """log P(an omitted feature fails the selection | x), elementwise in x, as one pytensor Op.

    Not used directly: the subclasses name the statistic and the evaluation methods it offers
    (``EVALUATIONS`` maps each ``method`` to the shared evaluation that implements it), and each
    statistic's parameter builder returns the Op together with its inputs.

    Parameters
    ----------
    method : str
        One of the subclass's ``EVALUATIONS`` keys.
    spacing : float
        Knot spacing of a ``"table"``, in units of x (it fixes the compiled code); ignored by
        the other methods.
    derivative : bool
        Evaluate dl/dx instead (the Op of the gradient).
    info : tuple of (str, value) pairs
        Labels for the readable name only (e.g. the design), e.g. ``(("G", 6), ("gamma", 3.15))``.

    Notes
    -----
    Applied as ``op(x, *inputs)``: ``x`` is a float tensor of any shape (cast to float64) and
    ``inputs`` are the evaluation method's numbers, in the order of the dict the statistic's
    parameter builder returns (see :data:`selbayes.adjustment.backends._numpy_kernels.INPUTS`).
    The output is float64 with the shape of x: log P in nats, at most 0. Only x has a gradient;
    the other inputs are data (disconnected), so they can live in ``pm.Data``.

    Examples
    --------
    >>> from selbayes.adjustment import fstat_parameters
    >>> op, params = fstat_parameters([10, 10], threshold=4.0, alpha_x=4.0)
    >>> isinstance(op, SelectionAdjustment), op.evaluation
    (True, 'table')
    >>> grad_op = type(op)(op.method, op.spacing, True, op.info)     # what the gradient uses
    >>> str(grad_op)
    'FStatAdjustmentGrad{G=2, gamma=4}'
    """

    __props__ = ("method", "spacing", "derivative", "info")
    EVALUATIONS: dict = {}

    def __init__(self, method="table", spacing=0.0, derivative=False, info=()):
        if method not in self.EVALUATIONS:
            raise ValueError(f"{type(self).__name__} method must be one of "
                             f"{tuple(self.EVALUATIONS)}; got {method!r}")
        self.method = str(method)
        self.spacing = check_real(spacing, name="spacing")
        self.derivative = bool(derivative)
        self.info = tuple((str(k), v) for k, v in info)
        if self.evaluation == "table" and not self.spacing > 0:
            raise ValueError(f"method='table' needs a positive spacing; got {spacing!r}")

    @property
    def evaluation(self) -> str:
        """The shared evaluation behind ``method``: table, mc, convolution or lattice."""
        return self.EVALUATIONS[self.method]

    def __str__(self):
        name = type(self).__name__ + ("Grad" if self.derivative else "")
        parts = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.info]
        if not self.info and self.evaluation == "table":
            parts.append(f"spacing={self.spacing:g}")
        if self.method != next(iter(self.EVALUATIONS)):     # not the default method
            parts.append(f"method={self.method}")
        return f"{name}{{{', '.join(parts)}}}"

    def make_node(self, x, *params):
        spec = INPUTS[self.evaluation]
        if len(params) != len(spec):
            raise TypeError(f"{self}: method {self.method!r} takes x and "
                            f"{len(spec)} inputs ({', '.join(s[0] for s in spec)}); "
                            f"got {len(params)}")
        x = pt.as_tensor_variable(x)
        x = x if x.dtype == "float64" else pt.cast(x, "float64")
        inputs = [x]
        for p, (name, ndim, kind) in zip(params, spec, strict=True):
            p = pt.as_tensor_variable(p)
            if p.ndim != ndim:
                raise TypeError(f"{self}: input {name!r} must have {ndim} dimensions; "
                                f"got {p.ndim}")
            want = "float64" if kind == "f" else "int64"
            inputs.append(p if p.dtype == want else pt.cast(p, want))
        return Apply(self, inputs, [x.type()])

    def perform(self, node, inputs, output_storage):
        x, *params = inputs
        x = np.asarray(x, dtype=np.float64)
        key = None
        if self.evaluation == "lattice":
            # Samplers that update one block at a time evaluate the model's log density many
            # times with alpha and the labels unchanged (NUTS over theta, for example):
            # remember the last few results, keyed by the exact input bytes. Even with the
            # compiled evaluation below this makes PyMC's NUTS + slice route (sampler=
            # "pymc_nuts") 1.27x faster at n = 100, k = 10, p = 2000 (6.3 s against 8.1 s).
            key = (self, x.shape, b"".join(np.ascontiguousarray(a).tobytes()
                                           for a in (x, *params)))
            hit = _RECENT.get(key)
            if hit is not None:
                output_storage[0][0] = hit.copy()
                return
        with np.errstate(over="ignore", under="ignore"):
            out = KERNELS[self.evaluation](x, *params, self.spacing, self.derivative)
        out = np.asarray(out, dtype=np.float64).reshape(x.shape)
        if key is not None:
            _RECENT[key] = out.copy()
            while len(_RECENT) > _RECENT_SIZE:
                try:
                    _RECENT.pop(next(iter(_RECENT)), None)
                except (StopIteration, RuntimeError):     # emptied or resized by a thread
                    break
        output_storage[0][0] = out

    def infer_shape(self, node, shapes):
        return [shapes[0]]

    # ---- C implementation of the table (CVM / C backends); other methods run ``perform`` ----
    def c_code_cache_version(self):
        return C_CODE_VERSION

    def c_code(self, node, name, inputs, outputs, sub):
        if self.evaluation != "table":
            raise MethodNotDefined("c_code", type(self), "only the table has C code")
        x, coef, edges = inputs
        (z,) = outputs
        return table_c_code(x, coef, edges, z, sub["fail"], self.spacing, self.derivative)

    def connection_pattern(self, node):
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def pullback(self, inputs, outputs, output_grads):
        x, *params = inputs
        rest = [DisconnectedType()() for _ in params]
        if self.derivative:
            return [grad_undefined(self, 0, x, "second derivative of the selection adjustment"),
                    *rest]
        dop = type(self)(self.method, self.spacing, True, self.info)
        return [output_grads[0] * dop(x, *params), *rest]
