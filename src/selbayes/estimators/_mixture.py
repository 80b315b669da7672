"""scikit-learn style estimator for the binary mixture model corrected for correlation selection."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from ..filters._selection import Selection
from ..models._priors import MixturePrior
from ._base import SAMPLER_CONSTRAINT, Posterior, SelectionClassifier, warn_at_user
from ._params import Interval, Options, StrOptions, priors_constraint

__all__ = ["BinaryMixtureClassifier"]

#: ``algorithm`` -> the ``backend`` of :func:`selbayes.models.sample_mixture`.
_ALGORITHMS = {"slice": "pymc", "nuts": "pymc_nuts", "reference": "reference"}
#: values of ``sampler`` that named the algorithm before it had its own parameter (deprecated;
#: the old ``"pymc"`` is the default algorithm and a valid NUTS implementation alike).
_OLD_SAMPLER_VALUES = {"pymc_nuts": "nuts", "reference": "reference"}
#: NUTS implementations that can run the mixture: only PyMC's ``pm.sample`` combines NUTS with
#: the Gibbs step of the latent labels (nutpie, numpyro and blackjax sample gradients only).
_MIXTURE_SAMPLERS = ("auto", "pymc")


@dataclass(kw_only=True)
class _MixturePosterior(Posterior):
    """The mixture posterior and the sampler's full result (``psi_hat``, ``phi_hat``)."""

    samples: Any


