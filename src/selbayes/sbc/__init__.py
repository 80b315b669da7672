"""Simulation-based calibration (Talts et al. 2018) of the selbayes models.

:mod:`~selbayes.sbc.core` holds the model-agnostic runner and the uniformity checks; its public
API is re-exported here (``selbayes.sbc.run_sbc``). The per-model simulators and fitters live in
:mod:`~selbayes.sbc.gaussian`, :mod:`~selbayes.sbc.naive_bayes` and :mod:`~selbayes.sbc.mixture`;
the schema, loader and runner of the SBC specs in ``models/sbc/`` (``selbayes sbc SPEC``),
:func:`run_sbc_spec` and :func:`load_sbc_spec`, shared by all three, are defined in
:mod:`~selbayes.sbc.spec` and re-exported here.
"""

from .core import (
    SBCResult,
    chi2_uniformity,
    ecdf_band,
    ecdf_uniformity,
    load_sbc,
    run_sbc,
    sbc_rank,
    thin_draws,
)
from .spec import load_sbc_spec, run_sbc_spec

__all__ = ["run_sbc", "load_sbc", "SBCResult", "sbc_rank", "thin_draws", "chi2_uniformity",
           "ecdf_uniformity", "ecdf_band", "run_sbc_spec", "load_sbc_spec"]


def __getattr__(name):
    # selbayes.sbc was one module in earlier versions; its other names are forwarded
    # (with a FutureWarning) for one release so that old code keeps working
    from .._compat import forward_private

    return forward_private(__name__, "selbayes.sbc.core", name)
