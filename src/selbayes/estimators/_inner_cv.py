"""Inner cross-validation of the hierarchical Gaussian classifier: k, lambda and T in ``fit``.

The criterion is the inner cross-validated log score (mean -log p(true class), AMLP, in nats) of
the classifier, with selection, standardisation and decorrelation redone on every inner training
fold, and the fast plug-in predictive of :mod:`selbayes.models._gaussian_plugin` (Li 2009, eqs
13-15 and 23-24) in place of MCMC. :func:`choose_k` is a pure function of explicit settings (as
scikit-learn's ``lasso_path`` is for ``LassoCV``); the classifier passes its own.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_labels, check_matrix, check_positive_int, check_random_state
from ..filters._selection import f_statistic, selection_from_scores
from ..models._gaussian_plugin import (
    correlation_temperature,
    default_label_noise,
    label_noise_log_proba,
    plugin_log_proba,
    temper_log_proba,
)
from ..models._gaussian_posterior import class_log_prior
from ..models._priors import GaussianPriors, for_centred_features
from ..preprocessing._features import prepare_features

__all__ = ["KChoice", "choose_k", "next_k", "usable_k_grid", "pick_candidate",
           "choices_per_k", "fold_k", "grid_end_messages", "share_label_noise", "chosen_share",
           "InnerCVImpossibleError",
           "DEFAULT_K_GRID", "LABEL_NOISE_SHARES", "DEFAULT_T_GRID", "DEFAULT_DECORRELATE_GRID"]

#: Candidate k of ``k="auto"`` (values a fit cannot keep, k >= p or more than the features
#: with F > 0, become the largest it can: :func:`usable_k_grid`). Up to 2000 since
#: 2026-11-25: where the signal is spread over many genes a small k loses to linear models
#: (plasmode and simulation suite, reports/plasmode); clipped at p - 1 since 2026-12-06
#: (reports/plasmode/k_grid_clip).
DEFAULT_K_GRID = (5, 10, 20, 50, 100, 200, 500, 1000, 2000)
#: The grid before 2026-11-25 (the plasmode suite's "sb_normal" candidate).
PREVIOUS_K_GRID = (5, 10, 20, 50, 100, 200, 500)
#: Candidate predictive temperatures of ``temperature="auto"``.
DEFAULT_T_GRID = (1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0, 30.0, 50.0)
#: Candidate decorrelation strengths lambda of ``decorrelate="auto"`` (None: none).
DEFAULT_DECORRELATE_GRID = (None, 10.0)
#: How a choice picks from the inner curve (:func:`pick_candidate`), as KChoice prints it.
_RULE_TEXT = {"best": "the lowest score",
              "one_se": "the smallest temperature within one paired SE of the best",
              "largest_k_one_se": "the largest k within one paired SE of the best"}
RULES = tuple(_RULE_TEXT)
#: ``label_noise="cv"``: the share c / (n + 2) of the label-noise component, c from this
#: grid, chosen at the chosen candidate by the same inner test cases (c = 1, Laplace's rule
#: of succession, first: it wins ties). Checked on the plasmode suite
#: (reports/plasmode/label_noise_cv/), not on the development sets.
LABEL_NOISE_SHARES = (1.0, 0.0, 0.25, 4.0)


class InnerCVImpossibleError(ValueError):
    """A setting that inner cross-validation chooses (k="auto", ...) on data it cannot split:
    one feature, or inner training folds with no more cases than classes. A ValueError; its
    own class so that a caller whose advice differs (the stack cannot take k as a value) can
    tell it from the other errors of ``fit``."""


#: How a :class:`KChoice` names its criterion when printed (the name itself is what fits save).
_CRITERION_TEXT = {
    "inner_cv_log_score_plugin": "the inner test cases' mean -log p(true class), nats, of the "
                                 "plug-in predictive",
    "inner_cv_log_score_plugin_correlation_T": "the inner test cases' mean -log p(true class), "
                                               "nats, of the plug-in predictive with T from "
                                               "the kept genes' correlation",
}


@dataclass(frozen=True)
class KChoice:
    """Outcome of :func:`choose_k`.

    Attributes
    ----------
    k : int
        The chosen number of features.
    decorrelate : float or None
        The chosen decorrelation strength lambda (None: no decorrelation).
    temperature : float
        The chosen predictive temperature T (1: the model's own predictive); with
        ``temperature="correlation"`` the
        :func:`~selbayes.models.correlation_temperature` of the chosen
        candidate on all the training data.
    grid : list of tuple
        The (k, lambda, T) candidates, in the order of ``score`` and ``se``.
    score : ndarray of shape (len(grid),)
        Mean inner cross-validated -log p(true class) (nats; lower is better).
    se : ndarray of shape (len(grid),)
        Its standard error over the inner test cases.
    criterion : str
        Name of the criterion.
    n_splits : int
        Inner folds.
    n_repeats : int, default 1
        Splits of the cases into those folds whose losses were averaged (``choose_k``'s
        ``repeats``).
    extra : dict
        Free-form details (not compared).

    Examples
    --------
    >>> import numpy as np
    >>> ch = KChoice(k=10, decorrelate=None, temperature=3.0,
    ...              grid=[(5, None, 3.0), (10, None, 3.0)], score=np.array([0.4, 0.3]),
    ...              se=np.array([0.05, 0.05]),
    ...              criterion="inner_cv_log_score_plugin", n_splits=5)
    >>> float(ch.table().loc[1, "score"])
    0.3
    >>> print(ch)                        # the chosen row starred
    KChoice: k = 10, decorrelate = None, temperature = 3 (the lowest score of 2 candidates, 5
    inner folds; score: the inner test cases' mean -log p(true class), nats, of the plug-in
    predictive)
        k decorrelate temperature  score     se
        5        None           3 0.4000 0.0500
    *  10        None           3 0.3000 0.0500
    """

    k: int
    decorrelate: float | None
    temperature: float
    grid: list
    score: np.ndarray
    se: np.ndarray
    criterion: str
    n_splits: int
    n_repeats: int = 1
    extra: dict = field(default_factory=dict, compare=False)

    def table(self):
        """The curve as a pandas DataFrame (columns k, decorrelate, temperature, score, se)."""
        import pandas as pd

        return pd.DataFrame({"k": [g[0] for g in self.grid],
                             "decorrelate": [g[1] for g in self.grid],
                             "temperature": [g[2] for g in self.grid],
                             "score": self.score, "se": self.se})

    def plot(self, ax=None):
        """The curve as a figure: the inner log score against k, +-1 standard error, the
        chosen k marked.

        Where a k was tried with several settings (lambda, T), the point is the best of them,
        so the line is the score profile in k.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; default a new figure.

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import numpy as np
        >>> ch = KChoice(k=10, decorrelate=None, temperature=3.0,
        ...              grid=[(5, None, 3.0), (10, None, 3.0), (10, None, 5.0)],
        ...              score=np.array([0.4, 0.3, 0.35]), se=np.array([0.05, 0.05, 0.05]),
        ...              criterion="inner_cv_log_score_plugin", n_splits=5)
        >>> ax = ch.plot()
        >>> ax.lines[0].get_ydata().tolist()          # at k = 10 the better of its two T
        [0.4, 0.3]
        """
        import matplotlib.pyplot as plt

        tab = self.table()
        profile = tab.loc[tab.groupby("k")["score"].idxmin()].sort_values("k")
        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 3.2))
        ax.errorbar(profile["k"], profile["score"], yerr=profile["se"], marker="o", capsize=3,
                    label="best setting at each k" if len(profile) < len(tab) else None)
        ax.axvline(self.k, color="grey", linestyle=":", label=f"chosen k = {self.k}")
        if profile["k"].max() >= 10 * profile["k"].min():
            ax.set_xscale("log")
        ax.set_xlabel("k (features kept)")
        ax.set_ylabel("inner log score (nats; lower is better)")
        ax.set_title(f"k chosen by {self.n_splits}-fold inner cross-validation")
        ax.legend()
        return ax

    def _chosen_row(self) -> int | None:
        for i, g in enumerate(self.grid):
            if (int(g[0]), g[1], float(g[2])) == (self.k, self.decorrelate, self.temperature):
                return i
        return None

    def _chosen_case_log_proba(self, share: float | None = None) -> np.ndarray:
        """Log probabilities (nats) of every class for every inner test case under the
        chosen candidate and label-noise share, as :meth:`_chosen_case_losses`, shape (n, G);
        with ``share`` (one of :data:`LABEL_NOISE_SHARES`, when the curve scored every
        share: ``"share_case_log_proba"`` in ``extra``), under that share instead."""
        if share is None and "share_case_log_proba" in self.extra:
            share = self.extra["label_noise_c"]
        return self._case_log_proba_at(self._chosen_row(), share)

    def _case_log_proba_at(self, row: int, share: float | None) -> np.ndarray:
        """Every inner test case's log probabilities (n, G) under the curve's row ``row``:
        with ``share`` (one of :data:`LABEL_NOISE_SHARES`) that share's, where the curve
        scored every share; otherwise the row's own (the share of the curve)."""
        if share is not None and "share_case_log_proba" in self.extra:
            return np.asarray(self.extra["share_case_log_proba"][row][
                LABEL_NOISE_SHARES.index(share)], dtype=np.float64)
        return np.asarray(self.extra["case_log_proba"][row], dtype=np.float64)

    def _fold_choices(self) -> list:
        """The choice made again on each inner fold of the first split from the other
        folds' cases only: per fold, (row of the curve, label-noise share c or None), picked
        as the choice on all cases was (``extra["rule"]``, then the share with the lowest
        mean loss at that row). The chosen candidate's losses on the cases that chose it
        are biased low (the lowest of many noisy curves); a fold's cases scored at a choice
        that never saw them are not: the cross-validation of the whole tuning procedure
        (Varma and Simon 2006, BMC Bioinformatics 7:91; the learner of a stack includes its
        tuning, van der Laan, Polley and Hubbard 2007). Needs ``extra["folds"]``."""
        L = np.asarray(self.extra["case_losses"], dtype=np.float64)      # (rows, n)
        S = self.extra.get("share_case_losses")
        temps, ks = [g[2] for g in self.grid], [g[0] for g in self.grid]
        out = []
        for _, te in self.extra["folds"]:
            other = np.ones(L.shape[1], dtype=bool)
            other[te] = False
            row = pick_candidate(L[:, other], temps, self.extra["rule"], ks)
            out.append((row, None if S is None
                        else chosen_share(np.asarray(S[row], dtype=np.float64)[:, other])))
        return out

    def _fold_chosen_case_log_proba(self, choices=None) -> np.ndarray:
        """Every inner test case's log probabilities (n, G) under the choice its fold's
        other cases make (``choices``, by default :meth:`_fold_choices`), with that choice's
        label-noise share."""
        choices = self._fold_choices() if choices is None else choices
        out = np.empty_like(self._case_log_proba_at(0, None))
        for (_, te), (row, c) in zip(self.extra["folds"], choices, strict=True):
            out[te] = self._case_log_proba_at(row, c)[te]
        return out

    def _chosen_case_losses(self) -> np.ndarray:
        """-log p(true class) of every inner test case under the chosen candidate, with the
        label-noise share the fit on all cases uses (the chosen c with ``label_noise="cv"``),
        shape (n,): what another model is stacked against."""
        row = self._chosen_row()
        if "share_case_losses" in self.extra:
            c = LABEL_NOISE_SHARES.index(self.extra["label_noise_c"])
            return np.asarray(self.extra["share_case_losses"][row][c], dtype=np.float64)
        return np.asarray(self.extra["case_losses"][row], dtype=np.float64)

    def __str__(self) -> str:
        """The chosen values, then the curve as a table (the chosen row starred)."""
        import pandas as pd

        how = _RULE_TEXT[self.extra.get("rule", "best")]
        what = _CRITERION_TEXT.get(self.criterion, self.criterion)
        folds = f"{self.n_splits} inner folds" + (
            f" of {self.extra['n_groups']} groups kept whole" if "n_groups" in self.extra
            else "") + (
            f" x {self.n_repeats} splits, losses averaged" if self.n_repeats > 1 else "")
        head = textwrap.fill(
            f"KChoice: k = {self.k}, decorrelate = {self.decorrelate}, temperature = "
            f"{self.temperature:.4g} ({how} of {len(self.grid)} candidates, "
            f"{folds}; score: {what})", width=92)
        tab = self.table()
        chosen = self._chosen_row()
        tab.index = ["*" if i == chosen else "" for i in range(len(tab))]
        with pd.option_context("display.max_rows", 200, "display.width", 100):
            # no decorrelation: None (NaN once pandas mixes it with numbers)
            body = tab.to_string(na_rep="None", formatters={
                "decorrelate": lambda v: "None" if v is None or v != v else f"{v:g}",
                "temperature": lambda v: f"{v:.4g}", "score": lambda v: f"{v:.4f}",
                "se": lambda v: f"{v:.4f}"})
        return head + "\n" + body

    __repr__ = __str__

    def to_constant_data(self) -> dict:
        """The curve as arrays on the ``k_candidate`` dim, for a fit's ``constant_data``
        (lambda None stored as -1); read back by :meth:`from_constant_data`."""
        import xarray as xr

        dim = ["k_candidate"]
        return {
            "k_choice_score": xr.DataArray(self.score, dims=dim),
            "k_choice_se": xr.DataArray(self.se, dims=dim),
            "k_choice_k": xr.DataArray([g[0] for g in self.grid], dims=dim),
            "k_choice_temperature": xr.DataArray([g[2] for g in self.grid], dims=dim),
            "k_choice_decorrelate": xr.DataArray(
                [-1.0 if g[1] is None else g[1] for g in self.grid], dims=dim)}

    @classmethod
    def from_constant_data(cls, cd, *, k, decorrelate, temperature, criterion,
                           n_splits, n_repeats=1, rule="best") -> KChoice:
        """The KChoice whose curve :meth:`to_constant_data` wrote into ``cd`` (the chosen values
        and settings, the rule among them, are the fit's own, recorded elsewhere)."""
        grid = [(int(a), None if b < 0 else float(b), float(c)) for a, b, c in zip(
            cd["k_choice_k"].values, cd["k_choice_decorrelate"].values,
            cd["k_choice_temperature"].values, strict=True)]
        return cls(k=k, decorrelate=decorrelate, temperature=temperature, grid=grid,
                   score=cd["k_choice_score"].values, se=cd["k_choice_se"].values,
                   criterion=criterion, n_splits=n_splits, n_repeats=int(n_repeats),
                   extra={"rule": _check_rule(rule)})


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
    """``{class name: cases}``, for the messages that say why inner folds cannot split."""
    return dict(zip(map(str, classes), np.bincount(y_index, minlength=len(classes)).tolist(),
                    strict=True))


def smallest_inner_training_fold(y_index, n_splits: int) -> int:
    """Cases in the smallest training fold of the inner cross-validation
    (:func:`_stratified_folds`) of the cases of :func:`inner_cv_cases`: their number minus
    the largest test fold, which takes at most ceil(n_g / folds) cases of each class g."""
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
            "splits form a single group: give groups that split the cases (or the settings "
            "it would choose as values)")
    folds = stratified_folds(y_index, n_splits, seed, small_classes_ok=True, groups=groups)
    G = int(y_index.max()) + 1
    for train, _ in folds:
        if train.size <= G:
            # a pooled within-class variance needs more cases than classes
            raise GroupedFoldsError(
                f"inner cross-validation keeps each group's cases in one fold, and then an "
                f"inner training fold holds {train.size} case(s) for {G} classes ({n_splits} "
                f"folds of {int(np.unique(groups).size)} groups); it needs more cases than "
                "classes: give smaller groups (or the settings it would choose as values)")
        lacking = np.flatnonzero(np.bincount(y_index[train], minlength=G) == 0)
        if lacking.size:
            names = (lacking if classes is None else np.asarray(classes)[lacking]).tolist()
            raise GroupedFoldsError(
                f"inner cross-validation keeps each group's cases in one fold, and then an "
                f"inner training fold holds no case of class(es) {names} (their cases lie in "
                f"the groups of one fold: {n_splits} folds of {int(np.unique(groups).size)} "
                "groups); give groups that spread every class over more groups (or the "
                "settings it would choose as values)")
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


