"""The F-statistic selection adjustment: its Op, its table and the builder of both.

The hierarchical Gaussian classifier fitted to the k features with the largest one-way ANOVA F
statistic carries (p - k) log P(F <= gamma | tau_mu w_x) (Li 2009 eqs 23-34). This module holds

* :class:`FStatAdjustment`, the pytensor Op of that log probability, elementwise in
  x = log(tau_mu w_x);
* :class:`FStatOmitLogProb`, the function tabulated once per design for the Op's ``"table"``
  method;
* :func:`fstat_parameters`, the one route from a design to the Op and its inputs (any method),
  and :func:`mc_standard_error` for the ``"mc"`` method.

The table. ``FStatOmitLogProb`` tabulates the reference function
l(x) = log P(F <= gamma | log(tau_mu w_x) = x) once, at construction, together with its exact
first and second derivatives, as a piecewise quintic Hermite interpolant; calling it applies
:class:`FStatAdjustment` to that table (one Op, with a gradient, C, numba and JAX
implementations).

Accuracy: the tabulated values and derivatives are accurate to about 1e-12; the interpolation
error of a quintic Hermite piece is h^6 / 46080 * max|l^(6)| and peaks at the middle of each
interval, where it is measured at construction against the reference (attribute
``interp_error``; below 1e-11 at the default spacing 0.05 in every design tried).

Outside the table ``[x_lo, x_hi]``:

* x > x_hi: l(x) = l(x_hi) + l'(x_hi) (1 - exp(-b (x - x_hi))) / b, which matches value and
  slope and has the correct form (l(x) -> log Fcdf(gamma; G-1, n-G) like O(e^{-b x}), b = 1, or
  b = df / 2 for a t prior with df < 2); at x_hi the gap to the limit is below 1e-11.
* x < x_lo: l(x) = l(x_lo) + l'(x_lo) (x - x_lo), linear, matching value and slope. The true
  asymptote is l(x) ~ kappa x + const with kappa = min(alpha_x, G - 1) / 2 (the tail of T near 0
  meets the F cdf's power law Fcdf(y) ~ y^((G-1)/2)); at the default x_lo = -30 the edge slope
  is within about 1e-3 of kappa (a little more when alpha_x = G - 1, where a log factor appears).

Either way the value decreases smoothly, is never NaN, and (p - k) * l(x) stays finite for finite
x, however large p - k is.

References
----------
.. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models, eqs 4-11 and 23-34.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pytensor.tensor as pt
from scipy.special import gammaln

from .._validation import check_flag
from ._base import SelectionAdjustment
from ._fstat import (
    MC_CUTOFF,
    METHODS,
    _as_log_scale,
    _mc_log_prob,
    mc_n_terms,
    mc_pool,
    validate_design,
    validate_t_df,
)
from ._fstat_exact import ExactTable, f_terms
from ._spline import check_spacing, check_table_range, quintic_hermite_coefficients
from .backends import _jax as _jax_backend  # noqa: F401  (registers the JAX implementation)
from .backends import _numba as _numba_backend  # noqa: F401  (registers the numba implementation)
from .backends import _numpy_kernels as numpy_kernels

__all__ = ["FStatAdjustment", "FStatOmitLogProb", "fstat_parameters", "mc_standard_error",
           "zero_table_parameters"]

DEFAULT_SPACING = 0.05
DEFAULT_X_LO = -30.0
DEFAULT_X_LO_MC = -10.0
# x_hi = log(n) + this: there l(x) is within ~E[Lambda] e^{-x} / P ~ 1e-13 of its limit.
_X_HI_MARGIN = 30.0


def _rate_high(mu_t_df) -> float:
    """Rate of the approach to the +inf limit: e^{-x} (normal prior, E[T] finite), or
    e^{-x df/2} for a t prior with df <= 2 (E[T / lambda] infinite)."""
    return 1.0 if mu_t_df is None else min(1.0, 0.5 * mu_t_df)


def upper_margin(mu_t_df=None) -> float:
    """x_hi - log(n) of the table's default range: within ~1e-13 of the limit there."""
    return _X_HI_MARGIN / _rate_high(mu_t_df)


