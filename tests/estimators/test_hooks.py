"""The estimators' hooks return what they compute (as scikit-learn's _BaseNB does): no state is
handed from one hook to the next through private attributes set in one and popped in another."""

import ast
import re
from pathlib import Path

import selbayes.estimators

SRC = Path(selbayes.estimators.__file__).resolve().parent

_POP = re.compile(r"\.__dict__\.(pop|get|setdefault)\(")


def _offences(text: str) -> list[str]:
    """Private attributes set on an object outside a constructor (``self._x = ...``,
    ``est._x = ...``, ``setattr(obj, "_x", ...)``), deleted (``del self._x``), or read back
    through ``__dict__``."""
    out = [f"{i}: {line.strip()}" for i, line in enumerate(text.splitlines(), 1)
           if _POP.search(line.split("#", 1)[0])]

    def private(name):
        return name.startswith("_") and not name.startswith("__")

    def visit(node, in_init):
        for child in ast.iter_child_nodes(node):
            init = in_init
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                init = child.name in ("__init__", "__setstate__", "__post_init__")
            targets = []
            if isinstance(child, ast.Assign):
                targets = child.targets
            elif isinstance(child, ast.AugAssign | ast.AnnAssign):
                targets = [child.target]
            elif isinstance(child, ast.Delete):
                targets = child.targets
                init = False                      # deleting is never a constructor's job
            for t in targets:
                if isinstance(t, ast.Attribute) and private(t.attr) and not init:
                    out.append(f"{t.lineno}: {ast.unparse(t)}")
            if (isinstance(child, ast.Call) and getattr(child.func, "id", None) in
                    ("setattr", "delattr") and len(child.args) >= 2
                    and isinstance(child.args[1], ast.Constant)
                    and private(str(child.args[1].value))):
                out.append(f"{child.lineno}: {ast.unparse(child)}")
            visit(child, init)

    visit(ast.parse(text), False)
    return out


def test_no_private_state_is_handed_between_hooks():
    found = {p.name: _offences(p.read_text()) for p in sorted(SRC.glob("*.py"))}
    found = {k: v for k, v in found.items() if v}
    assert not found, ("hooks hand state through private attributes (return it instead): "
                       f"{found}")


def test_the_check_can_fail():
    bad = ("class A:\n"
           "    def _fit_selected(self, X):\n        self._samples = X\n"
           "    def _store_predictive(self):\n        res = self.__dict__.pop('_samples')\n"
           "        est._path_choice = 3\n        setattr(est, '_x', 1)\n"
           "        del self._cache\n")
    assert len(_offences(bad)) == 5
    ok = ("class A:\n    def __init__(self, e):\n        self._est = e\n"
          "    def fit(self):\n        self.k_choice_ = None  # self._x = 1 in a comment\n"
          "        if self._statistic == 'f':\n            return self._est\n")
    assert not _offences(ok)
