"""Reproduce a paper experiment from its declarative spec (``selbayes reproduce SPEC``).

A reproduction is data, not a script: ``models/experiments/<name>.toml`` holds the data-generating
settings, the fits to run, the priors, the sampler settings, the seeds and the paper's reported
numbers (schema: ``models/README.md``). One runner executes any spec:

1. :func:`load_spec` reads and validates the TOML (errors name the bad key), applying the
   ``[quick]`` overrides with ``quick=True``;
2. the experiment type named by ``[experiment] model`` plans the independent fits;
3. the fits run in parallel (joblib processes, or a dask.distributed cluster), each persisted
   under ``OUT/fits/`` as it finishes, so a rerun resumes and never mixes settings;
4. the experiment type writes ``OUT/report.md``, ``OUT/results.json`` and the figures.

Experiment types
----------------
An experiment type is a module registered with :func:`register_experiment` that provides

``SCHEMA``
    ``{section: {key: Field}}`` added to the shared sections (:data:`COMMON_SCHEMA`);
``check_spec(spec)``
    cross-key checks, raising ``ValueError`` naming the key;
``plan(spec) -> list[Task]``
    the independent fits;
``fit_settings(spec) -> dict``
    everything that changes a fit's result (hashed: changed settings are never mixed);
``fit_one(settings, task) -> TaskResult``
    one fit, module-level so that it pickles (runs in worker processes);
``report(spec, fits, out_dir, run_info) -> dict``
    evaluation, figures, ``report.md`` and ``results.json``; returns the results.

"gaussian" (Li 2009, :mod:`selbayes.experiments._gaussian`) is built in; the naive Bayes and
mixture models and real-data designs plug in the same way. The built-in experiment types are
private modules (``selbayes.experiments._gaussian``, ...); the names below are the public API.
The modules ``selbayes.experiments.plasmode`` and ``selbayes.experiments.correlated_omitted``
are scripts (``python -m selbayes.experiments.plasmode``) and keep their public paths.

Examples
--------
>>> from selbayes.experiments import run_reproduction
>>> spec = "models/experiments/li2009_gaussian_simulation.toml"
>>> res = run_reproduction(spec, quick=True)  # selbayes_runs/<name>_quick  # doctest: +SKIP
>>> res.results["acceptance_passed"]                                               # doctest: +SKIP
"""

from __future__ import annotations

import functools
import importlib
import time
from dataclasses import dataclass
from pathlib import Path

from .._compat import package_attributes as _package_attributes
from .._parallel import (
    RUNS_FOLDER,
    Task,
    TaskResult,
    TaskStore,
    check_n_jobs,
    check_scheduler,
    run_tasks,
)
from .._spec import load
from .._validation import make_folder
from ._spec import (
    COMMON_SCHEMA,
    Field,
    Spec,
    SpecError,
    merge_schema,
)

__all__ = ["run_reproduction", "load_spec", "register_experiment", "experiment_types",
           "ReproductionResult", "Spec", "Field", "Task", "TaskResult", "SpecError",
           "COMMON_SCHEMA"]

_EXPERIMENTS: dict[str, tuple[str, str]] = {}


def register_experiment(model: str, module: str, description: str = "") -> None:
    """Make ``[experiment] model = "<model>"`` run with the experiment-type module ``module``.

    The module is imported only when a spec uses it. Registering an existing ``model`` again
    replaces its module.

    Parameters
    ----------
    model : str
        The name specs use in ``[experiment] model``.
    module : str
        Dotted import path of the experiment-type module (providing ``SCHEMA``,
        ``check_spec``, ``plan``, ``fit_settings``, ``fit_one`` and ``report``; see the
        module docstring).
    description : str
        One line shown by :func:`experiment_types`.

    Raises
    ------
    ValueError
        If ``model`` is not a non-empty string.

    Examples
    --------
    >>> from selbayes.experiments import register_experiment
    >>> register_experiment("my_model", "mypackage.my_experiment", "my design")  # doctest: +SKIP
    >>> register_experiment("", "mypackage.my_experiment")
    Traceback (most recent call last):
    ...
    ValueError: model must be a non-empty string; got ''
    """
    if not isinstance(model, str) or not model:
        raise ValueError(f"model must be a non-empty string; got {model!r}")
    _EXPERIMENTS[model] = (module, description)


