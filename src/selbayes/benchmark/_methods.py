"""The methods a benchmark compares: selbayes configurations and scikit-learn peers.

Every entry of :data:`METHODS` is a factory ``factory(n_classes, random_state, *, quick=False,
inner_folds=3)`` returning an unfitted scikit-learn classifier with ``predict_proba``. Any
tuning (the penalty of the logistic regressions, the number of F-selected features of the
LDA and naive Bayes peers) happens inside ``fit`` by inner stratified cross-validation on the
training fold, so nothing a method does sees the outer test cases.

The configuration the README recommends is defined once, in :func:`selbayes_default`.

References
----------
Li Y. (2009), Li 2009: the hierarchical Gaussian classifier with selection correction.
Dudoit S., Fridlyand J. and Speed T. P. (2002), JASA 97:77-87 (diagonal discriminants as peers).
"""

from __future__ import annotations

import contextlib

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectKBest
from sklearn.model_selection import GridSearchCV

__all__ = ["METHODS", "PEERS", "SELBAYES_METHODS", "QUICK_METHODS", "DEFAULT_METHODS",
           "selbayes_default", "make_method", "chosen_k", "chosen_numbers",
           "CHOSEN_NUMBERS", "K_GRID"]

#: Numbers of F-selected features tried by the inner CV of ``lda_shrinkage`` and ``gnb`` (values
#: above the training fold's number of features p become p).
K_GRID = (5, 10, 20, 50, 100, 200)
# Penalty grid of the logistic regressions: 7 values on a log grid (wide enough to reach both
# the near-unpenalised and the all-shrunk ends on standardised expression data).
_CS = np.logspace(-4, 2, 7)


def selbayes_default(random_state=None, *, quick: bool = False, **overrides):
    """The selbayes configuration the README recommends (the benchmark's ``selbayes``).

    Defined here once; change it here when the recommendation changes.

    Parameters
    ----------
    random_state : int, optional
    quick : bool, default False
        Fewer posterior draws (200 tuning + 200 draws x 2 chains), for smoke tests.
    **overrides
        Passed to :class:`selbayes.HierarchicalGaussianClassifier` (e.g. ``k=50``).

    Returns
    -------
    selbayes.HierarchicalGaussianClassifier

    Examples
    --------
    >>> selbayes_default(0).k
    'auto'
    """
    from ..estimators._gaussian import HierarchicalGaussianClassifier

    # The class defaults: k chosen inside fit by inner CV, the predictive temperature from
    # the selected features' within-class correlation, per-feature standardisation, label
    # noise 1/(n + 2) (see reports/modelling_choices.md).
    params = {"correct_selection": True, "random_state": random_state, "progressbar": False}
    if quick:
        params.update(draws=200, tune=200, chains=2)
    params.update(overrides)
    return HierarchicalGaussianClassifier(**params)


def _inner_cv(inner_folds, random_state):
    from ..evaluation._folds import inner_splitter

    return inner_splitter(inner_folds, random_state)


def _k_search(model, n_classes, random_state, inner_folds):
    """SelectKBest(f_classif) + model, with k chosen by inner-CV log loss over :data:`K_GRID`
    (clipped to the number of features of the training fold)."""
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.pipeline import Pipeline

    pipe = Pipeline([("select", SelectKBest(f_classif, k=10)), ("model", model)])
    return _KGridSearch(pipe, {"select__k": list(K_GRID)}, scoring="neg_log_loss",
                        cv=_inner_cv(inner_folds, random_state), error_score=np.nan,
                        refit=True)


@contextlib.contextmanager
def _set_for_this_fit(estimator, **params):
    """Set ``params`` on ``estimator`` for one fit, then restore them: get_params (and so
    clone) keep what the caller gave."""
    given = {name: getattr(estimator, name) for name in params}
    for name, value in params.items():
        setattr(estimator, name, value)
    try:
        yield
    finally:
        for name, value in given.items():
            setattr(estimator, name, value)