def fold_k(k: int, scores) -> int:
    """The k a fit on a subset of the training cases (an inner fold) keeps for a candidate k:
    at most the features it can keep there. Inside a fold fewer features may vary, or differ
    between the classes, than in the whole training set (a gene constant but for one case),
    so a k chosen on all cases, up to every feature with F > 0, can be more than a fold has.

    Parameters
    ----------
    k : int
        The candidate (or chosen) k.
    scores : ndarray of shape (p,)
        The F statistics of the features on the fold's training cases.

    Returns
    -------
    int
        min(k, p - 1, the features with F > 0), at least 1.

    Examples
    --------
    >>> fold_k(1999, np.r_[np.ones(1500), np.zeros(500)]), fold_k(10, np.ones(2000))
    (1500, 10)
    """
    scores = np.asarray(scores)
    return max(1, min(int(k), scores.size - 1, int(np.sum(scores > 0))))


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
            tempered = temper_log_proba(lp, prior, T)
            full[ci, ti] = label_noise_log_proba(tempered, prior, label_noise)
            for si, eps in enumerate(shares or ()):
                full_share[ci, ti, si] = label_noise_log_proba(tempered, prior, eps)
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


def _check_rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(map(repr, RULES))}; got {rule!r}")
    return rule


def pick_candidate(case_losses, temperatures, rule="best", ks=None) -> int:
    """Index of the chosen candidate of an inner cross-validation curve.

    Parameters
    ----------
    case_losses : ndarray of shape (n_candidates, n_cases)
        -log p(true class) of every inner test case under every candidate (nats).
    temperatures : sequence of float, length n_candidates
    rule : {"best", "one_se", "largest_k_one_se"}
        "best": the lowest mean loss. "one_se": the smallest temperature among the
        candidates within one paired standard error of the best (then the lowest loss).
        "largest_k_one_se": the largest k among them (then the lowest loss).
    ks : sequence of int, length n_candidates, optional
        The candidates' k (required by "largest_k_one_se").

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For an unknown rule, or "largest_k_one_se" without ``ks``.

    Examples
    --------
    >>> import numpy as np
    >>> L = np.array([[0.50, 0.51, 0.49, 0.51], [0.50, 0.50, 0.50, 0.49]])
    >>> pick_candidate(L, [1.0, 3.0]), pick_candidate(L, [1.0, 3.0], "one_se")
    (1, 0)
    >>> pick_candidate(L, [1.0, 1.0], "largest_k_one_se", ks=[500, 20])
    0
    """
    L = np.asarray(case_losses, dtype=np.float64)
    score = L.mean(axis=1)
    best = int(np.argmin(score))
    if _check_rule(rule) == "best":
        return best
    # Paired: every candidate is scored on the same inner test cases.
    d_se = (L - L[best]).std(axis=1, ddof=1) / np.sqrt(L.shape[1])
    ok = np.flatnonzero(score <= score[best] + d_se)
    if rule == "one_se":
        key = -np.asarray(temperatures, dtype=np.float64)[ok]   # the smallest temperature
    else:
        if ks is None:
            raise ValueError("rule 'largest_k_one_se' needs the candidates' ks")
        key = np.asarray(ks, dtype=np.float64)[ok]                # the largest k
    ok = ok[key == key.max()]
    return int(ok[np.argmin(score[ok])])




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
    if not by_corr:
        temperature_grid = [float(t) for t in temperature_grid]
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


