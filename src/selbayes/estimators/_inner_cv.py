"""Inner cross-validation of the hierarchical Gaussian classifier: k, lambda and T in ``fit``.

The criterion is the inner cross-validated log score (mean -log p(true class), AMLP, in nats) of
the classifier, with selection, standardisation and decorrelation redone on every inner training
fold, and the fast plug-in predictive of :mod:`selbayes.models._gaussian_plugin` (Li 2009, eqs
13-15 and 23-24) in place of MCMC. :func:`choose_k` is a pure function of explicit settings (as
scikit-learn's ``lasso_path`` is for ``LassoCV``); the classifier passes its own. What it
returns, :class:`~selbayes.estimators._k_choice.KChoice`, and the rules that read a curve are in
:mod:`selbayes.estimators._k_choice`; the grids it scores in :mod:`selbayes.estimators._k_grid`.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_labels,
    check_matrix,
    check_positive,
    check_positive_int,
    check_random_state,
    check_real,
)
from ..filters._selection import f_statistic, selection_from_scores
from ..models._gaussian_plugin import (
    _tempered,
    _with_label_noise,
    correlation_temperature,
    default_label_noise,
    plugin_log_proba,
)
from ..models._gaussian_posterior import class_log_prior
from ..models._priors import GaussianPriors, for_centred_features
from ..preprocessing._features import prepare_features
from ._k_choice import (
    LABEL_NOISE_SHARES,
    KChoice,
    _check_rule,
    chosen_share,
    pick_candidate,
    share_label_noise,
)
from ._k_grid import DEFAULT_K_GRID, fold_k, next_k

__all__ = ["choose_k", "inner_cv_cases", "class_counts", "smallest_inner_training_fold",
           "InnerCVImpossibleError", "GroupedFoldsError"]


class InnerCVImpossibleError(ValueError):
    """A setting that inner cross-validation chooses (k="auto", ...) on data it cannot split:
    one feature, or inner training folds with no more cases than classes. A ValueError; its
    own class so that a caller whose advice differs (the stack cannot take k as a value) can
    tell it from the other errors of ``fit``."""


def _n_inner_folds(counts, n_splits: int) -> int:
    """Folds of the inner cross-validation: ``n_splits``, at most the smallest class's size."""
    return int(min(n_splits, np.min(counts)))


def inner_cv_cases(y_index) -> np.ndarray:
    """Indices of the training cases the inner cross-validation splits: every case of a class
    with two cases or more.

    A class with a single training case (a rare class of a benchmark's small data split two
    ways) cannot be on both sides of an inner split: in an inner test fold its class would be
    missing from the inner training fold. Its case joins only the fit on all the training
    data; the settings inner cross-validation chooses (k, T, the label-noise share, the
    stack's weights) are chosen on the other classes.

    Parameters
    ----------
    y_index : int array-like of shape (n_samples,)
        Class index of every training case.

    Returns
    -------
    ndarray of int64
        Increasing case indices; all of them when every class has two cases or more.

    Examples
    --------
    >>> inner_cv_cases([0, 0, 1, 2, 2]).tolist()
    [0, 1, 3, 4]
    """
    y_index = np.asarray(y_index)
    return np.flatnonzero(np.bincount(y_index)[y_index] >= 2)


def class_counts(classes, y_index) -> dict:
    """``{class name: cases}``, for the messages that say why inner folds cannot split.

    Parameters
    ----------
    classes : sequence
        The class labels, in the order of their indices.
    y_index : int array-like of shape (n_samples,)
        Class index of every training case.

    Returns
    -------
    dict
        Class label (as text) -> number of cases, every class (also those with none).

    Examples
    --------
    >>> class_counts(["ALL", "AML", "other"], [0, 1, 0, 0])
    {'ALL': 3, 'AML': 1, 'other': 0}
    """
    return dict(zip(map(str, classes), np.bincount(y_index, minlength=len(classes)).tolist(),
                    strict=True))


