"""The shared SBC machinery lives in selbayes.sbc._spec; the old home re-exports it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from selbayes.sbc import _gaussian as gaussian
from selbayes.sbc import _spec as spec


@pytest.mark.parametrize("name", ["MODELS", "sbc_schema", "load_sbc_spec", "run_sbc_spec"])
def test_old_names_in_sbc_gaussian_are_the_spec_module_objects(name):
    assert getattr(gaussian, name) is getattr(spec, name)


def test_package_reexports_the_spec_runner():
    import selbayes.sbc as sbc

    assert sbc.run_sbc_spec is spec.run_sbc_spec
    assert sbc.load_sbc_spec is spec.load_sbc_spec


def test_every_model_has_a_simulator_and_fitter_with_a_schema():
    from selbayes.sbc import MixtureSBCFitter, NaiveBayesSBCSimulator

    reg = spec._registry()
    assert set(reg) == set(spec.MODELS)
    assert reg["gaussian"] == (gaussian.GaussianSBCSimulator, gaussian.GaussianSBCFitter)
    assert reg["naive_bayes"][0] is NaiveBayesSBCSimulator
    assert reg["mixture"][1] is MixtureSBCFitter
    for model in spec.MODELS:
        assert set(spec.sbc_schema(model)) == {"sbc", "design", "fit", "priors"}


def test_the_spec_module_loads_no_model_module_on_import():
    code = ("import sys, selbayes.sbc._spec\n"
            "print(sorted(m for m in sys.modules if m.startswith('selbayes.sbc.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    # importing the package loads core; the model modules wait for a spec that needs them
    assert "selbayes.sbc._naive_bayes" not in out and "selbayes.sbc._mixture" not in out



def _spec_with(tmp_path, line):
    """A small mixture SBC spec with ``line`` added to its [sbc] section."""
    path = tmp_path / "sbc_note.toml"
    path.write_text('[sbc]\nmodel = "mixture"\nn_replicates = 4\n' + line + "\n\n"
                    "[design]\nn = 30\np = 100\n\n[fit]\nk = 3\n")
    return path

def test_the_spec_note_reaches_the_regenerated_readme(tmp_path):
    """A paragraph about a run lives in the spec, so ``--update-report`` keeps it."""
    from types import SimpleNamespace

    import pandas as pd

    path = _spec_with(tmp_path, 'note = "Run on a rainy day; same verdict as before."')
    loaded = spec.load_sbc_spec(path)
    assert loaded["sbc"]["note"] == "Run on a rainy day; same verdict as before."
    result = SimpleNamespace(ranks=pd.DataFrame(columns=["alpha_corrected"]))
    spec._write_readme(tmp_path, path, loaded, result)
    readme = (tmp_path / "README.md").read_text()
    assert "Run on a rainy day; same verdict as before." in readme
    assert "CollapsedZGibbs" in readme                  # the mixture's own note
    # without a note, no stray paragraph
    bare = spec.load_sbc_spec(_spec_with(tmp_path, ""))
    assert bare["sbc"]["note"] is None
    spec._write_readme(tmp_path, path, bare, result)
    assert "rainy" not in (tmp_path / "README.md").read_text()


def test_a_note_that_is_not_text_is_refused_by_name(tmp_path):
    from selbayes._spec import SpecError

    with pytest.raises(SpecError, match="note"):
        spec.load_sbc_spec(_spec_with(tmp_path, "note = 3"))


def test_the_readme_names_the_command_that_resumes_its_own_folder(tmp_path):
    """A quick run, or one with --out, said "--update-report", which runs the full spec into
    reports/<name> and does not resume that folder."""
    from types import SimpleNamespace

    import pandas as pd

    path = _spec_with(tmp_path, "")
    loaded = spec.load_sbc_spec(path)
    result = SimpleNamespace(ranks=pd.DataFrame(columns=["alpha_corrected"]))
    mine = tmp_path / "mine"
    mine.mkdir()
    spec._write_readme(mine, path, loaded, result, quick=True)
    assert f"`selbayes sbc {path} --quick --out {mine}`" in (mine / "README.md").read_text()
    committed = tmp_path / "reports" / loaded.name
    committed.mkdir(parents=True)
    spec._write_readme(committed, path, loaded, result)
    assert f"`selbayes sbc {path} --update-report`" in (committed / "README.md").read_text()