def share_label_noise(c: float, n: int) -> float:
    """The label-noise probability c / (n + 2) for n training cases, at most 1/2.

    Parameters
    ----------
    c : float
        Multiple of Laplace's rule of succession 1 / (n + 2) (one of
        :data:`LABEL_NOISE_SHARES` for ``label_noise="cv"``).
    n : int
        Training cases.

    Returns
    -------
    float

    Examples
    --------
    >>> share_label_noise(4.0, 38)
    0.1
    """
    return min(0.5, float(c) * default_label_noise(n))


def chosen_share(share_losses) -> float:
    """The c of :data:`LABEL_NOISE_SHARES` whose inner losses have the lowest mean.

    Parameters
    ----------
    share_losses : ndarray of shape (len(LABEL_NOISE_SHARES), n_cases)
        -log p(true class) of each inner test case with each share (nats).

    Returns
    -------
    float
        c; the first of the grid (c = 1) on ties.

    Examples
    --------
    >>> import numpy as np
    >>> chosen_share(np.array([[0.30, 0.30], [0.20, 0.25], [0.25, 0.27], [0.40, 0.35]]))
    0.0
    """
    return float(LABEL_NOISE_SHARES[int(np.argmin(np.asarray(share_losses).mean(axis=-1)))])


def next_k(k: int, limit: int) -> int | None:
    """The value after ``k`` in the 1-2-5 series (..., 1000, 2000, 5000, 10 000, ...), or
    ``limit`` where the series passes it; None when ``k >= limit``.

    Parameters
    ----------
    k : int
        The current largest candidate (>= 1).
    limit : int
        The largest k allowed (the features with F > 0, at most p - 1).

    Returns
    -------
    int or None

    Examples
    --------
    >>> next_k(2000, 30000), next_k(5000, 30000), next_k(20000, 30000), next_k(30000, 30000)
    (5000, 10000, 30000, None)
    >>> next_k(700, 1e9)
    1000
    """
    if k >= limit:
        return None
    decade = 10 ** int(np.floor(np.log10(k)))
    nxt = next(m * decade for m in (1, 2, 5, 10, 20) if m * decade > k)
    return int(min(nxt, limit))


