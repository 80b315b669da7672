"""The three scikit-learn classifiers and the base class they share.

:class:`HierarchicalGaussianClassifier` (Li 2009), :class:`BinaryNaiveBayesClassifier` (Li 2007,
section 2.3) and :class:`BinaryMixtureClassifier` (Li 2007, section 2.4) derive from
:class:`SelectionClassifier` (``selbayes.estimators.base``): feature selection, input checks,
persistence and evaluation are implemented once there. :func:`choose_k` picks the number of
selected features of the Gaussian classifier by inner cross-validation (a pure function of its
settings; the classifier's ``k="auto"`` calls it) and returns a :class:`KChoice`.
"""

from importlib import import_module

from .base import SelectionClassifier
from .gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
from .mixture import BinaryMixtureClassifier
from .naive_bayes import BinaryNaiveBayesClassifier

__all__ = ["HierarchicalGaussianClassifier", "BinaryNaiveBayesClassifier",
           "BinaryMixtureClassifier", "SelectionClassifier", "choose_k", "KChoice",
           "EXACT_MODEL"]


def __getattr__(name):
    # The inner cross-validation imports the PyMC model module: loaded on first use.
    if name in ("choose_k", "KChoice"):
        return getattr(import_module(f"{__name__}._inner_cv"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
