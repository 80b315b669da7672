"""Simulation-based calibration (SBC, Talts et al. 2018) for any model in the package.

If a fitter returns the exact posterior, the rank of a parameter value drawn from the prior among
``L`` independent posterior draws (fitted to data simulated from that value) is uniform on
``{0, ..., L}``. SBC repeats this many times and tests the ranks for uniformity. For selbayes it is
the end-to-end check of the selection correction: the corrected posterior of ``tau_mu`` (Gaussian
model) or ``alpha`` (binary models) is calibrated, the uncorrected one is not.

The harness knows nothing about the model. It calls two user functions:

``simulator(rng) -> (data, truth)``
    Draws hyperparameters from the prior with the ``numpy.random.Generator`` ``rng``, simulates
    the data (all ``p`` features) and returns any ``data`` object plus ``truth``, a dict
    ``{param_name: float}`` of the true values.
``fitter(data, seed) -> posterior``
    Selects features, fits, and returns posterior draws, either as a dict
    ``{param_name: array}`` (shape ``(n_draws,)`` or ``(n_chains, n_draws)``) or as an ArviZ
    ``xarray.DataTree`` (or ``Dataset``) whose ``posterior`` group holds scalar variables with
    dims ``(chain, draw)``. ``seed`` is an ``int`` to pass to the sampler.

Both must be picklable (module-level functions) for ``n_jobs != 1`` or a dask cluster.

Ranks, thinning and uniformity tests
------------------------------------
* Draws are thinned to near-independent ones before ranking, because autocorrelated draws make
  the ranks non-uniform even for a correct posterior. ``thin_to=None`` (default) keeps every
  ``f``-th draw of each chain with ``f = ceil(n_total / min(ESS_bulk, ESS_tail))`` (ArviZ's
  ``thin_factor``, the rule of Säilynoja et al. 2022); ``thin_to=L`` keeps ``L`` equally spaced
  draws instead (use it for exact, independent draws, or to fix ``L``).
* Ties between the truth and draws (grid posteriors) are broken uniformly at random.
* Each rank ``r`` among ``L`` draws is also turned into a *fractional rank*
  ``u = (r + V) / (L + 1)``, ``V ~ Uniform(0, 1)``, which is exactly Uniform(0, 1) under
  calibration whatever ``L`` is, so replicates with different ``L`` can be pooled. Both tests use
  ``u``: Pearson's chi-square on equal-width bins (at most 20, expected count >= 5) and the ECDF
  simultaneous-band test of Säilynoja et al. (2022), whose p-value is the null probability of an
  ECDF at least as extreme at its most extreme evaluation point (simulated).

Reproducibility and resuming
----------------------------
Replicate ``i`` uses the ``i``-th child of ``SeedSequence(random_state)`` (as
``SeedSequence.spawn`` would give), split into independent streams for the simulator, the
fitter's seed and the tie-breaking, so results do not depend on ``n_jobs``, the cluster or the
order in which replicates finish. With ``out_dir``, each finished replicate is written at once to
``out_dir/rep_<index>.json`` (with its seed); a later call with the same settings loads those and
runs only the missing ones, so an interrupted run resumes and ``n_replicates`` can be raised.

References
----------
Talts, Betancourt, Simpson, Vehtari & Gelman (2018), "Validating Bayesian inference algorithms
with simulation-based calibration", arXiv:1804.06788.
Säilynoja, Bürkner & Vehtari (2022), "Graphical test for discrete uniformity and its applications
in goodness-of-fit evaluation and multiple sample comparison", Statistics and Computing 32, 32.

Examples
--------
>>> import numpy as np
>>> def simulator(rng):
...     mu = rng.normal()
...     return rng.normal(mu, 1.0, size=5), {"mu": mu}
>>> def fitter(y, seed):  # exact conjugate posterior N(sum y / 6, 1 / 6)
...     rng = np.random.default_rng(seed)
...     return {"mu": rng.normal(y.sum() / 6, 6 ** -0.5, size=99)}
>>> res = run_sbc(simulator, fitter, 100, ["mu"], random_state=1, thin_to=99,
...               progressbar=False)
>>> bool(res.p_values.loc["mu", "ecdf_p"] > 0.01)
True
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

from .._parallel import (
    Task,
    TaskResult,
    TaskStore,
    check_n_jobs,
    jsonable,
    root_seed,
    run_tasks,
    seed_state,
)
from .._validation import (
    check_flag,
    check_int,
    check_path,
    check_real,
    make_folder,
    numeric_array,
)

__all__ = [
    "run_sbc",
    "load_sbc",
    "SBCResult",
    "sbc_rank",
    "thin_draws",
    "chi2_uniformity",
    "ecdf_uniformity",
    "ecdf_band",
]

_MANIFEST = "sbc_manifest.json"
_MAX_BINS = 20
_MIN_EXPECTED = 5
_MAX_EVAL = 1000


# --------------------------------------------------------------------------------------------
# ranks and thinning
# --------------------------------------------------------------------------------------------
def sbc_rank(truth: float, draws, rng: np.random.Generator) -> tuple[int, float]:
    """Rank of ``truth`` among posterior ``draws``, ties broken at random.

    Parameters
    ----------
    truth : float
        True parameter value.
    draws : array-like of shape (L,)
        Posterior draws (already thinned).
    rng : numpy.random.Generator
        Source of the tie-breaking and of the fractional jitter.

    Returns
    -------
    rank : int
        Number of draws below ``truth`` plus a uniform share of the ties, in ``0..L``.
    frac_rank : float
        ``(rank + V) / (L + 1)`` with ``V ~ Uniform(0, 1)``: Uniform(0, 1) under calibration.

    Raises
    ------
    ValueError
        If ``truth`` is not a finite number, or ``draws`` is empty or not finite.
    TypeError
        If ``truth`` or ``draws`` is not numeric, or ``rng`` is not a numpy Generator.

    Examples
    --------
    >>> import numpy as np
    >>> sbc_rank(2.5, [1.0, 2.0, 3.0, 4.0], np.random.default_rng(0))[0]
    2
    """
    truth = check_real(truth, name="truth")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator; got {type(rng).__name__}")
    draws = _as_draws(draws).ravel()
    if draws.size == 0:
        raise ValueError("draws is empty: a rank needs at least one posterior draw")
    less = int(np.count_nonzero(draws < truth))
    ties = int(np.count_nonzero(draws == truth))
    rank = less + int(rng.integers(0, ties + 1))
    return rank, (rank + float(rng.random())) / (draws.size + 1)


def _as_draws(draws) -> np.ndarray:
    """Posterior draws as a finite float array (ValueError / TypeError naming ``draws``)."""
    arr = numeric_array(draws, "draws")
    if not np.isfinite(arr).all():
        raise ValueError("draws contain NaN or infinite values")
    return arr


def _check_thin_to(thin_to) -> int | None:
    if thin_to is not None and (isinstance(thin_to, bool | np.bool_)
                                or not isinstance(thin_to, numbers.Integral) or thin_to < 1):
        raise ValueError(f"thin_to must be None or a positive integer; got {thin_to!r}")
    return None if thin_to is None else int(thin_to)


def thin_draws(draws, thin_to: int | None = None) -> np.ndarray:
    """Thin posterior draws to near-independent ones.

    Parameters
    ----------
    draws : array-like of shape (n_draws,) or (n_chains, n_draws)
    thin_to : int or None
        ``None``: keep every ``f``-th draw of each chain, ``f = ceil(n_total / ESS)`` with
        ``ESS = min(bulk, tail)`` from ArviZ (no thinning if the ESS cannot be computed, e.g.
        constant draws). An int ``L``: keep ``L`` equally spaced draws of the chains laid end to
        end.

    Returns
    -------
    ndarray of shape (L,)

    Raises
    ------
    ValueError
        When ``thin_to`` is not None or a positive integer or exceeds the number of draws,
        or ``draws`` is not a non-empty finite array of 1 or 2 dimensions.
    TypeError
        If ``draws`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> thin_draws(np.arange(20.0).reshape(2, 10), thin_to=4).tolist()
    [0.0, 6.0, 13.0, 19.0]
    """
    arr = _as_draws(draws)
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"draws must have shape (n_draws,) or (n_chains, n_draws); got shape "
                         f"{arr.shape}")
    if arr.ndim == 1:
        arr = arr[None, :]
    total = arr.size
    thin_to = _check_thin_to(thin_to)
    if thin_to is not None:
        if thin_to > total:
            raise ValueError(f"thin_to={thin_to} exceeds the {total} posterior draws available")
        idx = np.round(np.linspace(0, total - 1, thin_to)).astype(np.int64)
        return arr.ravel()[idx]
    if arr.shape[1] < 4 or np.ptp(arr) == 0:
        return arr.ravel()
    from arviz_stats.base import array_stats  # lazy: arviz is slow to import

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        bulk = array_stats.ess(arr, method="bulk")
        tail = array_stats.ess(arr, method="tail", prob=0.95)
    ess = float(np.minimum(bulk, tail))
    factor = int(math.ceil(total / ess)) if np.isfinite(ess) and ess > 0 else 1
    return arr[:, :: max(factor, 1)].ravel()


def _posterior_draws(posterior, params: Sequence[str]) -> dict[str, np.ndarray]:
    """Extract ``(n_chains, n_draws)`` arrays of the named scalar variables."""
    if hasattr(posterior, "children") and "posterior" in posterior.children:  # DataTree
        source, kind = posterior["posterior"], "DataTree"
    elif hasattr(posterior, "data_vars"):  # Dataset or DataTree node
        source, kind = posterior, "Dataset"
    elif isinstance(posterior, Mapping):
        source, kind = posterior, "dict"
    else:
        raise TypeError(
            "fitter must return a dict {param: draws} or an ArviZ DataTree with a posterior "
            f"group; got {type(posterior).__name__}"
        )
    out = {}
    for name in params:
        if name not in source:
            raise ValueError(f"the fitter's {kind} has no posterior variable {name!r}")
        value = source[name]
        if kind != "dict":
            extra = [d for d in value.dims if d not in ("chain", "draw")]
            if extra or "draw" not in value.dims:
                raise ValueError(
                    f"posterior variable {name!r} must be a scalar with dims (chain, draw); "
                    f"got dims {value.dims}"
                )
            value = value.transpose(*[d for d in ("chain", "draw") if d in value.dims]).values
        # numeric_array: "a" was numpy's "could not convert string to float", True read as 1
        arr = numeric_array(value, f"posterior draws of {name!r}", must="be numbers")
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.size == 0:
            raise ValueError(
                f"posterior draws of {name!r} must have shape (n_draws,) or (n_chains, n_draws); "
                f"got shape {np.shape(value)}"
            )
        if not np.isfinite(arr).all():
            raise ValueError(f"posterior draws of {name!r} contain NaN or infinite values")
        out[name] = arr
    return out


# --------------------------------------------------------------------------------------------
# one replicate (module level so that it pickles for joblib and dask)
# --------------------------------------------------------------------------------------------
def _child_seed(root: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """Child ``index`` of ``root``, the same as ``root.spawn(n)[index]`` for a fresh ``root``."""
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, index), pool_size=root.pool_size
    )


def _run_replicate(task, root_state, simulator, fitter, params, thin_to):
    """Replicate ``task.params["index"]`` as a task of :func:`selbayes._parallel.run_tasks`."""
    index = task.params["index"]
    root = np.random.SeedSequence(**root_state)  # a seed_state dict
    seed = _child_seed(root, index)
    sim_ss, fit_ss, rank_ss = seed.spawn(3)
    start = time.perf_counter()
    out = simulator(np.random.default_rng(sim_ss))
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError("simulator(rng) must return a tuple (data, truth)")
    data, truth = out
    if not isinstance(truth, Mapping):
        raise TypeError(f"simulator's truth must be a dict {{param: value}}; got {type(truth)}")
    missing = [p for p in params if p not in truth]
    if missing:
        raise ValueError(f"simulator's truth lacks the parameter(s) {missing}")
    fit_seed = int(fit_ss.generate_state(1, dtype=np.uint32)[0])
    draws = _posterior_draws(fitter(data, fit_seed), params)
    rng = np.random.default_rng(rank_ss)
    state = seed_state(seed)
    rec = {"index": index, "seed": {k: state[k] for k in ("entropy", "spawn_key")},
           "rank": {}, "n_draws": {}, "frac_rank": {}, "truth": {}, "post_mean": {},
           "post_sd": {}}
    for name in params:
        t = numeric_array(truth[name], f"true value of {name!r}", must="be one finite number")
        if t.size != 1 or not np.isfinite(t).all():
            raise ValueError(
                f"true value of {name!r} must be one finite number; got {truth[name]!r}"
            )
        t = float(t.ravel()[0])
        kept = thin_draws(draws[name], thin_to)
        rank, frac = sbc_rank(t, kept, rng)
        rec["rank"][name] = rank
        rec["n_draws"][name] = int(kept.size)
        rec["frac_rank"][name] = frac
        rec["truth"][name] = t
        rec["post_mean"][name] = float(draws[name].mean())
        rec["post_sd"][name] = float(draws[name].std(ddof=1)) if draws[name].size > 1 else 0.0
    rec["elapsed_s"] = time.perf_counter() - start
    return TaskResult(task.id, meta=rec)


# --------------------------------------------------------------------------------------------
# storage
# --------------------------------------------------------------------------------------------
def _callable_name(f) -> str:
    target = getattr(f, "func", f)  # functools.partial
    name = getattr(target, "__qualname__", type(target).__qualname__)
    return f"{getattr(target, '__module__', type(target).__module__)}.{name}"


def _callable_settings(f):
    """What a simulator or fitter was made with (a dataclass's fields, a partial's arguments),
    as JSON, or None for a plain function: the name alone let a resume reuse replicates of
    another design, prior or sampler setting (``n = 40`` stored, ``n = 12`` asked)."""
    import dataclasses
    import functools

    if dataclasses.is_dataclass(f) and not isinstance(f, type):
        return _plain_setting(f)
    if isinstance(f, functools.partial):
        return {"args": _plain_setting(list(f.args)),
                "keywords": _plain_setting(dict(f.keywords)),
                "func": _callable_settings(f.func)}
    return None


def _plain_setting(value):
    """One setting as JSON for the run's fingerprint: numbers, text, lists and dicts as they
    are, a dataclass by its fields (read, not deep-copied: a lock or a model in a field is
    fine), a numeric array by its shape, dtype and a hash of its values, anything else by
    its type (never its str, whose memory address would change every run)."""
    import dataclasses
    import hashlib

    if value is None or isinstance(value, bool | int | float | str | np.generic):
        return jsonable(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()[:16]
        return {"array": list(value.shape), "dtype": str(value.dtype), "sha256": digest}
    if isinstance(value, Mapping):
        return {str(k): _plain_setting(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_setting(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {fl.name: _plain_setting(getattr(value, fl.name))
                for fl in dataclasses.fields(value)}
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def _rep_id(index: int) -> str:
    return f"rep_{index:06d}"


def _store(out_dir: Path, settings: dict) -> TaskStore:
    return TaskStore(out_dir, settings, manifest=_MANIFEST, what="SBC run")


# --------------------------------------------------------------------------------------------
# uniformity tests
# --------------------------------------------------------------------------------------------
def _check_frac(frac_ranks) -> np.ndarray:
    u = numeric_array(frac_ranks, "frac_ranks").ravel()
    if u.size < 2:
        raise ValueError(f"frac_ranks needs at least 2 values; got {u.size}")
    if not np.all((u >= 0) & (u <= 1)):
        raise ValueError("frac_ranks must lie in [0, 1]")
    return u


def _auto_bins(n: int) -> int:
    return int(max(2, min(_MAX_BINS, n // _MIN_EXPECTED)))


def chi2_uniformity(frac_ranks, n_bins: int | None = None) -> tuple[float, int, float]:
    """Pearson chi-square test that fractional ranks are Uniform(0, 1).

    Parameters
    ----------
    frac_ranks : array-like of shape (N,)
        Fractional ranks in [0, 1].
    n_bins : int, optional
        Number of equal-width bins; default ``min(20, N // 5)`` (at least 2) so that every
        expected count is at least 5.

    Returns
    -------
    statistic : float
    df : int
        ``n_bins - 1``.
    p_value : float

    Raises
    ------
    ValueError
        Fewer than 2 ranks, ranks outside [0, 1], or ``n_bins`` not an integer >= 2.
    TypeError
        If ``frac_ranks`` is not numeric.

    Warns
    -----
    UserWarning
        When the expected count per bin is below 5.

    Examples
    --------
    >>> import numpy as np
    >>> u = (np.arange(100) + 0.5) / 100          # perfectly even ranks
    >>> stat, df, p = chi2_uniformity(u, n_bins=10)
    >>> stat, df, p
    (0.0, 9, 1.0)
    """
    u = _check_frac(frac_ranks)
    n_bins = _auto_bins(u.size) if n_bins is None else check_int(n_bins, name="n_bins", low=2)
    if u.size / n_bins < _MIN_EXPECTED:
        warnings.warn(f"expected count per bin is {u.size / n_bins:.2g} < 5; the chi-square "
                      "p-value is approximate", stacklevel=2)
    counts = np.bincount(np.minimum((u * n_bins).astype(np.int64), n_bins - 1),
                         minlength=n_bins)
    res = stats.chisquare(counts)
    return float(res.statistic), n_bins - 1, float(res.pvalue)


def _check_settings(obj, minimums: dict) -> None:
    """Check a simulator's or fitter's integer settings (``{field: minimum}``), naming the
    class and the field; called by their ``__post_init__``, so that a bad setting is named when
    the object is made, not in the first replicate."""
    for name, minimum in minimums.items():
        try:
            check_int(getattr(obj, name), name=name, low=minimum)
        except ValueError as exc:
            raise ValueError(f"{type(obj).__name__}: {exc}") from None


def _check_prior_dict(obj, name: str, from_dict) -> None:
    """Check a simulator's or fitter's prior settings (a dict of fields) with ``from_dict``."""
    value = getattr(obj, name)
    if not isinstance(value, Mapping):
        raise TypeError(f"{type(obj).__name__}: {name} must be a dict of prior settings; got "
                        f"{type(value).__name__}")
    from_dict(dict(value))


def _n_eval(n: int, n_eval: int | None) -> int:
    if n_eval is None:
        k = min(n, _MAX_EVAL)
        if k < 2:
            raise ValueError(f"n_eval must be >= 2; got {k}")
        return k
    return check_int(n_eval, name="n_eval", low=2)


@lru_cache(maxsize=32)
def _tail_table(n: int, k: int) -> np.ndarray:
    """``min(P(X <= c), P(X >= c))`` for X ~ Binomial(n, j / k), shape (k - 1, n + 1)."""
    z = (np.arange(1, k) / k)[:, None]
    c = np.arange(n + 1)[None, :]
    table = np.minimum(special.bdtr(c, n, z), special.bdtrc(c - 1, n, z))  # bdtrc(-1) = 1
    table.flags.writeable = False
    return table


def _ecdf_tail_stat(counts: np.ndarray, n: int, k: int) -> np.ndarray:
    """``2 * min_j min(P(X <= c_j), P(X >= c_j))``, X ~ Binomial(n, j / k): small = extreme.

    ``counts`` has shape (rows, k - 1); a lookup table avoids evaluating binomial CDFs per row.
    """
    table = _tail_table(n, k)
    tails = table[np.arange(k - 1)[None, :], counts]
    return np.minimum(2 * tails.min(axis=-1), 1.0)


def _ecdf_counts(u: np.ndarray, k: int) -> np.ndarray:
    """Counts ``#(u <= j / k)`` for j = 1..k-1, rows of ``u`` being samples."""
    u = np.atleast_2d(u)
    rows = u.shape[0]
    cell = np.minimum((u * k).astype(np.int64), k - 1) + k * np.arange(rows)[:, None]
    hist = np.bincount(cell.ravel(), minlength=rows * k).reshape(rows, k)
    return np.cumsum(hist, axis=1)[:, :-1]


@lru_cache(maxsize=32)
def _ecdf_null(n: int, k: int, n_simulations: int, seed: int) -> np.ndarray:
    """Sorted null distribution of the ECDF tail statistic for ``n`` uniform values."""
    rng = np.random.default_rng(seed)
    chunk = max(1, 2_000_000 // max(n, k))  # bound memory
    out = np.empty(n_simulations)
    for start in range(0, n_simulations, chunk):
        rows = min(chunk, n_simulations - start)
        counts = _ecdf_counts(rng.random((rows, n)), k)
        out[start:start + rows] = _ecdf_tail_stat(counts, n, k)
    out.sort()
    out.flags.writeable = False
    return out


def _null_seed(random_state) -> int:
    if isinstance(random_state, bool | np.bool_):
        raise TypeError(f"random_state must be None, an int or a numpy Generator; got "
                        f"{random_state!r}")
    if isinstance(random_state, numbers.Integral):
        if random_state < 0:
            raise ValueError(f"random_state must be an int >= 0; got {random_state!r}")
        return int(random_state)
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    raise TypeError(f"random_state must be None, an int or a numpy Generator; got {random_state!r}")


def ecdf_uniformity(frac_ranks, n_eval: int | None = None, n_simulations: int = 10_000,
                    random_state=0) -> tuple[float, float]:
    """ECDF simultaneous-band test that fractional ranks are Uniform(0, 1).

    The ECDF is evaluated at ``z_j = j / K``, j = 1..K-1; under uniformity the count
    ``c_j = #(u <= z_j)`` is Binomial(N, z_j). The statistic is the smallest two-sided binomial
    tail probability over the ``z_j``; its null distribution is simulated, and the p-value is the
    null probability of a value at most as large. Rejecting when ``p < alpha`` is the same as the
    ECDF leaving the simultaneous ``1 - alpha`` band of :func:`ecdf_band` (Säilynoja et al. 2022).

    Parameters
    ----------
    frac_ranks : array-like of shape (N,)
    n_eval : int, optional
        Number of intervals ``K``; default ``min(N, 1000)``.
    n_simulations : int
        Null simulations (p-value resolution ``1 / (n_simulations + 1)``).
    random_state : int, Generator or None
        Seed of the null simulation (an int is cached and reproducible).

    Returns
    -------
    statistic : float
        Smallest two-sided binomial tail probability over the ``z_j``.
    p_value : float

    Raises
    ------
    ValueError
        Fewer than 2 ranks, ranks outside [0, 1], ``n_eval`` not an integer >= 2,
        ``n_simulations`` not a positive integer, or ``random_state`` a negative int.
    TypeError
        When ``random_state`` is not None, an int or a Generator, or ``frac_ranks`` is not
        numeric.

    Examples
    --------
    >>> import numpy as np
    >>> u = np.random.default_rng(0).uniform(size=200)
    >>> stat, p = ecdf_uniformity(u, n_simulations=500)
    >>> 0 < p <= 1
    True
    """
    u = _check_frac(frac_ranks)
    k = _n_eval(u.size, n_eval)
    n_simulations = check_int(n_simulations, name="n_simulations", low=1)
    null = _ecdf_null(u.size, k, n_simulations, _null_seed(random_state))
    stat = float(_ecdf_tail_stat(_ecdf_counts(u, k), u.size, k)[0])
    # a little slack so that floating-point noise does not split ties
    n_le = np.searchsorted(null, stat * (1 + 1e-10), side="right")
    return stat, float((1 + n_le) / (1 + null.size))


def ecdf_band(n: int, prob: float = 0.95, n_eval: int | None = None,
              n_simulations: int = 10_000, random_state=0):
    """Simultaneous ``prob`` band for the ECDF of ``n`` Uniform(0, 1) values.

    Parameters
    ----------
    n : int
        Number of values (SBC replicates).
    prob : float, default 0.95
        Simultaneous coverage of the band.
    n_eval : int, optional
        Number of intervals ``K``; default ``min(n, 1000)``.
    n_simulations : int
        Null simulations used to calibrate the band.
    random_state : int, Generator or None
        Seed of the null simulation (an int is cached and reproducible).

    Returns
    -------
    z : ndarray of shape (K + 1,)
        Evaluation points ``0, 1/K, ..., 1``.
    lower, upper : ndarray of shape (K + 1,)
        Band limits for the ECDF (fractions of ``n``) at ``z``.

    Raises
    ------
    ValueError
        When ``n`` is not an integer >= 2, ``prob`` is outside (0, 1), ``n_eval`` is not
        an integer >= 2, ``n_simulations`` not a positive integer, or ``random_state`` a
        negative int.
    TypeError
        When ``prob`` is not a number, or ``random_state`` is not None, an int or a
        Generator.

    Examples
    --------
    >>> z, lower, upper = ecdf_band(100, n_eval=10, n_simulations=500)
    >>> z.shape, bool((lower <= z).all() and (z <= upper).all())
    ((11,), True)
    """
    n = check_int(n, name="n", low=2, what="the number of ranks; a band needs at least 2")
    prob = check_real(prob, name="prob", low=0.0, high=1.0, closed="neither")
    k = _n_eval(n, n_eval)
    n_simulations = check_int(n_simulations, name="n_simulations", low=1)
    null = _ecdf_null(n, k, n_simulations, _null_seed(random_state))
    gamma = float(np.quantile(null, 1 - prob))  # adjusted pointwise level
    z = np.arange(k + 1) / k
    lower = stats.binom.ppf(gamma / 2, n, z) / n
    upper = stats.binom.ppf(1 - gamma / 2, n, z) / n
    return z, lower, upper


# --------------------------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------------------------
@dataclass
class SBCResult:
    """Outcome of :func:`run_sbc`.

    Attributes
    ----------
    params : tuple of str
    ranks : DataFrame (replicate x param) of int
        Rank of the truth among the thinned draws, ``0..n_draws``.
    n_draws : DataFrame (replicate x param) of int
        Number ``L`` of thinned draws each rank is out of.
    frac_ranks : DataFrame (replicate x param) of float
        Fractional ranks ``(rank + V) / (L + 1)``; Uniform(0, 1) under calibration.
    truth, post_mean, post_sd : DataFrame (replicate x param) of float
        True values, posterior means and standard deviations (all draws).
    elapsed_s : Series
        Wall time of each replicate in seconds.
    out_dir : Path or None
        Where replicates were saved.
    settings : dict
        Params, root seed entropy, thinning, simulator and fitter names, replicate count.

    Examples
    --------
    >>> import numpy as np
    >>> def simulator(rng):                  # mu ~ N(0, 1), x | mu ~ N(mu, 1)
    ...     mu = rng.normal()
    ...     return rng.normal(mu), {"mu": mu}
    >>> def fitter(x, seed):                 # exact posterior N(x / 2, 1 / 2)
    ...     rng = np.random.default_rng(seed)
    ...     return {"mu": rng.normal(x / 2, np.sqrt(0.5), size=99)}
    >>> res = run_sbc(simulator, fitter, 20, "mu", random_state=0, thin_to=99,
    ...               progressbar=False)
    >>> res.n_replicates, res.ranks.shape, int(res.n_draws.iloc[0, 0])
    (20, (20, 1), 99)
    """

    params: tuple[str, ...]
    ranks: pd.DataFrame
    n_draws: pd.DataFrame
    frac_ranks: pd.DataFrame
    truth: pd.DataFrame
    post_mean: pd.DataFrame
    post_sd: pd.DataFrame
    elapsed_s: pd.Series
    out_dir: Path | None = None
    settings: dict = field(default_factory=dict)

    @classmethod
    def _from_records(cls, records: Sequence[dict], params, out_dir, settings) -> SBCResult:
        index = pd.Index([r["index"] for r in records], name="replicate")

        def frame(key, dtype):
            return pd.DataFrame({p: [r[key][p] for r in records] for p in params},
                                index=index).astype(dtype)

        return cls(
            params=tuple(params), ranks=frame("rank", np.int64),
            n_draws=frame("n_draws", np.int64), frac_ranks=frame("frac_rank", np.float64),
            truth=frame("truth", np.float64), post_mean=frame("post_mean", np.float64),
            post_sd=frame("post_sd", np.float64),
            elapsed_s=pd.Series([r.get("elapsed_s", np.nan) for r in records], index=index,
                                name="elapsed_s"),
            out_dir=out_dir, settings=settings,
        )

    @property
    def n_replicates(self) -> int:
        """Number of replicates N."""
        return len(self.ranks)

    @property
    def z_scores(self) -> pd.DataFrame:
        """Posterior z-scores ``(post_mean - truth) / post_sd`` (Talts et al. 2018, sec. 5)."""
        return (self.post_mean - self.truth) / self.post_sd

    def uniformity(self, n_bins: int | None = None, n_eval: int | None = None,
                   n_simulations: int = 10_000, random_state=0) -> pd.DataFrame:
        """Chi-square and ECDF uniformity tests per parameter.

        Parameters
        ----------
        n_bins : int, optional
            Chi-square bins (see :func:`chi2_uniformity`).
        n_eval, n_simulations, random_state
            Settings of :func:`ecdf_uniformity`.

        Returns
        -------
        DataFrame indexed by param with columns ``chi2``, ``chi2_df``, ``chi2_p``,
        ``ecdf_stat``, ``ecdf_p``.

        Raises
        ------
        ValueError
            As :func:`chi2_uniformity` and :func:`ecdf_uniformity`.

        Examples
        --------
        >>> res.uniformity(n_bins=4, n_simulations=200).columns.tolist()  # doctest: +SKIP
        ['chi2', 'chi2_df', 'chi2_p', 'ecdf_stat', 'ecdf_p']
        """
        rows = {}
        # the tests' warnings (few ranks per bin) are the same for every parameter: said once
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            for p in self.params:
                chi2, df, chi2_p = chi2_uniformity(self.frac_ranks[p], n_bins)
                stat, ecdf_p = ecdf_uniformity(self.frac_ranks[p], n_eval, n_simulations,
                                               random_state)
                rows[p] = {"chi2": chi2, "chi2_df": df, "chi2_p": chi2_p, "ecdf_stat": stat,
                           "ecdf_p": ecdf_p}
        seen = set()
        for w in said:                          # each text once, in order, from its origin
            if (w.category, str(w.message)) not in seen:
                seen.add((w.category, str(w.message)))
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("param")

    @cached_property
    def default_uniformity(self) -> pd.DataFrame:
        """:meth:`uniformity` with its default settings, computed once: ``save``, the
        command line's verdict and ``summary`` each read it, and each computing it again
        printed its warnings (few ranks per bin) again."""
        return self.uniformity()

    @cached_property
    def p_values(self) -> pd.DataFrame:
        """``chi2_p`` and ``ecdf_p`` per parameter, with the default test settings."""
        return self.default_uniformity[["chi2_p", "ecdf_p"]]

    def summary(self, alpha: float = 0.01) -> pd.DataFrame:
        """One row per parameter.

        Columns: ``n_replicates``; ``mean_n_draws``; ``mean_frac_rank`` (0.5 expected; above it
        the posterior sits too low) and ``sd_frac_rank`` (``1/sqrt(12) = 0.289`` expected; above
        it the posterior is too narrow); the test results of :meth:`uniformity`; ``passed``
        (both p-values > ``alpha``).

        Parameters
        ----------
        alpha : float, default 0.01
            Level of both uniformity tests.

        Returns
        -------
        DataFrame indexed by param.

        Examples
        --------
        >>> res.summary()[["mean_frac_rank", "passed"]]               # doctest: +SKIP
        """
        tests = self.default_uniformity
        out = pd.DataFrame({
            "n_replicates": self.ranks.notna().sum(),
            "mean_n_draws": self.n_draws.mean(),
            "mean_frac_rank": self.frac_ranks.mean(),
            "sd_frac_rank": self.frac_ranks.std(ddof=1),
        }).rename_axis("param")
        out = out.join(tests)
        out["passed"] = (out["chi2_p"] > alpha) & (out["ecdf_p"] > alpha)
        return out

    def plot(self, n_bins: int | None = None, prob: float = 0.95):
        """Rank histograms and ECDF-difference plots with their bands; returns the Figure.

        Uses ``selbayes.evaluation.sbc_rank_plot`` when every rank is out of the same ``L``
        draws
        (e.g. with ``thin_to``); otherwise (ESS thinning gives each replicate its own ``L``) a
        built-in figure of the fractional ranks.

        Parameters
        ----------
        n_bins : int, optional
            Histogram bins.
        prob : float, default 0.95
            Simultaneous coverage of the ECDF band.

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> fig = res.plot()                                           # doctest: +SKIP
        """
        n_draws = np.unique(self.n_draws.to_numpy())
        if n_draws.size == 1:
            try:
                from ..evaluation._plots import sbc_rank_plot
            except ImportError:
                pass
            else:
                return sbc_rank_plot(self.ranks, int(n_draws[0]), n_bins=n_bins, ecdf_prob=prob)
        return _plot_sbc(self, n_bins=n_bins, prob=prob)

    def save(self, directory) -> dict[str, Path]:
        """Write ``sbc_ranks.csv`` (long form), ``sbc_summary.md`` and ``sbc_ranks.png``.

        Parameters
        ----------
        directory : path-like
            Created if missing; existing files of those names are overwritten.

        Returns
        -------
        dict mapping ``"csv"``, ``"summary"``, ``"png"`` to the written paths.

        Examples
        --------
        >>> paths = res.save("sbc_out")                                # doctest: +SKIP
        >>> sorted(paths)                                              # doctest: +SKIP
        ['csv', 'png', 'summary']
        """
        directory = make_folder(directory, "directory")
        long = pd.concat(
            {name: getattr(self, name).stack() for name in
             ("ranks", "n_draws", "frac_ranks", "truth", "post_mean", "post_sd")}, axis=1
        ).rename_axis(["replicate", "param"]).rename(columns={"ranks": "rank",
                                                              "frac_ranks": "frac_rank"})
        paths = {"csv": directory / "sbc_ranks.csv", "summary": directory / "sbc_summary.md",
                 "png": directory / "sbc_ranks.png"}
        long.to_csv(paths["csv"])
        table = self.summary()
        settings = "\n".join(f"- {k}: `{v}`" for k, v in self.settings.items())
        paths["summary"].write_text(
            "# Simulation-based calibration\n\n"
            f"{self.n_replicates} replicates. Uniformity of the fractional ranks: chi-square on "
            "equal bins and the ECDF simultaneous-band test (Säilynoja et al. 2022); "
            "`passed` means both p-values > 0.01.\n\n"
            f"{_markdown_table(table)}\n\n## Settings\n\n{settings}\n"
        )
        fig = self.plot()
        fig.savefig(paths["png"], dpi=120, bbox_inches="tight")
        import matplotlib.pyplot as plt

        plt.close(fig)
        return paths


def _markdown_table(df: pd.DataFrame) -> str:
    def fmt(v):
        if isinstance(v, float | np.floating):
            return f"{v:.4g}"
        return str(v)

    header = [df.index.name or "", *map(str, df.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for idx, row in df.iterrows():
        lines.append("| " + " | ".join([str(idx), *map(fmt, row.tolist())]) + " |")
    return "\n".join(lines)


def _plot_sbc(result: SBCResult, n_bins=None, prob=0.95):
    """Per parameter: histogram of fractional ranks with a 99% binomial band, and the ECDF
    difference ``ECDF(u) - u`` inside the simultaneous ``prob`` band."""
    import matplotlib.pyplot as plt

    n_par = len(result.params)
    fig, axes = plt.subplots(n_par, 2, figsize=(9, 3 * n_par), squeeze=False)
    for row, p in zip(axes, result.params, strict=True):
        u = np.sort(result.frac_ranks[p].to_numpy())
        n = u.size
        bins = _auto_bins(n) if n_bins is None else n_bins
        lo, hi = stats.binom.ppf([0.005, 0.995], n, 1 / bins)
        row[0].axhspan(lo, hi, color="0.85", label="99% band")
        row[0].axhline(n / bins, color="0.4", lw=1)
        row[0].hist(u, bins=np.linspace(0, 1, bins + 1), color="C0", edgecolor="white")
        row[0].set(xlabel="fractional rank", ylabel="count", title=f"{p}: rank histogram")
        row[0].legend(loc="lower right", fontsize=8)
        z, lower, upper = ecdf_band(n, prob)
        row[1].fill_between(z, lower - z, upper - z, step="mid", color="0.85",
                            label=f"{prob:.0%} simultaneous band")
        ecdf = np.searchsorted(u, z, side="right") / n
        row[1].step(z, ecdf - z, where="post", color="C0")
        row[1].axhline(0, color="0.4", lw=1)
        row[1].set(xlabel="fractional rank", ylabel="ECDF - uniform",
                   title=f"{p}: ECDF difference")
        row[1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------
def _check_args(simulator, fitter, n_replicates, params, n_jobs, thin_to):
    if not callable(simulator):
        raise TypeError(f"simulator must be callable; got {type(simulator).__name__}")
    if not callable(fitter):
        raise TypeError(f"fitter must be callable; got {type(fitter).__name__}")
    # one replicate gives one rank: nothing to test for uniformity (and the summary refused
    # it only after every fit had run)
    check_int(n_replicates, name="n_replicates", low=2, what="one rank per replicate; the "
              "uniformity tests need at least 2")
    if isinstance(params, str):
        params = [params]
    params = list(params)
    if not params or not all(isinstance(p, str) for p in params):
        raise ValueError(f"params must be a non-empty list of parameter names; got {params!r}")
    if len(set(params)) != len(params):
        raise ValueError(f"params has duplicate names: {params}")
    check_n_jobs(n_jobs)
    return params, _check_thin_to(thin_to)


def run_sbc(simulator: Callable, fitter: Callable, n_replicates: int, params, *,
            random_state=None, n_jobs: int = 1, scheduler: str | None = None, client=None,
            out_dir=None, thin_to: int | None = None, progressbar: bool = True) -> SBCResult:
    """Run simulation-based calibration.

    Parameters
    ----------
    simulator : callable ``simulator(rng) -> (data, truth)``
        Draws the parameters from the prior and simulates data; ``truth`` is a dict
        ``{param: float}``.
    fitter : callable ``fitter(data, seed) -> posterior``
        Returns posterior draws: a dict ``{param: array}`` of shape ``(n_draws,)`` or
        ``(n_chains, n_draws)``, or an ArviZ DataTree with a ``posterior`` group.
    n_replicates : int
        Number of replicates ``N``, >= 2 (a few hundred for a useful test).
    params : str or sequence of str
        Scalar parameters to rank.
    random_state : int, SeedSequence, Generator or None
        Root seed; replicate ``i`` uses its ``i``-th spawned child. ``None`` resumes with the
        seed stored in ``out_dir`` if there is one, else uses fresh entropy.
    n_jobs : int
        joblib worker processes (``-1``: all cores); ignored on a dask cluster.
    scheduler : str, optional
        Address of a ``dask.distributed`` scheduler (e.g. ``"tcp://host:8786"``).
    client : distributed.Client, optional
        An existing dask client (mutually exclusive with ``scheduler``).
    out_dir : path-like, optional
        Directory for per-replicate results and the run's manifest; enables resuming.
    thin_to : int, optional
        Number of draws to keep (equally spaced); default thins by ``n_draws / ESS``.
    progressbar : bool
        Show a tqdm progress bar.

    Returns
    -------
    SBCResult

    Raises
    ------
    ValueError
        If ``out_dir`` holds a run with other params, seed, thinning, simulator or fitter
        (their class, and the fields of a dataclass simulator or fitter: design, priors,
        sampler settings), or ``out_dir`` is a file.
        Also for bad ``n_replicates``, ``params``, ``n_jobs``, ``thin_to`` or
        ``random_state``, both ``client`` and ``scheduler``, a ``thin_to`` above the number of
        draws, or a simulator/fitter output that lacks a parameter or holds non-finite draws.
    TypeError
        A simulator or fitter that is not callable or returns the wrong type, a
        ``scheduler`` that is not a string, a ``progressbar`` that is not a bool, or an
        ``out_dir`` that is not a path.
    ImportError
        If a cluster is requested and ``distributed`` is not installed.

    Warns
    -----
    UserWarning
        When ``out_dir`` holds a run stored before the simulator's and fitter's settings were
        recorded (their settings cannot be compared; the stored replicates are reused).

    Examples
    --------
    >>> import numpy as np
    >>> def simulator(rng):                  # mu ~ N(0, 1), x | mu ~ N(mu, 1)
    ...     mu = rng.normal()
    ...     return rng.normal(mu), {"mu": mu}
    >>> def fitter(x, seed):                 # exact posterior N(x / 2, 1 / 2)
    ...     rng = np.random.default_rng(seed)
    ...     return {"mu": rng.normal(x / 2, np.sqrt(0.5), size=99)}
    >>> res = run_sbc(simulator, fitter, 50, "mu", random_state=1, thin_to=99,
    ...               progressbar=False)
    >>> int(res.ranks["mu"].min()) >= 0 and int(res.ranks["mu"].max()) <= 99
    True
    """
    params, thin_to = _check_args(simulator, fitter, n_replicates, params, n_jobs, thin_to)
    check_flag(progressbar, "progressbar")
    out_dir = None if out_dir is None else make_folder(out_dir, "out_dir")
    if client is not None and scheduler is not None:
        raise ValueError("give either client or scheduler, not both")
    if scheduler is not None and not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be an address string; got {type(scheduler).__name__}")

    out_path = None if out_dir is None else Path(out_dir)
    stored = None if out_path is None else TaskStore.read_settings(out_path, _MANIFEST)
    root = root_seed(random_state, stored)
    # n_replicates is not a setting: a rerun with more replicates adds to the stored ones
    settings = {"params": params, **seed_state(root), "thin_to": thin_to,
                "simulator": _callable_name(simulator), "fitter": _callable_name(fitter),
                "simulator_settings": _callable_settings(simulator),
                "fitter_settings": _callable_settings(fitter)}
    if stored is not None:
        from .._compat import current_name

        # a run started before the package layout changed names its classes by their old
        # modules: the same class under its old name keeps the stored name (and hash)
        for key in ("simulator", "fitter"):
            if stored.get(key) != settings[key] and current_name(stored.get(key)) == settings[key]:
                settings[key] = stored[key]
        if "simulator_settings" not in stored:
            # A run stored before its simulator's and fitter's settings were recorded: they
            # cannot be compared, so the stored replicates are taken as made with these.
            del settings["simulator_settings"], settings["fitter_settings"]
            warnings.warn(f"{out_path} holds an SBC run stored without its simulator's and "
                          "fitter's settings: its replicates are reused as if made with "
                          "these ones; delete the folder if the design, priors or sampler "
                          "changed", UserWarning, stacklevel=2)
    tasks = [Task(_rep_id(i), {"index": i}) for i in range(n_replicates)]
    results, _ = run_tasks(
        _run_replicate, tasks, None if out_path is None else _store(out_path, settings),
        args=(seed_state(root), simulator, fitter, params, thin_to),
        n_jobs=n_jobs, scheduler=client if client is not None else scheduler,
        progressbar=progressbar, desc="SBC", unit="rep")
    records = [results[t.id].meta for t in tasks]
    settings = {k: settings[k] for k in ("params", "entropy", "thin_to", "simulator", "fitter")}
    settings["n_replicates"] = n_replicates
    return SBCResult._from_records(records, params, out_path, settings)


def load_sbc(out_dir) -> SBCResult:
    """Load every replicate saved in ``out_dir`` by :func:`run_sbc` (without running any).

    Replicates are taken in index order ``0, 1, ...`` up to the first missing one.

    Parameters
    ----------
    out_dir : path-like
        The ``out_dir`` of an earlier :func:`run_sbc` call.

    Returns
    -------
    SBCResult

    Raises
    ------
    ValueError
        When ``out_dir`` has no manifest, no finished replicate, or a replicate that does not
        match the manifest.
    TypeError
        When ``out_dir`` is not a path.

    Examples
    --------
    >>> res = load_sbc("sbc_runs/gaussian")                           # doctest: +SKIP
    """
    out_path = Path(check_path(out_dir, "out_dir"))
    stored = TaskStore.read_settings(out_path, _MANIFEST)
    if stored is None:
        raise ValueError(f"out_dir {str(out_path)!r} has no {_MANIFEST}; not an SBC run")
    store = _store(out_path, stored)
    records = []
    while (rec := store.load_id(_rep_id(len(records)))) is not None:
        records.append(rec.meta)
    if not records:
        raise ValueError(f"out_dir {str(out_path)!r} holds no finished replicate")
    settings = {k: stored[k] for k in ("params", "entropy", "thin_to", "simulator", "fitter")}
    settings["n_replicates"] = len(records)
    return SBCResult._from_records(records, stored["params"], out_path, settings)
