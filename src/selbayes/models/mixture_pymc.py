"""The binary mixture of :mod:`selbayes.models.mixture` written as a PyMC model (first step).

``build_mixture_model`` declares the state of the collapsed sampler as PyMC variables: theta_j
~ U(0, 1) (j = 0 is the response), alpha_0 ~ IG(a0, b0), alpha ~ IG(a, b), the labels z_i as
``pm.Bernoulli(0.5)`` (the Beta(f1, f0) prior of psi enters, integrated out, through the Polya-urn
Potential), the collapsed likelihood sum_j sum_z log U(alpha_j theta_j, alpha_j (1 - theta_j),
I_zj, O_zj) as a Potential and, when corrected, the z-dependent selection adjustment
(p - k) log P_keep(alpha; N(z)) as a Potential through a gradient-free Op wrapping the numpy
factor (so the continuous part must be sampled with Slice, not NUTS, when corrected).

Not done yet: the custom ``BlockedStep`` for z (today's exact collapsed Gibbs update) and the
``sample_mixture(backend="pymc")`` route. The model's log density equals the reference sampler's
``log_target`` up to a constant (tested in ``tests/models/test_mixture_pymc.py``).

References
----------
Li, L. (2007). Bayesian classification and regression with high dimensional features. PhD
thesis, University of Toronto, section 2.4 (Li 2007).
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from .mixture import MixturePrior

__all__ = ["build_mixture_model"]


def _log_u(a, b, I, O, nz):
    """sum over z and features of log U(a, b, I_z, O_z); a, b: (m,), I, O: (2, m), nz: (2,)."""
    return (pt.gammaln(a + I) - pt.gammaln(a) + pt.gammaln(b + O) - pt.gammaln(b)
            + pt.gammaln(a + b) - pt.gammaln(a + b + nz[:, None])).sum()


def build_mixture_model(X, y, *, n_omitted: int = 0, corrected: bool = True, priors=None,
                        factor=None) -> pm.Model:
    """Build the collapsed binary mixture as a ``pm.Model``.

    Parameters
    ----------
    X : array_like of {0, 1}, shape (n, k)
        Selected binary features.
    y : array_like of {0, 1}, shape (n,)
        Response ("feature 0").
    n_omitted : int
        p - k, the number of features omitted by the selection.
    corrected : bool
        Add the selection adjustment Potential (needs ``factor`` and ``n_omitted > 0``).
    priors : MixturePrior or dict, optional
        The package's one prior keyword (``MixturePrior.from_dict`` accepts None, a prior or a
        partial dict).
    factor : selbayes.adjustment.mixture.MixtureOmitFactor, optional
        Provides ``log_keep(alpha, n00, n01, n10, n11)``.

    Returns
    -------
    pymc.Model
        Free variables ``theta`` (k + 1,), ``alpha0``, ``alpha``, ``z`` (n,); Potentials
        ``polya_urn``, ``collapsed_lik`` and (corrected) ``selection_adjustment``.

    Raises
    ------
    ValueError
        If X is not 2-D or y does not have one entry per row of X, or a corrected model with
        omitted features is asked for without ``factor``.

    References
    ----------
    .. [1] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto, section 2.4.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [1, 1], [0, 0]])
    >>> y = np.array([1, 1, 0, 0, 1, 0])
    >>> model = build_mixture_model(X, y, corrected=False)
    >>> sorted(v.name for v in model.free_RVs)
    ['alpha', 'alpha0', 'theta', 'z']
    >>> sorted(v.name for v in model.potentials)
    ['collapsed_lik', 'polya_urn']
    """
    prior = MixturePrior.from_dict(priors)
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be (n, k) and y (n,); got {X.shape} and {y.shape}")
    Xf = np.column_stack([y, X]).astype(float)
    n, m = Xf.shape
    use_adj = bool(corrected and n_omitted > 0)
    if use_adj and factor is None:
        raise ValueError("corrected=True with n_omitted > 0 needs the adjustment `factor`")
    with pm.Model() as model:
        theta = pm.Uniform("theta", 0.0, 1.0, shape=m)
        alpha0 = pm.InverseGamma("alpha0", alpha=prior.a0, beta=prior.b0)
        alpha = pm.InverseGamma("alpha", alpha=prior.a, beta=prior.b)
        z = pm.Bernoulli("z", p=0.5, shape=n)
        zf = pt.cast(z, "float64")
        nz1 = zf.sum()
        nz = pt.stack([n - nz1, nz1])
        I1 = pt.dot(zf, Xf)
        I = pt.stack([Xf.sum(0) - I1, I1])
        O = nz[:, None] - I
        av = pt.concatenate([alpha0[None], pt.repeat(alpha, m - 1)])
        pm.Potential("polya_urn", pt.gammaln(prior.f1 + nz[1]) + pt.gammaln(prior.f0 + nz[0]))
        pm.Potential("collapsed_lik", _log_u(av * theta, av * (1.0 - theta), I, O, nz))
        if use_adj:
            from ..adjustment.op import mixture_parameters

            # The MixtureAdjustment Op of log alpha and the counts N(z) = (n00, n01, n10, n11):
            # a gradient in log alpha, numba and JAX implementations (no object mode).
            yv = Xf[:, 0]
            N = pt.cast(pt.stack([((1 - zf) * (1 - yv)).sum(), ((1 - zf) * yv).sum(),
                                  (zf * (1 - yv)).sum(), (zf * yv).sum()]), "int64")
            adj, adj_params = mixture_parameters(factor.n0, factor.n1, factor.threshold,
                                                 n_theta=factor.n_theta,
                                                 theta_rule=factor.theta_rule)
            pm.Potential("selection_adjustment",
                         n_omitted * adj(pt.log(alpha), N, *adj_params.values()))
    return model


class CollapsedZGibbs(pm.step_methods.arraystep.BlockedStep):
    """One collapsed Gibbs sweep over the labels z (Li 2007 eq 2.95), the reference update.

    With ``factor`` and ``n_omitted > 0`` the conditional of each z_i includes
    (p - k) log P_keep(alpha; N) at the two candidate count vectors N (the exact update of the
    reference sampler). A Python loop over the n cases with O(k) vectorised work per case
    (numba not yet).
    """

    stats_dtypes_shapes = {}

    def __init__(self, vars, X, y, priors=None, n_omitted=0, factor=None, rng=None):
        model = pm.modelcontext(None)
        self.vars = [model.rvs_to_values[v] if v in model.rvs_to_values else v for v in vars]
        self.zname = self.vars[0].name
        self.Xf = np.column_stack([y, X]).astype(float)
        self.Xb = self.Xf.astype(bool)
        self.prior = MixturePrior.from_dict(priors)
        self.rng = np.random.default_rng(rng)
        self.n_omitted = int(n_omitted)
        self.factor = factor if self.n_omitted > 0 else None

    def step(self, point):
        pr = self.prior
        z = np.asarray(point[self.zname]).astype(np.int64).copy()
        theta = 1.0 / (1.0 + np.exp(-np.asarray(point["theta_interval__"])))
        alpha, alpha0 = np.exp(point["alpha_log__"]), np.exp(point["alpha0_log__"])
        Xf, Xb = self.Xf, self.Xb
        n, m = Xf.shape
        av = np.full(m, alpha)
        av[0] = alpha0
        A = av * theta
        B = av - A
        f = np.array([pr.f0, pr.f1])
        nz = np.array([np.count_nonzero(z == 0), np.count_nonzero(z == 1)], dtype=float)
        I = np.stack([Xf[z == 0].sum(0), Xf[z == 1].sum(0)])
        yv = Xf[:, 0].astype(np.int64)
        N = np.bincount(2 * z + yv, minlength=4)
        u = self.rng.random(n)
        for i in self.rng.permutation(n):
            c = z[i]
            nz[c] -= 1.0
            I[c] -= Xf[i]
            N[2 * c + yv[i]] -= 1
            num = np.where(Xb[i], A + I, B + (nz[:, None] - I))
            lp = (np.log(f + nz) + np.log(num).sum(1) - np.log(alpha0 + nz)
                  - (m - 1) * np.log(alpha + nz))
            if self.factor is not None:
                for zz in (0, 1):
                    N[2 * zz + yv[i]] += 1
                    lp[zz] += self.n_omitted * self.factor.log_keep(float(alpha), *map(int, N))
                    N[2 * zz + yv[i]] -= 1
            new = int(u[i] < 1.0 / (1.0 + np.exp(lp[0] - lp[1])))
            z[i] = new
            nz[new] += 1.0
            I[new] += Xf[i]
            N[2 * new + yv[i]] += 1
        point = dict(point)
        point[self.zname] = z.astype(np.asarray(point[self.zname]).dtype)
        return point, [{}]
