"""joblib workers keep their compiled-model caches (loky would recycle them as 'leaking')."""

from __future__ import annotations

import os
import signal
import time

import pytest

_HELD: list = []


def _task(i: int, keep: bool) -> int:
    if keep:
        from selbayes._parallel import keep_worker_caches

        keep_worker_caches()
    if i == 1:
        # a cache that grows after the first task, as compiled nutpie models do
        _HELD.append(bytearray(400 * 2**20))
    time.sleep(0.6)
    return os.getpid()


@pytest.mark.filterwarnings("ignore:A worker stopped:UserWarning")
@pytest.mark.parametrize("keep", [False, True])
def test_workers_are_not_recycled_when_their_cache_grows(keep):
    pytest.importorskip("psutil")  # loky only measures memory with psutil
    from joblib.externals.loky import get_reusable_executor

    # a fresh one-worker pool, so that no earlier test's worker (already patched) is reused
    executor = get_reusable_executor(max_workers=1, reuse=False, kill_workers=True)
    pids = list(executor.map(_task, range(6), [keep] * 6))
    executor.shutdown(kill_workers=True)
    # Without keep_worker_caches loky replaces the worker after the 400 MB growth (the check
    # runs at most once a second), so a second PID appears; with it, one worker does all.
    assert (len(set(pids)) == 1) == keep


# ------------------------------------------------------------------------- the shared runner
from selbayes._parallel import (  # noqa: E402
    Task,
    TaskResult,
    TaskStore,
    WorkerKilledError,
    run_tasks,
    write_atomic,
)

np = pytest.importorskip("numpy")


def _draw(task: Task, scale: float) -> TaskResult:
    """A task whose result depends only on its own seed (as every caller's tasks do)."""
    rng = np.random.default_rng(np.random.SeedSequence(task.params["seed"]))
    return TaskResult(task.id, {"x": scale * rng.normal(size=(3, 2))},
                      {"mean": float(rng.normal()), "seed": task.params["seed"]})


class _Counting:
    def __init__(self, fail_at=None):
        self.calls, self.fail_at = [], fail_at

    def __call__(self, task, scale):
        if task.id == self.fail_at:
            raise RuntimeError("interrupted")
        self.calls.append(task.id)
        return _draw(task, scale)


def _tasks(n=6):
    return [Task(f"t{i:02d}", {"seed": [7, i]}) for i in range(n)]


def _same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for k in a:
        assert a[k].arrays.keys() == b[k].arrays.keys()
        for name in a[k].arrays:
            np.testing.assert_array_equal(a[k].arrays[name], b[k].arrays[name])
        strip = ("wall_s", "worker_pid")
        assert ({m: v for m, v in a[k].meta.items() if m not in strip}
                == {m: v for m, v in b[k].meta.items() if m not in strip})


def test_interrupted_run_resumes_only_the_missing_tasks(tmp_path):
    reference, _ = run_tasks(_draw, _tasks(), args=(2.0,), progressbar=False)
    store = TaskStore(tmp_path, {"scale": 2.0})
    crashing = _Counting(fail_at="t03")
    with pytest.raises(RuntimeError, match="interrupted"):
        run_tasks(crashing, _tasks(), store, args=(2.0,), progressbar=False)
    assert crashing.calls == ["t00", "t01", "t02"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "manifest.json", *(f"t0{i}.{ext}" for i in range(3) for ext in ("json", "npz"))]
    assert store.done(_tasks()) == ["t00", "t01", "t02"]
    again = _Counting()
    results, info = run_tasks(again, _tasks(), TaskStore(tmp_path, {"scale": 2.0}),
                              args=(2.0,), progressbar=False)
    assert again.calls == ["t03", "t04", "t05"]
    assert info["n_resumed"] == 3 and info["n_fitted"] == 3
    _same(results, reference)  # stored and fresh results alike
    # nothing left: a third run computes nothing and loads everything
    third = _Counting()
    results, info = run_tasks(third, _tasks(), TaskStore(tmp_path, {"scale": 2.0}),
                              args=(2.0,), progressbar=False)
    assert third.calls == [] and info["n_resumed"] == 6
    _same(results, reference)


