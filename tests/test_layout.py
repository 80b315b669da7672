"""The package layout (issue 17): old flat import paths stay importable for one release, and the
library never imports from the reproduction layer (selbayes.experiments).

The public API is the ``__all__`` of each subpackage; the modules inside the subpackages are
private (``selbayes.filters._selection``), and their former public paths
(``selbayes.filters.selection``) stay importable for one release too (selbayes._compat)."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import selbayes
from selbayes._compat import MOVED

SRC = Path(selbayes.__file__).resolve().parent


def _fresh(name):
    # an old name imported earlier in the session is cached in sys.modules (and its warning
    # was already given): forget the alias so that the import goes through the finder again
    module = sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    # (a public name spelled as the old module, e.g. the function selbayes.filters.obf, stays)
    if module is not None and vars(sys.modules[parent]).get(child) is module:
        delattr(sys.modules[parent], child)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_is_the_new_module_and_warns(old):
    new = MOVED[old]
    _fresh(old)
    with pytest.warns(FutureWarning, match=rf"{old.replace('.', r'\.')} has moved to "
                                           rf"{new.replace('.', r'\.')}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__name__ == new
    assert module.__spec__.name == new          # the alias did not overwrite the real spec


# the implementation modules of the subpackages that had a public path before they became
# private (selbayes.filters.selection -> selbayes.filters._selection)
PRIVATE_NOW = {
    "filters": ["obf", "probabilistic_index", "selection"],
    "adjustment": ["base", "corr", "corr_op", "fstat", "fstat_op", "mixture", "mixture_op",
                   "op"],
    "adjustment.backends": ["c", "jax", "numba", "numpy_kernels"],
    "models": ["gaussian", "gaussian_checks", "gaussian_plugin", "gaussian_posterior",
               "gaussian_two_groups", "mixture", "mixture_pymc", "naive_bayes",
               "naive_bayes_quadrature", "naive_bayes_two_groups", "priors"],
    "preprocessing": ["decorrelation", "features", "intensity"],
    "datasets": ["download", "loaders", "simulate"],
    "evaluation": ["calibration", "cross_validation", "diagnostics", "folds", "loo_check",
                   "plots", "ppc", "prior_checks"],
    "estimators": ["base", "gaussian", "mixture", "model_selection", "naive_bayes"],
    "error_estimation": ["discrete", "evaluate", "gaussian"],
    "sbc": ["core", "gaussian", "mixture", "naive_bayes", "spec"],
    "benchmark": ["cli", "methods", "report", "runner"],
    "experiments": ["gaussian", "gaussian_cv", "mixture", "naive_bayes", "naive_bayes_cv",
                    "report", "spec"],
}
PRIVATE_OLD = {f"selbayes.{pkg}.{m}": f"selbayes.{pkg}._{m}"
               for pkg, mods in PRIVATE_NOW.items() for m in mods}


def _file(dotted: str) -> Path:
    return SRC.joinpath(*dotted.split(".")[1:]).with_suffix(".py")


def test_every_old_top_level_module_is_listed():
    # the flat modules of the earlier layout; any of them that is no longer a file must be an alias
    old = {"_estimator", "gaussian_classifier", "naive_bayes_classifier", "mixture_classifier",
           "model_selection", "selection", "transforms", "calibration", "diagnostics",
           "cross_validation", "plots", "_download", "simulate", "sbc_models", "sbc_naive_bayes",
           "sbc_mixture", "reproduce", "_reproduce_exec", "_reproduce_spec", "_reproduce_report",
           "_reproduce_gaussian", "_reproduce_naive_bayes", "_reproduce_mixture",
           "_reproduce_srbct", "_reproduce_colon"}
    assert {f"selbayes.{m}" for m in old} == {k for k in MOVED if k.count(".") == 1}
    for name, new in MOVED.items():
        assert not _file(name).exists(), name
        assert importlib.util.find_spec(new) is not None, new


def test_every_module_made_private_is_listed_with_its_new_path():
    # old public path -> the private module, for every renamed module (and nothing else)
    assert {k: v for k, v in MOVED.items() if k.count(".") >= 2} == PRIVATE_OLD
    for old, new in PRIVATE_OLD.items():
        assert not _file(old).exists() and _file(new).is_file(), old
    # the flat paths point at the private modules directly (no chain of aliases)
    assert all(new not in MOVED for new in MOVED.values())


@pytest.mark.parametrize("how", ["import", "from", "attribute"])
def test_old_public_module_paths_are_the_private_modules_with_one_warning(how):
    # in a new interpreter, for every old path: the import statement, the from-import from its
    # package and the attribute access (no import statement) give the private module and warn
    # exactly once (an old path spelled as a public name, the function selbayes.filters.obf,
    # gives that name by the last two)
    code = f"""
