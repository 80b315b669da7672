"""The three scikit-learn classifiers and the base class they share.

:class:`HierarchicalGaussianClassifier` (Li 2009), :class:`BinaryNaiveBayesClassifier` (Li 2007,
section 2.3) and :class:`BinaryMixtureClassifier` (Li 2007, section 2.4) derive from
:class:`SelectionClassifier` (``selbayes.estimators.base``): feature selection, input checks,
persistence and evaluation are implemented once there. :func:`choose_k`
(``selbayes.estimators.model_selection``) picks the number of selected features.
"""

from .base import SelectionClassifier
from .gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
from .mixture import BinaryMixtureClassifier
from .model_selection import choose_k
from .naive_bayes import BinaryNaiveBayesClassifier

__all__ = ["HierarchicalGaussianClassifier", "BinaryNaiveBayesClassifier",
           "BinaryMixtureClassifier", "SelectionClassifier", "choose_k", "EXACT_MODEL"]
