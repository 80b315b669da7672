"""The one nutpie wrapper of the PyMC models: compile once per cache key, swap data, sample.

The model-layer contract shared by :mod:`selbayes.models._gaussian` and
:mod:`selbayes.models._naive_bayes`:

- ``model_data(X_selected, y, ..., corrected=True)`` returns a dict. A name without a leading
  underscore is an array of the model's data; a name with one (``_adj_op``,
  ``_adj_spacing``) is a graph constant, part of the model's cache key, never swapped. The
  model built for reading holds each array in a ``pm.Data`` of its name; the compiled one
  holds them all in one vector (:mod:`selbayes.models._packed_data`: with nutpie's wrappers
  unpacking one ``pm.Data`` instead of eight, a new shape of the Gaussian model compiles in
  about two thirds of the time).
- ``n_omitted`` (float) is always present and multiplies the selection adjustment
  log P(statistic <= gamma | hyperparameters) (p - k omitted features). "Uncorrected" means
  ``n_omitted == 0``: ``corrected=False`` gives the same data as a selection that omitted
  nothing. Both models keep the Potential with a table that is 0 everywhere, so the corrected
  and uncorrected fits of one shape share one compiled model (the Gaussian model's table has
  a fixed range for every n < e^15; beyond it, and with its ``"exact"`` and ``"mc"``
  evaluations, the uncorrected Gaussian model drops the Potential and does not read
  ``n_omitted``).
- ``_model_from_data(data, prior, coords, ..., packed=False)`` builds the ``pm.Model`` from
  that dict alone, so a fit builds its model data once; ``packed=True`` gives the compiled
  form.

numba compilation takes tens of seconds while a small fit samples in about one, so
cross-validation folds, SBC replicates and, where the graph allows, the corrected/uncorrected
pair share one compiled model: :func:`sample_compiled` builds and compiles the model the first
time a cache key is seen and afterwards only swaps the ``pm.Data`` values in (nutpie's
``with_data``). The machine code is also kept on disk
(:func:`selbayes._compile_cache.compile_pymc_model`), so a later process reuses it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable

__all__ = ["sample_compiled", "clear_compiled"]

# (model name, shapes, graph constants, prior) -> (compiled nutpie model, pm.Model). One cache
# for every model: the keys start with the model's name, so they never collide.
_COMPILED: dict = {}


def clear_compiled() -> int:
    """Forget the compiled models of this process (the disk cache is kept).

    Returns
    -------
    int
        The number of compiled models dropped.
    """
    n = len(_COMPILED)
    _COMPILED.clear()
    return n


def _nutpie_shows_progress() -> bool:
    """Whether nutpie's own progress display is seen: on a terminal, or in a notebook."""
    return sys.stderr.isatty() or "ipykernel" in sys.modules


def sample_compiled(key: Hashable, build: Callable, data: dict, coords: dict, *, draws: int,
                    tune: int, chains: int, seed: int | None, target_accept: float,
                    progressbar: bool):
    """Sample a PyMC model with nutpie, compiling it once per ``key`` and reusing it.

    Parameters
    ----------
    key : hashable
        Everything that changes the compiled code: the model's name, its graph constants and
        its prior (the names and shapes of the data's arrays are added here). Two calls with
        equal keys must build models that differ only in their ``pm.Data`` values.
    build : callable
        ``build() -> pymc.Model``, called only when ``key`` is new; the model should give its
        ``pm.Data`` static shapes (they are part of the key), which lets pytensor drop runtime
        shape checks. A model whose data are packed (one ``pm.Data`` named
        :data:`~selbayes.models._packed_data.PACKED_NAME`, from
        :func:`~selbayes.models._packed_data.packed_views`) gets ``data`` packed the same way.
    data : dict
        The model's data (see the module docstring): the values of the model's ``pm.Data``
        are taken from it by name (or packed); names the model does not hold (graph
        constants) are not swapped.
    coords : dict
        Coordinate labels by dimension name (e.g. ``{"feature": (k,), "class": (G,)}``) for
        the result; the compiled model keeps those of its first fit.
    draws, tune, chains : int
        Kept draws per chain, warm-up draws per chain, and chains.
    seed : int or None
        Seed of nutpie.
    target_accept : float
        NUTS target acceptance probability, in (0, 1).
    progressbar : bool
        Show nutpie's progress bar (and a line on stderr before a compilation).

    Returns
    -------
    (xarray.DataTree, pymc.Model)
        The result, with its ``posterior`` and ``sample_stats`` coordinates relabelled to
        ``coords``, and the model of this key as first built (its ``pm.Data`` hold that first
        fit's values: rebuilding it for every fit would cost more than a small fit's
        sampling).

    Raises
    ------
    KeyError
        If ``data`` lacks a ``pm.Data`` of the model.

    Examples
    --------
    >>> import numpy as np, pymc as pm
    >>> def build():
    ...     with pm.Model() as model:
    ...         y = pm.Data("y", np.zeros(3), shape=(3,))
    ...         pm.Normal("obs", pm.Normal("m"), 1.0, observed=y)
    ...     return model
    >>> idata, model = sample_compiled(("demo", (3,)), build, {"y": np.ones(3)}, {},
    ...                                draws=100, tune=100, chains=1, seed=1,
    ...                                target_accept=0.8, progressbar=False)  # doctest: +SKIP
    >>> idata["posterior"]["m"].shape  # doctest: +SKIP
    (1, 100)
    """
    from .._compile_cache import compile_pymc_model, import_nutpie
    from .._interrupt import interrupts_reraised
    from ._packed_data import PACKED_NAME, pack, packed_layout

    nutpie = import_nutpie()
    # the layout of the data is part of the key: a packed model reads its arrays at fixed
    # offsets of one vector
    key = (key, tuple((name, shape) for name, shape, _ in packed_layout(data)))
    cached = _COMPILED.get(key)
    if cached is None:
        model = build()
        # The machine code is also cached on disk, so a new process skips its compilation.
        cached = _COMPILED[key] = (compile_pymc_model(model, progress=progressbar), model)
    compiled, model = cached
    compiled = compiled.with_data(**{
        v.name: pack(data) if v.name == PACKED_NAME else data[v.name]
        for v in model.data_vars})
    # nutpie draws its progress only in a terminal or a notebook: in a log file (nohup, CI,
    # a cluster job) sampling was a minute or more of silence
    announce = progressbar and not _nutpie_shows_progress()
    if announce:
        print(f"selbayes: sampling {chains} chain(s) of {tune} tuning and {draws} kept draws "
              f"with nutpie...", file=sys.stderr, flush=True)
        started = time.perf_counter()
    with interrupts_reraised():     # nutpie returns the draws so far (NaN-padded) on Ctrl-C
        idata = nutpie.sample(compiled, draws=draws, tune=tune, chains=chains, seed=seed,
                              progress_bar=progressbar, save_warmup=False,
                              target_accept=target_accept)
    if announce:
        print(f"selbayes: sampled in {time.perf_counter() - started:.0f} s", file=sys.stderr,
              flush=True)
    for group in ("posterior", "sample_stats"):
        if group in idata.children:
            ds = idata[group].to_dataset()
            ds = ds.assign_coords({c: v for c, v in coords.items() if c in ds.dims})
            idata[group] = type(idata[group])(ds)
    return idata, model