import importlib, json, sys, warnings
out = {{}}
for old in {sorted(PRIVATE_OLD)!r}:
    package, _, child = old.rpartition(".")
    pkg = importlib.import_module(package)
    if {how!r} != "import" and child in pkg.__all__:
        continue
    ns = {{}}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if {how!r} == "import":
            exec(f"import {{old}}", ns)
            m = sys.modules[old]
        elif {how!r} == "from":
            exec(f"from {{package}} import {{child}} as m", ns)
            m = ns["m"]
        else:
            m = getattr(pkg, child)
    out[old] = [m.__name__, [str(x.message) for x in w if x.category is FutureWarning]]
print(json.dumps(out))
"""
    import json

    out = json.loads(_run(code).strip().splitlines()[-1])
    expected = {old: [new, [f"{old} has moved to {new}; import it from there (the old path "
                            "will be removed in the next release)"]]
                for old, new in PRIVATE_OLD.items()}
    if how != "import":
        for old in ("selbayes.filters.obf", "selbayes.filters.probabilistic_index",
                    "selbayes.error_estimation.evaluate"):
            del expected[old]
    assert out == expected


@pytest.mark.parametrize("old", ["selbayes.selection", "selbayes.filters.selection"])
def test_monkeypatching_the_old_name_patches_the_module_the_library_uses(monkeypatch, old):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old_module = importlib.import_module(old)
        monkeypatch.setattr(f"{old}.f_statistic", lambda *a, **k: "patched")
    from selbayes.filters import _selection

    assert _selection.f_statistic() == "patched"
    assert old_module is _selection


def test_from_import_of_a_public_name_through_the_old_module_path():
    import selbayes.filters

    _fresh("selbayes.filters.selection")
    with pytest.warns(FutureWarning, match=r"selbayes\.filters\.selection has moved to "
                                           r"selbayes\.filters\._selection"):
        from selbayes.filters.selection import select_features
    assert select_features is selbayes.filters.select_features
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)        # bound now: no second warning
        assert selbayes.filters.selection.select_features is select_features


def test_an_old_module_path_never_replaces_the_public_name_of_the_same_spelling():
    # selbayes.filters.obf was a module and is a function; so are probabilistic_index and
    # error_estimation.evaluate: importing the old module path keeps the function
    import selbayes.error_estimation
    import selbayes.filters

    functions = (selbayes.filters.obf, selbayes.filters.probabilistic_index,
                 selbayes.error_estimation.evaluate)
    for old in ("selbayes.filters.obf", "selbayes.filters.probabilistic_index",
                "selbayes.error_estimation.evaluate"):
        _fresh(old)
        with pytest.warns(FutureWarning, match=f"{old} has moved to"):
            module = importlib.import_module(old)
        assert module is sys.modules[old] and module.__name__ != old
    assert (selbayes.filters.obf, selbayes.filters.probabilistic_index,
            selbayes.error_estimation.evaluate) == functions
    assert all(callable(f) for f in functions)


@pytest.mark.parametrize("package, module, name", [
    ("selbayes.sbc", "selbayes.sbc._core", "_MANIFEST"),
    ("selbayes.datasets", "selbayes.datasets._loaders", "_SOURCES"),
    # the former module's code is now in three modules: each is searched
    ("selbayes.datasets", "selbayes.datasets._dataset", "_validated"),
    ("selbayes.datasets", "selbayes.datasets._files", "_read_csv"),
])
def test_former_modules_now_packages_forward_their_other_names(package, module, name):
    pkg = importlib.import_module(package)
    with pytest.warns(FutureWarning, match=f"{package}.{name} has moved to {module}.{name}"):
        value = getattr(pkg, name)
    assert value is getattr(importlib.import_module(module), name)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        pkg.no_such_name  # noqa: B018


def test_public_names_of_former_modules_still_resolve():
    from selbayes import datasets, preprocessing, sbc

    assert sbc.run_sbc is importlib.import_module("selbayes.sbc._core").run_sbc
    assert datasets.load_dataset.__module__ == "selbayes.datasets._loaders"
    assert preprocessing.IntensityLog2.__module__ == "selbayes.preprocessing._intensity"
    assert preprocessing.Decorrelation.__module__ == "selbayes.preprocessing._decorrelation"


def test_old_names_import_in_a_fresh_interpreter_with_warnings_as_errors_only_for_them():
    code = ("import warnings, selbayes\n"
            "warnings.simplefilter('error', FutureWarning)\n"
            "try:\n"
            "    from selbayes.gaussian_classifier import HierarchicalGaussianClassifier\n"
            "except FutureWarning as w:\n"
            "    print('warned:', w)\n"
            "import selbayes.estimators._gaussian as g\n"
            "print(g.HierarchicalGaussianClassifier is selbayes.HierarchicalGaussianClassifier)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(SRC.parent)}).stdout
    assert "warned: selbayes.gaussian_classifier has moved to selbayes.estimators._gaussian" in out
    assert out.strip().endswith("True")


def _imported_modules(path: Path, root: Path = SRC.parent) -> set[str]:
    """Absolute dotted names of the selbayes modules a source file imports (any depth)."""
    package = list(path.relative_to(root).parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            names.add(mod)
            names.update(f"{mod}.{a.name}" for a in node.names)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id",
              None)) == "import_module" and node.args and isinstance(node.args[0], ast.Constant)):
            names.add(str(node.args[0].value))
    return {n for n in names if n == "selbayes" or n.startswith("selbayes.")}


def test_library_code_never_imports_the_reproduction_layer():
    # experiments/ (paper reproductions) sits on top of the library; the command line (the
    # package cli/) and demo.py are the applications that run it
    allowed = {SRC / "demo.py", SRC / "_compat.py"}
    exempt = (SRC / "experiments", SRC / "cli")      # the layer itself, the command line
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        if path in allowed or any(folder in path.parents for folder in exempt):
            continue
        bad = sorted(n for n in _imported_modules(path)
                     if n == "selbayes.experiments" or n.startswith("selbayes.experiments."))
        if bad:
            offenders[str(path.relative_to(SRC))] = bad
    assert not offenders, f"library modules import the reproduction layer: {offenders}"


def test_the_layering_check_can_fail(tmp_path):
    pkg = tmp_path / "selbayes" / "filters"
    pkg.mkdir(parents=True)
    bad = pkg / "_bad.py"
    bad.write_text("def f():\n    from ..experiments._spec import dict_diff\n"
                   "import selbayes.experiments\n")
    assert ({"selbayes.experiments._spec", "selbayes.experiments"}
            <= _imported_modules(bad, tmp_path))


def test_sbc_run_started_before_the_move_still_resumes(tmp_path, monkeypatch):
    import shutil

    from selbayes.sbc import _core as core
    from selbayes.sbc import _gaussian as gaussian

    run = tmp_path / "replicates"
    shutil.copytree(SRC.parents[1] / "reports" / "sbc_gaussian_small" / "replicates", run)
    stored = core.TaskStore.read_settings(run, core._MANIFEST)
    assert stored["simulator"] == "selbayes.sbc_models.GaussianSBCSimulator"   # written before
    spec_path = SRC.parents[1] / "models" / "sbc" / "sbc_gaussian_small.toml"

    def no_fit(self, data, seed):
        raise AssertionError("a stored replicate was fitted again")

    monkeypatch.setattr(gaussian.GaussianSBCFitter, "__call__", no_fit)
    result = gaussian.run_sbc_spec(spec_path, out=tmp_path, progressbar=False)
    assert result.n_replicates == 200                      # all 200 resumed, none refitted
    assert core.TaskStore.read_settings(run, core._MANIFEST) == stored
    # another class under the old run's name is still refused
    spec = gaussian.load_sbc_spec(spec_path)
    sim = gaussian.GaussianSBCSimulator(**spec["design"], priors=spec["priors"])
    with pytest.raises(ValueError, match=r"different settings \(fitter: "
                                         r"'selbayes.sbc_models.GaussianSBCFitter' -> "):
        core.run_sbc(sim, mixture_fitter(), 200, ["tau_mu_corrected", "tau_mu_uncorrected"],
                     random_state=spec["sbc"]["seed"], thin_to=spec["sbc"]["thin_to"],
                     out_dir=run, progressbar=False)


def mixture_fitter():
    from selbayes.sbc import MixtureSBCFitter

    return MixtureSBCFitter()


# the layers, in import order: a subpackage imports only from subpackages before it (README,
# "Package layout"); private top-level helpers (_validation, _parallel, ...) serve every layer;
# the command line (cli) is the application on top of them all
LAYERS = ["filters", "adjustment", "models", "preprocessing", "datasets", "evaluation",
          "estimators", "error_estimation", "sbc", "benchmark", "experiments", "cli"]


def test_every_subpackage_is_a_layer():
    packages = {p.parent.name for p in SRC.glob("*/__init__.py")}
    assert packages == set(LAYERS)


def test_each_layer_imports_only_from_the_layers_before_it():
    offenders = {}
    for i, layer in enumerate(LAYERS):
        later = set(LAYERS[i + 1:])
        for path in sorted((SRC / layer).rglob("*.py")):
            bad = sorted(n for n in _imported_modules(path)
                         if n.count(".") >= 1 and n.split(".")[1] in later)
            if bad:
                offenders[str(path.relative_to(SRC))] = bad
    assert not offenders, f"imports against the layer order {LAYERS}: {offenders}"


@pytest.mark.parametrize("old_name", ["selbayes.gaussian_classifier",
                                      "selbayes.estimators.gaussian"])
def test_pickles_that_name_the_old_module_still_load(old_name):
    # a fit pickled (joblib / pickle) before the moves records its class as
    # selbayes.gaussian_classifier.HierarchicalGaussianClassifier (flat layout) or
    # selbayes.estimators.gaussian.HierarchicalGaussianClassifier (public modules)
    import pickle

    from selbayes.estimators import HierarchicalGaussianClassifier

    data = pickle.dumps(HierarchicalGaussianClassifier, protocol=0)
    old = data.replace(b"selbayes.estimators._gaussian\n", old_name.encode() + b"\n")
    assert old != data
    _fresh(old_name)
    with pytest.warns(FutureWarning, match=f"{old_name} has moved"):
        assert pickle.loads(old) is HierarchicalGaussianClassifier


def test_class_names_in_the_committed_sbc_manifests_resolve_to_the_current_classes():
    # an SBC run stores its simulator's and fitter's dotted names; those of the committed runs
    # (reports/*/replicates) were written under the flat layout or the public modules, and a
    # resumed run compares them through selbayes._compat.current_name
    import json

    from selbayes._compat import current_name

    manifests = sorted((SRC.parents[1] / "reports").glob("*/replicates/sbc_manifest.json"))
    assert manifests
    for path in manifests:
        settings = json.loads(path.read_text())["settings"]
        for key in ("simulator", "fitter"):
            module, _, name = current_name(settings[key]).rpartition(".")
            cls = getattr(importlib.import_module(module), name)
            assert f"{cls.__module__}.{cls.__qualname__}" == current_name(settings[key]), path


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(SRC.parent)}).stdout


def test_import_selbayes_stays_cheap():
    out = _run("import sys, selbayes\n"
               "heavy = ('pymc', 'pytensor', 'sklearn', 'matplotlib', 'scipy', 'pandas',\n"
               "         'xarray')\n"
               "print([m for m in heavy if m in sys.modules])\n"
               "print(selbayes.select_features.__module__)")
    assert out.split("\n")[:2] == ["[]", "selbayes.filters._selection"]


def test_dir_of_selbayes_lists_the_lazy_public_names():
    import selbayes

    names = dir(selbayes)
    assert set(selbayes.__all__) <= set(names)
    assert {"HierarchicalGaussianClassifier", "cross_validate", "datasets"} <= set(names)
    for name in selbayes.__all__:             # every listed name resolves
        assert getattr(selbayes, name) is not None


def test_filter_functions_win_over_their_modules_of_the_same_name():
    # obf and probabilistic_index are both a function selbayes.filters exports and the old path
    # of its private module; importing the modules first (by either path) must not leave a
    # module under the function's name
    out = _run("import warnings\n"
               "warnings.simplefilter('ignore', FutureWarning)\n"
               "import selbayes.filters._probabilistic_index, selbayes.filters._obf\n"
               "import selbayes.filters.probabilistic_index, selbayes.filters.obf\n"
               "from selbayes.filters import obf, probabilistic_index\n"
               "print(callable(obf), callable(probabilistic_index))")
    assert out.strip() == "True True"


# Modules inside the subpackages that keep a public path, and why. Every other module there is
# private (a leading underscore) or a package's __init__ / __main__.
PUBLIC_SCRIPT_MODULES = {
    # run as `python -m selbayes.experiments.plasmode` (Makefile `make plasmode`,
    # reports/plasmode/PROTOCOL.md)
    "experiments/plasmode.py",
    # run as `python -m selbayes.experiments.correlated_omitted` (Makefile
    # `make correlated-omitted`, reports/correlated_omitted/README.md)
    "experiments/correlated_omitted.py",
}


def test_modules_of_the_subpackages_are_private():
    public = {str(p.relative_to(SRC)) for p in SRC.glob("*/**/*.py")
              if p.name not in ("__init__.py", "__main__.py") and not p.name.startswith("_")}
    assert public == PUBLIC_SCRIPT_MODULES, (
        f"modules of a subpackage are private (a leading underscore; their public names are "
        f"re-exported by the package's __all__): {sorted(public - PUBLIC_SCRIPT_MODULES)}")
    for path in PUBLIC_SCRIPT_MODULES:
        assert "__name__ == \"__main__\"" in (SRC / path).read_text(), path


def test_the_rule_holds_for_the_old_paths_too():
    # every old public path of a subpackage module is in the compat mapping (one release)
    for old, new in PRIVATE_OLD.items():
        package, _, child = old.rpartition(".")
        assert new == f"{package}._{child}" and MOVED[old] == new


def test_the_public_api_of_each_subpackage_resolves():
    # every name of a subpackage's __all__ resolves without a warning, to an object defined in
    # one of its private modules (or a value); no private name is listed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for pkg in PRIVATE_NOW:
            module = importlib.import_module(f"selbayes.{pkg}")
            assert len(set(module.__all__)) == len(module.__all__), pkg
            for name in module.__all__:
                assert not name.startswith("_"), (pkg, name)
                obj = getattr(module, name)
                if isinstance(obj, type) or callable(obj):
                    assert "._" in obj.__module__ or obj.__module__.count(".") == 1, (pkg, name)


def test_readme_lists_every_old_path():
    # the flat paths one by one; the modules made private by their rule (one example)
    readme = (SRC.parents[1] / "README.md").read_text()
    missing = [f"{old} -> {new}" for old, new in MOVED.items()
               if old not in PRIVATE_OLD and f"| `{old}` | `{new}` |" not in readme]
    assert not missing, f"README 'Package layout' table lacks {missing}"
    assert ("`selbayes.filters.selection` is now `selbayes.filters._selection`"
            in " ".join(readme.split()))


def test_no_stale_old_path_in_the_library_or_the_guides():
    import re

    # an old path, not followed by a word character; the old paths that are also a public
    # name of their package (the function selbayes.filters.obf) only with an attribute after
    also_public = {k for k in PRIVATE_OLD
                   if k.rpartition(".")[2] in importlib.import_module(k.rpartition(".")[0])
                   .__all__}
    old = re.compile(r"\b(" + "|".join(re.escape(k) for k in MOVED if k not in also_public)
                     + r")\b(?![\w])|\b(" + "|".join(re.escape(k) for k in also_public)
                     + r")\.\w")
    root = SRC.parents[1]
    files = [p for p in SRC.rglob("*.py") if p.name != "_compat.py"]
    files += [root / "README.md", root / "docs" / "user_guide.md", root / "models" / "README.md"]
    files += sorted((root / "notebooks").glob("*.ipynb"))
    # "from selbayes.evaluation import plots": an old module imported from its package
    from_import = re.compile(r"from (selbayes\.[\w.]+) import \(?([\w, ]+)")
    stale = {}
    for path in files:
        text = path.read_text()
        if path == root / "README.md":
            # the list of old paths (test_readme_lists_every_old_path) names them on purpose
            start = text.index("Earlier versions had a flat package")
            end = text.index("\n## ", start)
            text = text[:start] + "\n" * text[start:end].count("\n") + text[end:]
        for i, line in enumerate(text.splitlines(), 1):
            m = old.search(line)
            if m and not any(note in line for note in (
                    "Old flat import paths", "the former public modules", "has moved to",
                    "the former public module for")):
                stale[f"{path.relative_to(root)}:{i}"] = m.group(1) or m.group(2)
            m = from_import.search(line)
            if m:
                names = [n.split()[0] for n in m.group(2).split(",") if n.strip()]
                bad = [f"{m.group(1)}.{n}" for n in names if f"{m.group(1)}.{n}" in PRIVATE_OLD
                       and f"{m.group(1)}.{n}" not in also_public]
                if bad:
                    stale[f"{path.relative_to(root)}:{i}"] = bad[0]
    assert not stale, f"old module paths (use the new ones, see selbayes._compat): {stale}"
