"""The package's one resumable parallel runner: independent tasks, stored as they finish.

Cross-validation (:func:`selbayes.evaluation.cross_validate`), simulation-based
calibration (:func:`selbayes.sbc.run_sbc`), the paper reproductions (``selbayes reproduce``,
:mod:`selbayes.experiments`)
and the real-data benchmark (:func:`selbayes.benchmark.run_benchmark`) all run many
independent fits. They share this module:

:class:`Task`
    One unit of work: a file-name-safe ``id`` and small JSON-serialisable ``params`` (hashed
    into its record, so a stored result is only reused for the same task).
:class:`TaskResult`
    What a task leaves behind: named numpy arrays and JSON-serialisable metadata.
:class:`TaskStore`
    A folder of finished tasks. ``manifest.json`` holds the run's settings (everything that
    changes a result) and their hash; opening a folder made with other settings is refused
    with the list of keys that changed. Each finished task is ``<id>.npz`` (arrays, when there
    are any) and ``<id>.json`` (metadata, written last: its presence marks the task finished),
    each written to a temporary name and moved into place with ``os.replace``, so an
    interrupted run never leaves a half-written file under a real name. No pickle in files.
:func:`run_tasks`
    Runs the tasks a store does not hold yet, in this process (``n_jobs=1``), in joblib
    worker processes (``n_jobs > 1``, workers keep their compiled-model caches, see
    :func:`keep_worker_caches`) or on a dask.distributed cluster (``scheduler``: an address
    or a ``distributed.Client``), saving each result as it arrives, with a progress bar.

Seeds are the caller's business: each task carries its own (for example the ``i``-th child of
a ``numpy.random.SeedSequence``), so results do not depend on the back-end or on the order in
which tasks finish.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import numbers
import os
import threading
import time
import warnings
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._validation import make_folder

__all__ = ["Task", "TaskResult", "TaskStore", "run_tasks", "keep_worker_caches", "jsonable",
           "settings_hash", "dict_diff", "write_atomic", "check_n_jobs", "check_scheduler",
           "import_distributed", "root_seed", "seed_state", "WorkerKilledError",
           "is_file_name_safe", "file_name_safe", "RUNS_FOLDER"]

#: Version of the on-disk layout (manifest and records); a folder of another format is refused.
STORE_FORMAT = 1
_MANIFEST = "manifest.json"
#: Where the command-line runners (reproductions, SBC, the benchmark) write unless told
#: otherwise: a folder of the working directory, never the committed ``reports/``.
RUNS_FOLDER = "selbayes_runs"


# ---------------------------------------------------------------------------------------------
# worker processes
# ---------------------------------------------------------------------------------------------
def keep_worker_caches() -> None:
    """Stop loky from recycling this worker when its memory grows.

    loky (joblib's process pool) restarts a worker whose memory grew by more than 300 MB since
    its first task, taking it for a leak. Here the growth is the point: each worker keeps its
    compiled nutpie models (about 100-150 MB each, one per data shape) so that later fits of the
    same shape skip the 10-50 s numba compile. A recycled worker would compile them all again.
    Called at the start of each task in the worker; a no-op outside loky workers.
    """
    try:
        from joblib.externals.loky import process_executor
    except ImportError:  # pragma: no cover - joblib always ships loky
        return
    if hasattr(process_executor, "_MAX_MEMORY_LEAK_SIZE"):
        process_executor._MAX_MEMORY_LEAK_SIZE = 1 << 62


# ---------------------------------------------------------------------------------------------
# seeds: a run's root SeedSequence, stored so that a rerun without a seed resumes with it
# ---------------------------------------------------------------------------------------------
def root_seed(random_state, stored: dict | None = None) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of a run, whose children seed its tasks.

    Parameters
    ----------
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
        None: the seed in ``stored`` (resuming a run), else fresh entropy.
    stored : dict, optional
        A run's stored settings holding :func:`seed_state`'s keys (``spawn_key`` and
        ``pool_size`` may be absent).

    Raises
    ------
    ValueError
        A negative int.
    TypeError
        Any other type.
    """
    if random_state is None:
        if stored is not None and stored.get("entropy") is not None:  # resume with it
            return np.random.SeedSequence(stored["entropy"],
                                          spawn_key=tuple(stored.get("spawn_key", ())),
                                          pool_size=stored.get("pool_size", 4))
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0; got {random_state}")
        return np.random.SeedSequence(int(random_state))
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(2**63)))
    raise TypeError("random_state must be None, an int, a numpy SeedSequence or Generator; "
                    f"got {random_state!r}")


