"""Stacking the Gaussian classifier's candidates of k instead of choosing one.

``HierarchicalGaussianClassifier(k="auto")`` scores every candidate (k, lambda, T) by inner
cross-validation and keeps the best. Where the inner curve is flat, that choice between very
different models is decided by noise. :class:`StackedGaussianClassifier` weights the
candidates' predictive distributions instead, by stacking (Yao, Vehtari, Simpson and Gelman
2018): the weights on the simplex that maximise the inner cross-validated log score of the
mixture, computed from the same inner test cases' probabilities of their own class
(:func:`stacking_weights`); the heaviest candidates are refitted on all the training data and
their predictive probabilities averaged with those weights.
"""

from __future__ import annotations

import sys
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ._around_gaussian import AroundGaussian
from ._base import RANDOM_STATE_CONSTRAINT
from ._params import Interval, validate_params

__all__ = ["StackedGaussianClassifier", "stacking_weights"]


def stacking_weights(log_p_true, *, max_iter=1000, tol=1e-10) -> np.ndarray:
    """Stacking weights: w on the simplex maximising sum_i log sum_c w_c p_c(y_i | x_i).

    The log score of a mixture of predictive distributions, evaluated on held-out cases (Yao
    et al. 2018, eq. 4 with the log score). The objective is concave in w; it is maximised by
    the EM iteration for mixture weights, w_c <- mean_i w_c p_ci / sum_d w_d p_di, which
    increases it at every step, starting from equal weights. EM reaches an optimum on the
    boundary of the simplex only in the limit (a dominated candidate keeps a weight like
    1e-10), so the candidates it leaves below 1e-6 are then set to exactly 0 and the others
    re-optimised, provided that is the optimum: by concavity, exactly when every zeroed
    candidate's derivative mean_i p_ci / sum_d w_d p_di is at most 1 there (the
    Karush-Kuhn-Tucker conditions); otherwise EM's weights are returned.

    Parameters
    ----------
    log_p_true : array-like of shape (n_candidates, n_cases)
        Log probability (nats) each candidate gave each held-out case's own class.
    max_iter : int, default 1000
    tol : float, default 1e-10
        Stop when no weight moves by more than this.

    Returns
    -------
    ndarray of shape (n_candidates,)
        Non-negative weights summing to 1.

    Raises
    ------
    ValueError
        If ``log_p_true`` is not a non-empty 2-D array or holds NaN or +inf.

    References
    ----------
    Yao, Y., Vehtari, A., Simpson, D. and Gelman, A. (2018). Using stacking to average
    Bayesian predictive distributions. Bayesian Analysis 13, 917-1007.

    Examples
    --------
    >>> import numpy as np
    >>> L = np.log([[0.9, 0.9, 0.1], [0.5, 0.5, 0.5]])
    >>> stacking_weights(L).round(3)          # the second hedges the third case
    array([0.417, 0.583])
    >>> stacking_weights(np.log([[0.9, 0.8], [0.5, 0.5]])).round(3)   # one dominates
    array([1., 0.])
    """
    L = np.asarray(log_p_true, dtype=np.float64)
    if L.ndim != 2 or L.size == 0:
        raise ValueError(f"log_p_true must be a non-empty 2-D array (candidates x cases); "
                         f"got shape {L.shape}")
    if np.isnan(L).any() or (L == np.inf).any():
        raise ValueError("log_p_true holds NaN or +inf; log probabilities are <= 0")
    w = _em_weights(L, max_iter, tol)
    zero = w < _PROPOSE_ZERO
    if not zero.any() or zero.all():
        return w
    rest = _em_weights(L[~zero], max_iter, tol)
    with np.errstate(divide="ignore"):               # a weight of 0 is log 0 = -inf
        log_mix = np.logaddexp.reduce(np.log(rest)[:, None] + L[~zero], axis=0)
    slope = np.exp(L[zero] - log_mix).mean(axis=1)       # d objective / d w_c, per case
    if np.all(slope <= 1.0 + 1e-9):
        out = np.zeros_like(w)
        out[~zero] = rest
        return out
    return w


#: Weights EM leaves below this are tried at exactly 0 (kept at 0 only if that is optimal).
_PROPOSE_ZERO = 1e-6


def _em_weights(L, max_iter, tol) -> np.ndarray:
    """The EM iteration of :func:`stacking_weights` from equal weights."""
    w = np.full(L.shape[0], 1.0 / L.shape[0])
    for _ in range(int(max_iter)):
        with np.errstate(divide="ignore"):
            a = np.log(w)[:, None] + L
        r = np.exp(a - np.logaddexp.reduce(a, axis=0, keepdims=True))
        new = r.mean(axis=1)
        if np.max(np.abs(new - w)) < tol:
            return new
        w = new
    return w


