"""The |correlation| selection adjustment of binary naive Bayes: its Op, its table, its builder.

Binary naive Bayes fitted to the k binary features with the largest |correlation| with the
class carries (p - k) log P(|COR| <= gamma | alpha) (Li 2007 eqs 2.41-2.44 and 2.52-2.55). This
module holds

* :class:`CorrAdjustment`, the pytensor Op of that log probability, elementwise in x = log alpha;
* :class:`CorrOmitLogProb`, the function tabulated once per design for the Op's ``"table"``
  method (and :func:`corr_omit_log_prob_op`, its per-process cache);
* :func:`corr_parameters`, the one route from a design to the Op and its inputs (any method).

The table. :class:`CorrOmitLogProb` tabulates l(x) = log P(|COR| <= gamma | log alpha = x) for
one omitted binary feature (computed by :func:`selbayes.adjustment.corr_log_omit_prob`)
once, at construction, with its exact first derivative and a second derivative by central
differences of the exact first derivative, as a piecewise quintic Hermite interpolant. Calling
it applies :class:`CorrAdjustment` to the table (one Op with a gradient and C, numba and JAX
implementations); the table can live in ``pm.Data`` so that one compiled model serves many
designs.

Outside the table [x_lo, x_hi] the function tends to finite limits, both at rate e^{-|x|}:

* alpha -> 0: phi_0 and phi_1 become equal 0/1 coins, so P_keep -> int theta^2 + (1 - theta)^2
  = 2/3 (for gamma < 1), with a correction linear in alpha. Below x_lo:
  ``l(x) = l_lo + l'_lo (exp(x - x_lo) - 1)`` (matches value and slope; limit l_lo - l'_lo).
* alpha -> inf: the null value int P_theta(|Cor| <= gamma) dtheta (x iid Bernoulli(theta),
  independent of y), with a correction O(1 / alpha). Above x_hi:
  ``l(x) = l_hi + l'_hi (1 - exp(x_hi - x))``.

With the default range [-12, 18] both corrections are below 1e-5 in l at the edges, so the
extrapolated limits agree with the true ones to about 1e-10. The value is never NaN, and
(p - k) l(x) stays finite for every finite x.

References
----------
.. [1] Li, L. (2007). Bayesian classification and regression with high dimensional features.
   PhD thesis, University of Toronto, section 2.3.
"""

from __future__ import annotations

import functools

import numpy as np
import pytensor.tensor as pt

from ._base import SelectionAdjustment
from ._corr import (
    THETA_RULES,
    _check_count,
    _check_threshold,
    corr_log_omit_prob,
    default_n_theta,
)
from ._mixture import lattice_inputs
from ._spline import check_spacing, check_table_range, quintic_hermite_coefficients
from .backends import _jax as _jax_backend  # noqa: F401  (registers the JAX implementation)
from .backends import _numba as _numba_backend  # noqa: F401  (registers the numba implementation)
from .backends import _numpy_kernels as numpy_kernels

__all__ = ["CorrAdjustment", "CorrOmitLogProb", "corr_parameters", "corr_omit_log_prob_op",
           "DEFAULT_TABLE_RANGE", "DEFAULT_SPACING"]

DEFAULT_TABLE_RANGE = (-12.0, 18.0)
DEFAULT_SPACING = 0.1
# Step of the central difference of the exact first derivative (truncation ~ delta^2 l'''' / 6).
_FD_STEP = 1e-3