def seed_state(ss: np.random.SeedSequence) -> dict:
    """``ss`` as JSON (``entropy``, ``spawn_key``, ``pool_size``), the inverse of
    :func:`root_seed`'s ``stored``."""
    entropy = ss.entropy
    entropy = [int(e) for e in entropy] if isinstance(entropy, Sequence | np.ndarray) \
        else int(entropy)
    return {"entropy": entropy, "spawn_key": [int(k) for k in ss.spawn_key],
            "pool_size": int(ss.pool_size)}


# ---------------------------------------------------------------------------------------------
# JSON, hashes and atomic files
# ---------------------------------------------------------------------------------------------
def jsonable(obj):
    """Convert numpy scalars/arrays to Python objects and non-finite floats to None."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def settings_hash(settings: dict) -> str:
    """Short SHA-256 of a JSON-serialisable settings dict (key order does not matter)."""
    return hashlib.sha256(_canonical(settings).encode()).hexdigest()[:16]


def dict_diff(old: dict, new: dict, prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two nested dicts, as 'key: old -> new'."""
    out = []
    for key in sorted(set(old) | set(new), key=str):
        a, b = old.get(key, "<absent>"), new.get(key, "<absent>")
        name = f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(dict_diff(a, b, name + "."))
        elif _canonical(a) != _canonical(b):
            out.append(f"{name}: {a!r} -> {b!r}")
    return out


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write ``path`` through ``write(tmp_path)`` and an atomic rename.

    An interrupted write never leaves a half-written file under the real name (the temporary
    name starts with a dot and carries the process id).
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _write_json(path: Path, obj) -> None:
    text = json.dumps(obj, indent=1)
    write_atomic(path, lambda p: p.write_text(text))


# ---------------------------------------------------------------------------------------------
# tasks and their store
# ---------------------------------------------------------------------------------------------
def is_file_name_safe(part) -> bool:
    """Whether ``part`` can name a file or folder of a store: letters, digits, ``_``, ``-``
    and ``.``, not empty, not ``.`` or ``..``.

    Examples
    --------
    >>> is_file_name_safe("golub_2"), is_file_name_safe("my set"), is_file_name_safe("..")
    (True, False, False)
    """
    return (isinstance(part, str) and part not in ("", ".", "..")
            and all(c.isalnum() or c in "_-." for c in part))


def file_name_safe(text: str, default: str = "data") -> str:
    """``text`` made file-name-safe: every other character replaced by ``_``.

    Examples
    --------
    >>> file_name_safe("my data (v2)")
    'my_data__v2_'
    """
    out = "".join(c if c.isalnum() or c in "_-." else "_" for c in str(text))
    return out if is_file_name_safe(out) else default


def _check_id(task_id: str) -> None:
    # '/' makes sub-folders (the benchmark files fits by data set and method)
    parts = task_id.split("/") if isinstance(task_id, str) else [None]
    if not all(is_file_name_safe(p) for p in parts):
        raise ValueError("a task id must be a file-name-safe identifier (letters, digits, "
                         f"'_', '-', '.', and '/' between parts); got {task_id!r}")


@dataclass(frozen=True)
class Task:
    """One independent unit of work.

    Attributes
    ----------
    id : str
        File-name-safe identifier, unique within a run (letters, digits, ``_ - .``; ``/``
        separates sub-folders).
    params : dict
        Small JSON-serialisable parameters (seeds, indices, labels); hashed into the task's
        record together with the run's settings. Large inputs travel as ``args`` of
        :func:`run_tasks` instead.
    """

    id: str
    params: dict = field(default_factory=dict, hash=False)

    def __post_init__(self):
        _check_id(self.id)


