"""PyMC models and their predictives.

The modules are private; the names below are the public API. ``_gaussian``: the hierarchical
Gaussian classifier (F-statistic selection): its data (:func:`model_data`) and graph
(:func:`build_model`); ``_gaussian_posterior``: what a draw of its precisions implies for the
class means and new cases (:func:`predictive_moments`, :func:`draw_class_means`, ...);
``_gaussian_two_groups``: the two-groups prior's null factor, marker probabilities and
predictive; ``_gaussian_plugin``: the fast plug-in predictive (:func:`plugin_posterior`);
``_linear_probit``: a Bayesian probit regression on all features by expectation propagation
(the all-genes component stacked beside the Gaussian classifier); ``_nested_probit``: its
form for more than two classes, an ensemble of nested dichotomies;
``_naive_bayes``, ``_naive_bayes_quadrature``, ``_naive_bayes_two_groups``: the binary naive
Bayes model (PyMC, quadrature, two-groups prior); ``_mixture_pymc`` and ``_mixture``: the
binary mixture model (PyMC model and step methods; the exact Gibbs sampler); ``_priors``: the
prior settings of every model, on one base.

Everything but the priors is imported on first use (PyMC, pytensor), so that
``import selbayes`` stays light.
"""

from .._compat import package_attributes as _package_attributes
from ._priors import (
    EFFECT_PRIORS,
    T_DF_GRID,
    GaussianPriors,
    MixturePrior,
    NaiveBayesPrior,
    PriorBase,
    effect_prior_of,
    for_centred_features,
    with_effect_prior,
)

# public name -> its private module (imported on first use)
_NAMES = {
    # the Gaussian model (data and graph)
    "model_data": "_gaussian", "build_model": "_gaussian",
    # what a posterior draw of the Gaussian model implies
    "predictive_moments": "_gaussian_posterior", "null_predictive_moments": "_gaussian_posterior",
    "draw_class_means": "_gaussian_posterior", "marker_log_odds": "_gaussian_posterior",
    "class_means_log_density": "_gaussian_posterior", "class_log_prior": "_gaussian_posterior",
    "predictive_log_proba": "_gaussian_posterior",
    "factorised_predictive_log_proba": "_gaussian_posterior",
    "hyperparameter_groups": "_gaussian_posterior",
    # the two-groups prior of the Gaussian model
    "null_log_prob": "_gaussian_two_groups", "marker_probabilities": "_gaussian_two_groups",
    "two_groups_predictive": "_gaussian_two_groups",
    "predictive_log_proba_two_groups": "_gaussian_two_groups",
    # the plug-in predictive
    "plugin_posterior": "_gaussian_plugin", "plugin_log_proba": "_gaussian_plugin",
    "temper_log_proba": "_gaussian_plugin", "label_noise_log_proba": "_gaussian_plugin",
    "default_label_noise": "_gaussian_plugin", "correlation_temperature": "_gaussian_plugin",
    # binary naive Bayes: quadrature and the two-groups prior
    "fit_naive_bayes_quadrature": "_naive_bayes_quadrature",
    "NaiveBayesQuadratureFit": "_naive_bayes_quadrature",
    "fit_naive_bayes_two_groups": "_naive_bayes_two_groups",
    "NaiveBayesTwoGroupsFit": "_naive_bayes_two_groups",
    # binary mixture: the exact Gibbs sampler, the PyMC model and its step methods
    "sample_mixture": "_mixture", "MixtureSamples": "_mixture",
    "build_mixture_model": "_mixture_pymc", "CollapsedZGibbs": "_mixture_pymc",
    "ConditionalSlice": "_mixture_pymc",
    # the all-features Bayesian probit regression (expectation propagation)
    "ep_probit": "_linear_probit", "fit_linear_probit": "_linear_probit",
    "LinearProbitFit": "_linear_probit",
    # more than two classes: nested dichotomies of the probit regression
    "fit_nested_probit": "_nested_probit", "NestedProbitFit": "_nested_probit",
    "nested_dichotomies": "_nested_probit",
}

__all__ = ["GaussianPriors", "NaiveBayesPrior", "MixturePrior", "PriorBase", "EFFECT_PRIORS",
           "T_DF_GRID", "effect_prior_of", "with_effect_prior", "for_centred_features",
           *_NAMES]


# the names above imported on first use; the old module paths (selbayes.models.<module>)
# for one release, with a FutureWarning
__getattr__, __dir__ = _package_attributes(__name__, _NAMES)
