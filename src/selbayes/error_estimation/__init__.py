"""Bayesian MMSE error estimation (BEE) and its sample-conditioned MSE (Dalton, Dalton 2012).

For a classifier fixed by the training sample, the BEE is the posterior expected true error and
its conditional MSE is the posterior variance of the true error: "how wrong will this classifier
be, and how sure are we?". Closed forms for discrete (binned) classifiers under Dirichlet priors
and for linear classifiers under conjugate Gaussian priors; :func:`evaluate` puts the BEE beside
resubstitution, cross-validation and the expected error from predictive probabilities.
"""

from ._common import BEEResult, ClassProbMoments, class_prob_moments
from .discrete import discrete_bee, discrete_bee_result, discrete_conditional_mse
from .evaluate import ErrorEvaluation, evaluate
from .gaussian import (
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
