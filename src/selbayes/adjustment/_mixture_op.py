"""The binary mixture's selection adjustment: its Op and the builder of the Op's inputs.

The two-component mixture of binary features (Li 2007 section 2.4) fitted to the k features with
the largest |correlation| with the response y carries (p - k) log P(|COR| <= gamma | alpha, z),
which depends on the latent labels z only through four counts (Li 2007 eq 2.97). This module
holds :class:`MixtureAdjustment`, the pytensor Op of that log probability (elementwise in
x = log alpha, given the counts), and :func:`mixture_parameters`, the one route from a design
to the Op and its inputs. The numbers are those of
:class:`selbayes.adjustment.MixtureOmitFactor`.

References
----------
.. [1] Li, L. (2007). Bayesian classification and regression with high dimensional features.
   PhD thesis, University of Toronto, section 2.4.
"""

from __future__ import annotations

from ._base import SelectionAdjustment
from ._corr import _check_count, _check_threshold
from ._mixture import lattice_inputs
from .backends import _jax as _jax_backend  # noqa: F401  (registers the JAX implementation)
from .backends import _numba as _numba_backend  # noqa: F401  (registers the numba implementation)

__all__ = ["MixtureAdjustment", "mixture_parameters"]


class MixtureAdjustment(SelectionAdjustment):
    """log P(|COR| <= gamma | x = log alpha, N) for the binary mixture, elementwise in x.

    The selection factor of the binary mixture (Li 2007 eq 2.97) whose k retained features are
    the ones with the largest absolute sample correlation with the binary response y (every
    omitted feature has |COR| <= gamma). A corrected model adds ``(p - k) * op(x, N, *inputs)``
    to its log density with ``pm.Potential``; N changes with the labels z, so the factor does
    too. Build the Op and its inputs with :func:`mixture_parameters`.

    **The model the factor belongs to.** Every binary feature j (retained or omitted), latent
    components z_i in {0, 1} (Li 2007 section 2.4)::

        x_ij | z_i = c  ~ Bernoulli(phi_cj)
        phi_0j, phi_1j  ~ Beta(alpha theta_j, alpha (1 - theta_j))   (independently)
        theta_j         ~ Uniform(0, 1)

    with y itself one more such feature (its own concentration alpha_0). ``alpha`` (> 0,
    dimensionless) is the concentration shared by the features. **Your own PyMC model must give
    the features this prior, with the same alpha as in x**; the priors of alpha, alpha_0 and z
    are free. With another prior on phi or theta the Op computes the factor of a different
    model, without any error.

    Parameters
    ----------
    method : {"exact"}
        Evaluation method: the theta quadrature of the lattice sum (the only one).
    spacing : float
        Unused (no table); kept for the common signature.
    derivative : bool
        Evaluate dl/dx instead (the Op of the gradient).
    info : tuple of (str, value) pairs
        Labels for the readable name, e.g. ``(("n0", 4), ("n1", 4), ("gamma", 0.3))``.

    Notes
    -----
    Inputs, ``op(x, N, *params.values())`` with ``params`` from :func:`mixture_parameters`:

    ``x`` : tensor of float, any shape
        log alpha (natural log), e.g. ``pt.log(alpha)``.
    ``N`` : tensor of int64, shape (4,)
        The counts (n00, n01, n10, n11), n_zy = #{i: z_i = z, y_i = y}, usually computed in
        the graph from the labels z; they must sum to the design's n0 + n1. Discrete: no
        gradient.
    ``theta`` : float64 (2, Q); ``prefix`` : int64 (n0 + n1 + 1,)
        The theta rule's nodes and weights and the prefix of the region |COR| > gamma on each
        antidiagonal of the (I0, I1) lattice.

    Output: float64 with the shape of x, log P in nats (<= 0); the gradient is in x only.

    Examples
    --------
    >>> import numpy as np
    >>> op, params = mixture_parameters(4, 4, 0.30)
    >>> out = op(np.log(2.0), np.array([3, 1, 1, 3]), *params.values())
    >>> str(out.owner.op), round(float(np.exp(out.eval())), 6)   # reference value by enumeration
    ('MixtureAdjustment{n0=4, n1=4, gamma=0.3}', 0.619563)

    In a PyMC model with labels z (n = 8 cases, y the response, p = 200 features of which
    k = 3 were kept; the rest of the model omitted):

    >>> import pymc as pm, pytensor.tensor as pt
    >>> y = np.repeat([0, 1], 4)
    >>> with pm.Model() as model:
    ...     alpha = pm.InverseGamma("alpha", alpha=0.5, beta=5.0)
    ...     z = pm.Bernoulli("z", p=0.5, shape=8)
    ...     zf = pt.cast(z, "float64")
    ...     N = pt.cast(pt.stack([((1 - zf) * (1 - y)).sum(), ((1 - zf) * y).sum(),
    ...                           (zf * (1 - y)).sum(), (zf * y).sum()]), "int64")
    ...     adj = pm.Potential("selection_adjustment",
    ...                        (200 - 3) * op(pt.log(alpha), N, *params.values()))
    >>> [v.name for v in model.potentials]
    ['selection_adjustment']
    """

    EVALUATIONS = {"exact": "lattice"}

    def __init__(self, method="exact", spacing=0.0, derivative=False, info=()):
        super().__init__(method, spacing, derivative, info)


def mixture_parameters(n0, n1, threshold, *, n_theta=None, theta_rule="auto", label=True):
    """The :class:`MixtureAdjustment` and its inputs after the counts, for (n0, n1, gamma).

    Parameters
    ----------
    n0, n1 : int
        Training cases with y = 0 and y = 1.
    threshold : float
        gamma >= 0: every omitted feature has |COR| <= gamma.
    n_theta, theta_rule :
        Theta rule (default ``"auto"``: see
        :func:`selbayes.adjustment.lattice_theta_rule`).
    label : bool
        Put n0, n1 and gamma in the Op's name.

    Returns
    -------
    op : MixtureAdjustment
    params : dict
        ``{"theta": (2, Q) nodes and weights, "prefix": (n0 + n1 + 1,) int64}``; apply as
        ``op(log_alpha, counts, theta, prefix)``.

    Raises
    ------
    ValueError
        If the design is invalid.

    Examples
    --------
    >>> import numpy as np
    >>> op, params = mixture_parameters(4, 4, 0.30)
    >>> out = op(np.log(10.0), np.array([2, 2, 2, 2]), *params.values())
    >>> out.eval().shape
    ()
    """
    n0, n1 = _check_count(n0, "n0"), _check_count(n1, "n1")
    gamma = _check_threshold(threshold)
    info = (("n0", n0), ("n1", n1), ("gamma", gamma)) if label else ()
    theta, prefix = lattice_inputs(n0, n1, gamma, n_theta, theta_rule)
    return MixtureAdjustment("exact", 0.0, False, info), {"theta": theta, "prefix": prefix}