def test_results_of_another_selbayes_version_are_said_when_read_back(tmp_path):
    import json
    import warnings

    from selbayes._version import __version__

    run_tasks(_draw, _tasks(3), TaskStore(tmp_path, {}), args=(1.0,), progressbar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # the same version: nothing to say
        run_tasks(_draw, _tasks(3), TaskStore(tmp_path, {}), args=(1.0,), progressbar=False)
    record = json.loads((tmp_path / "t01.json").read_text())
    assert record["selbayes_version"] == __version__
    record["selbayes_version"] = "0.0.1"              # as an earlier release wrote it
    (tmp_path / "t01.json").write_text(json.dumps(record))
    again = _Counting()
    with pytest.warns(UserWarning, match=r"1 of the 3 results read back from .* computed by "
                                         r"selbayes 0\.0\.1, and this is selbayes "
                                         + __version__.replace(".", r"\.")
                                         + r": the run mixes versions \(e\.g\. t01\)"):
        results, info = run_tasks(again, _tasks(3), TaskStore(tmp_path, {}), args=(1.0,),
                                  progressbar=False)
    assert again.calls == [] and info["n_resumed"] == 3 and len(results) == 3


def test_a_write_that_fails_midway_leaves_no_file(tmp_path):
    def half_then_crash(path):
        path.write_bytes(b"half a file")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(tmp_path / "t00.npz", half_then_crash)
    assert list(tmp_path.iterdir()) == []
    # and a task whose arrays cannot be written is not marked finished
    store = TaskStore(tmp_path / "run", {})

    def unstorable(task):
        return TaskResult(task.id, {"x": np.array([{"a": 1}], dtype=object)})

    with pytest.raises(TypeError, match="Python objects"):  # they would need pickle
        run_tasks(unstorable, _tasks(1), store, progressbar=False)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["manifest.json"]


def test_changed_settings_are_refused_with_the_changed_keys(tmp_path):
    run_tasks(_draw, _tasks(2), TaskStore(tmp_path, {"scale": 1.0, "fit": {"draws": 10}}),
              args=(1.0,), progressbar=False)
    with pytest.raises(ValueError, match=r"different settings \(fit\.draws: 10 -> 20; "
                                         r"scale: 1\.0 -> 2\.0\)"):
        run_tasks(_draw, _tasks(2), TaskStore(tmp_path, {"scale": 2.0, "fit": {"draws": 20}}),
                  args=(2.0,), progressbar=False)
    assert TaskStore.read_settings(tmp_path) == {"scale": 1.0, "fit": {"draws": 10}}
    # a record stored under another task's name is refused, not silently reused
    (tmp_path / "t00.json").write_text((tmp_path / "t01.json").read_text())
    with pytest.raises(ValueError, match="t00.json does not belong to this run"):
        run_tasks(_draw, _tasks(2), TaskStore(tmp_path, {"scale": 1.0, "fit": {"draws": 10}}),
                  args=(1.0,), progressbar=False)


def test_changed_tasks_and_failed_results_can_be_rerun(tmp_path):
    def flagged(task):
        return TaskResult(task.id, meta={"failed": task.params["seed"][1] == 1})

    store = TaskStore(tmp_path, {}, changed_task="rerun",
                      rerun_if=lambda result: result.meta["failed"])
    run_tasks(flagged, _tasks(3), store, progressbar=False)
    counting = _Counting()
    changed = [Task("t00", {"seed": [8, 0]}), *_tasks(3)[1:]]
    _, info = run_tasks(counting, changed, store, args=(1.0,), progressbar=False)
    assert counting.calls == ["t00", "t01"]  # t00's parameters changed, t01 had failed
    assert info["n_resumed"] == 1


def test_joblib_processes_give_the_serial_results(tmp_path):
    serial, _ = run_tasks(_draw, _tasks(), TaskStore(tmp_path / "s", {}), args=(3.0,),
                          progressbar=False)
    par, info = run_tasks(_draw, _tasks(), TaskStore(tmp_path / "p", {}), args=(3.0,),
                          n_jobs=2, progressbar=False)
    assert info["backend"] == "joblib (2 processes)"
    _same(par, serial)
    assert len({r.meta["worker_pid"] for r in par.values()} - {os.getpid()}) >= 1


def _warns(task: Task) -> TaskResult:
    """Records whether a RuntimeWarning raised in the task reaches the warnings machinery."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:   # keeps the filters as they are
        warnings.warn("from a worker", RuntimeWarning, stacklevel=1)
    return TaskResult(task.id, {}, {"seen": len(seen), "pid": os.getpid()})


def test_workers_follow_the_callers_warning_filters(tmp_path):
    """A warning the caller ignores is ignored in the worker processes too (joblib's own
    Parallel starts workers with Python's default filters)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results, _ = run_tasks(_warns, _tasks(4), TaskStore(tmp_path / "a", {}), n_jobs=2,
                               progressbar=False)
    assert any(r.meta["pid"] != os.getpid() for r in results.values())
    assert [r.meta["seen"] for r in results.values()] == [0] * 4
    with warnings.catch_warnings():
        warnings.simplefilter("always", RuntimeWarning)
        results, _ = run_tasks(_warns, _tasks(4), TaskStore(tmp_path / "b", {}), n_jobs=2,
                               progressbar=False)
    assert [r.meta["seen"] for r in results.values()] == [1] * 4


def _killed_in_a_worker(task: Task, parent_pid: int) -> TaskResult:
    """t02 kills its own process when run in a worker, as the kernel's OOM killer would."""
    if task.id == "t02" and os.getpid() != parent_pid:
        os.kill(os.getpid(), signal.SIGKILL)
    return _draw(task, 1.0)


def test_a_killed_worker_is_said_in_one_message_and_the_finished_tasks_resume(tmp_path):
    with pytest.raises(WorkerKilledError) as info:
        run_tasks(_killed_in_a_worker, _tasks(4), TaskStore(tmp_path, {}),
                  args=(os.getpid(),), n_jobs=2, progressbar=False)
    text = str(info.value)
    assert "killed by the operating system" in text and "memory" in text
    assert "t02" in text.split("not finished: ")[1]
    assert "--jobs 1" in text
    finished = TaskStore(tmp_path, {}).done(_tasks(4))
    assert "t02" not in finished
    # in process nothing is killed: the rerun fits only what is missing
    results, run = run_tasks(_killed_in_a_worker, _tasks(4), TaskStore(tmp_path, {}),
                             args=(os.getpid(),), progressbar=False)
    assert run["n_resumed"] == len(finished) and run["n_fitted"] == 4 - len(finished)
    _same(results, run_tasks(_draw, _tasks(4), args=(1.0,), progressbar=False)[0])


def test_dask_cluster_gives_the_serial_results(tmp_path):
    distributed = pytest.importorskip("distributed")
    serial, _ = run_tasks(_draw, _tasks(), args=(3.0,), progressbar=False)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        by_address, info = run_tasks(_draw, _tasks(), TaskStore(tmp_path, {}), args=(3.0,),
                                     scheduler=cluster.scheduler_address, progressbar=False)
        assert info["backend"] == f"dask.distributed ({cluster.scheduler_address})"
        with distributed.Client(cluster) as client:
            by_client, _ = run_tasks(_draw, _tasks(), args=(3.0,), scheduler=client,
                                     progressbar=False)
            assert client.status == "running"  # a given client is left open
    _same(by_address, serial)
    _same(by_client, serial)


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="file-name-safe"):
        Task("../escape")
    with pytest.raises(ValueError, match=r"repeated: \['a'\]"):
        run_tasks(_draw, [Task("a"), Task("a")], progressbar=False)
    with pytest.raises(ValueError, match="n_jobs"):
        run_tasks(_draw, _tasks(1), n_jobs=0, progressbar=False)
    with pytest.raises(TypeError, match="scheduler"):
        run_tasks(_draw, _tasks(1), scheduler=3, progressbar=False)
    with pytest.raises(TypeError, match="must return a TaskResult"):
        run_tasks(lambda task: {"x": 1}, _tasks(1), progressbar=False)