def table_pieces(table_range, spacing) -> tuple[int, float]:
    """(number of pieces, x_hi rounded up to a whole piece) of a table over ``table_range``
    with knots ``spacing`` apart: the one rule of :class:`FStatOmitLogProb` and
    :func:`zero_table_parameters`, so that their inputs have equal shapes."""
    x_lo, x_hi = (float(v) for v in table_range)
    n_int = int(np.ceil((x_hi - x_lo) / spacing))
    return n_int, x_lo + n_int * spacing


def zero_table_parameters(table_range, spacing) -> dict:
    """The inputs of a ``"table"`` :class:`FStatAdjustment` that is 0, with slope 0, at every x.

    A model that omits nothing (or is not corrected) keeps the adjustment's graph with this
    table and ``n_omitted = 0``, so that it shares one compiled model with the corrected fits
    of its shape instead of compiling its own.

    Parameters
    ----------
    table_range : (float, float)
        (x_lo, x_hi) of the corrected model's table.
    spacing : float
        Its knot spacing.

    Returns
    -------
    dict
        ``coef`` (6, n_pieces) zeros and ``edges`` (8,) in ``EDGE_KEYS`` order, with the
        shapes of :meth:`FStatOmitLogProb.spline_parameters` for the same range and spacing.

    Examples
    --------
    >>> import pytensor.tensor as pt
    >>> params = zero_table_parameters((-30.0, 45.0), 0.1)
    >>> params["coef"].shape, params["edges"][:2]
    ((6, 750), array([-30.,  45.]))
    >>> op = FStatAdjustment("table", 0.1, False, ())
    >>> x = pt.dvector("x")
    >>> op(x, params["coef"], params["edges"]).eval({x: [-40.0, 0.0, 60.0]})
    array([0., 0., 0.])
    """
    return numpy_kernels.zero_table(float(table_range[0]),
                                    table_pieces(table_range, spacing)[0], spacing)


