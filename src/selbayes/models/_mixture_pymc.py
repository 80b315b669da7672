"""The binary mixture of :mod:`selbayes.models._mixture` as a PyMC model, and its sampler.

``build_mixture_model`` declares the state of the collapsed sampler as PyMC variables: theta_j
~ U(0, 1) (j = 0 is the response), alpha_0 ~ IG(a0, b0), alpha ~ IG(a, b), the labels z_i as
``pm.Bernoulli(0.5)`` (the Beta(f1, f0) prior of psi enters, integrated out, through the Polya-urn
Potential), the collapsed likelihood sum_j sum_z log U(alpha_j theta_j, alpha_j (1 - theta_j),
I_zj, O_zj) as a Potential and, when corrected, the z-dependent selection adjustment
(p - k) log P_keep(alpha; N(z)) as a Potential through the ``MixtureAdjustment`` Op
(:mod:`selbayes.adjustment._op`).

:class:`CollapsedZGibbs` is the step method for z: one (or more) exact collapsed Gibbs sweeps
over the labels, compiled (:func:`selbayes.models._mixture_fast.z_sweep`), including the change
of (p - k) log P_keep(alpha; N) at the two candidate labels of every case.
:class:`ConditionalSlice` is the step method for the continuous variables: slice updates of
each theta_j, log alpha0 and log alpha from their exact conditionals, also compiled. By default
:func:`sample_pymc` runs these two in ``pm.sample``; ``continuous="nuts"`` uses PyMC's NUTS for
theta (the adjustment does not depend on theta, so its gradient is not needed there) and PyMC's
slice sampler for alpha and alpha0 instead, which read the model's log density (a model whose
priors were changed needs them) but make some 15 calls of compiled functions from Python per
iteration and so take about 2.5x as long. Both return the same posterior summaries as the
reference sampler (:func:`selbayes.models.sample_mixture` with
``backend="reference"``). The model's log density equals the reference sampler's
``log_target`` up to a constant, ConditionalSlice's conditionals equal the model's, and all
samplers match the exact posterior of a tiny problem (``tests/models/test_mixture_pymc.py``).

References
----------
Li, L. (2007). Bayesian classification and regression with high dimensional features. PhD
thesis, University of Toronto, section 2.4 (Li 2007).
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from .._interrupt import interrupts_reraised
from .._special import log_rising, log_rising_pt
from .._validation import check_flag, check_int
from ._mixture import MixturePrior, MixtureSamples, _check_data, _check_factor

__all__ = ["build_mixture_model", "CollapsedZGibbs", "ConditionalSlice", "sample_pymc"]


def _log_u(av, theta, I, O, nz):
    """sum over z and features of log U(av theta, av (1 - theta), I_z, O_z); av, theta: (m,),
    I, O: (2, m), nz: (2,). Log rising factorials, not log Gamma differences, which cancel
    catastrophically at large alpha (:mod:`selbayes._special`)."""
    a = av * theta
    return (log_rising_pt(a, I) + log_rising_pt(av - a, O)
            - log_rising_pt(av, nz[:, None])).sum()


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
    factor : selbayes.adjustment.MixtureOmitFactor, optional
        Provides ``log_keep(alpha, n00, n01, n10, n11)``.

    Returns
    -------
    pymc.Model
        Free variables ``theta`` (k + 1,), ``alpha0``, ``alpha``, ``z`` (n,); Potentials
        ``polya_urn``, ``collapsed_lik`` and (corrected) ``selection_adjustment``.

    Raises
    ------
    ValueError
        If X is not 2-D and 0/1, y does not have one 0/1 entry per row of X with both
        classes, ``n_omitted`` is not an integer >= 0, a corrected model with omitted
        features is asked for without ``factor``, or ``factor`` was built for other class
        counts.
    TypeError
        If ``corrected`` is not a bool or ``factor`` is not a MixtureOmitFactor.

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
    X, y, n0, n1 = _check_data(X, y)
    n_omitted = check_int(n_omitted, name="n_omitted", low=0)
    corrected = check_flag(corrected, "corrected")
    _check_factor(factor)
    Xf = np.column_stack([y, X]).astype(float)
    n, m = Xf.shape
    use_adj = bool(corrected and n_omitted > 0)
    if use_adj and factor is None:
        raise ValueError("corrected=True with n_omitted > 0 needs the adjustment `factor`")
    if use_adj and (factor.n0, factor.n1) != (n0, n1):
        raise ValueError(f"factor was built for class counts ({factor.n0}, {factor.n1}); y has "
                         f"({n0}, {n1})")
    with pm.Model() as model:
        theta = pm.Uniform("theta", 0.0, 1.0, shape=m)
        alpha0 = pm.InverseGamma("alpha0", alpha=prior.alpha0_shape, beta=prior.alpha0_scale)
        alpha = pm.InverseGamma("alpha", alpha=prior.alpha_shape, beta=prior.alpha_scale)
        z = pm.Bernoulli("z", p=0.5, shape=n)
        zf = pt.cast(z, "float64")
        nz1 = zf.sum()
        nz = pt.stack([n - nz1, nz1])
        I1 = pt.dot(zf, Xf)
        I = pt.stack([Xf.sum(0) - I1, I1])
        O = nz[:, None] - I
        av = pt.concatenate([alpha0[None], pt.repeat(alpha, m - 1)])
        pm.Potential("polya_urn", pt.gammaln(prior.f1 + nz[1]) + pt.gammaln(prior.f0 + nz[0]))
        pm.Potential("collapsed_lik", _log_u(av, theta, I, O, nz))
        if use_adj:
            from ..adjustment._mixture_op import mixture_parameters

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


class _CompiledMixtureStep(pm.step_methods.arraystep.BlockedStep):
    """What the two compiled step methods share: the data, the prior, the compiled factor and
    the point's variables on their own scales (the model's transforms: logit for theta, log
    for the alphas)."""

    def __init__(self, vars, X, y, priors, n_omitted, factor, rng, model):
        from ._mixture_fast import compiled_factor

        model = pm.modelcontext(model)
        self.vars = [model.rvs_to_values.get(v, v) for v in vars]
        self._names = {name: model.rvs_to_values[model[name]].name
                       for name in ("theta", "alpha", "alpha0", "z")}
        self.Xf = np.ascontiguousarray(np.column_stack([y, X]), dtype=np.float64)
        self.prior = MixturePrior.from_dict(priors)
        self.rng = np.random.default_rng(rng)
        self.n_omitted = int(n_omitted)
        self.factor = (compiled_factor(factor) if self.n_omitted > 0 and factor is not None
                       else None)

    def _values(self, point):
        """theta (k + 1,) and [log alpha0, log alpha] of a point."""
        th = np.asarray(point[self._names["theta"]], dtype=np.float64)
        log_alpha = np.array([point[self._names["alpha0"]], point[self._names["alpha"]]],
                             dtype=np.float64)
        return 1.0 / (1.0 + np.exp(-th)), log_alpha

    @staticmethod
    def competence(var, has_grad):
        return pm.step_methods.compound.Competence.INCOMPATIBLE


class CollapsedZGibbs(_CompiledMixtureStep):
    """Exact collapsed Gibbs sweeps over the labels z (Li 2007 eq 2.95), compiled.

    Each sweep visits the cases in random order and draws z_i from its conditional given the
    other labels, theta, alpha and alpha0, with psi and phi integrated out. With ``factor`` and
    ``n_omitted > 0`` the conditional includes (p - k) log P_keep(alpha; N) at the two candidate
    count vectors N, so the step leaves the corrected posterior invariant. Leaving ``factor``
    out (or ``n_omitted = 0``) gives the uncorrected update, or, on a corrected model, the
    R package's approximate update that does not target the corrected posterior.

    Parameters
    ----------
    vars : list
        ``[model["z"]]``.
    X : array_like of {0, 1}, shape (n, k)
        Selected features, as given to :func:`build_mixture_model`.
    y : array_like of {0, 1}, shape (n,)
        Response.
    priors : MixturePrior or dict, optional
        The model's prior (f0, f1 enter the update).
    n_omitted : int
        p - k.
    factor : MixtureOmitFactor, optional
        The adjustment factor of the design; replaced by the compiled
        :class:`~selbayes.models._mixture_fast.FastMixtureFactor` of the same design.
    sweeps : int
        Sweeps per step.
    rng : int or Generator, optional
        Seed; ``pm.sample`` gives every chain its own generator.
    random_start : bool
        Start every chain from random labels (drawn from the chain's generator in its first
        step), whatever the initial point holds: one initial point then serves all chains,
        so ``pm.sample`` compiles one initial-point function instead of one per chain.
    model : pymc.Model, optional
        Default: the model on the context stack.
    blocked : bool, default True
        Accepted for PyMC's step-method protocol (``pm.sample`` passes it); ignored.

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
    >>> step = CollapsedZGibbs([model["z"]], X, y, model=model, rng=0)
    >>> point, _ = step.step(model.initial_point())
    >>> point["z"].shape
    (6,)
    """

    stats_dtypes_shapes = {}

    def __init__(self, vars, X, y, priors=None, n_omitted=0, factor=None, sweeps=1, rng=None,
                 model=None, blocked=True, random_start=False):
        super().__init__(vars, X, y, priors, n_omitted, factor, rng, model)
        self.sweeps = int(sweeps)
        self.random_start = bool(random_start)
        self._start_pending = self.random_start

    def setup_chain(self, rng, tune, draws):
        super().setup_chain(rng, tune, draws)
        self._start_pending = self.random_start

    def step(self, point):
        from ._mixture_fast import z_sweep

        theta, log_alpha = self._values(point)
        alpha0, alpha = np.exp(log_alpha)
        av = np.full(self.Xf.shape[1], alpha)
        av[0] = alpha0
        A = av * theta
        B = av - A
        zname = self._names["z"]
        z = np.asarray(point[zname]).astype(np.int64)
        if self._start_pending:      # a chain's first step: random labels (its own generator)
            z = self.rng.integers(0, 2, size=z.shape[0]).astype(np.int64)
            self._start_pending = False
        for _ in range(self.sweeps):
            z_sweep(z, self.Xf, A, B, alpha, alpha0, self.prior.f0, self.prior.f1, self.rng,
                    self.n_omitted, self.factor)
        point = dict(point)
        point[zname] = z.astype(np.asarray(point[zname]).dtype)
        return point, [{}]


class ConditionalSlice(_CompiledMixtureStep):
    """theta, alpha0 and alpha from their exact conditionals given the labels, compiled.

    One step updates every theta_j (conditionally independent given z and the alphas; uniform
    prior, so each is drawn by slice sampling with shrinkage from (0, 1)), then log alpha0 and
    log alpha by slice sampling with stepping out (Neal 2003), the alpha conditional including
    (p - k) log P_keep(alpha; N(z)) when ``factor`` is given and ``n_omitted > 0``
    (:func:`selbayes.models._mixture_fast.conditional_sweep`). The conditionals are those of
    :func:`build_mixture_model`'s log density (tested against it), so with
    :class:`CollapsedZGibbs` the step leaves the model's posterior invariant. It is the
    default continuous step of :func:`sample_pymc`: some 70 density evaluations per step, all
    in compiled code, where NUTS over theta and PyMC's slice sampler over the alphas make some
    15 calls of the model's compiled functions from Python, which dominated a default fit. A
    model whose priors a user has changed needs PyMC's samplers instead
    (``continuous="nuts"``).

    Parameters
    ----------
    vars : list
        ``[model["theta"], model["alpha0"], model["alpha"]]``.
    X, y, priors, n_omitted, factor, rng, model :
        As for :class:`CollapsedZGibbs`.
    width : float
        Initial slice width on the log alpha scale (default 2: the alphas' posteriors are
        wide on that scale; 1, 3 and 5 gave the same effective sample size per draw and a
        few per cent more evaluations at the benchmark design).
    blocked : bool, default True
        Accepted for PyMC's step-method protocol (``pm.sample`` passes it); ignored.

    References
    ----------
    .. [1] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto, section 2.4.
    .. [2] Neal, R. M. (2003). Slice sampling. Annals of Statistics 31, 705-767.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [1, 1], [0, 0]])
    >>> y = np.array([1, 1, 0, 0, 1, 0])
    >>> model = build_mixture_model(X, y, corrected=False)
    >>> step = ConditionalSlice([model["theta"], model["alpha0"], model["alpha"]], X, y,
    ...                         model=model, rng=0)
    >>> point, stats = step.step(model.initial_point())
    >>> point["theta_interval__"].shape, stats[0]["slice_evals"] > 0
    ((3,), True)
    """

    stats_dtypes_shapes = {"slice_evals": (np.int64, [])}

    def __init__(self, vars, X, y, priors=None, n_omitted=0, factor=None, rng=None,
                 model=None, width=2.0, blocked=True):
        super().__init__(vars, X, y, priors, n_omitted, factor, rng, model)
        self.width = float(width)

    def step(self, point):
        from ._mixture_fast import conditional_sweep

        nm = self._names
        theta, log_alpha = self._values(point)
        th_dtype = np.asarray(point[nm["theta"]]).dtype
        z = np.asarray(point[nm["z"]]).astype(np.int64)
        evals = conditional_sweep(z, self.Xf, theta, log_alpha, self.prior, self.rng,
                                  self.n_omitted, self.factor, self.width)
        point = dict(point)
        point[nm["theta"]] = (np.log(theta) - np.log1p(-theta)).astype(th_dtype)
        point[nm["alpha0"]] = np.asarray(log_alpha[0], dtype=np.float64)
        point[nm["alpha"]] = np.asarray(log_alpha[1], dtype=np.float64)
        return point, [{"slice_evals": evals}]


class _SharedFunctionTrace(pm.backends.NDArray):
    """PyMC's in-memory trace whose per-chain copies share one compiled point function.

    ``pm.sample`` makes each chain's trace by copying the ``trace`` it is given; PyMC's own
    default builds a new trace, and compiles a new function of the point, for every chain
    (about 40 ms each, 8% of a default mixture fit). A shallow copy would share the stored
    draws too, so a copy here is a fresh trace that reuses only the function, the shapes and
    the dtypes.
    """

    def __copy__(self):
        return _SharedFunctionTrace(model=self.model, vars=self.vars, fn=self.fn,
                                    var_shapes=self.var_shapes, var_dtypes=self.var_dtypes)


def _compile_kwargs(backend="c"):
    """pytensor compile options of the mixture's functions (PyMC's ``backend`` shortcut).

    The C backend by default: its operations are compiled once per machine and cached on disk,
    so a fit pays only the graph rewrite of its functions (well under a second each), whereas
    the numba backend compiles every fit's graph anew (the data are constants of the graph),
    several seconds per fit, which dominates short fits such as the SBC's.
    """
    from pymc.pytensorf import resolve_backend_compile_kwargs

    return resolve_backend_compile_kwargs(backend, None)


def mixture_steps(model, X, y, *, priors=None, n_omitted=0, factor=None, z_update="exact",
                  label_sweeps=1, backend="c", continuous="slice", random_start=False):
    """The compound step of :func:`sample_pymc` on ``model`` (from :func:`build_mixture_model`).

    ``continuous="slice"``: ``[CollapsedZGibbs, ConditionalSlice]`` (compiled steps for every
    variable); ``"nuts"``: ``[CollapsedZGibbs, NUTS(theta), Slice(alpha, alpha0)]`` (PyMC's
    samplers for the continuous part, which read the model's log density: what a model with
    changed priors needs). ``z_update="approximate"`` leaves the factor out of the label step
    only (the R package's shortcut; not the corrected posterior). ``backend`` is the pytensor
    backend of PyMC's steps' functions (see :func:`_compile_kwargs`); ``random_start`` as for
    :class:`CollapsedZGibbs`.
    """
    if continuous not in ("slice", "nuts"):
        raise ValueError(f"continuous must be 'slice' or 'nuts'; got {continuous!r}")
    ck = _compile_kwargs(backend)
    with model:
        zstep = CollapsedZGibbs([model["z"]], X, y, priors=priors,
                                n_omitted=n_omitted if z_update == "exact" else 0,
                                factor=factor, sweeps=label_sweeps, random_start=random_start)
        if continuous == "slice":
            return [zstep, ConditionalSlice([model["theta"], model["alpha0"], model["alpha"]],
                                            X, y, priors=priors, n_omitted=n_omitted,
                                            factor=factor)]
        # one initial point and one slice function for both alphas: every extra pytensor
        # function costs a graph rewrite per fit
        ip = model.initial_point()
        theta_step = pm.NUTS([model["theta"]], initial_point=ip, compile_kwargs=ck)
        alpha_step = pm.Slice([model["alpha"], model["alpha0"]], blocked=True,
                              initial_point=ip, compile_kwargs=ck)
    return [zstep, theta_step, alpha_step]


def summarise_draws(z, theta, alpha, alpha0, Xf, prior, n_omitted=0, factor=None):
    """Posterior summaries and predictive draws of the mixture from its state per draw.

    Parameters
    ----------
    z : ndarray of int, shape (chains, draws, n)
    theta : ndarray, shape (chains, draws, k + 1)
    alpha, alpha0 : ndarray, shape (chains, draws)
    Xf : ndarray, shape (n, k + 1)
        Response, then the selected features.
    prior : MixturePrior
    n_omitted : int
        p - k (0: no adjustment in ``log_target``).
    factor : MixtureOmitFactor, optional

    Returns
    -------
    dict
        ``n_z1``, ``zy_agreement``, ``counts`` (chains, draws, 4), ``theta0``, ``log_target``,
        ``psi_hat`` (chains, draws), ``phi_hat`` (chains, draws, 2, k + 1).
    """
    from scipy.special import gammaln

    n = Xf.shape[0]
    y = Xf[:, 0].astype(np.int64)
    zf = z.astype(np.float64)
    nz1 = zf.sum(-1)
    nz = np.stack([n - nz1, nz1], axis=-1)                               # (c, d, 2)
    I1 = zf @ Xf                                                         # (c, d, m)
    I = np.stack([Xf.sum(0) - I1, I1], axis=-2)                          # (c, d, 2, m)
    code = 2 * z.astype(np.int64) + y
    counts = np.stack([(code == c).sum(-1) for c in range(4)], axis=-1)
    agree = (counts[..., 0] + counts[..., 3]) / n
    av = np.repeat(alpha[..., None], Xf.shape[1], axis=-1)
    av[..., 0] = alpha0
    a = av * theta
    O = nz[..., None] - I
    lu = (log_rising(a[..., None, :], I) + log_rising((av - a)[..., None, :], O)
          - log_rising(av[..., None, :], nz[..., None])).sum((-1, -2))
    pr = prior
    lz = (gammaln(pr.f1 + nz1) + gammaln(pr.f0 + n - nz1) - gammaln(pr.f0 + pr.f1 + n)
          + gammaln(pr.f0 + pr.f1) - gammaln(pr.f0) - gammaln(pr.f1))
    la, la0 = np.log(alpha), np.log(alpha0)
    lig = (-(pr.alpha_shape + 1) * la - pr.alpha_scale / alpha
           - (pr.alpha0_shape + 1) * la0 - pr.alpha0_scale / alpha0)
    log_target = lu + lz + lig
    if factor is not None and n_omitted > 0:
        adj = np.array([factor.log_keep(float(al), *map(int, N))
                        for al, N in zip(alpha.ravel(), counts.reshape(-1, 4), strict=True)])
        log_target = log_target + n_omitted * adj.reshape(alpha.shape)
    return {"n_z1": nz1, "zy_agreement": np.maximum(agree, 1.0 - agree), "counts": counts,
            "theta0": theta[..., 0], "log_target": log_target,
            "psi_hat": (pr.f1 + nz1) / (pr.f0 + pr.f1 + n),
            "phi_hat": (av[..., None, :] * theta[..., None, :] + I) / (av[..., None, :]
                                                                        + nz[..., None])}


def sample_pymc(X, y, *, n_omitted, threshold, corrected=True, z_update="exact", prior=None,
                draws=1000, tune=500, chains=4, thin=1, label_sweeps=1, factor=None,
                random_state=None, progressbar=False, continuous="slice",
                cores=1) -> MixtureSamples:
    """Sample the mixture posterior with ``pm.sample`` (inputs already validated).

    Called by :func:`selbayes.models.sample_mixture` (``backend="pymc"`` or
    ``"pymc_nuts"``); chains run one after the other, or in ``cores`` processes.

    Parameters
    ----------
    X : array_like of {0, 1}, shape (n, k)
        Selected features.
    y : array_like of {0, 1}, shape (n,)
        Response.
    n_omitted : int
        p - k.
    threshold : float or None
        gamma (recorded in ``attrs``).
    corrected : bool
        Include the selection adjustment.
    z_update : {"exact", "approximate"}
        Whether the label step includes the adjustment factor.
    prior : MixturePrior or dict, optional
        Fitting prior.
    draws, tune, chains, thin, label_sweeps : int
        As in :func:`selbayes.models.sample_mixture`.
    factor : MixtureOmitFactor or None
        The design's adjustment factor (None: uncorrected or nothing omitted).
    random_state : int, Generator or None
        Seed.
    progressbar : bool
        PyMC's progress bar.
    continuous : {"slice", "nuts"}
        The step for theta, alpha0, alpha (see :func:`mixture_steps`).
    cores : int
        Chains sampled at once in separate processes (``pm.sample``'s ``cores``).

    Returns
    -------
    MixtureSamples
        The reference sampler's ``idata`` layout (``posterior``: alpha, alpha0, log_alpha, n_z1,
        zy_agreement, theta0, counts, log_target; ``sample_stats``: slice_evals (density
        evaluations of the slice steps), with ``"nuts"`` also theta_accept (NUTS mean
        acceptance of theta), plus PyMC's own stats),
        ``psi_hat``, ``phi_hat`` and ``model``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(20, 3)); y = np.repeat([0, 1], 10)
    >>> s = sample_pymc(X, y, n_omitted=0, threshold=None, corrected=False, draws=20,
    ...                 tune=10, chains=1, random_state=0)        # doctest: +SKIP
    >>> s.phi_hat.shape                                           # doctest: +SKIP
    (1, 20, 2, 4)
    """
    import logging
    import warnings
    from dataclasses import asdict

    import xarray as xr

    from .._validation import check_random_state

    pr = MixturePrior.from_dict(prior)
    X = np.asarray(X)
    y = np.asarray(y).astype(np.int64)
    Xf = np.column_stack([y, X]).astype(np.float64)
    use_adj = factor is not None and corrected and n_omitted > 0
    if use_adj:
        from ._mixture_fast import compiled_factor

        factor = compiled_factor(factor)                 # same values, compiled
    model = build_mixture_model(X, y, n_omitted=n_omitted if use_adj else 0,
                                corrected=use_adj, priors=pr, factor=factor)
    random_start = continuous == "slice"       # see the initial points below
    steps = mixture_steps(model, X, y, priors=pr, n_omitted=n_omitted if use_adj else 0,
                          factor=factor, z_update=z_update, label_sweeps=label_sweeps,
                          continuous=continuous, random_start=random_start)
    seed = (None if random_state is None
            else int(check_random_state(random_state).integers(2**31)))
    # every chain starts from random labels, theta near the pooled frequencies and alpha near
    # 10, as the reference sampler (PyMC's default initial point would start all labels at
    # 0). With the compiled steps the label step draws the labels in the chain's first
    # iteration, so one initial point, and one compiled initial-point function, serves all
    # chains; PyMC's NUTS, which adapts its step size and mass matrix per chain, keeps
    # dispersed starting points, one per chain.
    rng = np.random.default_rng(seed)
    pooled = (Xf.sum(0) + 0.5) / (Xf.shape[0] + 1.0)
    if random_start:
        inits = {"theta": np.clip(pooled, 0.02, 0.98), "alpha": 10.0, "alpha0": 10.0}
    else:
        inits = []
        for _ in range(chains):
            th = np.clip(pooled * np.exp(0.1 * rng.standard_normal(Xf.shape[1])), 0.02, 0.98)
            inits.append({"z": rng.integers(0, 2, size=Xf.shape[0]), "theta": th,
                          "alpha": float(np.exp(np.log(10.0) + 0.5 * rng.standard_normal())),
                          "alpha0": float(np.exp(np.log(10.0) + 0.5 * rng.standard_normal()))})
    # PyMC logs the step assignment of every fit at INFO: keep it for the progress-bar view
    logger = logging.getLogger("pymc")
    level = logger.level
    if not progressbar:
        logger.setLevel(logging.WARNING)
    try:
        # pm.sample keeps the draws so far on Ctrl-C: the interrupt goes on after it
        with model, warnings.catch_warnings(), interrupts_reraised():
            warnings.filterwarnings("ignore", message=".*invalid value encountered.*")
            # shapes and dtypes come from a point of zeros (the values do not matter, and
            # model.initial_point() would compile one more function)
            zeros = {v.name: np.zeros(v.type.shape, dtype=v.type.dtype)
                     for v in model.value_vars}
            trace = pm.sample(trace=_SharedFunctionTrace(model=model, test_point=zeros),
                              draws=draws * thin, tune=tune, chains=chains, cores=cores, step=steps,
                              initvals=inits, random_seed=seed, progressbar=progressbar,
                              compute_convergence_checks=False, discard_tuned_samples=True,
                              compile_kwargs=_compile_kwargs())
    finally:
        logger.setLevel(level)
    post = trace.posterior
    keep = slice(thin - 1, None, thin)
    z = post["z"].values[:, keep]
    theta = post["theta"].values[:, keep]
    alpha = post["alpha"].values[:, keep]
    alpha0 = post["alpha0"].values[:, keep]
    summ = summarise_draws(z, theta, alpha, alpha0, Xf, pr, n_omitted if use_adj else 0,
                           factor if use_adj else None)
    dims = ("chain", "draw")
    coords = {"chain": np.arange(chains), "draw": np.arange(draws),
              "zy": ["n00", "n01", "n10", "n11"]}
    posterior = xr.Dataset(
        {"alpha": (dims, alpha), "log_alpha": (dims, np.log(alpha)), "alpha0": (dims, alpha0),
         "n_z1": (dims, summ["n_z1"]), "zy_agreement": (dims, summ["zy_agreement"]),
         "theta0": (dims, summ["theta0"]), "counts": ((*dims, "zy"), summ["counts"]),
         "log_target": (dims, summ["log_target"])}, coords=coords)
    st = trace.sample_stats.to_dataset() if hasattr(trace.sample_stats, "to_dataset") \
        else trace.sample_stats
    st = st.isel(draw=keep).assign_coords(draw=np.arange(draws))
    extra = {}
    if "acceptance_rate" in st:
        extra["theta_accept"] = st["acceptance_rate"]
    if "nstep_out" in st and "nstep_in" in st:
        extra["slice_evals"] = st["nstep_out"] + st["nstep_in"]
    stats = st.assign(extra)
    tree = xr.DataTree.from_dict({"posterior": posterior, "sample_stats": stats})
    tree.attrs.update({
        "sampler": ("pm.sample: CollapsedZGibbs (z, compiled exact collapsed Gibbs) + "
                    + ("ConditionalSlice (theta, alpha0, alpha; compiled exact slice)"
                       if continuous == "slice" else "NUTS (theta) + Slice (alpha, alpha0)")),
        "corrected": int(bool(corrected)), "z_update": z_update, "n_omitted": int(n_omitted),
        "threshold": float("nan") if threshold is None else float(threshold),
        "draws": draws, "tune": tune, "chains": chains, "thin": thin,
        "label_sweeps": label_sweeps,
        **{f"prior_{k}": v for k, v in asdict(pr).items()},
    })
    if use_adj:
        tree.attrs["adjustment_n_theta"] = int(factor.n_theta)
        tree.attrs["adjustment_kernels_built"] = int(factor.n_kernels_built)
    return MixtureSamples(idata=tree, psi_hat=summ["psi_hat"], phi_hat=summ["phi_hat"],
                          model=model)
