"""Evaluating fitted classifiers: calibration and losses, sampler diagnostics, cross-validation
and plots.

Submodules: :mod:`~selbayes.evaluation.calibration`, :mod:`~selbayes.evaluation.diagnostics`,
:mod:`~selbayes.evaluation.cross_validation`, :mod:`~selbayes.evaluation.folds` (every split of
the package), :mod:`~selbayes.evaluation.ppc` and :mod:`~selbayes.evaluation.loo_check` (the
checks ``fit`` runs), :mod:`~selbayes.evaluation.plots`. They are imported
on first use (``selbayes.evaluation.plots``), so importing an estimator does not import
xarray or matplotlib.
"""

from importlib import import_module

_SUBMODULES = ("calibration", "diagnostics", "cross_validation", "folds", "ppc", "loo_check",
               "plots")

__all__ = [*_SUBMODULES, "cross_validate"]


def __getattr__(name):
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    if name == "cross_validate":
        return import_module(f"{__name__}.cross_validation").cross_validate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
