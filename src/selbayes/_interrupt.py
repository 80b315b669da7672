"""Ctrl-C while sampling stops the program, as it does everywhere else.

nutpie's ``sample`` and PyMC's ``pm.sample`` catch KeyboardInterrupt and return the draws made
so far (nutpie pads the rest with NaN). In a fit that read as a broken posterior ("tau_mu
contains NaN or infinite draws": ``selbayes fit`` exited with the status of an input error),
and ``selbayes benchmark`` recorded a failed fold and went on to the next.
:func:`interrupts_reraised` notes a KeyboardInterrupt raised by a signal handler (SIGINT, and
SIGTERM where a handler turns it into one, as the command line does) while a sampler runs,
and raises it again when the sampler returns.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

__all__ = ["interrupts_reraised"]


@contextmanager
def interrupts_reraised():
    """Raise KeyboardInterrupt after the block if a signal raised one inside it that the block
    caught (a sampler that returns its draws so far).

    Only the main thread receives signals (Python's rule): elsewhere the block runs as it
    is. A handler that does not raise KeyboardInterrupt (SIG_DFL, SIG_IGN, or one of the
    caller's own that goes on) is left as it is.

    Raises
    ------
    KeyboardInterrupt
        If an interrupt arrived while the block ran, whether the block caught it, raised it,
        or failed in another way after it (chained).

    Examples
    --------
    >>> import os
    >>> def sampler():                  # a sampler that keeps its draws on Ctrl-C
    ...     try:
    ...         os.kill(os.getpid(), signal.SIGINT)
    ...     except KeyboardInterrupt:
    ...         return "draws so far"
    >>> try:
    ...     with interrupts_reraised():
    ...         draws = sampler()
    ... except KeyboardInterrupt:
    ...     print("interrupted")
    interrupted
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen: list[int] = []
    installed = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(sig)
        if not callable(previous):
            continue

        def noting(signum, frame, previous=previous):
            try:
                previous(signum, frame)
            except KeyboardInterrupt:
                seen.append(signum)
                raise

        installed[sig] = previous
        signal.signal(sig, noting)
    try:
        yield
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        if seen:
            raise KeyboardInterrupt from exc
        raise
    else:
        if seen:
            raise KeyboardInterrupt
    finally:
        for sig, previous in installed.items():
            signal.signal(sig, previous)
