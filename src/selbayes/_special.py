"""log Gamma(a + m) / Gamma(a), the log rising factorial, accurate for every a > 0.

The beta-binomial likelihoods of the binary models (naive Bayes, Li 2007 eq 2.33; the mixture,
section 2.4) are sums of log Gamma(a + m) - log Gamma(a) with a = alpha theta, and alpha's
posterior reaches 1e16 where features barely differ between classes. Written as a difference of
log Gamma values the sum cancels catastrophically there: log Gamma(1e16) is about 3.6e17, so
one rounding unit is about 64 nats, and PyMC's ``BetaBinomial`` (through ``betaln``) returned a
log likelihood of +507 at alpha = 1e16 where the exact value is -72, a spurious mode that NUTS
found (half the draws of a corrected naive Bayes fit sat at alpha ~ 1e12 to 1e16).

Here, for a >= ``A_SWITCH`` the difference is taken analytically from Stirling's series,

    log Gamma(a + m) - log Gamma(a)
        = (a - 1/2) log1p(m / a) + m log(a + m) - m + s(a + m) - s(a),
    s(z) = 1 / (12 z) - 1 / (360 z^3) + 1 / (1260 z^5),

whose truncation error is below 1 / (1680 a^7) < 1e-24 at a >= 1000, and below it as the
gammaln difference (there each value is below 1e4, so its rounding is below 1e-11). The three
implementations are the same formula: numpy (:func:`log_rising`), pytensor
(:func:`log_rising_pt`, differentiable; both branches stay finite, each evaluated on its own
side of the switch) and a numba scalar function for compiled loops (:func:`log_rising_nb`).
numba's on-disk cache of a function that calls :func:`log_rising_nb` does not notice an edit
here (it checks only its own file): after editing, delete the ``*.nbi`` and ``*.nbc`` files in
the package's ``__pycache__`` folders (selbayes's compiled-model cache does notice: this file
is part of its source hash).

References
----------
.. [1] Abramowitz, M. and Stegun, I. A. (1964). Handbook of Mathematical Functions, 6.1.40
   (Stirling's series for log Gamma).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytensor.tensor as pt
from scipy.special import gammaln

__all__ = ["A_SWITCH", "log_rising", "log_rising_pt", "log_rising_nb"]

# Where the Stirling form takes over (see the module docstring for the errors on each side).
A_SWITCH = 1000.0


def _s(z):
    """Stirling's series of log Gamma after its leading terms, three terms (numpy arrays,
    pytensor tensors and, compiled as :func:`_s_nb`, numba floats)."""
    r = 1.0 / z
    r2 = r * r
    return r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 / 1260.0))


_s_nb = numba.njit(cache=True, error_model="numpy")(_s)


def log_rising(a, m):
    """log Gamma(a + m) - log Gamma(a), elementwise, accurate also for a up to 1e300.

    Parameters
    ----------
    a : array-like of float, any shape
        Non-negative values (0 gives -inf for m > 0 and 0 for m = 0).
    m : array-like of float or int, broadcastable with ``a``
        Non-negative values (counts in the binary models).

    Returns
    -------
    ndarray of float64
        The broadcast shape of ``a`` and ``m``; 0 where ``m`` is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import gammaln
    >>> float(log_rising(3.0, 2))                      # log(3 * 4)
    2.4849066497880004
    >>> a = 1e16                                       # exact: 3 log(a) + 3 / a
    >>> bool(abs(gammaln(a + 3) - gammaln(a) - 3 * np.log(a)) > 1)   # the difference: rounding
    True
    >>> round(float(log_rising(a, 3) - 3 * np.log(a)), 12)
    0.0
    """
    a, m = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(m, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(gammaln(a + m) - gammaln(a))
    if (a <= 0.0).any():
        out = np.where(m == 0, 0.0, np.where(a == 0, -np.inf, out))
    large = a >= A_SWITCH
    if large.any():               # only where needed: the gammaln difference is the hot path
        al, ml = a[large], m[large]
        out[large] = ((al - 0.5) * np.log1p(ml / al) + ml * np.log(al + ml) - ml
                      + (_s(al + ml) - _s(al)))
    return out


def log_rising_pt(a, m):
    """The pytensor twin of :func:`log_rising` (differentiable in ``a``).

    Parameters
    ----------
    a : pytensor tensor of float
        Positive values.
    m : pytensor tensor or array, broadcastable with ``a``
        Non-negative counts (constants of the model: no gradient is taken in ``m``).

    Returns
    -------
    pytensor tensor
        log Gamma(a + m) - log Gamma(a).

    Examples
    --------
    >>> import pytensor.tensor as pt
    >>> a = pt.dvector("a")
    >>> f = log_rising_pt(a, 3.0).eval({a: [2.0, 1e16]})
    >>> [round(float(v), 6) for v in f - 3 * np.log([1.0, 1e16])]   # log(2*3*4), then ~3/a
    [3.178054, 0.0]
    """
    m = pt.as_tensor_variable(m).astype("float64")
    small = pt.minimum(a, A_SWITCH)
    large = pt.maximum(a, A_SWITCH)
    exact = pt.gammaln(small + m) - pt.gammaln(small)
    stirling = ((large - 0.5) * pt.log1p(m / large) + m * pt.log(large + m) - m
                + (_s(large + m) - _s(large)))
    return pt.switch(pt.lt(a, A_SWITCH), exact, stirling)


@numba.njit(cache=True, error_model="numpy")
def log_rising_nb(a, m):
    """The numba scalar twin of :func:`log_rising` (``a`` > 0, ``m`` >= 0, floats).

    Parameters
    ----------
    a, m : float
        As in :func:`log_rising`, one value each.

    Returns
    -------
    float

    Examples
    --------
    >>> round(log_rising_nb(3.0, 2.0), 12), round(log_rising_nb(1e16, 3.0) - 3 * math.log(1e16), 12)
    (2.484906649788, 0.0)
    """
    if m == 0.0:
        return 0.0
    if a < A_SWITCH:
        return math.lgamma(a + m) - math.lgamma(a)
    return (a - 0.5) * math.log1p(m / a) + m * math.log(a + m) - m + (_s_nb(a + m) - _s_nb(a))
