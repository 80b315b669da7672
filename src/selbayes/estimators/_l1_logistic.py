"""L1-penalised logistic regression of all features: the stack's third model.

Where a handful of genes separate the classes almost perfectly (an "easy" expression set), a
sparse linear model is sharper than both Bayesian models of :class:`LinearStackedClassifier`:
the Gaussian model of the top-k genes is confidently wrong on a few cases at every k and the
probit model of all genes is right but underconfident (reports/plasmode/gated_l1_stack).
L1-penalised logistic regression (Tibshirani 1996) wins there, so the stack can take it as a
third predictive distribution, behind a gate (``LinearStackedClassifier(l1_gate=...)``). It
is not a Bayesian model: its probabilities are a penalised fit's.

The recipe is the benchmark's ``logreg_l1_cv``, defined here once: features standardised on
the training cases; the L1 penalty's C chosen among 5 values from 0.01 to 10 by 3-fold
shuffled stratified cross-validation on log loss; liblinear (coordinate descent); with more
than two classes one binary regression per class against the rest, the probabilities
renormalised. :class:`L1LogisticFit` keeps only the numbers its predictions need, so that a
saved stack stores arrays, not pickled scikit-learn objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["L1_CS", "L1_INNER_FOLDS", "l1_logistic_pipeline", "L1LogisticFit", "fit_l1_logistic"]

#: The penalty grid: below C = 0.01 every coefficient is zero on standardised data with
#: n ~ 100 cases.
L1_CS = np.logspace(-2, 1, 5)
#: Folds of the search for C (the recipe's; :func:`can_fit_l1_logistic` checks them).
L1_INNER_FOLDS = 3


def l1_logistic_pipeline(n_classes, random_state=None, *, quick=False,
                         inner_folds=L1_INNER_FOLDS):
    """The unfitted scikit-learn pipeline of the recipe (module docstring).

    Parameters
    ----------
    n_classes : int
        Number of classes; more than two gives one-vs-rest.
    random_state : int or None
        The inner folds' shuffling seed (and liblinear's).
    quick : bool, default False
        Every other value of :data:`L1_CS` only.
    inner_folds : int or list of (train, test) index arrays, default 3
        Folds of the search for C: their number (shuffled stratified folds), or the folds
        themselves, made already on the training cases the pipeline will be fitted to (for
        example with a group's cases kept in one fold).

    Returns
    -------
    sklearn.pipeline.Pipeline
        ``StandardScaler`` then ``LogisticRegressionCV`` (wrapped in ``OneVsRestClassifier``
        for more than two classes).

    Examples
    --------
    >>> [name for name, _ in l1_logistic_pipeline(2, random_state=0).steps]
    ['standardscaler', 'logisticregressioncv']
    """
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ..evaluation._folds import inner_splitter

    model = LogisticRegressionCV(Cs=L1_CS[::2] if quick else L1_CS, penalty="l1",
                                 solver="liblinear",
                                 cv=inner_splitter(inner_folds, random_state),
                                 scoring="neg_log_loss", tol=1e-3, max_iter=500,
                                 random_state=random_state)
    if n_classes > 2:
        # liblinear is binary only
        model = OneVsRestClassifier(model)
    return make_pipeline(StandardScaler(), model)


@dataclass(frozen=True)
class L1LogisticFit:
    """A fitted :func:`l1_logistic_pipeline`, as the numbers its predictions need.

    Attributes
    ----------
    mean, scale : ndarray of shape (p,)
        The training cases' feature means and standard deviations (1 where a feature does
        not vary), in the units of X.
    coef : ndarray of shape (B, p)
        Coefficients on the standardised features: B = 1 for two classes (the log odds of
        the second class), else one row per class (that class against the rest).
    intercept : ndarray of shape (B,)
    C : ndarray of shape (B,)
        The chosen inverse penalty of each regression.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 15); X = rng.normal(size=(30, 40)); X[:, 0] += 3 * y
    >>> fit = fit_l1_logistic(X, y, random_state=0)
    >>> fit.coef.shape, fit.predict_log_proba(X[:2]).shape
    ((1, 40), (2, 2))
    """

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    C: np.ndarray

    def predict_log_proba(self, X) -> np.ndarray:
        """Log probabilities (nats) of each class, shape (n_samples, G), computed in log
        space (a probability that would round to 0 keeps its log)."""
        from scipy.special import log_expit, logsumexp

        eta = ((np.asarray(X, dtype=np.float64) - self.mean) / self.scale) @ self.coef.T
        eta += self.intercept
        if self.coef.shape[0] == 1:
            return np.column_stack([log_expit(-eta[:, 0]), log_expit(eta[:, 0])])
        one_vs_rest = log_expit(eta)
        return one_vs_rest - logsumexp(one_vs_rest, axis=1, keepdims=True)

    @classmethod
    def from_pipeline(cls, pipe) -> L1LogisticFit:
        """The numbers of a fitted :func:`l1_logistic_pipeline`."""
        scaler, model = pipe[0], pipe[-1]
        regressions = getattr(model, "estimators_", [model])
        return cls(mean=np.asarray(scaler.mean_, dtype=np.float64),
                   scale=np.asarray(scaler.scale_, dtype=np.float64),
                   coef=np.vstack([r.coef_ for r in regressions]).astype(np.float64),
                   intercept=np.concatenate([r.intercept_ for r in regressions]).astype(
                       np.float64),
                   C=np.concatenate([np.atleast_1d(r.C_) for r in regressions]).astype(
                       np.float64))

    def to_dataset(self):
        """An ``xarray.Dataset`` of the fit (for a saved stack)."""
        import xarray as xr

        return xr.Dataset({"mean": ("feature", self.mean), "scale": ("feature", self.scale),
                           "coef": (("regression", "feature"), self.coef),
                           "intercept": ("regression", self.intercept),
                           "C": ("regression", self.C)})

    @classmethod
    def from_dataset(cls, ds) -> L1LogisticFit:
        """The inverse of :meth:`to_dataset`."""
        return cls(**{name: np.asarray(ds[name].values, dtype=np.float64)
                      for name in ("mean", "scale", "coef", "intercept", "C")})


def can_fit_l1_logistic(y, inner_folds: int = L1_INNER_FOLDS, *, groups=None,
                        random_state=None) -> bool:
    """Whether the search for C can split class indices ``y`` into ``inner_folds`` stratified
    folds: every class needs two cases (a class with one case cannot be in both parts of a
    split), and some class as many cases as there are folds (scikit-learn's
    ``StratifiedKFold`` refuses to split when every class has fewer). With ``groups`` (a code
    per case), the folds :func:`fit_l1_logistic` would make with ``random_state`` must also
    leave every class in every training fold."""
    counts = np.bincount(y)
    if not (int(counts.min()) >= 2 and int(counts.max()) >= inner_folds):
        return False
    return groups is None or _grouped_folds(y, groups, random_state, inner_folds) is not None


def _grouped_folds(y, groups, random_state, inner_folds=L1_INNER_FOLDS):
    """The search for C's folds with a group's cases in one fold, or None where the groups
    are too few or a training fold would lack a class."""
    from ..evaluation._folds import check_splits, stratified_folds

    if np.unique(groups).size < inner_folds:
        return None
    folds = stratified_folds(y, inner_folds, random_state, small_classes_ok=True,
                             groups=groups)
    try:                         # the package's check of folds: every class in every training
        return check_splits(folds, y, np.arange(int(np.max(y)) + 1))
    except ValueError:
        return None


def fit_l1_logistic(X, y, random_state=None, groups=None) -> L1LogisticFit:
    """Fit the recipe (module docstring) to all of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    y : ndarray of int, shape (n,)
        Class indices 0 .. G-1, every class with two cases or more and one with three.
    random_state : int or None
    groups : int ndarray of shape (n,), optional
        Group codes: the search for C keeps a group's cases in one fold.

    Returns
    -------
    L1LogisticFit

    Raises
    ------
    ValueError
        If a class has fewer than two cases, or every class fewer than three, or the groups
        are fewer than the search's folds or leave one of its training folds without a class.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1, 2], 10); X = rng.normal(size=(30, 20)); X[:, 0] += 3 * y
    >>> fit_l1_logistic(X, y, random_state=0).coef.shape
    (3, 20)
    """
    import warnings

    y = np.asarray(y)
    if not can_fit_l1_logistic(y):
        raise ValueError(f"L1 logistic regression needs two cases of every class and three "
                         f"of one (its penalty is chosen by 3-fold cross-validation); the "
                         f"class counts are {np.bincount(y).tolist()}")
    G = int(y.max()) + 1
    folds = L1_INNER_FOLDS
    if groups is not None:
        folds = _grouped_folds(y, np.asarray(groups), random_state)
        if folds is None:
            raise ValueError(f"L1 logistic regression chooses its penalty by "
                             f"{L1_INNER_FOLDS}-fold cross-validation with each group's cases "
                             f"in one fold, and the {np.unique(groups).size} groups cannot "
                             f"give every class to every training fold")
    with warnings.catch_warnings():
        # liblinear's convergence notes and the small-class note of the 3-fold split: the
        # stack weighs this model by its inner cases, which show what such a fit is worth
        warnings.simplefilter("ignore")
        pipe = l1_logistic_pipeline(G, random_state, inner_folds=folds).fit(X, y)
    return L1LogisticFit.from_pipeline(pipe)
