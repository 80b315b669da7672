"""Simulation-based calibration (Talts et al. 2018) of the selbayes models.

The modules are private; the names below are the public API. :mod:`~selbayes.sbc._core` holds
the model-agnostic runner and the uniformity checks (``selbayes.sbc.run_sbc``). The per-model
simulators and fitters (:class:`GaussianSBCSimulator`, ...) live in
:mod:`~selbayes.sbc._gaussian`, :mod:`~selbayes.sbc._naive_bayes` and
:mod:`~selbayes.sbc._mixture` and are imported on first use; the schema, loader and runner of the
SBC specs in ``models/sbc/`` (``selbayes sbc SPEC``), :func:`sbc_schema`, :func:`load_sbc_spec`
and :func:`run_sbc_spec`, shared by all three, are defined in :mod:`~selbayes.sbc._spec`.
"""

from .._compat import package_attributes as _package_attributes
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


# the names above imported on first use; the old module paths (selbayes.sbc.<module>) for
# one release, with a FutureWarning; selbayes.sbc was one module in earlier versions, and its
# other names are forwarded too (warned)
__getattr__, __dir__ = _package_attributes(__name__, _NAMES,
                                           former_module="selbayes.sbc._core")
