"""Every import inside selbayes goes down the declared layer order (issue 29, item 6).

The units are the top-level modules and subpackages of ``src/selbayes`` (``selbayes`` itself
is the package's ``__init__``, the public facade). A module may import only from units in
lower layers, never from its own layer's other units or a higher one. Every import counts:
module-level and function-local (deferred) ``import`` / ``from ... import`` statements,
``importlib.import_module("selbayes....")`` with a constant name, and string constants that
name a selbayes module exactly (how the lazy imports of the facade, the experiment registry
and the compatibility aliases are written). Edges inside one unit are the unit's own business
(``tests/adjustment/test_layout.py`` orders the modules of ``adjustment``).

The order was read off the code as it is (no edge had to change): the foundation modules;
feature scores and preprocessing; the selection factor (which uses the feature scores) and the
data sets (which use the preprocessing); the models; evaluation (which checks models); the
scikit-learn estimators; SBC and the benchmark; the paper reproductions (which reuse the
benchmark's methods); then the facade and the applications.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import selbayes

SRC = Path(selbayes.__file__).resolve().parent

LAYERS = [
    {"_version"},
    {"_validation"},    # input checks, imported by the helpers beside it (the task store's folder)
    {"_compat", "_spec", "_parallel", "_compile_cache", "_special", "_rounding", "_interrupt"},
    {"filters", "preprocessing"},
    {"adjustment", "datasets"},
    {"models"},
    {"evaluation"},
    {"error_estimation"},   # the BEE beside cross-validation, whose folds come from evaluation
    {"estimators"},
    {"sbc", "benchmark"},
    {"experiments"},
    {"selbayes"},       # the package __init__: lazy re-exports of every layer below
    {"demo"},
    {"cli"},
]

# Edges against the order that are there on purpose: (importer, imported) -> why.
ALLOWED = {
    ("_compat", "*"): "the alias finder maps the old flat module paths (selbayes.sbc_models, "
                      "...) to their new homes in every layer; it imports one only when old "
                      "code imports its old path",
}

RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def _units(root: Path) -> set[str]:
    out = {"selbayes"}
    for path in root.iterdir():
        if path.name.startswith((".", "__")):
            continue
        if path.is_dir() and (path / "__init__.py").exists():
            out.add(path.name)
        elif path.suffix == ".py":
            out.add(path.stem)
    return out


def _is_module(name: str, root: Path) -> bool:
    parts = name.split(".")[1:]
    base = root.joinpath(*parts) if parts else root
    return (base / "__init__.py").exists() or base.with_suffix(".py").exists()


def _unit(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "selbayes"


def _module_name(path: Path, root: Path) -> tuple[str, list[str]]:
    """The dotted name of ``path`` and its package's parts (for relative imports)."""
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    package = parts[:-1]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts), package


def _imports(path: Path, root: Path) -> list[tuple[str, int]]:
    """(imported selbayes module, line) for every import of ``path``, at any depth."""
    _, package = _module_name(path, root)
    out = []

    def add(name, line):
        if name == "selbayes" or name.startswith("selbayes."):
            out.append((name, line))

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                # "from selbayes.x import y": y is a module of x, or a name x holds
                add(sub if _is_module(sub, root) else mod, node.lineno)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value.startswith("selbayes.") and node.value.isascii()
              and all(p.isidentifier() for p in node.value.split("."))
              and _is_module(node.value, root)):
            # import_module("selbayes.x.y"), _LAZY = {...: "selbayes.x.y"}, aliases
            add(node.value, node.lineno)
    return out


def violations(root: Path = SRC, layers=LAYERS, allowed=ALLOWED) -> dict[str, list[str]]:
    """Every import edge against the order, by importing module; undeclared units too."""
    rank = {unit: i for i, layer in enumerate(layers) for unit in layer}
    bad: dict[str, list[str]] = {}
    for unit in sorted(_units(root) - set(rank)):
        bad.setdefault("<layers>", []).append(f"{unit} has no layer")
    for path in sorted(root.rglob("*.py")):
        me, _ = _module_name(path, root)
        src = _unit(me)
        for target, line in _imports(path, root):
            dst = _unit(target)
            if dst == src or src not in rank or dst not in rank:
                continue
            if (src, "*") in allowed or (src, dst) in allowed:
                continue
            if rank[dst] >= rank[src]:
                bad.setdefault(me, []).append(f"line {line}: {target} ({dst}, layer "
                                              f"{rank[dst]} >= {rank[src]})")
    return bad


