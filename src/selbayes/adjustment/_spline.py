"""Piecewise quintic Hermite interpolation on an equispaced grid (NumPy or JAX arrays).

The adjustment factors are tabulated once per fit (values and exact first and second
derivatives) and evaluated through these pieces by the selection-adjustment Ops
(:mod:`selbayes.adjustment._op`), which add the tails outside the table.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_real

__all__ = ["quintic_hermite_coefficients", "pieces_numpy", "check_spacing", "check_table_range"]


def check_spacing(spacing) -> float:
    """A table's knot spacing as a float in (0, 1] (ValueError / TypeError naming it).

    Parameters
    ----------
    spacing : float

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``spacing`` is not in (0, 1].
    TypeError
        If ``spacing`` is not a number (True and "0.1" would pass ``float``).

    Examples
    --------
    >>> check_spacing(0.05)
    0.05
    """
    return check_real(spacing, name="spacing", low=0.0, high=1.0, closed="right")


def check_table_range(table_range, spacing: float) -> tuple[float, float]:
    """A table's range (x_lo, x_hi) as two finite floats at least two knots apart.

    Parameters
    ----------
    table_range : pair of float
    spacing : float
        The checked knot spacing.

    Returns
    -------
    (float, float)

    Raises
    ------
    ValueError
        If ``table_range`` is not finite with x_hi - x_lo >= 2 * spacing.
    TypeError
        If ``table_range`` is not a pair of numbers.

    Examples
    --------
    >>> check_table_range((-1, 2), 0.1)
    (-1.0, 2.0)
    """
    expected = f"table_range must be two numbers (x_lo, x_hi); got {table_range!r}"
    try:
        values = tuple(table_range)
    except TypeError:
        raise TypeError(expected) from None
    if len(values) != 2 or any(isinstance(v, bool | np.bool_ | str | bytes) for v in values):
        raise TypeError(expected)
    try:
        x_lo, x_hi = (float(v) for v in values)
    except (TypeError, ValueError):
        raise TypeError(expected) from None
    if not (np.isfinite(x_lo) and np.isfinite(x_hi) and x_hi - x_lo >= 2 * spacing):
        raise ValueError(f"table_range must be two finite numbers (x_lo, x_hi) with x_hi - x_lo "
                         f">= 2 * spacing; got {table_range!r}")
    return x_lo, x_hi


def quintic_hermite_coefficients(f, d, s, h):
    """Polynomial coefficients of the quintic Hermite pieces through (f, f', f'') at the knots.

    Parameters
    ----------
    f, d, s : ndarray of shape (m,)
        Values, first and second derivatives at m equispaced knots.
    h : float
        Knot spacing.

    Returns
    -------
    ndarray of shape (6, m - 1)
        c[j, i]: coefficient of t^j on interval i, with t = (x - x_i) / h in [0, 1].
    """
    f0, f1 = f[:-1], f[1:]
    d0, d1 = d[:-1] * h, d[1:] * h
    s0, s1 = s[:-1] * h * h, s[1:] * h * h
    df = f1 - f0
    c3 = 10.0 * df - 6.0 * d0 - 4.0 * d1 - 1.5 * s0 + 0.5 * s1
    c4 = -15.0 * df + 8.0 * d0 + 7.0 * d1 + 1.5 * s0 - s1
    c5 = 6.0 * df - 3.0 * d0 - 3.0 * d1 - 0.5 * s0 + 0.5 * s1
    return np.stack([f0, d0, 0.5 * s0, c3, c4, c5])


def pieces_numpy(x, coef, x_lo, x_hi, h, xp=np):
    """Value and derivative of the pieces at ``x`` clamped to [x_lo, x_hi].

    ``xp`` is the array namespace: NumPy, or ``jax.numpy`` for the Op's JAX implementation
    (the same arithmetic, so the backends cannot drift apart).
    """
    pos = (xp.clip(x, x_lo, x_hi) - x_lo) / h
    # NaN x: piece 0 (NaN cast to int64 indexed far outside), whose value at t = NaN is NaN
    idx = xp.clip(xp.where(xp.isnan(pos), 0.0, xp.floor(pos)), 0, coef.shape[1] - 1)
    t = pos - idx
    c = coef[:, idx.astype("int64")]
    mid, dmid = c[5], 5.0 * c[5]
    for j in range(4, -1, -1):
        mid = mid * t + c[j]
        if j > 0:
            dmid = dmid * t + j * c[j]
    return mid, dmid / h
