"""API documentation: every public function and class has a numpydoc docstring whose examples run.

Public means: the names in the ``__all__`` of a public module (one whose dotted name has no
component starting with "_": the package, its subpackages, the applications ``cli`` and ``demo``
and the two scripts of ``selbayes.experiments``), or without ``__all__`` the functions and classes
the module defines that do not start with "_". The subpackages re-export the names of their
private implementation modules (``selbayes.filters._selection``); a name is checked in the module
that defines it, so those modules are checked too, by their own ``__all__`` (DOCUMENTED), except
the internal ones (INTERNAL), the helper modules (HELPERS) and the package's own private
modules (PLUMBING), which only run their examples. Required
sections: Parameters (when the callable takes arguments; "Attributes" serves for dataclasses),
Returns or Yields (functions that return something), Raises (when the function's own body
raises), and Examples. The examples are run as doctests.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import pkgutil
import re
import textwrap

import pytest

import selbayes

# Private modules of the subpackages that are internal all the same: they had no public path
# even before the modules became private (selbayes._estimator, selbayes._download,
# selbayes._reproduce_* had a home in a subpackage), or are helpers of one module. The
# experiment-type modules implement the runner protocol documented in selbayes.experiments;
# users reach the rest through the re-exports of their package (selbayes.datasets.fetch,
# selbayes.SelectionClassifier, ...).
INTERNAL = {
    "selbayes.estimators._base",
    "selbayes.datasets._download",
    "selbayes.experiments._spec",
    "selbayes.experiments._report",
    "selbayes.experiments._gaussian",
    "selbayes.experiments._gaussian_cv",
    "selbayes.experiments._naive_bayes",
    "selbayes.experiments._naive_bayes_cv",
    "selbayes.experiments._mixture",
}


def _is_public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split(".")[1:])


def _modules() -> tuple[list[str], list[str]]:
    """(public modules, documented private modules of the subpackages)."""
    public, private = ["selbayes"], []
    for info in pkgutil.walk_packages(selbayes.__path__, "selbayes."):
        parts = info.name.split(".")[1:]
        if _is_public(info.name):
            public.append(info.name)
        elif (len(parts) >= 2 and not any(p.startswith("_") for p in parts[:-1])
              and not parts[-1].startswith("__")):
            private.append(info.name)              # selbayes.<subpackage>._<module>
    assert INTERNAL <= set(private), sorted(INTERNAL - set(private))   # no stale entry
    return sorted(public), sorted(set(private) - INTERNAL)


# Private helper modules that never had a public path (each serves one module of its package):
# their examples run, but their docstrings are not held to the sections of the API.
HELPERS = {
    "selbayes.adjustment._fstat_exact",
    "selbayes.adjustment._mixture_nb",
    "selbayes.adjustment._spline",
    "selbayes.error_estimation._common",
    "selbayes.error_estimation._special",
    "selbayes.estimators._path",
    "selbayes.experiments._cv",
    "selbayes.experiments._timing",
    "selbayes.filters._obf_experiment",
    "selbayes.filters._obf_model",
    "selbayes.filters._obf_rules",
    "selbayes.models._mixture_fast",
    "selbayes.models._nutpie",
}

PUBLIC_MODULES, PRIVATE_MODULES = _modules()
assert HELPERS <= set(PRIVATE_MODULES), sorted(HELPERS - set(PRIVATE_MODULES))   # no stale entry
DOCUMENTED = PUBLIC_MODULES + PRIVATE_MODULES
# The package's own private modules (selbayes._parallel, selbayes._validation, ...): shared
# plumbing with no public path. Their examples run, as do the internal modules', but their
# sections are not checked.
PLUMBING = sorted(f"selbayes.{info.name}" for info in pkgutil.iter_modules(selbayes.__path__)
                  if info.name.startswith("_") and not info.name.startswith("__"))
WITH_EXAMPLES = DOCUMENTED + sorted(INTERNAL) + PLUMBING


def _public_objects(module) -> list[tuple[str, object]]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, o in vars(module).items()
            if not n.startswith("_")
            and (inspect.isfunction(o) or inspect.isclass(o))
            and getattr(o, "__module__", None) == module.__name__
        ]
    out = []
    for name in names:
        obj = getattr(module, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            # Re-exports are checked where they are defined (a subpackage's names, in its
            # private modules).
            if obj.__module__ == module.__name__:
                out.append((name, obj))
    return out


def _has_section(doc: str, *titles: str) -> bool:
    return any(re.search(rf"^{t}\n-{{3,}}$", doc, flags=re.M) for t in titles)


def _takes_arguments(func) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return any(n not in ("self", "cls") for n in params)


def _returns_something(func) -> bool:
    ann = inspect.signature(func).return_annotation
    if ann in (None, "None"):
        return False
    try:
        body = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return True
    return bool(re.search(r"^\s+(return|yield)\s+\S", body, flags=re.M))


def _raises_itself(func) -> bool:
    try:
        body = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return False
    # Only the function's own body: drop its docstring and nested definitions' bodies are kept
    # (they run as part of it).
    doc = func.__doc__ or ""
    body = body.replace(doc, "")
    return bool(re.search(r"^\s+raise\s+\w+(Error|Exception|Warning)\(", body, flags=re.M))


def _missing_sections(obj) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    missing = []
    if not doc.strip():
        return ["docstring"]
    if inspect.isclass(obj):
        init = obj.__init__
        needs_params = (
            init is not object.__init__ and _takes_arguments(init)
        ) or dataclasses.is_dataclass(obj)
        is_exception = issubclass(obj, BaseException)
        if needs_params and not is_exception and not _has_section(doc, "Parameters", "Attributes"):
            missing.append("Parameters/Attributes")
        if not is_exception and not _has_section(doc, "Examples"):
            missing.append("Examples")
        return missing
    if _takes_arguments(obj) and not _has_section(doc, "Parameters"):
        missing.append("Parameters")
    if _returns_something(obj) and not _has_section(doc, "Returns", "Yields"):
        missing.append("Returns")
    if _raises_itself(obj) and not _has_section(doc, "Raises"):
        missing.append("Raises")
    if not _has_section(doc, "Examples"):
        missing.append("Examples")
    return missing


@pytest.mark.parametrize("module_name", sorted(set(DOCUMENTED) - HELPERS))
def test_public_api_has_numpydoc_sections(module_name):
    module = importlib.import_module(module_name)
    problems = {}
    for name, obj in _public_objects(module):
        missing = _missing_sections(obj)
        if missing:
            problems[name] = missing
    assert not problems, f"{module_name}: docstring sections missing: {problems}"


@pytest.mark.parametrize("module_name", WITH_EXAMPLES)
def test_docstring_examples_run(module_name, tmp_path, monkeypatch):
    # Examples that write files write them in a scratch directory.
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(module_name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed"


def test_checker_catches_a_bare_function():
    # The section check must be able to fail.
    def documented_badly(x):
        """Do something."""
        if x < 0:
            raise ValueError("x must be >= 0")
        return x

    assert _missing_sections(documented_badly) == ["Parameters", "Returns", "Raises", "Examples"]