def experiment_types() -> dict[str, str]:
    """The registered experiment types.

    Returns
    -------
    dict of str to str
        ``{model: description}``, in registration order; ``model`` is the value specs give in
        ``[experiment] model``.

    Examples
    --------
    >>> from selbayes.experiments import experiment_types
    >>> sorted(experiment_types())
    ['gaussian', 'gaussian_cv', 'mixture', 'naive_bayes', 'naive_bayes_cv']
    >>> experiment_types()["gaussian"]
    'hierarchical Gaussian classifier with F selection (Li 2009)'
    """
    return {m: d for m, (_, d) in _EXPERIMENTS.items()}


register_experiment("gaussian", "selbayes.experiments._gaussian",
                    "hierarchical Gaussian classifier with F selection (Li 2009)")
register_experiment("mixture", "selbayes.experiments._mixture", "binary mixture (Li 2007, 2.4)")
register_experiment("gaussian_cv", "selbayes.experiments._gaussian_cv",
                    "CV on real data (Li 2009, 4.2)")
register_experiment("naive_bayes", "selbayes.experiments._naive_bayes",
                    "binary naive Bayes with correlation selection (Li 2007, section 2.3.5)")
register_experiment("naive_bayes_cv", "selbayes.experiments._naive_bayes_cv",
                    "colon CV (Li 2007, 2.3.6)")


def _experiment_module(model, path):
    if model not in _EXPERIMENTS:
        raise SpecError(f"{path}: [experiment] model = {model!r} is not a known experiment type; "
                        f"known: {sorted(_EXPERIMENTS)}")
    return importlib.import_module(_EXPERIMENTS[model][0])


def load_spec(path, quick: bool = False) -> Spec:
    """Read and validate a reproduction spec.

    Parameters
    ----------
    path : str or Path
        The TOML file.
    quick : bool
        Apply the spec's ``[quick]`` overrides (the shrunken design, for tests).

    Returns
    -------
    Spec
        The validated sections (defaults filled in), indexable as ``spec[section][key]``,
        with ``spec.name``, ``spec.model`` and ``spec.quick``.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    SpecError
        A ``ValueError``: when the file is not TOML, lacks ``[experiment] model``, names an
        unregistered model, or a key is missing, unknown or of the wrong type; the message
        names the file, the section and the key.

    Examples
    --------
    The specs ship in the repository's ``models/experiments/`` folder:

    >>> from pathlib import Path
    >>> import selbayes
    >>> from selbayes.experiments import load_spec
    >>> specs = Path(selbayes.__file__).parents[2] / "models" / "experiments"
    >>> path = specs / "li2009_gaussian_simulation.toml"
    >>> spec = load_spec(path)
    >>> spec.name, spec.model, spec["data"]["p"], spec["selection"]["k"]
    ('li2009_gaussian_simulation', 'gaussian', 4000, [10, 50, 200, 1000])
    >>> quick = load_spec(path, quick=True)             # the [quick] overrides applied
    >>> quick.quick, quick["data"]["p"], quick["selection"]["k"]
    (True, 300, [5, 20])
    """
    if quick:
        # the full spec first: a typo in a value [quick] replaces, a missing key or a check
        # across sections passed the quick run ("verdict: PASS") and failed only the full one
        load_spec(path, quick=False)
    spec = load(path, quick, header="experiment", models=_EXPERIMENTS, what="experiment type",
                schema_for=lambda model: merge_schema(
                    COMMON_SCHEMA, _experiment_module(model, path).SCHEMA))
    _experiment_module(spec.model, path).check_spec(spec)
    return spec