def smallest_inner_training_fold(y_index, n_splits: int) -> int:
    """Cases in the smallest training fold of the inner cross-validation
    (:func:`_stratified_folds`) of the cases of :func:`inner_cv_cases`: their number minus
    the largest test fold, which takes at most ceil(n_g / folds) cases of each class g.

    Parameters
    ----------
    y_index : int array-like of shape (n_samples,)
        Class index of every training case.
    n_splits : int
        Inner folds asked for (fewer where the smallest class of two or more cases is
        smaller; at least 2).

    Returns
    -------
    int
        0 when no class has two cases.

    Examples
    --------
    >>> smallest_inner_training_fold([0] * 10 + [1] * 6 + [2], 5)    # 16 - (2 + 2)
    12
    """
    counts = np.bincount(np.asarray(y_index)[inner_cv_cases(y_index)])
    counts = counts[counts > 0]
    if counts.size == 0:
        return 0
    folds = max(2, _n_inner_folds(counts, n_splits))
    return int(counts.sum() - np.sum(-(-counts // folds)))


class GroupedFoldsError(InnerCVImpossibleError):
    """Inner folds that keep each group whole cannot be made: the cases form one group, or a
    class lies in the groups of one fold. Its own class because the advice (other groups)
    is the same for the Gaussian model and the stacks around it."""


def _stratified_folds(y_index, n_splits, rng, groups=None, classes=None):
    """(folds used, the (train, test) pairs) of the inner cross-validation of the cases
    ``y_index``; with ``groups`` (codes, one per case) a group's cases in one fold
    (``classes``: the class names, for the message where that leaves a class out)."""
    # the folds themselves come from selbayes.evaluation._folds, where every fold is made
    from ..evaluation._folds import stratified_folds

    seed = int(rng.integers(2 ** 31 - 1))
    n_splits = _n_inner_folds(np.bincount(y_index), n_splits)
    if n_splits < 2:
        raise ValueError("choosing k by inner cross-validation needs at least 2 cases in every "
                         "class of the training data")
    if groups is None:
        return n_splits, stratified_folds(y_index, n_splits, seed)
    n_splits = min(n_splits, int(np.unique(groups).size))
    if n_splits < 2:
        raise GroupedFoldsError(
            "inner cross-validation keeps each group's cases in one fold, and the cases it "
            "splits form a single group: give groups that split the cases (or give values "
            "to the settings it chooses)")
    folds = stratified_folds(y_index, n_splits, seed, small_classes_ok=True, groups=groups)
    G = int(y_index.max()) + 1
    for train, _ in folds:
        if train.size <= G:
            # a pooled within-class variance needs more cases than classes
            raise GroupedFoldsError(
                f"inner cross-validation keeps each group's cases in one fold, and then an "
                f"inner training fold holds {train.size} case(s) for {G} classes ({n_splits} "
                f"folds of {int(np.unique(groups).size)} groups); it needs more cases than "
                "classes: give smaller groups (or give values to the settings it chooses)")
        lacking = np.flatnonzero(np.bincount(y_index[train], minlength=G) == 0)
        if lacking.size:
            names = (lacking if classes is None else np.asarray(classes)[lacking]).tolist()
            raise GroupedFoldsError(
                f"inner cross-validation keeps each group's cases in one fold, and then an "
                f"inner training fold holds no case of class(es) {names} (their cases lie in "
                f"the groups of one fold: {n_splits} folds of {int(np.unique(groups).size)} "
                "groups); give groups that spread every class over more groups (or give "
                "values to the settings it chooses)")
    return n_splits, folds


def _candidate_selections(X, y_index, G, candidates, standardize, method):
    """For every (k, lambda) candidate: the prepared features Z of X (one preparation per
    lambda), their map and the F selection of the top k, as ``(Z, feats, sel)``."""
    classes = np.arange(G)
    counts = np.bincount(y_index, minlength=G)
    by_lam: dict = {}
    for k, lam in candidates:
        if lam not in by_lam:
            Z, feats = prepare_features(X, y_index, G, standardize=standardize,
                                        decorrelate=lam, method=method)
            # F directly, not select_features: a rare class (3 cases in all, as in some
            # tumour-type data) can keep a single case in an inner training fold, which the
            # F statistic and the model allow (they need n - G >= 1) but the public
            # function's input check does not.
            by_lam[lam] = (Z, feats, f_statistic(Z, y_index, G))
        Z, feats, scores = by_lam[lam]
        yield Z, feats, selection_from_scores(scores, fold_k(k, scores), None, "f", counts,
                                              classes)


def _fold_log_proba(X, y_index, G, train, test, candidates, standardize, priors, corrected,
                    n_draws, seed, temperatures=(1.0,), label_noise=0.0, method="symmetric",
                    shares=None):
    """Every class's log probability for every test case of one inner fold, for every
    candidate and temperature: shape (len(candidates), len(temperatures), n_test, G);
    ``temperatures="correlation"``: one temperature per candidate,
    :func:`correlation_temperature` of the fold's training data at that candidate (shape
    (len(candidates), 1, n_test, G)). Returns ``(log_proba, share_log_proba)``, the second
    with each label-noise probability of ``shares`` in place of ``label_noise`` (shape
    (len(candidates), n_T, len(shares), n_test, G)), or None without ``shares``."""
    by_corr = isinstance(temperatures, str)
    n_t = 1 if by_corr else len(temperatures)
    full = np.empty((len(candidates), n_t, test.size, G))
    full_share = None if shares is None else np.empty((*full.shape[:2], len(shares),
                                                        test.size, G))
    y_train = y_index[train]
    for ci, (Z, feats, sel) in enumerate(_candidate_selections(
            X[train], y_train, G, candidates, standardize, method)):
        lp = plugin_log_proba(Z[:, sel.indices], y_train,
                              feats.selected(X[test], sel.indices), sel, priors, corrected,
                              n_draws=n_draws, random_state=seed)
        prior = class_log_prior(sel.class_counts, priors.c)
        temps = ([correlation_temperature(Z[:, sel.indices], y_train, G)] if by_corr
                 else temperatures)
        for ti, T in enumerate(temps):
            # the unchecked forms: lp is the plug-in's own normalised output, checked once
            # per candidate would be a pass over it per temperature and share
            tempered = _tempered(lp, prior, T)
            full[ci, ti] = _with_label_noise(tempered, prior, label_noise)
            for si, eps in enumerate(shares or ()):
                full_share[ci, ti, si] = _with_label_noise(tempered, prior, eps)
    return full, full_share


def _true_class_loss(log_proba, y_test) -> np.ndarray:
    """-log p(true class) from log probabilities of shape (..., n_test, G): shape
    (..., n_test)."""
    idx = np.asarray(y_test).reshape((1,) * (log_proba.ndim - 2) + (-1, 1))
    return -np.take_along_axis(log_proba, idx, axis=-1)[..., 0]


def _fold_losses(X, y_index, G, train, test, candidates, standardize, priors, corrected,
                 n_draws, seed, temperatures=(1.0,), label_noise=0.0, method="symmetric",
                 shares=None):
    """-log p(true class) of every test case of one inner fold, for every candidate and
    temperature: shape (len(candidates), len(temperatures), n_test) (see
    :func:`_fold_log_proba`). With ``shares``, also the same losses with each of them in
    place of ``label_noise``: a second array of shape (len(candidates), n_T, len(shares),
    n_test)."""
    full, full_share = _fold_log_proba(X, y_index, G, train, test, candidates, standardize,
                                       priors, corrected, n_draws, seed, temperatures,
                                       label_noise, method, shares)
    out = _true_class_loss(full, y_index[test])
    return out if shares is None else (out, _true_class_loss(full_share, y_index[test]))


def _candidate_temperatures(X, y_index, G, candidates, standardize, method) -> list:
    """:func:`correlation_temperature` of all the training data at every (k, lambda)."""
    return [correlation_temperature(Z[:, sel.indices], y_index, G) for Z, _, sel in
            _candidate_selections(X, y_index, G, candidates, standardize, method)]


def choose_k(X, y, *, grid=DEFAULT_K_GRID, decorrelate_grid=(None,),
             temperature_grid="correlation", priors=None, corrected=True, standardize=True,
             decorrelation_method="symmetric", label_noise="auto", rule="best", cv=5,
             repeats=1, random_state=None, n_jobs=1, n_draws=200, extend_to=None,
             progressbar=False, groups=None) -> KChoice:
    """Choose k (and optionally lambda and T) by inner stratified cross-validated log score.

    For every inner fold the feature preparation (standardisation, decorrelation) and the F
    ranking are fitted on the inner training cases only; every candidate is then scored by
    :func:`~selbayes.models.plugin_log_proba` on the inner test cases. The
    candidate with the lowest mean -log p(true class) is chosen. A pure function of its
    arguments; the defaults are those of ``HierarchicalGaussianClassifier()``.

    Parameters
    ----------
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
    grid : sequence of int, default :data:`DEFAULT_K_GRID`
        Candidate k (those outside 1 <= k < p are dropped).
    decorrelate_grid : sequence of (float or None), default (None,)
        Candidate lambdas (None: no decorrelation).
    temperature_grid : sequence of float or "correlation", default "correlation"
        Candidate predictive temperatures T
        (:func:`~selbayes.models.temper_log_proba`); "correlation": no grid,
        T of every candidate is
        :func:`~selbayes.models.correlation_temperature` of its (inner)
        training data.
    priors : GaussianPriors or dict, optional
    corrected : bool, default True
        Score the selection-corrected model.
    standardize : bool, default True
    decorrelation_method : {"symmetric", "cholesky"}, default "symmetric"
    label_noise : float, "auto" or "cv", default "auto"
        eps of :func:`~selbayes.models.label_noise_log_proba` applied to every
        inner prediction (the criterion then scores the predictive the fitted classifier
        uses); "auto": ``default_label_noise`` of the inner training size. "cv": candidates
        are scored and chosen as with "auto"; then, at the chosen candidate, the same inner
        test cases also score the shares c / (n + 2) for c in :data:`LABEL_NOISE_SHARES`,
        and the c with the lowest mean loss (c = 1 on ties) is returned in
        ``extra["label_noise_c"]`` (the fit on all n training cases then uses c / (n + 2)),
        the losses in ``extra["share_case_losses"]`` (len(grid), len(shares), n).
    rule : {"best", "one_se", "largest_k_one_se"}, default "best"
        "best": the candidate with the lowest score. "one_se": among the candidates whose
        score is within one paired standard error (over the inner test cases) of the best,
        the one with the smallest temperature, then the lowest score (the
        one-standard-error rule of Breiman et al. 1984, toward the model's own predictive).
        "largest_k_one_se": among them, the largest k, then the lowest score (where the
        inner score cannot tell a few genes from many, keep many: under the model with a
        fitting effect prior more genes do not hurt the posterior predictive).
    cv : int, default 5
        Inner folds (reduced to the smallest count of a class with two cases or more when
        needed).
    repeats : int, default 1
        Repeated inner cross-validation: the cases are split into ``cv`` stratified folds
        ``repeats`` times (independent splits, the first the one ``repeats=1`` makes) and
        every candidate is scored on each split; a case's loss is its mean over the splits
        (in nats), so that the choice depends less on how one split fell. The score and its
        standard error are over the cases' averaged losses. The extra arrays of every class's
        log probabilities and the ``"folds"`` are those of the first split (another model
        scored on those folds is paired with them).
    random_state : int or numpy.random.Generator, optional
        Seeds the inner folds and the tau_x draws.
    n_jobs : int, default 1
        Folds run in parallel through joblib.
    n_draws : int, default 200
        tau_x draws of the fast predictive.
    extend_to : int, optional
        Continue the grid past its largest k while the chosen candidate is at that largest k:
        the next value of the 1-2-5 series (5000, 10 000, 20 000, ...; :func:`next_k`) is
        scored on the same inner folds and seeds, up to ``extend_to`` (and p - 1), so k can
        grow to every feature where the data ask for it. The candidates do not interact, so
        the result is what the grid with those values added would give whenever the inner
        curve has no second minimum beyond the first value that scores worse. None (the
        default): the grid as given.
    progressbar : bool, default False
        Show the inner folds as they are scored, one bar per pass over the folds (the grid,
        then each k of the continuation): at k in the tens of thousands with many classes
        one pass takes many minutes.
    groups : array-like of shape (n,), optional
        A group label per case (technical replicates, several samples of one patient or
        tumour): the cases of a group are kept in one inner fold (scikit-learn's
        ``StratifiedGroupKFold``, with the class shares kept as nearly as whole groups
        allow), so that no inner test case is scored with its twin among the inner training
        cases, which would favour the candidates that fit single cases closely. The folds
        are then at most the number of groups. None: every case is its own group.

    Returns
    -------
    KChoice
        Its ``extra`` holds the inner scores case by case, in the order of the cases of
        ``y``: ``"case_losses"`` (-log p(true class), (len(grid), n); with ``repeats`` > 1
        the mean over the splits), ``"case_log_proba"`` (every class, (len(grid), n, G);
        the first split's), with ``label_noise="cv"`` the same per share
        (``"share_case_losses"``, ``"share_case_log_proba"``), the inner ``"folds"``
        ((train, test) index pairs) and every split's folds (``"splits"``, the first of them
        ``"folds"``), so that another model scored on the same folds can be
        paired with them case by case. Where a class has a single case, the folds split the
        others (:func:`inner_cv_cases`): the arrays and folds are then of the cases
        ``extra["cases"]`` of X, and their columns the classes with two cases or more.

    Raises
    ------
    ValueError
        If fewer than 2 classes have 2 cases or more, or ``groups`` leave an inner training
        fold without a class or form one group (an :class:`InnerCVImpossibleError`);
        ``groups`` that are not one label per case or have a missing one; the grid is empty
        after capping, ``temperature_grid`` is a string other than
        "correlation", or ``repeats`` is not a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :8] += y[:, None]
    >>> ch = choose_k(X, y, grid=[2, 8, 32], temperature_grid=[1.0, 3.0], random_state=0)
    >>> ch.k in (2, 8, 32), ch.score.shape, ch.table().shape
    (True, (6,), (6, 5))
    """
    # scikit-learn's Parallel hands the caller's warning filters to the workers
    from sklearn.utils.parallel import Parallel, delayed
    from tqdm import tqdm  # text bar: tqdm.auto warns in notebooks without ipywidgets

    from ..evaluation._folds import group_codes

    X = check_matrix(X)
    classes, y_index, _ = check_labels(y, X.shape[0], min_per_class=1)
    codes = None if groups is None else group_codes(groups, X.shape[0])
    # a class with one case is not split (inner_cv_cases): the inner folds hold the others
    cases = inner_cv_cases(y_index)
    subset = cases.size < y_index.size
    if subset:
        kept = np.unique(y_index[cases])
        if kept.size < 2:
            raise InnerCVImpossibleError(
                "inner cross-validation splits the classes with two training cases or more, "
                f"and only {kept.size} of the {len(classes)} classes has them (class counts "
                f"{class_counts(classes, y_index)})")
        X, classes, y_index = X[cases], classes[kept], np.searchsorted(kept, y_index[cases])
        codes = None if codes is None else codes[cases]
    G = len(classes)
    n, p = X.shape
    rng = check_random_state(random_state)
    corrected, standardize = bool(corrected), bool(standardize)
    # Centred features: a flat prior on the feature means (for_centred_features says why).
    priors = (for_centred_features(priors) if standardize
              else GaussianPriors.from_dict(priors))
    grid = DEFAULT_K_GRID if grid is None else grid
    # a grid of one k with no extension: the settings at a given k (T, lambda, the label-noise
    # share) are chosen, not k (the progress bar says which)
    given_k = len(grid) == 1 and extend_to is None
    repeats = check_positive_int(repeats, name="repeats")
    n_splits, folds = _stratified_folds(y_index, cv, rng, codes, classes)
    # k may exceed n (each feature has its own n observations); it must leave one omitted.
    cap = p - 1
    ks = sorted({int(k) for k in grid if 1 <= int(k) <= cap})
    if not ks:
        raise ValueError(f"no candidate k in {list(grid)} is below p = {p}")
    by_corr = isinstance(temperature_grid, str)
    if by_corr and temperature_grid != "correlation":
        raise ValueError(f"temperature_grid must be numbers or 'correlation'; got "
                         f"{temperature_grid!r}")
    if not by_corr:             # checked once here: the folds temper unchecked
        temperature_grid = [check_positive(t, name="temperature") for t in temperature_grid]
    _check_rule(rule)
    method = decorrelation_method
    candidates = [(k, lam) for lam in decorrelate_grid for k in ks]
    seed = int(rng.integers(2 ** 31 - 1))
    # The further splits of repeated inner CV come from their own streams (seed, r), so the
    # first split, the plug-in's draws and every result of repeats=1 stay as they were.
    splits = [folds] + [_stratified_folds(y_index, cv, np.random.default_rng([seed, r]),
                                          codes, classes)[1]
                        for r in range(1, int(repeats))]

    noise_cv = isinstance(label_noise, str) and label_noise == "cv"
    if isinstance(label_noise, str) and label_noise not in ("auto", "cv"):
        raise ValueError(f"label_noise must be a number in [0, 1), 'auto' or 'cv'; got "
                         f"{label_noise!r}")
    if not isinstance(label_noise, str):
        check_real(label_noise, name="label noise eps", low=0.0, high=1.0, closed="left")

    def eps_for(train):
        return (default_label_noise(train.size) if isinstance(label_noise, str)
                else float(label_noise))

    def shares_for(train):
        return (None if not noise_cv
                else [share_label_noise(c, train.size) for c in LABEL_NOISE_SHARES])

    def scored(cands) -> dict:
        """(k, lambda) -> (its [(k, lambda, T)], its case losses (n_T, n), those per share
        (n_T, n_shares, n) or None, every class's log probabilities (n_T, n, G), those per
        share or None), the cases in the order of y."""
        jobs = (delayed(_fold_log_proba)(X, y_index, G, tr, te, cands, standardize, priors,
                                         corrected, n_draws, seed, temperature_grid,
                                         eps_for(tr), method, shares_for(tr))
                for split in splits for tr, te in split)
        kk = sorted({c[0] for c in cands})
        what = f"k = {kk[0]}" + (f" to {kk[-1]}" if len(kk) > 1 else "")
        if len(splits) > 1:
            what += f", {len(splits)} splits"
        # In fold order (return_as="generator"); without progressbar the bar passes through.
        per_fold = list(tqdm(Parallel(n_jobs=n_jobs, return_as="generator")(jobs),
                             total=sum(map(len, splits)), unit="fold",
                             disable=not progressbar,
                             desc=("" if given_k else "choosing k: ")
                             + f"inner cross-validation, {what}"))
        def in_case_order(part, split):
            """One split's folds' arrays, concatenated and put back in the order of the cases
            (they are paired case by case with other models' losses on the same folds)."""
            order = np.argsort(np.concatenate([te for _, te in split]), kind="stable")
            return (np.concatenate([a for a, _ in part], axis=2)[:, :, order],
                    np.concatenate([a for _, a in part], axis=3)[:, :, :, order]
                    if noise_cv else None)

        by_split = [in_case_order(per_fold[r * n_splits:(r + 1) * n_splits], split)
                    for r, split in enumerate(splits)]
        # every class's log probabilities: the first split's, whose folds extra keeps
        P, P_share = by_split[0]                               # (cands, T, n, G), (.., shares, ..)
        # a case's loss: its mean over the splits
        L = np.mean([_true_class_loss(a, y_index) for a, _ in by_split], axis=0)  # (cands, T, n)
        by_share = (np.mean([_true_class_loss(b, y_index) for _, b in by_split], axis=0)
                    if noise_cv else None)
        if by_corr:   # the T each candidate's fit on all the training data would use
            temps = [[t] for t in _candidate_temperatures(X, y_index, G, cands, standardize,
                                                          method)]
        else:
            temps = [temperature_grid] * len(cands)
        return {c: ([(*c, t) for t in ts], L[i], by_share[i] if noise_cv else None, P[i],
                    P_share[i] if noise_cv else None)
                for i, (c, ts) in enumerate(zip(cands, temps, strict=True))}

    def in_curve_order(part):
        """The ``part``-th entry of every candidate's scores, concatenated in the curve's
        order (grid rows first)."""
        order = [(k, lam) for lam in decorrelate_grid for k in ks]
        return np.concatenate([results[c][part] for c in order], axis=0)

    def curve():
        order = [(k, lam) for lam in decorrelate_grid for k in ks]
        full = [g for c in order for g in results[c][0]]
        return full, in_curve_order(1)

    def share_curve():
        """(len(grid), len(shares), n): the losses with each share, in the curve's order."""
        return in_curve_order(2)

    results = scored(candidates)
    full, L = curve()
    best = pick_candidate(L, [g[2] for g in full], rule, [g[0] for g in full])
    limit = None if extend_to is None else min(cap, int(extend_to))
    while limit is not None and full[best][0] == ks[-1]:
        # The best k is the largest scored: score the next one (same folds and seeds).
        nxt = next_k(ks[-1], limit)
        if nxt is None:
            break
        ks.append(nxt)
        results.update(scored([(nxt, lam) for lam in decorrelate_grid]))
        full, L = curve()
        best = pick_candidate(L, [g[2] for g in full], rule, [g[0] for g in full])
    score = L.mean(axis=1)
    se = L.std(axis=1, ddof=1) / np.sqrt(L.shape[1])
    k_best, lam_best, t_best = full[best]
    # the inner folds themselves, for a stack that scores another model on the same cases
    extra = {"k_grid": ks, "case_losses": L, "rule": rule, "folds": folds, "splits": splits,
             "case_log_proba": in_curve_order(3)}
    if codes is not None:
        extra["n_groups"] = int(np.unique(codes).size)    # of the cases the folds split
    if subset:
        # the folds and the case-by-case arrays are of these cases of X (their classes, in
        # order, are the classes of y with two cases or more)
        extra["cases"] = cases
    if noise_cv:
        S = share_curve()
        extra.update(share_case_losses=S, label_noise_c=chosen_share(S[best]),
                     share_case_log_proba=in_curve_order(4))
    return KChoice(k=int(k_best), decorrelate=lam_best, temperature=t_best, grid=full,
                   score=score, se=se,
                   criterion="inner_cv_log_score_plugin" + ("_correlation_T" if by_corr else ""),
                   n_splits=n_splits, n_repeats=len(splits), extra=extra)


def __getattr__(name):
    # The curve's record and rules (_k_choice) and the grids (_k_grid) were part of this module
    # until 2026-12-06; the committed report scripts import them from here: forwarded, with
    # the FutureWarning of every moved name (as selbayes.datasets does for its split module).
    from .._compat import forward_private

    return forward_private(__name__, ("selbayes.estimators._k_choice",
                                      "selbayes.estimators._k_grid"), name)
