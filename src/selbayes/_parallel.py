"""Worker-process settings shared by the joblib back-ends (reproduce, cross_validate, sbc)."""

from __future__ import annotations


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