class _AtMostKBest(SelectKBest):
    """SelectKBest that keeps all p features, without scikit-learn's warning, where k > p
    (the selected features are the same: the k best of p < k are all of them)."""

    def fit(self, X, y=None, **params):
        too_many = self.k != "all" and self.k > np.shape(X)[1]
        with _set_for_this_fit(self, k="all" if too_many else self.k):
            return super().fit(X, y, **params)


class _KGridSearch(GridSearchCV):
    """A grid search over ``select__k`` whose values above the number of features p of the X
    it is fitted on are replaced by p (duplicates dropped). Unclipped, every k > p selects all
    p features: scikit-learn warns in every inner fit, the same model is fitted several times,
    and the k recorded as chosen is not the number of features the model uses."""

    def fit(self, X, y=None, **params):
        from ..estimators._k_grid import usable_k_grid

        ks = usable_k_grid(self.param_grid["select__k"], np.shape(X)[1], "clip")
        with _set_for_this_fit(self, param_grid={**self.param_grid, "select__k": ks}):
            return super().fit(X, y, **params)


def _selbayes(random_state, quick, inner_folds, **kw):
    return selbayes_default(random_state, quick=quick, **kw)


def _logreg(penalty):
    def factory(n_classes, random_state, *, quick=False, inner_folds=3):
        from sklearn.decomposition import PCA
        from sklearn.linear_model import LogisticRegressionCV
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        from ..estimators._l1_logistic import l1_logistic_pipeline

        cv = _inner_cv(inner_folds, random_state)
        if penalty == "l2":
            # An L2-penalised linear model's weights lie in the span of the (centred) training
            # rows, so rotating onto the principal axes (all n components; no truncation)
            # changes nothing in the fit but makes p = 22283 cost like p = n.
            model = LogisticRegressionCV(Cs=_CS[::2] if quick else _CS, cv=cv,
                                         scoring="neg_log_loss", tol=1e-4, max_iter=2000,
                                         random_state=random_state)
            return make_pipeline(StandardScaler(), PCA(svd_solver="full"), model)
        # L1 has no such shortcut; its recipe (liblinear, one-vs-rest for several classes) is
        # the stack's third model's, defined once there
        return l1_logistic_pipeline(n_classes, random_state, quick=quick,
                                    inner_folds=inner_folds)
    return factory


def _lda(n_classes, random_state, *, quick=False, inner_folds=3):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    return _k_search(LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto"), n_classes,
                     random_state, inner_folds)


def _gnb(n_classes, random_state, *, quick=False, inner_folds=3):
    from sklearn.naive_bayes import GaussianNB

    return _k_search(GaussianNB(), n_classes, random_state, inner_folds)


def _gnb_calibrated(n_classes, random_state, *, quick=False, inner_folds=3):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.feature_selection import f_classif
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline

    # Sigmoid (Platt) recalibration of F-selected GaussianNB; k fixed at 50 to keep one level of
    # inner cross-validation (the calibration folds).
    base = make_pipeline(_AtMostKBest(f_classif, k=50), GaussianNB())
    return CalibratedClassifierCV(base, method="sigmoid",
                                  cv=_inner_cv(inner_folds, random_state))


def _random_forest(n_classes, random_state, *, quick=False, inner_folds=3):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100 if quick else 500, max_features="sqrt",
                                  random_state=random_state, n_jobs=1)


def _svm_platt(n_classes, random_state, *, quick=False, inner_folds=3):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    # Platt scaling (a sigmoid of the linear SVM's decision value) fitted on the inner folds'
    # held-out decision values, then the SVM refitted on every training case (ensemble=False):
    # what SVC(probability=True) did on libsvm's own 5 folds until 2026-12-06, when that
    # option was deprecated (scikit-learn 1.9); the folds are now the other peers' (and keep
    # a grouped benchmark's groups whole). More than two classes: one sigmoid per class
    # against the rest, normalised, where libsvm coupled the pairs.
    svm = SVC(kernel="linear", C=1.0, random_state=random_state)
    return make_pipeline(StandardScaler(), CalibratedClassifierCV(
        svm, method="sigmoid", cv=_inner_cv(inner_folds, random_state), ensemble=False))


