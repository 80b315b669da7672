"""Selection adjustment factors: log P(an omitted feature scores <= gamma | hyperparameters).

The corrected posterior carries this probability raised to the power p - k. Because p - k can
be 10^5, every function here works in log space and is accurate far beyond what a plain Monte
Carlo estimate would give. Inside PyMC models the factor is one pytensor Op per selection
statistic, built with its inputs by one builder per statistic: ``fstat_parameters`` ->
``FStatAdjustment`` (:mod:`selbayes.adjustment.fstat_op`), ``corr_parameters`` ->
``CorrAdjustment`` (:mod:`selbayes.adjustment.corr_op`), ``mixture_parameters`` ->
``MixtureAdjustment`` (:mod:`selbayes.adjustment.mixture_op`); their base class is in
:mod:`selbayes.adjustment.base` and their backends in :mod:`selbayes.adjustment.backends`.

Import order inside the package (each module imports only from those before it): the numerics
(``_spline``, ``_fstat_exact``, ``fstat``, ``corr``, ``mixture``, ``_mixture_nb``), then
``backends.numpy_kernels`` and ``backends.c``, ``base``, ``backends.numba`` and
``backends.jax``, the statistic modules ``fstat_op``, ``corr_op``, ``mixture_op``, and last
``op`` (re-exports) and this ``__init__``.
"""

from .base import SelectionAdjustment
from .corr import corr_log_omit_prob
from .corr_op import CorrAdjustment, corr_parameters
from .fstat import fstat_log_omit_prob
from .fstat_op import FStatAdjustment, FStatOmitLogProb, fstat_parameters
from .mixture_op import MixtureAdjustment, mixture_parameters

__all__ = ["fstat_log_omit_prob", "FStatOmitLogProb", "corr_log_omit_prob",
           "SelectionAdjustment", "FStatAdjustment", "CorrAdjustment", "MixtureAdjustment",
           "fstat_parameters", "corr_parameters", "mixture_parameters"]