class FStatAdjustment(SelectionAdjustment):
    """log P(an omitted feature's F statistic <= gamma | x = log(tau_mu w_x)), elementwise.

    The selection factor of the hierarchical Gaussian classifier (Li 2009 eqs 23-34) whose k
    retained features are the ones with the largest one-way ANOVA F statistic (as
    ``selbayes.select_features(X, y, k, statistic="f")``: every omitted feature has F <= gamma).
    A corrected model adds ``(p - k) * op(x, *inputs)`` to its log density with
    ``pm.Potential``. Build the Op and its inputs with :func:`fstat_parameters`; do not
    construct it by hand except to hold the inputs in ``pm.Data``.

    **The model the factor belongs to.** Every feature j (retained or omitted), classes
    g = 1..G (Li 2009 eqs 4-11)::

        x_ij | y_i = g  ~ N(mu_jg, 1 / tau_x_j)                      (x in data units)
        mu_jg | nu_j    ~ N(nu_j, 1 / tau_mu)       (t prior: 1 / (tau_mu lambda_j))
        tau_x_j         ~ Gamma(alpha_x / 2, rate alpha_x w_x / 2)

    ``alpha_x`` (> 0, dimensionless) is the shape and ``w_x`` (> 0, data units squared) the
    scale of the noise prior: E[tau_x] = 1 / w_x, so w_x is a typical within-class variance,
    and a larger alpha_x ties the features' noise levels more tightly to it. ``tau_mu``
    (1 / data units squared) is the precision of the class means about the feature's overall
    mean nu_j, whose prior does not matter (F does not depend on location). The omitted
    features' tau_x, mu and nu are integrated out over these priors, so the factor depends on
    tau_mu and w_x only through the dimensionless product tau_mu w_x (a ratio of noise to
    class-mean variance: large means no signal, where P tends to the central F cdf at gamma),
    and on alpha_x through the Op's inputs.

    **Your own PyMC model must give tau_x the prior Gamma(alpha_x / 2, rate alpha_x w_x / 2)**,
    with the same alpha_x as passed to :func:`fstat_parameters` and the same w_x (a constant or
    a random variable) as inside x, and the class means the normal prior above (or, with
    ``mu_t_df``, the t prior of :func:`selbayes.adjustment.fstat_log_omit_prob`). With any other
    prior on tau_x (another shape, a rate not equal to alpha_x w_x / 2, a prior on the noise
    standard deviation instead) the Op computes the factor of a different model and the
    corrected posterior is wrong, without any error.

    Parameters
    ----------
    method : {"table", "mc", "exact"}
        Evaluation method: ``"table"`` (default) a quintic Hermite table of the accurate function
        (about 1e-10 nats) with analytic tails; ``"mc"`` the paper's Monte Carlo expectation with
        common random numbers (Li 2009 eq 34); ``"exact"`` the accurate log-t convolution.
    spacing : float
        Knot spacing of a ``"table"`` in units of x (it fixes the compiled code); ignored
        otherwise.
    derivative : bool
        Evaluate dl/dx instead (the Op of the gradient).
    info : tuple of (str, value) pairs
        Labels for the readable name, e.g. ``(("G", 6), ("gamma", 3.15))``.

    Notes
    -----
    Inputs, ``op(x, *params.values())`` with ``params`` from :func:`fstat_parameters`:

    ``x`` : tensor of float, any shape
        log(tau_mu w_x), natural log, dimensionless: ``pt.log(tau_mu) + np.log(w_x)`` for a
        fixed w_x, ``pt.log(tau_mu * w_x)`` for a random one.
    ``"table"``: ``coef`` float64 (6, m), ``edges`` float64 (8,)
        The quintic coefficients of the m pieces (one per knot interval of width ``spacing``)
        and the tails beyond the table (``EDGE_KEYS`` order: x_lo, x_hi, then value, slope and
        rate at each end).
    ``"mc"``: ``terms`` float64 (2, K), ``log_half_pool`` float64 (D,)
        (log f_k - log k!, k) of the F series and log(Lambda_d T_d / 2) of the fixed pool.
    ``"exact"``: ``grid`` float64 (2, J), ``prior`` float64 (5,), ``edges`` float64 (8,)
        The log-t nodes and log weights of the convolution, the prior of T in log t, and the
        tails beyond the tabulated x range.

    Output: float64 with the shape of x, log P in nats (<= 0); the gradient is in x only.

    Examples
    --------
    >>> import numpy as np
    >>> op, params = fstat_parameters([20, 20, 20], threshold=3.0, alpha_x=4.0)
    >>> out = op(np.array([0.0, 2.0]), *params.values())
    >>> str(out.owner.op)
    'FStatAdjustment{G=3, gamma=3}'
    >>> bool(np.all(out.eval() < 0))      # log probabilities
    True

    In your own PyMC model (two classes of 20, p = 1000 features of which the k = 10 with the
    largest F were kept; gamma = ``Selection.threshold``, so every omitted feature has
    F <= gamma), with w_x fixed:

    >>> import pymc as pm, pytensor.tensor as pt
    >>> alpha_x, w_x, p, k = 4.0, 0.5, 1000, 10
    >>> op, params = fstat_parameters([20, 20], threshold=4.0, alpha_x=alpha_x)
    >>> with pm.Model() as model:
    ...     tau_mu = pm.Gamma("tau_mu", alpha=1.0, beta=1.0)
    ...     tau_x = pm.Gamma("tau_x", alpha=alpha_x / 2, beta=alpha_x * w_x / 2, shape=k)
    ...     # ... class means and the likelihood of the k retained features ...
    ...     log_p = op(pt.log(tau_mu) + np.log(w_x), *params.values())
    ...     adj = pm.Potential("selection_adjustment", (p - k) * log_p)
    >>> [v.name for v in model.potentials]
    ['selection_adjustment']
    """

    EVALUATIONS = {"table": "table", "mc": "mc", "exact": "convolution"}