class SameChoiceUncorrected(ClassifierMixin, BaseEstimator):
    """The recommended configuration's own choices of k, temperature and label noise, refitted
    without the selection correction: the correction's contribution alone.

    ``selbayes_uncorrected`` makes its own choices with an uncorrected inner criterion, and a
    larger temperature then absorbs the overconfidence that ignoring the selection causes;
    this ablation holds everything but the correction fixed at what ``selbayes`` chose.

    Parameters
    ----------
    random_state : int, optional
    quick : bool, default False
        As in :func:`selbayes_default`.
    choice_rule : {"best", "one_se", "largest_k_one_se"}, default "best"
        The reference configuration's rule for its inner choices.

    Examples
    --------
    >>> SameChoiceUncorrected(0).random_state
    0
    """

    def __init__(self, random_state=None, quick: bool = False, choice_rule: str = "best"):
        self.random_state = random_state
        self.quick = quick
        self.choice_rule = choice_rule

    def fit(self, X, y, groups="near_copies"):
        """Fit ``selbayes_default``, then refit uncorrected at its chosen k, T and eps.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
        groups : array-like, "near_copies", "auto" or None, default "near_copies"
            A group label per case, kept whole by the reference fit's inner folds, or what
            :meth:`~selbayes.estimators.HierarchicalGaussianClassifier.fit` takes.

        Returns
        -------
        self
        """
        ref = selbayes_default(self.random_state, quick=self.quick,
                               choice_rule=self.choice_rule).fit(X, y, groups=groups)
        self.reference_ = ref
        self.estimator_ = selbayes_default(
            self.random_state, quick=self.quick, correct_selection=False, k=int(ref.k_),
            temperature=float(ref.temperature_), label_noise=float(ref.label_noise_),
            choice_rule=self.choice_rule).fit(X, y)
        self.k_ = self.estimator_.k_
        self.classes_ = self.estimator_.classes_
        return self

    def predict_proba(self, X):
        """Predictive class probabilities of the uncorrected refit, shape (n, G).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)

        Returns
        -------
        ndarray of shape (n_samples, G)
        """
        return self.estimator_.predict_proba(X)


def _sb_same_choice_uncorrected(n_classes, random_state, *, quick=False, inner_folds=3):
    return SameChoiceUncorrected(random_state, quick)


def _sb_same_choice_uncorrected_one_se(n_classes, random_state, *, quick=False,
                                       inner_folds=3):
    return SameChoiceUncorrected(random_state, quick, choice_rule="one_se")


def _sb_stacked(n_classes, random_state, *, quick=False, inner_folds=3):
    from ..estimators._stacking import StackedGaussianClassifier

    return StackedGaussianClassifier(_selbayes(random_state, quick, inner_folds))


def _sb(**kw):
    def factory(n_classes, random_state, *, quick=False, inner_folds=3):
        return _selbayes(random_state, quick, inner_folds, **kw)
    return factory


def _sb_linear_stack(pooling="linear", inner_predictive="refit", l1_gate=2.0,
                     inner_choice="all_cases", **kw):
    """The Gaussian classifier stacked with the Bayesian probit regression of all genes
    (LinearStackedClassifier with ``pooling``, ``inner_predictive``, ``l1_gate`` and
    ``inner_choice``; for more
    than two classes its probit model is an ensemble of nested dichotomies): the recommended
    selbayes model since 2026-12-02 (two classes: reports/plasmode/linear_stack_mcmc; more:
    reports/plasmode/multiclass_linear_stack; the pooling: reports/plasmode/log_pool; the
    inner predictive: reports/plasmode/refit_inner), with the gated L1 model as a third since
    2026-12-03 (reports/plasmode/gated_l1_stack)."""
    def factory(n_classes, random_state, *, quick=False, inner_folds=3):
        from ..estimators._linear_stack import LinearStackedClassifier

        return LinearStackedClassifier(_selbayes(random_state, quick, inner_folds, **kw),
                                       pooling=pooling, inner_predictive=inner_predictive,
                                       l1_gate=l1_gate, inner_choice=inner_choice)
    return factory


