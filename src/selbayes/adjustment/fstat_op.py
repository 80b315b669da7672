"""The F-statistic adjustment's table, for the ``FStatAdjustment`` Op (method ``"table"``).

``FStatOmitLogProb`` tabulates the reference function l(x) = log P(F <= gamma | log(tau_mu w_x) = x)
once, at construction, together with its exact first and second derivatives, as a piecewise
quintic Hermite interpolant; calling it applies :class:`selbayes.adjustment.op.FStatAdjustment`
to that table (one Op, with a gradient and numba / JAX implementations).

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
"""

from __future__ import annotations

import numpy as np

from ._fstat_exact import ExactTable, f_terms
from ._spline import quintic_hermite_coefficients
from .fstat import MC_CUTOFF, METHODS, _mc_log_prob, mc_pool, validate_design, validate_t_df

__all__ = ["FStatOmitLogProb"]

DEFAULT_SPACING = 0.05
DEFAULT_X_LO = -30.0
DEFAULT_X_LO_MC = -10.0
# x_hi = log(n) + this: there l(x) is within ~E[Lambda] e^{-x} / P ~ 1e-13 of its limit.
_X_HI_MARGIN = 30.0


class FStatOmitLogProb:
    """log P(an omitted feature has F <= threshold | log(tau_mu * w_x)), as a pytensor expression.

    Construction tabulates the function (a fraction of a second); calling the object applies the
    :class:`~selbayes.adjustment.op.FStatAdjustment` Op to the table (exact gradient of the
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
        # Rate of the approach to the +inf limit: e^{-x} (normal prior, E[T] finite), or
        # e^{-x df/2} for a t prior with df <= 2 (E[T / lambda] infinite).
        rate_hi = 1.0 if mu_t_df is None else min(1.0, 0.5 * mu_t_df)
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {method!r}")
        spacing = float(spacing)
        if not np.isfinite(spacing) or not 0 < spacing <= 1.0:
            raise ValueError(f"spacing must be in (0, 1]; got {spacing!r}")
        n = int(counts.sum())
        G = counts.shape[0]
        if table_range is None:
            # The paper's estimator is useless (and wildly curved) far below tau_mu w_x ~ 1.
            x_lo = DEFAULT_X_LO if method == "exact" else DEFAULT_X_LO_MC
            table_range = (x_lo, float(np.log(n)) + _X_HI_MARGIN / rate_hi)
        x_lo, x_hi = (float(v) for v in table_range)
        if not (np.isfinite(x_lo) and np.isfinite(x_hi) and x_hi - x_lo >= 2 * spacing):
            raise ValueError(
                f"table_range must be two finite numbers (x_lo, x_hi) with x_hi - x_lo >= "
                f"2 * spacing; got {table_range!r}"
            )
        n_int = int(np.ceil((x_hi - x_lo) / spacing))
        x_hi = x_lo + n_int * spacing
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
        from .op import _eval_table  # the Op's own NumPy implementation

        x = np.asarray(log_scale, dtype=np.float64)
        params = self.spline_parameters()
        with np.errstate(over="ignore", invalid="ignore"):
            val = _eval_table(x, params["coef"], params["edges"], self.spacing, False)
            if not derivative:
                return val
            return val, _eval_table(x, params["coef"], params["edges"], self.spacing, True)

    # ---- pytensor ----
    #: Order of the scalars in ``spline_parameters()["edges"]`` (the Ops' ``EDGE_KEYS``):
    #: r_lo = 0 (linear lower tail), r_hi = -rate_high (exponential approach to the limit).
    EDGE_KEYS = ("x_lo", "x_hi", "l_lo", "dl_lo", "r_lo", "l_hi", "dl_hi", "r_hi")

    def spline_parameters(self) -> dict:
        """The table's numbers: ``coef`` (6, n_pieces) and ``edges`` (8,), see EDGE_KEYS.

        The inputs of :class:`~selbayes.adjustment.op.FStatAdjustment` with ``method="table"``;
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
        import pytensor.tensor as pt

        from .op import FStatAdjustment

        params = self.spline_parameters()
        op = FStatAdjustment("table", self.spacing, False,
                             (("G", self.n_classes), ("gamma", self.threshold)))
        return op(log_scale, pt.constant(params["coef"], name="fstat_coef"),
                  pt.constant(params["edges"], name="fstat_edges"))
