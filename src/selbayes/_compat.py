"""Old import paths of the modules that moved into subpackages, kept working for one release.

Earlier versions had a flat package (``selbayes.gaussian_classifier``, ``selbayes.sbc_models``,
``selbayes._reproduce_gaussian``, ...). Importing an old name now gives the *same module object*
as its new home (so ``monkeypatch.setattr("selbayes.gaussian_classifier.X", ...)`` patches the
module the library uses) and emits a :class:`FutureWarning` naming the new path. The finder is
installed by ``selbayes/__init__.py``; it imports nothing until an old name is asked for.

``selbayes.sbc``, ``selbayes.datasets`` and ``selbayes.preprocessing`` are packages now that
re-export their former module's public API; :func:`forward_private` forwards the former
module's other names.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import warnings

__all__ = ["MOVED", "install", "current_name", "forward_private"]

#: old dotted module name -> new dotted module name
MOVED: dict[str, str] = {
    "selbayes._estimator": "selbayes.estimators.base",
    "selbayes.gaussian_classifier": "selbayes.estimators.gaussian",
    "selbayes.naive_bayes_classifier": "selbayes.estimators.naive_bayes",
    "selbayes.mixture_classifier": "selbayes.estimators.mixture",
    "selbayes.model_selection": "selbayes.estimators.model_selection",
    "selbayes.selection": "selbayes.filters.selection",
    "selbayes.transforms": "selbayes.preprocessing.decorrelation",
    "selbayes.calibration": "selbayes.evaluation.calibration",
    "selbayes.diagnostics": "selbayes.evaluation.diagnostics",
    "selbayes.cross_validation": "selbayes.evaluation.cross_validation",
    "selbayes.plots": "selbayes.evaluation.plots",
    "selbayes._download": "selbayes.datasets.download",
    "selbayes.simulate": "selbayes.datasets.simulate",
    "selbayes.sbc_models": "selbayes.sbc.gaussian",
    "selbayes.sbc_naive_bayes": "selbayes.sbc.naive_bayes",
    "selbayes.sbc_mixture": "selbayes.sbc.mixture",
    "selbayes.reproduce": "selbayes.experiments",
    "selbayes._reproduce_exec": "selbayes._parallel",  # the one runner (Task, TaskStore, ...)
    "selbayes._reproduce_spec": "selbayes.experiments.spec",
    "selbayes._reproduce_report": "selbayes.experiments.report",
    "selbayes._reproduce_gaussian": "selbayes.experiments.gaussian",
    "selbayes._reproduce_naive_bayes": "selbayes.experiments.naive_bayes",
    "selbayes._reproduce_mixture": "selbayes.experiments.mixture",
    "selbayes._reproduce_srbct": "selbayes.experiments.gaussian_cv",
    "selbayes._reproduce_colon": "selbayes.experiments.naive_bayes_cv",
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