#: name -> factory(n_classes, random_state, *, quick=False, inner_folds=3)
METHODS = {
    # The Gaussian classifier stacked with a Bayesian probit regression of all genes, for any
    # number of classes (since 2026-12-02. Two classes: reports/plasmode/linear_stack_mcmc and
    # reports/benchmark_microarray_linear_stack_2026-12-02; more:
    # reports/plasmode/multiclass_linear_stack and
    # reports/benchmark_microarray_linear_stack_multiclass_2026-12-02). The Gaussian classifier
    # alone, the default until then, is "selbayes_gaussian". Since 2026-12-03 with L1 logistic
    # regression as a third model behind a gate (reports/plasmode/gated_l1_stack); the
    # two-model stack, the default before, is "selbayes_two_model_stack".
    "selbayes": _sb_linear_stack(),
    "selbayes_uncorrected": _sb_linear_stack(correct_selection=False),
    "selbayes_two_model_stack": _sb_linear_stack(l1_gate=None),
    "selbayes_two_model_stack_uncorrected": _sb_linear_stack(l1_gate=None,
                                                             correct_selection=False),
    "selbayes_gaussian": _sb(),
    "selbayes_gaussian_uncorrected": _sb(correct_selection=False),
    "selbayes_uncorrected_same_choice": _sb_same_choice_uncorrected,
    # The one-standard-error rule toward T = 1 for the inner choices (tried; see the
    # benchmark README's "tried and rejected" section).
    "selbayes_one_se": _sb(choice_rule="one_se"),
    "selbayes_uncorrected_one_se": _sb(correct_selection=False, choice_rule="one_se"),
    "selbayes_uncorrected_same_choice_one_se": _sb_same_choice_uncorrected_one_se,
    # The predictive temperature chosen by inner CV over a grid (the default before the
    # correlation rule; see the benchmark README), corrected and uncorrected.
    "selbayes_t_cv": _sb(temperature="auto"),
    "selbayes_t_cv_uncorrected": _sb(temperature="auto", correct_selection=False),
    # A multivariate-t prior on the class means (heavy tails: a few strong genes among many
    # null ones need not drag tau_mu down; Li 2012), corrected and uncorrected: the default
    # from 2026-11-25 to 2026-11-28 (effect_prior="t", df = 2).
    "selbayes_t_prior": _sb(effect_prior="t"),
    "selbayes_t_prior_uncorrected": _sb(effect_prior="t", correct_selection=False),
    # The recommended configuration before 2026-11-25: the paper's exchangeable normal prior
    # and k up to 500.
    "selbayes_previous": _sb(effect_prior="normal", k_grid=(5, 10, 20, 50, 100, 200, 500)),
    "selbayes_normal_prior": _sb(effect_prior="normal"),
    "selbayes_normal_prior_uncorrected": _sb(effect_prior="normal", correct_selection=False),
    # The two-groups prior: a share pi0 of null features plus a normal slab.
    "selbayes_two_groups": _sb(effect_prior="two_groups"),
    "selbayes_two_groups_uncorrected": _sb(effect_prior="two_groups", correct_selection=False),
    # The t prior with its df chosen by the data (empirical Bayes among T_DF_GRID): the
    # default since 2026-11-28, so the same as "selbayes"; kept under these names for the
    # reports that ran it as a variant.
    # Laplace's share spelled out: these names ran before label_noise="cv" became the default.
    "selbayes_t_auto": _sb(effect_prior="t_auto", label_noise="auto"),
    "selbayes_t_auto_uncorrected": _sb(effect_prior="t_auto", correct_selection=False,
                                       label_noise="auto"),
    # The prior on the class means chosen by inner cross-validation (t at df 1, 2, 4, normal).
    "selbayes_prior_cv": _sb(effect_prior="auto"),
    "selbayes_prior_cv_uncorrected": _sb(effect_prior="auto", correct_selection=False),
    # The default without its label-noise share 1/(n + 2) (reports/plasmode/label_noise_zero).
    "selbayes_no_label_noise": _sb(label_noise=0.0),
    # The default with its label-noise share chosen by the inner cross-validation
    # (label_noise="cv"; reports/plasmode/label_noise_cv_mcmc): the default since 2026-11-28,
    # so the same as "selbayes"; kept under this name for the report that ran it as a variant.
    "selbayes_noise_cv": _sb(label_noise="cv"),
    # The default with the correction itself chosen by inner cross-validation against the
    # uncorrected model (correct_selection="auto"; reports/plasmode/correction_cv).
    "selbayes_correction_cv": _sb(correct_selection="auto"),
    # The default's candidates of k stacked (Yao et al. 2018 weights from its inner CV), the
    # three heaviest refitted (StackedGaussianClassifier; reports/plasmode/stacking_k).
    "selbayes_stack_k": _sb_stacked,
    # The default with its inner choices (k, T, the label-noise share) scored on three
    # splits of the inner folds, each case's loss averaged (reports/plasmode/inner_repeats).
    "selbayes_inner_repeats": _sb_linear_stack(inner_repeats=3),
    # The default with its k the largest within one paired SE of the inner curve's best
    # (choice_rule="largest_k_one_se"; reports/plasmode/largest_k_within_se).
    "selbayes_largest_k": _sb_linear_stack(choice_rule="largest_k_one_se"),
    # The stack with its weights fitted on the plug-in inner scores: "selbayes" until the
    # refit became the default (reports/plasmode/refit_inner), under the name the reports that
    # checked it use.
    "selbayes_linear_stack": _sb_linear_stack(inner_predictive="plugin", l1_gate=None),
    # The same two models pooled in log space (pooling="log"; reports/plasmode/log_pool).
    "selbayes_log_pool": _sb_linear_stack(pooling="log", l1_gate=None),
    # The stack's weights fitted on the Gaussian model refitted with MCMC on each inner fold
    # (inner_predictive="refit"; reports/plasmode/refit_inner): the same as "selbayes" since
    # then, under the name that report uses.
    "selbayes_refit_inner": _sb_linear_stack(inner_predictive="refit", l1_gate=None),
    # The stack's weights fitted with the Gaussian model at each inner fold's own choice of
    # k and share (inner_choice="per_fold"; reports/plasmode/per_fold_choice).
    "selbayes_per_fold": _sb_linear_stack(inner_choice="per_fold"),
    # The k grid clipped at p - 1 instead of stopping below p, so that the inner
    # cross-validation also scores (nearly) every gene where p is at most 2000
    # (k_grid_beyond_p="clip"; reports/plasmode/k_grid_clip): the default since 2026-12-06,
    # so the same as "selbayes"; kept under this name for the report that ran it as a
    # candidate. "selbayes_k_grid_drop" is the default before.
    "selbayes_k_grid_clip": _sb_linear_stack(k_grid_beyond_p="clip"),
    "selbayes_k_grid_drop": _sb_linear_stack(k_grid_beyond_p="drop"),
    "selbayes_k10": _sb(k=10),
    "selbayes_k50": _sb(k=50),
    "logreg_l2_cv": _logreg("l2"),
    "logreg_l1_cv": _logreg("l1"),
    "lda_shrinkage": _lda,
    "gnb": _gnb,
    "gnb_calibrated": _gnb_calibrated,
    "random_forest": _random_forest,
    "svm_platt": _svm_platt,
}
SELBAYES_METHODS = tuple(m for m in METHODS if m.startswith("selbayes"))
PEERS = tuple(m for m in METHODS if m not in SELBAYES_METHODS)
#: The peers whose own inner split (a penalty search, or calibration on inner folds) needs two
#: cases of every class: they fail on a training fold that keeps a single case of one.
INNER_SPLIT_PEERS = ("logreg_l1_cv", "gnb_calibrated", "svm_platt")
#: The methods ``--quick`` runs.
QUICK_METHODS = ("selbayes", "selbayes_uncorrected", "logreg_l2_cv", "gnb")
#: The methods a benchmark runs unless others are named: the recommended selbayes, its
#: uncorrected twin, and the scikit-learn peers. The other selbayes variants (ablations, the
#: temperature by inner CV, the t prior, fixed k) and the uncalibrated ``gnb`` run on request.
DEFAULT_METHODS = ("selbayes", "selbayes_uncorrected", "logreg_l2_cv", "logreg_l1_cv",
                   "lda_shrinkage", "gnb_calibrated", "random_forest", "svm_platt")


