"""selbayes: Bayesian classification with a selected subset of features.

Selecting the features most related to the class makes a Bayesian classifier overconfident.
selbayes conditions on the selection itself: besides the retained features, the posterior
also conditions on the fact that the p - k omitted features scored below the threshold,
which adds one factor P(score <= gamma | hyperparameters)^(p - k).

Heavy modules (PyMC, pytensor) are imported lazily, on first use.
"""

from importlib import import_module

from ._compile_cache import configure_pytensor as _configure_pytensor
from ._version import __version__
from .selection import Selection, select_features

# Before pytensor is first imported (none of the imports above does): its compile folder and
# generated sources go to selbayes's documented cache folder, not ~/.pytensor and $TMPDIR.
_configure_pytensor()

_LAZY = {
    "HierarchicalGaussianClassifier": "selbayes.gaussian_classifier",
    "BinaryNaiveBayesClassifier": "selbayes.naive_bayes_classifier",
    "BinaryMixtureClassifier": "selbayes.mixture_classifier",
    "cross_validate": "selbayes.cross_validation",
}
_SUBMODULES = {
    "adjustment", "calibration", "diagnostics", "plots", "sbc", "simulate", "models",
    "filters", "error_estimation", "datasets", "reproduce",
}

__all__ = ["__version__", "Selection", "select_features", *_LAZY, *sorted(_SUBMODULES)]


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name in _SUBMODULES:
        return import_module(f"selbayes.{name}")
    raise AttributeError(f"module 'selbayes' has no attribute {name!r}")
