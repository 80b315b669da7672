"""PyMC models and their predictives.

``selbayes.models.gaussian``: the hierarchical Gaussian classifier (F-statistic selection).
Submodules are imported on demand so that ``import selbayes`` stays light.
"""

from .priors import GaussianPriors

__all__ = ["GaussianPriors"]
