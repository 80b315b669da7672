"""Simulation-based calibration of the selbayes models: simulators, fitters and the spec runner.

A replicate draws every hyperparameter from the *fitting* prior, simulates all p features,
selects k of them, fits the model with and without the selection correction, and records the
rank of the true hyperparameter among the posterior draws. If the adjustment factor is right
the corrected ranks are uniform; the uncorrected ones are not (Talts et al. 2018; Li 2007,
Appendix 1: Bayesian predictions are calibrated on average over the prior).

The simulators and fitters are small picklable classes so that :func:`selbayes.sbc.run_sbc`
can ship them to joblib processes or dask workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._spec import OMIT, Field, Spec, dataclass_schema, load

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
    rate df/2); with the two-groups prior (``pi0_a``, ``pi0_b``) the null share pi0 ~
    Beta(pi0_a, pi0_b) is drawn, then an indicator for every one of the p features (null:
    mu_jg = nu_j in every class), and ``truth`` also holds pi0 (``pi0_corrected``,
    ``pi0_uncorrected``). A hyperprior on w_x (``w_x_alpha``) is drawn from too. The paper's
    normal prior keeps its original draws (:func:`selbayes.datasets.simulate.
    gaussian_classification`), so its SBC replicates are unchanged.

    Attributes
    ----------
    n : int
        Cases per replicate.
    p : int
        Features per replicate (all of them are screened by the fitter's selection).
    n_classes : int
        G, the number of classes.
    priors : dict
        Fitting-prior settings for :meth:`selbayes.models.priors.GaussianPriors.from_dict`
        (``c``, ``alpha_x``, ``w_x``, ``alpha_mu``, ``w_mu``, ``alpha_nu``, ``w_nu``); empty
        for the paper's defaults.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.sbc.gaussian import GaussianSBCSimulator
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

    def __call__(self, rng):
        from ..datasets.simulate import gaussian_classification
        from ..models.priors import GaussianPriors

        pr = GaussianPriors.from_dict(self.priors)
        G = self.n_classes
        counts = np.full(G, self.n // G)
        counts[: self.n - counts.sum()] += 1
        if pr.two_groups or pr.mu_t_df is not None or pr.w_x_alpha is not None:
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
        lam = (np.ones(p) if pr.mu_t_df is None
               else rng.gamma(pr.mu_t_df / 2, 2 / pr.mu_t_df, size=p))
        truth = {"tau_mu_corrected": tau_mu, "tau_mu_uncorrected": tau_mu}
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
    statistic, samples :class:`~selbayes.estimators.gaussian.HierarchicalGaussianClassifier`
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
    draws, tune, chains : int
        NUTS draws and tuning steps per chain, and the number of chains.
    sampler : str
        Sampler of the classifier (``"auto"``: nutpie when installed).
    params : tuple of str
        The names of the returned posteriors (a property: pi0 joins tau_mu with the
        two-groups prior).

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.sbc.gaussian import GaussianSBCFitter, GaussianSBCSimulator
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
    draws: int = 1000
    tune: int = 1000
    chains: int = 2
    sampler: str = "auto"

    @property
    def params(self) -> tuple:
        from ..models.priors import GaussianPriors

        names = ("tau_mu_corrected", "tau_mu_uncorrected")
        if GaussianPriors.from_dict(dict(self.priors)).two_groups:
            names += ("pi0_corrected", "pi0_uncorrected")
        return names

    def __call__(self, data, seed):
        import warnings

        from ..estimators.gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
        from ..models.priors import effect_prior_of

        X, y = data
        out = {}
        for corrected in (True, False):
            clf = HierarchicalGaussianClassifier(
                k=self.k, correct_selection=corrected, priors=dict(self.priors) or None,
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


def _registry() -> dict:
    from .mixture import MixtureSBCFitter, MixtureSBCSimulator
    from .naive_bayes import NaiveBayesSBCFitter, NaiveBayesSBCSimulator

    return {"gaussian": (GaussianSBCSimulator, GaussianSBCFitter),
            "naive_bayes": (NaiveBayesSBCSimulator, NaiveBayesSBCFitter),
            "mixture": (MixtureSBCSimulator, MixtureSBCFitter)}


MODELS = ("gaussian", "naive_bayes", "mixture")


def _with_priors(cls, settings: dict, priors: dict):
    """Instantiate a simulator/fitter, passing the spec's [priors] under the name it takes."""
    from dataclasses import fields

    names = {f.name for f in fields(cls)}
    key = "priors" if "priors" in names else "prior"
    return cls(**settings, **{key: priors})


_SBC_SECTION = {
    "model": Field("str", "the model calibrated (checked first: it decides the other keys)"),
    "n_replicates": Field("int", "number of replicates", minimum=1),
    "seed": Field("int", "root seed (replicate i uses its i-th spawned child)", default=0,
                  minimum=0),
    "thin_to": Field("int", "posterior draws kept per replicate (default: thin by ESS)",
                     default=None, minimum=1),
}


