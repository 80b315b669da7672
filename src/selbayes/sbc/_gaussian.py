"""Simulation-based calibration of the hierarchical Gaussian model: its simulator and fitter.

A replicate draws every hyperparameter from the *fitting* prior, simulates all p features,
selects k of them, fits the model with and without the selection correction, and records the
rank of the true hyperparameter among the posterior draws. If the adjustment factor is right
the corrected ranks are uniform; the uncorrected ones are not (Talts et al. 2018; Li 2007,
Appendix 1: Bayesian predictions are calibrated on average over the prior).

The simulators and fitters are small picklable classes so that :func:`selbayes.sbc.run_sbc`
can ship them to joblib processes or dask workers. The spec schema, loader and runner shared by
every model are in :mod:`selbayes.sbc._spec`; their names are re-exported here, where earlier
versions defined them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_flag

# compatibility: these were defined here before selbayes.sbc._spec (spec imports this module only
# inside functions, so there is no import cycle)
from ._spec import MODELS, load_sbc_spec, run_sbc_spec, sbc_schema  # noqa: F401

__all__ = ["GaussianSBCSimulator", "GaussianSBCFitter", "run_sbc_spec", "load_sbc_spec",
           "sbc_schema"]


@dataclass(frozen=True)
class GaussianSBCSimulator:
    """Draw (tau_mu, tau_nu, tau_x, mu, nu) from the fitting prior, then n cases with p features.

    Classes are balanced (n // G cases each, the remainder going to the first classes): the
    model conditions on y, so its design is free. Calling the simulator with a
    ``numpy.random.Generator`` returns ``((X, y), truth)`` with ``X`` of shape (n, p), ``y``
    of shape (n,) with labels ``0..G-1``, and ``truth`` the true precision tau_mu under both
    parameter names of :class:`GaussianSBCFitter`.

    With a t prior (``mu_t_df``) every feature also draws its scale lambda_j ~ Gamma(df/2,
    rate df/2) (with ``mu_t_df_grid`` the df is drawn first, uniformly from the grid); with
    the two-groups prior (``pi0_a``, ``pi0_b``) the null share pi0 ~
    Beta(pi0_a, pi0_b) is drawn, then an indicator for every one of the p features (null:
    mu_jg = nu_j in every class), and ``truth`` also holds pi0 (``pi0_corrected``,
    ``pi0_uncorrected``). A hyperprior on w_x (``w_x_alpha``) is drawn from too. The paper's
    normal prior keeps its original draws (:func:`selbayes.datasets.gaussian_classification`),
    so its SBC replicates are unchanged.

    Attributes
    ----------
    n : int
        Cases per replicate.
    p : int
        Features per replicate (all of them are screened by the fitter's selection).
    n_classes : int
        G, the number of classes.
    priors : dict
        Fitting-prior settings for :meth:`selbayes.models.GaussianPriors.from_dict`
        (``c``, ``alpha_x``, ``w_x``, ``alpha_mu``, ``w_mu``, ``alpha_nu``, ``w_nu``); empty
        for the paper's defaults.

    Raises
    ------
    ValueError
        At construction, if ``n``, ``p`` or ``n_classes`` is not a positive integer,
        ``n_classes`` < 2, ``n`` < ``n_classes`` + 1, or ``priors`` names an unknown or
        invalid setting.
    TypeError
        At construction, if ``priors`` is not a dict.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.sbc import GaussianSBCSimulator
    >>> (X, y), truth = GaussianSBCSimulator(n=10, p=30, n_classes=3)(np.random.default_rng(0))
    >>> X.shape, np.bincount(y).tolist()
    ((10, 30), [4, 3, 3])
    >>> sorted(truth), truth["tau_mu_corrected"] == truth["tau_mu_uncorrected"] > 0
    (['tau_mu_corrected', 'tau_mu_uncorrected'], True)
    >>> two = GaussianSBCSimulator(n=10, p=30, priors={"pi0_a": 1.0, "pi0_b": 1.0})
    >>> sorted(two(np.random.default_rng(0))[1])
    ['pi0_corrected', 'pi0_uncorrected', 'tau_mu_corrected', 'tau_mu_uncorrected']
    """

    n: int = 40
    p: int = 200
    n_classes: int = 3
    priors: dict = field(default_factory=dict)

    def __post_init__(self):
        from ..models._priors import GaussianPriors
        from ._core import _check_prior_dict, _check_settings

        _check_settings(self, {"n": 1, "p": 1, "n_classes": 2})
        if self.n < self.n_classes + 1:
            raise ValueError(f"GaussianSBCSimulator: n must be at least n_classes + 1 = "
                             f"{self.n_classes + 1} (a case in every class and one within-class "
                             f"degree of freedom); got n = {self.n}")
        _check_prior_dict(self, "priors", GaussianPriors.from_dict)

    def __call__(self, rng):
        from ..datasets._simulate import gaussian_classification
        from ..models._priors import GaussianPriors

        pr = GaussianPriors.from_dict(self.priors)
        G = self.n_classes
        counts = np.full(G, self.n // G)
        counts[: self.n - counts.sum()] += 1
        if pr.two_groups or pr.t_df_values is not None or pr.w_x_alpha is not None:
            return self._simulate(pr, counts, rng)
        sim = gaussian_classification(
            None, self.p, G, tau_mu=None, tau_nu=None, alpha_x=pr.alpha_x, w_x=pr.w_x,
            alpha_mu=pr.alpha_mu, w_mu=pr.w_mu, alpha_nu=pr.alpha_nu, w_nu=pr.w_nu,
            class_counts=counts, random_state=rng)
        truth = {"tau_mu_corrected": sim.tau_mu, "tau_mu_uncorrected": sim.tau_mu}
        return (sim.X, sim.y), truth

    def _simulate(self, pr, counts, rng):
        """The model with a t prior, a two-groups prior or a w_x hyperprior, every draw from
        the fitting prior (Gamma(a, rate b) is numpy's gamma(a, scale 1/b))."""
        G, p = counts.shape[0], self.p
        y = rng.permutation(np.repeat(np.arange(G), counts))
        tau_mu = rng.gamma(pr.alpha_mu / 2, 2 / (pr.alpha_mu * pr.w_mu))
        tau_nu = rng.gamma(pr.alpha_nu / 2, 2 / (pr.alpha_nu * pr.w_nu))
        w_x = (pr.w_x if pr.w_x_alpha is None
               else rng.gamma(pr.w_x_alpha / 2, 2 * pr.w_x / pr.w_x_alpha))
        tau_x = rng.gamma(pr.alpha_x / 2, 2 / (pr.alpha_x * w_x), size=p)
        # a fixed df, or one drawn from the grid (only then is a random number used, so the
        # fixed-df replicates are those from before the grid existed)
        df = pr.mu_t_df if pr.mu_t_df_grid is None else rng.choice(pr.mu_t_df_grid)
        lam = np.ones(p) if df is None else rng.gamma(df / 2, 2 / df, size=p)
        truth = {"tau_mu_corrected": tau_mu, "tau_mu_uncorrected": tau_mu}
        if pr.mu_t_df_grid is not None:
            truth["t_df"] = float(df)                    # recorded, not ranked
        marker = np.ones(p, dtype=bool)
        if pr.two_groups:
            pi0 = rng.beta(pr.pi0_a, pr.pi0_b)
            marker = rng.uniform(size=p) >= pi0
            truth.update(pi0_corrected=pi0, pi0_uncorrected=pi0)
        nu = rng.standard_normal(p) / np.sqrt(tau_nu)
        mu = nu[:, None] + marker[:, None] * rng.standard_normal((p, G)) / np.sqrt(
            tau_mu * lam)[:, None]
        X = mu[:, y].T + rng.standard_normal((y.shape[0], p)) / np.sqrt(tau_x)
        return (X, y), truth


@dataclass(frozen=True)
class GaussianSBCFitter:
    """Fit the corrected and the uncorrected classifier; return both posteriors of tau_mu.

    Calling the fitter with ``((X, y), seed)`` keeps the ``k`` features with the largest F
    statistic, samples :class:`~selbayes.estimators.HierarchicalGaussianClassifier`
    with and without the selection correction (seeds ``seed + 1`` and ``seed``; sampler
    warnings are silenced), and returns ``{"tau_mu_corrected": draws, "tau_mu_uncorrected":
    draws}``, each of shape (chains, draws), in precision units; with the two-groups prior
    also ``pi0_corrected`` and ``pi0_uncorrected``.

    Attributes
    ----------
    k : int
        Features kept, 1 <= k < p.
    priors : dict
        Fitting-prior settings (as for :class:`GaussianSBCSimulator`); empty for the defaults.
    centre : bool
        Centre every feature on its mean before fitting, as ``standardize=True`` does, and
        fit with the flat prior on the feature means that centred features get
        (:func:`selbayes.models.for_centred_features`). The simulator still draws nu_j from
        its normal prior: the flat-prior posterior of tau_mu uses only the contrasts of the
        class means, whose distribution does not depend on nu, so it is an exact posterior
        given those and must be calibrated.
    draws, tune, chains : int
        NUTS draws and tuning steps per chain, and the number of chains.
    sampler : str
        Sampler of the classifier (``"auto"``: nutpie when installed).
    params : tuple of str
        The names of the returned posteriors (a property: pi0 joins tau_mu with the
        two-groups prior).

    Raises
    ------
    ValueError
        At construction, if ``k``, ``draws`` or ``chains`` is not a positive integer, ``tune``
        not an integer >= 0, ``priors`` names an unknown or invalid setting, or ``sampler``
        is not one of the classifiers' samplers ("auto", "pymc", "nutpie", ...).
    TypeError
        At construction, if ``priors`` is not a dict, ``centre`` not a bool or ``sampler``
        not a string.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.sbc import GaussianSBCFitter, GaussianSBCSimulator
    >>> fitter = GaussianSBCFitter(k=5, draws=200, tune=200)
    >>> fitter.params
    ('tau_mu_corrected', 'tau_mu_uncorrected')
    >>> data, truth = GaussianSBCSimulator(n=40, p=200)(np.random.default_rng(1))
    >>> post = fitter(data, seed=1)                     # doctest: +SKIP
    >>> post["tau_mu_corrected"].shape                  # doctest: +SKIP
    (2, 200)
    """

    k: int = 5
    priors: dict = field(default_factory=dict)
    centre: bool = False
    draws: int = 1000
    tune: int = 1000
    chains: int = 2
    sampler: str = "auto"

    def __post_init__(self):
        from ..models._priors import GaussianPriors
        from ._core import _check_prior_dict, _check_settings

        _check_settings(self, {"k": 1, "draws": 1, "tune": 0, "chains": 1})
        _check_prior_dict(self, "priors", GaussianPriors.from_dict)
        check_flag(self.centre, "GaussianSBCFitter: centre")
        if not isinstance(self.sampler, str):
            raise TypeError(f"GaussianSBCFitter: sampler must be a string; got "
                            f"{self.sampler!r}")
        from ..estimators._base import SAMPLERS

        if self.sampler not in SAMPLERS:    # named now, not inside the first replicate
            raise ValueError(f"GaussianSBCFitter: sampler must be one of {sorted(SAMPLERS)}; "
                             f"got {self.sampler!r}")

    @property
    def params(self) -> tuple:
        from ..models._priors import GaussianPriors

        names = ("tau_mu_corrected", "tau_mu_uncorrected")
        if GaussianPriors.from_dict(dict(self.priors)).two_groups:
            names += ("pi0_corrected", "pi0_uncorrected")
        return names

    def __call__(self, data, seed):
        import warnings

        from ..estimators._gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
        from ..models._priors import effect_prior_of, for_centred_features

        X, y = data
        priors = dict(self.priors) or None
        if self.centre:
            X = X - X.mean(axis=0)
            priors = for_centred_features(priors).to_dict()
        out = {}
        for corrected in (True, False):
            clf = HierarchicalGaussianClassifier(
                k=self.k, correct_selection=corrected, priors=priors,
                draws=self.draws, tune=self.tune, chains=self.chains, sampler=self.sampler,
                random_state=int(seed) + int(corrected), progressbar=False,
                max_predict_draws=1,
                **{**EXACT_MODEL, "effect_prior": effect_prior_of(dict(self.priors))})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf.fit(X, y)
            suffix = "corrected" if corrected else "uncorrected"
            post = clf.idata_.posterior
            for param in ("tau_mu", "pi0"):
                if f"{param}_{suffix}" in self.params:
                    out[f"{param}_{suffix}"] = post[param].values       # (chain, draw)
        return out