@dataclass
class ReproductionResult:
    """Where a reproduction wrote its output, and its machine-readable results.

    Returned by :func:`run_reproduction`.

    Attributes
    ----------
    out_dir : pathlib.Path
        The output folder (fits under ``out_dir / "fits"``, figures beside the report).
    report_path : pathlib.Path
        ``out_dir / "report.md"``, the human-readable report.
    results_path : pathlib.Path
        ``out_dir / "results.json"``, the machine-readable results.
    results : dict
        The results as written to ``results.json`` (contents depend on the experiment type,
        e.g. ``results["acceptance_passed"]``).

    Examples
    --------
    >>> from pathlib import Path
    >>> from selbayes.experiments import ReproductionResult
    >>> out = Path("reports") / "li2009_gaussian_simulation"
    >>> res = ReproductionResult(out, out / "report.md", out / "results.json", {})
    >>> res.report_path.as_posix()
    'reports/li2009_gaussian_simulation/report.md'
    """

    out_dir: Path
    report_path: Path
    results_path: Path
    results: dict


# RUNS_FOLDER (imported above): where reproductions write unless told otherwise, never the
# committed ``reports/`` (only ``update_report=True`` / ``--update-report`` writes there).


def committed_reports(spec_path) -> Path:
    """The committed ``reports/`` folder of the project a spec belongs to: beside the
    ``models/`` folder that holds ``models/<kind>/<name>.toml``, wherever the command runs.

    Raises
    ------
    ValueError
        If the spec is not in ``models/<kind>/`` of a checkout that has a ``reports/`` folder
        (a copied spec has no committed report to update: give an output folder instead).

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "models" / "experiments").mkdir(parents=True); (root / "reports").mkdir()
    >>> committed_reports(root / "models" / "experiments" / "x.toml") == root / "reports"
    True
    """
    spec_path = Path(spec_path).resolve()
    root = spec_path.parent.parent.parent
    if spec_path.parent.parent.name != "models" or not (root / "reports").is_dir():
        raise ValueError(f"--update-report writes into the committed reports/ of the project "
                         f"the spec belongs to, but {spec_path} is not in models/<kind>/ of a "
                         f"checkout with a reports/ folder; give --out (an output folder) "
                         f"instead")
    return root / "reports"


def default_out(spec: Spec, update_report: bool = False) -> Path:
    """The default output folder of a spec.

    Parameters
    ----------
    spec : Spec
        A loaded spec (:func:`load_spec`).
    update_report : bool, default False
        True: the committed report's folder, ``reports/<name>`` of the project the spec
        belongs to (:func:`committed_reports`; the regeneration of the project's reports,
        ``make reproduce``), from any working directory. False: ``selbayes_runs/<name>`` of
        the working directory, so that a user's rerun never rewrites a committed file.

    Returns
    -------
    pathlib.Path
        ``<project>/reports/<name>`` or ``selbayes_runs/<name>``, with ``_quick`` appended for
        a quick run so that it never meets the fits of a full run.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> spec = SimpleNamespace(name="li2009", quick=True)
    >>> default_out(spec).as_posix()
    'selbayes_runs/li2009_quick'
    """
    base = committed_reports(spec.path) if update_report else Path(RUNS_FOLDER)
    return base / (spec.name + ("_quick" if spec.quick else ""))


def resume_message(folder: Path, n_found: int, n_total: int, what: str = "fits") -> str | None:
    """``"resuming: N of M fits found in DIR"``, or None when nothing was found.

    Parameters
    ----------
    folder : pathlib.Path
    n_found, n_total : int
    what : str, default "fits"

    Returns
    -------
    str or None

    Examples
    --------
    >>> resume_message(Path("out"), 3, 10)
    'resuming: 3 of 10 fits found in out'
    """
    if n_found <= 0:
        return None
    return f"resuming: {n_found} of {n_total} {what} found in {folder}"


