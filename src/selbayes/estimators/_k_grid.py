"""The candidate values inner cross-validation scores: the grids of k, T and lambda, and the
k a fit can keep.

The grids of ``k="auto"``, ``temperature="auto"`` and ``decorrelate="auto"``
(:class:`~selbayes.estimators.HierarchicalGaussianClassifier`), the usable part of a k grid
where p is small (:func:`usable_k_grid`), its continuation past the grid's end
(:func:`next_k`, ``choose_k(extend_to=...)``) and the k an inner fold can keep (:func:`fold_k`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_K_GRID", "PREVIOUS_K_GRID", "DEFAULT_T_GRID", "DEFAULT_DECORRELATE_GRID",
           "fold_k", "next_k", "usable_k_grid"]

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


def fold_k(k: int, scores) -> int:
    """The k a fit on a subset of the training cases (an inner fold) keeps for a candidate k:
    at most the features it can keep there. Inside a fold fewer features may vary, or differ
    between the classes, than in the whole training set (a gene constant but for one case),
    so a k chosen on all cases, up to every feature with F > 0, can be more than a fold has.
    And a gene that differs between the classes in one case alone can have no spread within
    any class once that case is left out (F infinite there): the fold keeps every such gene
    and one more, so that its selection threshold gamma (the weakest kept F) is finite.

    Parameters
    ----------
    k : int
        The candidate (or chosen) k.
    scores : ndarray of shape (p,)
        The F statistics of the features on the fold's training cases.

    Returns
    -------
    int
        min(k, p - 1, the features with F > 0), at least 1, and at least one more than the
        features with F infinite.

    Raises
    ------
    ValueError
        If every feature with F > 0 (or all but one of the p) has F infinite in the fold:
        no finite threshold separates them.

    Examples
    --------
    >>> fold_k(1999, np.r_[np.ones(1500), np.zeros(500)]), fold_k(10, np.ones(2000))
    (1500, 10)
    >>> fold_k(1, np.r_[np.inf, np.inf, np.ones(10)])
    3
    """
    scores = np.asarray(scores)
    cap = min(scores.size - 1, int(np.sum(scores > 0)))
    infinite = np.flatnonzero(np.isposinf(scores))
    if infinite.size and infinite.size >= cap:
        raise ValueError(
            f"in a subset of the training cases (an inner cross-validation fold), "
            f"{infinite.size} feature(s) (positions {infinite[:5].tolist()}) have no spread "
            "within any class but different class means (F infinite), and the fold would "
            f"have to keep them all and one more with F > 0 below p, where it has {cap} to "
            "keep: no selection threshold is finite. Remove those features (a label or a "
            "batch code among them?) or give values to the settings the inner "
            "cross-validation chooses")
    return max(1, infinite.size + 1, min(int(k), cap))


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
