"""Feature filters: the F statistic and |correlation| selection of :func:`select_features`
(:mod:`~selbayes.filters.selection`), OBF (:mod:`~selbayes.filters.obf`) and the probabilistic
index (:mod:`~selbayes.filters.probabilistic_index`)."""

from .obf import obf, obf_select
from .probabilistic_index import probabilistic_index, tweedie_select
from .selection import Selection, select_features

__all__ = ["obf", "obf_select", "probabilistic_index", "tweedie_select", "select_features",
           "Selection"]
