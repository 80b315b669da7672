"""PyMC models and their predictives.

``selbayes.models.gaussian``: the hierarchical Gaussian classifier (F-statistic selection):
its data, graph and sampler; ``gaussian_posterior``: what a draw of its precisions implies for
the class means and new cases; ``gaussian_two_groups``: the two-groups prior's null factor,
marker probabilities and predictive; ``gaussian_plugin``: the fast plug-in predictive.
``selbayes.models.priors``: the prior settings of every model, on one base.
Submodules are imported on demand so that ``import selbayes`` stays light.
"""

from .priors import GaussianPriors, MixturePrior, NaiveBayesPrior, PriorBase

__all__ = ["GaussianPriors", "NaiveBayesPrior", "MixturePrior", "PriorBase"]
