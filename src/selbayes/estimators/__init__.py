"""The three scikit-learn classifiers and the base class they share.

:class:`HierarchicalGaussianClassifier` (Li 2009), :class:`BinaryNaiveBayesClassifier` (Li 2007,
section 2.3) and :class:`BinaryMixtureClassifier` (Li 2007, section 2.4) derive from
:class:`SelectionClassifier` (in the private ``selbayes.estimators._base``): feature selection,
input checks, persistence and evaluation are implemented once there. :func:`choose_k` picks the
number of selected features of the Gaussian classifier by inner cross-validation (a pure
function of its settings; the classifier's ``k="auto"`` calls it) and returns a
:class:`KChoice`. The modules are private; the names below are the public API.
"""

from importlib import import_module

from ._base import SelectionClassifier
from ._gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
from ._mixture import BinaryMixtureClassifier
from ._naive_bayes import BinaryNaiveBayesClassifier

__all__ = ["HierarchicalGaussianClassifier", "BinaryNaiveBayesClassifier",
           "BinaryMixtureClassifier", "SelectionClassifier", "choose_k", "KChoice",
           "EXACT_MODEL"]


def __getattr__(name):
    # The inner cross-validation imports the PyMC model module: loaded on first use.
    if name in ("choose_k", "KChoice"):
        return getattr(import_module(f"{__name__}._inner_cv"), name)
    # selbayes.estimators.gaussian, ...: the former public modules, for one release (warns)
    from .._compat import old_module

    return old_module(__name__, name)