def run_reproduction(spec_path, out=None, quick: bool = False, n_jobs: int = 1,
                     scheduler=None, progressbar: bool = True,
                     update_report: bool = False) -> ReproductionResult:
    """Run every fit of a spec (resuming finished ones) and write the report.

    Parameters
    ----------
    spec_path : str or Path
        TOML spec, e.g. ``models/experiments/li2009_gaussian_simulation.toml``.
    out : str or Path, optional
        Output folder; default ``selbayes_runs/<experiment name>`` (``..._quick`` with
        ``quick``; see :func:`default_out`). A folder that holds fits of the same settings is
        resumed, and the run prints ``resuming: N of M fits found in DIR``.
    quick : bool
        Use the spec's shrunken ``[quick]`` design.
    n_jobs : int
        Local worker processes (joblib); 1 runs in this process.
    scheduler : str, optional
        Address of a dask.distributed scheduler (needs ``selbayes[distributed]``); overrides
        ``n_jobs``.
    progressbar : bool
        Show a progress bar over the fits.
    update_report : bool, default False
        Write into the committed report's folder, ``reports/<experiment name>`` (resuming
        from the fits stored there), rewriting its ``report.md``. Not with ``out``.

    Returns
    -------
    ReproductionResult
        Paths of the output folder, ``report.md`` and ``results.json``, and the results.

    Raises
    ------
    ValueError
        If ``n_jobs`` is not a positive integer or -1, or both ``out`` and ``update_report``
        are given; :class:`SpecError` (a ``ValueError``) if the spec is malformed (see
        :func:`load_spec`).
    TypeError
        If ``scheduler`` is neither an address string nor a ``dask.distributed.Client``.
    FileNotFoundError
        If ``spec_path`` does not exist.

    Examples
    --------
    A run samples many MCMC fits (``quick=True`` runs the spec's shrunken design). Rerunning
    resumes: finished fits under ``out/fits/`` are loaded, not refitted.

    >>> from pathlib import Path
    >>> import selbayes
    >>> from selbayes.experiments import run_reproduction
    >>> models = Path(selbayes.__file__).parents[2] / "models" / "experiments"  # the specs
    >>> spec_path = models / "li2009_gaussian_simulation.toml"
    >>> res = run_reproduction(spec_path, out="rep", quick=True, n_jobs=2)  # doctest: +SKIP
    >>> res.report_path.name                                                # doctest: +SKIP
    'report.md'
    >>> run_reproduction(spec_path, n_jobs=0)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs must be a positive integer (or -1 for all cores); got 0
    """
    start = time.perf_counter()
    n_jobs = check_n_jobs(n_jobs)
    check_scheduler(scheduler)
    spec = load_spec(spec_path, quick=quick)
    module = _experiment_module(spec.model, spec.path)
    if out is not None and update_report:
        raise ValueError("give either out or update_report=True (which writes into "
                         f"{default_out(spec, update_report=True)}), not both")
    out_dir = Path(out) if out is not None else default_out(spec, update_report)
    make_folder(out_dir, "out")
    settings = module.fit_settings(spec)
    tasks = module.plan(spec)
    store = TaskStore(out_dir / "fits", settings, what="reproduction")
    # Said before the run, so that a rerun over stored fits is never mistaken for a new run.
    message = resume_message(out_dir / "fits", sum(
        (out_dir / "fits" / f"{t.id}.json").is_file() for t in tasks), len(tasks))
    if message:
        print(message)
    # looked up now, not at import, so that tests can substitute the fit function
    fits, info = run_tasks(functools.partial(module.fit_one, store.settings), tasks, store,
                           n_jobs=n_jobs, scheduler=scheduler, progressbar=progressbar,
                           desc=spec.name, unit="fit")
    info["perf_start"] = start
    results = module.report(spec, fits, out_dir, info)
    return ReproductionResult(out_dir, out_dir / "report.md", out_dir / "results.json", results)


# the old module paths (selbayes.experiments.<module>)
# for one release, with a FutureWarning
__getattr__, __dir__ = _package_attributes(__name__)