class BinaryMixtureClassifier(SelectionClassifier):
    """Two-component binary mixture classifier that conditions on correlation selection.

    ``fit`` takes all p binary features, keeps the k with the largest |correlation| with the
    binary class (:func:`selbayes.select_features` with ``statistic="abs_corr"``), and samples
    the posterior of the mixture model of Li (2007) [1]_, section 2.4 (see
    :mod:`selbayes.models._mixture`): each class is a mixture of latent clusters z. With
    ``correct_selection=True`` the posterior also conditions on the p - k omitted features having
    |Cor| <= gamma, through the factor P(|COR| <= gamma | alpha, N(z))^(p - k)
    (:mod:`selbayes.adjustment._mixture`), which depends on the latent labels.

    The model is a ``pm.Model`` (:func:`selbayes.models.build_mixture_model`,
    stored as ``model_``) sampled by ``pm.sample`` with two exact, compiled step methods: a
    collapsed Gibbs sweep for the labels z (:class:`~selbayes.models.CollapsedZGibbs`)
    and slice updates of theta, alpha0 and alpha from their conditionals
    (:class:`~selbayes.models.ConditionalSlice`).

    Parameters
    ----------
    k : int or "all", default 10
        Number of features to keep (1 <= k < p), or "all" (nothing omitted, nothing to
        correct). ``threshold`` overrides it
        (a ``k`` other than the default given with it warns that it is unused).
    threshold : float, optional
        Keep features with |Cor| > threshold.
    n_components : int, default 2
        Latent components per model; the thesis' model (and this implementation) has 2.
    correct_selection : bool, default True
        Include the selection adjustment factor.
    z_update : {"exact", "approximate"}, default "exact"
        "approximate" drops the factor from the latent-label updates (the R package's
        shortcut); the chain then does not target the corrected posterior.
    priors : MixturePrior or dict, optional
        Fitting prior (default: thesis values f0 = f1 = 1, alpha, alpha0 ~ IG(0.5, 5)).
    draws, tune, chains, thin : int
        MCMC settings per chain (``tune``: warm-up iterations, discarded; the same default
        1000 as the other classifiers).
    label_sweeps, theta_steps : int
        Gibbs sweeps over z in each iteration; Metropolis steps per theta in each iteration
        (``algorithm="reference"`` only).
    n_theta : int, optional
        Theta nodes of the adjustment factor's quadrature. Default: the exact rule
        (Gauss-Legendre with about n / 2 nodes) up to n of about 250 training cases, the
        mapped Gauss rule converged to round-off beyond
        (:func:`selbayes.adjustment.lattice_theta_rule`).
    max_predict_draws : int or None, default 1000
        Posterior draws (evenly thinned) used for prediction; None uses all.
    random_state : int, optional
        Seed of the sampler (an int >= 0, or None).
    progressbar : bool, default True
    algorithm : {"slice", "nuts", "reference"}, default "slice"
        The MCMC algorithm. The labels z are always updated by an exact collapsed Gibbs
        sweep. ``"slice"``: ``pm.sample`` with compiled exact slice updates of theta, alpha0
        and alpha. ``"nuts"``: PyMC's NUTS (theta) and slice (alpha, alpha0) for the
        continuous part instead (several times slower). ``"reference"`` runs the hand-written
        compound sampler of :mod:`selbayes.models._mixture` (kept as an independent check of
        the PyMC route).
    sampler : {"auto", "nutpie", "pymc", "numpyro", "blackjax"}, default "auto"
        NUTS implementation, as in the other classifiers. Only PyMC's can share a chain with
        the Gibbs step of the labels, so "auto" is "pymc" here and the others are refused.
        Before ``algorithm`` existed, ``sampler`` named the algorithm: ``"pymc_nuts"`` and
        ``"reference"`` still select it, with a ``FutureWarning``, for one release.
    cores : int, default 1
        Chains sampled at once in separate processes (PyMC routes). More than 1 shortens one
        large fit (about 1.2x at n = 100, k = 10 with 2 cores:
        ``benchmarks/results/mixture_fit.md``); leave it at 1 when many fits run in parallel
        (cross-validation, ``selbayes benchmark --jobs``, SBC).
    prior : MixturePrior or dict, optional
        Deprecated old name of ``priors`` (a ``FutureWarning``); removed in the next release.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` plays the role of y = 1.
    selection_ : Selection
    model_ : pymc.Model
        The model sampled (absent with ``algorithm="reference"``, and after pickling).
    sampler_used_ : str or None
        "pymc" (``pm.sample``), or None with ``algorithm="reference"``.
    idata_ : xarray.DataTree
        Posterior (``alpha``, ``alpha0``, ``n_z1``, ``counts``, ...) with ``attrs`` recording
        the selection, the settings, the version and a model id.
    psi_hat_, phi_hat_ : ndarray
        Predictive draws (thinned): shapes (S,) and (S, 2, k + 1).
    diagnostics_ : pandas.DataFrame
        :func:`selbayes.evaluation.check` of alpha and alpha0.
    loo_checks_ : pandas.DataFrame or None
        The PSIS-LOO Pareto k of each training case (``pareto_k``, ``influential``;
        reported, not warned on) where the posterior stores a log likelihood; None
        otherwise.
    data_min_, data_max_ : None
        Kept for the common interface (the training range of continuous features); binary
        features have none.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (p,)
        Column names of a DataFrame passed to ``fit`` (absent for array input, whose
        features are named ``x0`` ... ``x{p-1}``).
    selected_features_ : ndarray of str, shape (k,)
        Names of the selected features, best first; ``selection_.indices`` holds their
        positions. They are the ``feature`` coordinate of ``idata_`` (and class labels the
        ``class`` coordinate).

    References
    ----------
    .. [1] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto.

    Examples
    --------
    >>> from selbayes.datasets import binary_mixture
    >>> d = binary_mixture(None, 500, class_counts=[60, 60], random_state=0)
    >>> clf = BinaryMixtureClassifier(k=5, draws=100, tune=50, chains=2, random_state=1)
    >>> clf.fit(d.X[:100], d.y[:100]).predict_proba(d.X[100:]).shape      # doctest: +SKIP
    (20, 2)
    """

    def __init__(self, k: int | None = 10, threshold: float | None = None,
                 n_components: int = 2, correct_selection: bool = True,
                 z_update: str = "exact", priors=None, draws: int = 1000, tune: int = 1000,
                 chains: int = 4, thin: int = 1, label_sweeps: int = 1, theta_steps: int = 5,
                 n_theta: int | None = None, max_predict_draws: int | None = 1000,
                 random_state: int | None = None, progressbar: bool = True, prior=None,
                 sampler: str = "auto", cores: int = 1, algorithm: str = "slice"):
        self.k = k
        self.threshold = threshold
        self.n_components = n_components
        self.correct_selection = correct_selection
        self.z_update = z_update
        self.priors = priors
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.thin = thin
        self.label_sweeps = label_sweeps
        self.theta_steps = theta_steps
        self.n_theta = n_theta
        self.max_predict_draws = max_predict_draws
        self.random_state = random_state
        self.progressbar = progressbar
        self.prior = prior
        self.sampler = sampler
        self.cores = cores
        self.algorithm = algorithm

    _parameter_constraints = {
        **SelectionClassifier._parameter_constraints,
        "n_components": [Options(Integral, {2})],
        "z_update": [StrOptions({"exact", "approximate"})],
        # their fields are checked (messages naming the field) by MixturePrior.from_dict
        "priors": priors_constraint(MixturePrior),
        "prior": priors_constraint(MixturePrior),
        "thin": [Interval(Integral, 1, None, closed="left")],
        "label_sweeps": [Interval(Integral, 1, None, closed="left")],
        "theta_steps": [Interval(Integral, 1, None, closed="left")],
        "n_theta": [Interval(Integral, 1, None, closed="left"), None],
        "sampler": SAMPLER_CONSTRAINT,
        "algorithm": [StrOptions(set(_ALGORITHMS))],
        "cores": [Interval(Integral, 1, None, closed="left")],
    }
    # random_state: the shared constraint (an int or None); the seeds this estimator took
    # before (anything check_random_state takes) still work for one release with a warning.
    _deprecated_seed_types = (np.random.Generator, np.random.SeedSequence,
                              np.random.RandomState)
    _statistic = "abs_corr"
    _binary_features = True
    _binary_classes = True
    _diagnostic_vars = ("alpha", "alpha0")
    _internal_groups = ("predictive_draws",)

    # ------------------------------------------------------------------ hooks
    def _prior_object(self):
        from ..models._priors import MixturePrior

        if self.prior is not None:
            if self.priors is not None:
                raise ValueError("give the prior once, as priors= (prior= is its old name)")
            return MixturePrior.from_dict(self.prior)
        return MixturePrior.from_dict(self.priors)

    def _validate_params(self, skip=()) -> None:
        old = self.sampler if isinstance(self.sampler, str) else None
        if old in _OLD_SAMPLER_VALUES:
            new = _OLD_SAMPLER_VALUES[old]
            if self.algorithm not in ("slice", new):
                raise ValueError(f"give the algorithm once, as algorithm= (sampler={old!r} is "
                                 f"its old spelling); got algorithm={self.algorithm!r} too")
            warn_at_user(f"BinaryMixtureClassifier(sampler={old!r}) is renamed "
                         f"algorithm={new!r}: sampler= is the NUTS implementation, as in the "
                         "other classifiers; the old values will be refused in the next "
                         "release", FutureWarning)
            skip = (*skip, "sampler")
        super()._validate_params(skip=skip)
        if old not in _OLD_SAMPLER_VALUES and self.sampler not in _MIXTURE_SAMPLERS:
            raise ValueError(f"BinaryMixtureClassifier samples with PyMC, whose pm.sample alone "
                             f"combines NUTS with the Gibbs step of the latent labels: sampler "
                             f"must be 'auto' or 'pymc'; got {self.sampler!r}")
        if self.prior is not None:
            warn_at_user("BinaryMixtureClassifier(prior=...) is renamed priors=, as in the "
                         "other classifiers; prior= will be removed in the next release",
                         FutureWarning)

    def _algorithm(self) -> str:
        """The algorithm in effect (``algorithm``, or the deprecated spelling in ``sampler``)."""
        return _OLD_SAMPLER_VALUES.get(self.sampler, self.algorithm) \
            if isinstance(self.sampler, str) else self.algorithm

    def _config(self) -> dict:
        params = super()._config()
        params.pop("prior")     # folded into "priors", so old and new spellings share an id
        # how the posterior is sampled, not the model: fits saved before the PyMC route (and
        # before algorithm= existed) keep their id
        for name in ("sampler", "algorithm", "cores"):
            params.pop(name)
        return params

    _prior = _prior_object

    def _fit_selected(self, X_sel, y_index, selection: Selection,
                      transform=None) -> _MixturePosterior:
        """Sample the mixture posterior of the selected features (``pm.sample``, or the
        reference sampler)."""
        from ..models._mixture import sample_mixture

        backend = _ALGORITHMS[self._algorithm()]
        self.sampler_used_ = None if backend == "reference" else "pymc"
        res = sample_mixture(
            X_sel, y_index, n_omitted=selection.n_omitted, threshold=selection.threshold,
            corrected=self.correct_selection, z_update=self.z_update,
            prior=self._prior_object(), draws=self.draws, tune=self.tune, chains=self.chains,
            thin=self.thin, label_sweeps=self.label_sweeps, theta_steps=self.theta_steps,
            n_theta=self.n_theta, random_state=self.random_state, progressbar=self.progressbar,
            backend=backend, cores=self.cores)
        return _MixturePosterior(idata=res.idata, model=res.model, samples=res)

    def _store_predictive(self, posterior: _MixturePosterior) -> None:
        """Thinned predictive draws psi_hat (S,) and phi_hat (S, 2, k + 1)."""
        res = posterior.samples
        psi = res.psi_hat.reshape(-1)
        phi = res.phi_hat.reshape(-1, *res.phi_hat.shape[2:])
        keep = self._thin_index(psi.shape[0])
        self.psi_hat_, self.phi_hat_ = psi[keep], phi[keep]

    def _predict_log_proba_selected(self, X_sel) -> np.ndarray:
        """A ratio of Monte Carlo averages over the posterior draws (Li 2007, eq 2.85)."""
        from ..models._mixture import predict_log_proba

        return predict_log_proba(X_sel, self.psi_hat_, self.phi_hat_)

    def _predictive_state(self) -> dict:
        import xarray as xr

        return {"predictive_draws": xr.Dataset({
            "psi_hat": xr.DataArray(self.psi_hat_, dims=["sample"]),
            "phi_hat": xr.DataArray(self.phi_hat_, dims=["sample", "component", "column"]),
        })}

    def _restore_predictive(self, tree, cd) -> None:
        draws = tree["predictive_draws"].to_dataset()
        self.psi_hat_ = draws["psi_hat"].values
        self.phi_hat_ = draws["phi_hat"].values
