"""The Gaussian classifier stacked with a Bayesian probit regression on all features.

Where the class difference is a linear function of many correlated genes, a model of the few
genes with the largest F statistics loses to a linear model of all of them (on plasmode data:
reports/plasmode, the gap to L2 logistic regression in plasmode_dense and plasmode_module).
Three ways of putting the kept genes' correlation into the Gaussian model's predictive did not
close it. A second model does: :class:`LinearStackedClassifier` fits the selection-corrected
classifier as usual and, beside it, the Bayesian probit regression of all features of
:func:`selbayes.models.fit_linear_probit` (expectation propagation, its prior scale
integrated over). The two are weighted by stacking (Yao, Vehtari, Simpson and Gelman 2018) on
the inner test cases that chose k: the Gaussian model's losses there are those of its chosen
candidate, the probit model is fitted on the same inner training folds. Where a few genes
carry strong effects the weight stays on the Gaussian model (the probit model of all genes is
near a coin flip there); where the signal is spread it moves to the linear model. Offline, on
the plug-in posterior, this was better than the Gaussian model alone beyond 2 SE in
plasmode_dense, worse nowhere, and confirmed on new replicates and on held-out X
(reports/plasmode/bayes_linear_ep, bayes_linear_ep_confirm), and with MCMC fits
(reports/plasmode/linear_stack_mcmc, multiclass_linear_stack): the recommended selbayes model
since 2026-12-02.

With more than two classes the probit model is an ensemble of nested dichotomies
(:func:`selbayes.models.fit_nested_probit`): each tree's predictive is the product of binary
probit regressions of all features, one per split of the classes, and the trees are averaged
with equal weights.

Where a few genes separate the classes almost perfectly, both models lose to a sparse linear
model (L1-penalised logistic regression; on the development set chowdary, 0.178 against 0.083
in log loss). Since 2026-12-03 the stack takes it as a third model, behind a gate: it enters
only where cross-validating the weights on the inner cases shows it gains beyond 2 standard
errors, so that three weights fitted on 30 to 170 inner cases are not trusted where they are
noise (``l1_gate``; reports/plasmode/gated_l1_stack: on plasmode and simulated data, three
sets of replicates, the KL to the true probabilities worse beyond 2 SE in no scenario; on the
development sets worse on none, better in the mean; ungated, the third model lost elsewhere,
reports/plasmode/l1_stack). Where the gate opens the stack's predictive includes a penalised
fit's probabilities and is no longer a mixture of posterior predictives only.
"""

from __future__ import annotations

import json
from numbers import Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import check_matrix
from ._around_gaussian import AroundGaussian
from ._base import RANDOM_STATE_CONSTRAINT, _dense
from ._inner_cv import GroupedFoldsError, InnerCVImpossibleError, class_counts
from ._l1_logistic import L1LogisticFit, can_fit_l1_logistic, fit_l1_logistic
from ._params import Interval, StrOptions, validate_params

__all__ = ["LinearStackedClassifier", "fit_all_features_probit"]


def fit_all_features_probit(X, y, random_state=None):
    """The probit model of all features: :func:`selbayes.models.fit_linear_probit` for two
    classes, :func:`selbayes.models.fit_nested_probit` for more. (At two classes the nested
    fit is the same model, to 1e-12; the binary fit keeps its own, smaller saved layout.)

    Parameters
    ----------
    X : ndarray of shape (n, p)
    y : ndarray of int, shape (n,)
        Class indices 0 .. K-1, every class present.
    random_state : int or None
        For the nested dichotomies' trees (drawn only for five classes or more).

    Returns
    -------
    LinearProbitFit or NestedProbitFit

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(30, 20)), np.repeat([0, 1, 2], 10)
    >>> type(fit_all_features_probit(X, y)).__name__
    'NestedProbitFit'
    """
    from ..models._linear_probit import fit_linear_probit
    from ..models._nested_probit import fit_nested_probit

    if np.max(y) == 1:
        return fit_linear_probit(X, y)
    return fit_nested_probit(X, y, random_state=random_state)


def _tree_seed(random_state):
    """One integer seed from the Gaussian model's ``random_state``, so that the inner folds'
    and the final fit's drawn trees are the same."""
    from sklearn.utils import check_random_state

    if isinstance(random_state, (int, np.integer)):
        return int(random_state)
    return int(check_random_state(random_state).randint(2 ** 31 - 1))


