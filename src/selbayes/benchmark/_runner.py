"""Repeated stratified K-fold benchmark of selbayes configurations against scikit-learn peers.

Every data set is split once per repeat (the same folds for every method); each method is
fitted on the training fold from scratch, with its preprocessing (floor and log2, when the set
needs it), feature selection and tuning inside ``fit``, and scored on the test fold. Each
(data set, method, repeat, fold) is written to its own JSON file as soon as it finishes
(atomically), so an interrupted run resumes where it stopped; a stored fold whose settings
differ (other data, folds or method settings) is refitted.

References
----------
Li Y. (2009), Li 2009, section 3.4: AMLP and the expected-vs-actual error check.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._parallel import Task, TaskResult, TaskStore, run_tasks
from .._validation import make_folder
from .._version import versions
from ..datasets._dataset import align_by_sample
from ._methods import (
    CHOSEN_NUMBERS,
    DEFAULT_METHODS,
    METHODS,
    QUICK_METHODS,
    chosen_k,
    chosen_numbers,
    make_method,
)

__all__ = ["run_benchmark", "BenchmarkResult", "resolve_dataset", "QUICK_DATASET", "METRICS"]

QUICK_DATASET = "sorlie"
#: Per-fold metrics written to results.csv (and averaged in summary.csv).
METRICS = ("amlp", "brier", "error", "expected_error", "gap", "n_over_5_nats",
           "max_case_loss")
_FORMAT = 1


@dataclass
class BenchmarkResult:
    """What :func:`run_benchmark` returns.

    Attributes
    ----------
    results : pandas.DataFrame
        One row per data set, method, repeat and fold (``results.csv``).
    summary : pandas.DataFrame
        One row per data set and method: means and standard errors over folds (``summary.csv``).
    cases : pandas.DataFrame
        One row per data set, method, repeat and test case: true class, probability of the
        true class, top-label confidence, whether the guess was right, and the loss in nats.
    out : pathlib.Path
    info : dict
        Settings and wall time.

    Examples
    --------
    >>> res = run_benchmark(["sorlie"], ["gnb"], folds=3, out="bench_out")  # doctest: +SKIP
    >>> res.results.shape[0], res.info["folds"]                            # doctest: +SKIP
    (3, 3)
    """

    results: pd.DataFrame
    summary: pd.DataFrame
    cases: pd.DataFrame
    out: Path
    info: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        # what a notebook shows for ``res``: the AMLP table, not three DataFrames in full
        from ._report import terminal_summary

        methods = [m for m in self.info.get("methods", []) if m in set(self.summary["method"])]
        table = terminal_summary(self.summary, methods or None)
        report = Path(self.out) / "report.md"
        return (f"BenchmarkResult({len(self.results)} fits, out={str(self.out)!r})"
                + (f"\n{table}" if table else "")
                + "\n(.results, .summary, .cases: the tables"
                + (f"; the report: {report}" if report.is_file() else "") + ")")


def resolve_dataset(item, data_home=None):
    """A named set (via :func:`selbayes.datasets.load_dataset`, stored scale) or a Dataset.

    Parameters
    ----------
    item : str or selbayes.datasets.Dataset
        A name from :data:`selbayes.datasets.BENCHMARK_SETS`, or a dataset object (its
        ``preprocessing`` attribute, when present, says how to preprocess it).
    data_home : path-like, optional

    Returns
    -------
    selbayes.datasets.Dataset
        With a ``preprocessing`` dict. ``{"transform": "auto"}``, also what an object without
        one gets (as ``selbayes benchmark --x`` by default), is resolved here, on the whole
        matrix, by :func:`selbayes.preprocessing.auto_log2_settings`: log2 of values that look
        like raw intensities (with a ``UserWarning``), the values as given otherwise. Its
        ``y`` is in the row order of ``X``: a ``y`` keyed by the sample ids of ``X`` in
        another order is aligned by id (with a ``UserWarning``).

    Raises
    ------
    ValueError, FileNotFoundError
        From :func:`selbayes.datasets.load_dataset`; a ``y`` keyed by sample ids that are not
        exactly those of ``X``; missing or infinite values in ``X``, or only constant genes.

    Examples
    --------
    >>> import pandas as pd
    >>> from selbayes.datasets import Dataset
    >>> d = Dataset(X=pd.DataFrame({"g": [1.0, 2.0]}), y=pd.Series(["a", "b"]), name="toy")
    >>> resolve_dataset(d).preprocessing["transform"]
    'none'
    """
    from ..datasets._loaders import BenchmarkDataset, load_dataset

    if isinstance(item, str):
        return load_dataset(item, data_home, preprocess=False)
    name = item.name or "data"
    _check_values(item.X, f"data set {name!r}")
    y = align_by_sample(item.y, item.X.index, f"data set {name!r}: y")
    # an object without a preprocessing of its own is preprocessed as selbayes benchmark --x
    # does by default: log2 where the values look like raw intensities, else as given
    pre = getattr(item, "preprocessing", None) or {"transform": "auto"}
    if pre.get("transform") == "auto":
        from ..preprocessing._intensity import auto_log2_settings, lowered_floor_note

        pre = auto_log2_settings(item.X)
        if pre["transform"] == "log2":
            warnings.warn(f"data set {name!r}: the values look like raw intensities: every "
                          f"method gets log2 of them, floored at {pre['floor']:.3g}"
                          f"{lowered_floor_note(pre)} (give it preprocessing={{'transform': "
                          "'none'}} to keep them as given)", UserWarning, stacklevel=3)
    elif isinstance(item, BenchmarkDataset) and y is item.y:
        return item
    return BenchmarkDataset(X=item.X, y=y, description=item.description, name=name,
                            genes=item.genes, preprocessing=dict(pre))


def _check_values(X, what: str) -> None:
    """Refuse, before any fit, what would make every method fail or say nothing: missing or
    infinite values (named), and genes that are all constant (a set of no information; each
    peer would fail or give the class frequencies in its own words)."""
    from ..datasets._files import check_matrix_frame

    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    values = check_matrix_frame(frame, what).to_numpy()
    if values.shape[0] > 1 and np.all(values.max(axis=0) == values.min(axis=0)):
        raise ValueError(f"{what}: every gene has the same value in every sample: there is "
                         "nothing to classify on")


def _sha(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\x00")
    return h.hexdigest()[:16]


def _data_hash(X: np.ndarray, y: np.ndarray) -> str:
    """SHA-256 of X's shape and values and of the labels (class indices), as fitted."""
    return _sha(X.shape, np.ascontiguousarray(X).tobytes(), "|".join(map(str, y)))