def sbc_schema(model: str) -> dict:
    """The schema of an SBC spec of ``model`` (see :mod:`selbayes._spec`).

    ``[sbc]`` is shared; the keys of ``[design]``, ``[fit]`` and ``[priors]`` are the fields
    of the model's simulator, fitter and prior classes, with their types (their defaults apply
    to keys left out).

    Parameters
    ----------
    model : {"gaussian", "naive_bayes", "mixture"}

    Returns
    -------
    dict
        ``{section: {key: selbayes._spec.Field}}``.

    Examples
    --------
    >>> from selbayes.sbc.gaussian import sbc_schema
    >>> sorted(sbc_schema("naive_bayes")["design"])
    ['n', 'p']
    >>> sbc_schema("gaussian")["sbc"]["n_replicates"].kind
    'int'
    """
    from ..models.priors import GaussianPriors, MixturePrior, NaiveBayesPrior

    sim_cls, fit_cls = _registry()[model]
    prior_cls = {"gaussian": GaussianPriors, "naive_bayes": NaiveBayesPrior,
                 "mixture": MixturePrior}[model]
    priors = dataclass_schema(prior_cls, doc="fitting prior")
    priors.update({alias: Field("float", f"fitting prior (= {name})", default=OMIT)
                   for alias, name in prior_cls._aliases.items()})
    return {"sbc": _SBC_SECTION,
            "design": dataclass_schema(sim_cls, exclude=("priors", "prior")),
            "fit": dataclass_schema(fit_cls, exclude=("priors", "prior")),
            "priors": priors}


def load_sbc_spec(path, quick: bool = False) -> Spec:
    """Read and validate an SBC spec (TOML) such as ``models/sbc/sbc_gaussian_small.toml``.

    Sections: ``[sbc]`` (``model``, ``n_replicates``, optional ``seed`` and ``thin_to``),
    ``[design]`` (simulator settings), ``[fit]`` (fitter settings), optional ``[priors]``
    (shared by both) and optional ``[quick]`` (per-section overrides and a free-text
    ``note``). The keys of ``[design]``, ``[fit]`` and ``[priors]`` are those of the model's
    simulator, fitter and prior (see :func:`sbc_schema`); left-out keys take their defaults.
    Validation is the reproduction specs' (:mod:`selbayes._spec`).

    Parameters
    ----------
    path : str or Path
        The TOML file.
    quick : bool
        Merge the ``[quick.<section>]`` overrides over their sections (the shrunken design).

    Returns
    -------
    selbayes._spec.Spec
        ``spec["sbc"]``, ``spec["design"]``, ... and ``spec.name`` (the file name without
        ``.toml``), ``spec.model``.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    SpecError
        A ``ValueError`` naming the file, section and key: not valid TOML, a missing section
        (``[sbc]``, ``[design]``, ``[fit]``) or required key, an unknown section or key, a
        value of the wrong type or range (``[sbc] model`` one of ``"gaussian"``,
        ``"naive_bayes"``, ``"mixture"``; ``n_replicates`` an integer >= 1).

    Examples
    --------
    >>> from pathlib import Path
    >>> import selbayes
    >>> from selbayes.sbc.gaussian import load_sbc_spec
    >>> path = Path(selbayes.__file__).parents[2] / "models" / "sbc" / "sbc_gaussian_small.toml"
    >>> spec = load_sbc_spec(path)
    >>> spec.name, spec.model, spec["sbc"]["n_replicates"], spec["fit"]["draws"]
    ('sbc_gaussian_small', 'gaussian', 200, 500)
    >>> quick = load_sbc_spec(path, quick=True)
    >>> quick["sbc"]["n_replicates"], quick["fit"]["draws"], quick["fit"]["k"]
    (4, 100, 5)
    """
    return load(path, quick, header="sbc", models=MODELS, schema_for=sbc_schema,
                what="SBC model", no_quick=(), required_sections=("sbc", "design", "fit"))


