"""The selection adjustment as a family of pytensor Ops: the public names in one place.

The corrected posterior of a model fitted to the k features that passed a selection carries
(p - k) log P(an omitted feature fails the selection | hyperparameters) (Li 2009 eqs 23-24;
Li 2007 eqs 2.52-2.55 and 2.97), one Op per statistic, each built with its inputs by one
parameter builder:

* ``FStatAdjustment`` (x = log(tau_mu w_x)), built by ``fstat_parameters``
  (:mod:`selbayes.adjustment._fstat_op`);
* ``CorrAdjustment`` (x = log alpha), built by ``corr_parameters``
  (:mod:`selbayes.adjustment._corr_op`);
* ``MixtureAdjustment`` (x = log alpha, and the counts N of the labels), built by
  ``mixture_parameters`` (:mod:`selbayes.adjustment._mixture_op`).

The base class is :class:`selbayes.adjustment.SelectionAdjustment`; the implementations
(NumPy, C, numba, JAX) are in :mod:`selbayes.adjustment.backends`, one module per backend. Each
Op's docstring defines its inputs and the prior the model must give its own parameters for the
factor to be the right one (for the F statistic: tau_x ~ Gamma(alpha_x / 2, rate
alpha_x w_x / 2)). This module only re-exports (it was the home of all of the above; the old
import paths keep working).

Examples
--------
>>> import numpy as np
>>> from selbayes.adjustment import FStatAdjustment, fstat_parameters
>>> op, params = fstat_parameters([10, 10], threshold=4.0, alpha_x=4.0)
>>> isinstance(op, FStatAdjustment), sorted(params)
(True, ['coef', 'edges'])
"""

from __future__ import annotations

from ._base import SelectionAdjustment
from ._corr_op import CorrAdjustment, corr_parameters
from ._fstat_op import FStatAdjustment, fstat_parameters, mc_standard_error
from ._mixture_op import MixtureAdjustment, mixture_parameters
from .backends._numpy_kernels import EDGE_KEYS

__all__ = [
    "SelectionAdjustment",
    "FStatAdjustment",
    "CorrAdjustment",
    "MixtureAdjustment",
    "EDGE_KEYS",
    "fstat_parameters",
    "corr_parameters",
    "mixture_parameters",
    "mc_standard_error",
]