def _settings(est) -> str:
    """The estimator's settings as JSON, for the key of its stored fits."""
    from ..estimators._around_gaussian import AroundGaussian

    params = est.get_params(deep=True)

    def owner(key):                     # the object a deep parameter belongs to
        path = key.rsplit("__", 1)[0] if "__" in key else ""
        return params.get(path) if path else est

    params = {k: v for k, v in params.items() if not k.endswith(("progressbar", "verbose"))
              # the stacks' own random_state (since 2026-12-07) left at None seeds nothing:
              # without it their keys are those of the fits stored before, which resume
              and not (k.split("__")[-1] == "random_state" and v is None
                       and isinstance(owner(k), AroundGaussian))}
    return json.dumps(params, sort_keys=True, default=lambda o: type(o).__name__)


def _preprocessor(dataset_pre):
    """The unfitted preprocessing step a data set's ``preprocessing`` dict asks for (fitted on
    each training fold inside the pipeline), or None for ``{"transform": "none"}``."""
    if dataset_pre.get("transform", "none") == "none":
        return None
    from ..preprocessing._intensity import IntensityLog2

    return IntensityLog2(floor=dataset_pre.get("floor"), ceiling=dataset_pre.get("ceiling"))


def _fold_seed(seed, repeat: int, fold: int) -> int:
    """The random_state of every fit on fold ``fold`` of repeat ``repeat`` in a run seeded
    ``seed`` (one per fold, shared by the methods, so that they are paired)."""
    return int(np.random.SeedSequence([int(seed), repeat, fold]).generate_state(1)[0]
               % (2**31 - 1))


def _build(method, dataset_pre, n_classes, seed, quick, inner_folds):
    from sklearn.pipeline import Pipeline

    model = make_method(method, n_classes, seed, quick=quick, inner_folds=inner_folds)
    pre = _preprocessor(dataset_pre)
    return model if pre is None else Pipeline([("preprocess", pre), ("model", model)])


