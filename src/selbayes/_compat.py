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

__all__ = ["MOVED", "install", "current_name", "forward_private", "old_module",
           "keep_public_names"]

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
    # the implementation modules of the subpackages, private now: their public names are
    # imported from the subpackage (selbayes.filters.select_features, ...); the scripts
    # selbayes.experiments.plasmode and selbayes.experiments.correlated_omitted stay public
    "selbayes.filters.obf": "selbayes.filters._obf",
    "selbayes.filters.probabilistic_index": "selbayes.filters._probabilistic_index",
    "selbayes.filters.selection": "selbayes.filters._selection",
    "selbayes.adjustment.base": "selbayes.adjustment._base",
    "selbayes.adjustment.corr": "selbayes.adjustment._corr",
    "selbayes.adjustment.corr_op": "selbayes.adjustment._corr_op",
    "selbayes.adjustment.fstat": "selbayes.adjustment._fstat",
    "selbayes.adjustment.fstat_op": "selbayes.adjustment._fstat_op",
    "selbayes.adjustment.mixture": "selbayes.adjustment._mixture",
    "selbayes.adjustment.mixture_op": "selbayes.adjustment._mixture_op",
    "selbayes.adjustment.op": "selbayes.adjustment._op",
    "selbayes.adjustment.backends.c": "selbayes.adjustment.backends._c",
    "selbayes.adjustment.backends.jax": "selbayes.adjustment.backends._jax",
    "selbayes.adjustment.backends.numba": "selbayes.adjustment.backends._numba",
    "selbayes.adjustment.backends.numpy_kernels": "selbayes.adjustment.backends._numpy_kernels",
    "selbayes.models.gaussian": "selbayes.models._gaussian",
    "selbayes.models.gaussian_checks": "selbayes.models._gaussian_checks",
    "selbayes.models.gaussian_plugin": "selbayes.models._gaussian_plugin",
    "selbayes.models.gaussian_posterior": "selbayes.models._gaussian_posterior",
    "selbayes.models.gaussian_two_groups": "selbayes.models._gaussian_two_groups",
    "selbayes.models.mixture": "selbayes.models._mixture",
    "selbayes.models.mixture_pymc": "selbayes.models._mixture_pymc",
    "selbayes.models.naive_bayes": "selbayes.models._naive_bayes",
    "selbayes.models.naive_bayes_quadrature": "selbayes.models._naive_bayes_quadrature",
    "selbayes.models.naive_bayes_two_groups": "selbayes.models._naive_bayes_two_groups",
    "selbayes.models.priors": "selbayes.models._priors",
    "selbayes.preprocessing.decorrelation": "selbayes.preprocessing._decorrelation",
    "selbayes.preprocessing.features": "selbayes.preprocessing._features",
    "selbayes.preprocessing.intensity": "selbayes.preprocessing._intensity",
    "selbayes.datasets.download": "selbayes.datasets._download",
    "selbayes.datasets.loaders": "selbayes.datasets._loaders",
    "selbayes.datasets.simulate": "selbayes.datasets._simulate",
    "selbayes.evaluation.calibration": "selbayes.evaluation._calibration",
    "selbayes.evaluation.cross_validation": "selbayes.evaluation._cross_validation",
    "selbayes.evaluation.diagnostics": "selbayes.evaluation._diagnostics",
    "selbayes.evaluation.folds": "selbayes.evaluation._folds",
    "selbayes.evaluation.loo_check": "selbayes.evaluation._loo_check",
    "selbayes.evaluation.plots": "selbayes.evaluation._plots",
    "selbayes.evaluation.ppc": "selbayes.evaluation._ppc",
    "selbayes.evaluation.prior_checks": "selbayes.evaluation._prior_checks",
    "selbayes.estimators.base": "selbayes.estimators._base",
    "selbayes.estimators.gaussian": "selbayes.estimators._gaussian",
    "selbayes.estimators.mixture": "selbayes.estimators._mixture",
    "selbayes.estimators.model_selection": "selbayes.estimators._model_selection",
    "selbayes.estimators.naive_bayes": "selbayes.estimators._naive_bayes",
    "selbayes.error_estimation.discrete": "selbayes.error_estimation._discrete",
    "selbayes.error_estimation.evaluate": "selbayes.error_estimation._evaluate",
    "selbayes.error_estimation.gaussian": "selbayes.error_estimation._gaussian",
    "selbayes.sbc.core": "selbayes.sbc._core",
    "selbayes.sbc.gaussian": "selbayes.sbc._gaussian",
    "selbayes.sbc.mixture": "selbayes.sbc._mixture",
    "selbayes.sbc.naive_bayes": "selbayes.sbc._naive_bayes",
    "selbayes.sbc.spec": "selbayes.sbc._spec",
    "selbayes.benchmark.cli": "selbayes.benchmark._cli",
    "selbayes.benchmark.methods": "selbayes.benchmark._methods",
    "selbayes.benchmark.report": "selbayes.benchmark._report",
    "selbayes.benchmark.runner": "selbayes.benchmark._runner",
    "selbayes.experiments.gaussian": "selbayes.experiments._gaussian",
    "selbayes.experiments.gaussian_cv": "selbayes.experiments._gaussian_cv",
    "selbayes.experiments.mixture": "selbayes.experiments._mixture",
    "selbayes.experiments.naive_bayes": "selbayes.experiments._naive_bayes",
    "selbayes.experiments.naive_bayes_cv": "selbayes.experiments._naive_bayes_cv",
    "selbayes.experiments.report": "selbayes.experiments._report",
    "selbayes.experiments.spec": "selbayes.experiments._spec",
}

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


def forward_private(package: str, module: str, name: str):
    """Module ``__getattr__`` of a package that replaced the module ``package``: forward ``name``
    (a name the package does not re-export) to ``module``, with a :class:`FutureWarning`."""
    if name.startswith("__"):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    target = importlib.import_module(module)
    try:
        value = getattr(target, name)
    except AttributeError:
        raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    _warn(f"{package}.{name}", f"{module}.{name}")
    return value


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