class FStatOmitLogProb:
    """log P(an omitted feature has F <= threshold | log(tau_mu * w_x)), as a pytensor expression.

    Construction tabulates the function (a fraction of a second); calling the object applies the
    :class:`FStatAdjustment` Op to the table (exact gradient of the
    interpolant).

    Parameters
    ----------
    class_counts : array_like of int, shape (G,)
        Training cases per class (G >= 2, n - G >= 1).
    threshold : float
        gamma > 0, the selection threshold on F.
    alpha_x : float
        Prior shape of tau_x, Gamma(alpha_x / 2, rate alpha_x w_x / 2); > 0.
    method : {"exact", "mc"}
        Function to tabulate: the accurate reference (default) or the paper's Monte Carlo
        recipe with ``n_draws`` draws from ``seed`` (for comparisons only).
    n_draws, seed, mc_cutoff :
        As in :func:`selbayes.adjustment.fstat_log_omit_prob`, for ``method="mc"``.
    table_range : (float, float), optional
        (x_lo, x_hi) of the table in log(tau_mu w_x); default (-30, log(n) + 30), or
        (-10, log(n) + 30) for ``method="mc"``; with ``mu_t_df`` = df <= 2 the upper end is
        log(n) + 60 / df.
    spacing : float
        Knot spacing in log(tau_mu w_x); default 0.05.
    mu_t_df : float or None
        Multivariate-t prior on each feature's class means with this many degrees of freedom
        (see :func:`selbayes.adjustment.fstat_log_omit_prob`); None: the normal prior.

    Attributes
    ----------
    table_range : tuple of float
        (x_lo, x_hi).
    spacing : float
    n_pieces : int
        Number of quintic pieces in the table.
    interp_error : float
        Largest |interpolant - reference| over the interval midpoints, where the Hermite
        remainder peaks (measured at construction).
    error_bound : float
        Documented bound on |value - exact| inside the table: ``interp_error`` + the reference's
        own error (1e-11, see ``_fstat_exact``), times a safety factor 2.
    limit_high : float
        log Fcdf(threshold; G - 1, n - G), the value as log_scale -> +inf.
    asymptotic_slope : float
        min(alpha_x, G - 1) / 2, the slope of log P as log_scale -> -inf.
    edge_values : dict
        l and l' at both ends of the table (the extrapolations use them).

    Examples
    --------
    >>> import numpy as np, pytensor, pytensor.tensor as pt
    >>> from selbayes.adjustment import FStatOmitLogProb
    >>> op = FStatOmitLogProb(np.array([34, 34, 33, 33, 33, 33]), threshold=3.15, alpha_x=4.0)
    >>> x = pt.dscalar("log_tau_mu")
    >>> logp = op(x)
    >>> f = pytensor.function([x], [logp, pytensor.grad(logp, x)])
    >>> value, slope = f(np.log(100.0))
    >>> bool(-1 < value < 0 and slope > 0)
    True

    In a PyMC model::

        pm.Potential("selection_adjustment", n_omitted * op(log_tau_mu + np.log(w_x)))
    """

    def __init__(self, class_counts, threshold, alpha_x, method="exact", n_draws=1000, seed=0,
                 *, mc_cutoff=MC_CUTOFF, table_range=None, spacing=DEFAULT_SPACING,
                 mu_t_df=None):
        counts, threshold, alpha_x = validate_design(class_counts, threshold, alpha_x)
        mu_t_df = validate_t_df(mu_t_df)
        rate_hi = _rate_high(mu_t_df)
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {method!r}")
        spacing = check_spacing(spacing)
        n = int(counts.sum())
        G = counts.shape[0]
        if table_range is None:
            # The paper's estimator is useless (and wildly curved) far below tau_mu w_x ~ 1.
            x_lo = DEFAULT_X_LO if method == "exact" else DEFAULT_X_LO_MC
            table_range = (x_lo, float(np.log(n)) + upper_margin(mu_t_df))
        x_lo, x_hi = check_table_range(table_range, spacing)
        n_int, x_hi = table_pieces((x_lo, x_hi), spacing)
        knots = x_lo + spacing * np.arange(n_int + 1)
        mids = knots[:-1] + 0.5 * spacing

        self.class_counts = counts
        self.threshold = threshold
        self.alpha_x = alpha_x
        self.method = method
        self.mu_t_df = mu_t_df
        self.rate_high = rate_hi
        self.n_draws = n_draws
        self.seed = seed
        self.table_range = (x_lo, x_hi)
        self.spacing = spacing
        self.n_classes = G
        self.limit_high = float(np.log(f_terms(1, G, n, threshold)[0]))
        self.asymptotic_slope = 0.5 * min(alpha_x, G - 1.0)

        if method == "exact":
            table = ExactTable.build(counts, threshold, alpha_x, x_lo, x_hi, mu_t_df=mu_t_df)
            f, d, s = table.evaluate(knots, derivatives=True)
            ref_mid = table.evaluate(mids)
            ref_error = 1e-11
        else:
            if isinstance(seed, np.random.Generator):
                # Freeze the pool so that knots and midpoints share it.
                seed = int(seed.integers(2**63 - 1))
                self.seed = seed
            mc_pool(counts, alpha_x, n_draws, seed)  # validates n_draws early
            f, d, s = _mc_log_prob(knots, counts, threshold, alpha_x, n_draws, seed, mc_cutoff,
                                   derivatives=True, mu_t_df=mu_t_df)
            ref_mid = _mc_log_prob(mids, counts, threshold, alpha_x, n_draws, seed,
                                   mc_cutoff, mu_t_df=mu_t_df)[0]
            ref_error = 0.0
        self._coef = quintic_hermite_coefficients(f, d, s, spacing)
        self.n_pieces = n_int
        self.edge_values = {"x_lo": x_lo, "l_lo": float(f[0]), "dl_lo": float(d[0]),
                            "x_hi": x_hi, "l_hi": float(f[-1]), "dl_hi": float(d[-1])}
        # Polynomial value at t = 1/2 on each piece.
        half = 0.5 ** np.arange(6)
        self.interp_error = float(np.max(np.abs(half @ self._coef - ref_mid)))
        self.error_bound = 2.0 * (self.interp_error + ref_error)

    def __repr__(self) -> str:
        return (f"FStatOmitLogProb(class_counts={self.class_counts.tolist()}, "
                f"threshold={self.threshold!r}, alpha_x={self.alpha_x!r}, "
                f"method={self.method!r}, table_range={self.table_range}, "
                f"spacing={self.spacing})")

    # ---- NumPy evaluation of the very same interpolant (tests, plots, Gibbs samplers) ----
    def evaluate(self, log_scale, derivative: bool = False):
        """The interpolant (and its derivative) in NumPy; the numbers the Op's table gives.

        Parameters
        ----------
        log_scale : float or ndarray
        derivative : bool
            Also return d/d log_scale.
        """
        x = np.asarray(log_scale, dtype=np.float64)
        params = self.spline_parameters()
        inputs = (params["coef"], params["edges"])
        with np.errstate(over="ignore", invalid="ignore"):
            # the Op's own NumPy kernel, so these are the numbers the Op gives
            val = numpy_kernels.evaluate("table", x, inputs, self.spacing, False)
            if not derivative:
                return val
            return val, numpy_kernels.evaluate("table", x, inputs, self.spacing, True)

    # ---- pytensor ----
    #: Order of the scalars in ``spline_parameters()["edges"]`` (the Ops' ``EDGE_KEYS``):
    #: r_lo = 0 (linear lower tail), r_hi = -rate_high (exponential approach to the limit).
    EDGE_KEYS = numpy_kernels.EDGE_KEYS

    def spline_parameters(self) -> dict:
        """The table's numbers: ``coef`` (6, n_pieces) and ``edges`` (8,), see EDGE_KEYS.

        The inputs of :class:`FStatAdjustment` with ``method="table"``;
        a model can hold them in ``pm.Data``, so one compiled model serves many designs (folds,
        SBC replicates) with equal ``n_pieces``.
        """
        ev = {**self.edge_values, "r_lo": 0.0, "r_hi": -self.rate_high}
        return {"coef": np.asarray(self._coef, dtype=np.float64),
                "edges": np.array([ev[key] for key in self.EDGE_KEYS], dtype=np.float64)}

    def __call__(self, log_scale):
        """log P(F <= threshold | log(tau_mu w_x) = log_scale) through the FStatAdjustment Op.

        Parameters
        ----------
        log_scale : pytensor variable or array_like, float, any shape
            Elementwise.

        Returns
        -------
        pytensor TensorVariable, float64, same shape as ``log_scale``
        """
        params = self.spline_parameters()
        op = FStatAdjustment("table", self.spacing, False,
                             (("G", self.n_classes), ("gamma", self.threshold)))
        return op(log_scale, pt.constant(params["coef"], name="fstat_coef"),
                  pt.constant(params["edges"], name="fstat_edges"))