class CorrAdjustment(SelectionAdjustment):
    """log P(an omitted binary feature has |COR| <= gamma | x = log alpha), elementwise.

    The selection factor of binary naive Bayes (Li 2007 eqs 2.41-2.44, 2.52-2.55) whose k
    retained features are the ones with the largest absolute sample correlation with the binary
    class (as ``selbayes.select_features(X, y, k, statistic="abs_corr")``: every omitted feature
    has |COR| <= gamma, ties included). A corrected model adds ``(p - k) * op(x, *inputs)`` to
    its log density with ``pm.Potential``. Build the Op and its inputs with
    :func:`corr_parameters`.

    **The model the factor belongs to.** Every binary feature j (retained or omitted), classes
    y = 0, 1 (Li 2007 section 2.3)::

        x_ij | y_i = c  ~ Bernoulli(phi_cj)
        phi_0j, phi_1j  ~ Beta(alpha theta_j, alpha (1 - theta_j))   (independently)
        theta_j         ~ Uniform(0, 1)

    ``alpha`` (> 0, dimensionless) is the concentration shared by all features: small alpha lets
    a feature's two class frequencies differ, large alpha ties them to theta_j (no signal). The
    omitted features' phi and theta are integrated out, so the factor depends on alpha alone.
    **Your own PyMC model must give the features this prior** (phi_cj ~ Beta(alpha theta_j,
    alpha (1 - theta_j)) with theta_j ~ Uniform(0, 1), and the same alpha as in x); the prior of
    alpha itself is free. With another prior on phi or theta the Op computes the factor of a
    different model and the corrected posterior is wrong, without any error.

    Parameters
    ----------
    method : {"table", "exact"}
        Evaluation method: ``"table"`` (default) a quintic Hermite table of
        :func:`selbayes.adjustment.corr_log_omit_prob` in log alpha, with exponential tails at
        both ends (about 1e-11 nats); ``"exact"`` the theta quadrature itself, through the
        lattice kernel with counts (n0, 0, 0, n1).
    spacing : float
        Knot spacing of a ``"table"``, in log alpha; ignored otherwise.
    derivative : bool
        Evaluate dl/dx instead (the Op of the gradient).
    info : tuple of (str, value) pairs
        Labels for the readable name, e.g. ``(("n0", 9), ("n1", 11), ("gamma", 0.3))``.

    Notes
    -----
    Inputs, ``op(x, *params.values())`` with ``params`` from :func:`corr_parameters`:

    ``x`` : tensor of float, any shape
        log alpha (natural log), e.g. ``pt.log(alpha)``.
    ``"table"``: ``coef`` float64 (6, m), ``edges`` float64 (8,)
        The quintic coefficients of the m pieces of width ``spacing`` and the tails beyond the
        table (``EDGE_KEYS`` order: x_lo, x_hi, then value, slope and rate at each end).
    ``"exact"``: ``counts`` int64 (4,), ``theta`` float64 (2, Q), ``prefix`` int64 (n + 1,)
        (n0, 0, 0, n1); the theta rule's nodes and weights; the prefix of the region
        |COR| > gamma on each antidiagonal of the (I0, I1) lattice.

    Output: float64 with the shape of x, log P in nats (<= 0); the gradient is in x only.

    Examples
    --------
    >>> import numpy as np
    >>> op, params = corr_parameters(4, 4, 0.30)
    >>> out = op(np.log(2.0), *params.values())
    >>> str(out.owner.op), round(float(np.exp(out.eval())), 6)
    ('CorrAdjustment{n0=4, n1=4, gamma=0.3}', 0.493055)

    In your own PyMC model (classes of 15 and 15 cases, p = 500 binary features of which the
    k = 5 with the largest |correlation| were kept; gamma = ``Selection.threshold``, so every
    omitted feature has |COR| <= gamma):

    >>> import pymc as pm, pytensor.tensor as pt
    >>> p, k = 500, 5
    >>> op, params = corr_parameters(15, 15, 0.45)
    >>> with pm.Model() as model:
    ...     alpha = pm.InverseGamma("alpha", alpha=0.5, beta=5.0)
    ...     theta = pm.Uniform("theta", 0.0, 1.0, shape=k)
    ...     # ... phi ~ Beta(alpha theta, alpha (1 - theta)) and the retained features' data ...
    ...     adj = pm.Potential("selection_adjustment",
    ...                        (p - k) * op(pt.log(alpha), *params.values()))
    >>> [v.name for v in model.potentials]
    ['selection_adjustment']
    """

    EVALUATIONS = {"table": "table", "exact": "lattice"}


