"""Decision-theoretic quantities of the independent OBF model (Foroughi pour & Dalton, section 3).

In the independent model p(G | S) = prod_{g in G} pi*(g) prod_{b not in G} (1 - pi*(b)) (eq 2.15),
so every rule reduces to ranking or thresholding pi*(f). Everything here takes
``log_h = logit pi*`` (shape (p,)) rather than pi*, because pi* rounds to 1.0 once
log h > ~37 while log h keeps its full resolution; 1 - pi* is computed as expit(-log h).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit

__all__ = [
    "rank_desc",
    "np_count",
    "mr_threshold",
    "expected_roc",
    "log_set_posterior",
    "expected_loss",
]


def rank_desc(scores: np.ndarray) -> np.ndarray:
    """All indices ordered by score, largest first, ties by lowest index (stable)."""
    return np.lexsort((np.arange(scores.shape[0]), -scores))


def np_count(log_h: np.ndarray, alpha: float) -> int:
    """Size of the Neyman-Pearson set (eq 3.12-3.13).

    Features are added in decreasing order of pi* while the expected number of false
    positives, sum over selected of (1 - pi*), stays <= ``alpha``. Since 1 - pi* increases along
    the order, the admissible sets are exactly the prefixes, and the largest one is returned.
    """
    order = rank_desc(log_h)
    fp = np.cumsum(expit(-log_h[order]))
    return int(np.searchsorted(fp, alpha, side="right"))


def mr_threshold(lam_GG: float = 0.0, lam_GB: float = 1.0, lam_BG: float = 1.0,
                 lam_BB: float = 0.0) -> float:
    """Posterior threshold T of the minimum-risk rule (eq 3.8): select pi*(f) > T.

    T = (lam_GB - lam_BB) / (lam_GB + lam_BG - lam_GG - lam_BB). ``lam_XY`` is the loss of
    labelling a feature X (selected: G, omitted: B) when it is truly Y. The default 0-1 loss
    gives T = 0.5 (MNC). Requires lam_GB > lam_BB and lam_BG > lam_GG.
    """
    if not (lam_GB > lam_BB and lam_BG > lam_GG):
        raise ValueError(
            "losses must satisfy lam_GB > lam_BB and lam_BG > lam_GG; got "
            f"lam_GG={lam_GG}, lam_GB={lam_GB}, lam_BG={lam_BG}, lam_BB={lam_BB}"
        )
    return float((lam_GB - lam_BB) / (lam_GB + lam_BG - lam_GG - lam_BB))


def expected_roc(log_h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The expected-count "ROC" curve (eq 3.14).

    Returns
    -------
    expected_fp, expected_tp : ndarray of shape (p + 1,)
        For k = 0..p, the posterior expected numbers of false and true positives when the k
        features with the largest pi* are selected. MR, CMNC and NP all trace this curve.
    """
    order = rank_desc(log_h)
    fp = np.concatenate([[0.0], np.cumsum(expit(-log_h[order]))])
    tp = np.concatenate([[0.0], np.cumsum(expit(log_h[order]))])
    return fp, tp


def _check_mask(mask, p: int) -> np.ndarray:
    mask = np.asarray(mask)
    if mask.size == 0 and mask.ndim == 1:
        mask = np.zeros(0, dtype=np.int64)          # [] is float to NumPy: the empty set
    if mask.dtype != bool:
        if mask.dtype.kind not in "iu" or mask.ndim != 1 or np.any(mask < 0) \
                or np.any(mask >= p):
            raise ValueError(f"selected must be a boolean mask of length {p} or integer "
                             f"indices in 0..{p - 1}; got {_shown(mask)}")
        idx = mask.astype(np.int64)
        if np.unique(idx).size != idx.size:
            # a 0/1 integer mask read as indices would select features 0 and 1 alone
            raise ValueError(
                "selected holds repeated indices; a mask must be boolean (for example "
                "np.asarray(mask, dtype=bool)), indices each given once")
        mask = np.zeros(p, dtype=bool)
        mask[idx] = True
    if mask.shape != (p,):
        raise ValueError(f"selected mask must have shape ({p},); got {mask.shape}")
    return mask


def _shown(values) -> str:
    text = np.array2string(np.asarray(values), threshold=6)
    return f"{np.asarray(values).dtype} {text}"


def log_set_posterior(log_h: np.ndarray, selected) -> float:
    """log p(G | S) of the feature set G (eq 2.15); ``selected`` is a mask or indices."""
    mask = _check_mask(selected, log_h.shape[0])
    return float(log_expit(log_h[mask]).sum() + log_expit(-log_h[~mask]).sum())


def expected_loss(log_h: np.ndarray, selected, lam_GG: float = 0.0, lam_GB: float = 1.0,
                  lam_BG: float = 1.0, lam_BB: float = 0.0) -> float:
    """Posterior expected loss E[l(G, Gbar) | S] of a selection G (eq 3.3, 3.5-3.7).

    ``lam_XY`` is the loss per feature labelled X (G: selected, B: omitted) that is truly Y.
    The defaults count misclassified features, so the result is the expected number of errors.
    """
    mask = _check_mask(selected, log_h.shape[0])
    post = expit(log_h)
    comp = expit(-log_h)
    return float(lam_GG * post[mask].sum() + lam_GB * comp[mask].sum()
                 + lam_BG * post[~mask].sum() + lam_BB * comp[~mask].sum())
