"""The compiled step functions of the binary mixture's samplers (Python entry points).

:func:`z_sweep`: the exact collapsed Gibbs update of the labels (Li 2007, section 2.4, eq 2.95
with the selection factor), which needs, for every case i, log P_keep(alpha; N) at the two count
configurations N = (n00, n01, n10, n11) that assigning case i to component 0 or 1 would give;
the per-case loop runs in numba and consumes the random numbers exactly as the Python reference
(:class:`selbayes.models._mixture._Chain`): uniforms first, then the order.
:func:`conditional_sweep`: exact slice updates of theta, log alpha0 and log alpha given the
labels. The factor is :class:`FastMixtureFactor` (equal to
:class:`selbayes.adjustment.MixtureOmitFactor` to ~1e-13 nats, tested), whose kernels and
per-alpha weights live in a store per design shared with the ``MixtureAdjustment`` Op. The
compiled code itself is in :mod:`selbayes.adjustment._mixture_nb` (one file for all of it, so
that numba's on-disk cache stays consistent).

References
----------
Li, L. (2007). Bayesian classification and regression with high dimensional features. PhD
thesis, University of Toronto, section 2.4 and appendix 2.
"""

from __future__ import annotations

import functools

import numpy as np

# the compiled kernels live beside the factor they call (numba's on-disk cache does not notice
# a change in a compiled function of another file): see selbayes.adjustment._mixture_nb
from ..adjustment._mixture_nb import (  # noqa: F401  (FastMixtureFactor, mixture_factor: re-exported)
    FastMixtureFactor,
    _conditional_sweep,
    _new_stores,
    _sweep,
    compiled_factor,
    mixture_factor,
)

__all__ = ["FastMixtureFactor", "compiled_factor", "conditional_sweep", "mixture_factor",
           "z_sweep"]


def _factor_args(factor, n_omitted):
    """(use the factor?, the compiled sweeps' trailing factor arguments). Without a factor the
    arguments are placeholders of the right types, which the sweeps do not read."""
    if factor is not None and n_omitted > 0:
        return True, factor.compiled_args()
    return False, _placeholder_args()


@functools.cache
def _placeholder_args() -> tuple:
    return (1, np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(1), np.zeros(1),
            *_new_stores(), np.zeros(2))


def z_sweep(z, Xf, A, B, alpha, alpha0, f0, f1, rng, n_omitted=0, factor=None):
    """One collapsed Gibbs sweep over the labels in random order (compiled), in place.

    Parameters
    ----------
    z : ndarray of int64, shape (n,)
        Labels, updated in place and returned.
    Xf : ndarray of float64, shape (n, k + 1)
        Column 0 the response, then the k retained features (0/1).
    A, B : ndarray, shape (k + 1,)
        alpha_j theta_j and alpha_j (1 - theta_j).
    alpha, alpha0 : float
        Feature and response concentrations.
    f0, f1 : float
        Beta prior of psi.
    rng : numpy.random.Generator
        Draws n uniforms, then the visiting order (as the reference sampler).
    n_omitted : int
        p - k; with ``factor`` the conditional includes (p - k) log P_keep(alpha; N).
    factor : FastMixtureFactor or None

    Returns
    -------
    ndarray
        ``z``.
    """
    n = Xf.shape[0]
    u = rng.random(n)
    order = rng.permutation(n).astype(np.int64)
    use_adj, args = _factor_args(factor, n_omitted)
    return _sweep(z, Xf, order, u, A, B, float(alpha), float(alpha0), float(f0), float(f1),
                  float(n_omitted), use_adj, *args)



# ---------------------------------------------------------------------------------------------
# the continuous variables: theta, alpha0, alpha by exact one-dimensional slice sampling
# ---------------------------------------------------------------------------------------------
def conditional_sweep(z, Xf, theta, log_alpha, prior, rng, n_omitted=0, factor=None,
                      width=2.0):
    """Update theta, log alpha0 and log alpha from their exact conditionals given z (compiled).

    Each theta_j (uniform prior; conditionally independent given z and the alphas) is drawn
    by slice sampling on (0, 1) with shrinkage from the whole interval; log alpha0 and log
    alpha by slice sampling with stepping out (width ``width``; Neal 2003, Ann. Statist. 31,
    705-767). The alpha conditional includes (p - k) log P_keep(alpha; N(z)) when ``factor``
    is given and ``n_omitted > 0``. Leaves the collapsed posterior of Li (2007, section 2.4)
    invariant.

    Parameters
    ----------
    z : ndarray of int64, shape (n,)
        Labels (not changed).
    Xf : ndarray of float64, shape (n, k + 1)
        Response, then the k retained features (0/1).
    theta : ndarray of float64, shape (k + 1,)
        Updated in place.
    log_alpha : ndarray of float64, shape (2,)
        [log alpha0, log alpha], updated in place.
    prior : MixturePrior
    rng : numpy.random.Generator
        Consumed by the compiled code (numba draws from the Generator itself).
    n_omitted : int
    factor : FastMixtureFactor or None
    width : float
        Initial slice width on the log alpha scale.

    Returns
    -------
    int
        Density evaluations made.
    """
    use_adj, args = _factor_args(factor, n_omitted)
    f_prior = np.array([prior.alpha0_shape, prior.alpha0_scale, prior.alpha_shape,
                        prior.alpha_scale], dtype=np.float64)
    return int(_conditional_sweep(rng, z, Xf, theta, log_alpha, f_prior, float(n_omitted),
                                  use_adj, float(width), *args))