@dataclass
class TaskResult:
    """What one task leaves behind.

    Attributes
    ----------
    id : str
        The task's id.
    arrays : dict of str to ndarray
        Stored in ``<id>.npz`` (without pickle, so object arrays are not allowed).
    meta : dict
        JSON-serialisable metadata, stored in ``<id>.json`` (non-finite floats become null).
    """

    id: str
    arrays: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)


def _mixed_versions(folder, versions: dict) -> str | None:
    """The warning for the results read back from ``folder`` whose records name another
    selbayes version than this one (``versions``: task id -> version, None for records older
    than the field, counted as this version), or None when there are none."""
    from ._version import __version__

    other = {i: v for i, v in versions.items() if v not in (None, __version__)}
    if not other:
        return None
    return (f"{len(other)} of the {len(versions)} results read back from {folder} were "
            f"computed by selbayes {', '.join(sorted(set(other.values())))}, and this is "
            f"selbayes {__version__}: the run mixes versions (e.g. {sorted(other)[0]}); to "
            "compute every result with this version, use another folder or delete this one")


class TaskStore:
    """A folder of finished tasks of one run, checked against the run's settings.

    Parameters
    ----------
    folder : path-like
        Where the manifest and the task files live (created by :meth:`open`).
    settings : dict
        Everything that changes a task's result (JSON-serialisable). Stored in the manifest and
        hashed into every record.
    manifest : str, default "manifest.json"
        File name of the manifest inside ``folder``.
    what : str, default "run"
        What the folder holds, for error messages ("cross-validation", "SBC run", ...).
    changed_task : {"error", "rerun"}, default "error"
        What to do with a stored task whose record was made for other task parameters:
        refuse (reproductions, cross-validation, SBC) or compute it again (the benchmark, whose
        folder collects methods and data sets run at different times).
    rerun_if : callable, optional
        ``rerun_if(result) -> bool``: compute a stored result again (e.g. a failed fit that was
        recorded so that a report can show it).

    Examples
    --------
    >>> import tempfile
    >>> store = TaskStore(tempfile.mkdtemp(), {"draws": 100})
    >>> results, info = run_tasks(lambda task: TaskResult(task.id, meta={"x": 2}),
    ...                           [Task("a"), Task("b")], store, progressbar=False)
    >>> sorted(store.done([Task("a"), Task("b"), Task("c")])), info["n_fitted"]
    (['a', 'b'], 2)
    >>> TaskStore(store.folder, {"draws": 200}).open()
    Traceback (most recent call last):
    ...
    ValueError: ... holds a run with different settings (draws: 100 -> 200). ...
    """

    def __init__(self, folder, settings: dict, *, manifest: str = _MANIFEST, what: str = "run",
                 changed_task: str = "error", rerun_if: Callable | None = None):
        if changed_task not in ("error", "rerun"):
            raise ValueError(f"changed_task must be 'error' or 'rerun'; got {changed_task!r}")
        self.folder = Path(folder)
        self.settings = jsonable(settings)
        self.hash = settings_hash(self.settings)
        self.manifest = manifest
        self.what = what
        self.changed_task = changed_task
        self.rerun_if = rerun_if

    @staticmethod
    def read_settings(folder, manifest: str = _MANIFEST) -> dict | None:
        """The settings stored in ``folder``'s manifest, or None when there is none.

        For resuming with stored values the caller did not give again (e.g. a random seed).
        """
        path = Path(folder) / manifest
        if not path.is_file():
            return None
        return json.loads(path.read_text()).get("settings")

    def open(self) -> None:
        """Create the folder, or check that an existing one holds tasks of these settings.

        Raises
        ------
        ValueError
            If the folder's manifest records other settings (the message lists the keys that
            changed) or another storage format.
        """
        make_folder(self.folder, f"the {self.what}'s folder")
        path = self.folder / self.manifest
        if path.exists():
            stored = json.loads(path.read_text())
            if stored.get("format") != STORE_FORMAT or stored.get("settings_hash") != self.hash:
                if "settings" not in stored:  # cross-validation and SBC before the runner
                    diff = ["an older layout without the shared manifest"]
                else:
                    diff = dict_diff(stored["settings"], self.settings)
                if stored.get("format") != STORE_FORMAT:
                    diff.insert(0, f"format: {stored.get('format')!r} -> {STORE_FORMAT!r}")
                raise ValueError(
                    f"{self.folder} holds a {self.what} with different settings ("
                    + ("; ".join(diff) if diff else "settings hash changed")
                    + "). Refusing to mix them: use another output folder, or delete "
                    f"{self.folder} to start afresh.")
        else:
            _write_json(path, {"format": STORE_FORMAT, "settings_hash": self.hash,
                               "settings": self.settings})

    def _paths(self, task_id: str) -> tuple[Path, Path]:
        base = self.folder / task_id
        return base.with_name(base.name + ".json"), base.with_name(base.name + ".npz")

    def task_hash(self, task: Task) -> str:
        """Hash of the run's settings, the task's parameters and its id."""
        # the key "fit_id" keeps the hashes of stores written before the runner was shared
        return settings_hash({"settings": self.hash, "task": jsonable(task.params),
                              "fit_id": task.id})

    def load(self, task: Task) -> TaskResult | None:
        """The stored result of ``task``, or None when it has not finished (or is to rerun).

        Raises
        ------
        ValueError
            If the stored record was computed for other settings and ``changed_task`` is
            "error".
        """
        return self._read(task)[0]

    def load_many(self, tasks: Sequence[Task]) -> dict[str, TaskResult | None]:
        """:meth:`load` of every task, by id; warns when some of the results read back were
        computed by another selbayes version (they are kept, and the run mixes versions).

        Raises
        ------
        ValueError
            As :meth:`load`.

        Examples
        --------
        >>> import tempfile
        >>> store = TaskStore(tempfile.mkdtemp(), {})
        >>> _ = run_tasks(lambda task: TaskResult(task.id), [Task("a")], store, progressbar=False)
        >>> {k: v is not None for k, v in store.load_many([Task("a"), Task("b")]).items()}
        {'a': True, 'b': False}
        """
        out, versions = {}, {}
        for task in tasks:
            out[task.id], version = self._read(task)
            if out[task.id] is not None:
                versions[task.id] = version
        if mixed := _mixed_versions(self.folder, versions):
            warnings.warn(mixed, UserWarning, stacklevel=3)
        return out

    def _read(self, task: Task) -> tuple[TaskResult | None, str | None]:
        """:meth:`load`'s result and the selbayes version its record names (None: none)."""
        meta_path, arr_path = self._paths(task.id)
        if not meta_path.is_file():
            return None, None
        try:
            record = json.loads(meta_path.read_text())
        except (OSError, json.JSONDecodeError):
            if self.changed_task == "rerun":
                return None, None
            raise ValueError(f"{meta_path} is not a readable task record; delete it to "
                             "compute the task again") from None
        if not self._belongs(record, task):
            if self.changed_task == "rerun":
                return None, None
            diff = dict_diff({"task": record.get("task", {})}, {"task": jsonable(task.params)})
            raise ValueError(
                f"{meta_path} does not belong to this run (it was computed with different "
                "settings" + (f": {'; '.join(diff)}" if diff else "") + "). Refusing to mix "
                "results: use another output folder, or delete the file.")
        names = record.get("arrays")
        arrays = {}
        if names is None and not arr_path.is_file():
            return None, None  # a record written before its arrays (older layout): unfinished
        if names is None or names:
            try:
                with np.load(arr_path, allow_pickle=False) as npz:
                    arrays = {k: npz[k] for k in npz.files}
            except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
                # damaged on disk (an interrupted copy, a full disk): its record is no result
                if self.changed_task == "rerun":
                    return None, None
                raise ValueError(f"{arr_path} is not a readable task file ({exc}); delete it "
                                 f"and {meta_path.name} to compute the task again") from None
        result = TaskResult(task.id, arrays, record["meta"])
        if self.rerun_if is not None and self.rerun_if(result):
            return None, None
        return result, record.get("selbayes_version")

    def _belongs(self, record: dict, task: Task) -> bool:
        """Whether a stored record was computed for ``task`` under these settings."""
        return (record.get("settings_hash") == self.task_hash(task)
                and _canonical(record.get("task")) == _canonical(jsonable(task.params)))

    def stale(self, tasks: Sequence[Task]) -> list[str]:
        """Ids of the tasks among ``tasks`` whose stored record was computed for other task
        parameters or settings: with ``changed_task="rerun"`` they are computed again and
        their records replaced (say so before: the earlier results are lost)."""
        out = []
        for task in tasks:
            meta_path, _ = self._paths(task.id)
            try:
                record = json.loads(meta_path.read_text())
            except (OSError, json.JSONDecodeError):     # none, or unreadable: nothing to lose
                continue
            if not self._belongs(record, task):
                out.append(task.id)
        return out

    def save(self, task: Task, result: TaskResult) -> None:
        """Write the arrays (if any), then the metadata, whose presence marks the task done.

        Raises
        ------
        TypeError
            If an array holds Python objects (it could only be stored with pickle).
        """
        meta_path, arr_path = self._paths(task.id)
        meta_path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {k: np.asarray(v) for k, v in result.arrays.items()}
        bad = sorted(k for k, v in arrays.items() if v.dtype.hasobject)
        if bad:
            raise TypeError(f"task {task.id!r}: the arrays {bad} hold Python objects; the store "
                            "keeps numeric arrays only (files never use pickle)")
        if arrays:
            def write_npz(path: Path) -> None:
                with path.open("wb") as fh:
                    np.savez_compressed(fh, **arrays)

            write_atomic(arr_path, write_npz)
        from ._version import __version__

        _write_json(meta_path, {"fit_id": task.id, "task": jsonable(task.params),
                                "settings_hash": self.task_hash(task),
                                "selbayes_version": __version__, "arrays": sorted(arrays),
                                "meta": jsonable(result.meta)})

    def load_id(self, task_id: str) -> TaskResult | None:
        """The stored result under ``task_id``, with the task parameters its record holds.

        For reading a run without re-deriving its tasks (e.g. a report of a run still going
        on). The record's hash is still checked against the run's settings.
        """
        meta_path, _ = self._paths(task_id)
        if not meta_path.is_file():
            return None
        params = json.loads(meta_path.read_text()).get("task", {})
        return self.load(Task(task_id, params))

    def done(self, tasks: Sequence[Task]) -> list[str]:
        """Ids of the tasks among ``tasks`` whose results are stored (and not to be rerun)."""
        return [t.id for t in tasks if self.load(t) is not None]