def _fold_task(task: Task, data: dict, splits: dict) -> TaskResult:
    """Fit one method on one training fold and score its test fold (runs in a worker)."""
    from ..evaluation._calibration import calibration_summary, case_losses
    from ..evaluation._cross_validation import fit_groups_kwargs

    p, task_id = task.params, task.id
    X, y_idx, n_classes, codes = data[p["dataset"]]
    train, test = splits[p["dataset"], p["repeat"]][p["fold"]]
    task = {**p, "train": train, "test": test}
    groups = None if codes is None else codes[train]
    rec = {k: task[k] for k in ("dataset", "method", "repeat", "fold", "key")}
    rec.update(n_test=int(len(test)), test=test.tolist(), worker_pid=os.getpid())
    try:
        inner = task["inner_folds"]
        if groups is not None:     # the peers' inner searches get folds that keep groups whole
            inner = _grouped_inner_folds(y_idx[train], inner, task["seed"], groups)
        est = _build(task["method"], task["preprocessing"], n_classes, task["seed"],
                     task["quick"], inner)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0, c0 = time.perf_counter(), time.process_time()
            est.fit(X[train], y_idx[train], **fit_groups_kwargs(est, groups))
            t1, c1 = time.perf_counter(), time.process_time()
            raw = np.asarray(est.predict_proba(X[test]), dtype=np.float64)
            t2 = time.perf_counter()
        proba = np.zeros((len(test), n_classes))
        proba[:, np.asarray(est.classes_, dtype=int)] = raw  # a class unseen in fit gets 0
        s = calibration_summary(proba, y_idx[test])
        rec.update(
            amlp=s["amlp"], brier=s["brier"], error=s["error_rate"],
            expected_error=s["expected_error_rate"],
            gap=s["expected_error_rate"] - s["error_rate"],
            n_over_5_nats=s["n_cases_over_5_nats"], max_case_loss=s["max_case_loss"],
            fit_seconds=t1 - t0, fit_cpu_seconds=c1 - c0, predict_seconds=t2 - t1, k=chosen_k(est),
            **chosen_numbers(est), proba=proba.tolist(), stack_arrays=_stack_arrays(est, X[test]),
            losses=case_losses(proba, y_idx[test]).tolist(),
            n_warnings=len(caught),
            warnings=sorted({f"{w.category.__name__}: {str(w.message)[:200]}"
                             for w in caught})[:5],
            error_message=None)
    except Exception as exc:  # one failing fit must not lose the rest of a long run
        # a rare class left with one training case is the usual cause on small data, and the
        # dependency's own message rarely says so
        single = int(np.sum(np.bincount(y_idx[train], minlength=n_classes) == 1))
        hint = (f" (this fold's training part holds a single case of {single} class(es), "
                "which a search over inner folds cannot split)" if single else "")
        rec.update({m: np.nan for m in METRICS}, fit_seconds=np.nan, fit_cpu_seconds=np.nan,
                   predict_seconds=np.nan, k=None, **dict.fromkeys(CHOSEN_NUMBERS),
                   proba=None, stack_arrays={},
                   losses=None, n_warnings=0, warnings=[],
                   error_message=f"{type(exc).__name__}: {_one_line(str(exc))}{hint}",
                   traceback=traceback.format_exc(limit=5))
    return _to_result(task_id, rec)


def _one_line(text: str) -> str:
    """A dependency's error message as one line without NumPy reprs: its first line, and the
    last line naming an error where there are more (scikit-learn's "All the 18 fits failed."
    puts the cause at the end).

    Examples
    --------
    >>> _one_line("All the 2 fits failed.\\nBelow are more details\\nValueError: bad input")
    'All the 2 fits failed. (ValueError: bad input)'
    >>> _one_line("only one class: np.float64(-1.0)")
    'only one class: -1.0'
    """
    import re

    from .._validation import plain_message

    lines = [line.strip() for line in plain_message(text).splitlines() if line.strip()]
    if not lines:
        return ""
    causes = [line for line in lines[1:] if re.match(r"^\w*(Error|Exception)\b.*:", line)]
    return lines[0] + (f" ({causes[-1]})" if causes else "")


# Numbers that may be infinite (a certain mistake gives an infinite loss) travel as arrays,
# which keep them exactly; JSON metadata would turn them into null.
_FLOATS = (*(m for m in METRICS if m != "n_over_5_nats"), "fit_seconds", "fit_cpu_seconds",
           "predict_seconds")
_ARRAYS = ("proba", "losses")


