"""The package layout (issue 17): old flat import paths stay importable for one release, and the
library never imports from the reproduction layer (selbayes.experiments)."""

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
    sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    if child in vars(sys.modules[parent]):
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


def test_every_old_top_level_module_is_listed():
    # the flat modules of the earlier layout; any of them that is no longer a file must be an alias
    old = {"_estimator", "gaussian_classifier", "naive_bayes_classifier", "mixture_classifier",
           "model_selection", "selection", "transforms", "calibration", "diagnostics",
           "cross_validation", "plots", "_download", "simulate", "sbc_models", "sbc_naive_bayes",
           "sbc_mixture", "reproduce", "_reproduce_exec", "_reproduce_spec", "_reproduce_report",
           "_reproduce_gaussian", "_reproduce_naive_bayes", "_reproduce_mixture",
           "_reproduce_srbct", "_reproduce_colon"}
    assert {f"selbayes.{m}" for m in old} == set(MOVED)
    for name, new in MOVED.items():
        assert not (SRC / f"{name.split('.', 1)[1]}.py").exists(), name
        assert importlib.util.find_spec(new) is not None, new


def test_monkeypatching_the_old_name_patches_the_module_the_library_uses(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = importlib.import_module("selbayes.selection")
    monkeypatch.setattr("selbayes.selection.f_statistic", lambda *a, **k: "patched")
    from selbayes.filters import selection

    assert selection.f_statistic() == "patched"
    assert old is selection


@pytest.mark.parametrize("package, module, name", [
    ("selbayes.sbc", "selbayes.sbc.core", "_MANIFEST"),
    ("selbayes.datasets", "selbayes.datasets.loaders", "_validated"),
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

    assert sbc.run_sbc is importlib.import_module("selbayes.sbc.core").run_sbc
    assert datasets.load_dataset.__module__ == "selbayes.datasets.loaders"
    assert preprocessing.IntensityLog2.__module__ == "selbayes.preprocessing.intensity"
    assert preprocessing.Decorrelation.__module__ == "selbayes.preprocessing.decorrelation"


def test_old_names_import_in_a_fresh_interpreter_with_warnings_as_errors_only_for_them():
    code = ("import warnings, selbayes\n"
            "warnings.simplefilter('error', FutureWarning)\n"
            "try:\n"
            "    from selbayes.gaussian_classifier import HierarchicalGaussianClassifier\n"
            "except FutureWarning as w:\n"
            "    print('warned:', w)\n"
            "import selbayes.estimators.gaussian as g\n"
            "print(g.HierarchicalGaussianClassifier is selbayes.HierarchicalGaussianClassifier)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(SRC.parent)}).stdout
    assert "warned: selbayes.gaussian_classifier has moved to selbayes.estimators.gaussian" in out
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
    # experiments/ (paper reproductions) sits on top of the library; cli.py and demo.py are the
    # applications that run it
    allowed = {SRC / "cli.py", SRC / "demo.py", SRC / "_compat.py"}
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        if path in allowed or (SRC / "experiments") in path.parents:
            continue
        bad = sorted(n for n in _imported_modules(path)
                     if n == "selbayes.experiments" or n.startswith("selbayes.experiments."))
        if bad:
            offenders[str(path.relative_to(SRC))] = bad
    assert not offenders, f"library modules import the reproduction layer: {offenders}"


def test_the_layering_check_can_fail(tmp_path):
    pkg = tmp_path / "selbayes" / "filters"
    pkg.mkdir(parents=True)
    bad = pkg / "bad.py"
    bad.write_text("def f():\n    from ..experiments.spec import dict_diff\n"
                   "import selbayes.experiments\n")
    assert {"selbayes.experiments.spec", "selbayes.experiments"} <= _imported_modules(bad, tmp_path)


def test_sbc_run_started_before_the_move_still_resumes(tmp_path, monkeypatch):
    import shutil

    from selbayes.sbc import core, gaussian

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
    from selbayes.sbc.mixture import MixtureSBCFitter

    return MixtureSBCFitter()


# the layers, in import order: a subpackage imports only from subpackages before it (README,
# "Package layout"); private top-level helpers (_validation, _parallel, ...) serve every layer
LAYERS = ["filters", "adjustment", "models", "preprocessing", "datasets", "evaluation",
          "estimators", "error_estimation", "sbc", "benchmark", "experiments"]


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


def test_pickles_that_name_the_old_module_still_load():
    # a fit pickled (joblib / pickle) before the move records its class as
    # selbayes.gaussian_classifier.HierarchicalGaussianClassifier
    import pickle

    from selbayes.estimators.gaussian import HierarchicalGaussianClassifier

    data = pickle.dumps(HierarchicalGaussianClassifier, protocol=0)
    old = data.replace(b"selbayes.estimators.gaussian\n", b"selbayes.gaussian_classifier\n")
    assert old != data
    _fresh("selbayes.gaussian_classifier")
    with pytest.warns(FutureWarning, match="selbayes.gaussian_classifier has moved"):
        assert pickle.loads(old) is HierarchicalGaussianClassifier


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(SRC.parent)}).stdout


def test_import_selbayes_stays_cheap():
    out = _run("import sys, selbayes\n"
               "heavy = ('pymc', 'pytensor', 'sklearn', 'matplotlib', 'scipy', 'pandas',\n"
               "         'xarray')\n"
               "print([m for m in heavy if m in sys.modules])\n"
               "print(selbayes.select_features.__module__)")
    assert out.split("\n")[:2] == ["[]", "selbayes.filters.selection"]


def test_filter_functions_win_over_their_modules_of_the_same_name():
    # obf and probabilistic_index are both a submodule of selbayes.filters and a function it
    # exports; importing the submodule first must not leave the module under the function's name
    out = _run("import selbayes.filters.probabilistic_index, selbayes.filters.obf\n"
               "from selbayes.filters import obf, probabilistic_index\n"
               "print(callable(obf), callable(probabilistic_index))")
    assert out.strip() == "True True"


def test_readme_lists_every_old_path():
    readme = (SRC.parents[1] / "README.md").read_text()
    missing = [f"{old} -> {new}" for old, new in MOVED.items()
               if f"| `{old}` | `{new}` |" not in readme]
    assert not missing, f"README 'Package layout' table lacks {missing}"


def test_no_stale_old_path_in_the_library_or_the_guides():
    import re

    old = re.compile(r"\b(" + "|".join(re.escape(k) for k in MOVED) + r")\b(?![\w])")
    root = SRC.parents[1]
    files = [p for p in SRC.rglob("*.py") if p.name != "_compat.py"]
    files += [root / "docs" / "user_guide.md", root / "models" / "README.md"]
    stale = {}
    for path in files:
        for i, line in enumerate(path.read_text().splitlines(), 1):
            m = old.search(line)
            if m and "Old flat import paths" not in line:
                stale[f"{path.relative_to(root)}:{i}"] = m.group(1)
    assert not stale, f"old module paths (use the new ones, see selbayes._compat): {stale}"