def test_every_unit_has_a_layer():
    assert _units(SRC) <= set(RANK), sorted(_units(SRC) - set(RANK))
    assert set(RANK) <= _units(SRC), sorted(set(RANK) - _units(SRC))      # no stale entry


def test_every_import_goes_down_the_layers():
    bad = violations()
    assert not bad, "imports against the layer order (tests/test_layers.py):\n" + "\n".join(
        f"  {m}: {e}" for m, es in bad.items() for e in es)


def test_every_allowance_is_still_needed():
    for (src, dst), reason in ALLOWED.items():
        assert reason
        others = {k: v for k, v in ALLOWED.items() if k != (src, dst)}
        assert violations(allowed=others), f"({src}, {dst}) is allowed but never used"


def _tree(tmp_path, files: dict[str, str]) -> Path:
    root = tmp_path / "selbayes"
    for name, text in {"__init__.py": "", "_version.py": "", "cli.py": "",
                       "filters/__init__.py": "", "estimators/__init__.py": "",
                       "estimators/_gaussian.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


LAYERS_TOY = [{"_version"}, {"filters"}, {"estimators"}, {"selbayes"}, {"cli"}]


@pytest.mark.parametrize("text, target", [
    ("from ..estimators import _gaussian\n", "selbayes.estimators._gaussian"),
    ("def f():\n    from ..estimators._gaussian import X\n", "selbayes.estimators._gaussian"),
    ("def f():\n    import selbayes.estimators\n", "selbayes.estimators"),
    ("def f():\n    from selbayes import estimators\n", "selbayes.estimators"),
    ("from importlib import import_module\n"
     "def f():\n    return import_module('selbayes.estimators._gaussian')\n",
     "selbayes.estimators._gaussian"),
    ("_LAZY = {'X': 'selbayes.estimators'}\n", "selbayes.estimators"),
    ("def f():\n    from .. import cli\n", "selbayes.cli"),
    ("import selbayes\n", "selbayes"),
])
def test_the_check_finds_an_upward_edge(tmp_path, text, target):
    root = _tree(tmp_path, {"filters/_bad.py": text})
    bad = violations(root, LAYERS_TOY, {})
    assert list(bad) == ["selbayes.filters._bad"]
    assert target in bad["selbayes.filters._bad"][0]


def test_the_check_passes_downward_and_internal_edges_and_ignores_prose(tmp_path):
    root = _tree(tmp_path, {
        "estimators/ok.py": ('"""See selbayes.cli and selbayes.estimators."""\n'
                             "from ..filters import x\nfrom . import _gaussian\n"
                             "from .._version import v\nNAME = 'selbayes.not_a_module'\n"),
    })
    assert violations(root, LAYERS_TOY, {}) == {}


def test_the_check_reports_same_layer_edges_and_undeclared_units(tmp_path):
    root = _tree(tmp_path, {"filters/_a.py": "from ..preprocessing import _b\n",
                            "preprocessing/__init__.py": "", "preprocessing/_b.py": "",
                            "newpkg.py": ""})
    layers = [{"_version"}, {"filters", "preprocessing"}, {"estimators"}, {"selbayes"},
              {"cli"}]
    bad = violations(root, layers, {})
    assert bad["<layers>"] == ["newpkg has no layer"]
    assert "selbayes.preprocessing._b" in bad["selbayes.filters._a"][0]


def test_the_check_fails_on_the_real_tree_when_two_layers_swap():
    # evaluation checks models (prior_checks reads the priors): declared below them, reported
    swapped = [layer for layer in LAYERS if layer not in ({"models"}, {"evaluation"})]
    at = swapped.index({"estimators"})
    swapped[at:at] = [{"evaluation"}, {"models"}]
    bad = violations(layers=swapped)
    assert "selbayes.evaluation._prior_checks" in bad
    assert all("models" in e for e in bad["selbayes.evaluation._prior_checks"])
