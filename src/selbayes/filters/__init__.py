"""Feature filters beyond the F statistic and |correlation| of :func:`selbayes.select_features`."""

from .obf import obf, obf_select
from .probabilistic_index import probabilistic_index, tweedie_select

__all__ = ["obf", "obf_select", "probabilistic_index", "tweedie_select"]