class CorrOmitLogProb:
    """log P(an omitted binary feature has |COR| <= gamma | log alpha), tabulated for the Op.

    Parameters
    ----------
    n0, n1 : int
        Training cases in class 0 and in class 1 (>= 1).
    threshold : float
        gamma >= 0, the |correlation| threshold (ties at gamma count as omitted, as in
        ``select_features``).
    n_theta : int, optional
        Theta nodes of the reference; default
        :func:`~selbayes.adjustment.default_n_theta` (spectrally converged).
    theta_rule : {"gauss", "simpson"}
        Theta rule of the reference (``"simpson"`` with 21 nodes is the thesis' rule).
    table_range : (float, float)
        (x_lo, x_hi) in log alpha (natural log); default (-12, 18). x_hi is moved up to a whole
        number of knot intervals.
    spacing : float
        Knot spacing in log alpha, in (0, 1]; default 0.1.

    Attributes
    ----------
    n_pieces : int
        Number of quintic pieces, ``ceil((x_hi - x_lo) / spacing)``.
    table_range : (float, float)
        The (x_lo, x_hi) actually used.
    interp_error : float
        Largest |interpolant - reference| at the interval midpoints (where the Hermite
        remainder peaks), measured at construction; about 1e-11 at the defaults.
    limit_low, limit_high : float
        The extrapolations' limits as log alpha -> -inf and +inf.
    edge_values : dict
        l and l' at both ends of the table, keyed by ``EDGE_KEYS``.

    Raises
    ------
    TypeError
        If ``n0`` / ``n1`` are not integers, ``threshold`` is not a number, or ``table_range``
        is not two numbers.
    ValueError
        If ``n0`` or ``n1`` is < 1, ``threshold`` is negative or not finite, ``theta_rule`` is
        unknown, ``spacing`` is not in (0, 1], or ``table_range`` is not finite or shorter than
        two knot intervals.

    Examples
    --------
    The Op and its gradient (``FAST_COMPILE`` only keeps this example quick; inside a PyMC model
    the default backend compiles it):

    >>> import numpy as np, pytensor, pytensor.tensor as pt
    >>> from selbayes.adjustment._corr import corr_log_omit_prob_grad
    >>> op = CorrOmitLogProb(4, 4, 0.30)
    >>> x = pt.dscalar("log_alpha")
    >>> f = pytensor.function([x], [op(x), pytensor.grad(op(x), x)], mode="FAST_COMPILE")
    >>> value, slope = f(np.log(2.0))
    >>> round(float(np.exp(value)), 6)                   # by enumeration, alpha = 2
    0.493055
    >>> bool(np.isclose(slope, corr_log_omit_prob_grad(2.0, 4, 4, 0.30)))
    True

    The design of the thesis' simulation (section 2.3.5: n0 = n1 = 100) takes a few seconds to
    tabulate:

    >>> op = CorrOmitLogProb(100, 100, 0.13)             # doctest: +SKIP
    >>> round(float(9000 * op.evaluate(np.log(279.6))), 1)  # doctest: +SKIP
    -1082.2
    """

    #: Order of the scalars in ``spline_parameters()["edges"]``.
    EDGE_KEYS = numpy_kernels.EDGE_KEYS

    def __init__(self, n0: int, n1: int, threshold: float, n_theta: int | None = None,
                 theta_rule: str = "gauss", *, table_range=DEFAULT_TABLE_RANGE,
                 spacing: float = DEFAULT_SPACING):
        n0, n1 = _check_count(n0, "n0"), _check_count(n1, "n1")
        gamma = _check_threshold(threshold)
        if theta_rule not in THETA_RULES:
            raise ValueError(f"theta_rule must be one of {THETA_RULES}; got {theta_rule!r}")
        if n_theta is None:
            n_theta = default_n_theta(n0 + n1, theta_rule)
        spacing = check_spacing(spacing)
        x_lo, x_hi = check_table_range(table_range, spacing)
        n_int = int(np.ceil((x_hi - x_lo) / spacing - 1e-9))
        x_hi = x_lo + n_int * spacing
        knots = x_lo + spacing * np.arange(n_int + 1)
        mids = knots[:-1] + 0.5 * spacing

        def exact(x, grad=True):
            return corr_log_omit_prob(np.exp(x), n0, n1, gamma, n_theta, theta_rule,
                                      return_grad=grad)

        f, d = exact(knots)
        _, d_up = exact(knots + _FD_STEP)
        _, d_dn = exact(knots - _FD_STEP)
        s = (d_up - d_dn) / (2.0 * _FD_STEP)
        self._coef = quintic_hermite_coefficients(f, d, s, spacing)

        self.n0, self.n1, self.threshold = n0, n1, gamma
        self.n_theta, self.theta_rule = int(n_theta), theta_rule
        self.table_range = (x_lo, x_hi)
        self.spacing = spacing
        self.n_pieces = n_int
        self.edge_values = {"x_lo": x_lo, "x_hi": x_hi, "l_lo": float(f[0]), "dl_lo": float(d[0]),
                            "l_hi": float(f[-1]), "dl_hi": float(d[-1])}
        self.limit_low = float(f[0] - d[0])
        self.limit_high = float(f[-1] + d[-1])
        half = 0.5 ** np.arange(6)
        self.interp_error = float(np.max(np.abs(half @ self._coef - exact(mids, grad=False))))

    def __repr__(self) -> str:
        return (f"CorrOmitLogProb(n0={self.n0}, n1={self.n1}, threshold={self.threshold!r}, "
                f"theta_rule={self.theta_rule!r}, n_theta={self.n_theta}, "
                f"table_range={self.table_range}, spacing={self.spacing})")

    # ---- NumPy evaluation of the very same interpolant ----
    def evaluate(self, log_alpha, derivative: bool = False):
        """The interpolant (and d/d log alpha) in NumPy: the numbers the Op's table gives.

        Parameters
        ----------
        log_alpha : float or ndarray (any shape)
            Natural log of alpha; values outside ``table_range`` use the extrapolations.
        derivative : bool
            Also return d l / d log alpha.

        Returns
        -------
        value : ndarray with the shape of ``log_alpha`` (a NumPy scalar for a scalar)
            l(log alpha) = log P_keep, in nats.
        slope : ndarray of the same shape, only if ``derivative``
            d l / d log alpha.

        Examples
        --------
        >>> op = corr_omit_log_prob_op(4, 4, 0.30)
        >>> value, slope = op.evaluate(np.log(2.0), derivative=True)
        >>> round(float(value), 6), round(float(slope), 6)
        (-0.707135, 0.043601)
        >>> op.evaluate(np.array([-40.0, 0.0, 40.0])).shape
        (3,)
        """
        x = np.asarray(log_alpha, dtype=np.float64)
        params = self.spline_parameters()
        inputs = (params["coef"], params["edges"])
        # the Op's own NumPy kernel, so these are the numbers the Op gives
        val = numpy_kernels.evaluate("table", x, inputs, self.spacing, False)
        if not derivative:
            return val[()] if val.ndim == 0 else val
        der = numpy_kernels.evaluate("table", x, inputs, self.spacing, True)
        return (val[()], der[()]) if val.ndim == 0 else (val, der)

    # ---- pytensor ----
    def spline_parameters(self) -> dict:
        """The table as arrays: the inputs of :class:`CorrAdjustment` (method ``"table"``).

        Returns
        -------
        dict
            ``"coef"``: float64 array of shape (6, n_pieces), the quintic coefficients of each
            piece; ``"edges"``: float64 array of shape (8,), the scalars in ``EDGE_KEYS`` order
            (tail rates r_lo = 1 and r_hi = -1: both ends approach finite limits like e^-|x|).

        Examples
        --------
        >>> params = corr_omit_log_prob_op(4, 4, 0.30).spline_parameters()
        >>> params["coef"].shape, params["edges"].shape
        ((6, 300), (8,))
        """
        ev = {**self.edge_values, "r_lo": 1.0, "r_hi": -1.0}
        return {"coef": np.asarray(self._coef, dtype=np.float64),
                "edges": np.array([ev[k] for k in self.EDGE_KEYS], dtype=np.float64)}

    def __call__(self, log_alpha):
        """log P(|COR| <= gamma | log alpha) through the CorrAdjustment Op (elementwise)."""
        params = self.spline_parameters()
        op = CorrAdjustment("table", self.spacing, False,
                            (("n0", self.n0), ("n1", self.n1), ("gamma", self.threshold)))
        return op(log_alpha, pt.constant(params["coef"], name="corr_coef"),
                  pt.constant(params["edges"], name="corr_edges"))