class LinearStackedClassifier(AroundGaussian):
    """The hierarchical Gaussian classifier stacked with a Bayesian probit regression of all
    features and, behind a gate, an L1-penalised logistic regression (module docstring).

    ``fit`` fits ``estimator`` (``k="auto"``; its inner cross-validation chooses k and the
    label-noise share), then the probit model of all features on each of the same inner
    training folds, and computes the weights of the two from the inner test cases'
    predictive probabilities, paired case by case. The probit model is refitted on all
    training cases; ``predict_proba`` pools the two predictive distributions with those
    weights (three where the L1 model's gate opens, ``l1_gate``; ``weights_`` holds them).
    The probit model costs a few seconds (n x n matrices whatever the number of
    features).

    Parameters
    ----------
    estimator : HierarchicalGaussianClassifier, optional
        The selection-corrected model, with ``k="auto"`` (the default
        ``HierarchicalGaussianClassifier()``).
    pooling : {"linear", "log"}, default "linear"
        "linear": the weighted average of the two predictive distributions, weights on the
        simplex by stacking (:func:`selbayes.estimators.stacking_weights`). "log": the
        logarithmic pool, p(c) proportional to p_gauss(c)^w1 p_probit(c)^w2 with each weight
        in [0, 1] by the same inner log score (:func:`selbayes.estimators.log_pool_weights`):
        a weighted sum of the two models' log odds, which unlike an average can be as sharp
        as the two models' evidence together (an average of two calibrated predictives that
        differ is underconfident; Ranjan and Gneiting 2010).
    inner_predictive : {"refit", "plugin"}, default "refit"
        The Gaussian model's predictive on the inner test cases that the weights are fitted
        on. "refit": the Gaussian model refitted at its chosen k and label-noise share on each
        inner training fold, with its own ``method`` (MCMC by default), so that the weights
        are fitted on the predictive the stack predicts with: the plug-in is sharper than the
        MCMC predictive (it fixes the hyperparameters at their mode), and weights fitted on it
        hedge an overconfidence the final model does not have (reports/plasmode/refit_inner:
        the default since 2026-12-02). Costs one Gaussian fit at fixed k per inner fold; an
        MCMC refit runs half the tuning steps and a quarter of the draws per chain of
        ``estimator``'s settings (since 2026-12-05, reports/plasmode/light_refits: 0.39 of
        the cost, the stack's KL unchanged within 0.0004 nats). An
        inner fold that keeps a single case of a class is refitted too (that class's mean is
        its case; since 2026-12-06, reports/benchmark_microarray_refit_rare_classes_2026-12-06:
        before, such a fold kept its plug-in scores). "plugin":
        the fast plug-in predictive the inner cross-validation scored k with (no extra fit;
        the default before).
    l1_gate : float or None, default 2.0
        The third model, L1-penalised logistic regression of all features
        (``selbayes.estimators._l1_logistic``), fitted on the same inner training folds,
        enters the stack only where it clearly helps: on each inner fold the two-model and
        the three-model stacking weights are fitted on the other folds' inner cases and both
        pools score the fold's cases; where the mean gain in log score (nats per case)
        exceeds ``l1_gate`` standard errors (cases as the unit), the three weights fitted on
        all inner cases are used and L1 is refitted on all training cases; otherwise its
        weight is 0 and it is not refitted (``l1_gate_`` says which, with the gain and its
        z). Lower lets it in more often; None: the two-model stack (the default before
        2026-12-03). Only with ``pooling="linear"``.
    inner_choice : {"all_cases", "per_fold"}, default "all_cases"
        Which of the Gaussian model's candidates (k, label-noise share) predicts each inner
        test case that the weights are fitted on. "all_cases": the one chosen on all inner
        cases, the one the final fit uses; its losses on the cases that chose it are biased
        low (the lowest of many noisy curves; by 0.003 to 0.033 nats per case in the
        plasmode suite's scenarios, reports/plasmode/per_fold_choice), which tilts the
        weights towards it.
        "per_fold": on each inner fold, the candidate the other folds' cases choose, so that
        the Gaussian model is scored, like the probit model, on cases that did not tune it
        (the cross-validation of the whole tuning procedure; Varma and Simon 2006). No
        extra fit with ``inner_predictive="plugin"``; with "refit" a fold is refitted at its
        own choice (the same number of fits). Not the default: on the plasmode suite it moved
        the weights to the probit model as expected and helped a little on real X, but where
        the features are independent the probit model is timid and the stack became
        underconfident (calibration slope 1.05 -> 1.16 in sim_dense_weak; same report).
    random_state : int >= 0 or None, default None
        Seeds the Gaussian model's sampling and every inner split of the fit (it replaces
        ``estimator.random_state``): two fits with the same seed give the same probabilities.
        None: ``estimator``'s own ``random_state`` (None there too: other draws at each fit).

    Attributes
    ----------
    estimator_ : HierarchicalGaussianClassifier
        The fitted Gaussian model.
    linear_ : selbayes.models.LinearProbitFit or selbayes.models.NestedProbitFit
        The probit model of all features, fitted on all training cases (two classes: one
        binary regression; more: the nested dichotomies).
    weights_ : ndarray of shape (2,) or (3,)
        Weights of the Gaussian model, of the probit model and (unless ``l1_gate`` is None)
        of the L1 model, 0 where the gate stayed closed (``pooling="linear"``: sum 1;
        ``"log"``: each in [0, 1], the powers of the two predictives).
    l1_ : L1LogisticFit or None
        The L1 model fitted on all training cases where the gate opened with a positive
        weight; None otherwise (its weight is 0 and its slot predicts 1/G).
    l1_gate_ : dict or None
        ``"gain"`` (the mean cross-validated gain in inner log score of the three-model
        pool over the two-model pool, nats per case), ``"z"`` (gain / its SE) and
        ``"open"``; ``"unfittable": True`` where the gate opened on the inner cases but L1
        cannot be fitted to a class of one training case, or its search for C cannot split
        the ``groups`` of ``fit`` (then ``"open"`` is False); ``"inner_folds_fitted"``: [the
        inner folds L1 was fitted on, the inner folds] (on the others its slot predicts 1/G;
        fits before 2026-12-07 lack it); None with ``l1_gate=None``.
    inner_refits_ : tuple of (int, int) or None
        With ``inner_predictive="refit"``: (the inner folds the Gaussian model was refitted
        on, the inner folds). A fold whose training part has no case of a class (or fewer
        than two classes of two cases) cannot be refitted and keeps its plug-in scores (the
        inner folds are stratified over the classes they split, and a fit whose folds lack
        such classes stops earlier, so this does not happen in ``fit``; the count is there
        to say so). None with ``inner_predictive="plugin"``, and for files saved before
        2026-12-06.
    inner_scores_ : dict
        Mean inner log loss (nats) of ``"gaussian"`` (as ``inner_choice`` says),
        ``"linear"``, ``"l1"`` (unless ``l1_gate`` is None) and ``"stack"`` (the pool).
    inner_log_proba_ : ndarray of shape (2 or 3, n_samples, n_classes)
        The inner test cases' log predictive probabilities (nats) the weights were fitted on:
        the Gaussian model's (at the chosen candidate and share, or each fold's, as
        ``inner_choice`` says; plug-in or refitted, as ``inner_predictive`` says), the
        probit model's and the L1 model's (1/G on an inner fold whose training cases its
        search for C cannot split: a class with fewer than two cases, or every class fewer
        than three), in the order of the training cases. Where a
        class has a single training case the inner folds split the other classes' cases
        (``estimator_.k_choice_.extra["cases"]``) and the columns are those classes; the
        weights are fitted on them, and the L1 model stays out where it cannot be fitted
        to all training cases.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.
    k_ : int
        The Gaussian model's k.

    Notes
    -----
    ``save`` writes the Gaussian model's saved fit as the group ``gaussian`` and the probit
    model's training values, grid and sites as the group ``linear`` (with more than two
    classes, per split of the classes, and the trees), the L1 model's numbers (when fitted) as
    the group ``l1``; the weights are the root's.

    References
    ----------
    Yao, Y., Vehtari, A., Simpson, D. and Gelman, A. (2018). Using stacking to average
    Bayesian predictive distributions. Bayesian Analysis 13, 917-1007. Tibshirani, R. (1996).
    Regression shrinkage and selection via the lasso. JRSS B 58, 267-288. Ranjan, R. and
    Gneiting, T. (2010). Combining probability forecasts. JRSS B 72, 71-91. Rasmussen, C. E. and
    Williams, C. K. I. (2006). Gaussian Processes for Machine Learning, ch. 3. Frank, E. and
    Kramer, S. (2004). Ensembles of nested dichotomies for multi-class problems. ICML. Varma,
    S. and Simon, R. (2006). Bias in error estimation when using cross-validation for model
    selection. BMC Bioinformatics 7, 91.

    Examples
    --------
    >>> import numpy as np, warnings
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :5] += 1.2 * y[:, None]
    >>> base = HierarchicalGaussianClassifier(k_grid=(5, 20, 100), method="plugin",
    ...                                       progressbar=False, random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")                   # the fits' diagnostics
    ...     clf = LinearStackedClassifier(base).fit(X, y)
    >>> clf.predict_proba(X[:3]).shape, round(float(clf.weights_.sum()), 12)
    ((3, 2), 1.0)
    """

    _parameter_constraints: dict = {"estimator": "no_validation",
                                    "pooling": [StrOptions({"linear", "log"})],
                                    "inner_predictive": [StrOptions({"plugin", "refit"})],
                                    "inner_choice": [StrOptions({"all_cases", "per_fold"})],
                                    "l1_gate": [Interval(Real, None, None, closed="neither"),
                                                None],
                                    "random_state": RANDOM_STATE_CONSTRAINT}

    def __init__(self, estimator=None, pooling="linear", inner_predictive="refit",
                 l1_gate=2.0, inner_choice="all_cases", random_state=None):
        self.estimator = estimator
        self.pooling = pooling
        self.inner_predictive = inner_predictive
        self.l1_gate = l1_gate
        self.inner_choice = inner_choice
        self.random_state = random_state

    _WHY_K_AUTO = "its inner cross-validation gives the cases the stack is weighted on"

    def fit(self, X, y, groups="near_copies"):
        """Fit the Gaussian model, the probit model of all features, the L1 model's gate and
        the weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
            Two classes or more.
        groups : array-like, "near_copies", "auto" or None, default "near_copies"
            A group label per case (shape (n_samples,)), for samples that are not
            independent (technical replicates, several samples of one patient): every inner
            split keeps a group's cases together (the Gaussian model's choices, the inner
            cases the weights and the L1 gate are fitted on, and the L1 model's search for
            its penalty), so that no inner test case is scored with its twin among the
            training cases. ``"near_copies"`` (the default) and ``"auto"``: the groups the
            Gaussian model finds and keeps, near-copies or every group found
            (:meth:`HierarchicalGaussianClassifier.fit`; ``estimator_.groups_``). None:
            every case is its own group.

        Returns
        -------
        self : LinearStackedClassifier

        Raises
        ------
        ValueError
            For a bad setting or input (named), as ``estimator.fit`` raises them; for an
            ``estimator`` that does not choose k; for ``l1_gate`` with ``pooling="log"``.
        TypeError
            If ``estimator`` is not a HierarchicalGaussianClassifier.
        """
        from tqdm import tqdm

        from .._validation import check_labels

        validate_params(self)
        if self.l1_gate is not None and self.pooling == "log":
            raise ValueError("pooling='log' pools the two Bayesian models only; the L1 "
                             "model's gate needs pooling='linear' (or set l1_gate=None)")
        base = self._base()
        try:
            # its checks of X, y and the groups first, with their messages
            first = base.fit(X, y, groups=groups)
        except GroupedFoldsError:
            raise                       # its advice (other groups) holds for the stack too
        except InnerCVImpossibleError:
            # the Gaussian model's advice (give k as a value) is one the stack cannot take
            raise InnerCVImpossibleError(_inner_cv_impossible_message(X, y)) from None
        Xd = _dense(check_matrix(X, accept_sparse=True))
        _, y_all, _ = check_labels(y, Xd.shape[0], min_per_class=1)
        codes = first.groups_            # as the Gaussian model's fit checked (or found) them
        seed = _tree_seed(base.random_state)
        choice = first.k_choice_
        # The weights are fitted on the cases the Gaussian model's inner folds split: all of
        # them, or (a class with a single training case) the other classes' cases, indexed
        # as the folds index them (_inner_cv.inner_cv_cases).
        cases = choice.extra.get("cases")
        Xi, yi = ((Xd, y_all) if cases is None
                  else (Xd[cases], np.unique(y_all[cases], return_inverse=True)[1]))
        gi = None if codes is None else codes if cases is None else codes[cases]
        # the Gaussian model's inner scores are stored in the order of the cases
        gauss_lp = _gaussian_inner_log_proba(first, Xi, yi, self.inner_predictive,
                                             self.inner_choice)
        # how many inner folds the refits covered (the others keep the plug-in scores): what
        # the summary of a fit may say about the predictive the weights were fitted on
        folds = choice.extra["folds"]
        G = gauss_lp.shape[1]
        self.inner_refits_ = (None if self.inner_predictive == "plugin" else
                              (sum(_refittable(first, yi, tr, G) for tr, _ in folds),
                               len(folds)))
        lin_lp = np.empty_like(gauss_lp)
        # a bar: with hundreds of cases and several classes (a tree of binary fits each) these
        # fits take minutes, which were silent
        for tr, te in tqdm(choice.extra["folds"], unit="fold", disable=not first.progressbar,
                           desc="stack: the probit model of all features on the inner folds"):
            # stratified inner folds: every class is in every inner training fold
            lin_lp[te] = fit_all_features_probit(Xi[tr], yi[tr], seed).predict_log_proba(Xi[te])
        A = np.stack([gauss_lp, lin_lp])                            # (2, n, G)
        self.l1_, self.l1_gate_ = None, None
        if self.l1_gate is None:
            w, pooled = _weights_and_pool(A, yi, self.pooling)
        else:
            l1_lp, fitted = _l1_inner_log_proba(Xi, yi, choice.extra["folds"], seed,
                                                first.progressbar, gi)
            A = np.concatenate([A, l1_lp[None]])                              # (3, n, G)
            w, self.l1_gate_ = _gated_weights(A, yi, choice.extra["folds"], self.l1_gate)
            # on a fold it cannot be fitted on its slot predicts 1/G: say on how many it was
            self.l1_gate_["inner_folds_fitted"] = [fitted, len(choice.extra["folds"])]
            if w[2] > 0 and fitted == 0:
                # its slot predicted 1/G on every inner case: a weight won by a uniform
                # component, not by L1, which the summary says was not fitted
                w = np.append(_weights_and_pool(A[:2], yi, "linear")[0], 0.0)
                self.l1_gate_.update(open=False)
            if w[2] > 0 and not can_fit_l1_logistic(y_all, groups=codes, random_state=seed):
                # the gate opened on the other classes, but L1's search for C cannot split a
                # class of one case (or the groups): the two-model weights, as with the gate
                # closed
                w = np.append(_weights_and_pool(A[:2], yi, "linear")[0], 0.0)
                self.l1_gate_.update(open=False, unfittable=True)
            pooled = _linear_pool(A, w)
            if w[2] > 0:
                self.l1_ = fit_l1_logistic(Xd, y_all, seed, groups=codes)
        self.estimator_ = first
        with tqdm(total=1, unit="fit", disable=not first.progressbar,
                  desc="stack: the probit model of all features on all cases") as bar:
            self.linear_ = fit_all_features_probit(Xd, y_all, seed)
            bar.update()
        self.weights_ = np.asarray(w, dtype=np.float64)
        self.inner_log_proba_ = A
        own = np.arange(yi.size), yi
        self.inner_scores_ = {"gaussian": float(-gauss_lp[own].mean()),
                              "linear": float(-lin_lp[own].mean()),
                              **({"l1": float(-A[2][own].mean())} if A.shape[0] == 3
                                 else {}),
                              "stack": float(-pooled[own].mean())}
        return self._describe_data(first)

    def predict_proba(self, X) -> np.ndarray:
        """The stacked models' predictive probabilities (two, or three where the L1 gate
        opened) pooled with ``weights_``: averaged (``pooling="linear"``) or multiplied as
        powers and normalised (``pooling="log"``).

        Parameters
        ----------
        X : array-like of shape (n_samples, p)

        Returns
        -------
        ndarray of shape (n_samples, G)
        """
        if self.pooling == "linear":
            return super().predict_proba(X)
        return np.exp(self.predict_log_proba(X))

    def predict_log_proba(self, X) -> np.ndarray:
        """Log of :meth:`predict_proba` (nats), shape (n_samples, G); the log pool is computed
        from the two models' log probabilities, never exponentiated in between."""
        if self.pooling == "linear":
            return super().predict_log_proba(X)
        from ._pooling import log_pool

        check_is_fitted(self, self._FITTED)
        with self._names_checked_here(X):
            parts = self._component_log_probas(X)
        return log_pool(_floored(np.stack(parts)), self.weights_)

    @property
    def linear_weight_(self) -> float:
        """The stacking weight of the probit model of all features (``weights_[1]``)."""
        check_is_fitted(self, "weights_")
        return float(self.weights_[1])

    @property
    def l1_weight_(self) -> float:
        """The stacking weight of the L1 model (``weights_[2]``; 0 with ``l1_gate=None`` or
        the gate closed)."""
        check_is_fitted(self, "weights_")
        return float(self.weights_[2]) if self.weights_.size == 3 else 0.0

    @property
    def t_df_(self):
        """The Gaussian model's t prior degrees of freedom (its ``t_df_``)."""
        check_is_fitted(self, self._FITTED)
        return self.estimator_.t_df_

    @property
    def label_noise_(self):
        """The Gaussian model's label-noise share (its ``label_noise_``)."""
        check_is_fitted(self, self._FITTED)
        return self.estimator_.label_noise_

    @property
    def selected_features_(self) -> np.ndarray:
        """The Gaussian model's selected features (the probit model uses all of them)."""
        check_is_fitted(self, self._FITTED)
        return self.estimator_.selected_features_

    def _component_log_probas(self, X) -> list:
        """Each model's log predictive probabilities of ``X``, (n_samples, G), in the order of
        ``weights_``."""
        Xd = _dense(check_matrix(X, accept_sparse=True))
        G = self.classes_.size
        unused = np.full((Xd.shape[0], G), -np.log(G))   # a model of weight 0 adds nothing
        # the Gaussian model always predicts: its checks of X (units, training range) speak
        # for the stack; the probit model of weight 0 is not computed (seconds to a minute
        # with hundreds of cases and several classes, for nothing)
        out = [self.estimator_.predict_log_proba(X),
               self.linear_.predict_log_proba(Xd) if self.weights_[1] > 0 else unused]
        if self.weights_.size == 3:
            out.append(self.l1_.predict_log_proba(Xd) if self.l1_ is not None else unused)
        return out

    def _component_probas(self, X) -> list:
        return [np.exp(lp) for lp in self._component_log_probas(X)]

    def _saved_parts(self):
        import xarray as xr

        # its own class dimension: beside a class of one training case the inner columns are
        # the other classes, fewer than the Gaussian group's "class" (files before read alike)
        root = xr.DataTree(xr.Dataset({
            "weight": ("model", self.weights_),
            "inner_log_proba": (("model", "inner_case", "inner_class"),
                                self.inner_log_proba_)}))
        root.attrs = {"selbayes_inner_scores": json.dumps(self.inner_scores_),
                      "selbayes_l1_gate": json.dumps(self.l1_gate_),
                      "selbayes_inner_refits": json.dumps(self.inner_refits_)}
        groups = {"gaussian": self.estimator_._saved_tree(),
                  "linear": xr.DataTree(_probit_dataset(self.linear_))}
        if self.l1_ is not None:
            groups["l1"] = xr.DataTree(self.l1_.to_dataset())
        return root, {"pooling": self.pooling, "inner_predictive": self.inner_predictive,
                      "l1_gate": self.l1_gate, "inner_choice": self.inner_choice,
                      "random_state": self.random_state}, groups

    @classmethod
    def _restore(cls, tree, attrs, config, base, path):
        # files written before these settings existed hold a linear pool of plug-in weights,
        # and before the L1 model a two-model stack
        obj = cls(base, pooling=config.get("pooling", "linear"),
                  inner_predictive=config.get("inner_predictive", "plugin"),
                  l1_gate=config.get("l1_gate"),
                  inner_choice=config.get("inner_choice", "all_cases"),
                  random_state=config.get("random_state"))   # None before 2026-12-07
        obj.estimator_ = cls._load_gaussian(tree, "gaussian", path)
        obj.linear_ = _probit_fit(tree["linear"].to_dataset())
        obj.l1_ = (L1LogisticFit.from_dataset(tree["l1"].to_dataset()) if "l1" in tree
                   else None)
        obj.l1_gate_ = json.loads(attrs.get("selbayes_l1_gate", "null"))
        refits = json.loads(attrs.get("selbayes_inner_refits", "null"))  # None before 12-06
        obj.inner_refits_ = None if refits is None else tuple(refits)
        root = tree.to_dataset()
        obj.weights_ = root["weight"].values
        if "inner_log_proba" in root:
            obj.inner_log_proba_ = root["inner_log_proba"].values
        obj.inner_scores_ = json.loads(attrs["selbayes_inner_scores"])
        return obj._describe_data(obj.estimator_)


