"""A choice among candidate models by inner cross-validation, scored on the same inner cases.

Each candidate is scored by :func:`~selbayes.estimators.choose_k` with the same inner folds and
seeds, each at its own best (k, T); the candidate whose best scores lowest is chosen, and the
record keeps every candidate's score and its paired difference to the chosen one. Used for the
prior on the class means (:mod:`~selbayes.estimators._prior_choice`) and for the selection
correction itself (:mod:`~selbayes.estimators._correction_choice`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["InnerChoice", "paired_rows"]

#: The per-candidate arrays every record has (and saves).
_ROWS = ("k", "temperature", "score", "se", "diff", "diff_se")


@dataclass(frozen=True, kw_only=True)
class InnerChoice:
    """One row per candidate of a choice by inner cross-validation.

    Attributes
    ----------
    labels : list of str
        The candidates' names.
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
    >>> ch = InnerChoice(labels=["a", "b"], k=np.array([5, 50]),
    ...                  temperature=np.array([1.0, 2.0]), score=np.array([0.3, 0.2]),
    ...                  se=np.array([0.05, 0.05]), diff=np.array([0.1, 0.0]),
    ...                  diff_se=np.array([0.03, 0.0]), chosen=1)
    >>> ch.label, list(ch.table().columns)[:2]
    ('b', ['candidate', 'k'])
    """

    #: names in tables and saved files, set by each kind of choice
    _column = "candidate"
    _what = "candidates"
    _prefix = "inner_choice"
    _dim = "inner_candidate"
    #: arrays a kind of choice saves besides the shared rows
    _extra = ()

    labels: list
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
        """The chosen candidate, as a label."""
        return self.labels[self.chosen]

    def table(self):
        """The candidates as a pandas DataFrame (label, k, temperature, score, se, diff,
        diff_se)."""
        import pandas as pd

        return pd.DataFrame({self._column: self.labels,
                             **{name: getattr(self, name) for name in _ROWS}})

    def __str__(self) -> str:
        """The chosen candidate, then the candidates as a table (the chosen row starred)."""
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
        """The rows as arrays on the ``_dim`` dimension, for a fit's ``constant_data``; read
        back by :meth:`from_constant_data`."""
        import xarray as xr

        dim, pre = [self._dim], self._prefix
        return {f"{pre}_label": xr.DataArray(np.asarray(self.labels, dtype=str), dims=dim),
                **{f"{pre}_{name}": xr.DataArray(np.asarray(getattr(self, name),
                                                            dtype=np.float64), dims=dim)
                   for name in (*self._extra, *_ROWS)}}

    @classmethod
    def from_constant_data(cls, cd, *, chosen_label: str):
        """The choice that :meth:`to_constant_data` wrote into ``cd``."""
        pre = cls._prefix
        labels = [str(v) for v in cd[f"{pre}_label"].values]
        arrays = {name: cd[f"{pre}_{name}"].values for name in (*cls._extra, *_ROWS)}
        arrays["k"] = arrays["k"].astype(np.int64)
        return cls(labels=labels, chosen=labels.index(chosen_label), **arrays)


def paired_rows(fits) -> dict:
    """The rows of a choice among inner cross-validations run on the same inner cases.

    Parameters
    ----------
    fits : list of KChoice
        One per candidate, each with ``extra["case_losses"]`` (same folds and seeds).

    Returns
    -------
    dict
        ``k``, ``temperature``, ``score``, ``se``, ``diff``, ``diff_se`` (arrays over the
        candidates), ``chosen`` (the lowest score; the first on ties) and ``k_choices``:
        the keyword arguments of :class:`InnerChoice` other than ``labels``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> def fit(losses, k):
    ...     return SimpleNamespace(extra={"case_losses": np.array([losses])}, k=k,
    ...                            temperature=1.0, _chosen_row=lambda: 0)
    >>> rows = paired_rows([fit([0.2, 0.4], 5), fit([0.1, 0.3], 20)])
    >>> rows["chosen"], rows["diff"].round(3).tolist()
    (1, [0.1, 0.0])
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
