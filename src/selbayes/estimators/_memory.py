"""The memory a fit of the Gaussian classifier will hold, checked before it samples.

A fit keeps per-draw arrays whose size grows with k x G: the exact draws of the class means
(``idata_.posterior["mu"]``, chains x draws x k x G), the per-draw predictive moments used by
``predict_proba`` (two arrays of up to ``max_predict_draws`` x k x G) and the draws of each
gene's precision (and scale, under the t prior). With ten classes and k = 10 000 that is about
6 GB in float64; on 2026-11-28 such a fit of the default (k continued past 2000 where the
inner score asked for it) was killed by the operating system for memory, with no message.
:func:`check_fit_memory` warns before sampling instead, naming the size and the fixes.
"""

from __future__ import annotations

import os

from ._base import warn_at_user

__all__ = ["FitMemoryWarning", "posterior_bytes", "available_memory_bytes", "check_fit_memory"]

#: Warn when a fit would hold more than this share of the memory available when it starts.
MEMORY_SHARE = 0.5


class FitMemoryWarning(UserWarning):
    """A fit is about to hold a large share of the machine's available memory."""


def posterior_bytes(k: int, n_classes: int, chains: int, draws: int,
                    max_predict_draws: int | None, t_prior: bool = True) -> int:
    """Bytes of the float64 arrays a fit keeps that grow with k (the posterior and the
    predictive state; temporaries come on top, in blocks of about 200 MB).

    Parameters
    ----------
    k : int
        Kept features.
    n_classes : int
        G.
    chains, draws : int
        Chains and draws per chain kept (the plug-in fit: one chain of ``draws``).
    max_predict_draws : int or None
        Draws kept for prediction (None: all).
    t_prior : bool
        Whether each gene also has a scale lambda_j drawn (the t prior).

    Returns
    -------
    int

    Examples
    --------
    >>> posterior_bytes(10_000, 10, 4, 1000, 1000) / 1e9       # 4 x 1000 draws, 10 classes
    5.76
    """
    S = chains * draws
    S_pred = S if max_predict_draws is None else min(S, max_predict_draws)
    per_draw_genes = 2 + int(t_prior)          # tau_x, nu and (t prior) lambda_mu
    return 8 * k * (S * n_classes + S * per_draw_genes + 2 * S_pred * n_classes)


def available_memory_bytes() -> int | None:
    """Memory available to new allocations, in bytes: Linux's MemAvailable, else the
    physical memory where the system reports it (macOS), else None (not known).

    Returns
    -------
    int or None

    Examples
    --------
    >>> got = available_memory_bytes()
    >>> got is None or got > 0
    True
    """
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check_fit_memory(k: int, n_classes: int, chains: int, draws: int,
                     max_predict_draws: int | None, *, t_prior: bool = True,
                     available: int | None = None) -> int:
    """Warn (:class:`FitMemoryWarning`) when a fit would hold more than
    :data:`MEMORY_SHARE` of the available memory.

    Parameters
    ----------
    k, n_classes, chains, draws, max_predict_draws, t_prior
        As in :func:`posterior_bytes`.
    available : int, optional
        Bytes available; default :func:`available_memory_bytes` (no warning when unknown).

    Returns
    -------
    int
        The bytes the fit will hold (:func:`posterior_bytes`).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = check_fit_memory(10_000, 10, 4, 1000, 1000, available=8 * 10**9)
    >>> str(w[0].message).split(" (")[0]
    'this fit will hold about 5.8 GB of posterior draws'
    """
    need = posterior_bytes(k, n_classes, chains, draws, max_predict_draws, t_prior)
    if available is None:
        available = available_memory_bytes()
    if available is not None and need > MEMORY_SHARE * available:
        warn_at_user(
            f"this fit will hold about {need / 1e9:.1f} GB of posterior draws (k = {k} "
            f"features x {n_classes} classes x {chains * draws} draws), more than half of the "
            f"{available / 1e9:.1f} GB of memory available; if it is killed for memory, pass "
            f"fewer draws (draws=), a fixed smaller k (k=), or method='plugin' (one chain)",
            FitMemoryWarning)
    return need
