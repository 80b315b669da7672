"""Inner cross-validation of the prior on the class means (``effect_prior="auto"``).

Every candidate prior (the t prior at a few degrees of freedom, and the normal prior) is scored
by :func:`~selbayes.estimators.choose_k` on the same inner folds with the same seeds, so the
candidates' inner log scores are paired case by case; the prior whose best (k, T) scores lowest
is chosen. A criterion that cannot see the test folds, as k's is (Li 2009 chooses k by
cross-validation; the t prior of BCBCSF, Li 2012, fixes its df).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from numbers import Real

import numpy as np

from ..models._priors import EFFECT_PRIOR_CV_GRID, GaussianPriors

__all__ = ["PriorChoice", "choose_effect_prior", "effect_prior_candidates",
           "DEFAULT_EFFECT_PRIOR_GRID"]

#: Candidates of ``effect_prior="auto"`` (why these: ``selbayes.models._priors``, where the
#: command line reads them too).
DEFAULT_EFFECT_PRIOR_GRID = EFFECT_PRIOR_CV_GRID


def effect_prior_candidates(priors, grid=DEFAULT_EFFECT_PRIOR_GRID) -> list:
    """The candidate priors of ``effect_prior="auto"``: ``(label, df, GaussianPriors)`` each.

    Parameters
    ----------
    priors : GaussianPriors, dict or None
        The other prior settings (the paper's fitting priors where unset). They must not set
        the effect prior themselves (``mu_t_df``, ``mu_t_df_grid``, ``pi0_a``/``pi0_b``).
    grid : sequence of (float or "normal"), default :data:`DEFAULT_EFFECT_PRIOR_GRID`
        Degrees of freedom of t priors (> 0), and "normal" for the normal prior (None: the
        default).

    Returns
    -------
    list of tuple
        ``(label, df, priors)``; df is None for the normal prior.

    Raises
    ------
    ValueError
        For an empty grid, an entry that is neither a positive number nor "normal", a
        repeated entry, or priors that set the effect prior.

    Examples
    --------
    >>> [(label, df) for label, df, _ in effect_prior_candidates(None, (1, "normal"))]
    [('t (df = 1)', 1.0), ('normal', None)]
    """
    base = GaussianPriors.from_dict(priors)
    set_here = [name for name, on in (("mu_t_df", base.mu_t_df is not None),
                                      ("mu_t_df_grid", base.mu_t_df_grid is not None),
                                      ("pi0_a/pi0_b", base.two_groups)) if on]
    if set_here:
        raise ValueError(f"effect_prior='auto' chooses the prior on the class means itself, "
                         f"but priors set {', '.join(set_here)}: drop them, or pass the family "
                         f"they describe as effect_prior")
    entries = list(DEFAULT_EFFECT_PRIOR_GRID if grid is None else grid)
    if not entries:
        raise ValueError("effect_prior_grid must list at least one candidate (t degrees of "
                         "freedom > 0, or 'normal')")
    out, seen = [], set()
    for entry in entries:
        if isinstance(entry, str) and entry == "normal":
            key, label, df, pr = "normal", "normal", None, base
        elif (isinstance(entry, Real) and not isinstance(entry, bool)
              and np.isfinite(entry) and entry > 0):
            df = float(entry)
            key, label, pr = df, f"t (df = {df:g})", replace(base, mu_t_df=df)
        else:
            raise ValueError(f"effect_prior_grid entries must be t degrees of freedom (numbers "
                             f"> 0) or 'normal'; got {entry!r}")
        if key in seen:
            raise ValueError(f"effect_prior_grid lists {entry!r} twice")
        seen.add(key)
        out.append((label, df, pr))
    return out


@dataclass(frozen=True)
class PriorChoice:
    """Outcome of :func:`choose_effect_prior`: one row per candidate prior.

    Attributes
    ----------
    labels : list of str
        "t (df = 2)", ..., "normal".
    df : ndarray of shape (n_candidates,)
        The t prior's degrees of freedom (NaN: the normal prior).
    k, temperature : ndarray of shape (n_candidates,)
        Each candidate's own best k and T in the inner cross-validation.
    score, se : ndarray of shape (n_candidates,)
        Its inner cross-validated -log p(true class) at that (k, T) (nats; lower is better)
        and the standard error over the inner test cases.
    diff, diff_se : ndarray of shape (n_candidates,)
        Paired difference to the chosen candidate over the same inner test cases, and its
        standard error (0 for the chosen one).
    chosen : int
        Index of the chosen candidate (the lowest score).
    k_choices : list of KChoice
        Each candidate's whole inner curve (not saved with a fit).

    Examples
    --------
    >>> import numpy as np
    >>> ch = PriorChoice(labels=["t (df = 2)", "normal"], df=np.array([2.0, np.nan]),
    ...                  k=np.array([20, 50]), temperature=np.array([1.0, 1.2]),
    ...                  score=np.array([0.30, 0.35]), se=np.array([0.05, 0.05]),
    ...                  diff=np.array([0.0, 0.05]), diff_se=np.array([0.0, 0.02]), chosen=0)
    >>> ch.label, ch.t_df, ch.family
    ('t (df = 2)', 2.0, 't')
    """

    #: names in tables and saved files (a subclass chooses among other candidates)
    _column = "prior"
    _what = "priors"
    _prefix = "prior_choice"
    _dim = "prior_candidate"

    labels: list
    df: np.ndarray
    k: np.ndarray
    temperature: np.ndarray
    score: np.ndarray
    se: np.ndarray
    diff: np.ndarray
    diff_se: np.ndarray
    chosen: int
    k_choices: list = field(default_factory=list, compare=False)

    @property
    def label(self) -> str:
        """The chosen prior, as a label."""
        return self.labels[self.chosen]

    @property
    def t_df(self) -> float | None:
        """The chosen t prior's degrees of freedom (None: the normal prior)."""
        v = float(self.df[self.chosen])
        return None if np.isnan(v) else v

    @property
    def family(self) -> str:
        """The chosen family: "t" or "normal"."""
        return "normal" if self.t_df is None else "t"

    def table(self):
        """The candidates as a pandas DataFrame (prior, k, temperature, score, se, diff,
        diff_se)."""
        import pandas as pd

        return pd.DataFrame({self._column: self.labels, "k": self.k,
                             "temperature": self.temperature, "score": self.score,
                             "se": self.se, "diff": self.diff, "diff_se": self.diff_se})

    def __str__(self) -> str:
        """The chosen prior, then the candidates as a table (the chosen row starred)."""
        import pandas as pd

        tab = self.table()
        tab.index = ["*" if i == self.chosen else "" for i in range(len(tab))]
        with pd.option_context("display.width", 100):
            body = tab.to_string(formatters={
                "temperature": lambda v: f"{v:.4g}", "score": lambda v: f"{v:.4f}",
                "se": lambda v: f"{v:.4f}", "diff": lambda v: f"{v:+.4f}",
                "diff_se": lambda v: f"{v:.4f}"})
        return (f"{type(self).__name__}: {self.label} (the lowest inner cross-validated log "
                f"score of {len(self.labels)} {self._what}, each at its own best k and T; "
                f"diff: paired difference to the chosen one)\n" + body)

    __repr__ = __str__

    def to_constant_data(self) -> dict:
        """The rows as arrays on the ``prior_candidate`` dim, for a fit's ``constant_data``;
        read back by :meth:`from_constant_data`."""
        import xarray as xr

        dim, pre = [self._dim], self._prefix
        return {f"{pre}_label": xr.DataArray(np.asarray(self.labels, dtype=str), dims=dim),
                **{f"{pre}_{name}": xr.DataArray(np.asarray(getattr(self, name),
                                                            dtype=np.float64), dims=dim)
                   for name in ("df", "k", "temperature", "score", "se", "diff", "diff_se")}}

    @classmethod
    def from_constant_data(cls, cd, *, chosen_label: str) -> PriorChoice:
        """The choice that :meth:`to_constant_data` wrote into ``cd``."""
        pre = cls._prefix
        labels = [str(v) for v in cd[f"{pre}_label"].values]
        arrays = {name: cd[f"{pre}_{name}"].values
                  for name in ("df", "k", "temperature", "score", "se", "diff", "diff_se")}
        arrays["k"] = arrays["k"].astype(np.int64)
        return cls(labels=labels, chosen=labels.index(chosen_label), **arrays)


def choose_effect_prior(X, y, candidates, *, random_state=None, **choose_k_settings
                        ) -> PriorChoice:
    """Choose the prior on the class means by inner stratified cross-validated log score.

    Each candidate prior is scored by :func:`~selbayes.estimators.choose_k` with the same inner
    folds and seeds (``random_state`` is turned into one integer seed first), so every
    candidate is judged on the same inner test cases with the same tau_x draws; each gets its
    own best (k, lambda, T) and the candidate whose best scores lowest is chosen.

    Parameters
    ----------
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
    candidates : list of (label, df, GaussianPriors)
        :func:`effect_prior_candidates`.
    random_state : int or numpy.random.Generator, optional
    **choose_k_settings
        Every other argument of :func:`~selbayes.estimators.choose_k` (``grid``,
        ``temperature_grid``, ``corrected``, ``label_noise``, ``cv``, ...) except ``priors``.

    Returns
    -------
    PriorChoice

    Raises
    ------
    TypeError
        If ``priors`` is passed (the candidates carry the priors).
    ValueError
        For the inputs and settings :func:`~selbayes.estimators.choose_k` refuses.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :3] += 2.0 * y[:, None]
    >>> cands = effect_prior_candidates(None, (2.0, "normal"))
    >>> ch = choose_effect_prior(X, y, cands, grid=[3, 30], random_state=0)
    >>> ch.label in ("t (df = 2)", "normal"), ch.table().shape
    (True, (2, 7))
    """
    from .._validation import check_random_state
    from ._inner_cv import choose_k

    if "priors" in choose_k_settings:
        raise TypeError("choose_effect_prior takes the priors as candidates, not priors=")
    seed = int(check_random_state(random_state).integers(2 ** 31 - 1))
    fits = [choose_k(X, y, priors=pr, random_state=seed, **choose_k_settings)
            for _, _, pr in candidates]
    return PriorChoice(
        labels=[label for label, _, _ in candidates],
        df=np.array([np.nan if df is None else df for _, df, _ in candidates]),
        **_paired_rows(fits))


def _paired_rows(fits) -> dict:
    """The columns of a choice among inner cross-validations run on the same inner cases.

    Parameters
    ----------
    fits : list of KChoice
        One per candidate, each with ``extra["case_losses"]`` (same folds and seeds).

    Returns
    -------
    dict
        ``k``, ``temperature``, ``score``, ``se``, ``diff``, ``diff_se`` (arrays over the
        candidates), ``chosen`` (the lowest score; the first on ties) and ``k_choices``.
    """
    L = np.stack([ch.extra["case_losses"][ch._chosen_row()] for ch in fits])
    score = L.mean(axis=1)                                     # (candidates,)
    chosen = int(np.argmin(score))
    d = L - L[chosen]
    return dict(k=np.array([ch.k for ch in fits], dtype=np.int64),
                temperature=np.array([ch.temperature for ch in fits], dtype=np.float64),
                score=score, se=L.std(axis=1, ddof=1) / np.sqrt(L.shape[1]),
                diff=d.mean(axis=1), diff_se=d.std(axis=1, ddof=1) / np.sqrt(L.shape[1]),
                chosen=chosen, k_choices=fits)
