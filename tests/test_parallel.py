"""joblib workers keep their compiled-model caches (loky would recycle them as 'leaking')."""

from __future__ import annotations

import os
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
