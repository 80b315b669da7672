"""The SBC specs of every model: their schema, the loader and the runner (``selbayes sbc SPEC``).

An SBC spec (``models/sbc/*.toml``) names a model and the settings of its simulator, fitter and
fitting prior; :func:`run_sbc_spec` builds the two from the spec and runs
:func:`selbayes.sbc.run_sbc` (Talts et al. 2018). The per-model simulators and fitters live in
:mod:`~selbayes.sbc._gaussian`, :mod:`~selbayes.sbc._naive_bayes` and :mod:`~selbayes.sbc._mixture`;
this module is above them and is the only one that knows all three (:data:`MODELS`).

Earlier versions defined these names in :mod:`selbayes.sbc._gaussian`, which still re-exports
them.
"""

from __future__ import annotations

from pathlib import Path

from .._spec import OMIT, Field, Spec, dataclass_schema, load
from .._validation import make_folder

__all__ = ["MODELS", "sbc_schema", "load_sbc_spec", "run_sbc_spec"]


def _registry() -> dict:
    # the model modules are imported on first use: a spec run loads only the one it needs
    # their classes from, and importing this module loads none of them
    from ._gaussian import GaussianSBCFitter, GaussianSBCSimulator
    from ._mixture import MixtureSBCFitter, MixtureSBCSimulator
    from ._naive_bayes import NaiveBayesSBCFitter, NaiveBayesSBCSimulator

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
    "n_replicates": Field("int", "number of replicates (at least 2: one rank each)", minimum=2),
    "seed": Field("int", "root seed (replicate i uses its i-th spawned child)", default=0,
                  minimum=0),
    "thin_to": Field("int", "posterior draws kept per replicate (default: thin by ESS)",
                     default=None, minimum=1),
    # Kept in the spec, not added to the README by hand: ``--update-report`` rewrites the
    # README, and a paragraph written there would be lost at the next rerun.
    "note": Field("str", "a paragraph for the report's README (this run's sampler, history)",
                  default=None),
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

    Raises
    ------
    ValueError
        If ``model`` is not one of the three.

    Examples
    --------
    >>> from selbayes.sbc import sbc_schema
    >>> sorted(sbc_schema("naive_bayes")["design"])
    ['n', 'p']
    >>> sbc_schema("gaussian")["sbc"]["n_replicates"].kind
    'int'
    """
    from ..models._priors import GaussianPriors, MixturePrior, NaiveBayesPrior

    registry = _registry()
    if model not in registry:
        raise ValueError(f"model must be one of {sorted(registry)}; got {model!r}")
    sim_cls, fit_cls = registry[model]
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

    Sections: ``[sbc]`` (``model``, ``n_replicates``, optional ``seed``, ``thin_to`` and
    ``note``, a paragraph for the report's README),
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
    >>> from selbayes.sbc import load_sbc_spec
    >>> path = Path(selbayes.__file__).parents[2] / "models" / "sbc" / "sbc_gaussian_small.toml"
    >>> spec = load_sbc_spec(path)
    >>> spec.name, spec.model, spec["sbc"]["n_replicates"], spec["fit"]["draws"]
    ('sbc_gaussian_small', 'gaussian', 200, 500)
    >>> quick = load_sbc_spec(path, quick=True)
    >>> quick["sbc"]["n_replicates"], quick["fit"]["draws"], quick["fit"]["k"]
    (4, 100, 5)
    """
    if quick:       # the full spec first: a typo that [quick] replaces fails the quick run too
        load_sbc_spec(path, quick=False)
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
    >>> from selbayes.sbc import load_sbc_spec, run_sbc_spec
    >>> path = Path(selbayes.__file__).parents[2] / "models" / "sbc" / "sbc_mixture_small.toml"
    >>> result = run_sbc_spec(path, out="sbc_mixture", quick=True)    # doctest: +SKIP
    >>> result.ranks.shape                                            # doctest: +SKIP
    (4, 2)
    >>> spec = load_sbc_spec(path, quick=True)          # what that run would do
    >>> spec["sbc"]["n_replicates"], spec["design"], spec["fit"]
    (4, {'n': 30, 'p': 100}, {'k': 3, 'draws': 100, 'tune': 50, 'chains': 2})
    """
    from ._core import run_sbc

    spec = load_sbc_spec(spec_path, quick=quick)
    sim_cls, fit_cls = _registry()[spec.model]
    priors = spec["priors"]
    simulator = _with_priors(sim_cls, spec["design"], priors)
    fitter = _with_priors(fit_cls, spec["fit"], priors)
    # A given ``out`` is used as is; only the default folder tells quick runs apart.
    out = make_folder(out if out is not None else Path("reports") / (
        spec.name + ("_quick" if quick else "")), "out")
    result = run_sbc(simulator, fitter, int(spec["sbc"]["n_replicates"]),
                     list(fitter.params),
                     random_state=spec["sbc"]["seed"], n_jobs=n_jobs,
                     scheduler=scheduler, out_dir=out / "replicates",
                     thin_to=spec["sbc"]["thin_to"], progressbar=progressbar)
    result.save(out)
    _write_readme(out, spec_path, spec, result, quick=quick)
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
    "mixture": (
        "Sampler: `BinaryMixtureClassifier`'s default, `pm.sample` with two compiled exact "
        "step methods, CollapsedZGibbs (the labels z) and ConditionalSlice (theta, alpha0 and "
        "alpha by slice updates from their conditionals). The sharper check of the sampler is "
        "the comparison with the exact posterior of an n = 8 problem "
        "(`tests/models/test_mixture_pymc.py`, `tests/estimators/test_mixture.py`)."),
}


# The same for a prior setting, when the spec sets it: (model, setting) -> note.
_PRIOR_NOTES = {
    ("naive_bayes", "pi0_a"): (
        "Two-groups prior: the simulator draws pi0 ~ Beta(pi0_a, pi0_b), then for each of the "
        "p features whether it is null (both classes' phi equal theta ~ U(0, 1)); the factor "
        "is (p - k) log[pi0 P(|COR| <= gamma | null) + (1 - pi0) P(|COR| <= gamma | alpha)], "
        "the posterior a grid over (alpha, pi0), and the ranks of pi0 are checked as well as "
        "those of alpha."),
    ("gaussian", "mu_t_df"): (
        "The class means have the t prior (BCBCSF, Li 2012): the simulator draws a scale "
        "lambda_j ~ Gamma(df/2, rate df/2) for every feature, and the factor averages over it."),
    ("gaussian", "mu_t_df_grid"): (
        "The t prior with its df unknown: the simulator draws df uniformly from the grid, "
        "then lambda_j ~ Gamma(df/2, rate df/2) for every feature; the model sums df out "
        "with the selection factor of each df inside the sum."),
    ("gaussian", "pi0_a"): (
        "Two-groups prior (Efron 2008): the simulator draws pi0 ~ Beta(pi0_a, pi0_b), then for "
        "each of the p features whether it is null (equal class means) before selecting the "
        "top k by F; the factor is (p - k) log[pi0 Fcdf(gamma) + (1 - pi0) P(F <= gamma | "
        "tau_mu w_x)], and the ranks of pi0 are checked as well as those of tau_mu."),
}


def _write_readme(out: Path, spec_path, spec, result, quick: bool = False) -> None:
    from .._version import __version__

    if not quick and out.name == spec.name and out.parent.name == "reports":
        rerun = (f"`selbayes sbc {spec_path} --update-report` (`make sbc` for the specs it "
                 "lists)")
    else:   # a quick run or another folder: the command that resumes this one
        rerun = f"`selbayes sbc {spec_path}{' --quick' if quick else ''} --out {out}`"
    lines = [
        f"# SBC: {spec.name}",
        "",
        f"Re-run: {rerun}; it resumes from `replicates/`.",
        f"selbayes {__version__}; settings: design {spec['design']}, fit {spec['fit']}, "
        f"priors {spec['priors']}, replicates {spec['sbc']['n_replicates']}, "
        f"seed {spec['sbc']['seed']}, thin_to {spec['sbc']['thin_to']}.",
        "",
        f"Rank of the true value ({', '.join(result.ranks.columns)}) among thinned posterior "
        "draws; corrected and uncorrected posteriors are fitted to the same simulated data. "
        "Uniform ranks (p > 0.01) mean calibrated."
        + (" " + _README_NOTES[spec.model] if spec.model in _README_NOTES else "")
        + "".join(" " + note for (model, key), note in _PRIOR_NOTES.items()
                  if model == spec.model and (spec["priors"] or {}).get(key) is not None),
        "",
        *([spec["sbc"]["note"], ""] if spec["sbc"].get("note") else []),
        (out / "sbc_summary.md").read_text() if (out / "sbc_summary.md").exists() else "",
        "",
        "![ranks](sbc_ranks.png)",
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
