"""Feature filters: the F statistic and |correlation| selection of :func:`select_features`
(:mod:`~selbayes.filters._selection`), OBF (:func:`obf`, :mod:`~selbayes.filters._obf`) and the
probabilistic index (:func:`probabilistic_index`, :mod:`~selbayes.filters._probabilistic_index`).

The modules are private: the names below are the public API.
"""

from .._compat import keep_public_names as _keep_public_names
from .._compat import package_attributes as _package_attributes
from ._obf import NIGPrior, OBFPrior, OBFResult, obf, obf_select
from ._probabilistic_index import (
    ProbabilisticIndexResult,
    probabilistic_index,
    tweedie_correct,
    tweedie_select,
)
from ._selection import (
    Selection,
    abs_correlation,
    binary_correlation,
    f_statistic,
    select_features,
    selection_from_scores,
)

__all__ = ["obf", "obf_select", "OBFResult", "OBFPrior", "NIGPrior", "probabilistic_index",
           "tweedie_select", "tweedie_correct", "ProbabilisticIndexResult", "select_features",
           "Selection", "selection_from_scores", "f_statistic", "abs_correlation",
           "binary_correlation"]

# the old module paths selbayes.filters.obf and selbayes.filters.probabilistic_index (warned
# by selbayes._compat) must not replace the functions of the same name
_keep_public_names(__name__)


# the old module paths (selbayes.filters.<module>)
# for one release, with a FutureWarning
__getattr__, __dir__ = _package_attributes(__name__)
