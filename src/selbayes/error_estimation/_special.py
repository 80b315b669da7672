"""Special function R(x, y; a) of the Gaussian-model second moments (Dalton 2012, Lemma 7).

R is defined in Lemma 7 (eq 5.15, Ch. V.C of L. A. Dalton's 2012 dissertation); the integral
below is its form in eq 5.17; Lemma 9 (Ch. V.C.4) gives closed forms only for a = N / 2.

``R(x, y; a) = (1/pi) * integral_0^{arcsin(sqrt(x))} (sin^2 t / (sin^2 t + y))^a dt``.
SciPy has no Appell F1, so R is integrated numerically: Gauss-Legendre on panels whose
breakpoints ``{1/3, 1, 3, ..., 1000} * sqrt((a + 1) y)`` resolve the boundary layer near t = 0
(the integrand behaves like exp(-a y / t^2) there). Vectorised over broadcast inputs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["owen_r"]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(32)
_Q = 4  # power of the first-panel substitution
_BREAKS = np.array([1.0 / 3.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0])


def owen_r(x, y, a):
    """Evaluate R(x, y; a) for 0 < x <= 1, y >= 0, a > 0 (broadcast over inputs).

    Parameters
    ----------
    x, y, a : array-like
        Upper limit sin^2, scale y and exponent a; broadcast together.

    Returns
    -------
    ndarray
        R, between 0 and arcsin(sqrt(x)) / pi; absolute error about 1e-9 or better.
    """
    x, y, a = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, y, a)))
    upper = np.arcsin(np.sqrt(np.clip(x, 0.0, 1.0)))
    bp = np.minimum(_BREAKS * np.sqrt((a + 1.0) * y)[..., None], upper[..., None])
    edges = np.concatenate([np.zeros(x.shape + (1,)), bp, upper[..., None]], axis=-1)
    lo, hi = edges[..., :-1], edges[..., 1:]
    half = 0.5 * (hi - lo)
    t = (0.5 * (hi + lo))[..., None] + half[..., None] * _NODES
    jac = np.broadcast_to(half[..., None], t.shape).copy()
    # First panel: t = h u^q, u in (0, 1), smooths the t^(2a) cusp at 0 (small a, large y).
    u = 0.5 * (1.0 + _NODES)
    h = hi[..., :1, None]
    t[..., :1, :] = h * u**_Q
    jac[..., :1, :] = 0.5 * h * _Q * u ** (_Q - 1)
    s2 = np.sin(t) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        # (s2 / (s2 + y))^a = exp(-a log1p(y / s2)): no cancellation for small y
        f = np.exp(-a[..., None, None] * np.log1p(y[..., None, None] / s2))
    f = np.where(jac > 0, f, 0.0)
    return np.sum(jac * _WEIGHTS * f, axis=(-1, -2)) / np.pi
