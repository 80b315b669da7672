"""Transforms applied before selection: log2 of raw intensities and decorrelation.

The modules are private; the names below are the public API: those of
:mod:`~selbayes.preprocessing._intensity` (raw microarray intensities),
:mod:`~selbayes.preprocessing._decorrelation` (standardization and whitening) and
:mod:`~selbayes.preprocessing._features` (the feature preparation of the Gaussian classifier).
"""

from .._compat import package_attributes as _package_attributes
from ._decorrelation import Decorrelation, Standardization, pooled_within_residuals
from ._features import AffineFeatures, prepare_features
from ._intensity import (
    AUTO_FLOOR,
    AUTO_FLOOR_SHARE,
    RAW_SKEWNESS,
    RAW_TAIL_RATIO,
    IntensityLog2,
    Log2InputWarning,
    RawIntensityWarning,
    auto_floor,
    auto_log2_settings,
    log2_input_problem,
    looks_like_raw_intensities,
    raw_intensity_stats,
    warn_if_not_intensities,
    warn_if_raw_intensities,
)

__all__ = ["IntensityLog2", "looks_like_raw_intensities", "auto_log2_settings", "AUTO_FLOOR",
           "AUTO_FLOOR_SHARE", "auto_floor",
           "warn_if_raw_intensities",
           "RawIntensityWarning", "raw_intensity_stats",
           "log2_input_problem", "warn_if_not_intensities", "Log2InputWarning",
           "RAW_SKEWNESS", "RAW_TAIL_RATIO",
           "Decorrelation", "Standardization", "pooled_within_residuals",
           "prepare_features", "AffineFeatures"]


# the old module paths (selbayes.preprocessing.<module>) for one release, with a FutureWarning;
# selbayes.preprocessing was one module in earlier versions, and its other names are forwarded
# too (warned)
__getattr__, __dir__ = _package_attributes(__name__,
                                           former_module="selbayes.preprocessing._intensity")
