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


# ---------------------------------------------------- nutpie without the arviz meta-package
def test_arviz_stand_in_forwards():
    """What nutpie.sample gets for ``arviz``: arviz_base's from_dict / dict_to_dataset (the same
    objects as arviz's), any other name from the real arviz."""
    arviz_base = pytest.importorskip("arviz_base")
    arviz = pytest.importorskip("arviz")
    stand_in = cc._ArvizForNutpie("arviz")
    assert stand_in.from_dict is arviz_base.from_dict is arviz.from_dict
    assert stand_in.dict_to_dataset is arviz_base.dict_to_dataset
    assert stand_in.loo is arviz.loo                          # not in arviz_base: real arviz
    with pytest.raises(AttributeError):
        stand_in.no_such_name  # noqa: B018


def test_arviz_stand_in_gives_way_to_the_real_arviz(monkeypatch):
    """Asked for another name while it is still in sys.modules (during nutpie's import), the
    stand-in removes itself, so the real arviz is imported and stays."""
    pytest.importorskip("arviz")
    stand_in = cc._ArvizForNutpie("arviz")
    monkeypatch.setitem(sys.modules, "arviz", stand_in)
    loo = stand_in.loo
    real = sys.modules["arviz"]
    assert real is not stand_in and real.loo is loo and hasattr(real, "plot_dist")


def _new_process(code: str) -> str:
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore")
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.strip().splitlines()[-1]


def test_import_nutpie_skips_arviz_plots_and_matplotlib():
    """nutpie's ``import arviz`` would import arviz_plots and matplotlib.pyplot (~0.3 s of a
    first fit, benchmarks/results/first_fit.md); a later ``import arviz`` is the real one."""
    pytest.importorskip("nutpie")
    code = (
        "import sys\n"
        "from selbayes._compile_cache import import_nutpie\n"
        "import_nutpie()\n"
        "import arviz_base\n"
        "ns = sys.modules['nutpie.sample']   # nutpie.sample is also the name of a function\n"
        "bad = [m for m in ('arviz', 'arviz_plots', 'matplotlib') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "assert ns.arviz.from_dict is arviz_base.from_dict\n"
        "import arviz\n"
        "assert type(arviz).__name__ == 'module' and 'arviz_plots' in sys.modules\n"
        "assert ns.arviz.plot_dist is arviz.plot_dist\n"
        "print('ok')\n"
    )
    assert _new_process(code) == "ok"


@pytest.mark.slow
def test_a_fit_imports_no_plotting():
    """A whole fit in a new process imports neither the arviz meta-package nor matplotlib
    (a fit plots nothing; they cost ~0.3 s of a first fit)."""
    pytest.importorskip("nutpie")
    code = (
        "import sys, numpy as np, selbayes\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(30, 40)); y = np.repeat([0, 1], 15)\n"
        "selbayes.HierarchicalGaussianClassifier(k=5, draws=100, tune=100, chains=2,\n"
        "    random_state=0, progressbar=False).fit(X, y)\n"
        "print(sorted(m for m in ('arviz', 'arviz_plots', 'matplotlib') if m in sys.modules))\n"
    )
    assert _new_process(code) == "[]"
