"""Feature filters: the F statistic and |correlation| selection of :func:`select_features`
(:mod:`~selbayes.filters.selection`), OBF (:mod:`~selbayes.filters.obf`) and the probabilistic
index (:mod:`~selbayes.filters.probabilistic_index`).

OBF and the probabilistic index (they import scipy) are imported on first use, so that
``import selbayes`` stays cheap.
"""

from importlib import import_module

from .selection import Selection, select_features

_LAZY = {"obf": "obf", "obf_select": "obf", "probabilistic_index": "probabilistic_index",
         "tweedie_select": "probabilistic_index"}

__all__ = ["obf", "obf_select", "probabilistic_index", "tweedie_select", "select_features",
           "Selection"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        # importing the submodule bound its module to the package attribute of the same name
        # (obf, probabilistic_index); the function wins, as with an eager `from .obf import obf`
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