#: log of the smallest positive double: a probability that underflowed to 0 is pooled as this
#: (the logarithmic pool is undefined at log 0 = -inf with a weight of 0).
_LOG_TINY = float(np.log(np.finfo(np.float64).tiny))


def _floored(log_proba):
    return np.maximum(log_proba, _LOG_TINY)


def _refit_sampler(first):
    """The sampler settings of the inner refits of an MCMC fit ``first``: half its tuning
    steps and a quarter of its draws per chain (500 and 250 at the defaults), the same chains;
    None (its own settings) for another method. The refits only weigh the stack's components,
    from a few predictive probabilities per inner fold; with these settings they cost 0.39 of
    the full settings' where k is large, and on six new replicates of each of the plasmode
    suite's scenarios the stack's KL to the true probabilities moved by at most 0.0004 nats
    (reports/plasmode/light_refits, rule written before the run)."""
    if first.method != "mcmc":
        return None
    return {"tune": max(1, first.tune // 2), "draws": max(1, first.draws // 4)}


def _gaussian_inner_log_proba(first, X, y, inner_predictive, inner_choice):
    """The Gaussian model's log probabilities (n, G) of the inner test cases that the stack's
    weights are fitted on (class docstring: ``inner_predictive``, ``inner_choice``)."""
    choice = first.k_choice_
    settings = plugin = None                        # "all_cases": the chosen candidate's
    if inner_choice == "per_fold":
        per_fold = choice._fold_choices()
        settings = [(int(choice.grid[row][0]), c) for row, c in per_fold]
        plugin = choice._fold_chosen_case_log_proba(per_fold)
    if inner_predictive == "plugin":
        return choice._chosen_case_log_proba() if plugin is None else plugin
    return _refitted_inner_log_proba(first, X, y, choice.extra["folds"],
                                     sampler=_refit_sampler(first), settings=settings,
                                     plugin=plugin)


def _refitted_inner_log_proba(first, X, y, folds, sampler=None, settings=None, plugin=None):
    """Every class's log probabilities (n, G) of the inner test cases under the Gaussian
    model ``first`` refitted on each inner training fold (its own method and seed;
    ``sampler``, a dict of its parameters such as ``draws``, overrides them), in the order of
    the cases: at ``settings``, (k, label-noise c or None) per fold, by default its chosen k
    and c on every fold. The share is what the plug-in inner scores used on that fold:
    c / (n_fold + 2) with ``label_noise="cv"``, else the estimator's own setting. A fold
    whose training part keeps a single case of a class (a rare class split two ways) is
    refitted like any other (that class's mean is its case, as in the fit on all cases; until
    2026-12-06 such a fold kept its plug-in scores). A fold the classifier cannot be fitted
    on (:func:`_refittable`: a class with no training case, or fewer than two classes of
    two cases), which the stratified inner folds of ``fit`` do not give, keeps ``plugin``'s
    log probabilities (n, G), by default the chosen candidate's plug-in ones."""
    import warnings

    from sklearn.base import clone
    from tqdm import tqdm

    from ..filters._selection import selection_from_scores
    from ._base import _select_all
    from ._k_choice import share_label_noise
    from ._k_grid import fold_k

    if settings is None:
        settings = [(int(first.k_), first.k_choice_.extra.get("label_noise_c"))] * len(folds)
    if plugin is None:
        plugin = first.k_choice_._chosen_case_log_proba()
    fixed = clone(first).set_params(progressbar=False, **(sampler or {}))
    out = np.array(plugin, dtype=np.float64)
    G = out.shape[1]                    # the classes the inner folds split
    for (tr, te), (k, c) in tqdm(list(zip(folds, settings, strict=True)), unit="fold",
                                 disable=not first.progressbar,
                                 desc="stack: the Gaussian model refitted on the inner folds"):
        if not _refittable(first, y, tr, G):
            continue                    # what the classifier's fit would raise on
        share = {} if c is None else {"label_noise": share_label_noise(c, tr.size)}
        # at most the features that vary between the fold's classes, as its plug-in scores;
        # the fold's F ranking is handed to the refit, which would otherwise rank again.
        # A feature with no spread within any class in the fold alone (the one case that
        # spreads it left out: F infinite) would be refused by the refit's selection, or
        # kept with a within-class sum of squares of 0, which the sampled model's Gamma
        # likelihood cannot hold: that fold keeps its plug-in predictions (the plug-in
        # posterior holds it) rather than raise an error that blames the user's X
        scores = _select_all(X[tr], y[tr], "f")
        if np.isposinf(scores.scores).any():
            continue
        # the best feature's selection, as select_features(k=1) gives it (a threshold > 0,
        # which the refit's own inner CV checks), without its checks of the whole X
        ranking = selection_from_scores(scores.scores, 1, None, "f", scores.class_counts,
                                        scores.classes)
        k = fold_k(k, ranking.scores)
        with warnings.catch_warnings():
            # these fits only weight the stack: no checks (the final fit's are the user's)
            warnings.simplefilter("ignore")
            fold = clone(fixed).set_params(k=k, **share)._fit(X[tr], y[tr], checks=False,
                                                              ranking=ranking)
            out[te] = fold.predict_log_proba(X[te])
    return out


def _refittable(classifier, y, train, n_classes) -> bool:
    """Whether ``classifier`` (the Gaussian model) can be refitted on an inner training fold:
    its own minimum of training cases per class (``_min_per_class``, 1: a class of one case
    has its mean at that case) and of classes with two or more (``_min_classes_of_two``, 2:
    a within-class spread), among the ``n_classes`` classes of ``y[train]``, the rule its
    ``fit`` checks the labels by. Until 2026-12-06 two cases of every class were asked for,
    a leftover of when the classifier refused a class of one case
    (reports/benchmark_microarray_refit_rare_classes_2026-12-06)."""
    counts = np.bincount(y[train], minlength=n_classes)
    return bool(counts.min() >= classifier._min_per_class
                and np.sum(counts >= 2) >= classifier._min_classes_of_two)


def _linear_pool(A, w):
    """log sum_m w_m p_m from the models' log probabilities ``A`` (models x cases x classes),
    floored as the stack floors them: (cases, classes)."""
    from scipy.special import logsumexp

    return logsumexp(_floored(A), b=np.asarray(w)[:, None, None], axis=0)


def _weights_and_pool(A, y, pooling):
    """The weights of the pool ``pooling`` fitted on the inner log probabilities ``A``
    (models x cases x classes) of the cases of class ``y``, and the pool's log probabilities of
    those cases, (cases, classes)."""
    from ._pooling import log_pool, log_pool_weights
    from ._stacking import stacking_weights

    A = _floored(A)
    if pooling == "log":
        w = log_pool_weights(A, y)
        return w, log_pool(A, w)
    w = stacking_weights(A[:, np.arange(y.size), y])
    return w, _linear_pool(A, w)


def _inner_cv_impossible_message(X, y) -> str:
    """The stack's message where the Gaussian model raised :class:`InnerCVImpossibleError` on
    (X, y), which it has checked: one feature, or too few cases for the inner folds."""
    from .._validation import check_labels

    if check_matrix(X, accept_sparse=True).shape[1] == 1:      # an error path: X is valid
        return ("LinearStackedClassifier chooses k among 1 <= k < p by inner cross-validation, "
                "and X has n_features = 1: fit selbayes.HierarchicalGaussianClassifier(k=\"all\") "
                "alone (on the command line: --k all)")
    classes, y_index, _ = check_labels(y, len(y), min_per_class=1)
    per_class = class_counts(classes, y_index)
    return ("LinearStackedClassifier chooses k and weighs its models on the cases of an inner "
            "cross-validation, which splits the classes with two cases or more and needs two "
            "such classes and more cases than classes in every inner training fold (for a "
            f"within-class variance); the class counts are {per_class}. With this "
            "few cases fit selbayes.HierarchicalGaussianClassifier with k given (k=5, say) "
            "alone (on the command line: --k 5)")


def _l1_inner_log_proba(X, y, folds, seed, progressbar=False, groups=None):
    """The L1 model's log probabilities (n, G) of the inner test cases, fitted on each inner
    training fold (seed ``seed``; its search for C keeps ``groups``, a code per case, whole),
    in the order of the cases; 1/G on a fold whose training cases its search for C cannot
    split (a class with fewer than two cases, or every class fewer than three, or with groups
    a split of them that leaves a class out); and the number of folds it was fitted on."""
    from tqdm import tqdm

    G = int(y.max()) + 1
    out = np.full((y.size, G), -np.log(G))
    fitted = 0
    for tr, te in tqdm(folds, unit="fold", disable=not progressbar,
                       desc="stack: L1 logistic regression on the inner folds"):
        g = None if groups is None else groups[tr]
        if can_fit_l1_logistic(y[tr], groups=g, random_state=seed):
            out[te] = fit_l1_logistic(X[tr], y[tr], seed, groups=g).predict_log_proba(X[te])
            fitted += 1
    return out, fitted


def _cross_fitted_gain(base, wider, y, folds, nested=True):
    """How much a pool of the models ``wider`` (M', n, G) beats the pool of ``base`` (M, n, G)
    on the inner cases, each pool's stacking weights fitted without the case.

    On each fold both pools' weights are fitted on the other folds' cases and d_i, the
    ``wider`` pool's log score minus the ``base`` pool's, is taken on the fold's cases; with
    ``nested`` (``base`` is ``wider``'s first M models) d_i is 0 on a fold where the wider
    weights give the other models nothing (the same pool). Returns (mean(d), z = mean(d) /
    (sd(d) / sqrt(n)); 0 where sd(d) is 0)."""
    def own(lp, idx):
        return lp[np.arange(idx.size), y[idx]]

    d = np.zeros(y.size)
    for tr, te in folds:
        w_wide = _weights_and_pool(wider[:, tr], y[tr], "linear")[0]
        if nested and not np.any(w_wide[base.shape[0]:] > 0):
            continue
        w_base = _weights_and_pool(base[:, tr], y[tr], "linear")[0]
        d[te] = (own(_linear_pool(wider[:, te], w_wide), te)
                 - own(_linear_pool(base[:, te], w_base), te))
    se = float(d.std(ddof=1) / np.sqrt(d.size))
    return float(d.mean()), (float(d.mean() / se) if se > 0 else 0.0)


def _gated_weights(A, y, folds, z_min):
    """The three stacking weights behind the gate of ``l1_gate`` (class docstring).

    ``A`` (3, n, G): the Gaussian, probit and L1 models' inner log probabilities; ``y`` the
    cases' class indices; ``folds`` the inner folds those were made on. d_i, the three-model
    pool's log score minus the two-model pool's, cross-fitted on the folds
    (:func:`_cross_fitted_gain`); the gate opens where mean(d) > ``z_min`` sd(d) / sqrt(n).
    Returns (weights (3,): the three-model weights fitted on all cases where it opens, else
    the two-model weights and 0; {"gain", "z", "open"})."""
    gain, z = _cross_fitted_gain(A[:2], A, y, folds)
    opened = z > z_min
    w = (_weights_and_pool(A, y, "linear")[0] if opened
         else np.append(_weights_and_pool(A[:2], y, "linear")[0], 0.0))
    return w, {"gain": gain, "z": z, "open": bool(opened)}


def _sites_array(sites, n):
    """(n_grid, 2, n): nu and tau per grid point, NaN where the grid point has no sites."""
    nan = np.full(n, np.nan)
    return np.stack([np.stack(site if site is not None else (nan, nan)) for site in sites])


def _sites_list(arr, cases=None):
    """The inverse of :func:`_sites_array`, on the columns ``cases`` (all when None)."""
    arr = arr if cases is None else arr[:, :, cases]
    return [None if np.isnan(a[0]).all() else (a[0], a[1]) for a in arr]


def _probit_dataset(lin):
    """The probit model of all features as one xarray Dataset (for
    :meth:`LinearStackedClassifier.save`)."""
    import xarray as xr

    from ..models._nested_probit import NestedProbitFit

    data = {"mean": ("feature", lin.mean), "sd": ("feature", lin.sd),
            "keep": ("feature", lin.keep.astype(np.int8)),
            "Z": (("case", "kept"), lin.Z), "y": ("case", lin.y), "log_s": ("grid", lin.log_s)}
    n = lin.Z.shape[0]
    if not isinstance(lin, NestedProbitFit):
        sites = _sites_array(lin.sites, n)
        data.update(grid_weight=("grid", lin.weights), site_nu=(("grid", "case"), sites[:, 0]),
                    site_tau=(("grid", "case"), sites[:, 1]))
        return xr.Dataset(data)
    # per split: which side each class is on (0 absent, 1 left, 2 right), and its sites on
    # all training cases (NaN off the split's classes)
    side = np.zeros((len(lin.splits), lin.n_classes), dtype=np.int8)
    sites = np.full((len(lin.splits), lin.log_s.size, 2, n), np.nan)
    for j, (left, right) in enumerate(lin.splits):
        side[j, list(left)], side[j, list(right)] = 1, 2
        cases = lin.split_cases(j)
        sites[j][..., cases] = _sites_array(lin.sites[j], cases.size)
    data.update(split_side=(("split", "class"), side),
                grid_weight=(("split", "grid"), lin.weights),
                site_nu=(("split", "grid", "case"), sites[:, :, 0]),
                site_tau=(("split", "grid", "case"), sites[:, :, 1]),
                tree_split=(("tree", "position"), np.asarray(lin.trees, dtype=np.int64)))
    return xr.Dataset(data)


def _probit_fit(ds):
    """The inverse of :func:`_probit_dataset`."""
    from ..models._linear_probit import LinearProbitFit
    from ..models._nested_probit import NestedProbitFit

    common = dict(mean=ds["mean"].values, sd=ds["sd"].values,
                  keep=ds["keep"].values.astype(bool), Z=ds["Z"].values, y=ds["y"].values,
                  log_s=ds["log_s"].values, weights=ds["grid_weight"].values)
    sites = np.stack([ds["site_nu"].values, ds["site_tau"].values], axis=-2)
    if "split_side" not in ds:
        return LinearProbitFit(**common, sites=_sites_list(sites))
    side = ds["split_side"].values
    splits = [(tuple(np.flatnonzero(row == 1).tolist()), tuple(np.flatnonzero(row == 2).tolist()))
              for row in side]
    y = common["y"]
    return NestedProbitFit(
        **common, n_classes=side.shape[1], splits=splits,
        sites=[_sites_list(sites[j], np.isin(y, left + right))
               for j, (left, right) in enumerate(splits)],
        trees=[tuple(int(j) for j in row) for row in ds["tree_split"].values])
