"""Transforms applied before selection: log2 of raw intensities and decorrelation.

Public names of :mod:`~selbayes.preprocessing.intensity` (raw microarray intensities) and
:mod:`~selbayes.preprocessing.decorrelation` (standardization and whitening) are re-exported.
"""

from .decorrelation import Decorrelation, Standardization, pooled_within_residuals
from .intensity import (
    RAW_SKEWNESS,
    RAW_TAIL_RATIO,
    IntensityLog2,
    Log2InputWarning,
    RawIntensityWarning,
    log2_input_problem,
    looks_like_raw_intensities,
    raw_intensity_stats,
    warn_if_not_intensities,
    warn_if_raw_intensities,
)

__all__ = ["IntensityLog2", "looks_like_raw_intensities", "warn_if_raw_intensities",
           "RawIntensityWarning", "raw_intensity_stats",
           "log2_input_problem", "warn_if_not_intensities", "Log2InputWarning",
           "RAW_SKEWNESS", "RAW_TAIL_RATIO",
           "Decorrelation", "Standardization", "pooled_within_residuals"]


def __getattr__(name):
    # selbayes.preprocessing was one module in earlier versions; its other names are forwarded
    # (with a FutureWarning) for one release so that old code keeps working
    from .._compat import forward_private

    return forward_private(__name__, "selbayes.preprocessing.intensity", name)
