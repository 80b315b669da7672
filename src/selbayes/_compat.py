"""Old import paths of the modules that moved, kept working for one release.

Earlier versions had a flat package (``selbayes.gaussian_classifier``, ``selbayes.sbc_models``,
``selbayes._reproduce_gaussian``, ...), and then public implementation modules inside the
subpackages (``selbayes.filters.selection``, ``selbayes.models.gaussian_posterior``, ...), which
are private now (``selbayes.filters._selection``): the public API is the ``__all__`` of each
subpackage. Importing an old name gives the *same module object* as its new home (so
``monkeypatch.setattr("selbayes.gaussian_classifier.X", ...)`` patches the module the library
uses) and emits a :class:`FutureWarning` naming the new path. The finder is installed by
``selbayes/__init__.py``; it imports nothing until an old name is asked for.

An old module of a subpackage is also its package's attribute: the package's ``__getattr__``
imports it through its old path (:func:`old_module`), so ``selbayes.filters.selection`` (without
an import statement) warns once as ``import selbayes.filters.selection`` does.
:func:`keep_public_names` keeps such an import from replacing a public name of the package that
is spelled like the old module (the function ``selbayes.filters.obf`` and the former module
``selbayes.filters.obf``).

``selbayes.sbc``, ``selbayes.datasets`` and ``selbayes.preprocessing`` are packages now that
re-export their former module's public API; :func:`forward_private` forwards the former
module's other names.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import types
import warnings

__all__ = ["MOVED", "PRIVATE_NOW", "install", "current_name", "forward_private", "old_module",
           "keep_public_names", "package_attributes"]

#: old dotted module name -> new dotted module name
MOVED: dict[str, str] = {
    "selbayes._estimator": "selbayes.estimators._base",
    "selbayes.gaussian_classifier": "selbayes.estimators._gaussian",
    "selbayes.naive_bayes_classifier": "selbayes.estimators._naive_bayes",
    "selbayes.mixture_classifier": "selbayes.estimators._mixture",
    "selbayes.model_selection": "selbayes.estimators._model_selection",
    "selbayes.selection": "selbayes.filters._selection",
    "selbayes.transforms": "selbayes.preprocessing._decorrelation",
    "selbayes.calibration": "selbayes.evaluation._calibration",
    "selbayes.diagnostics": "selbayes.evaluation._diagnostics",
    "selbayes.cross_validation": "selbayes.evaluation._cross_validation",
    "selbayes.plots": "selbayes.evaluation._plots",
    "selbayes._download": "selbayes.datasets._download",
    "selbayes.simulate": "selbayes.datasets._simulate",
    "selbayes.sbc_models": "selbayes.sbc._gaussian",
    "selbayes.sbc_naive_bayes": "selbayes.sbc._naive_bayes",
    "selbayes.sbc_mixture": "selbayes.sbc._mixture",
    "selbayes.reproduce": "selbayes.experiments",
    "selbayes._reproduce_exec": "selbayes._parallel",  # the one runner (Task, TaskStore, ...)
    "selbayes._reproduce_spec": "selbayes.experiments._spec",
    "selbayes._reproduce_report": "selbayes.experiments._report",
    "selbayes._reproduce_gaussian": "selbayes.experiments._gaussian",
    "selbayes._reproduce_naive_bayes": "selbayes.experiments._naive_bayes",
    "selbayes._reproduce_mixture": "selbayes.experiments._mixture",
    "selbayes._reproduce_srbct": "selbayes.experiments._gaussian_cv",
    "selbayes._reproduce_colon": "selbayes.experiments._naive_bayes_cv",
}

#: the subpackages' former public modules, private now: selbayes.<package>.<m> is
#: selbayes.<package>._<m>, and its public names are imported from the subpackage
#: (selbayes.filters.select_features, ...). The scripts selbayes.experiments.plasmode and
#: selbayes.experiments.correlated_omitted stay public.
PRIVATE_NOW: dict[str, tuple[str, ...]] = {
    "filters": ("obf", "probabilistic_index", "selection"),
    "adjustment": ("base", "corr", "corr_op", "fstat", "fstat_op", "mixture", "mixture_op", "op"),
    "adjustment.backends": ("c", "jax", "numba", "numpy_kernels"),
    "models": ("gaussian", "gaussian_checks", "gaussian_plugin", "gaussian_posterior",
               "gaussian_two_groups", "mixture", "mixture_pymc", "naive_bayes",
               "naive_bayes_quadrature", "naive_bayes_two_groups", "priors"),
    "preprocessing": ("decorrelation", "features", "intensity"),
    "datasets": ("download", "loaders", "simulate"),
    "evaluation": ("calibration", "cross_validation", "diagnostics", "folds", "loo_check",
                   "plots", "ppc", "prior_checks"),
    "estimators": ("base", "gaussian", "mixture", "model_selection", "naive_bayes"),
    "error_estimation": ("discrete", "evaluate", "gaussian"),
    "sbc": ("core", "gaussian", "mixture", "naive_bayes", "spec"),
    "benchmark": ("cli", "methods", "report", "runner"),
    "experiments": ("gaussian", "gaussian_cv", "mixture", "naive_bayes", "naive_bayes_cv",
                    "report", "spec"),
}
MOVED.update({f"selbayes.{package}.{m}": f"selbayes.{package}._{m}"
              for package, modules in PRIVATE_NOW.items() for m in modules})

# frames to skip so that the warning points at the line that imported the old name
_SKIP = (os.path.dirname(__file__), os.path.dirname(importlib.__file__), "<frozen importlib")


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} has moved to {new}; import it from there (the old path will be "
                  "removed in the next release)", FutureWarning, skip_file_prefixes=_SKIP)


# plain classes, not importlib.abc subclasses: importing importlib.abc costs ~30 ms at
# `import selbayes`; the import system needs only these methods
class _AliasLoader:
    """Loads an old name as the already-imported module of its new name."""

    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        _warn(spec.name, self.new)
        module = importlib.import_module(self.new)
        self._spec = module.__spec__      # the import system overwrites __spec__; restored below
        return module

    def exec_module(self, module):
        module.__spec__ = self._spec


class _AliasFinder:
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())


def old_module(package: str, name: str):
    """Module ``__getattr__`` of a subpackage: ``package.name`` when that is the old path of a
    module that is private now, imported through that path (one :class:`FutureWarning`, the
    module object of the new path); :class:`AttributeError` otherwise."""
    old = f"{package}.{name}"
    if old not in MOVED:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return importlib.import_module(old)


def package_attributes(package: str, lazy: dict | None = None,
                       former_module: str | tuple[str, ...] | None = None):
    """The module ``__getattr__`` and ``__dir__`` of a subpackage (PEP 562).

    ``__getattr__`` resolves, in this order: a public name imported on first use (``lazy``:
    name -> private module of the package); an old module path (:func:`old_module`, warns);
    with ``former_module`` (a package that replaced a module of its name; a tuple where that
    module's code is now split among several), any other name of that module
    (:func:`forward_private`, warns). ``__dir__`` lists the package's globals and
    its ``__all__``.
    """
    lazy = dict(lazy or {})

    def __getattr__(name):
        if name in lazy:
            return getattr(importlib.import_module(f"{package}.{lazy[name]}"), name)
        if former_module is None or f"{package}.{name}" in MOVED:
            return old_module(package, name)
        return forward_private(package, former_module, name)

    def __dir__():
        module = sys.modules[package]
        return sorted({*vars(module), *getattr(module, "__all__", ())})

    return __getattr__, __dir__


class _PublicNamesPackage(types.ModuleType):
    """A package whose public names (``__all__``) are never replaced by a module object that
    the import system binds as a child (``import selbayes.filters.obf``, an old path, binds the
    module ``selbayes.filters._obf`` as ``selbayes.filters.obf``)."""

    def __setattr__(self, name, value):
        if (isinstance(value, types.ModuleType) and value.__name__ != f"{self.__name__}.{name}"
                and name in self.__dict__.get("__all__", ())):
            return
        super().__setattr__(name, value)


def keep_public_names(package: str) -> None:
    """Make the public names of the package ``package`` (its ``__all__``) win over the old
    module paths of the same spelling (see :class:`_PublicNamesPackage`); called by the
    package's ``__init__``."""
    sys.modules[package].__class__ = _PublicNamesPackage


def forward_private(package: str, module: str | tuple[str, ...], name: str):
    """Module ``__getattr__`` of a package that replaced the module ``package``: forward ``name``
    (a name the package does not re-export) to ``module``, with a :class:`FutureWarning`.
    ``module`` may be a tuple of modules (the former module's code split among them): the
    first that has ``name``."""
    if name.startswith("__"):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    for one in (module,) if isinstance(module, str) else module:
        target = importlib.import_module(one)
        if hasattr(target, name):
            _warn(f"{package}.{name}", f"{one}.{name}")
            return getattr(target, name)
    raise AttributeError(f"module {package!r} has no attribute {name!r}")


def current_name(dotted):
    """``dotted`` (e.g. ``"selbayes.sbc_models.GaussianSBCFitter"``, as stored in the manifest of a
    run started before the move) with its module part spelled at its new home; other values are
    returned unchanged."""
    if not isinstance(dotted, str):
        return dotted
    for old in sorted(MOVED, key=len, reverse=True):
        if dotted == old or dotted.startswith(old + "."):
            return MOVED[old] + dotted[len(old):]
    return dotted
