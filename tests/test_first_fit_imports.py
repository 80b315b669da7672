"""The first fit's imports: nutpie imported without ``inspect.stack``'s source reading.

``arviz_base`` (imported by nutpie) asks ``lazy_loader`` for jax and numpyro; when they are
missing, lazy_loader records its caller with ``inspect.stack()``, which cost ~1 s of a first fit
(``benchmarks/results/first_fit.md``). ``selbayes._compile_cache.import_nutpie`` runs the import
with a stack that keeps frames, files, lines and names but reads no source.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from selbayes import _compile_cache as cc


def test_stack_without_source_matches_inspect():
    full = inspect.stack()
    with cc._frames_without_source():
        cheap = inspect.stack()
    assert inspect.stack.__module__ == "inspect"             # restored after the block
    # same frames, files, lines (the call lines differ by the line between the two calls)
    assert [f.function for f in cheap] == [f.function for f in full]
    assert [f.filename for f in cheap] == [f.filename for f in full]
    assert cheap[0].lineno == full[0].lineno + 2
    assert [f.lineno for f in cheap[1:]] == [f.lineno for f in full[1:]]
    assert all(f.code_context is None for f in cheap)


def test_stack_restored_after_an_error():
    original = inspect.stack
    with pytest.raises(RuntimeError), cc._frames_without_source():
        raise RuntimeError("boom")
    assert inspect.stack is original


def test_lazy_loader_missing_module_still_names_its_caller():
    lazy_loader = pytest.importorskip("lazy_loader")
    with cc._frames_without_source():
        mod = lazy_loader.load("selbayes_no_such_module_for_this_test")
    with pytest.raises(ModuleNotFoundError, match="test_first_fit_imports.py"):
        mod.anything  # noqa: B018 - the access raises the delayed error


@pytest.mark.slow
def test_import_nutpie_reads_no_source_in_a_new_process():
    """Counted in a new process (nutpie and arviz not yet imported): no frame's source is read."""
    pytest.importorskip("nutpie")
    code = (
        "import inspect\n"
        "calls = []\n"
        "orig = inspect.getframeinfo\n"
        "inspect.getframeinfo = lambda *a, **k: calls.append(1) or orig(*a, **k)\n"
        "from selbayes._compile_cache import import_nutpie\n"
        "nutpie = import_nutpie()\n"
        "import sys\n"
        "assert 'arviz_base' in sys.modules and nutpie.__name__ == 'nutpie'\n"
        "print(len(calls))\n"
    )
    env = dict(os.environ, MPLBACKEND="Agg")
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip().splitlines()[-1] == "0"
