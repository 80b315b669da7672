"""Piecewise quintic Hermite interpolation on an equispaced grid (NumPy or JAX arrays).

The adjustment factors are tabulated once per fit (values and exact first and second
derivatives) and evaluated through these pieces by the selection-adjustment Ops
(:mod:`selbayes.adjustment._op`), which add the tails outside the table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["quintic_hermite_coefficients", "pieces_numpy"]


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
    idx = xp.clip(xp.floor(pos), 0, coef.shape[1] - 1)
    t = pos - idx
    c = coef[:, idx.astype("int64")]
    mid, dmid = c[5], 5.0 * c[5]
    for j in range(4, -1, -1):
        mid = mid * t + c[j]
        if j > 0:
            dmid = dmid * t + j * c[j]
    return mid, dmid / h
