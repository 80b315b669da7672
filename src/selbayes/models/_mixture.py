"""Collapsed MCMC for the two-component binary mixture with selection correction (Li 2007, 2.4).

Model (thesis section 2.4.1, eqs 2.64-2.84): the response y is "feature 0";
z_i ~ Bernoulli(psi), psi ~ Beta(f1, f0); for every feature j = 0..k (j = 0 is y)
phi_{z,j} ~ Beta(alpha_j theta_j, alpha_j (1 - theta_j)) with theta_j ~ U(0, 1),
alpha_0 ~ IG(a0, b0) for the response and alpha_j = alpha ~ IG(a, b) for the features;
x_ij | z_i ~ Bernoulli(phi_{z_i, j}).

psi and phi are integrated out analytically (eqs 2.92-2.94), so the state is (z, theta_{0:k},
alpha_0, alpha). The target (section 2.4.2, with the continuous IG priors in place of the K-point
grids of eq 2.88) is

    log IG(alpha_0) + log IG(alpha) + log U(f1, f0, n^[1], n^[0])
      + sum_{j=0..k} sum_z log U(alpha_j theta_j, alpha_j (1 - theta_j), I_zj, O_zj)
      + c (p - k) log P_keep(alpha; N(z))                      (c = 1 corrected, 0 not)

where N(z) = (n00, n01, n10, n11) are the response counts per component. z cannot be
marginalised because the last term couples all cases through N(z).

One iteration of the compound sampler, each step leaving the target invariant:

1. ``label_sweeps`` collapsed Gibbs sweeps over the labels z_i (eq 2.95, without the "-1" that
   the thesis prints in the denominator of phi_hat after eq 2.91, a slip: n^[z](-i) already
   excludes case i). In the default ``z_update="exact"`` the conditional of each z_i
   includes the change of the adjustment factor, ``(p - k) log P_keep(alpha; N)`` at the two
   candidate configurations (cached per configuration:
   :class:`~selbayes.adjustment.MixtureOmitFactor`). ``z_update="approximate"`` drops it from the
   label step only, like the author's R package ``predmixcor`` (``approxim=TRUE``); that chain
   does **not** target the corrected posterior and is offered only for comparison.
2. ``theta_steps`` random-walk Metropolis steps on logit(theta_j), all j at once (vectorised;
   per-feature step sizes adapted during warm-up only).
3. A univariate slice-sampling update (stepping out and shrinkage, Neal 2003) of log alpha_0 and
   of log alpha; the second includes the adjustment factor when corrected.

Predictions (section 2.4.2, eqs 2.85-2.90) are a ratio of Monte Carlo averages over the draws of
P(y*, x*_{1:k} | draw), never an average of per-draw conditionals: :func:`predict_log_proba`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.special import expit, gammaln, logsumexp

from .._special import log_rising
from .._validation import check_flag, check_int, check_random_state
from ._priors import MixturePrior  # noqa: F401 - its home is models.priors

__all__ = ["MixturePrior", "MixtureSamples", "sample_mixture", "predict_log_proba",
           "Z_UPDATES", "BACKENDS"]

Z_UPDATES = ("exact", "approximate")
BACKENDS = ("pymc", "pymc_nuts", "reference")
_SLICE_WIDTH = 1.0
_SLICE_MAX_STEPS = 50


@dataclass
class MixtureSamples:
    """Output of :func:`sample_mixture`.

    Attributes
    ----------
    idata : xarray.DataTree
        ``posterior`` (dims ``chain``, ``draw``): ``alpha``, ``alpha0``, ``log_alpha``,
        ``n_z1`` (cases with z = 1), ``zy_agreement`` (label-invariant fraction of cases whose
        z equals y, max over the two labellings), ``counts`` (dim ``zy``: n00, n01, n10, n11),
        ``theta0``, ``log_target``; ``sample_stats``: ``theta_accept`` (mean MH acceptance per
        iteration) and ``slice_evals``. ``attrs`` record the settings.
    psi_hat : ndarray, shape (chains, draws)
        Posterior-predictive P(z* = 1 | draw) = (f1 + n^[1]) / (f0 + f1 + n).
    phi_hat : ndarray, shape (chains, draws, 2, k + 1)
        P(x*_j = 1 | z* = z, draw) = (alpha_j theta_j + I_zj) / (alpha_j + n^[z]); j = 0 is y.
    model : pymc.Model or None
        The model sampled (PyMC backend); None for the reference sampler.

    Examples
    --------
    Usually returned by :func:`sample_mixture`; its ``psi_hat`` and ``phi_hat`` feed
    :func:`predict_log_proba`. A hand-made one with one chain of one draw and k = 1:

    >>> import numpy as np
    >>> s = MixtureSamples(idata=None, psi_hat=np.array([[0.5]]),
    ...                    phi_hat=np.array([[[[0.2, 0.1], [0.8, 0.9]]]]))
    >>> s.phi_hat.shape                    # (chains, draws, 2 components, k + 1)
    (1, 1, 2, 2)
    >>> np.round(np.exp(predict_log_proba([[1]], s.psi_hat, s.phi_hat)), 4).tolist()
    [[0.26, 0.74]]
    """

    idata: object
    psi_hat: np.ndarray
    phi_hat: np.ndarray
    model: object = None


# ---------------------------------------------------------------------------------------------
# log densities
# ---------------------------------------------------------------------------------------------
def _log_u_theta(alpha_j, theta, I, O):
    """sum_z log U(alpha theta, alpha (1 - theta), I_z, O_z) without theta-free terms.

    alpha_j, theta: (m,); I, O: (2, m). Returns (m,).
    """
    a = alpha_j * theta
    # log rising factorials: a difference of log Gamma values cancels at large alpha
    return log_rising(a, I).sum(0) + log_rising(alpha_j - a, O).sum(0)


def _log_u_alpha(alpha, theta, I, O, nz):
    """sum_j sum_z log U(alpha theta_j, alpha (1 - theta_j), I_zj, O_zj) for scalar alpha."""
    a = alpha * theta
    m = theta.shape[0]
    return float(log_rising(a, I).sum() + log_rising(alpha - a, O).sum()
                 - m * log_rising(alpha, nz).sum())


def _slice(logf, x0, f0, rng, width=_SLICE_WIDTH, max_steps=_SLICE_MAX_STEPS):
    """One univariate slice-sampling update (Neal 2003: stepping out, then shrinkage).

    Returns (x1, logf(x1), number of evaluations).
    """
    logy = f0 + math.log(rng.random())
    left = x0 - width * rng.random()
    right = left + width
    j = int(max_steps * rng.random())
    k = max_steps - 1 - j
    evals = 0
    while j > 0 and logf(left) > logy:
        left -= width
        j -= 1
        evals += 1
    while k > 0 and logf(right) > logy:
        right += width
        k -= 1
        evals += 1
    while True:
        x1 = left + (right - left) * rng.random()
        f1 = logf(x1)
        evals += 1
        if f1 > logy:
            return x1, f1, evals
        if x1 < x0:
            left = x1
        else:
            right = x1


# ---------------------------------------------------------------------------------------------
# one chain
# ---------------------------------------------------------------------------------------------
class _Chain:
    """State and updates of one chain. ``Xf`` is (n, k + 1) with column 0 the response."""

    def __init__(self, Xf, prior, n_omitted, factor, corrected, exact_z, rng):
        self.Xf = Xf
        self.Xb = Xf.astype(bool)
        self.y = Xf[:, 0].astype(np.int64)
        self.n, self.m = Xf.shape
        self.prior = prior
        self.n_omitted = n_omitted
        self.factor = factor
        self.use_adj = bool(corrected and n_omitted > 0 and factor is not None)
        self.adj_in_z = self.use_adj and exact_z
        self.rng = rng
        n = self.n
        # initial state: random labels, theta at the pooled frequency, alpha near 10 (predmixcor)
        self.z = rng.integers(0, 2, size=n)
        pooled = (Xf.sum(0) + 0.5) / (n + 1.0)
        self.theta = np.clip(pooled * np.exp(0.1 * rng.standard_normal(self.m)), 0.02, 0.98)
        self.log_alpha = math.log(10.0) + 0.5 * rng.standard_normal()
        self.log_alpha0 = math.log(10.0) + 0.5 * rng.standard_normal()
        self.step = np.full(self.m, 0.5)               # logit-scale MH step per theta
        self._recount()

    # -- bookkeeping ----------------------------------------------------------------------
    def _recount(self):
        z = self.z
        self.nz = np.array([np.count_nonzero(z == 0), np.count_nonzero(z == 1)], dtype=float)
        self.I = np.stack([self.Xf[z == 0].sum(0), self.Xf[z == 1].sum(0)]).astype(float)
        self.N = np.bincount(2 * z + self.y, minlength=4).astype(np.int64)

    def alpha_vec(self):
        v = np.full(self.m, math.exp(self.log_alpha))
        v[0] = math.exp(self.log_alpha0)
        return v

    def _log_adj(self, N, alpha):
        return self.n_omitted * self.factor.log_keep(float(alpha), int(N[0]), int(N[1]),
                                                     int(N[2]), int(N[3]))

    # -- updates --------------------------------------------------------------------------
    def update_labels(self):
        """One collapsed Gibbs sweep over z_1..z_n in random order."""
        pr = self.prior
        f = np.array([pr.f0, pr.f1])
        av = self.alpha_vec()
        A = av * self.theta
        B = av - A
        alpha, alpha0 = av[-1] if self.m > 1 else av[0], av[0]
        k = self.m - 1
        u = self.rng.random(self.n)
        I, nz, N = self.I, self.nz, self.N
        for i in self.rng.permutation(self.n):
            x, xb = self.Xf[i], self.Xb[i]
            c = self.z[i]
            yi = self.y[i]
            nz[c] -= 1.0
            I[c] -= x
            N[2 * c + yi] -= 1
            # log P(x_i | z_i = z, other cases), phi integrated out (eq 2.95)
            num = np.where(xb, A + I, B + (nz[:, None] - I))
            ll = np.log(num).sum(1) - np.log(alpha0 + nz) - k * np.log(alpha + nz)
            lp = np.log(f + nz) + ll
            if self.adj_in_z:
                for zz in (0, 1):
                    N[2 * zz + yi] += 1
                    lp[zz] += self._log_adj(N, alpha)
                    N[2 * zz + yi] -= 1
            new = int(u[i] < expit(lp[1] - lp[0]))
            self.z[i] = new
            nz[new] += 1.0
            I[new] += x
            N[2 * new + yi] += 1

    def update_theta(self, n_steps, adapt_t=None):
        """Random-walk Metropolis on logit(theta_j), vectorised over j = 0..k."""
        av = self.alpha_vec()
        I = self.I
        O = self.nz[:, None] - I
        th = self.theta
        cur = _log_u_theta(av, th, I, O) + np.log(th) + np.log1p(-th)
        acc_total = 0.0
        for _ in range(n_steps):
            eta = np.log(th) - np.log1p(-th) + self.step * self.rng.standard_normal(self.m)
            prop = expit(eta)
            ok = (prop > 0.0) & (prop < 1.0)
            prop = np.where(ok, prop, th)
            new = _log_u_theta(av, prop, I, O) + np.log(prop) + np.log1p(-prop)
            accept = ok & (np.log(self.rng.random(self.m)) < new - cur)
            th = np.where(accept, prop, th)
            cur = np.where(accept, new, cur)
            acc_total += accept.mean()
            if adapt_t is not None:                     # warm-up only (Robbins-Monro)
                self.step *= np.exp((accept - 0.44) / (adapt_t + 10.0) ** 0.6)
        self.theta = th
        return acc_total / max(n_steps, 1)

    def _logf_alpha(self, la):
        pr = self.prior
        alpha = math.exp(la)
        if not np.isfinite(alpha) or alpha <= 0:
            return -np.inf
        th = self.theta[1:]
        I = self.I[:, 1:]
        out = -pr.alpha_shape * la - pr.alpha_scale / alpha + _log_u_alpha(
            alpha, th, I, self.nz[:, None] - I, self.nz)
        if self.use_adj:
            out += self._log_adj(self.N, alpha)
        return out

    def _logf_alpha0(self, la):
        pr = self.prior
        alpha = math.exp(la)
        if not np.isfinite(alpha) or alpha <= 0:
            return -np.inf
        th = self.theta[:1]
        I = self.I[:, :1]
        return -pr.alpha0_shape * la - pr.alpha0_scale / alpha + _log_u_alpha(
            alpha, th, I, self.nz[:, None] - I, self.nz)

    def update_alphas(self):
        self.log_alpha0, _, e0 = _slice(self._logf_alpha0, self.log_alpha0,
                                        self._logf_alpha0(self.log_alpha0), self.rng)
        # with k = 0, alpha enters only through its prior and the adjustment factor
        self.log_alpha, _, e1 = _slice(self._logf_alpha, self.log_alpha,
                                       self._logf_alpha(self.log_alpha), self.rng)
        return e0 + e1

    def log_target(self):
        """The log target of the state (theta on (0, 1), alphas on their own scale)."""
        pr = self.prior
        av = self.alpha_vec()
        nz, I = self.nz, self.I
        O = nz[:, None] - I
        a = av * self.theta
        lu = (log_rising(a, I) + log_rising(av - a, O) - log_rising(av, nz[:, None])).sum()
        lz = (gammaln(pr.f1 + nz[1]) + gammaln(pr.f0 + nz[0]) - gammaln(pr.f0 + pr.f1 + self.n)
              + gammaln(pr.f0 + pr.f1) - gammaln(pr.f0) - gammaln(pr.f1))
        al, al0 = math.exp(self.log_alpha), math.exp(self.log_alpha0)
        lig = (-(pr.alpha_shape + 1) * self.log_alpha - pr.alpha_scale / al
               - (pr.alpha0_shape + 1) * self.log_alpha0 - pr.alpha0_scale / al0)
        adj = self._log_adj(self.N, al) if self.use_adj else 0.0
        return float(lu + lz + lig + adj)

    def predictive(self):
        """(psi_hat, phi_hat (2, k + 1)) of the current state (eq 2.90)."""
        pr = self.prior
        av = self.alpha_vec()
        phi = (av * self.theta + self.I) / (av + self.nz[:, None])
        psi = (pr.f1 + self.nz[1]) / (pr.f0 + pr.f1 + self.n)
        return psi, phi


def _run_chain(Xf, prior, n_omitted, factor, corrected, exact_z, draws, tune, thin,
               label_sweeps, theta_steps, seed, progress=None):
    rng = np.random.default_rng(seed)
    ch = _Chain(Xf, prior, n_omitted, factor, corrected, exact_z, rng)
    n, m = Xf.shape
    rec = {name: np.empty(draws) for name in ("alpha", "alpha0", "n_z1", "zy_agreement",
                                                "theta0", "log_target", "theta_accept",
                                                "slice_evals")}
    counts = np.empty((draws, 4), dtype=np.int64)
    psi = np.empty(draws)
    phi = np.empty((draws, 2, m))
    total = tune + draws * thin
    d = 0
    for it in range(total):
        for _ in range(label_sweeps):
            ch.update_labels()
        acc = ch.update_theta(theta_steps, adapt_t=it if it < tune else None)
        ev = ch.update_alphas()
        if progress is not None:
            progress(1)
        if it >= tune and (it - tune) % thin == thin - 1:
            N = ch.N
            agree = (N[0] + N[3]) / n
            rec["alpha"][d] = math.exp(ch.log_alpha)
            rec["alpha0"][d] = math.exp(ch.log_alpha0)
            rec["n_z1"][d] = ch.nz[1]
            rec["zy_agreement"][d] = max(agree, 1.0 - agree)
            rec["theta0"][d] = ch.theta[0]
            rec["log_target"][d] = ch.log_target()
            rec["theta_accept"][d] = acc
            rec["slice_evals"][d] = ev
            counts[d] = N
            psi[d], phi[d] = ch.predictive()
            d += 1
    return rec, counts, psi, phi


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------
def _check_data(X, y) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(X, y, n0, n1): X a 0/1 matrix with one row per case of the 0/1 vector y, both classes
    present (:func:`sample_mixture` and :func:`build_mixture_model`)."""
    X = np.asarray(X)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}")
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D with one row per case of y ({y.shape[0]}); "
                         f"got shape {X.shape}")
    if not np.all(np.isin(X, (0, 1))):
        raise ValueError("X must hold only 0 and 1")
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("y must hold only 0 and 1")
    n0, n1 = int(np.count_nonzero(y == 0)), int(np.count_nonzero(y == 1))
    if n0 == 0 or n1 == 0:
        raise ValueError(f"y must contain both classes; got {n0} zeros and {n1} ones")
    return X, y, n0, n1


