"""One call that puts the BEE and its RMS beside the classical error estimates.

For a fitted binary classifier with a linear decision rule, :func:`evaluate` reports

* the Bayesian MMSE error estimate (BEE) and its sample-conditioned RMS (Gaussian model);
* resubstitution and repeated stratified k-fold cross-validation error;
* for classifiers with ``predict_proba``, the expected error rate ``mean(1 - max_k p_k(x_i))``
  over the training points (what the model's own probabilities say its error is);

and, for every other estimate, its conditional RMS ``sqrt(MSE_BEE + (BEE - estimate)^2)``
(Dalton 2012, eq 5.8): the BEE's RMS is a lower bound for all of them.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np

from .._validation import check_matrix, check_random_state, labels_1d, warn_if_misaligned
from ._common import BEEResult
from ._gaussian import gaussian_bee_result

__all__ = ["ErrorEvaluation", "evaluate"]


@dataclass(frozen=True)
class ErrorEvaluation:
    """Error estimates of one fitted classifier, each with its conditional RMS.

    All errors are probabilities (0..1). RMS values are sample-conditioned under the Gaussian
    model and prior used for the BEE; NaN where an estimate was not computed.

    Attributes
    ----------
    bee, bee_rms : float
        Bayesian MMSE error estimate and the square root of its conditional MSE.
    resubstitution, resubstitution_rms : float
        Training-set error rate.
    cross_validation, cross_validation_rms : float
        Mean error over the folds of repeated stratified k-fold CV (NaN if ``cv=None``).
    expected_error, expected_error_rms : float
        ``mean(1 - max proba)`` over the training points (NaN without ``predict_proba``).
    n0, n1 : int
        Training points in class 0 (``classes_[0]``) and class 1.
    details : BEEResult
        Per-class posterior moments and moments of c.

    Examples
    --------
    >>> from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat(["a", "b"], 30)
    >>> ev = evaluate(LinearDiscriminantAnalysis().fit(X, y), X, y, cv=None)
    >>> print(ev)
    error estimates (n0 = 30, n1 = 30)
    estimator                   estimate  cond. RMS
    BEE                           0.2577     0.0465
    resubstitution                0.2333     0.0525
    cross-validation                 nan        nan
    expected (predict_proba)      0.2251     0.0568
    >>> d = ev.as_dict()                                   # RMS of another estimate, eq 5.8
    >>> bool(np.isclose(d["resubstitution_rms"] ** 2,
    ...                 d["bee_rms"] ** 2 + (d["bee"] - d["resubstitution"]) ** 2))
    True
    """

    bee: float
    bee_rms: float
    resubstitution: float
    resubstitution_rms: float
    cross_validation: float
    cross_validation_rms: float
    expected_error: float
    expected_error_rms: float
    n0: int
    n1: int
    details: BEEResult

    def as_dict(self) -> dict:
        """The scalar fields as a plain dict (``details`` left out), e.g. for a DataFrame row."""
        d = asdict(self)
        d.pop("details")
        return d

    def __str__(self) -> str:
        rows = [("BEE", self.bee, self.bee_rms),
                ("resubstitution", self.resubstitution, self.resubstitution_rms),
                ("cross-validation", self.cross_validation, self.cross_validation_rms),
                ("expected (predict_proba)", self.expected_error, self.expected_error_rms)]
        lines = [f"error estimates (n0 = {self.n0}, n1 = {self.n1})",
                 f"{'estimator':<26}{'estimate':>10}{'cond. RMS':>11}"]
        lines += [f"{name:<26}{est:>10.4f}{rms:>11.4f}" for name, est, rms in rows]
        return "\n".join(lines)


def _linear_rule(classifier, linear_rule):
    if linear_rule is None:
        if not (hasattr(classifier, "coef_") and hasattr(classifier, "intercept_")):
            raise TypeError(
                f"{type(classifier).__name__} exposes no linear rule (coef_ and intercept_); "
                "pass linear_rule=(weights, bias) with psi(x) = 1[weights . x + bias > 0]"
            )
        w, b = classifier.coef_, classifier.intercept_
    else:
        try:
            w, b = linear_rule
        except (TypeError, ValueError) as exc:
            raise TypeError("linear_rule must be a pair (weights, bias)") from exc
    source = "linear_rule" if linear_rule is not None else "classifier.coef_/intercept_"
    w, b = np.asarray(w), np.asarray(b)
    if w.dtype.kind not in "iuf" or b.dtype.kind not in "iuf":
        raise TypeError(f"{source}: the weights and the bias must be numeric; got dtypes "
                        f"{w.dtype} and {b.dtype}")
    w, b = w.astype(float), b.astype(float)
    if w.ndim == 2 and w.shape[0] == 1:
        w = w[0]
    if w.ndim != 1 or b.size != 1:
        raise ValueError(
            "the linear rule must be binary: weights of shape (D,) or (1, D) and one bias; got "
            f"weights {w.shape}, bias {b.shape}"
        )
    if not (np.isfinite(w).all() and np.isfinite(b).all()):
        raise ValueError(f"{source}: the weights and the bias must be finite")
    return w, float(b.ravel()[0])


def _rule_columns(w, p, features, classifier):
    """Columns of X the rule uses and the weights on them."""
    if features is None and w.shape[0] != p:
        sel = getattr(classifier, "selection_", None)
        idx = getattr(sel, "indices", None)
        if idx is not None and len(idx) == w.shape[0]:
            features = idx
    if features is None:
        if w.shape[0] != p:
            raise ValueError(f"the linear rule has {w.shape[0]} weights but X has {p} columns; "
                             "pass features= (the columns the rule uses)")
        return np.arange(p), w
    features = np.asarray(features)
    if features.dtype == bool:
        features = np.flatnonzero(features)
    if features.dtype.kind not in "iu":
        raise ValueError(f"features must be integer column indices or a boolean mask; got "
                         f"dtype {features.dtype}")
    features = features.astype(np.int64)
    if features.ndim != 1 or features.size == 0 or features.min() < -p or features.max() >= p:
        raise ValueError(f"features must be a non-empty 1-D index array into the {p} columns of X")
    features = features % p                 # negative indices count from the end, as NumPy's
    values, counts = np.unique(features, return_counts=True)
    if np.any(counts > 1):
        # a column twice made the class scatter singular, reported as an improper posterior
        raise ValueError(f"features names column(s) {values[counts > 1][:5].tolist()} more "
                         f"than once; give each column of the rule once")
    if w.shape[0] == features.shape[0]:
        return features, w
    if w.shape[0] == p:
        outside = np.ones(p, dtype=bool)
        outside[features] = False
        if np.any(w[outside] != 0):
            raise ValueError("the linear rule puts nonzero weight on columns outside features")
        return features, w[features]
    raise ValueError(f"the linear rule has {w.shape[0]} weights; expected {features.shape[0]} "
                     f"(len(features)) or {p} (columns of X)")


def _check_fitted(classifier) -> None:
    """A scikit-learn classifier that is not fitted is named as such (its missing classes_
    would otherwise be read as labels that must be 0/1)."""
    from sklearn.base import BaseEstimator
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    if not isinstance(classifier, BaseEstimator):
        return
    try:
        check_is_fitted(classifier)
    except NotFittedError:
        raise NotFittedError(f"{type(classifier).__name__} is not fitted: evaluate estimates "
                             "the error of a fitted classifier's rule; fit it on (X, y) "
                             "first") from None


def _binary_target(classifier, y):
    y = labels_1d(y)
    classes = getattr(classifier, "classes_", None)
    if classes is None:
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y must hold 0/1 labels when the classifier has no classes_")
        return y.astype(np.int64)
    classes = np.asarray(classes)
    if classes.shape[0] != 2:
        raise ValueError(f"evaluate needs a binary classifier; classes_ has {classes.shape[0]}")
    unknown = ~np.isin(y, classes)
    if np.any(unknown):
        raise ValueError(f"y holds labels not in classifier.classes_: {np.unique(y[unknown])[:5]}")
    return (y == classes[1]).astype(np.int64)


def _cross_validation(classifier, X, y, cv, cv_repeats, rng):
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    from ..evaluation._folds import repeated_stratified_folds

    if isinstance(cv, int | np.integer) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be >= 2 folds (or None to skip); got {cv}")
        if (isinstance(cv_repeats, bool) or not isinstance(cv_repeats, int | np.integer)
                or cv_repeats < 1):
            raise ValueError(f"cv_repeats must be a positive int; got {cv_repeats!r}")
        # the package's one fold maker (selbayes.evaluation._folds), as the benchmark uses
        y_index = np.unique(y, return_inverse=True)[1]
        seed = int(rng.integers(2**31 - 1))
        cv = [split for _, splits in repeated_stratified_folds(y_index, int(cv), int(cv_repeats),
                                                                seed)
              for split in splits]
    try:
        est = clone(classifier)
    except TypeError as exc:
        raise TypeError(f"cross-validation refits the classifier, but {type(classifier).__name__} "
                        "cannot be cloned by sklearn.base.clone; pass cv=None") from exc
    acc = cross_val_score(est, X, y, cv=cv, scoring="accuracy", error_score="raise")
    return float(1.0 - np.mean(acc))


def evaluate(classifier, X, y, *, prior="flat", class_prob=None, linear_rule=None,
             features=None, cv=5, cv_repeats=5, random_state=None,
             on_invalid="raise") -> ErrorEvaluation:
    """Report the BEE and its conditional RMS beside resubstitution, CV and expected error.

    Parameters
    ----------
    classifier : fitted binary estimator
        Must have ``predict``; ``predict_proba`` is used when present. Its decision rule must be
        linear, ``psi(x) = 1[w . x + b > 0]`` with class 1 = ``classes_[1]``: read from
        ``coef_``/``intercept_`` (sklearn's linear models, ``LinearDiscriminantAnalysis``) or
        given as ``linear_rule``.
    X : array-like, shape (n, p)
        Training inputs, as passed to ``classifier.predict``.
    y : array-like, shape (n,)
        Training labels (values of ``classifier.classes_``, or 0/1).
    prior : GaussianPrior, "flat", "jeffreys" or pair
        Gaussian-model prior of each class on the rule's features (see
        :func:`gaussian_bee_result`).
    class_prob : None, float or pair
        Prior on c = P(class 0); None = uniform, updated by the class counts.
    linear_rule : pair (weights, bias), optional
        Overrides ``coef_``/``intercept_``; weights of length p or len(features).
    features : array-like of int or bool, optional
        Columns of X the rule (and the Gaussian model) uses. Default: all columns, or
        ``classifier.selection_.indices`` when the rule has fewer weights than X has columns.
    cv : int, sklearn splitter or None
        Folds of repeated stratified CV (refits ``sklearn.base.clone(classifier)``); None skips.
        An int K makes K stratified folds per repeat with
        :func:`selbayes.evaluation.repeated_stratified_folds` (the benchmark's folds).
    cv_repeats : int
        Repetitions when ``cv`` is an int (the source uses 5 x 5), >= 1.
    random_state : None, int or Generator
        Seeds the CV splits.
    on_invalid : {"raise", "nan", "half"}
        Handling of improper posteriors (see :func:`gaussian_bee_result`).

    Returns
    -------
    ErrorEvaluation
        Estimates (probabilities) and their conditional RMS; ``print`` it for a table.

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array, ``y`` does not match it or holds labels not in
        ``classifier.classes_`` (or not 0/1 without ``classes_``), the classifier is not
        binary, the linear rule is not binary, not finite or does not match ``X`` /
        ``features``, ``features`` is not a valid index array, ``cv`` < 2, ``cv_repeats`` is
        not a positive int, ``random_state`` is a negative int or a bool, or a class
        posterior is improper with ``on_invalid="raise"`` (:class:`ImproperPosteriorError`,
        a ValueError).
    sklearn.exceptions.NotFittedError
        If ``classifier`` is a scikit-learn estimator that is not fitted.
    TypeError
        If the classifier exposes no linear rule and ``linear_rule`` is not given,
        ``linear_rule`` is not a pair of numeric weights and bias, cross-validation cannot
        clone the classifier, or ``random_state`` is of another type.

    Warns
    -----
    RuntimeWarning
        When the linear rule disagrees with ``classifier.predict`` on training points.

    Examples
    --------
    >>> from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat(["a", "b"], 30)
    >>> ev = evaluate(LinearDiscriminantAnalysis().fit(X, y), X, y, random_state=0)
    >>> bool(ev.bee_rms <= ev.cross_validation_rms)
    True
    """
    _check_fitted(classifier)
    warn_if_misaligned(X, y)
    # the classifier is asked as it was fitted (a DataFrame keeps the feature names it was
    # fitted with: scikit-learn warns on an array); the linear rule works on the array
    X_given, X = X, check_matrix(X)
    if isinstance(random_state, bool | np.bool_):   # a ValueError here, as a negative int's
        raise ValueError(f"random_state must be None, an int >= 0 or a numpy Generator; got "
                         f"{random_state!r}")
    rng = check_random_state(random_state)
    y_bin = _binary_target(classifier, y)
    if y_bin.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y_bin.shape[0]} labels but X has {X.shape[0]} rows")
    w, b = _linear_rule(classifier, linear_rule)
    cols, w = _rule_columns(w, X.shape[1], features, classifier)
    Xr = X[:, cols]

    pred = np.asarray(classifier.predict(X_given))
    y_arr = np.asarray(y).ravel()
    resub = float(np.mean(pred != y_arr))
    rule_pred = (Xr @ w + b > 0).astype(np.int64)
    pred_bin = _binary_target(classifier, pred)
    n_disagree = int(np.sum(rule_pred != pred_bin))
    if n_disagree:
        warnings.warn(f"the linear rule disagrees with classifier.predict on {n_disagree} of "
                      f"{X.shape[0]} training points; the BEE is for the linear rule",
                      RuntimeWarning, stacklevel=2)

    res = gaussian_bee_result(w, b, Xr, y_bin, prior=prior, class_prob=class_prob,
                              on_invalid=on_invalid)
    cv_err = (np.nan if cv is None else
              _cross_validation(classifier, X_given, y_arr, cv, cv_repeats, rng))
    expected = np.nan
    if hasattr(classifier, "predict_proba"):
        P = np.asarray(classifier.predict_proba(X_given), dtype=float)
        expected = float(np.mean(1.0 - P.max(axis=1)))

    def rms(v):
        return float(np.nan if np.isnan(v) else res.rms_of(v))

    return ErrorEvaluation(
        bee=float(res.estimate), bee_rms=float(res.rms),
        resubstitution=resub, resubstitution_rms=rms(resub),
        cross_validation=float(cv_err), cross_validation_rms=rms(cv_err),
        expected_error=float(expected), expected_error_rms=rms(expected),
        n0=int(np.sum(y_bin == 0)), n1=int(np.sum(y_bin == 1)), details=res,
    )