def usable_k_grid(grid, k_cap: int, beyond: str = "clip") -> list:
    """The candidates of a k grid that a fit can keep.

    Parameters
    ----------
    grid : sequence of int
        Candidate k in increasing order (e.g. :data:`DEFAULT_K_GRID`).
    k_cap : int
        The largest k a fit can keep (the features with F > 0, at most p - 1).
    beyond : {"clip", "drop"}
        Values above ``k_cap``: replaced by ``k_cap`` ("clip", the default), so that the
        grid reaches every usable feature where p is at most its last value, or left out
        ("drop"). A grid with no value up to ``k_cap`` is ``[k_cap]`` either way.

    Returns
    -------
    list of int
        In the grid's order.

    Raises
    ------
    ValueError
        If ``beyond`` is neither "clip" nor "drop".

    Examples
    --------
    >>> usable_k_grid(DEFAULT_K_GRID, 1999)
    [5, 10, 20, 50, 100, 200, 500, 1000, 1999]
    >>> usable_k_grid(DEFAULT_K_GRID, 1999, "drop")
    [5, 10, 20, 50, 100, 200, 500, 1000]
    >>> usable_k_grid(DEFAULT_K_GRID, 22282, "clip") == list(DEFAULT_K_GRID)
    True
    >>> usable_k_grid(DEFAULT_K_GRID, 3), usable_k_grid(DEFAULT_K_GRID, 3, "drop")
    ([3], [3])
    """
    if beyond not in ("drop", "clip"):
        raise ValueError(f'beyond must be "drop" or "clip"; got {beyond!r}')
    kept = [int(k) for k in grid if k <= k_cap]
    if beyond == "clip" and any(k > k_cap for k in grid) and int(k_cap) not in kept:
        kept.append(int(k_cap))
    return kept or [int(k_cap)]


