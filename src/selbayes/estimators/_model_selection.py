"""Former home of the Gaussian classifier's inner cross-validation, kept one release.

Everything moved by role (the names still import from here):

- the plug-in predictive and its adjustments (``plugin_log_proba``, ``temper_log_proba``,
  ``label_noise_log_proba``, ``default_label_noise``, ``correlation_temperature``) to
  :mod:`selbayes.models._gaussian_plugin`;
- the feature preparation (``prepare_features``, ``AffineFeatures``) to
  :mod:`selbayes.preprocessing._features`;
- the inner cross-validation (``KChoice``, ``pick_candidate``, ``DEFAULT_K_GRID``,
  ``DEFAULT_T_GRID``) to ``selbayes.estimators._inner_cv`` (since split: ``KChoice`` and
  ``pick_candidate`` in ``_k_choice``, the grids in ``_k_grid``); its ``choose_k`` is public as
  :func:`selbayes.estimators.choose_k`.

:func:`choose_k` here also accepts the old call ``choose_k(estimator, X, y, ...)``, which read
the settings back from the estimator's parameters.
"""

from __future__ import annotations

import warnings

from ..models._gaussian_plugin import (  # noqa: F401 (private names: old imports)
    _class_means_loglik,
    _hyper_mode,
    _log_gamma_density_log,
    correlation_temperature,
    default_label_noise,
    label_noise_log_proba,
    plugin_log_proba,
    temper_log_proba,
)
from ..preprocessing._features import AffineFeatures, prepare_features
from . import _inner_cv
from ._inner_cv import (  # noqa: F401 (private names: old imports)
    _candidate_selections,
    _candidate_temperatures,
    _fold_losses,
    _stratified_folds,
)
from ._k_choice import KChoice, pick_candidate
from ._k_grid import DEFAULT_K_GRID, DEFAULT_T_GRID

__all__ = ["KChoice", "choose_k", "plugin_log_proba", "temper_log_proba", "DEFAULT_K_GRID",
           "correlation_temperature", "DEFAULT_T_GRID", "prepare_features",
           "label_noise_log_proba", "default_label_noise", "AffineFeatures", "pick_candidate"]

def choose_k(*args, **kwargs) -> KChoice:
    """:func:`selbayes.estimators.choose_k`, also in its old form ``choose_k(estimator, X, y,
    ...)``.

    The old form reads ``priors``, ``correct_selection``, ``standardize``, ``decorrelate``,
    ``decorrelation_method``, ``temperature``, ``label_noise`` and ``choice_rule`` from
    ``estimator.get_params()`` (missing ones default to the old defaults: no decorrelation,
    T = 1, no label noise) and warns with a :class:`FutureWarning`; pass them as arguments
    instead.

    Parameters
    ----------
    *args, **kwargs
        Those of :func:`selbayes.estimators.choose_k` (``X, y`` and keyword settings), or the
        old ``estimator, X, y`` with the old keywords (``grid``, ``decorrelate_grid``,
        ``temperature_grid``, ``cv``, ``random_state``, ``n_jobs``, ``n_draws``,
        ``label_noise``, ``rule``).

    Returns
    -------
    KChoice

    Examples
    --------
    >>> import numpy as np
    >>> y = np.repeat([0, 1], 10); X = np.random.default_rng(0).normal(size=(20, 30))
    >>> choose_k(X, y, grid=[2], temperature_grid=[1.0], random_state=0).k
    2
    """
    if not args or not hasattr(args[0], "get_params"):
        return _inner_cv.choose_k(*args, **kwargs)
    warnings.warn("choose_k(estimator, X, y, ...) is deprecated: pass the settings as "
                  "arguments, choose_k(X, y, priors=..., temperature_grid=..., ...) "
                  "(selbayes.estimators.choose_k)", FutureWarning, stacklevel=2)
    estimator, X, y = args[0], args[1], args[2]
    params = estimator.get_params(deep=False)
    if hasattr(estimator, "_prior_object"):      # the priors it fits with (effect_prior in)
        params["priors"] = estimator._prior_object()
    return _inner_cv.choose_k(X, y, **_old_settings(params, **kwargs))


def _old_settings(params, *, grid=None, decorrelate_grid=None, temperature_grid=None,
                  label_noise=None, rule=None, **rest) -> dict:
    """The explicit settings the old ``choose_k(estimator, ...)`` derived from parameters."""
    if decorrelate_grid is None:
        dec = params.get("decorrelate")
        decorrelate_grid = [dec if isinstance(dec, int | float) else None]
    if temperature_grid is None:
        T = params.get("temperature", 1.0)
        temperature_grid = ("correlation" if T == "correlation" else DEFAULT_T_GRID
                            if T == "auto" else [float(T) if isinstance(T, int | float) else 1.0])
    return dict(rest, grid=grid, decorrelate_grid=decorrelate_grid,
                temperature_grid=temperature_grid,
                priors=params.get("priors"),
                corrected=bool(params.get("correct_selection", True)),
                standardize=bool(params.get("standardize", True)),
                decorrelation_method=params.get("decorrelation_method", "symmetric"),
                label_noise=params.get("label_noise", 0.0) if label_noise is None else label_noise,
                rule=params.get("choice_rule", "best") if rule is None else rule)