def _stack_arrays(est, X_test) -> dict:
    """For a stack (``LinearStackedClassifier``, alone or last in a pipeline): its
    components' log probabilities of the inner test cases its weights were fitted on
    (``stack_inner_log_proba``, (M, n_train, G), in the order of the training cases) and of
    the test cases (``stack_test_log_proba``, (M, n_test, G)), columns in the stack's
    ``classes_`` order. Stored beside the fold's probabilities so that another pool of the
    same components can be scored later without refitting (reports/plasmode/README.md,
    "offline"). Where a class has a single training case the inner arrays are of the other
    classes' cases (``stack_inner_cases``, their indices among the training cases) and
    columns. Empty for other methods."""
    stack = est[-1] if hasattr(est, "steps") else est
    if not hasattr(stack, "inner_log_proba_") or not hasattr(stack, "_component_log_probas"):
        return {}
    Xt = est[:-1].transform(X_test) if hasattr(est, "steps") else X_test
    out = {"stack_inner_log_proba": np.asarray(stack.inner_log_proba_, dtype=np.float64),
           "stack_test_log_proba": np.stack(stack._component_log_probas(Xt)).astype(np.float64)}
    choice = getattr(getattr(stack, "estimator_", None), "k_choice_", None)
    cases = None if choice is None else choice.extra.get("cases")
    if cases is not None:
        out["stack_inner_cases"] = np.asarray(cases, dtype=np.int64)
    return out


def _to_result(task_id: str, rec: dict) -> TaskResult:
    arrays = {"floats": np.array([rec[k] for k in _FLOATS], dtype=np.float64)}
    arrays.update({k: np.asarray(rec[k], dtype=np.float64) for k in _ARRAYS
                   if rec[k] is not None})
    arrays.update(rec.get("stack_arrays") or {})
    meta = {k: v for k, v in rec.items()
            if k not in _FLOATS and k not in _ARRAYS and k != "stack_arrays"}
    return TaskResult(task_id, arrays, meta)


def _to_record(result: TaskResult) -> dict:
    """The flat record of one fit (as the report expects) from its stored form."""
    rec = {k: v for k, v in result.meta.items() if k not in ("wall_s", "worker_pid")}
    rec["worker_pid"] = result.meta.get("worker_pid")
    rec.update(zip(_FLOATS, result.arrays["floats"].tolist(), strict=True))
    rec.update({k: result.arrays[k].tolist() if k in result.arrays else None for k in _ARRAYS})
    return rec


def _task_id(dataset: str, method: str, repeat: int, fold: int) -> str:
    return f"{dataset}/{method}/r{repeat:02d}_f{fold:02d}"


def _make_splits(y_idx: np.ndarray, folds: int, repeats: int, seed: int, groups=None,
                 classes=None):
    """Stratified folds per repeat, also when a class has fewer cases than folds, a group's
    samples in one fold when ``groups`` is given
    (:func:`selbayes.evaluation.repeated_stratified_folds`, where every fold of the
    package is made)."""
    from ..evaluation._folds import repeated_stratified_folds

    return repeated_stratified_folds(y_idx, folds, repeats, seed, groups=groups,
                                     classes=classes)


def _inner_folds(y_train: np.ndarray) -> int:
    """3 inner folds, fewer when the smallest training class has fewer than 3 cases."""
    return int(max(2, min(3, np.bincount(y_train).min())))


def _replicates_found(ds, X: np.ndarray, y_idx: np.ndarray, mode):
    """:func:`~selbayes.evaluation.replicate_groups` of a set on the values as the methods see
    them (the set's preprocessing, here fitted on all samples: it decides no prediction, only
    a warning or, with ``mode="auto"``, the folds) and the codes of those kept whole
    (``kept_groups``); nothing below 3 samples."""
    from ..evaluation._replicates import kept_groups

    pre = _preprocessor(ds.preprocessing)
    if pre is not None:
        with warnings.catch_warnings():     # the fits say what they think of the values
            warnings.simplefilter("ignore")
            X = pre.fit_transform(X)
    return kept_groups(X, y_idx, mode)


def _replicate_warning(ds, found, n: int) -> int:
    """Warn (:class:`~selbayes.evaluation.ReplicateWarning`) where a set run without groups
    has samples in groups (pairs, triplets, ...) far more alike than any others (replicates?),
    which folds that split them flatter; returns how many samples are in such groups when it
    warns, else 0."""
    from ..evaluation._replicates import ReplicateWarning, replicate_message

    message = replicate_message(
        found, n, list(ds.X.index),
        advice=f"Folds that split such groups flatter every method: pass them as groups "
               f"(run_benchmark(..., groups={{{ds.name!r}: labels}}), selbayes benchmark "
               "--groups FILE), or groups 'auto' to keep the groups found here whole")
    if message is None:
        return 0
    warnings.warn(f"{ds.name}: {message}", ReplicateWarning, stacklevel=3)
    return len(found)


