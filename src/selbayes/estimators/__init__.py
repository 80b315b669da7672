"""The three scikit-learn classifiers and the base class they share.

:class:`HierarchicalGaussianClassifier` (Li 2009), :class:`BinaryNaiveBayesClassifier` (Li 2007,
section 2.3) and :class:`BinaryMixtureClassifier` (Li 2007, section 2.4) derive from
:class:`SelectionClassifier` (in the private ``selbayes.estimators._base``): feature selection,
input checks, persistence and evaluation are implemented once there (the parameter checks in
``_params``, the file format in ``_persistence``). :func:`choose_k` picks the
number of selected features of the Gaussian classifier by inner cross-validation (a pure
function of its settings; the classifier's ``k="auto"`` calls it) and returns a
:class:`KChoice`; :func:`choose_effect_prior` chooses the prior on the class means the same way
(``effect_prior="auto"``) and returns a :class:`PriorChoice`;
:class:`StackedGaussianClassifier` averages the predictives of the heaviest candidates of
that inner cross-validation with stacking weights (:func:`stacking_weights`) instead of
keeping one; :class:`LinearStackedClassifier` stacks the Gaussian classifier with a Bayesian
probit regression of all features, averaging the two predictives or pooling them in log space
(:func:`log_pool`, :func:`log_pool_weights`), and takes L1-penalised logistic regression as a
third model where its inner cases show a clear gain (``l1_gate``). A fit whose posterior draws would
fill more than half the available memory warns first (:class:`FitMemoryWarning`). The modules
are private; the names below are the public API.
"""

from .._compat import package_attributes as _package_attributes
from ._base import FarFromTrainingWarning, SelectionClassifier
from ._gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
from ._memory import FitMemoryWarning
from ._mixture import BinaryMixtureClassifier
from ._naive_bayes import BinaryNaiveBayesClassifier
from ._preselection import PreselectedFeaturesWarning

__all__ = ["HierarchicalGaussianClassifier", "BinaryNaiveBayesClassifier",
           "BinaryMixtureClassifier", "SelectionClassifier", "choose_k", "KChoice",
           "choose_effect_prior", "PriorChoice", "EXACT_MODEL", "FitMemoryWarning",
           "StackedGaussianClassifier", "stacking_weights", "LABEL_NOISE_SHARES",
           "FarFromTrainingWarning", "PreselectedFeaturesWarning", "LinearStackedClassifier",
           "log_pool", "log_pool_weights"]


# The inner cross-validation imports the PyMC model module: loaded on first use. The old module
# paths (selbayes.estimators.<module>) for one release, with a FutureWarning.
__getattr__, __dir__ = _package_attributes(__name__, {
    "choose_k": "_inner_cv",
    **dict.fromkeys(["KChoice", "LABEL_NOISE_SHARES"], "_k_choice"),
    **dict.fromkeys(["choose_effect_prior", "PriorChoice"], "_prior_choice"),
    **dict.fromkeys(["StackedGaussianClassifier", "stacking_weights"], "_stacking"),
    "LinearStackedClassifier": "_linear_stack",
    **dict.fromkeys(["log_pool", "log_pool_weights"], "_pooling")})