def _check_factor(factor) -> None:
    """None, or the adjustment factor of the omitted features (its counts are checked by the
    caller, which knows the data)."""
    from ..adjustment._mixture import MixtureOmitFactor

    if factor is not None and not isinstance(factor, MixtureOmitFactor):
        raise TypeError("factor must be a MixtureOmitFactor (selbayes.adjustment) or None; got "
                        f"{type(factor).__name__}")


def sample_mixture(X, y, *, n_omitted: int, threshold: float | None, corrected: bool = True,
                   z_update: str = "exact", prior=None, draws: int = 1000, tune: int = 500,
                   chains: int = 4, thin: int = 1, label_sweeps: int = 1, theta_steps: int = 5,
                   n_theta: int | None = None, factor=None, random_state=None,
                   progressbar: bool = False, backend: str = "pymc",
                   cores: int = 1) -> MixtureSamples:
    """Sample the (optionally selection-corrected) posterior of the binary mixture.

    Parameters
    ----------
    X : array-like of 0/1, shape (n, k)
        The k retained training features (k may be 0).
    y : array-like of 0/1, shape (n,)
        Training response (both values must occur).
    n_omitted : int
        p - k, the number of omitted features (the power of the adjustment factor).
    threshold : float or None
        gamma: every omitted feature had |Cor| <= gamma. Needed when ``corrected`` and
        ``n_omitted > 0``.
    corrected : bool, default True
        Include the factor P(|COR| <= gamma | alpha, N(z))^(p - k).
    z_update : {"exact", "approximate"}
        "exact" (default) puts the factor into every label update, so the chain targets the
        corrected posterior. "approximate" leaves it out of the label updates (the R package's
        default): faster, but **not** the corrected posterior.
    prior : MixturePrior or dict, optional
        Default: the thesis' values (:class:`MixturePrior`).
    draws, tune, chains, thin : int
        Kept draws per chain (>= 1), warm-up iterations (>= 0), chains (>= 1; run one after
        the other), and iterations per kept draw (>= 1).
    label_sweeps, theta_steps : int
        Gibbs sweeps over z and Metropolis steps per theta in each iteration (>= 1).
    n_theta : int, optional
        Theta nodes of the adjustment factor's quadrature. Default: the exact rule
        (Gauss-Legendre with about n / 2 nodes) up to n of about 250 training cases, the
        mapped Gauss rule converged to round-off beyond
        (:func:`selbayes.adjustment.lattice_theta_rule`).
    factor : MixtureOmitFactor, optional
        A prebuilt factor for (n0, n1, gamma), to share its caches between fits.
    random_state : int, Generator or None
        Seed; each chain gets an independent stream spawned from it.
    progressbar : bool
        Show a progress bar over all iterations.
    backend : {"pymc", "pymc_nuts", "reference"}
        ``"pymc"`` (default): ``pm.sample`` on the model of
        :func:`selbayes.models.build_mixture_model` with two compiled step
        methods, the collapsed Gibbs step for z
        (:class:`~selbayes.models.CollapsedZGibbs`) and exact slice updates of
        theta, alpha0 and alpha from their conditionals
        (:class:`~selbayes.models.ConditionalSlice`). ``"pymc_nuts"``: the same
        model and z step with PyMC's own samplers for the continuous part, NUTS for theta and
        slice for alpha, alpha0 (several times slower; they read the model's log density, so
        they also serve a model whose priors were changed). ``theta_steps`` is unused by
        both. ``"reference"``: the hand-written compound sampler described in this module,
        kept as the independent test reference.
    cores : int
        PyMC routes: chains sampled at once in separate processes (default 1: in turn; the
        reference sampler always runs them in turn). More than 1 shortens one large fit;
        many small fits (cross-validation, SBC) gain more from running fits in parallel.

    Returns
    -------
    MixtureSamples
        Posterior summaries in ``idata`` and the per-draw predictive ``psi_hat``
        (chains, draws) and ``phi_hat`` (chains, draws, 2, k + 1); with the PyMC backend also
        the ``pm.Model`` (``model``).

    Raises
    ------
    ValueError
        If ``y`` is not 1-D, ``X`` is not 2-D with one row per case, ``X`` or ``y`` holds
        values other than 0 and 1, ``y`` lacks a class, an integer setting is out of range or
        not an integer, ``z_update`` is unknown, ``threshold`` is None while ``corrected``
        and ``n_omitted > 0``, ``factor`` was built for other (n0, n1, gamma), or ``prior``
        is invalid.
    TypeError
        If ``prior`` is not a MixturePrior, dict or None, ``random_state`` is not None, an
        int >= 0 or a Generator (a negative int: ValueError), ``corrected`` is not a bool, or
        ``factor`` is not a MixtureOmitFactor.

    Examples
    --------
    A short chain on 20 cases with 3 retained of p = 100 features (MCMC: skipped here):

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(20, 3)); y = np.repeat([0, 1], 10)
    >>> s = sample_mixture(X, y, n_omitted=97, threshold=0.3, draws=20, tune=10,
    ...                    chains=2, random_state=0)  # doctest: +SKIP
    >>> s.psi_hat.shape, s.phi_hat.shape  # doctest: +SKIP
    ((2, 20), (2, 20, 2, 4))
    >>> predict_log_proba(X[:5], s.psi_hat, s.phi_hat).shape  # doctest: +SKIP
    (5, 2)
    """
    import xarray as xr

    from ..adjustment._mixture import MixtureOmitFactor
    from ._mixture_fast import mixture_factor

    X, y, n0, n1 = _check_data(X, y)
    n_omitted = check_int(n_omitted, name="n_omitted", low=0)
    corrected = check_flag(corrected, "corrected")
    check_random_state(random_state)            # named here, not after the model is built
    _check_factor(factor)
    if z_update not in Z_UPDATES:
        raise ValueError(f"z_update must be one of {Z_UPDATES}; got {z_update!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}")
    draws = check_int(draws, name="draws", low=1)
    tune = check_int(tune, name="tune", low=0)
    chains = check_int(chains, name="chains", low=1)
    thin = check_int(thin, name="thin", low=1)
    label_sweeps = check_int(label_sweeps, name="label_sweeps", low=1)
    theta_steps = check_int(theta_steps, name="theta_steps", low=1)
    cores = check_int(cores, name="cores", low=1)
    pr = MixturePrior.from_dict(prior)
    need_factor = corrected and n_omitted > 0
    if need_factor:
        if threshold is None:
            raise ValueError("threshold (gamma) is required when corrected and n_omitted > 0")
        if factor is None:
            factor = (MixtureOmitFactor(n0, n1, threshold, n_theta) if backend == "reference"
                      else mixture_factor(n0, n1, threshold, n_theta))
        elif (factor.n0, factor.n1, factor.threshold) != (n0, n1, float(threshold)):
            raise ValueError("factor was built for another (n0, n1, gamma)")
    if backend in ("pymc", "pymc_nuts"):
        from ._mixture_pymc import sample_pymc

        return sample_pymc(
            X, y, n_omitted=n_omitted, threshold=threshold, corrected=corrected,
            z_update=z_update, prior=pr, draws=draws, tune=tune, chains=chains, thin=thin,
            label_sweeps=label_sweeps, factor=factor if need_factor else None,
            random_state=random_state, progressbar=progressbar,
            continuous="slice" if backend == "pymc" else "nuts", cores=cores)
    Xf = np.column_stack([y, X]).astype(np.float64)
    seeds = np.random.SeedSequence(
        None if random_state is None else
        int(check_random_state(random_state).integers(2**63))).spawn(chains)
    bar = None
    if progressbar:
        from tqdm.auto import tqdm

        bar = tqdm(total=chains * (tune + draws * thin), desc="mixture MCMC")
    outs = [_run_chain(Xf, pr, n_omitted, factor if need_factor else None, corrected,
                       z_update == "exact", draws, tune, thin, label_sweeps, theta_steps, s,
                       None if bar is None else bar.update) for s in seeds]
    if bar is not None:
        bar.close()
    rec = {k: np.stack([o[0][k] for o in outs]) for k in outs[0][0]}
    counts = np.stack([o[1] for o in outs])
    psi = np.stack([o[2] for o in outs])
    phi = np.stack([o[3] for o in outs])
    dims = ("chain", "draw")
    coords = {"chain": np.arange(chains), "draw": np.arange(draws),
              "zy": ["n00", "n01", "n10", "n11"]}
    post = xr.Dataset(
        {"alpha": (dims, rec["alpha"]), "log_alpha": (dims, np.log(rec["alpha"])),
         "alpha0": (dims, rec["alpha0"]), "n_z1": (dims, rec["n_z1"]),
         "zy_agreement": (dims, rec["zy_agreement"]), "theta0": (dims, rec["theta0"]),
         "counts": ((*dims, "zy"), counts), "log_target": (dims, rec["log_target"])},
        coords=coords)
    stats = xr.Dataset({"theta_accept": (dims, rec["theta_accept"]),
                        "slice_evals": (dims, rec["slice_evals"])},
                       coords={"chain": coords["chain"], "draw": coords["draw"]})
    tree = xr.DataTree.from_dict({"posterior": post, "sample_stats": stats})
    tree.attrs.update({
        "sampler": "collapsed Gibbs (z) + logit-RWM (theta) + slice (log alpha, log alpha0)",
        "corrected": int(bool(corrected)), "z_update": z_update, "n_omitted": n_omitted,
        "threshold": float("nan") if threshold is None else float(threshold),
        "draws": draws, "tune": tune, "chains": chains, "thin": thin,
        "label_sweeps": label_sweeps, "theta_steps": theta_steps,
        **{f"prior_{k}": v for k, v in asdict(pr).items()},
    })
    if need_factor:
        tree.attrs["adjustment_n_theta"] = int(factor.n_theta)
        tree.attrs["adjustment_kernels_built"] = int(factor.n_kernels_built)
    return MixtureSamples(idata=tree, psi_hat=psi, phi_hat=phi)