def test_damaged_arrays_are_named_or_rerun(tmp_path):
    """A task's .npz damaged on disk is no result: computed again where changed tasks are
    rerun, and named with what to delete where they are refused (it stopped every rerun with
    zipfile's BadZipFile, naming no file)."""
    run_tasks(_draw, _tasks(2), TaskStore(tmp_path, {}), args=(1.0,), progressbar=False)
    (tmp_path / "t01.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(ValueError, match=r"t01\.npz is not a readable task file .*delete it "
                                         r"and t01\.json"):
        run_tasks(_draw, _tasks(2), TaskStore(tmp_path, {}), args=(1.0,), progressbar=False)
    counting = _Counting()
    _, info = run_tasks(counting, _tasks(2), TaskStore(tmp_path, {}, changed_task="rerun"),
                        args=(1.0,), progressbar=False)
    assert counting.calls == ["t01"] and info["n_resumed"] == 1
    # a stored record of other task parameters is stale; a missing or damaged one is not
    store = TaskStore(tmp_path, {}, changed_task="rerun")
    (tmp_path / "t00.json").write_text("{")
    assert store.stale([Task("t00", {}), Task("t01", {"seed": [8, 1]}), Task("t09", {})]) \
        == ["t01"]


def test_the_bar_names_the_running_task_and_its_time_moves(monkeypatch, capsys):
    """The bar named the task that had just finished (the benchmark showed a 1-second fit
    while a 4-minute one ran) and was redrawn only when a task ended, so its elapsed time
    stood still for minutes; with eta=False it gives no estimate of the time left."""
    import selbayes._parallel as par

    monkeypatch.setattr(par, "_TICK_SECONDS", (0.05, 0.05))

    def slow(task):
        time.sleep(0.4)
        return TaskResult(task.id)

    run_tasks(slow, _tasks(2), desc="fits", eta=False)
    err = capsys.readouterr().err
    assert "running t00" in err and "running t01" in err and "done t01" in err
    # redrawn while t00 ran: several frames before its end (each frame begins with \r)
    assert err.split("running t01")[0].count("\r") >= 4
    assert "<" not in err                                   # tqdm's [elapsed<remaining]
