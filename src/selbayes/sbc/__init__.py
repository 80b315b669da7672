"""Simulation-based calibration (Talts et al. 2018) of the selbayes models.

The modules are private; the names below are the public API. :mod:`~selbayes.sbc._core` holds
the model-agnostic runner and the uniformity checks (``selbayes.sbc.run_sbc``). The per-model
simulators and fitters (:class:`GaussianSBCSimulator`, ...) live in
:mod:`~selbayes.sbc._gaussian`, :mod:`~selbayes.sbc._naive_bayes` and
:mod:`~selbayes.sbc._mixture` and are imported on first use; the schema, loader and runner of the
SBC specs in ``models/sbc/`` (``selbayes sbc SPEC``), :func:`sbc_schema`, :func:`load_sbc_spec`
and :func:`run_sbc_spec`, shared by all three, are defined in :mod:`~selbayes.sbc._spec`.
"""

from importlib import import_module

from ._core import (
    SBCResult,
    chi2_uniformity,
    ecdf_band,
    ecdf_uniformity,
    load_sbc,
    run_sbc,
    sbc_rank,
    thin_draws,
)
from ._spec import load_sbc_spec, run_sbc_spec, sbc_schema

# the simulators and fitters (they import the models): public name -> private module
_NAMES = {"GaussianSBCSimulator": "_gaussian", "GaussianSBCFitter": "_gaussian",
          "NaiveBayesSBCSimulator": "_naive_bayes", "NaiveBayesSBCFitter": "_naive_bayes",
          "MixtureSBCSimulator": "_mixture", "MixtureSBCFitter": "_mixture"}

__all__ = ["run_sbc", "load_sbc", "SBCResult", "sbc_rank", "thin_draws", "chi2_uniformity",
           "ecdf_uniformity", "ecdf_band", "run_sbc_spec", "load_sbc_spec", "sbc_schema",
           *_NAMES]


def __getattr__(name):
    if name in _NAMES:
        return getattr(import_module(f"{__name__}.{_NAMES[name]}"), name)
    from .._compat import MOVED, forward_private, old_module

    # selbayes.sbc.core, ...: the former public modules, for one release (warns)
    if f"{__name__}.{name}" in MOVED:
        return old_module(__name__, name)
    # selbayes.sbc was one module in earlier versions; its other names are forwarded
    # (with a FutureWarning) for one release so that old code keeps working
    return forward_private(__name__, "selbayes.sbc._core", name)


def __dir__():
    return sorted({*globals(), *__all__})