def predict_log_proba(X, psi_hat, phi_hat, chunk: int = 256) -> np.ndarray:
    """log P(y* = c | x*_{1:k}, training data) for c = 0, 1, as a ratio of Monte Carlo averages.

    Implements eqs 2.85-2.90 of the thesis (section 2.4.2): for each draw s,
    ``P_s(y*, x*) = sum_{z*} psi_s(z*) Bern(y*; phi_s[z*, 0]) prod_j Bern(x*_j; phi_s[z*, j])``;
    the prediction is ``mean_s P_s(1, x*) / (mean_s P_s(0, x*) + mean_s P_s(1, x*))``, in log
    space (log-sum-exp over draws).

    Parameters
    ----------
    X : array-like of 0/1, shape (T, k)
        Retained features of the test cases.
    psi_hat : array-like, shape (S,) or (chains, draws)
        Per-draw P(z* = 1), in (0, 1) (:attr:`MixtureSamples.psi_hat`).
    phi_hat : array-like, shape (S, 2, k + 1) or (chains, draws, 2, k + 1)
        Per-draw P(x*_j = 1 | z*), j = 0 the response (:attr:`MixtureSamples.phi_hat`).
    chunk : int
        Draws processed at once (memory T x chunk x 4 floats).

    Returns
    -------
    ndarray, shape (T, 2)
        Log probabilities (nats) of y* = 0 and y* = 1; rows log-sum-exp to 0.

    Raises
    ------
    ValueError
        If ``phi_hat`` does not have one (2, k + 1) block per draw of ``psi_hat``, or ``X``
        is not 2-D with k columns.

    Examples
    --------
    One draw, psi = 0.5, phi[z*] = (P(y* = 1), P(x* = 1)) = (0.2, 0.1) for z* = 0 and
    (0.8, 0.9) for z* = 1. At x* = 1, P(y* = 1, x* = 1) = 0.5 (0.2 0.1 + 0.8 0.9) = 0.37 and
    P(x* = 1) = 0.5, so P(y* = 1 | x* = 1) = 0.74:

    >>> import numpy as np
    >>> phi = np.array([[[0.2, 0.1], [0.8, 0.9]]])
    >>> lp = predict_log_proba([[1], [0]], [0.5], phi)
    >>> np.round(np.exp(lp), 4).tolist()
    [[0.26, 0.74], [0.74, 0.26]]
    """
    X = np.asarray(X, dtype=np.float64)
    phi = np.asarray(phi_hat, dtype=np.float64)
    psi = np.asarray(psi_hat, dtype=np.float64).reshape(-1)
    phi = phi.reshape(-1, *phi.shape[-2:])
    if phi.shape[0] != psi.shape[0] or phi.shape[1] != 2:
        raise ValueError(f"phi_hat must be (S, 2, k + 1) with S = {psi.shape[0]} draws; "
                         f"got {np.asarray(phi_hat).shape}")
    if X.ndim != 2 or X.shape[1] != phi.shape[2] - 1:
        raise ValueError(f"X must be (T, k) with k = {phi.shape[2] - 1}; got {X.shape}")
    S = psi.shape[0]
    lphi, l1phi = np.log(phi), np.log1p(-phi)
    lpsi = np.stack([np.log1p(-psi), np.log(psi)], axis=1)            # (S, 2): z* = 0, 1
    acc = None
    for start in range(0, S, chunk):
        sl = slice(start, min(S, start + chunk))
        D = (lphi[sl, :, 1:] - l1phi[sl, :, 1:])                       # (s, 2, k)
        s = D.shape[0]
        feat = X @ D.reshape(s * 2, -1).T + l1phi[sl, :, 1:].sum(-1).reshape(1, s * 2)
        feat = feat.reshape(-1, s, 2)                                   # (T, s, z*)
        base = feat + lpsi[sl][None]
        resp = np.stack([l1phi[sl, :, 0], lphi[sl, :, 0]], axis=-1)    # (s, z*, y*)
        term = logsumexp(base[..., None] + resp[None], axis=2)          # (T, s, y*)
        part = logsumexp(term, axis=1)                                  # (T, y*)
        acc = part if acc is None else np.logaddexp(acc, part)
    return acc - logsumexp(acc, axis=1, keepdims=True)
