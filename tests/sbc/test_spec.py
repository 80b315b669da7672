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