@functools.lru_cache(maxsize=32)
def _op_cached(n0, n1, threshold, n_theta, theta_rule, table_range, spacing):
    return CorrOmitLogProb(n0, n1, threshold, n_theta, theta_rule, table_range=table_range,
                           spacing=spacing)


def corr_omit_log_prob_op(n0: int, n1: int, threshold: float, n_theta: int | None = None,
                          theta_rule: str = "gauss", *, table_range=DEFAULT_TABLE_RANGE,
                          spacing: float = DEFAULT_SPACING) -> CorrOmitLogProb:
    """Cached :class:`CorrOmitLogProb` (tabulated once per design and process).

    Parameters
    ----------
    n0, n1 : int
        Training cases in class 0 and in class 1 (>= 1).
    threshold : float
        gamma >= 0, the |correlation| threshold.
    n_theta : int, optional
        Theta nodes of the reference; default :func:`~selbayes.adjustment.default_n_theta`.
    theta_rule : {"gauss", "simpson"}
        Theta rule of the reference.
    table_range : (float, float)
        (x_lo, x_hi) in log alpha; default (-12, 18).
    spacing : float
        Knot spacing in log alpha; default 0.1.

    Returns
    -------
    CorrOmitLogProb
        The same object for the same arguments (an LRU cache of 32 tables).

    Raises
    ------
    TypeError, ValueError
        For invalid arguments, as :class:`CorrOmitLogProb`.

    Examples
    --------
    >>> op = corr_omit_log_prob_op(4, 4, 0.30)
    >>> op is corr_omit_log_prob_op(4, 4, 0.30), op.n_pieces
    (True, 300)
    >>> bool(op.interp_error < 1e-9)
    True
    >>> round(op.limit_low, 6) == round(float(np.log(2 / 3)), 6)   # alpha -> 0: P_keep -> 2/3
    True
    """
    spacing = check_spacing(spacing)
    return _op_cached(_check_count(n0, "n0"), _check_count(n1, "n1"),
                      _check_threshold(threshold), n_theta, str(theta_rule),
                      check_table_range(table_range, spacing), spacing)


