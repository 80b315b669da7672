"""Timed fits for the reproduction runners: the seconds a fit takes and the warnings it raises."""

from __future__ import annotations

import contextlib
import time
import warnings


@contextlib.contextmanager
def recording_warnings():
    """Record every warning raised in the block; yields a list, filled on exit with the distinct
    warnings as ``"Category: first line"``, sorted (one fit, or all folds of a CV run)."""
    messages: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield messages
    messages += sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}"
                        for w in caught})


def fit_recording_warnings(clf, X, y) -> tuple[float, list[str]]:
    """Fit ``clf`` on (X, y) with every warning recorded.

    Returns
    -------
    fit_s : float
        Wall time of ``clf.fit`` (seconds).
    messages : list of str
        The distinct warnings, ``"Category: first line"``, sorted.
    """
    t0 = time.perf_counter()
    with recording_warnings() as messages:
        clf.fit(X, y)
    return time.perf_counter() - t0, messages


def timed_proba(clf, X):
    """``clf.predict_proba(X)`` (shape (T, G)) and its wall time in seconds."""
    t0 = time.perf_counter()
    proba = clf.predict_proba(X)
    return proba, time.perf_counter() - t0