# ---------------------------------------------------------------------------------------------
# back-ends: each yields finished TaskResults in completion order
# ---------------------------------------------------------------------------------------------
def _call(fn, task: Task, args: tuple) -> TaskResult:
    keep_worker_caches()
    start = time.perf_counter()
    result = fn(task, *args)
    if not isinstance(result, TaskResult) or result.id != task.id:
        raise TypeError(f"the task function must return a TaskResult for {task.id!r}; got "
                        f"{type(result).__name__}")
    result.meta.setdefault("wall_s", time.perf_counter() - start)
    result.meta.setdefault("worker_pid", os.getpid())
    return result


class WorkerKilledError(RuntimeError):
    """A worker process of a parallel run was killed by the operating system (most often for
    memory): the tasks it had not finished are named, and the finished ones are kept."""


def _run_joblib(fn, todo, args, n_jobs) -> Iterator[TaskResult]:
    if n_jobs == 1:  # in process: no pickling; compiled models and monkeypatches are kept
        for task in todo:
            yield _call(fn, task, args)
        return
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    # scikit-learn's Parallel hands the caller's warning filters to the workers
    from sklearn.utils.parallel import Parallel, delayed

    finished = set()
    try:
        # large numpy arguments are memory-mapped by joblib, not copied per task
        for result in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                delayed(_call)(fn, task, args) for task in todo):
            finished.add(result.id)
            yield result
    except TerminatedWorkerError as exc:
        # joblib's own message is a traceback through its internals; say what happened in
        # the user's terms, and what to do (the store keeps every finished task).
        left = [t.id for t in todo if t.id not in finished]
        shown = ", ".join(left[:4]) + (f" and {len(left) - 4} more" if len(left) > 4 else "")
        raise WorkerKilledError(
            f"a worker process was killed by the operating system while running "
            f"{n_jobs} tasks at once (most often for memory); not finished: {shown}. Tasks "
            f"that finished are kept where results are stored, and a rerun with the same "
            f"settings resumes from them; run fewer at once (n_jobs / --jobs 1) if each task "
            f"needs more than 1/{n_jobs} of the memory") from exc