def fstat_parameters(class_counts, threshold, alpha_x, method="table", *, n_draws=1000,
                     random_state=0, mc_cutoff=None, table_range=None, spacing=None,
                     mu_t_df=None, label=True):
    """The :class:`FStatAdjustment` and its inputs for one design (class counts, gamma, alpha_x).

    The one route from an F-statistic selection to its factor: apply the Op as
    ``op(x, *params.values())`` with x = log(tau_mu w_x) (see :class:`FStatAdjustment` for the
    model, and the prior of tau_x it assumes).

    Parameters
    ----------
    class_counts : array_like of int, shape (G,)
        Training cases per class (G >= 2, n - G >= 1).
    threshold : float
        gamma > 0: every omitted feature has F <= gamma.
    alpha_x : float
        Shape of the prior of tau_x, Gamma(alpha_x / 2, rate alpha_x w_x / 2); > 0. The model
        the Op is used in must give tau_x this prior with the same alpha_x.
    method : {"table", "mc", "exact"}
        ``"table"``: a quintic Hermite table of the accurate function (:class:`FStatOmitLogProb`);
        ``"mc"``: the paper's Monte Carlo expectation on one fixed pool of draws;
        ``"exact"``: the log-t convolution, with the table's tails beyond its x range.
    n_draws, random_state, mc_cutoff :
        ``"mc"``: pool size, its seed (int or Generator; fixed at construction, so every
        evaluation uses the same draws) and the series cut (default e^-10, the paper's).
    table_range, spacing, mu_t_df :
        As in :class:`FStatOmitLogProb` (``"table"`` and ``"exact"``).
    label : bool
        Put G and gamma in the Op's name (False: one Op for many designs held in data).

    Returns
    -------
    op : FStatAdjustment
    params : dict of str -> ndarray
        The inputs after x, in order (see :class:`FStatAdjustment`).

    Raises
    ------
    ValueError
        If ``method`` is unknown, the design is invalid (see
        :func:`selbayes.adjustment._fstat.validate_design`), ``spacing`` or ``table_range``
        is out of range, or with ``"mc"`` ``n_draws``, ``random_state`` or ``mc_cutoff``
        is.
    TypeError
        If ``label`` is not a bool, or ``threshold``, ``alpha_x``, ``spacing`` or
        ``table_range`` is not a number.

    Examples
    --------
    >>> import numpy as np, pytensor.tensor as pt
    >>> op, params = fstat_parameters([10, 10, 10], 3.0, 4.0, method="mc", n_draws=200,
    ...                               random_state=1)
    >>> str(op), sorted(params)
    ('FStatAdjustment{G=3, gamma=3, method=mc}', ['log_half_pool', 'terms'])
    >>> x = pt.dscalar("x")
    >>> float(op(x, *params.values()).eval({x: 2.0})) < 0
    True
    """
    counts, threshold, alpha_x = validate_design(class_counts, threshold, alpha_x)
    mu_t_df = validate_t_df(mu_t_df)
    spacing = DEFAULT_SPACING if spacing is None else check_spacing(spacing)
    label = check_flag(label, "label")
    info = (("G", int(counts.shape[0])), ("gamma", float(threshold))) if label else ()
    if method == "table":
        table = FStatOmitLogProb(counts, threshold, alpha_x, table_range=table_range,
                                 spacing=spacing, mu_t_df=mu_t_df)
        return (FStatAdjustment("table", table.spacing, False, info),
                table.spline_parameters())
    if method == "mc":
        cutoff = MC_CUTOFF if mc_cutoff is None else mc_cutoff
        G, n = counts.shape[0], int(counts.sum())
        n_terms = mc_n_terms(counts, threshold, cutoff)
        k = np.arange(n_terms, dtype=np.float64)
        with np.errstate(divide="ignore"):
            log_f = np.log(f_terms(n_terms, G, n, threshold))
        terms = np.stack([log_f - gammaln(k + 1.0), k])
        pool = mc_pool(counts, alpha_x, n_draws, random_state, mu_t_df,
                       seed_name="random_state")
        return (FStatAdjustment("mc", 0.0, False, info),
                {"terms": terms, "log_half_pool": np.log(0.5 * pool)})
    if method == "exact":
        # The tabulated x range of the "table" method; its tails beyond it.
        ref = FStatOmitLogProb(counts, threshold, alpha_x, table_range=table_range,
                               spacing=spacing, mu_t_df=mu_t_df)
        x_lo, x_hi = ref.table_range
        et = ExactTable.build(counts, threshold, alpha_x, x_lo, x_hi, mu_t_df=mu_t_df)
        f, d, _ = et.evaluate(np.array([x_lo, x_hi]), derivatives=True)
        pr = et.prior
        if pr.df is None:
            prior = [0.0, pr.a2, 0.0, 0.0, pr.a2 * np.log(pr.a2) - gammaln(pr.a2)]
        else:
            prior = [1.0, pr.a2, pr.d2, pr.log_ratio, pr.const]
        prior = np.array(prior, dtype=np.float64)
        prior[4] += np.log(et.step)
        edges = numpy_kernels.table_edges(x_lo, x_hi, f, d, 0.0, -ref.rate_high)
        return (FStatAdjustment("exact", 0.0, False, info),
                {"grid": np.stack([et.w, et.log_g]), "prior": prior, "edges": edges})
    raise ValueError(f"method must be one of {tuple(FStatAdjustment.EVALUATIONS)}; "
                     f"got {method!r}")


