"""Which features vary, where a constant feature's computed variance is a rounding residue.

A feature whose training values are all equal has variance 0, but the variance computed in
floating point is often a residue of about (n |mean| eps)^2 instead (the mean of n equal
values need not be that value to the last bit): a gene floored or clipped before log2, or one
that varies only in cases outside the training set. Dividing by the square root of that
residue gives the training cases a meaningless constant and a test case off the constant a
standardised value of 1e16 or more, which swamps every other feature. The bound is
scikit-learn's (``StandardScaler`` treats such features as constant; Chan, Golub and LeVeque
1983 for the error of the computed variance).
"""

from __future__ import annotations

import numpy as np

__all__ = ["varies", "column_units", "normal_scale"]


def varies(var, mean, n: int) -> np.ndarray:
    """Whether each feature's computed variance is more than the rounding of a constant's.

    Parameters
    ----------
    var : ndarray of shape (p,)
        Computed variances (any ddof, or a pooled within-class variance), data units squared.
    mean : ndarray of shape (p,)
        The features' means, data units.
    n : int
        Number of cases the variances were computed from.

    Returns
    -------
    ndarray of bool, shape (p,)
        True where var > n eps var + (n mean eps)^2.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.column_stack([np.arange(5.0), np.full(5, np.log2(100.0))])
    >>> var = X.var(axis=0, ddof=1)
    >>> bool(var[1] > 0), varies(var, X.mean(axis=0), 5).tolist()
    (True, [True, False])
    """
    var, mean = np.asarray(var, dtype=np.float64), np.asarray(mean, dtype=np.float64)
    eps = np.finfo(np.float64).eps
    return var > n * eps * var + (n * mean * eps) ** 2


# The range of magnitudes whose moments need no rescaling (column_units).
_SAFE_LOW, _SAFE_HIGH = 2.0 ** -300, 2.0 ** 300


def column_units(X) -> np.ndarray:
    """A power of 2 per column to divide it by before its moments: ones where the moments
    cannot overflow or underflow (every column's largest magnitude within 2^-300 .. 2^300:
    sums of up to 1e7 squares stay below 1e308, and squared spreads down to 1e-20 of the
    magnitude stay normal; 2^-500 let a spread of 1e-9 of a level near 4e-151 lose 8 digits),
    else the power of 2 just below each column's largest magnitude (1 for an all-zero
    column), which maps its values into [-2, 2) exactly (a power of 2 scales without
    rounding). Moments computed there and scaled back are bit for bit the textbook ones
    wherever those neither overflow nor underflow: the variance of values near 1e154
    overflows and that of values near 1e-200 underflows, and either looked like a constant
    feature. A column scaled back to a subnormal standard deviation is not to be trusted
    (the callers treat it as constant: :func:`normal_scale`).

    Parameters
    ----------
    X : ndarray of shape (n, p)

    Returns
    -------
    ndarray of shape (p,)

    Examples
    --------
    >>> import numpy as np
    >>> column_units(np.array([[3.0, 0.0], [0.5, 1.0]])).tolist()
    [1.0, 1.0]
    >>> column_units(np.array([[3.0, 0.0, -1e100], [0.5, 0.0, 1.0]])).tolist()[:2]
    [2.0, 1.0]
    """
    top = np.abs(np.asarray(X, dtype=np.float64)).max(axis=0, initial=0.0)
    nonzero = top[top > 0]
    if nonzero.size == 0 or (nonzero.min() >= _SAFE_LOW and nonzero.max() <= _SAFE_HIGH):
        return np.ones_like(top)
    # x = m 2^e with m in [0.5, 1): 2^(e - 1) is finite up to the largest double
    return np.where(top > 0, np.ldexp(1.0, np.frexp(top)[1] - 1), 1.0)


def normal_scale(sd) -> np.ndarray:
    """Whether each standard deviation is a normal number (not 0, not subnormal, finite):
    a feature whose spread is below 2.2e-308 is kept constant, as its subnormal SD has lost
    the digits that standardising by it needs.

    Examples
    --------
    >>> import numpy as np
    >>> normal_scale(np.array([1.0, 5e-324, 0.0])).tolist()
    [True, False, False]
    """
    sd = np.asarray(sd, dtype=np.float64)
    return np.isfinite(sd) & (sd >= np.finfo(np.float64).tiny)
