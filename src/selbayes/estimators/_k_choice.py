"""The outcome of an inner cross-validation and how a curve is read: :class:`KChoice`.

:class:`KChoice` holds the inner cross-validated curve of :func:`selbayes.estimators.choose_k`
(every candidate's score and every inner test case's loss), prints and plots it, and stores it
with a fit. The rules that pick a candidate from a curve (:func:`pick_candidate`), the
label-noise share's grid and pick (:func:`share_label_noise`, :func:`chosen_share`), the split
of one curve per k (:func:`choices_per_k`, for ``fit_path``) and the warning where a value is
chosen at an end of its grid (:func:`grid_end_messages`) read the same curve.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from ..models._gaussian_plugin import default_label_noise

__all__ = ["KChoice", "RULES", "LABEL_NOISE_SHARES", "pick_candidate", "share_label_noise",
           "chosen_share", "choices_per_k", "grid_end_messages"]

#: How a choice picks from the inner curve (:func:`pick_candidate`), as KChoice prints it.
_RULE_TEXT = {"best": "the lowest score",
              "one_se": "the smallest temperature within one paired SE of the best",
              "largest_k_one_se": "the largest k within one paired SE of the best"}
RULES = tuple(_RULE_TEXT)
#: ``label_noise="cv"``: the share c / (n + 2) of the label-noise component, c from this
#: grid, chosen at the chosen candidate by the same inner test cases (c = 1, Laplace's rule
#: of succession, first: it wins ties). Adopted on the plasmode suite
#: (reports/plasmode/label_noise_cv_mcmc/; offline first, label_noise_cv/) and checked on the
#: development sets (reports/benchmark_microarray_noise_cv_2026-11-28/).
LABEL_NOISE_SHARES = (1.0, 0.0, 0.25, 4.0)


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
        # one k on the curve (k given, e.g. k=10, while the inner cross-validation chose the
        # temperature or the label-noise share at it): nothing chose k
        one_k = len(profile) == 1
        ax.axvline(self.k, color="grey", linestyle=":",
                   label=f"k = {self.k}, the only k tried" if one_k else f"chosen k = {self.k}")
        if profile["k"].max() >= 10 * profile["k"].min():
            ax.set_xscale("log")
        ax.set_xlabel("k (features kept)")
        ax.set_ylabel("inner log score (nats; lower is better)")
        ax.set_title(f"{self.n_splits}-fold inner cross-validation at k = {self.k}" if one_k
                     else f"k chosen by {self.n_splits}-fold inner cross-validation")
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
        # a single candidate (k given, no other setting chosen) was not picked from any
        picked = ("the only candidate" if len(self.grid) == 1
                  else f"{how} of {len(self.grid)} candidates")
        head = textwrap.fill(
            f"KChoice: k = {self.k}, decorrelate = {self.decorrelate}, temperature = "
            f"{self.temperature:.4g} ({picked}, {folds}; score: {what})", width=92)
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