def choices_per_k(full: KChoice, ks) -> dict:
    """Split one inner cross-validation over several k into the KChoice of each k.

    The candidates do not interact (the same folds and seeds score each), so the curve of one
    k is the part of ``full`` at that k, and its choice is the rule applied to that part:
    exactly what :func:`choose_k` with ``grid=[k]`` returns (used by ``fit_path``).

    Parameters
    ----------
    full : KChoice
        :func:`choose_k` over every k of ``ks``.
    ks : sequence of int

    Returns
    -------
    dict
        k -> KChoice, for every k of ``ks`` that ``full`` scored (k >= p is left out).

    Examples
    --------
    >>> import numpy as np
    >>> L = np.array([[0.5, 0.6], [0.4, 0.5], [0.7, 0.7]])
    >>> full = KChoice(k=2, decorrelate=None, temperature=1.0,
    ...                grid=[(2, None, 1.0), (2, None, 2.0), (4, None, 1.0)],
    ...                score=L.mean(1), se=np.ones(3), criterion="x", n_splits=2,
    ...                extra={"case_losses": L, "rule": "best"})
    >>> {k: c.temperature for k, c in choices_per_k(full, [2, 4, 9]).items()}
    {2: 2.0, 4: 1.0}
    """
    out = {}
    L = full.extra["case_losses"]
    rule = full.extra.get("rule", "best")
    for k in ks:
        rows = [i for i, g in enumerate(full.grid) if g[0] == k]
        if not rows:
            continue
        best = rows[pick_candidate(L[rows], [full.grid[i][2] for i in rows], rule,
                                   [k] * len(rows))]
        _, lam, t = full.grid[best]
        extra = {"k_grid": [int(k)], "case_losses": L[rows], "rule": rule}
        # the inner folds and every class's log probabilities, where the full curve has them
        extra.update({key: full.extra[key][rows] for key in ("case_log_proba",)
                      if key in full.extra})
        extra.update({key: full.extra[key] for key in ("folds", "cases") if key in full.extra})
        if "share_case_losses" in full.extra:           # label_noise="cv": c at this k
            S = full.extra["share_case_losses"]
            extra.update(share_case_losses=S[rows], label_noise_c=chosen_share(S[best]))
            if "share_case_log_proba" in full.extra:
                extra["share_case_log_proba"] = full.extra["share_case_log_proba"][rows]
        out[k] = KChoice(k=int(k), decorrelate=lam, temperature=t,
                         grid=[full.grid[i] for i in rows], score=full.score[rows],
                         se=full.se[rows], criterion=full.criterion, n_splits=full.n_splits,
                         n_repeats=full.n_repeats, extra=extra)
    return out