def import_distributed():
    """Import ``distributed``, or raise an ImportError naming the optional extra."""
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(
            "running on a dask cluster needs dask.distributed, which is not installed; install "
            "the optional extra: pip install 'selbayes[distributed]'") from exc
    return distributed


def _run_dask(fn, todo, args, client, distributed) -> Iterator[TaskResult]:
    # Inputs are sent once, not with every task. hash=False gives this call its own keys: with
    # content hashing, a second client scattering the same data shares the keys, and whichever
    # client releases them first takes the other's inputs away ("lost dependencies").
    shared = tuple(client.scatter(list(args), broadcast=True, hash=False)) if args else ()
    futures = [client.submit(_call, fn, task, shared, pure=False) for task in todo]
    try:
        for fut in distributed.as_completed(futures):
            yield fut.result()
    finally:  # on error or interruption, leave no work running on the cluster
        client.cancel([f for f in futures if not f.done()])


def check_n_jobs(n_jobs) -> int:
    """``n_jobs`` as an int: a positive number of processes, or -1 for all cores."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 \
            or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer (or -1 for all cores); got "
                         f"{n_jobs!r}")
    return int(n_jobs)


def check_scheduler(scheduler) -> None:
    if scheduler is None or isinstance(scheduler, str):
        return
    if type(scheduler).__name__ != "Client":
        raise TypeError("scheduler must be a dask.distributed scheduler address (str) or a "
                        f"distributed.Client; got {type(scheduler).__name__}")


#: Seconds between redraws of a progress bar in a terminal and in a log file (a redraw is a
#: line there).
_TICK_SECONDS = (5.0, 30.0)
#: tqdm's bar without its estimate of the time left (tasks of very different costs).
_BAR_WITHOUT_ETA = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"


@contextlib.contextmanager
def _ticking(bar):
    """Redraw ``bar`` every few seconds (a terminal) or half-minute (a log file) while the
    tasks run: tqdm redraws only on an update, so a fit of minutes showed a frozen elapsed
    time and looked hung."""
    if bar.disable:
        yield
        return
    stop = threading.Event()
    tty = getattr(getattr(bar, "fp", None), "isatty", lambda: False)()
    interval = _TICK_SECONDS[0 if tty else 1]

    def tick():
        while not stop.wait(interval):
            bar.refresh()

    thread = threading.Thread(target=tick, name="selbayes-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def run_tasks(fn: Callable, tasks: Sequence[Task], store: TaskStore | None = None, *,
              args: tuple = (), n_jobs: int = 1, scheduler=None, progressbar: bool = True,
              desc: str = "tasks", unit: str = "task",
              eta: bool = True) -> tuple[dict[str, TaskResult], dict]:
    """Run every task the store does not hold yet, saving each result as it finishes.

    Parameters
    ----------
    fn : callable
        ``fn(task, *args) -> TaskResult``. Module level (picklable) for ``n_jobs != 1`` or a
        cluster; ``functools.partial`` of such a function works too.
    tasks : sequence of Task
        Ids must be unique.
    store : TaskStore, optional
        Where results are kept (opened here, so changed settings are refused before anything
        runs). None: nothing is stored or resumed.
    args : tuple
        Extra arguments for every call (data arrays, estimators). With a dask cluster they
        are scattered to every worker once; joblib memory-maps large arrays.
    n_jobs : int, default 1
        Local joblib processes (-1: all cores); 1 runs in this process. Ignored with
        ``scheduler``.
    scheduler : str or distributed.Client, optional
        A dask.distributed scheduler address (e.g. ``"tcp://host:8786"``) or client. A client
        made here from an address is closed at the end; a given client is left open.
    progressbar : bool, default True
        A bar whose elapsed time moves while a task runs (redrawn every few seconds), naming
        the task running (in this process) or the last one finished (in workers).
    desc, unit : str
        Progress-bar label and unit.
    eta : bool, default True
        Show tqdm's estimate of the time left; False for tasks whose costs differ by orders
        of magnitude (the benchmark's methods), where an average per task misleads.

    Returns
    -------
    results : dict of str to TaskResult
        Every task's result, in task order (stored ones loaded, new ones as returned).
    info : dict
        ``n_resumed`` (loaded from the store), ``n_fitted`` (tasks run now), ``elapsed_s``
        (this call), ``backend`` (in words).

    Raises
    ------
    ValueError
        Duplicate task ids, a bad ``n_jobs``, or a store holding other settings.
    TypeError
        A ``scheduler`` that is neither an address nor a client, or ``fn`` not returning a
        :class:`TaskResult` of its task.
    ImportError
        A ``scheduler`` without dask.distributed installed.
    """
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"task ids must be unique; repeated: {dup}")
    n_jobs = check_n_jobs(n_jobs)
    check_scheduler(scheduler)
    done: dict[str, TaskResult] = {}
    if store is not None:
        store.open()
        done = {i: r for i, r in store.load_many(tasks).items() if r is not None}
    todo = [t for t in tasks if t.id not in done]
    by_id = {t.id: t for t in tasks}
    start = time.perf_counter()
    own_client = None
    if scheduler is not None:
        address = scheduler if isinstance(scheduler, str) else scheduler.scheduler.address
        backend = f"dask.distributed ({address})"
    else:
        backend = "in-process" if n_jobs == 1 else f"joblib ({n_jobs} processes)"
    if progressbar:
        from tqdm.auto import tqdm
    else:  # tqdm.auto warns in notebooks without ipywidgets even when disabled
        from tqdm import tqdm
    try:
        if not todo:
            stream = iter(())
        elif scheduler is not None:
            distributed = import_distributed()
            client = scheduler
            if isinstance(scheduler, str):
                own_client = client = distributed.Client(scheduler)
            stream = _run_dask(fn, todo, args, client, distributed)
        else:
            stream = _run_joblib(fn, todo, args, n_jobs)
        # in this process the tasks run in order, when the stream asks for the next one
        serial = scheduler is None and n_jobs == 1
        with tqdm(total=len(tasks), initial=len(done), desc=desc, unit=unit,
                  disable=not progressbar,
                  bar_format=None if eta else _BAR_WITHOUT_ETA) as bar, _ticking(bar):
            if serial and todo:
                bar.set_postfix_str(f"running {todo[0].id}")
            for i, result in enumerate(stream, start=1):
                if store is not None:
                    store.save(by_id[result.id], result)
                done[result.id] = result
                bar.set_postfix_str(f"running {todo[i].id}" if serial and i < len(todo)
                                    else f"done {result.id}", refresh=False)
                bar.update(1)
    finally:
        if own_client is not None:
            own_client.close()
    info = {"n_resumed": len(tasks) - len(todo), "n_fitted": len(todo),
            "elapsed_s": time.perf_counter() - start, "backend": backend}
    return {i: done[i] for i in ids}, info
