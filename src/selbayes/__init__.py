"""selbayes: Bayesian classification with a selected subset of features.

Selecting the features most related to the class makes a Bayesian classifier overconfident.
selbayes conditions on the selection itself: besides the retained features, the posterior
also conditions on the fact that the p - k omitted features scored below the threshold,
which adds one factor P(score <= gamma | hyperparameters)^(p - k).

Heavy modules (PyMC, pytensor) are imported lazily, on first use.
"""

from importlib import import_module

from ._compat import install as _install_aliases
from ._compile_cache import configure_pytensor as _configure_pytensor
from ._version import __version__

# Before pytensor is first imported (none of the imports above does): its compile folder and
# generated sources go to selbayes's documented cache folder, not ~/.pytensor and $TMPDIR.
_configure_pytensor()
# Old flat import paths (selbayes.gaussian_classifier, ...) resolve to the moved modules with a
# FutureWarning, for one release (see selbayes._compat).
_install_aliases()

_LAZY = {
    "Selection": "selbayes.filters._selection",
    "select_features": "selbayes.filters._selection",
    "LinearStackedClassifier": "selbayes.estimators._linear_stack",   # the default
    "HierarchicalGaussianClassifier": "selbayes.estimators._gaussian",
    "BinaryNaiveBayesClassifier": "selbayes.estimators._naive_bayes",
    "BinaryMixtureClassifier": "selbayes.estimators._mixture",
    "cross_validate": "selbayes.evaluation._cross_validation",
}
# the layers, each importing only from those before it (tests/test_layout.py): filters (feature
# scores), adjustment (the selection factor), models (PyMC), preprocessing, datasets, evaluation,
# estimators (scikit-learn classifiers), error_estimation, sbc, benchmark, experiments (paper
# reproductions)
_SUBMODULES = {
    "filters", "adjustment", "models", "preprocessing", "datasets", "evaluation", "estimators",
    "error_estimation", "sbc", "benchmark", "experiments",
}
# former top-level modules, still attributes of selbayes for one release (with a FutureWarning)
_MOVED_ATTRS = {"calibration", "diagnostics", "plots", "simulate", "reproduce"}

__all__ = ["__version__", *_LAZY, *sorted(_SUBMODULES)]


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name in _SUBMODULES or name in _MOVED_ATTRS:
        return import_module(f"selbayes.{name}")
    raise AttributeError(f"module 'selbayes' has no attribute {name!r}")


def __dir__():
    # The lazily imported public names are attributes too (tab completion, dir(selbayes)).
    return sorted({*globals(), *__all__})