def kept_components(weights, *, max_components: int = 3, min_weight: float = 0.05):
    """Which stacked candidates are refitted: the ``max_components`` heaviest with weight at
    least ``min_weight`` (always at least the heaviest; ties keep the earlier candidate).

    Dropping the light candidates bounds the cost (each kept one is a full fit); their weight
    is spread over the kept ones by renormalising.

    Parameters
    ----------
    weights : array-like of shape (n_candidates,)
        Stacking weights (:func:`stacking_weights`).
    max_components : int, default 3
    min_weight : float, default 0.05

    Returns
    -------
    keep : list of int
        The kept candidates' indices, heaviest first.
    renormalised : ndarray of shape (len(keep),)
        Their weights divided by their sum.

    Examples
    --------
    >>> keep, w = kept_components([0.5, 0.02, 0.3, 0.18])
    >>> keep, w.round(3)
    ([0, 2, 3], array([0.51 , 0.306, 0.184]))
    """
    w = np.asarray(weights, dtype=np.float64)
    order = np.argsort(-w, kind="stable")
    keep = [int(i) for i in order[:max_components] if w[i] >= min_weight] or [int(order[0])]
    return keep, w[keep] / w[keep].sum()


class StackedGaussianClassifier(AroundGaussian):
    """The hierarchical Gaussian classifier with its candidates of k stacked, not chosen.

    ``fit`` first fits ``estimator`` (``k="auto"``), whose inner cross-validation scores every
    candidate (k, lambda, T) on the same inner test cases. The stacking weights of those
    candidates (:func:`stacking_weights`) are computed from the inner test cases' probabilities
    of their own class; the ``max_components`` heaviest candidates with weight at least
    ``min_weight`` are kept (always at least the heaviest), their weights renormalised, and
    each is fitted on all the training data with its k, lambda and T fixed (the inner
    choice's own fit is reused where it is one of them). ``predict_proba`` is the weighted
    average of the components' predictive probabilities. Each component is a full MCMC fit,
    so a fit costs up to ``max_components`` times the chosen-k fit. :meth:`save` writes one
    netCDF file (each component's saved fit as a group) that :meth:`load` and ``selbayes
    predict`` read.

    Parameters
    ----------
    estimator : HierarchicalGaussianClassifier, optional
        The model whose candidates are stacked, with ``k="auto"`` (the default
        ``HierarchicalGaussianClassifier()``). Its ``effect_prior`` and
        ``correct_selection`` must not be ``"auto"`` (those choices are not stacked).
    max_components : int, default 3
        At most this many candidates are refitted.
    min_weight : float, default 0.05
        Candidates with a smaller stacking weight are dropped before renormalising.
    random_state : int >= 0 or None, default None
        Seeds the Gaussian model's sampling and every inner split of the fit (it replaces
        ``estimator.random_state``): two fits with the same seed give the same probabilities.
        None: ``estimator``'s own ``random_state`` (None there too: other draws at each fit).

    Attributes
    ----------
    estimators_ : list of HierarchicalGaussianClassifier
        The fitted components, heaviest first.
    k_ : int
        The k of the heaviest component.
    weights_ : ndarray of shape (n_components,)
        Their renormalised weights (sum 1).
    stacking_ : pandas.DataFrame
        Every candidate of the inner cross-validation: k, decorrelate, temperature, inner
        score (nats), stacking weight, and whether it was kept.
    selected_features_ : ndarray of str
        The features any component uses (the union of their selections), in the F order of
        the component with the largest k; ``feature_names_in_`` or ``x<j>``.
    k_choice_ : KChoice or None
        The inner cross-validation of ``estimator`` (the single best candidate it would have
        chosen is its ``k``); None after :meth:`load` (``stacking_`` keeps its scores).
    classes_ : ndarray of shape (G,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    Notes
    -----
    ``save`` writes each component's saved fit (what ``HierarchicalGaussianClassifier.save``
    writes) as the group ``component_<i>``, heaviest first; the weights and the stacking table
    are the root's variables, the settings its attributes.

    References
    ----------
    Yao, Y., Vehtari, A., Simpson, D. and Gelman, A. (2018). Using stacking to average
    Bayesian predictive distributions. Bayesian Analysis 13, 917-1007.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :5] += 1.2 * y[:, None]
    >>> base = HierarchicalGaussianClassifier(k_grid=(5, 20, 100), method="plugin",
    ...                                       progressbar=False, random_state=0)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")                   # the fits' diagnostics
    ...     clf = StackedGaussianClassifier(base).fit(X, y)
    >>> list(clf.stacking_.columns)
    ['k', 'decorrelate', 'temperature', 'score', 'weight', 'kept']
    >>> clf.predict_proba(X[:3]).shape, round(float(clf.weights_.sum()), 12)
    ((3, 2), 1.0)
    """

    _parameter_constraints: dict = {
        "estimator": "no_validation",
        "max_components": [Interval(Integral, 1, None, closed="left")],
        "min_weight": [Interval(Real, 0, 1, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, estimator=None, *, max_components: int = 3, min_weight: float = 0.05,
                 random_state=None):
        self.estimator = estimator
        self.max_components = max_components
        self.min_weight = min_weight
        self.random_state = random_state

    _WHY_K_AUTO = "its candidates are stacked"
    _FITTED = "estimators_"

    def _base(self):
        base = super()._base()
        for name in ("effect_prior", "correct_selection"):
            if getattr(base, name) == "auto":
                raise ValueError(f"estimator.{name}='auto' is a choice that is not stacked; "
                                 f"give it a value (the stacking is over k, lambda and T)")
        return base

    def fit(self, X, y, groups="near_copies"):
        """Fit the inner choice, stack its candidates, and refit the heaviest.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
        groups : array-like, "near_copies", "auto" or None, default "near_copies"
            A group label per case, kept whole by the inner folds, or what
            :meth:`HierarchicalGaussianClassifier.fit` takes.

        Returns
        -------
        self : StackedGaussianClassifier

        Raises
        ------
        ValueError
            For a bad setting or input (named), as ``estimator.fit`` raises them, and for an
            ``estimator`` that does not choose k or chooses its prior or correction.
        TypeError
            If ``estimator`` is not a HierarchicalGaussianClassifier.
        """
        import pandas as pd

        validate_params(self)
        base = self._base()
        first = clone(base).fit(X, y, groups=groups)
        choice = first.k_choice_
        L = np.asarray(choice.extra["case_losses"], dtype=np.float64)   # (candidates, n)
        w = stacking_weights(-L)
        keep, weights = kept_components(w, max_components=self.max_components,
                                        min_weight=self.min_weight)
        chosen_row = choice._chosen_row()
        estimators = []
        for n_done, i in enumerate(keep):
            k, lam, T = choice.grid[i]
            if i == chosen_row:
                estimators.append(first)
                continue
            if base.progressbar:     # each refit is a full MCMC fit: say which one runs
                print(f"selbayes: stacking, fit {n_done + 1} of {len(keep)}: k = {int(k)} "
                      f"(weight {w[i]:.2f})", file=sys.stderr, flush=True)
            params = {"k": int(k), "decorrelate": lam}
            if base.temperature == "auto":
                params["temperature"] = float(T)
            # the groups the first fit kept whole (given, or those found and kept)
            estimators.append(clone(base).set_params(**params).fit(X, y,
                                                                  groups=first.groups_))
        self.estimators_ = estimators
        self.weights_ = weights
        self.k_choice_ = choice
        self.stacking_ = pd.DataFrame({
            "k": [int(g[0]) for g in choice.grid],
            "decorrelate": [g[1] for g in choice.grid],
            "temperature": [float(g[2]) for g in choice.grid],
            "score": np.asarray(choice.score, dtype=np.float64), "weight": w,
            "kept": [i in keep for i in range(len(choice.grid))]})
        return self._describe_data(estimators[0])

    @property
    def selected_features_(self) -> np.ndarray:
        """The features any component uses, in the F order of the component with the largest
        k (the components of one decorrelation keep nested top-k sets of one ranking, so this
        is that component's selection)."""
        check_is_fitted(self, self._FITTED)
        names: dict = {}
        for est in sorted(self.estimators_, key=lambda e: -int(e.k_)):
            names.update(dict.fromkeys(est.selected_features_.tolist()))
        return np.asarray(list(names), dtype=object)

    def _component_probas(self, X) -> list:
        return [est.predict_proba(X) for est in self.estimators_]

    def _saved_parts(self):
        import xarray as xr

        table = self.stacking_
        root = xr.DataTree(xr.Dataset({
            "weight": ("component", np.asarray(self.weights_, dtype=np.float64)),
            "candidate_k": ("candidate", table["k"].to_numpy(np.int64)),
            # None (no decorrelation) as NaN: netCDF has no missing object
            "candidate_decorrelate": ("candidate", table["decorrelate"].astype(float)
                                      .to_numpy(np.float64)),
            "candidate_temperature": ("candidate", table["temperature"].to_numpy(np.float64)),
            "candidate_score": ("candidate", table["score"].to_numpy(np.float64)),
            "candidate_weight": ("candidate", table["weight"].to_numpy(np.float64)),
            "candidate_kept": ("candidate", table["kept"].to_numpy(np.int8))}))
        root.attrs = {"selbayes_n_components": len(self.estimators_)}
        return (root, {"max_components": int(self.max_components),
                       "min_weight": float(self.min_weight), "random_state": self.random_state},
                {f"component_{i}": est._saved_tree() for i, est in enumerate(self.estimators_)})

    @classmethod
    def _restore(cls, tree, attrs, config, base, path):
        import pandas as pd

        obj = cls(base, max_components=config["max_components"],
                  min_weight=config["min_weight"],
                  random_state=config.get("random_state"))   # None before 2026-12-07
        obj.estimators_ = [cls._load_gaussian(tree, f"component_{i}", path)
                           for i in range(int(attrs["selbayes_n_components"]))]
        ds = tree.to_dataset()
        obj.weights_ = ds["weight"].values
        dec = ds["candidate_decorrelate"].values
        obj.stacking_ = pd.DataFrame({
            "k": ds["candidate_k"].values.astype(int),
            "decorrelate": [None if np.isnan(d) else float(d) for d in dec],
            "temperature": ds["candidate_temperature"].values,
            "score": ds["candidate_score"].values, "weight": ds["candidate_weight"].values,
            "kept": ds["candidate_kept"].values.astype(bool)})
        obj.k_choice_ = None
        return obj._describe_data(obj.estimators_[0])
