"""The synthetic experiment of Foroughi pour & Dalton (their section 6 and Fig. 1).

Data: the "synergetic" variant of Hua et al. (2009), |F| = 20,000 features in 4 groups of
5,000; each group has 1 global marker block and 4 heterogeneous marker blocks of 5 correlated
features (rho = 0.8), 595 low-variance null blocks and 2,000 independent high-variance null
features. 100 markers in all, every one differing in mean between the classes.

Methods: MNC and CMNC (D = 100) OBF with the paper's proper prior (PP) and Jeffreys prior (JP,
L = 0.1), pi = 0.005, against top-100 Welch t, ANOVA F (``select_features``) and Bhattacharyya
distance filters. Score: the number of correctly labelled features out of 20,000.

The features are generated and filtered group by group (5,000 columns at a time) to bound
memory; since every method here is a univariate filter, the scores do not depend on this.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_random_state
from ._obf_model import OBFPrior, class_stats, obf_log_h_from_stats
from ._selection import f_statistic

__all__ = ["GROUP_VARIANCES", "N_FEATURES", "make_synergetic_group", "run_replicate", "METHODS"]

N_FEATURES = 20_000
GROUP_SIZE = 5_000
BLOCK = 5
RHO = 0.8
# (sigma_0i, sigma_1i) variances per group i (Hua et al. 2009)
GROUP_VARIANCES = ((0.16, 0.16), (0.49, 0.49), (0.09, 0.25), (0.49, 0.64))
MU1 = 1.0 / np.arange(1, BLOCK + 1)            # (1, 1/2, 1/3, 1/4, 1/5)
N_GLOBAL_BLOCKS, N_HET_BLOCKS, N_LV_BLOCKS, N_HV = 1, 4, 595, 2_000
N_MARKERS_PER_GROUP = BLOCK * (N_GLOBAL_BLOCKS + N_HET_BLOCKS)   # 25
METHODS = ("MNC-OBF-PP", "MNC-OBF-JP", "CMNC-OBF-PP", "CMNC-OBF-JP",
           "Welch t (top 100)", "F statistic (top 100)", "BD (top 100)")
D = 100
PI = 0.005


def _equicorrelated(rng, n, n_blocks):
    """(n, n_blocks, BLOCK) standard normals with correlation RHO within each block."""
    common = rng.standard_normal((n, n_blocks, 1))
    return math.sqrt(RHO) * common + math.sqrt(1.0 - RHO) * rng.standard_normal(
        (n, n_blocks, BLOCK))


def make_synergetic_group(n: int, group: int, random_state=None):
    """One group (5,000 features) of the synergetic model for n cases (n/2 per class).

    Parameters
    ----------
    n : int
        Even total sample size; rows 0..n/2-1 are class 0.
    group : int
        Group index i in 0..3 (selects the variances of ``GROUP_VARIANCES``).
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray of shape (n, 5000)
        Columns: 5 global markers, 20 heterogeneous markers, 2,975 low-variance nulls,
        2,000 high-variance nulls.
    y : ndarray of int, shape (n,)
    is_marker : ndarray of bool, shape (5000,)
    """
    rng = check_random_state(random_state)
    if n % 2 or n < 4:
        raise ValueError(f"n must be even and >= 4; got {n}")
    s0, s1 = GROUP_VARIANCES[group]
    sd = np.array([math.sqrt(s0), math.sqrt(s1)])
    h = n // 2
    y = np.repeat([0, 1], h)
    # class 1 splits into subclass 0 (ceil(h/2) cases, first) and subclass 1
    sub1 = np.zeros(n, dtype=bool)
    sub1[h + (h + 1) // 2:] = True
    sub0 = (y == 1) & ~sub1

    n_corr = N_GLOBAL_BLOCKS + N_HET_BLOCKS + N_LV_BLOCKS
    Z = _equicorrelated(rng, n, n_corr)
    # state 1 = (mu_1, sigma_1i), state 0 = (mu_0 = 0, sigma_0i), per row and block
    state = np.zeros((n, n_corr), dtype=np.int8)
    state[:, 0] = y                                   # global block
    state[:, 1:3] = sub1[:, None]                     # heterogeneous: subclass 1 differs
    state[:, 3:5] = sub0[:, None]                     # heterogeneous, swapped subclasses
    Z *= sd[state][..., None]
    Z += state[..., None] * MU1
    corr = Z.reshape(n, n_corr * BLOCK)

    # high-variance nulls: p N(0, sigma_0i) + (1 - p) N(1, sigma_1i), p ~ U(0, 1) per feature
    p_mix = rng.random(N_HV)
    comp = (rng.random((n, N_HV)) >= p_mix).astype(np.int8)
    hv = comp + sd[comp] * rng.standard_normal((n, N_HV))

    X = np.concatenate([corr, hv], axis=1)
    is_marker = np.zeros(GROUP_SIZE, dtype=bool)
    is_marker[:N_MARKERS_PER_GROUP] = True
    return X, y, is_marker


def _welch_abs_t(st):
    v0 = st.ss0 / (st.n0 - 1)
    v1 = st.ss1 / (st.n1 - 1)
    return np.abs(st.mean0 - st.mean1) / np.sqrt(v0 / st.n0 + v1 / st.n1)


def _bhattacharyya(st):
    v0 = st.ss0 / (st.n0 - 1)
    v1 = st.ss1 / (st.n1 - 1)
    return ((st.mean0 - st.mean1) ** 2 / (4.0 * (v0 + v1))
            + 0.5 * np.log((v0 + v1) / (2.0 * np.sqrt(v0 * v1))))


def _top(scores, k):
    keep = np.zeros(scores.shape[0], dtype=bool)
    keep[np.argsort(-scores, kind="stable")[:k]] = True
    return keep


def run_replicate(n: int, random_state=None, m1: float = 0.0) -> dict:
    """One replicate at sample size n: correctly labelled features (of 20,000) per method.

    Also returns ``"|MNC-OBF-PP|"`` and ``"|MNC-OBF-JP|"``, the sizes of the MNC sets.
    """
    rng = check_random_state(random_state)
    pp, jp = OBFPrior.paper_pp(m1=m1), OBFPrior.jeffreys(L=0.1)
    parts = {k: [] for k in ("pp", "jp", "t", "f", "bd", "truth")}
    for g in range(4):
        X, y, truth = make_synergetic_group(n, g, rng)
        st = class_stats(X, y)
        parts["pp"].append(obf_log_h_from_stats(st, pp, PI))
        parts["jp"].append(obf_log_h_from_stats(st, jp, PI))
        parts["t"].append(_welch_abs_t(st))
        parts["f"].append(f_statistic(X, y, 2))
        parts["bd"].append(_bhattacharyya(st))
        parts["truth"].append(truth)
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    truth = cat["truth"]
    chosen = {
        "MNC-OBF-PP": cat["pp"] > 0,
        "MNC-OBF-JP": cat["jp"] > 0,
        "CMNC-OBF-PP": _top(cat["pp"], D),
        "CMNC-OBF-JP": _top(cat["jp"], D),
        "Welch t (top 100)": _top(cat["t"], D),
        "F statistic (top 100)": _top(cat["f"], D),
        "BD (top 100)": _top(cat["bd"], D),
    }
    out = {name: int(np.sum(sel == truth)) for name, sel in chosen.items()}
    out["|MNC-OBF-PP|"] = int(chosen["MNC-OBF-PP"].sum())
    out["|MNC-OBF-JP|"] = int(chosen["MNC-OBF-JP"].sum())
    return out
