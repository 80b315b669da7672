"""Selection adjustment factors: log P(an omitted feature scores <= gamma | hyperparameters).

The corrected posterior carries this probability raised to the power p - k. Because p - k can
be 10^5, every function here works in log space and is accurate far beyond what a plain Monte
Carlo estimate would give. Inside PyMC models the factor is one pytensor Op per selection
statistic (:mod:`selbayes.adjustment.op`: ``FStatAdjustment``, ``CorrAdjustment``,
``MixtureAdjustment``).
"""

from .corr import corr_log_omit_prob
from .fstat import fstat_log_omit_prob
from .fstat_op import FStatOmitLogProb
from .op import (
    CorrAdjustment,
    FStatAdjustment,
    MixtureAdjustment,
    SelectionAdjustment,
    corr_parameters,
    fstat_parameters,
    mixture_parameters,
)

__all__ = ["fstat_log_omit_prob", "FStatOmitLogProb", "corr_log_omit_prob",
           "SelectionAdjustment", "FStatAdjustment", "CorrAdjustment", "MixtureAdjustment",
           "fstat_parameters", "corr_parameters", "mixture_parameters"]