def _grouped_inner_folds(y_train: np.ndarray, n_folds: int, seed: int, groups: np.ndarray):
    """The scikit-learn peers' inner folds of one training fold with each group's cases in one
    fold (at most as many folds as groups), made as every fold of the package is
    (:func:`selbayes.evaluation.stratified_folds`)."""
    from ..evaluation._folds import stratified_folds

    n_folds = max(2, min(int(n_folds), int(np.unique(groups).size)))
    return stratified_folds(y_train, n_folds, seed, small_classes_ok=True, groups=groups)


def check_dataset_name(name) -> None:
    """Refuse a data set name that cannot name a folder.

    Each data set's fits are stored in ``out/folds/<name>/`` (the name is part of every fit's
    task id), so it may hold letters, digits, ``_``, ``-`` and ``.`` only.

    Raises
    ------
    ValueError
        Naming the data set and the characters allowed.

    Examples
    --------
    >>> check_dataset_name("golub_2")
    >>> check_dataset_name("my set")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data set name 'my set': use letters, digits, '_', '-' and '.' only, ...)
    """
    from .._parallel import is_file_name_safe

    if not is_file_name_safe(name):
        raise ValueError(f"data set name {name!r}: use letters, digits, '_', '-' and '.' only, "
                         f"and not '.' or '..' alone (it names the folder of its fits)")


