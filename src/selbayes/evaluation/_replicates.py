"""Training samples that look like replicates of each other (run by ``fit`` when no groups are
given).

Technical replicates, two preparations of one tumour or several samples of one patient are not
independent. A classifier's inner cross-validation that treats them as independent scores each
inner test sample with its twin among the inner training samples, which makes every candidate
look better than it is, most those that fit single samples closely, and the fitted classifier
overconfident. ``fit(X, y, groups=...)`` keeps each group in one inner fold; this check looks
for pairs that suggest the user has such groups and has not said so.

The statistic: each sample's profile with every gene centred on the sample's class mean and
scaled to unit standard deviation (so that the classes' own differences and a few genes of
large variance do not make samples alike), and the correlation of two samples' profiles (an
n x n Gram matrix, never p x p). Each sample takes the m of its nearest samples (m from 1 to
``max_size - 1``) after which its sorted correlations drop the most: that drop is its
*margin*, and it with those m its *set*. A *group* is a set that each of its members names as
its own, every member's margin above :data:`PAIR_GAP`: pairs of replicates, triplicates, the
samples of one patient. Independent samples almost never form one; replicates almost always
do (``reports/replicate_check/`` in the repository). The check warns when the groups hold at
least :data:`PAIR_SHARE` of the samples (and at least four).

What ``fit`` keeps whole (:func:`kept_groups`): by default (``groups="near_copies"``) the
groups whose members all correlate at :data:`NEAR_COPY` or more, near-copies such as
technical replicates of one RNA; with ``groups="auto"`` every group found.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ReplicateWarning", "replicate_groups", "replicate_labels", "replicate_message",
           "PAIR_GAP", "PAIR_SHARE", "MAX_GROUP_SIZE", "SPREAD_GAP", "NEAR_COPY"]

#: How much more alike a group must be than any member is to the next nearest sample
#: (correlation).
PAIR_GAP = 0.2
#: The share of samples in groups at which ``fit`` warns.
PAIR_SHARE = 0.1
#: The largest group looked for (samples).
MAX_GROUP_SIZE = 5
#: A margin also passes beyond this many standard deviations of the member's correlations
#: with the samples beyond its nearest; None (the default): :data:`PAIR_GAP` alone. 4 was
#: tried and not adopted (``reports/replicate_check/`` in the repository: more sensitive on
#: simulated genes, no gain on real expression data, whose correlations spread widely).
SPREAD_GAP: float | None = None
#: The correlation (a group's smallest between two members) from which ``fit`` keeps a group
#: found whole by default: near-copies. Chosen with a rule written before its run
#: (``reports/plasmode/near_copies_default/`` in the repository): chance pairs on subsets of
#: real expression sets correlate up to 0.77, two preparations of one tumour 0.36 to 0.63,
#: technical replicates 0.86 to 0.90; on new subsets it kept a group in 2 of 140.
NEAR_COPY = 0.8
#: What ``fit(X, y, groups=...)`` takes besides labels and None (:func:`kept_groups`).
GROUP_MODES = ("near_copies", "auto")

_COLUMNS = {"group": np.int64, "case": np.int64, "size": np.int64,
            "correlation": np.float64, "margin": np.float64}


class ReplicateWarning(UserWarning):
    """Training samples come in groups (pairs, triplets, ...) far more alike than any other
    samples (replicates, samples of one patient?), and ``fit`` was not given groups."""


def replicate_groups(X, y_index, *, gap: float = PAIR_GAP,
                     max_size: int = MAX_GROUP_SIZE,
                     spread_gap: float | None = SPREAD_GAP) -> pd.DataFrame:
    """Groups of training samples far more alike among themselves than any member is to any
    other sample (replicates?).

    Parameters
    ----------
    X : array-like of shape (n_samples, p)
        Training values (log scale for expression data), dense; a DataFrame's index names the
        samples (the ``sample`` column).
    y_index : array-like of int, shape (n_samples,)
        Class index of every sample (the profiles are centred on their class's means).
    gap : float, default :data:`PAIR_GAP`
        The margin every member needs: its correlation with the group's least alike other
        member minus its correlation with the nearest sample outside the group.
    max_size : int, default :data:`MAX_GROUP_SIZE`
        The largest group looked for (at least 2; 2 finds pairs only: two samples each the
        other's nearest by the margin).
    spread_gap : float or None, default :data:`SPREAD_GAP` (None)
        A margin also passes when it exceeds this many of the member's *spread*: the
        standard deviation of its correlations with the samples beyond its ``max_size``
        nearest (how far apart unrelated samples lie in these data). None: ``gap`` alone.

    Returns
    -------
    pandas.DataFrame
        One row per sample in a group, the most alike group first: ``group`` (0, 1, ...),
        ``case`` (row number), ``sample`` (its id, where ``X`` is a DataFrame: the columns
        of a fit's ``loo_checks_``), ``size`` (samples in its group), ``correlation`` (the
        smallest correlation between two members of the group) and ``margin`` (the smallest
        of its members' margins). No rows where nothing is found. Labels to pass as
        ``fit(X, y, groups=...)`` once the groups are confirmed: :func:`replicate_labels`
        (or ``groups="auto"``, which finds and passes them).

    Raises
    ------
    ValueError
        If ``X`` is not two-dimensional with one row per label, has fewer than 3 rows,
        ``max_size`` is not an integer of at least 2, or ``spread_gap`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(size=(6, 200))
    >>> noise = 0.3 * rng.normal(size=(3, 200))
    >>> X = np.vstack([base, base[[0, 0, 1]] + noise])   # rows 6, 7 copy 0; row 8 copies 1
    >>> found = replicate_groups(X, np.array([0, 1, 0, 1, 0, 1, 0, 0, 1]))
    >>> found.groupby("group")["case"].apply(list).tolist()
    [[1, 8], [0, 6, 7]]
    >>> replicate_labels(found, 9).tolist()     # each other sample alone
    [0, 1, 2, 3, 4, 5, 0, 0, 1]
    """
    ids = X.index if isinstance(X, pd.DataFrame) else None
    X = np.asarray(X, dtype=np.float64)
    y_index = np.asarray(y_index)
    if X.ndim != 2 or X.shape[0] != y_index.shape[0]:
        raise ValueError(f"X must be 2-D with one row per label; got shape {X.shape} for "
                         f"{y_index.shape[0]} labels")
    n = X.shape[0]
    if n < 3:
        raise ValueError(f"replicate groups need at least 3 samples (a group and a sample "
                         f"outside it); got {n}")
    if isinstance(max_size, bool) or not isinstance(max_size, int | np.integer) \
            or max_size < 2:
        raise ValueError(f"max_size must be an integer of at least 2; got {max_size!r}")
    if spread_gap is not None and not spread_gap > 0:
        raise ValueError(f"spread_gap must be positive or None; got {spread_gap!r}")
    C = _profile_correlations(X, y_index)
    np.fill_diagonal(C, -np.inf)
    # each sample's m nearest, m up to max_size - 1 and leaving one sample outside
    most = min(int(max_size) - 1, n - 2)
    order = np.argpartition(-C, most, axis=1)[:, : most + 1]    # the nearest, unordered
    top = np.take_along_axis(C, order, axis=1)
    rank = np.argsort(-top, axis=1, kind="stable")
    order = np.take_along_axis(order, rank, axis=1)
    top = np.take_along_axis(top, rank, axis=1)              # (n, most + 1), descending
    drops = top[:, :-1] - top[:, 1:]
    m = drops.argmax(axis=1) + 1                             # the first of equal drops
    margin = drops[np.arange(n), m - 1]
    passes = margin > gap
    if spread_gap is not None and n - 1 - (most + 1) >= 2:
        # the spread of each sample's correlations beyond its nearest: sum and sum of squares
        # of all its correlations minus those of the nearest (no second sort)
        others = np.where(np.isfinite(C), C, 0.0)
        count = n - 1 - (most + 1)
        total = others.sum(axis=1) - top.sum(axis=1)
        squares = (others ** 2).sum(axis=1) - (top ** 2).sum(axis=1)
        spread = np.sqrt(np.maximum(squares / count - (total / count) ** 2, 0.0)
                         * count / (count - 1))
        passes |= margin > spread_gap * spread
    sets = [frozenset((i, *order[i, : m[i]].tolist())) for i in range(n)]
    found = []
    for i, own in enumerate(sets):                           # n samples, each set once
        members = sorted(own)
        if members[0] != i or any(sets[j] != own for j in members[1:]):
            continue
        if passes[members].all():
            within = C[np.ix_(members, members)][np.triu_indices(len(members), 1)]
            found.append((within.min(), margin[members].min(), members))
    found.sort(key=lambda g: -g[0])
    table = _table([(g, j, len(members), corr, marg)
                    for g, (corr, marg, members) in enumerate(found) for j in members])
    return table if ids is None else with_sample_ids(table, ids)


def with_sample_ids(found: pd.DataFrame, ids) -> pd.DataFrame:
    """``found`` (:func:`replicate_groups`) with a ``sample`` column after ``case``: the id
    ``ids[case]`` of each row's sample, as the other per-case tables of a fit name them."""
    out = found.drop(columns="sample", errors="ignore")
    out.insert(out.columns.get_loc("case") + 1, "sample",
               np.asarray(ids, dtype=object)[out["case"].to_numpy(dtype=np.int64)])
    return out


def _table(rows) -> pd.DataFrame:
    """The groups' table (:func:`replicate_groups`) of ``rows``, typed even when empty."""
    return pd.DataFrame(rows, columns=list(_COLUMNS)).astype(_COLUMNS)


def replicate_labels(found: pd.DataFrame, n: int) -> np.ndarray:
    """Group codes for ``fit(X, y, groups=...)`` from the groups ``found``: the samples of each
    group one code, every other sample a code of its own (what ``groups="auto"`` passes).

    Parameters
    ----------
    found : pandas.DataFrame
        From :func:`replicate_groups` (``group`` and ``case`` columns).
    n : int
        Samples.

    Returns
    -------
    ndarray of int, shape (n,)
        Codes 0, 1, ..., in the order of each group's first sample.

    Raises
    ------
    ValueError
        If a sample number in ``found`` is not below ``n``.

    Examples
    --------
    >>> import pandas as pd
    >>> found = pd.DataFrame({"group": [0, 0, 1, 1, 1], "case": [4, 1, 0, 2, 5]})
    >>> replicate_labels(found, 6).tolist()
    [0, 1, 0, 2, 1, 0]
    """
    # "sample" held the row numbers in the tables of fits saved before 2026-12-06
    samples = np.asarray(found["case" if "case" in found else "sample"], dtype=np.int64)
    if samples.size and (samples.min() < 0 or samples.max() >= n):
        raise ValueError(f"sample numbers must lie in [0, {n}); got {samples.min()} to "
                         f"{samples.max()}")
    codes = np.arange(n)
    codes[samples] = n + np.asarray(found["group"], dtype=np.int64)
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse]


def group_mode(groups):
    """``fit``'s ``groups`` split into a mode of :data:`GROUP_MODES` (or None) and labels (or
    None), an unknown string named before any work."""
    if isinstance(groups, str):
        if groups not in GROUP_MODES:
            raise ValueError(f"groups must be one label per case, 'near_copies', 'auto' or "
                             f"None; got {groups!r}")
        return groups, None
    return None, groups


def kept_groups(X, y_index, mode) -> tuple[pd.DataFrame | None, np.ndarray | None]:
    """The groups ``fit`` looks for and those it keeps whole: :func:`replicate_groups` of a
    training set with a ``kept`` column, True for every group with ``mode="auto"``, for the
    near-copies (each member correlating at :data:`NEAR_COPY` or more) with
    ``"near_copies"``, for none with None (looked for to warn); and the kept groups'
    :func:`replicate_labels` (None where none is kept). Fewer than 3 samples: nothing found.
    Sparse X: refused with ``"auto"``, not looked in otherwise (None, None)."""
    if hasattr(X, "toarray"):              # the check reads dense values (n x p)
        if mode == "auto":
            raise ValueError("groups='auto' looks for replicates in the values of dense X; "
                             "for sparse X give the groups")
        return None, None
    X = np.asarray(X)
    found = replicate_groups(X, y_index) if X.shape[0] >= 3 else _table([])
    if mode == "near_copies":
        keep = found["correlation"].to_numpy() >= NEAR_COPY
    else:
        keep = np.full(len(found), mode == "auto")
    found = found.assign(kept=keep)
    kept = found[keep]
    return found, (replicate_labels(kept, X.shape[0]) if len(kept) else None)


def _profile_correlations(X: np.ndarray, y_index: np.ndarray) -> np.ndarray:
    """The n x n correlations of the samples' class-centred, gene-scaled profiles (zeros
    where no gene varies)."""
    from .._rounding import varies
    from ..preprocessing._decorrelation import pooled_within_residuals

    n = X.shape[0]
    R = pooled_within_residuals(X, y_index, int(y_index.max()) + 1)   # centred on class means
    var = R.var(axis=0)
    keep = varies(var, X.mean(axis=0), n)          # the package's rule for a constant gene
    if not keep.any():
        return np.zeros((n, n))                    # no gene varies: nothing is alike
    Z = R[:, keep] / np.sqrt(var[keep])
    Z -= Z.mean(axis=1, keepdims=True)
    norm = np.linalg.norm(Z, axis=1)
    norm[norm == 0] = 1.0                          # a profile of zeros correlates 0
    Z /= norm[:, None]
    return Z @ Z.T                                 # n x n


#: What ``fit`` advises (``replicate_message``'s default ``advice``).
FIT_ADVICE = ("The inner cross-validation took these samples as independent (the default "
              f"keeps only near-copies whole, correlation {NEAR_COPY:g} or more; groups=None "
              "none), and where they are not, the fit is overconfident: pass the groups, "
              "fit(X, y, groups=...) (selbayes fit --groups FILE), or groups='auto' (--groups "
              "auto) to keep every group found here whole")


def replicate_message(found: pd.DataFrame, n: int, case_names=None, *,
                      share: float = PAIR_SHARE, advice: str = FIT_ADVICE) -> str | None:
    """The warning ``fit`` gives for the groups ``found`` (:func:`replicate_groups`) among
    ``n`` training samples, or None where they hold fewer than ``share`` of the samples (or
    fewer than 4).

    Parameters
    ----------
    found : pandas.DataFrame
        From :func:`replicate_groups`.
    n : int
        Training samples.
    case_names : sequence, optional
        Sample ids, to name the first groups (row numbers otherwise).
    share : float, default :data:`PAIR_SHARE`
    advice : str
        The message's last sentence: what to do (``fit``'s by default).

    Returns
    -------
    str or None

    Examples
    --------
    >>> import pandas as pd
    >>> found = pd.DataFrame({"group": [0, 0, 1, 1], "case": [0, 1, 2, 3],
    ...                       "size": 2, "correlation": [0.9, 0.9, 0.8, 0.8], "margin": 0.4})
    >>> replicate_message(found, 41) is None, replicate_message(found, 20)[:40]
    (True, '4 of the 20 samples form 2 pairs each fa')
    """
    in_groups = len(found)
    if in_groups < max(4, share * n):
        return None

    def name(i):
        return repr(str(case_names[i])) if case_names is not None else f"row {i}"

    members = found.groupby("group", sort=True)["case"].apply(list)
    shown = "; ".join(", ".join(map(name, g[:-1])) + f" and {name(g[-1])}"
                      for g in members.iloc[:3])
    sizes = found.drop_duplicates("group")["size"]
    span = f"{sizes.min()}" if sizes.min() == sizes.max() else f"{sizes.min()} to {sizes.max()}"
    what = (f"{len(members)} pairs each" if sizes.max() == 2 else
            f"{len(members)} groups of {span} samples, each group")
    return (f"{in_groups} of the {n} samples form {what} far more alike than any member is "
            f"to any other sample (e.g. {shown}; correlation of the class-centred profiles "
            f"{found['correlation'].min():.2f} to {found['correlation'].max():.2f}): are they "
            f"replicates, or samples of one patient? {advice}")