def corr_parameters(n0, n1, threshold, method="table", *, n_theta=None, theta_rule="gauss",
                    table_range=None, spacing=None, label=True):
    """The :class:`CorrAdjustment` and its inputs for one design (n0, n1, gamma).

    The one route from a |correlation| selection to its factor: apply the Op as
    ``op(log_alpha, *params.values())`` (see :class:`CorrAdjustment` for the model, and the
    prior of the features it assumes).

    Parameters
    ----------
    n0, n1 : int
        Training cases in class 0 and class 1.
    threshold : float
        gamma >= 0, the |correlation| threshold: every omitted feature has |COR| <= gamma.
    method : {"table", "exact"}
        ``"table"``: the cached table of :func:`corr_omit_log_prob_op`;
        ``"exact"``: the theta quadrature (``n_theta``, ``theta_rule``).
    n_theta, theta_rule :
        Theta rule (see :func:`selbayes.adjustment._corr.theta_quadrature`).
    table_range, spacing :
        Table settings in log alpha (default (-12, 18) and 0.1).
    label : bool
        Put n0, n1 and gamma in the Op's name (False: one Op for many designs held in data).

    Returns
    -------
    op : CorrAdjustment
    params : dict of str -> ndarray
        The inputs after x = log alpha, in order (see :class:`CorrAdjustment`).

    Raises
    ------
    ValueError
        If ``method`` is unknown, the design is invalid, or ``spacing`` or ``table_range`` is
        out of range.
    TypeError
        If ``n0``, ``n1``, ``threshold``, ``spacing`` or ``table_range`` is not a number.

    Examples
    --------
    >>> import numpy as np
    >>> op, params = corr_parameters(4, 4, 0.30, method="exact")
    >>> str(op), round(float(np.exp(op(np.log(2.0), *params.values()).eval())), 6)
    ('CorrAdjustment{n0=4, n1=4, gamma=0.3, method=exact}', 0.493055)
    """
    n0, n1 = _check_count(n0, "n0"), _check_count(n1, "n1")
    gamma = _check_threshold(threshold)
    info = (("n0", n0), ("n1", n1), ("gamma", gamma)) if label else ()
    if method == "table":
        table = corr_omit_log_prob_op(
            n0, n1, gamma, n_theta, theta_rule,
            table_range=DEFAULT_TABLE_RANGE if table_range is None else table_range,
            spacing=DEFAULT_SPACING if spacing is None else spacing)
        return CorrAdjustment("table", table.spacing, False, info), table.spline_parameters()
    if method == "exact":
        theta, prefix = lattice_inputs(n0, n1, gamma, n_theta, theta_rule)
        return (CorrAdjustment("exact", 0.0, False, info),
                {"counts": np.array([n0, 0, 0, n1], dtype=np.int64), "theta": theta,
                 "prefix": prefix})
    raise ValueError(f"method must be one of {tuple(CorrAdjustment.EVALUATIONS)}; "
                     f"got {method!r}")
