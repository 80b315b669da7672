"""Bayesian MMSE error estimation (BEE) and its sample-conditioned MSE (Dalton 2012).

For a classifier fixed by the training sample, the BEE is the posterior expected true error and
its conditional MSE is the posterior variance of the true error: "how wrong will this classifier
be, and how sure are we?". Closed forms for discrete (binned) classifiers under Dirichlet priors
and for linear classifiers under conjugate Gaussian priors; :func:`evaluate` puts the BEE beside
resubstitution, cross-validation and the expected error from predictive probabilities. The
modules are private; the names below are the public API.
"""

from .._compat import keep_public_names as _keep_public_names
from .._compat import package_attributes as _package_attributes
from ._common import BEEResult, ClassProbMoments, class_prob_moments
from ._discrete import discrete_bee, discrete_bee_result, discrete_conditional_mse
from ._evaluate import ErrorEvaluation, evaluate
from ._gaussian import (
    GaussianPosterior,
    GaussianPrior,
    ImproperPosteriorError,
    gaussian_bee,
    gaussian_bee_result,
    gaussian_conditional_mse,
    gaussian_posterior,
    linear_class_moments,
    posterior_from_statistics,
)

__all__ = [
    "BEEResult",
    "ClassProbMoments",
    "class_prob_moments",
    "discrete_bee",
    "discrete_bee_result",
    "discrete_conditional_mse",
    "GaussianPrior",
    "GaussianPosterior",
    "ImproperPosteriorError",
    "gaussian_posterior",
    "posterior_from_statistics",
    "linear_class_moments",
    "gaussian_bee",
    "gaussian_bee_result",
    "gaussian_conditional_mse",
    "ErrorEvaluation",
    "evaluate",
]

# the old module path selbayes.error_estimation.evaluate (warned by selbayes._compat) must not
# replace the function of the same name
_keep_public_names(__name__)


# the old module paths (selbayes.error_estimation.<module>)
# for one release, with a FutureWarning
__getattr__, __dir__ = _package_attributes(__name__)