def grid_end_messages(choice: KChoice, *, k_cap: int, k_auto: bool, t_auto: bool) -> list:
    """Sentences for a value chosen at an end of its grid where the inner curve still falls.

    A value at an end of its grid that is not a natural limit (k = 1, k = every usable
    feature, T = 1, the model's own predictive) warns when the chosen candidate beats its
    neighbour inside the grid (the next k at the same T, or the next T at the same k) by more
    than two paired standard errors over the inner test cases, so a value beyond the grid may
    score better still. A flat curve at the end does not warn.

    Parameters
    ----------
    choice : KChoice
    k_cap : int
        The largest usable k (features with F > 0, below p).
    k_auto, t_auto : bool
        Whether k, and T, were chosen over their grids.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import numpy as np
    >>> L = np.tile(np.linspace(1.0, 2.0, 10), (2, 1)); L[1] -= 0.5
    >>> ch = KChoice(k=8, decorrelate=None, temperature=1.0,
    ...              grid=[(4, None, 1.0), (8, None, 1.0)], score=L.mean(1), se=np.ones(2),
    ...              criterion="x", n_splits=5, extra={"case_losses": L})
    >>> grid_end_messages(ch, k_cap=100, k_auto=True, t_auto=False)[0].split(", where")[0]
    'k = 8 was chosen at the upper end of k_grid [4, 8]'
    """
    grid = [tuple(g) for g in choice.grid]
    L = choice.extra.get("case_losses")
    chosen = (choice.k, choice.decorrelate, choice.temperature)
    # Unless T is on the grid ("auto"), a candidate is (k, lambda): with the correlation
    # rule every k has its own T.
    width = 3 if t_auto else 2
    keys = [g[:width] for g in grid]
    if chosen[:width] not in keys:
        return []

    def falling(neighbour) -> bool:
        if neighbour[:width] not in keys:
            return False
        if L is None:
            return True
        d = L[keys.index(neighbour[:width])] - L[keys.index(chosen[:width])]
        # Two paired SEs: at one, a quarter of the default fits on real expression sets
        # warned, mostly where a wider grid then did not score better.
        return bool(d.mean() > 2 * d.std(ddof=1) / np.sqrt(d.size))

    msgs = []
    ks = sorted({g[0] for g in grid})
    if k_auto and len(ks) > 1:
        if choice.k == ks[-1] and ks[-1] < k_cap and falling((ks[-2], *chosen[1:])):
            msgs.append(f"k = {choice.k} was chosen at the upper end of k_grid {ks}, where the "
                        f"inner score still improves; a larger k may score better (up to "
                        f"{k_cap} features have F > 0): widen k_grid")
        elif choice.k == ks[0] and ks[0] > 1 and falling((ks[1], *chosen[1:])):
            msgs.append(f"k = {choice.k} was chosen at the lower end of k_grid {ks}, where the "
                        f"inner score still improves; a smaller k may score better: add "
                        f"smaller values to k_grid")
    ts = sorted({g[2] for g in grid})
    if (t_auto and len(ts) > 1 and choice.temperature == ts[-1]
            and falling((choice.k, choice.decorrelate, ts[-2]))):
        msgs.append(f"temperature T = {choice.temperature:g} was chosen at the upper end of "
                    f"temperature_grid {ts}, where the inner score still improves; the "
                    f"predictive may need an even larger T (very redundant features): add "
                    f"larger values to temperature_grid, or consider decorrelate='auto'")
    return msgs
