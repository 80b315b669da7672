"""Selection adjustment factors: log P(an omitted feature scores <= gamma | hyperparameters).

The corrected posterior carries this probability raised to the power p - k. Because p - k can
be 10^5, every function here works in log space and is accurate far beyond what a plain Monte
Carlo estimate would give. Inside PyMC models the factor is one pytensor Op per selection
statistic, built with its inputs by one builder per statistic: ``fstat_parameters`` ->
``FStatAdjustment`` (:mod:`selbayes.adjustment._fstat_op`), ``corr_parameters`` ->
``CorrAdjustment`` (:mod:`selbayes.adjustment._corr_op`), ``mixture_parameters`` ->
``MixtureAdjustment`` (:mod:`selbayes.adjustment._mixture_op`); their base class is
:class:`SelectionAdjustment` (:mod:`selbayes.adjustment._base`) and their backends are in
:mod:`selbayes.adjustment.backends`. The modules are private: the names below are the public API.

Import order inside the package (each module imports only from those before it): the numerics
(``_spline``, ``_fstat_exact``, ``_fstat``, ``_corr``, ``_mixture``, ``_mixture_nb``), then
``backends._numpy_kernels`` and ``backends._c``, ``_base``, ``backends._numba`` and
``backends._jax``, the statistic modules ``_fstat_op``, ``_corr_op``, ``_mixture_op``, and last
``_op`` (re-exports) and this ``__init__``.
"""

from .._compat import package_attributes as _package_attributes
from ._base import SelectionAdjustment
from ._corr import corr_log_omit_prob, default_n_theta, lattice_theta_rule
from ._corr_op import CorrAdjustment, CorrOmitLogProb, corr_parameters
from ._fstat import fstat_log_omit_prob
from ._fstat_op import FStatAdjustment, FStatOmitLogProb, fstat_parameters, mc_standard_error
from ._mixture import MixtureOmitFactor, mixture_log_omit_prob
from ._mixture_op import MixtureAdjustment, mixture_parameters

__all__ = ["fstat_log_omit_prob", "FStatOmitLogProb", "corr_log_omit_prob", "CorrOmitLogProb",
           "mixture_log_omit_prob", "MixtureOmitFactor", "default_n_theta", "lattice_theta_rule",
           "SelectionAdjustment", "FStatAdjustment", "CorrAdjustment", "MixtureAdjustment",
           "fstat_parameters", "corr_parameters", "mixture_parameters", "mc_standard_error"]


# the old module paths (selbayes.adjustment.<module>)
# for one release, with a FutureWarning
__getattr__, __dir__ = _package_attributes(__name__)