def run_benchmark(datasets, methods=None, folds: int = 5, repeats: int = 1, seed: int = 0,
                  n_jobs: int = 1, quick: bool = False, out="benchmark_output",
                  scheduler=None,
                  progress: bool = True, data_home=None, write_report: bool = True,
                  report_only: bool = False, groups=None) -> BenchmarkResult:
    """Cross-validate every method on every data set on the same folds, and report.

    Parameters
    ----------
    datasets : list of (str or selbayes.datasets.Dataset)
        Names from :data:`selbayes.datasets.BENCHMARK_SETS` (each preprocessed by its default
        inside the folds) or dataset objects (a ``preprocessing`` attribute, as on
        :class:`selbayes.datasets.BenchmarkDataset`, sets their preprocessing;
        ``{"transform": "auto"}`` chooses as ``selbayes benchmark --x`` does by default, see
        :func:`selbayes.preprocessing.auto_log2_settings`). Empty with
        ``quick=True``: the sorlie set.
    methods : list of str, optional
        Keys of :data:`selbayes.benchmark.METHODS`; default
        :data:`~selbayes.benchmark.DEFAULT_METHODS` (the recommended selbayes, its
        uncorrected twin and the peers; ``quick``:
        :data:`~selbayes.benchmark.QUICK_METHODS`).
    folds : int, default 5
        Stratified folds per repeat (``quick``: 3).
    repeats : int, default 1
        Independent fold assignments.
    seed : int, default 0
        Seeds the fold assignments and every method's ``random_state``.
    n_jobs : int, default 1
        Parallel joblib processes over the (data set, method, repeat, fold) fits.
    quick : bool, default False
        Smoke-test design: 3 folds, few posterior draws, the quick methods and set.
    scheduler : str or distributed.Client, optional
        Run the fits on a dask.distributed cluster instead of local processes (a scheduler
        address such as ``"tcp://host:8786"``, or a client; needs ``selbayes[distributed]``).
    out : path-like
        Output folder: ``folds/`` (one JSON per fit; resumable), ``results.csv``,
        ``summary.csv``, ``cases.csv``, ``report.md`` and ``reliability.png``.
    progress : bool, default True
        tqdm progress bar over fits.
    data_home : path-like, optional
        Where named sets are looked for (see :func:`selbayes.datasets.load_dataset`).
    write_report : bool, default True
        Write report.md and the figure (needs matplotlib).
    report_only : bool, default False
        Fit nothing: tabulate and report the fits already stored in ``out`` (for a partial
        report of a run still going on elsewhere); ``info["n_missing"]`` counts the rest.
    groups : dict, optional
        Data set name -> a group label per sample (array-like of shape (n_samples,), in the
        set's row order; a Series or dict keyed by the set's sample ids is aligned by id).
        The samples of one group are kept in the same fold (scikit-learn's
        ``StratifiedGroupKFold``): give it where samples are not independent (technical
        replicates, two preparations of one tumour, several samples of one patient), or a
        test case's twin among the training cases flatters every method, those that fit
        single training cases closely most. The inner cross-validation inside each method
        keeps them whole too: the selbayes methods get the training cases' groups in
        ``fit``, the scikit-learn peers' searches (penalty, number of genes, calibration)
        folds made with the groups kept whole. ``"auto"`` in place of the labels: the
        groups of samples far more alike than any others
        (:func:`selbayes.evaluation.replicate_groups`, on the set's preprocessed values),
        each other sample alone (``info["groups_found"]``: how many samples they hold).

    Returns
    -------
    BenchmarkResult

    Raises
    ------
    ValueError
        For an unknown method or data set name, ``folds < 2``, ``repeats < 1``, ``n_jobs``
        of 0, or ``groups`` for a set not run, of the wrong length, with a missing label or
        with fewer groups than folds.
    FileNotFoundError
        When a named set's files are missing.

    Examples
    --------
    >>> res = run_benchmark(["sorlie"], ["gnb"], folds=3, out="bench_out")  # doctest: +SKIP
    >>> res.summary[["dataset", "method", "amlp", "amlp_se"]]               # doctest: +SKIP
    """
    if quick:
        datasets = list(datasets) or [QUICK_DATASET]
        methods = list(methods or QUICK_METHODS)
        folds = 3
    methods = list(methods) if methods else list(DEFAULT_METHODS)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; known: {', '.join(METHODS)}")
    if not datasets:
        raise ValueError("no data sets given")
    if int(folds) < 2 or int(repeats) < 1:
        raise ValueError(f"folds must be >= 2 and repeats >= 1; got {folds}, {repeats}")
    if n_jobs == 0:
        raise ValueError("n_jobs must not be 0")
    from ..evaluation._folds import group_codes

    start = time.perf_counter()

    loaded = [resolve_dataset(d, data_home) for d in datasets]
    names = [d.name for d in loaded]
    if len(set(names)) != len(names):
        raise ValueError(f"data set names must be unique; got {names}")
    for name in names:
        check_dataset_name(name)
    groups = dict(groups or {})
    unknown = sorted(set(groups) - set(names))
    if unknown:
        raise ValueError(f"groups given for data set(s) not run: {unknown}; run: {names}")
    # made only once the data are known good: a refused run leaves no folder behind
    out = make_folder(out, "out")
    tasks, data, arrays, splits_of, replicate_samples, found_samples = [], {}, {}, {}, {}, {}
    data_hashes, method_settings = {}, {}
    for ds in loaded:
        X = ds.X.to_numpy(dtype=np.float64)
        classes, y_idx = np.unique(ds.y.astype(str).to_numpy(), return_inverse=True)
        data[ds.name] = (X, y_idx, classes, ds)
        given = groups.get(ds.name)
        auto = isinstance(given, str) and given == "auto"
        codes = (None if given is None or auto else
                 group_codes(align_by_sample(given, ds.X.index, f"groups[{ds.name!r}]"),
                             len(y_idx)))
        if codes is None:
            found, labels = _replicates_found(ds, X, y_idx, "auto" if auto else None)
            if auto:                    # the groups found kept whole, outer and inner
                codes, found_samples[ds.name] = labels, len(found)
            elif in_groups := _replicate_warning(ds, found, len(y_idx)):
                replicate_samples[ds.name] = in_groups
        arrays[ds.name] = (X, y_idx, len(classes), codes)
        dhash = data_hashes[ds.name] = _data_hash(X, y_idx)
        splits_r = _make_splits(y_idx, int(folds), int(repeats), int(seed), groups=codes,
                                classes=classes)
        for r, splits in splits_r:
            splits_of[ds.name, r] = splits
            for f, (train, test) in enumerate(splits):
                fold_seed = _fold_seed(seed, r, f)
                inner = _inner_folds(y_idx[train])
                for m in methods:
                    est = _build(m, ds.preprocessing, len(classes), fold_seed, quick, inner)
                    settings = _settings(est)
                    # what the report records of it: its settings but the per-fold seeds
                    method_settings.setdefault(m, {
                        k: v for k, v in json.loads(settings).items()
                        if not k.endswith("random_state")})
                    # grouped: the fits differ (their inner folds keep the groups whole)
                    key = _sha(_FORMAT, dhash, test.tobytes(), m, settings, quick,
                               *(() if codes is None else (codes[train].tobytes(),)))
                    tid = _task_id(ds.name, m, r, f)
                    tasks.append(Task(tid, {
                        "dataset": ds.name, "method": m, "repeat": r, "fold": f,
                        "seed": fold_seed, "quick": quick, "inner_folds": inner, "key": key,
                        "preprocessing": ds.preprocessing}))
    # No run-wide settings: a folder collects data sets and methods run at different times;
    # each fit's key (data, folds, method settings) decides whether its record is reused.
    store = TaskStore(out / "folds", {"harness": "selbayes.benchmark"}, what="benchmark",
                      changed_task="rerun",
                      rerun_if=lambda result: bool(result.meta.get("error_message")))
    stored = store.load_many(tasks) if report_only else {}
    todo = [] if report_only else tasks
    if todo and (stale := store.stale(todo)):
        # the same fits (data set, method, repeat, fold) under other settings: the folder
        # keeps one record per fit, so the earlier run's are replaced as the new ones finish
        warnings.warn(f"{store.folder} holds {len(stale)} fit(s) of these data sets and "
                      f"methods made with other settings (another seed, number of folds or "
                      f"repeats, or a method whose settings changed since): they are fitted "
                      f"again and replace the stored ones, and report.md will describe this "
                      f"run only; to keep the earlier run, stop now and write to another "
                      f"output folder", UserWarning, stacklevel=2)
    results, run_info = run_tasks(_fold_task, todo, store, args=(arrays, splits_of),
                                  n_jobs=n_jobs, scheduler=scheduler, progressbar=progress,
                                  desc="benchmark", unit="fit",
                                  eta=False)   # its methods' costs differ 200-fold
    n_missing = sum(r is None for r in stored.values())
    n_resumed = run_info["n_resumed"] + len(stored) - n_missing
    n_fitted = run_info["n_fitted"]
    records = [_to_record(r) for r in (*results.values(), *stored.values()) if r is not None]
    for rec in records:
        if rec.get("error_message"):
            warnings.warn(f"{rec['method']} failed on {rec['dataset']} repeat "
                          f"{rec['repeat']} fold {rec['fold']}: {rec['error_message']}",
                          RuntimeWarning, stacklevel=2)

    from ._report import cases_frame, results_frame, summary_frame, write_report_files

    results = results_frame(records)
    summary = summary_frame(results)
    cases = cases_frame(records, data)
    from ..datasets._loaders import BENCHMARK_SETS

    named = {d.lower() for d in datasets if isinstance(d, str)}
    info = {"datasets": {n: {"n": int(data[n][0].shape[0]), "p": int(data[n][0].shape[1]),
                             "classes": [str(c) for c in data[n][2]],
                             "preprocessing": data[n][3].preprocessing,
                             "scale": BENCHMARK_SETS[n]["scale"] if n in named else None,
                             "notes": list(getattr(data[n][3], "notes", None) or []),
                             "data_hash": data_hashes[n]}       # of X and y as fitted
                         for n in names},
            "methods": methods, "folds": int(folds), "repeats": int(repeats), "seed": int(seed),
            "n_jobs": int(n_jobs), "scheduler": None if scheduler is None else str(scheduler),
            "groups": {n: int(arrays[n][3].max()) + 1 for n in groups       # from the codes
                       if arrays[n][3] is not None},
            "groups_found": found_samples,      # groups "auto": samples in the groups found
            "samples_in_replicates": replicate_samples,
            "quick": bool(quick), "n_fits": len(tasks),
            # what else a rerun needs to give the same numbers (the fold seeds derive from
            # seed): each method's settings (of its first data set; seeds per fold left out)
            # and the package versions
            "method_settings": method_settings, "versions": versions(),
            "n_fitted": n_fitted, "n_resumed": n_resumed, "n_missing": n_missing,
            "wall_seconds": time.perf_counter() - start}
    results.to_csv(out / "results.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    cases.to_csv(out / "cases.csv", index=False)
    (out / "settings.json").write_text(json.dumps(info, indent=1, default=str))
    res = BenchmarkResult(results=results, summary=summary, cases=cases, out=out, info=info)
    if write_report:
        write_report_files(res)
    return res