def make_method(name: str, n_classes: int, random_state=None, *, quick: bool = False,
                inner_folds=3):
    """Build method ``name`` from :data:`METHODS`.

    Parameters
    ----------
    name : str
    n_classes : int
    random_state : int, optional
    quick : bool, default False
    inner_folds : int or list of (train, test) index arrays, default 3
        Folds of the scikit-learn peers' inner cross-validation (the runner lowers the
        number when a class is small), or the folds themselves, made on the training cases
        (the runner's, with each group's cases in one fold, when the samples are grouped).
        The selbayes methods make their own inner folds (given the groups to ``fit``).

    Returns
    -------
    estimator
        An unfitted scikit-learn classifier with ``predict_proba``.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> isinstance(make_method("gnb", 2, 0), GridSearchCV)   # k of its F selection by inner CV
    True
    """
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(METHODS)}")
    return METHODS[name](n_classes, random_state, quick=quick, inner_folds=inner_folds)


def chosen_k(estimator):
    """The number of features a fitted method ended up using, when it says.

    Looks through pipelines and grid searches for ``k_``, ``k_choice_`` (the selbayes
    estimators), a searched ``..__k`` or a ``selection_``.

    Parameters
    ----------
    estimator : fitted estimator

    Returns
    -------
    int or None

    Examples
    --------
    >>> chosen_k(object()) is None
    True
    """
    for est in _nested(estimator):
        best = getattr(est, "best_params_", None)
        if best:
            for key, v in best.items():
                if key.endswith("__k") or key == "k":
                    return int(v)
        for attr in ("k_", "k_choice_"):
            v = getattr(est, attr, None)
            if isinstance(v, int | np.integer):
                return int(v)
            if isinstance(v, dict) and isinstance(v.get("k"), int | np.integer):
                return int(v["k"])
        sel = getattr(est, "selection_", None)
        if sel is not None and hasattr(sel, "indices"):
            return int(len(sel.indices))
    return None


