"""The modules of selbayes.adjustment import each other in one declared order (no circle).

Every import counts, deferred (function-local) ones included: a module may import only modules
listed before it. The order: numerics, then the NumPy and C backends (which know nothing of the
Op), the Op base, the numba and JAX registrations, the statistic modules (Op + table + builder),
and last the re-exports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "src" / "selbayes" / "adjustment"

ORDER = [
    "_spline", "_fstat_exact", "_fstat", "_corr", "_mixture", "_mixture_nb",
    "backends", "backends._numpy_kernels", "backends._c",
    "_base",
    "backends._numba", "backends._jax",
    "_fstat_op", "_corr_op", "_mixture_op",
    "_op", "__init__",
]


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _internal_imports(path: Path) -> set[str]:
    """Modules of the package that ``path`` imports anywhere in its body."""
    package = list(path.relative_to(PKG).parent.parts)      # [] or ["backends"]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name.removeprefix("selbayes.adjustment.") for a in node.names
                       if a.name.startswith("selbayes.adjustment."))
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if not (node.module or "").startswith("selbayes.adjustment"):
                    continue
                target = node.module.split(".")[2:]
            else:
                target = package[:len(package) - (node.level - 1)]
                target += node.module.split(".") if node.module else []
            if target:
                out.add(".".join(target))
            for alias in node.names:                   # "from .backends import _numba"
                out.add(".".join([*target, alias.name]))
    return out


def _violations(order):
    bad = {}
    for path in sorted(PKG.rglob("*.py")):
        name = _module_name(path)
        rank = order.index(name)
        later = sorted(m for m in _internal_imports(path) if m in order and order.index(m) >= rank
                       and m != name)
        if later:
            bad[name] = later
    return bad


def test_every_module_has_a_place_in_the_order():
    assert {_module_name(p) for p in PKG.rglob("*.py")} == set(ORDER)


def test_each_module_imports_only_modules_before_it():
    assert not _violations(ORDER), _violations(ORDER)


def test_the_check_can_fail():
    # base before the kernels it imports: reported
    swapped = [m for m in ORDER if m != "_base"]
    swapped.insert(swapped.index("backends._numpy_kernels"), "_base")
    assert "_base" in _violations(swapped)


@pytest.mark.parametrize("old_name", ["selbayes.adjustment._op", "selbayes.adjustment.op",
                                      "selbayes.adjustment.fstat_op"])
def test_the_old_op_module_re_exports_the_same_objects(old_name):
    # the op module (selbayes.adjustment.op, now _op) held every Op and builder before the
    # split; its names, and pickles that name it or the Op's former public module
    # (selbayes.adjustment.fstat_op, an alias of _fstat_op for one release), must still give
    # the very same objects
    import pickle
    import warnings

    from selbayes.adjustment import _base as base
    from selbayes.adjustment import _corr_op as corr_op
    from selbayes.adjustment import _fstat_op as fstat_op
    from selbayes.adjustment import _mixture_op as mixture_op
    from selbayes.adjustment import _op as op

    assert op.SelectionAdjustment is base.SelectionAdjustment
    assert op.FStatAdjustment is fstat_op.FStatAdjustment
    assert op.fstat_parameters is fstat_op.fstat_parameters
    assert op.mc_standard_error is fstat_op.mc_standard_error
    assert op.CorrAdjustment is corr_op.CorrAdjustment
    assert op.corr_parameters is corr_op.corr_parameters
    assert op.MixtureAdjustment is mixture_op.MixtureAdjustment
    assert op.mixture_parameters is mixture_op.mixture_parameters
    old = pickle.dumps(fstat_op.FStatAdjustment("table", 0.1), protocol=0).replace(
        b"selbayes.adjustment._fstat_op\n", old_name.encode() + b"\n")
    assert old_name.encode() + b"\n" in old
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)       # the old public paths warn
        assert pickle.loads(old) == fstat_op.FStatAdjustment("table", 0.1)
