"""PyMC models and their predictives.

``selbayes.models.gaussian``: the hierarchical Gaussian classifier (F-statistic selection).
``selbayes.models.priors``: the prior settings of every model, on one base.
Submodules are imported on demand so that ``import selbayes`` stays light.
"""

from .priors import GaussianPriors, MixturePrior, NaiveBayesPrior, PriorBase

__all__ = ["GaussianPriors", "NaiveBayesPrior", "MixturePrior", "PriorBase"]
