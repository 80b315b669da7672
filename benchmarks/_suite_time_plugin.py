"""pytest plugin of ``benchmarks/suite_time.py``: logs each test's wall time and each model
nutpie compiles (a miss of :mod:`selbayes._compile_cache`) to the JSON-lines file named by
``$SUITE_TIME_LOG``, one line per event, from every xdist worker."""

from __future__ import annotations

import json
import os
import time

_LOG = os.environ.get("SUITE_TIME_LOG")
_state = {"test": None, "start": {}, "active": False}


def _write(row: dict) -> None:
    with open(_LOG, "a") as f:
        f.write(json.dumps(row) + "\n")


def pytest_configure(config):
    # only in the processes that run tests (xdist's workers, or the one process without
    # xdist): xdist's controller sees every test's start and finish too
    worker = hasattr(config, "workerinput")
    _state["active"] = bool(_LOG) and (worker or not config.getoption("numprocesses", None))
    if not _state["active"]:
        return
    from selbayes import _compile_cache

    compile_ = _compile_cache._compile

    def logged(model, meta_path, *args, **kwargs):
        t0 = time.perf_counter()
        out = compile_(model, meta_path, *args, **kwargs)
        names, _, shapes = out.shape_info
        _write({"event": "compile", "test": _state["test"],
                "seconds": round(time.perf_counter() - t0, 2),
                "free": [f"{n}{list(map(int, s))}" for n, s in zip(names, shapes, strict=True)
                         if not n.endswith("__")]})
        return out

    _compile_cache._compile = logged


def pytest_runtest_logstart(nodeid, location):
    _state["test"] = nodeid
    _state["start"][nodeid] = time.time()


def pytest_runtest_logfinish(nodeid, location):
    start = _state["start"].pop(nodeid, None)
    if _state["active"] and start is not None:
        _write({"event": "test", "test": nodeid, "seconds": round(time.time() - start, 3),
                "pid": os.getpid()})
