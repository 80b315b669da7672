"""Compatibility module: the F-statistic Op now lives in :mod:`selbayes.adjustment.op`.

``FStatAdjustment`` is one subclass of :class:`selbayes.adjustment.op.SelectionAdjustment`;
:func:`fstat_adjustment` applies it to the table of an ``FStatOmitLogProb``.
"""
from __future__ import annotations

from .op import FStatAdjustment

__all__ = ["FStatAdjustment", "fstat_adjustment"]


def fstat_adjustment(table, log_scale):
    """``FStatAdjustment`` applied to ``log_scale`` with the table of an ``FStatOmitLogProb``.

    Parameters
    ----------
    table : selbayes.adjustment.FStatOmitLogProb
        The tabulated factor of one design (class counts, threshold gamma, alpha_x).
    log_scale : tensor-like of float
        x = log(tau_mu w_x), any shape.

    Returns
    -------
    pytensor.tensor.TensorVariable
        log P(omitted F <= gamma | x), same shape as ``log_scale`` (nats).

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.adjustment import FStatOmitLogProb
    >>> table = FStatOmitLogProb(np.array([10, 10]), threshold=4.0, alpha_x=4.0)
    >>> str(fstat_adjustment(table, np.zeros(3)).owner.op)
    'FStatAdjustment{G=2, gamma=4}'
    """
    return table(log_scale)
