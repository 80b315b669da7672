"""Compiled models that persist across processes, and where selbayes keeps its caches.

Measured on the Gaussian model (k = 10, two classes; ``benchmarks/bench_first_fit.py``): in a
new process, ``nutpie.compile_pymc_model`` spends ~1.4 s building and rewriting the pytensor
graph (pytensor's own numba cache already makes that part fast) and ~8 s (18 s with empty
caches) in ``numba.cfunc``, compiling nutpie's C-callable wrappers around the logp and expand
functions. numba cannot cache those wrappers itself: nutpie keys the shared data by fresh
``uuid4`` names, so the closure (and with it numba's cache index) differs in every process.
The wrappers unpack every shared variable with code numba compiles per variable, so the
models hold all their data in one (:mod:`selbayes.models._packed_data`).

This module therefore does what ``compile_pymc_model`` does, with the shared-data keys named
by position, and stores the wrappers' machine code (numba's object-code serialisation, the
same format numba's own cache uses) in the user cache folder. The cache key is everything that
changes that code: the hashes pytensor gives the generated logp and expand functions (graph
structure, constants, static shapes), the layout of the shared data, and the versions of
Python, numba, llvmlite, pytensor, pymc, nutpie and selbayes and the CPU. A later process pays
only the graph step.

Concurrent processes (joblib or pytest-xdist workers, notebooks next to a command line): one
process at a time compiles a given model, holding an OS file lock (``locks/<key>.lock``,
released by the OS even if the holder crashes); the others wait for it and then read its
entry. Entries are written to a temporary name and renamed into place, so no process ever reads
a half-written entry, also when the lock cannot be taken (then the last writer wins; entries
for one key are interchangeable).

The cache folder is ``platformdirs.user_cache_dir("selbayes")`` unless the environment
variable ``SELBAYES_CACHE_DIR`` names another. Inside it: ``models/`` (this module's
entries), ``locks/`` (one empty lock file per model), ``pytensor/`` (pytensor's compiledir,
including its numba cache) and ``generated_src/`` (the Python source pytensor generates,
which it otherwise leaves in the system temporary folder). :func:`configure_pytensor` points
pytensor there; it must run before pytensor is first imported to move the compiledir (the
source folder can move at any time).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import platform
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

__all__ = ["cache_dir", "configure_pytensor", "compile_pymc_model", "cache_info",
           "clear_cache", "expected_compile_seconds", "import_nutpie", "OWN_FOLDERS"]

_FORMAT = 1                      # bump when the entry layout changes
_last_event: dict = {}           # for tests: "hit" / "miss" of the last compile
_fastmath_done = False           # configure_pytensor has set numba's fast math in this process
_memo: dict = {}


def cache_dir() -> Path:
    """The folder selbayes keeps compiled models in.

    Returns
    -------
    pathlib.Path
        ``$SELBAYES_CACHE_DIR`` if set, else ``platformdirs.user_cache_dir("selbayes")``
        (``~/.cache/selbayes`` on Linux). Not created here.
    """
    env = os.environ.get("SELBAYES_CACHE_DIR")
    if env:
        return Path(env).expanduser().absolute()
    import platformdirs

    return Path(platformdirs.user_cache_dir("selbayes"))


def configure_pytensor() -> None:
    """Point pytensor's compiledir and generated-source folder into :func:`cache_dir`, and turn
    numba's fast math off.

    Without this pytensor writes one generated ``.py`` file per compiled function into the
    system temporary folder and never removes it. An explicit ``PYTENSOR_FLAGS`` setting of
    ``base_compiledir``, ``generated_src_dir`` or ``numba__fastmath`` wins. The compiledir can
    only be moved before pytensor is imported (selbayes imports it lazily, after calling this);
    the source folder and fast math are set on the live config otherwise (fast math once per
    process).
    """
    global _fastmath_done
    root = cache_dir()
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    if "pytensor" not in sys.modules:
        extra = []
        if "base_compiledir" not in flags and "compiledir" not in flags:
            extra.append(f"base_compiledir={root / 'pytensor'}")
        if "generated_src_dir" not in flags and _pytensor_has_option("generated_src_dir"):
            extra.append(f"generated_src_dir={root / 'generated_src'}")
        # numba's fast math lets the freshly compiled code of a model differ in the last bits
        # from the same code read back from the cache, so a seeded fit in the process that
        # compiled its model drew other samples than every later one (predicted probabilities
        # apart by 0.01 to 0.03); without it the two are bit-identical, and the models sample
        # as fast (benchmarks/results/fastmath.md). An explicit setting wins.
        if "numba__fastmath" not in flags and _pytensor_has_option("numba__fastmath"):
            extra.append("numba__fastmath=False")
        if extra:
            os.environ["PYTENSOR_FLAGS"] = ",".join([f for f in [flags, *extra] if f])
        _fastmath_done = True
        return
    from pytensor import config

    if "generated_src_dir" not in flags:
        try:
            if not config.generated_src_dir:
                config.generated_src_dir = str(root / "generated_src")
        except AttributeError:          # a pytensor without the option: nothing to move
            pass
    if "numba__fastmath" not in flags and not _fastmath_done and hasattr(
            config, "numba__fastmath"):
        # pytensor imported before selbayes: set on the live config, once per process (a
        # later change by the user's own code stands)
        config.numba__fastmath = False
    _fastmath_done = True


def _pytensor_has_option(name: str) -> bool:
    """Whether the installed pytensor knows the option ``name`` (an unknown flag would be an
    error), found without importing pytensor (which would fix its compiledir)."""
    import importlib.util

    spec = importlib.util.find_spec("pytensor")
    if spec is None or not spec.submodule_search_locations:
        return False
    path = Path(next(iter(spec.submodule_search_locations))) / "configdefaults.py"
    try:
        return f'"{name}"' in path.read_text()
    except OSError:
        return False


@contextlib.contextmanager
def _frames_without_source():
    """``inspect.stack`` without source lines (frames, names and line numbers only), for a block.

    ``arviz_base`` (imported by nutpie through ``arviz``) calls ``lazy_loader.load("jax")`` and
    ``load("numpyro")`` at import time; when those packages are not installed, lazy_loader
    records its caller with ``inspect.stack()``, which reads the source of every frame on the
    stack and, for each frame of the frozen import machinery, scans ``sys.modules``
    (``inspect.getmodule``). Imported from deep inside a fit (~50 frames) that cost ~1 s of a
    ~3 s first fit (cProfile, ``benchmarks/bench_first_fit.py``). lazy_loader only keeps the
    caller's file, line and function for a later error message, all of which remain.
    """
    import inspect

    full = inspect.stack

    def stack(context: int = 1):
        out = []
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            out.append(inspect.FrameInfo(frame, code.co_filename, frame.f_lineno, code.co_name,
                                         None, None))
            frame = frame.f_back
        return out

    inspect.stack = stack
    try:
        yield
    finally:
        if inspect.stack is stack:     # leave a patch made meanwhile by someone else alone
            inspect.stack = full


def import_nutpie():
    """``import nutpie``, without the ~1 s that ``inspect.stack`` costs inside its import and
    without the plotting half of ArviZ.

    Use this instead of ``import nutpie`` wherever a fit may be the first to import it (see
    :func:`_frames_without_source`); once imported it is a dictionary look-up. When ``arviz``
    is not imported yet, nutpie's ``import arviz`` gets :class:`_ArvizForNutpie` (arviz_base's
    functions, the real arviz on demand) instead of the meta-package and its matplotlib.

    Returns
    -------
    module
        The ``nutpie`` module.
    """
    module = sys.modules.get("nutpie")
    if module is not None and "nutpie.compile_pymc" in sys.modules:
        return module
    with _frames_without_source():
        if "arviz" in sys.modules or "nutpie" in sys.modules:
            import nutpie
            import nutpie.compile_pymc  # noqa: F401 - imported here, under the cheap stack
            return nutpie
        # arviz_base is what nutpie's sampling uses; its import needs the cheap stack
        import arviz_base  # noqa: F401

        proxy = _ArvizForNutpie("arviz")
        sys.modules["arviz"] = proxy
        try:
            import nutpie
            import nutpie.compile_pymc  # noqa: F401
        finally:
            if sys.modules.get("arviz") is proxy:
                del sys.modules["arviz"]     # a later ``import arviz`` gets the real package
    return nutpie


class _ArvizForNutpie(types.ModuleType):
    """What ``nutpie.sample`` gets for its ``import arviz``: ``arviz_base``'s ``from_dict`` and
    ``dict_to_dataset`` (the only arviz names nutpie uses, the same objects as ``arviz.``'s),
    anything else from the real ``arviz``, imported on first use.

    The ``arviz`` meta-package also imports ``arviz_stats`` and ``arviz_plots``, and
    ``arviz_plots`` imports ``matplotlib.pyplot``: ~0.3 s of an otherwise ~1.5 s first fit from
    ``import selbayes`` (``benchmarks/results/first_fit.md``), none of it used by a fit.
    Installed in ``sys.modules`` only while nutpie is imported.
    """

    _FROM_BASE = frozenset({"from_dict", "dict_to_dataset"})

    def __getattr__(self, name):
        real = sys.modules.get("arviz")
        if real is None or real is self:
            import importlib

            if name in self._FROM_BASE:
                return getattr(importlib.import_module("arviz_base"), name)
            if real is self:
                del sys.modules["arviz"]
            real = importlib.import_module("arviz")
        return getattr(real, name)


def _versions() -> tuple:
    import llvmlite
    import numba
    import nutpie
    import pymc
    import pytensor

    from ._version import __version__

    return (_FORMAT, sys.version, platform.machine(), numba.__version__, llvmlite.__version__,
            pytensor.__version__, pymc.__version__, nutpie.__version__, __version__,
            _host_cpu(), _source_hash())


def _source_hash() -> str:
    """Hash of selbayes's model and custom-Op sources: an edited numba implementation of an Op
    changes the compiled code without changing the graph or the version number."""
    if "_source" not in _memo:
        root = Path(__file__).resolve().parent
        h = hashlib.sha256()
        paths = [root / "_special.py"]          # numba functions the Ops' kernels call
        for sub in ("models", "adjustment"):
            paths += sorted((root / sub).rglob("*.py"))
        for path in paths:
            h.update(path.name.encode())
            h.update(path.read_bytes())
        _memo["_source"] = h.hexdigest()
    return _memo["_source"]


def _host_cpu() -> str:
    import llvmlite.binding as llvm

    return f"{llvm.get_host_cpu_name()}|{llvm.get_host_cpu_features().flatten()}"


def _models_dir() -> Path:
    return cache_dir() / "models"


def expected_compile_seconds() -> int:
    """The expected compile time (s) for the progress line: the last one measured on this
    machine (kept in the cache folder), else 20 (measured 10-30 s on an idle 2-core machine)."""
    try:
        return max(1, round(float((_models_dir() / "last_compile_seconds").read_text())))
    except (OSError, ValueError):
        return 20


def compile_pymc_model(model, *, progress: bool = False, use_cache: bool = True):
    """``nutpie.compile_pymc_model(model)`` (numba backend), with the compiled code cached.

    Parameters
    ----------
    model : pymc.Model
        The model; its ``pm.Data`` become nutpie shared data, swappable by ``with_data``.
    progress : bool
        Print one line on stderr before compiling machine code on a cache miss.
    use_cache : bool
        Read and write the disk cache (False: always compile, store nothing). The
        environment variable ``SELBAYES_NO_COMPILE_CACHE=1`` turns it off too.

    Returns
    -------
    nutpie.compile_pymc.CompiledPyMCModel
        Interchangeable with the result of ``nutpie.compile_pymc_model``.

    References
    ----------
    numba's object-code caching (``numba.core.caching``), used here on nutpie's wrappers.
    """
    configure_pytensor()          # generated source into the cache folder, not $TMPDIR
    if os.environ.get("SELBAYES_NO_COMPILE_CACHE"):
        use_cache = False
    import_nutpie()
    import nutpie.compile_pymc as ncp
    from pymc.initial_point import make_initial_point_fn

    pymc_initial_point_fn = ncp._wrap_with_lock(make_initial_point_fn(
        model=model, default_strategy="support_point", jitter_rvs=set(model.free_RVs),
        return_transformed=True))
    digest = _model_digest(model)
    meta_path = _models_dir() / f"{digest}-meta.pkl"
    caches = [_EntryCache(_models_dir() / f"{digest}-{part}.nbc", enabled=use_cache)
              for part in ("logp", "expand")]
    if not use_cache:
        return _compile(model, meta_path, caches, pymc_initial_point_fn, progress=progress,
                        use_cache=False)
    compiled = _from_cache(model, meta_path, caches, pymc_initial_point_fn)
    if compiled is not None:
        _last_event.update(event="hit", path=str(meta_path), waited=False)
        return compiled
    # One process compiles a given model at a time: the others wait for its entry instead
    # of compiling the same code concurrently (on a 2-core machine that doubles everyone's
    # wait), then read it. The lock is an OS file lock, released if its holder dies.
    def announce_wait():
        if progress:
            print(f"selbayes: another process is compiling this model; waiting for it to "
                  f"finish (~{expected_compile_seconds()} s)...", file=sys.stderr, flush=True)

    with _compile_lock(digest, on_wait=announce_wait) as waited:
        if waited:
            compiled = _from_cache(model, meta_path, caches, pymc_initial_point_fn)
            if compiled is not None:
                _last_event.update(event="hit", path=str(meta_path), waited=True)
                return compiled
        return _compile(model, meta_path, caches, pymc_initial_point_fn, progress=progress,
                        use_cache=True)


def _compile(model, meta_path: Path, caches, pymc_initial_point_fn, *, progress: bool,
             use_cache: bool):
    """Compile ``model`` as nutpie does (cache miss) and, with ``use_cache``, store it."""
    import nutpie.compile_pymc as ncp

    _last_event.update(event="miss", path=str(meta_path), waited=False)
    if progress:
        print(f"selbayes: compiling the model (first time for this shape, "
              f"~{expected_compile_seconds()} s; cached in {cache_dir()})...",
              file=sys.stderr, flush=True)

    started = time.perf_counter()
    (n_dim, n_expanded, logp_fn_pt, expand_fn_pt, initial_point_fn, shape_info,
     reparameterized_names) = ncp._make_functions(
        model, mode="NUMBA", compute_grad=True, join_expanded=True,
        pymc_initial_point_fn=pymc_initial_point_fn, var_names=None)

    # Shared data keyed by position (nutpie uses uuid4, which defeats any cache).
    shared_data, shared_var_keys = {}, {}
    for val in [*logp_fn_pt.get_shared(), *expand_fn_pt.get_shared()]:
        if val in shared_var_keys:
            continue
        key = f"shared{len(shared_var_keys)}"
        shared_data[key] = np.array(val.get_value(), order="C", copy=True)
        shared_data[key].flags.writeable = False
        shared_var_keys[val] = key
    user_data = ncp.make_user_data(shared_var_keys, shared_data)
    logp_keys = [shared_var_keys[v] for v in logp_fn_pt.get_shared()]
    expand_keys = [shared_var_keys[v] for v in expand_fn_pt.get_shared()]

    # Shared data values only type the closures; zeros keep the code data-independent.
    typing_data = {k: np.zeros_like(v) for k, v in shared_data.items()}
    raw_logp, sig_logp = ncp._make_c_logp_func(
        n_dim, logp_fn_pt.vm.jit_fn, user_data, logp_keys, typing_data)
    raw_expand, sig_expand = ncp._make_c_expand_func(
        n_dim, n_expanded, expand_fn_pt.vm.jit_fn, user_data, expand_keys, typing_data)
    funcs = (_cfunc(raw_logp, sig_logp, caches[0]), _cfunc(raw_expand, sig_expand, caches[1]))
    if use_cache:
        _atomic_write(_models_dir() / "last_compile_seconds",
                      f"{time.perf_counter() - started:.1f}".encode())
    if use_cache and all(c.path.exists() for c in caches):
        names = [v.name for v in shared_var_keys]
        if len(set(names)) == len(names) and all(n for n in names):
            _atomic_write(meta_path, pickle.dumps({
                "format": _FORMAT, "n_dim": n_dim, "n_expanded": n_expanded,
                "shape_info": shape_info, "reparameterized_names": reparameterized_names,
                "n_free": len(model.free_RVs),
                "shared": [(shared_var_keys[v], v.name) for v in shared_var_keys]}))

    dims, coords = ncp._prepare_dims_and_coords(model, shape_info, reparameterized_names)
    return ncp.CompiledPyMCModel(
        _n_dim=n_dim, dims=dims, _coords=coords,
        _shapes={name: tuple(shape) for name, _, shape in zip(*shape_info, strict=True)},
        compiled_logp_func=funcs[0], compiled_expand_func=funcs[1],
        initial_point_func=initial_point_fn, shared_data=shared_data,
        shared_var_keys=shared_var_keys, user_data=user_data, n_expanded=n_expanded,
        shape_info=shape_info, logp_func=logp_fn_pt, expand_func=expand_fn_pt,
        reparameterized_names=reparameterized_names)


def _model_digest(model) -> str:
    """A hash of everything that changes the compiled code of ``model``.

    The printed logp graph and the graphs of the traced variables (structure, ops, transforms),
    the bytes of every constant in them, the dtype and shape of every shared variable (the
    values of ``pm.Data`` are swapped in at sampling time and do not enter the code, except
    dimension lengths), the versions of the compiler stack and the CPU, and the settings that
    change the code (``check_bounds``, ``floatX``, numba's fastmath).
    """
    import pytensor
    from pytensor.compile.sharedvalue import SharedVariable
    from pytensor.graph.basic import Constant
    from pytensor.graph.traversal import ancestors

    outputs = [model.logp(), *model.unobserved_value_vars]
    h = hashlib.sha256(repr(_versions()).encode())
    h.update(pytensor.printing.debugprint(outputs, file="str", print_type=True).encode())
    dim_vars = {id(v) for v in model.dim_lengths.values()}
    for var in ancestors(outputs):
        if isinstance(var, Constant):
            h.update(np.asarray(var.data).tobytes())
        elif isinstance(var, SharedVariable):
            value = np.asarray(var.get_value(borrow=True))
            h.update(f"{var.name}|{value.dtype.str}|{value.shape}".encode())
            if id(var) in dim_vars:
                h.update(value.tobytes())
    h.update(repr([(v.name, str(v.type)) for v in model.free_RVs]).encode())
    # Settings that change the rewritten graph or the generated code. Not pytensor's global
    # mode and linker: the cached functions are compiled with mode="NUMBA" whatever they are,
    # and the global mode can be a Mode object, whose repr holds its address, also for a
    # moment while another thread compiles under config.change_flags(mode=...): in the digest
    # they made one model hash differently (two threads fitting the same model compiled it
    # twice in 5 of 60 tries).
    cfg = pytensor.config
    h.update(repr((model.check_bounds, cfg.floatX,
                   getattr(cfg, "numba__fastmath", None))).encode())
    return h.hexdigest()[:32]


LOCK_TIMEOUT_S = 1800.0         # longest wait for another process's compile (then compile)


@contextlib.contextmanager
def _compile_lock(digest: str, timeout: float | None = None, on_wait=None):
    """Hold the file lock of one model's entry; yields whether another process held it first.

    ``locks/<digest>.lock`` in the cache folder, an OS-level lock (``fcntl.flock`` on POSIX,
    ``msvcrt.locking`` on Windows, through :mod:`filelock`): released by the OS when its
    holder exits or crashes, so a dead compile never blocks later processes. The zero-byte lock
    files stay (removing a lock file that another process has opened would let two processes
    hold "the" lock); :func:`clear_cache` removes them. If the folder cannot be written, or
    the lock is not obtained within ``timeout`` seconds (default :data:`LOCK_TIMEOUT_S`), the
    caller compiles without it: entries are written atomically, so that is still safe, only
    slower. ``on_wait()`` is called once before waiting.
    """
    import filelock

    path = cache_dir() / "locks" / f"{digest}.lock"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(str(path), timeout=0)
        try:
            lock.acquire()
            waited = False
        except filelock.Timeout:
            if on_wait is not None:
                on_wait()
            lock.acquire(timeout=LOCK_TIMEOUT_S if timeout is None else timeout)
            waited = True
    except (OSError, filelock.Timeout):
        yield False
        return
    try:
        yield waited
    finally:
        lock.release()


def _from_cache(model, meta_path: Path, caches, pymc_initial_point_fn):
    """The compiled model rebuilt from the cache without touching pytensor, or None."""
    import nutpie.compile_pymc as ncp
    from numba.core.registry import cpu_target
    from pytensor.compile.sharedvalue import SharedVariable

    try:
        with open(meta_path, "rb") as f:
            meta = pickle.load(f)
    except Exception:  # noqa: BLE001 - missing or corrupt: compile afresh
        return None
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        return None
    shared_data, shared_var_keys = {}, {}
    for key, name in meta["shared"]:
        var = model.named_vars.get(name)
        if not isinstance(var, SharedVariable):
            return None
        shared_data[key] = np.array(var.get_value(), order="C", copy=True)
        shared_data[key].flags.writeable = False
        shared_var_keys[var] = key
    funcs = []
    for cache in caches:
        cres = cache.load_overload(None, cpu_target.target_context)
        if cres is None:
            return None
        name = cres.fndesc.llvm_cfunc_wrapper_name
        funcs.append(_Compiled(cres.library.get_pointer_to_function(name), cres))
    user_data = ncp.make_user_data(shared_var_keys, shared_data)
    shape_info = meta["shape_info"]
    n_free = meta["n_free"]
    initial_point_fn = ncp._rv_dict_to_flat_array_wrapper(
        pymc_initial_point_fn, names=list(shape_info[0][:n_free]),
        shapes=list(shape_info[2][:n_free]))
    dims, coords = ncp._prepare_dims_and_coords(model, shape_info,
                                                meta["reparameterized_names"])
    return ncp.CompiledPyMCModel(
        _n_dim=meta["n_dim"], dims=dims, _coords=coords,
        _shapes={name: tuple(shape) for name, _, shape in zip(*shape_info, strict=True)},
        compiled_logp_func=funcs[0], compiled_expand_func=funcs[1],
        initial_point_func=initial_point_fn, shared_data=shared_data,
        shared_var_keys=shared_var_keys, user_data=user_data, n_expanded=meta["n_expanded"],
        shape_info=shape_info, logp_func=None, expand_func=None,
        reparameterized_names=meta["reparameterized_names"])


class _Compiled:
    """What nutpie reads from a compiled wrapper (its address), plus the owner of the code."""

    def __init__(self, address: int, owner):
        self.address = address
        self._owner = owner          # keeps the machine code alive


def _atomic_write(path: Path, data: bytes) -> None:
    """Write to a temporary name and rename: concurrent readers see all or nothing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass                                   # a cache that cannot be written is not an error


def _cfunc(raw, sig, cache):
    """``numba.cfunc(sig)(raw)`` with our cache in place of numba's per-file one."""
    from numba.core import sigutils
    from numba.core.ccallback import CFunc

    cf = CFunc(raw, sigutils.normalize_signature(sig), locals={}, options={})
    cf._cache = cache                 # numba's cache protocol: load_overload/save_overload
    cf.compile()
    return cf


class _EntryCache:
    """One compiled wrapper in one file, in numba's own cache format (``CompileResult``
    reduced by numba, including the Python environments that object-mode blocks need).

    Written to a temporary name and renamed, so concurrent processes never see a partial
    file; an unreadable or foreign entry is recompiled and overwritten.
    """

    def __init__(self, path: Path, enabled: bool = True):
        self.path = path
        self.enabled = enabled
        self.hits = 0

    def exists(self) -> bool:
        return self.enabled and self.path.exists()

    def load_overload(self, sig, target_context):
        if not self.enabled:
            return None
        from numba.core import compiler
        from numba.core.runtime import rtsys

        try:
            with open(self.path, "rb") as f:
                payload = pickle.load(f)
            if payload.get("format") != _FORMAT:
                return None
            # The code links against numba's runtime (NRT), which must be initialised. No
            # target_context.refresh() (numba's own cache calls it): it installs numba's
            # lowering registries, which linking machine code does not use (every later
            # compile refreshes the context itself), and cost ~0.3-0.4 s of a first fit.
            rtsys.initialize(target_context)
            cres = compiler.CompileResult._rebuild(target_context, *payload["cres"])
        except Exception:  # noqa: BLE001 - missing, corrupt or foreign entry: compile afresh
            return None
        self.hits += 1
        try:
            os.utime(self.path)                # last use, for pruning
        except OSError:
            pass
        return cres

    def save_overload(self, sig, cres):
        if not self.enabled:
            return
        if cres.library.has_dynamic_globals or any(not x.can_cache for x in cres.lifted):
            return                             # process-specific addresses: not reusable
        from numba.core.serialize import dumps

        try:
            data = dumps({"format": _FORMAT, "created": time.time(), "cres": cres._reduce()})
        except Exception:  # noqa: BLE001 - not picklable: not cached
            return
        _atomic_write(self.path, data)


#: What selbayes writes in :func:`cache_dir`, folder by folder, as name patterns of the
#: folder's entries: the compiled models (with their atomic writes' temporary names),
#: pytensor's compiledir (its base layout ``compiledir_*`` and ``numba``, or a compiledir's
#: own entries where ``PYTENSOR_FLAGS`` puts one there) and generated source, and the compile
#: locks. ``selbayes cache`` counts and empties these alone, and a folder of these names
#: only where every entry in it matches: ``SELBAYES_CACHE_DIR`` may name a folder that holds
#: other things (``~/.cache``, a project's folder with its own ``models/``), which
#: ``cache clear`` removed with the rest.
OWN_FOLDERS = {
    "models": ("*-logp.nbc", "*-expand.nbc", "*-meta.pkl", "*.tmp", "last_compile_seconds"),
    "pytensor": ("compiledir_*", "numba", "__init__.py", "cutils_ext", "lazylinker_ext",
                 "lock_dir", ".lock", "tmp*", "__pycache__"),
    "generated_src": ("*.py", "__pycache__"),
    "locks": ("*.lock",),
}


def _checked_root() -> Path:
    """:func:`cache_dir`, refused where it names a file."""
    root = cache_dir()
    if root.exists() and not root.is_dir():
        raise ValueError(f"the cache folder {root} is a file, not a folder: point "
                         f"SELBAYES_CACHE_DIR to a folder")
    return root


def _own_folders(root: Path) -> tuple[dict[str, Path], list[str]]:
    """The folders of :data:`OWN_FOLDERS` in ``root`` whose every entry selbayes (or pytensor,
    for it) writes, by name; and the names of the other entries of ``root`` (a folder of one
    of those names that holds anything else among them, marked "(not only selbayes's)")."""
    from fnmatch import fnmatch

    own, other = {}, []
    if not root.exists():
        return own, other
    for sub in sorted(root.iterdir()):
        patterns = OWN_FOLDERS.get(sub.name)
        if patterns is None or not sub.is_dir():
            other.append(sub.name)
        elif all(any(fnmatch(e.name, pat) for pat in patterns) for e in sub.iterdir()):
            own[sub.name] = sub
        else:
            other.append(f"{sub.name}/ (not only selbayes's)")
    return own, other


def cache_info() -> dict:
    """What the cache folder holds.

    Returns
    -------
    dict
        ``path`` (str), ``models`` (number of compiled-model entries), ``bytes`` (total size of
        selbayes's folders, all caches), ``folders`` (bytes per folder of
        :data:`OWN_FOLDERS` that holds only what selbayes writes), ``other`` (names of the
        other entries of the folder, which are not selbayes's and are left alone),
        ``bytecode`` (:func:`dependency_bytecode`).

    Raises
    ------
    ValueError
        If the cache folder names a file.
    """
    root = _checked_root()
    own, other = _own_folders(root)
    folders = {name: sum(f.stat().st_size for f in sub.rglob("*") if f.is_file())
               for name, sub in own.items()}
    models = len(list(own["models"].glob("*-logp.nbc"))) if "models" in own else 0
    return {"path": str(root), "models": models, "bytes": sum(folders.values()),
            "folders": folders, "other": other, "bytecode": dependency_bytecode()}


def dependency_bytecode(module: str = "pymc") -> str:
    """Whether the dependencies' Python bytecode is there for a new process to read.

    Where it is missing and Python may not write it (``PYTHONDONTWRITEBYTECODE``, as in many
    containers, with packages installed by uv's default), every new process compiles pymc,
    scipy, pandas, ... from source again: ``import pymc, arviz, sklearn, selbayes`` took 8.7 s
    against 3.1 s with the bytecode on a 2-core machine. ``module`` stands for the installed
    packages (they are installed together).

    Returns
    -------
    str
        ``"present"``, ``"written on first import"`` (missing, but this process may write it)
        or ``"missing"``.
    """
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return "present"                      # nothing to compile (not a source package)
    if os.path.exists(importlib.util.cache_from_source(spec.origin)):
        return "present"
    return "missing" if sys.dont_write_bytecode else "written on first import"


def clear_cache() -> int:
    """Remove selbayes's caches (compiled models, pytensor's caches, the locks: the folders of
    :data:`OWN_FOLDERS` that hold only what selbayes writes) from the cache folder; anything
    else there is left as it is (``cache_info()["other"]`` names it).

    Returns
    -------
    int
        Number of files removed.

    Raises
    ------
    ValueError
        If the cache folder names a file.
    """
    import shutil

    n = 0
    for sub in _own_folders(_checked_root())[0].values():
        n += sum(1 for f in sub.rglob("*") if f.is_file())
        shutil.rmtree(sub, ignore_errors=True)
    return n
