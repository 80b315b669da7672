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
n x n Gram matrix, never p x p). Two samples are a *pair* when each is the other's nearest
sample and that correlation exceeds each one's second nearest by more than
:data:`PAIR_GAP`. Independent samples almost never form such pairs; replicates almost always
do. The check warns when the pairs hold at least :data:`PAIR_SHARE` of the samples (and at
least four).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ReplicateWarning", "replicate_pairs", "replicate_message", "PAIR_GAP",
           "PAIR_SHARE"]

#: How much more alike a pair must be than either member is to any other sample (correlation).
PAIR_GAP = 0.2
#: The share of samples in pairs at which ``fit`` warns.
PAIR_SHARE = 0.1


class ReplicateWarning(UserWarning):
    """Training samples come in pairs far more alike than any other samples (replicates,
    samples of one patient?), and ``fit`` was not given groups."""


def replicate_pairs(X, y_index, *, gap: float = PAIR_GAP) -> pd.DataFrame:
    """Pairs of training samples that are each other's nearest sample by a clear margin.

    Parameters
    ----------
    X : array-like of shape (n_samples, p)
        Training values (log scale for expression data), dense.
    y_index : array-like of int, shape (n_samples,)
        Class index of every sample (the profiles are centred on their class's means).
    gap : float, default :data:`PAIR_GAP`
        The margin: the pair's correlation minus each member's second-largest correlation.

    Returns
    -------
    pandas.DataFrame
        One row per pair, the most alike first: ``first``, ``second`` (row numbers,
        ``first < second``), ``correlation`` and ``margin`` (the smaller of the two members'
        margins).

    Raises
    ------
    ValueError
        If ``X`` is not two-dimensional with one row per label, or has fewer than 3 rows.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(size=(6, 200))
    >>> X = np.vstack([base, base[:2] + 0.3 * rng.normal(size=(2, 200))])  # rows 6, 7 copy 0, 1
    >>> replicate_pairs(X, np.array([0, 1, 0, 1, 0, 1, 0, 1]))[["first", "second"]].values.tolist()
    [[0, 6], [1, 7]]
    """
    X = np.asarray(X, dtype=np.float64)
    y_index = np.asarray(y_index)
    if X.ndim != 2 or X.shape[0] != y_index.shape[0]:
        raise ValueError(f"X must be 2-D with one row per label; got shape {X.shape} for "
                         f"{y_index.shape[0]} labels")
    n = X.shape[0]
    if n < 3:
        raise ValueError(f"pairs need at least 3 samples (a nearest and a second nearest); "
                         f"got {n}")
    from .._rounding import varies
    from ..preprocessing._decorrelation import pooled_within_residuals

    R = pooled_within_residuals(X, y_index, int(y_index.max()) + 1)   # centred on class means
    var = R.var(axis=0)
    keep = varies(var, X.mean(axis=0), n)          # the package's rule for a constant gene
    C = np.zeros((n, n))                           # no gene varies: nothing is alike
    if keep.any():
        Z = R[:, keep] / np.sqrt(var[keep])
        Z -= Z.mean(axis=1, keepdims=True)
        norm = np.linalg.norm(Z, axis=1)
        norm[norm == 0] = 1.0                      # a profile of zeros correlates 0
        Z /= norm[:, None]
        C = Z @ Z.T                                # n x n
    np.fill_diagonal(C, -np.inf)
    order = np.argsort(-C, axis=1, kind="stable")
    rows = np.arange(n)
    nearest, best, second = order[:, 0], C[rows, order[:, 0]], C[rows, order[:, 1]]
    margin = best - second
    pair = (nearest[nearest] == rows) & (margin > gap) & (margin[nearest] > gap)
    first = rows[pair & (rows < nearest)]
    out = pd.DataFrame({"first": first, "second": nearest[first],
                        "correlation": best[first],
                        "margin": np.minimum(margin[first], margin[nearest[first]])})
    return out.sort_values("correlation", ascending=False, kind="stable").reset_index(drop=True)


#: What ``fit`` advises (``replicate_message``'s default ``advice``).
FIT_ADVICE = ("The inner cross-validation takes every sample as independent, and where pairs "
              "like these are not, the fit is overconfident: pass the groups, "
              "fit(X, y, groups=...) (selbayes fit --groups FILE)")


def replicate_message(pairs: pd.DataFrame, n: int, case_names=None, *,
                      share: float = PAIR_SHARE, advice: str = FIT_ADVICE) -> str | None:
    """The warning ``fit`` gives for ``pairs`` (:func:`replicate_pairs`) among ``n`` training
    samples, or None where they hold fewer than ``share`` of the samples (or fewer than 4).

    Parameters
    ----------
    pairs : pandas.DataFrame
        From :func:`replicate_pairs`.
    n : int
        Training samples.
    case_names : sequence, optional
        Sample ids, to name the first pairs (row numbers otherwise).
    share : float, default :data:`PAIR_SHARE`
    advice : str
        The message's last sentence: what to do (``fit``'s by default).

    Returns
    -------
    str or None

    Examples
    --------
    >>> import pandas as pd
    >>> pairs = pd.DataFrame({"first": [0, 2], "second": [1, 3], "correlation": [0.9, 0.8],
    ...                       "margin": [0.5, 0.4]})
    >>> replicate_message(pairs, 41) is None, replicate_message(pairs, 20)[:20]
    (True, '4 of the 20 samples ')
    """
    in_pairs = 2 * len(pairs)
    if in_pairs < max(4, share * n):
        return None

    def name(i):
        return repr(str(case_names[i])) if case_names is not None else f"row {i}"

    shown = ", ".join(f"{name(a)} and {name(b)}" for a, b in
                      pairs[["first", "second"]].to_numpy()[:3])
    return (f"{in_pairs} of the {n} samples form {len(pairs)} pairs each far more "
            f"alike than either is to any other sample (e.g. {shown}; correlation of the "
            "class-centred profiles "
            f"{pairs['correlation'].min():.2f} to {pairs['correlation'].max():.2f}): are they "
            f"replicates, or samples of one patient? {advice}")