def mc_standard_error(op_params, log_scale):
    """Delta-method standard error of the ``"mc"`` estimate of log P at each log_scale.

    log P_hat = log mean_d s_d with s_d = sum_k Pois(k; mu_d) f_k iid over the pool, so
    se(log P_hat) ~ sd(s_d) / (sqrt(D) mean(s_d)), computed from the pool itself.

    Parameters
    ----------
    op_params : dict
        ``params`` of ``fstat_parameters(..., method="mc")``.
    log_scale : array_like of float
        Points x = log(tau_mu w_x).

    Returns
    -------
    ndarray with the shape of ``log_scale``
        Standard errors of log P, in nats.

    Raises
    ------
    ValueError
        If ``op_params`` are not the ``"mc"`` method's (``terms`` and ``log_half_pool``), or
        ``log_scale`` holds NaN.
    TypeError
        If ``log_scale`` is not numeric.

    Examples
    --------
    >>> _, params = fstat_parameters([10, 10], 4.0, 4.0, method="mc", n_draws=500)
    >>> se = mc_standard_error(params, [0.0, 3.0])
    >>> bool(se[0] > se[1] > 0)        # noisier where tau_mu w_x is small
    True
    """
    if not (isinstance(op_params, Mapping) and {"terms", "log_half_pool"} <= set(op_params)):
        raise ValueError("op_params must be the params of fstat_parameters(..., method='mc') "
                         "(terms and log_half_pool); got "
                         + (f"keys {sorted(op_params)}" if isinstance(op_params, Mapping)
                            else type(op_params).__name__))
    x = np.atleast_1d(_as_log_scale(log_scale))
    lhp = op_params["log_half_pool"]
    terms = op_params["terms"]
    log_mu = lhp[None, :, None] - x.reshape(-1)[:, None, None]
    lt = -np.exp(log_mu) + terms[1] * log_mu + terms[0]
    m = lt.max(axis=(1, 2), keepdims=True)
    s = np.exp(lt - m).sum(axis=2)                                     # (nx, D), scaled
    se = s.std(axis=1, ddof=1) / (np.sqrt(s.shape[1]) * s.mean(axis=1))
    return se.reshape(np.shape(log_scale))