#: What a fitted selbayes method chose in one training fold, recorded per fold by the
#: runner: results.csv column -> the fitted attribute (searched from the estimator inward,
#: through pipelines and grid searches; None where a method has none).
#: ``t_df``: the t prior's degrees of freedom chosen from the data (``effect_prior="t_auto"``,
#: the default). ``label_noise``: the label-noise share eps = c / (n + 2) of the predictive
#: (``label_noise="cv"``, the default). ``linear_weight``: the stacking weight of the probit
#: model of all genes in a LinearStackedClassifier (the recommended selbayes).
CHOSEN_NUMBERS = {"t_df": "t_df_", "label_noise": "label_noise_",
                  "linear_weight": "linear_weight_"}


def chosen_numbers(estimator) -> dict:
    """The numbers of :data:`CHOSEN_NUMBERS` of a fitted estimator, column -> float or None.

    Parameters
    ----------
    estimator : fitted estimator

    Returns
    -------
    dict

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> fitted = SimpleNamespace(steps=[("log", None), ("clf", SimpleNamespace(t_df_=8.0))])
    >>> chosen_numbers(fitted)
    {'t_df': 8.0, 'label_noise': None, 'linear_weight': None}
    """
    return {col: _fitted_number(estimator, attr) for col, attr in CHOSEN_NUMBERS.items()}


def _fitted_number(estimator, attr: str) -> float | None:
    """The first ``attr`` that is set, from the estimator inward (:func:`_nested`)."""
    for est in _nested(estimator):
        v = getattr(est, attr, None)
        if v is not None:
            return float(v)
    return None


def _nested(estimator, depth: int = 5):
    """The estimator, then the last step of a pipeline or a grid search's best estimator, and
    so on inward (at most ``depth`` levels)."""
    est = estimator
    for _ in range(depth):
        yield est
        if hasattr(est, "steps"):
            est = est.steps[-1][1]
        elif hasattr(est, "best_estimator_"):
            est = est.best_estimator_
        else:
            return