def run_sbc_spec(spec_path, out=None, quick: bool = False, n_jobs: int = 1, scheduler=None,
                 progressbar: bool = True):
    """Run the SBC described by a spec; results (and resume state) go to ``out``.

    Builds the model's simulator and fitter from ``[design]``, ``[fit]`` and ``[priors]``,
    runs :func:`selbayes.sbc.run_sbc` (each replicate is saved under ``out/replicates/`` as
    it finishes, so a rerun resumes), saves the result and rank plot to ``out``, writes
    ``out/README.md`` and prints the summary table.

    Parameters
    ----------
    spec_path : str or Path
        SBC spec, e.g. ``models/sbc/sbc_gaussian_small.toml`` (see :func:`load_sbc_spec`).
    out : str or Path, optional
        Output folder, used as given; default ``reports/<spec name>``, or
        ``reports/<spec name>_quick`` with ``quick``, so quick and full runs never share
        replicates.
    quick : bool
        Use the spec's ``[quick]`` overrides (a smoke run).
    n_jobs : int
        Local worker processes (joblib); 1 runs in this process.
    scheduler : str, optional
        Address of a dask.distributed scheduler (e.g. ``"tcp://host:8786"``) to run the
        replicates on, instead of ``n_jobs``.
    progressbar : bool
        Show a progress bar over the replicates.

    Returns
    -------
    selbayes.sbc.SBCResult
        Ranks of the true values among the thinned posterior draws, per replicate and
        parameter (e.g. ``tau_mu_corrected`` and ``tau_mu_uncorrected``).

    Raises
    ------
    FileNotFoundError, ValueError
        If the spec file is missing or malformed (see :func:`load_sbc_spec`), or
        :func:`~selbayes.sbc.run_sbc` rejects the settings.
    TypeError
        If ``[design]`` or ``[fit]`` holds a key the model's simulator or fitter does not take,
        or ``scheduler`` is not a string.

    Examples
    --------
    Every replicate samples two posteriors with NUTS, so even the quick run takes minutes:

    >>> from pathlib import Path
    >>> import selbayes
    >>> from selbayes.sbc.gaussian import load_sbc_spec, run_sbc_spec
    >>> path = Path(selbayes.__file__).parents[2] / "models" / "sbc" / "sbc_mixture_small.toml"
    >>> result = run_sbc_spec(path, out="sbc_mixture", quick=True)    # doctest: +SKIP
    >>> result.ranks.shape                                            # doctest: +SKIP
    (4, 2)
    >>> spec = load_sbc_spec(path, quick=True)          # what that run would do
    >>> spec["sbc"]["n_replicates"], spec["design"], spec["fit"]
    (4, {'n': 30, 'p': 100}, {'k': 3, 'draws': 100, 'tune': 50, 'chains': 2})
    """
    from .core import run_sbc

    spec = load_sbc_spec(spec_path, quick=quick)
    sim_cls, fit_cls = _registry()[spec.model]
    priors = spec["priors"]
    simulator = _with_priors(sim_cls, spec["design"], priors)
    fitter = _with_priors(fit_cls, spec["fit"], priors)
    # A given ``out`` is used as is; only the default folder tells quick runs apart.
    out = Path(out) if out is not None else Path("reports") / (
        spec.name + ("_quick" if quick else ""))
    result = run_sbc(simulator, fitter, int(spec["sbc"]["n_replicates"]),
                     list(fitter.params),
                     random_state=spec["sbc"]["seed"], n_jobs=n_jobs,
                     scheduler=scheduler, out_dir=out / "replicates",
                     thin_to=spec["sbc"]["thin_to"], progressbar=progressbar)
    result.save(out)
    _write_readme(out, spec_path, spec, result)
    print(result.summary().to_string())
    return result


# What a reader of the README needs to know about a model's SBC beyond the generic sentence.
_README_NOTES = {
    "naive_bayes": (
        "Features are selected by |COR| > threshold (threshold selection: the corrected "
        "posterior is then exactly calibrated; fixed-k selection leaves ties at gamma whose "
        "information the correction ignores). The uncorrected posterior should fail with a "
        "mean fractional rank above 0.5: it sits too low, i.e. it believes the features are "
        "more relevant than they are."),
}


# The same for a prior setting of the Gaussian model, when the spec sets it.
_PRIOR_NOTES = {
    "mu_t_df": (
        "The class means have the t prior (BCBCSF, Li 2012): the simulator draws a scale "
        "lambda_j ~ Gamma(df/2, rate df/2) for every feature, and the factor averages over it."),
    "pi0_a": (
        "Two-groups prior (Efron 2008): the simulator draws pi0 ~ Beta(pi0_a, pi0_b), then for "
        "each of the p features whether it is null (equal class means) before selecting the "
        "top k by F; the factor is (p - k) log[pi0 Fcdf(gamma) + (1 - pi0) P(F <= gamma | "
        "tau_mu w_x)], and the ranks of pi0 are checked as well as those of tau_mu."),
}


def _write_readme(out: Path, spec_path, spec, result) -> None:
    from .._version import __version__

    lines = [
        f"# SBC: {spec.name}",
        "",
        f"Re-run: `selbayes sbc {spec_path} --update-report` (`make sbc` for the specs it "
        "lists); it resumes from `replicates/`.",
        f"selbayes {__version__}; settings: design {spec['design']}, fit {spec['fit']}, "
        f"priors {spec['priors']}, replicates {spec['sbc']['n_replicates']}, "
        f"seed {spec['sbc']['seed']}, thin_to {spec['sbc']['thin_to']}.",
        "",
        f"Rank of the true value ({', '.join(result.ranks.columns)}) among thinned posterior "
        "draws; corrected and uncorrected posteriors are fitted to the same simulated data. "
        "Uniform ranks (p > 0.01) mean calibrated."
        + (" " + _README_NOTES[spec.model] if spec.model in _README_NOTES else "")
        + "".join(" " + note for key, note in _PRIOR_NOTES.items()
                  if (spec["priors"] or {}).get(key) is not None),
        "",
        (out / "sbc_summary.md").read_text() if (out / "sbc_summary.md").exists() else "",
        "",
        "![ranks](sbc_ranks.png)",
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
