"""Running the independent fits of a reproduction: persistence, resume and parallel back-ends.

Every fit is a task ``fit_fn(settings, task) -> FitResult``. Finished fits are written to
``DIR/fits/<fit-id>.npz`` (arrays) and ``DIR/fits/<fit-id>.json`` (metadata, written last, so
its presence marks a finished fit) by the main process as they complete; an interrupted run
keeps them and a rerun skips them. Each record carries the hash of the settings that produced
it, and ``DIR/fits/manifest.json`` the settings themselves: results of changed settings are
never mixed (the error names the keys that changed).

Back-ends: in-process (``n_jobs=1``), joblib processes (``n_jobs > 1``), or a dask.distributed
cluster (``scheduler`` address). Workers recompute the data from the settings (cached per
process) rather than receiving it, so no large arrays travel.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._parallel import keep_worker_caches
from .._records import jsonable
from .._version import __version__
from .spec import dict_diff, settings_hash

__all__ = ["FitTask", "FitResult", "FitStore", "run_fits", "jsonable"]

_FORMAT = 1


@dataclass(frozen=True)
class FitTask:
    """One independent fit: a file-name-safe id and JSON-serialisable parameters."""

    fit_id: str
    params: dict = field(default_factory=dict, hash=False)

    def __post_init__(self):
        if not self.fit_id or not all(c.isalnum() or c in "_-." for c in self.fit_id):
            raise ValueError(f"fit_id must be a file-name-safe identifier; got {self.fit_id!r}")


@dataclass
class FitResult:
    """What one fit leaves behind: named arrays and JSON-serialisable metadata."""

    fit_id: str
    arrays: dict[str, np.ndarray]
    meta: dict


def _write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    write(tmp)
    os.replace(tmp, path)  # an interrupted write never leaves a half file under the real name


class FitStore:
    """Finished fits of one run under ``out_dir/fits``.

    Parameters
    ----------
    out_dir : path
        The run's output folder.
    settings : dict
        Everything that changes a fit's result (JSON-serialisable); hashed into every record.
    """

    def __init__(self, out_dir, settings: dict):
        self.dir = Path(out_dir) / "fits"
        self.settings = jsonable(settings)
        self.hash = settings_hash(self.settings)

    def open(self) -> None:
        """Create the folder, or check that an existing one holds fits of these settings."""
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / "manifest.json"
        if path.exists():
            stored = json.loads(path.read_text())
            if stored.get("format") != _FORMAT or stored.get("settings_hash") != self.hash:
                diff = dict_diff(stored.get("settings", {}), self.settings)
                raise ValueError(
                    f"{self.dir} holds fits made with different settings ("
                    + ("; ".join(diff) if diff else "format changed")
                    + "). Refusing to mix them: use another --out folder, or delete "
                    f"{self.dir} to start afresh.")
        else:
            _write_atomic(path, lambda p: p.write_text(json.dumps(
                {"format": _FORMAT, "settings_hash": self.hash, "settings": self.settings},
                indent=1)))

    def task_hash(self, task: FitTask) -> str:
        return settings_hash({"settings": self.hash, "task": jsonable(task.params),
                              "fit_id": task.fit_id})

    def load(self, task: FitTask) -> FitResult | None:
        """The stored result of ``task``, or None when it has not finished."""
        meta_path = self.dir / f"{task.fit_id}.json"
        arr_path = self.dir / f"{task.fit_id}.npz"
        if not (meta_path.exists() and arr_path.exists()):
            return None
        record = json.loads(meta_path.read_text())
        if record.get("settings_hash") != self.task_hash(task):
            diff = dict_diff({"task": record.get("task", {})}, {"task": jsonable(task.params)})
            raise ValueError(
                f"{meta_path} was computed with different settings"
                + (f" ({'; '.join(diff)})" if diff else "")
                + ". Refusing to mix results: use another --out folder or delete the file.")
        with np.load(arr_path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        return FitResult(task.fit_id, arrays, record["meta"])

    def save(self, task: FitTask, result: FitResult) -> None:
        """Write the arrays, then the metadata (whose presence marks the fit finished)."""
        arrays = {k: np.asarray(v) for k, v in result.arrays.items()}

        def write_npz(path: Path) -> None:
            with path.open("wb") as fh:
                np.savez_compressed(fh, **arrays)

        _write_atomic(self.dir / f"{task.fit_id}.npz", write_npz)
        record = {"fit_id": task.fit_id, "task": jsonable(task.params),
                  "settings_hash": self.task_hash(task), "selbayes_version": __version__,
                  "meta": jsonable(result.meta)}
        _write_atomic(self.dir / f"{task.fit_id}.json",
                      lambda p: p.write_text(json.dumps(record, indent=1)))


# -------------------------------------------------------------------------------------------
# back-ends: each yields finished FitResults in completion order
# -------------------------------------------------------------------------------------------
def _call(fit_fn, settings, task: FitTask) -> FitResult:
    keep_worker_caches()
    start = time.perf_counter()
    result = fit_fn(settings, task)
    if not isinstance(result, FitResult) or result.fit_id != task.fit_id:
        raise TypeError(f"the fit function must return a FitResult for {task.fit_id!r}; got "
                        f"{type(result).__name__}")
    result.meta.setdefault("wall_s", time.perf_counter() - start)
    result.meta.setdefault("worker_pid", os.getpid())
    return result


def _run_joblib(fit_fn, settings, todo, n_jobs) -> Iterator[FitResult]:
    if n_jobs == 1:  # in process: no pickling, and monkeypatched fit functions are honoured
        for task in todo:
            yield _call(fit_fn, settings, task)
        return
    from joblib import Parallel, delayed

    yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(_call)(fit_fn, settings, task) for task in todo)


def _import_distributed():
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(
            "--scheduler needs dask.distributed, which is not installed; install the optional "
            "extra: pip install 'selbayes[distributed]'") from exc
    return distributed


def _run_dask(fit_fn, settings, todo, scheduler) -> Iterator[FitResult]:
    distributed = _import_distributed()
    client = scheduler if isinstance(scheduler, distributed.Client) else \
        distributed.Client(scheduler)
    futures = [client.submit(_call, fit_fn, settings, task, pure=False, key=f"fit-{task.fit_id}")
               for task in todo]
    try:
        for fut in distributed.as_completed(futures):
            yield fut.result()
    finally:  # on error or interruption, leave no work running on the cluster
        client.cancel([f for f in futures if not f.done()])
        if client is not scheduler:
            client.close()


def check_n_jobs(n_jobs) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0 \
            or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer (or -1 for all cores); got "
                         f"{n_jobs!r}")
    return int(n_jobs)


def run_fits(fit_fn, settings: dict, tasks: Sequence[FitTask], store: FitStore, *,
             n_jobs: int = 1, scheduler=None, progressbar: bool = True,
             desc: str = "fits") -> tuple[dict[str, FitResult], dict]:
    """Run every unfinished task, persisting each as it finishes; return all results.

    Parameters
    ----------
    fit_fn : callable
        ``fit_fn(settings, task) -> FitResult``; module-level (picklable) for parallel runs.
    settings : dict
        Passed to every call (small: workers rebuild data from it).
    tasks : sequence of FitTask
    store : FitStore
    n_jobs : int
        Local processes (joblib); ignored when ``scheduler`` is given.
    scheduler : str or distributed.Client, optional
        A dask.distributed scheduler address (or client).
    progressbar : bool
    desc : str
        Progress-bar label.

    Returns
    -------
    results : dict {fit_id: FitResult}, in task order
    info : dict
        ``n_resumed``, ``n_fitted``, ``elapsed_s`` of this call, ``backend``.
    """
    ids = [t.fit_id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError(f"fit ids must be unique; got {ids}")
    n_jobs = check_n_jobs(n_jobs)
    store.open()
    done: dict[str, FitResult] = {}
    for task in tasks:
        stored = store.load(task)
        if stored is not None:
            done[task.fit_id] = stored
    todo = [t for t in tasks if t.fit_id not in done]
    by_id = {t.fit_id: t for t in tasks}
    start = time.perf_counter()
    if scheduler is not None:
        backend = f"dask.distributed ({scheduler})"
        stream = _run_dask(fit_fn, settings, todo, scheduler) if todo else iter(())
    else:
        backend = "in-process" if n_jobs == 1 else f"joblib ({n_jobs} processes)"
        stream = _run_joblib(fit_fn, settings, todo, n_jobs) if todo else iter(())
    from tqdm.auto import tqdm

    with tqdm(total=len(tasks), initial=len(done), desc=desc, unit="fit",
              disable=not progressbar) as bar:
        for result in stream:
            store.save(by_id[result.fit_id], result)
            done[result.fit_id] = result
            bar.set_postfix_str(result.fit_id)
            bar.update(1)
    info = {"n_resumed": len(tasks) - len(todo), "n_fitted": len(todo),
            "elapsed_s": time.perf_counter() - start, "backend": backend}
    return {i: done[i] for i in ids}, info
