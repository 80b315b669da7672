"""Correlated omitted features: what the exponent p - k does, and an effective number instead.

The selection-corrected posterior of the hierarchical Gaussian classifier (Li 2009) multiplies
the likelihood of the k kept features by P(F <= gamma | tau_mu w_x)^(p - k): the probability
that every omitted feature's F statistic stays below the selection threshold gamma, written as
a product, i.e. as if the p - k omitted features were independent given the hyperparameters.
Expression data have correlated genes. This experiment measures what the product does then,
by simulation-based calibration (SBC; Talts et al. 2018) under the model's own prior with one
change: the noise of the features is correlated in blocks.

Design of one replicate
-----------------------
1. Draw tau_mu, tau_nu, tau_x (p,), nu (p,) and the class means mu (p, G) from the fitting
   prior exactly as :class:`selbayes.sbc.GaussianSBCSimulator` does (the t prior
   also draws lambda_j per feature); the class means are independent across features.
2. Noise: features are cut into consecutive blocks of ``block`` features; within a block the
   standardised noise is equicorrelated with correlation ``rho`` (a shared normal factor of
   weight sqrt(rho) per case and block plus an own one of weight sqrt(1 - rho)), scaled by
   1/sqrt(tau_x_j). ``block = 1`` or ``rho = 0`` is the model itself.
3. Keep the k features with the largest F; fit the corrected model twice to the same data:
   with the exponent p - k (``indep``) and with an effective number ``m_eff`` of the omitted
   features (``meff``, see :func:`effective_number`). The exponent is the ``n_omitted`` value
   of :func:`selbayes.models.model_data` (a ``pm.Data`` of the compiled model), so it
   is set from outside without changing the model.
4. Rank the true tau_mu and tau_nu among thinned posterior draws.

If the exponent is right the ranks are uniform. A mean fractional rank below 1/2 means the
posterior of tau_mu sits above the truth: too much shrinkage of the class means (the factor
over-counts the evidence that the omitted features carry no signal).

Effective number
----------------
From the sample correlation matrix R (m x m) of the omitted features' within-class residuals,
computed through the n x n Gram matrix of the standardised residuals (R and that Gram matrix
have the same non-zero eigenvalues, and ||R||_F = ||Gram||_F), never m x m:

``bretherton`` (default)
    m_eff = (sum lambda)^2 / sum lambda^2 = m^2 / ||R||_F^2 (Bretherton et al. 1999), with
    each squared correlation replaced by the estimate 1 - (1 - r^2) d / (d - 1), d = n - G,
    which is unbiased for rho^2 = 0 (E r^2 = 1/d for independent residuals) and exact at
    r^2 = 1. Without it, sampling noise alone (n << m) would give m_eff of about d m/(d + m).
``nyholt``
    1 + (m - 1)(1 - Var(lambda) / m) (Nyholt 2004), with the same bias-corrected ||R||_F^2.
``li_ji``
    sum_i f(lambda_i), f(x) = 1[x >= 1] + (x - floor x) (Li & Ji 2005) on the non-zero
    eigenvalues. Reported only: with n < m there are at most n - G of them, so it is bounded
    by about 2(n - G) whatever the correlation is.

Exact exponent
--------------
:func:`block_exponent` computes by Monte Carlo what one block should contribute to the exact
factor, P(max_j F_j <= gamma | tau_mu) over the block, as a share of the independent product.
It lies between the noise-only effective share and 1 and depends on tau_mu: the class means are
independent across features, so where they dominate the noise the F statistics decorrelate.

Run: ``python -m selbayes.experiments.correlated_omitted --out DIR --replicates R
--random-state S`` (resumes from ``DIR/replicates.csv``; one process).

References
----------
Li, L. (2009). Calibrating predictions based on a selected subset of features from Bayesian
Gaussian classification models.
Talts, S., Betancourt, M., Simpson, D., Vehtari, A. & Gelman, A. (2018). Validating Bayesian
inference algorithms with simulation-based calibration. arXiv:1804.06788.
Bretherton, C. S., Widmann, M., Dymnikov, V. P., Wallace, J. M. & Blade, I. (1999). The
effective number of spatial degrees of freedom of a time-varying field. J. Climate 12:1990-2009.
Nyholt, D. R. (2004). A simple correction for multiple testing for single-nucleotide
polymorphisms in linkage disequilibrium with each other. Am. J. Hum. Genet. 74:765-769.
Li, J. & Ji, L. (2005). Adjusting multiple testing in multilocus analyses using the eigenvalues
of a correlation matrix. Heredity 95:221-227.
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .._validation import make_folder

__all__ = ["effective_number", "omitted_correlation_moments", "CorrelatedGaussianSimulator",
           "block_exponent", "exact_exponent_table", "Cell", "run_cell", "run_experiment",
           "summarise", "write_report", "main", "DESIGNS", "PRIORS"]

#: The paper's fitting priors (Li 2009 section 4.1), as in models/sbc/sbc_gaussian_small.toml;
#: "t" adds the multivariate-t class means of models/sbc/sbc_gaussian_t.toml.
PRIORS = {
    "t": {"c": 1.0, "alpha_x": 4.0, "w_x": 1.0, "alpha_mu": 1.5, "w_mu": 0.01,
          "alpha_nu": 1.5, "w_nu": 0.01, "mu_t_df": 2.0},
    "normal": {"c": 1.0, "alpha_x": 4.0, "w_x": 1.0, "alpha_mu": 1.5, "w_mu": 0.01,
               "alpha_nu": 1.5, "w_nu": 0.01},
}

#: (block size, within-block noise correlation): the independent model, then moderate and
#: strong correlation in small and larger blocks.
DESIGNS = ((1, 0.0), (5, 0.5), (5, 0.9), (20, 0.5), (20, 0.9))

#: Stable ids of the priors in the replicate seeds.
PRIOR_IDS = {"t": 1, "normal": 2}

EXPONENTS = ("indep", "meff")
PARAMS = ("tau_mu", "tau_nu")
METHODS = ("bretherton", "nyholt", "li_ji")


# ---------------------------------------------------------------------------- effective number
def _residual_gram(X, y):
    """Standardised within-class residuals Z (n, m) -> their n x n Gram matrix Z Z' and d."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] < 1:
        raise ValueError(f"X must be a 2-D array with at least one column; got shape "
                         f"{X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X has non-finite values")
    n = X.shape[0]
    if y is None:
        codes = np.zeros(n, dtype=np.int64)
    else:
        y = np.asarray(y)
        if y.shape != (n,):
            raise ValueError(f"y must have shape ({n},) like X's rows; got {y.shape}")
        codes = np.unique(y, return_inverse=True)[1]
    G = int(codes.max()) + 1
    d = n - G
    if d < 3:
        raise ValueError(f"need n - G >= 3 residual degrees of freedom; got n = {n}, G = {G}")
    counts = np.bincount(codes, minlength=G)
    means = np.zeros((G, X.shape[1]))
    np.add.at(means, codes, X)
    # residuals from the class means: the F statistic's noise, without the class effects
    resid = X - (means / counts[:, None])[codes]
    norm = np.sqrt(np.einsum("ij,ij->j", resid, resid))
    scale = np.max(np.abs(X), axis=0)
    if np.any(norm <= 1e-12 * np.maximum(scale, 1e-300) * np.sqrt(n)):
        raise ValueError("a column has no within-class variation; its correlation is undefined")
    Z = resid / norm
    return Z @ Z.T, d


def omitted_correlation_moments(X, y=None) -> dict:
    """Trace, squared Frobenius norm and non-zero eigenvalues of the within-class correlation.

    R = Z'Z is the m x m sample correlation of the within-class residuals of ``X``; it is
    never formed: Z Z' (n x n) has the same non-zero eigenvalues and the same Frobenius norm.

    Parameters
    ----------
    X : array-like of shape (n, m)
        The features (here: the omitted ones), cases in rows.
    y : array-like of shape (n,), optional
        Class labels; residuals are taken from the class means (from the overall mean when
        ``None``).

    Returns
    -------
    dict
        ``m`` (int, trace of R), ``frob2`` (||R||_F^2 = sum lambda^2), ``frob2_adj`` (the
        bias-corrected estimate of sum rho_ij^2 over all i, j, at least m), ``eigenvalues``
        (non-zero eigenvalues of R, descending, at most n - G) and ``df`` (d = n - G).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, has non-finite values or a column without within-class
        variation, ``y`` has the wrong length, or n - G < 3.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 100))
    >>> mom = omitted_correlation_moments(X)
    >>> mom["m"], mom["eigenvalues"].shape, bool(abs(mom["frob2_adj"] / 100 - 1) < 0.2)
    (100, (29,), True)
    """
    K, d = _residual_gram(X, y)
    m = np.asarray(X).shape[1]
    frob2 = float(np.sum(K * K))
    # E r^2 = 1/d for independent residuals (isotropic in d dimensions): the estimate
    # 1 - (1 - r^2) d/(d - 1) of rho^2 is unbiased there, 1 at r = 1, and linear in r^2, so its
    # sum over the m(m - 1) off-diagonal pairs needs only sum r^2 = frob2 - m.
    pairs = m * (m - 1.0)
    off_adj = pairs - (pairs - (frob2 - m)) * d / (d - 1.0)
    eig = np.linalg.eigvalsh(K)[::-1]
    eig = eig[eig > 1e-10 * max(eig[0], 1.0)]
    return {"m": m, "frob2": frob2, "frob2_adj": m + max(off_adj, 0.0), "eigenvalues": eig,
            "df": d}


def effective_number(X, y=None, method: str = "bretherton", bias_correct: bool = True) -> float:
    """Effective number of independent features among the columns of ``X``.

    Parameters
    ----------
    X : array-like of shape (n, m)
        Features in columns (the omitted ones: m = p - k).
    y : array-like of shape (n,), optional
        Class labels: correlations are those of the within-class residuals, the noise that
        the F statistics share.
    method : {"bretherton", "nyholt", "li_ji"}
        Estimator (module docstring): m^2 / ||R||_F^2, Nyholt's 1 + (m - 1)(1 - Var/m), or
        Li and Ji's eigenvalue count (bounded by about 2(n - G) when n < m).
    bias_correct : bool
        Replace ||R||_F^2 by its estimate with each rho_ij^2 estimated without the 1/(n - G)
        sampling bias of r_ij^2 (``bretherton`` and ``nyholt``; ignored by ``li_ji``).

    Returns
    -------
    float
        In [1, m].

    Raises
    ------
    ValueError
        If ``method`` is unknown or ``X``/``y`` are malformed (see
        :func:`omitted_correlation_moments`).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(40, 200))
    >>> bool(abs(effective_number(X) / 200 - 1) < 0.15)
    True
    >>> shared = np.repeat(rng.normal(size=(40, 10)), 20, axis=1)    # 10 blocks, rho = 1
    >>> round(effective_number(shared + 1e-3 * X))   # +- 0.5: 45 block pairs of noise
    10
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    mom = omitted_correlation_moments(X, y)
    m = mom["m"]
    if method == "li_ji":
        lam = mom["eigenvalues"]
        return float(np.clip(np.sum((lam >= 1.0) + (lam - np.floor(lam))), 1.0, m))
    frob2 = mom["frob2_adj"] if bias_correct else mom["frob2"]
    if method == "bretherton":
        return float(np.clip(m * m / frob2, 1.0, m))
    # Nyholt: eigenvalues have mean 1; their sample variance is (sum lambda^2 - m) / (m - 1)
    var = (frob2 - m) / max(m - 1, 1)
    return float(np.clip(1.0 + (m - 1) * (1.0 - var / m), 1.0, m))


# ---------------------------------------------------------------------------- simulation
@dataclass(frozen=True)
class CorrelatedGaussianSimulator:
    """The hierarchical Gaussian model's prior with block-equicorrelated noise.

    Hyperparameters, nu, lambda (t prior) and the class means are drawn from the fitting prior
    as in :class:`selbayes.sbc.GaussianSBCSimulator`; the noise of feature j is
    (sqrt(rho) a_{i,b(j)} + sqrt(1 - rho) e_ij) / sqrt(tau_x_j) with a, e standard normal and
    b(j) = j // block, so features of one block share noise with correlation rho.

    Attributes
    ----------
    n, p, n_classes : int
        Cases (balanced classes, the remainder to the first classes), features, classes G.
    block : int
        Features per block (the last block may be shorter); 1 means independent features.
    rho : float
        Within-block noise correlation, in [0, 1].
    priors : dict
        Settings for :meth:`selbayes.models.GaussianPriors.from_dict` (a w_x hyperprior
        or the two-groups prior are not simulated here and are refused).

    Examples
    --------
    >>> import numpy as np
    >>> sim = CorrelatedGaussianSimulator(n=12, p=30, n_classes=3, block=5, rho=0.5)
    >>> (X, y), truth = sim(np.random.default_rng(0))
    >>> X.shape, np.bincount(y).tolist(), sorted(truth)
    ((12, 30), [4, 4, 4], ['tau_mu', 'tau_nu'])
    """

    n: int = 40
    p: int = 200
    n_classes: int = 3
    block: int = 1
    rho: float = 0.0
    priors: dict = field(default_factory=dict)

    def __post_init__(self):
        if not 0.0 <= self.rho <= 1.0:
            raise ValueError(f"rho must be in [0, 1]; got {self.rho}")
        if self.block < 1 or self.block > self.p:
            raise ValueError(f"block must be in 1..p = {self.p}; got {self.block}")
        if self.n_classes < 2 or self.n < 2 * self.n_classes:
            raise ValueError(f"need n_classes >= 2 and n >= 2 n_classes; got n = {self.n}, "
                             f"n_classes = {self.n_classes}")

    def __call__(self, rng: np.random.Generator):
        from ..models._priors import GaussianPriors

        pr = GaussianPriors.from_dict(dict(self.priors))
        if pr.two_groups or pr.w_x_alpha is not None:
            raise ValueError("the two-groups prior and the w_x hyperprior are not simulated here")
        G, p, n = self.n_classes, self.p, self.n
        counts = np.full(G, n // G)
        counts[: n - counts.sum()] += 1
        y = rng.permutation(np.repeat(np.arange(G), counts))
        # Gamma(a, rate b) is numpy's gamma(a, scale 1/b)
        tau_mu = rng.gamma(pr.alpha_mu / 2, 2 / (pr.alpha_mu * pr.w_mu))
        tau_nu = rng.gamma(pr.alpha_nu / 2, 2 / (pr.alpha_nu * pr.w_nu))
        tau_x = rng.gamma(pr.alpha_x / 2, 2 / (pr.alpha_x * pr.w_x), size=p)
        lam = (np.ones(p) if pr.mu_t_df is None
               else rng.gamma(pr.mu_t_df / 2, 2 / pr.mu_t_df, size=p))
        nu = rng.standard_normal(p) / np.sqrt(tau_nu)
        mu = nu[:, None] + rng.standard_normal((p, G)) / np.sqrt(tau_mu * lam)[:, None]
        n_blocks = -(-p // self.block)
        shared = rng.standard_normal((n, n_blocks))
        own = rng.standard_normal((n, p))
        noise = (np.sqrt(self.rho) * np.repeat(shared, self.block, axis=1)[:, :p]
                 + np.sqrt(1.0 - self.rho) * own)
        X = mu[:, y].T + noise / np.sqrt(tau_x)
        return (X, y), {"tau_mu": float(tau_mu), "tau_nu": float(tau_nu)}


# ---------------------------------------------------------------------------- exact exponent
def block_exponent(tau_mu: float, gamma: float | None, block: int, rho: float, *,
                   n: int = 40, n_classes: int = 3, priors: dict | None = None,
                   n_blocks: int = 20_000, tail: float = 0.025, random_state: int = 0) -> dict:
    """Monte Carlo: how many independent features one correlated block is worth in the factor.

    For one block of ``block`` features with noise correlation ``rho`` (everything else drawn
    from the prior given ``tau_mu`` as in :class:`CorrelatedGaussianSimulator`), the exact
    factor of the block is P(max_j F_j <= gamma | tau_mu); the independence assumption uses
    P(F <= gamma | tau_mu)^block. The ratio of their logarithms per feature,
    ``log P(max F <= gamma) / (block log P(F <= gamma))``, is the exponent each omitted
    feature should get (1: independent; 1/block: the block is one feature). A single
    effective number can only be right if this ratio does not depend on tau_mu.

    Parameters
    ----------
    tau_mu : float
        Precision of the class means (w_x as in ``priors``).
    gamma : float or None
        Selection threshold of the F statistic, > 0; ``None``: the simulated (1 - ``tail``)
        quantile of a single feature's F given tau_mu (about the k-th largest F of p
        features when tail = k/p), so that P(F <= gamma) is about 1 - tail whatever tau_mu is.
    block : int
        Features in the block.
    rho : float
        Within-block noise correlation in [0, 1].
    n, n_classes : int
        Balanced design (remainder to the first classes).
    priors : dict, optional
        Fitting-prior settings (default: the ``"t"`` entry of :data:`PRIORS`).
    n_blocks : int
        Monte Carlo blocks (the standard errors are returned).
    tail : float
        See ``gamma``; in (0, 1).
    random_state : int
        Seed.

    Returns
    -------
    dict
        ``log_p_single`` (log P(F <= gamma)), ``log_p_block`` (log P(max F <= gamma)),
        ``per_feature`` (the ratio above), ``per_feature_se`` (delta method) and ``gamma``.

    Raises
    ------
    ValueError
        If ``gamma`` is given and <= 0, ``tau_mu`` <= 0 or ``tail`` is outside (0, 1); or
        if the Monte Carlo has no block with every F below gamma or no single F on one side
        of it (P(max F <= gamma) = 0, P(F <= gamma) in {0, 1}), so that the log ratio is
        undefined: raise ``n_blocks`` or choose another ``gamma``.

    Examples
    --------
    >>> r = block_exponent(100.0, 4.0, 5, 0.0, n_blocks=4000)
    >>> bool(abs(r["per_feature"] - 1) < 4 * r["per_feature_se"] + 0.02)
    True
    """
    from ..models._priors import GaussianPriors

    if (gamma is not None and gamma <= 0) or tau_mu <= 0 or not 0 < tail < 1:
        raise ValueError(f"gamma and tau_mu must be > 0 and tail in (0, 1); got {gamma}, "
                         f"{tau_mu}, {tail}")
    pr = GaussianPriors.from_dict(dict(priors if priors is not None else PRIORS["t"]))
    rng = np.random.default_rng(random_state)
    G = n_classes
    counts = np.full(G, n // G)
    counts[: n - counts.sum()] += 1
    y = np.repeat(np.arange(G), counts)
    onehot = (y[:, None] == np.arange(G)).astype(np.float64) / counts          # (n, G)
    fs = []
    chunk = max(1, 2_000_000 // (n * block))
    left = n_blocks
    while left > 0:
        m = min(chunk, left)
        left -= m
        tau_x = rng.gamma(pr.alpha_x / 2, 2 / (pr.alpha_x * pr.w_x), size=(m, 1, block))
        lam = (np.ones((m, 1, block)) if pr.mu_t_df is None
               else rng.gamma(pr.mu_t_df / 2, 2 / pr.mu_t_df, size=(m, 1, block)))
        # nu_j shifts every class alike and drops out of F; only mu - nu matters
        mu = rng.standard_normal((m, G, block)) / np.sqrt(tau_mu * lam)
        noise = (np.sqrt(rho) * rng.standard_normal((m, n, 1))
                 + np.sqrt(1 - rho) * rng.standard_normal((m, n, block)))
        X = mu[:, y, :] + noise / np.sqrt(tau_x)                                # (m, n, b)
        xbar_g = np.einsum("ng,mnb->mgb", onehot, X)
        grand = X.mean(axis=1, keepdims=True)
        ssb = np.einsum("g,mgb->mb", counts, (xbar_g - grand) ** 2)
        ssw = np.sum((X - xbar_g[:, y, :]) ** 2, axis=1)
        fs.append((ssb / (G - 1)) / (ssw / (n - G)))
    F = np.concatenate(fs)                                                  # (n_blocks, b)
    if gamma is None:
        gamma = float(np.quantile(F, 1 - tail))
    below = F <= gamma
    a = below.all(axis=1)
    e = below.ravel()
    pa, pe = a.mean(), e.mean()
    if pa <= 0 or pe >= 1 or pe <= 0:
        raise ValueError(f"too few Monte Carlo blocks for tau_mu = {tau_mu}, gamma = {gamma}: "
                         f"P(all below) = {pa}, P(below) = {pe}")
    ratio = np.log(pa) / (block * np.log(pe))
    # delta method; the per-feature indicators of one block are dependent, so their variance
    # is taken from the block sums
    var_log_pa = (1 - pa) / (pa * len(a))
    sums = e.reshape(len(a), block).sum(axis=1)
    var_log_pe = sums.var() / (block**2 * len(a)) / pe**2
    se = abs(ratio) * np.sqrt(var_log_pa / np.log(pa) ** 2 + var_log_pe / np.log(pe) ** 2)
    return {"log_p_single": float(np.log(pe)), "log_p_block": float(np.log(pa)),
            "per_feature": float(ratio), "per_feature_se": float(se), "gamma": float(gamma)}


def exact_exponent_table(designs=DESIGNS, priors=("t", "normal"),
                         tau_mus=(1.0, 10.0, 100.0, 1e3, 1e4), *, n: int = 40,
                         n_classes: int = 3, tail: float = 5 / 200, n_blocks: int = 10_000,
                         random_state: int = 0):
    """:func:`block_exponent` over designs, priors and tau_mu, next to the noise-only value.

    gamma is the (1 - ``tail``) quantile of one feature's F at each tau_mu (default k/p =
    5/200: about the threshold of the experiment). ``noise_only`` is the per-feature share
    that the Bretherton m_eff of the population noise correlation gives a block,
    1 / (1 + (b - 1) rho^2).

    Parameters
    ----------
    designs : sequence of (int, float)
        (block size, within-block noise correlation rho) pairs; designs with block 1 are
        skipped (a single feature is its own exact factor).
    priors : sequence of str
        Keys of :data:`PRIORS`.
    tau_mus : sequence of float
        Precisions of the class means at which the exponent is computed, each > 0.
    n, n_classes : int
        Cases and classes of the balanced design (as in :func:`block_exponent`).
    tail : float
        In (0, 1): gamma is the (1 - tail) quantile of one feature's F.
    n_blocks : int
        Monte Carlo blocks per (prior, design, tau_mu).
    random_state : int
        Root seed; entry (prior i, design j, tau_mu t) uses ``random_state + 1000 i + 100 j
        + t``.

    Returns
    -------
    pandas.DataFrame
        One row per (prior, design with block > 1, tau_mu); columns prior, block, rho,
        tau_mu, gamma (F threshold), per_feature (exact exponent per omitted feature, see
        :func:`block_exponent`), per_feature_se (its Monte Carlo standard error) and
        noise_only (the Bretherton share 1 / (1 + (b - 1) rho^2)).

    Examples
    --------
    >>> tab = exact_exponent_table([(1, 0.0), (5, 0.5)], ["normal"], tau_mus=(10.0,),
    ...                            n_blocks=500)
    >>> len(tab), float(tab["noise_only"].iloc[0])
    (1, 0.5)
    """
    import pandas as pd

    rows = []
    for i, prior in enumerate(priors):
        for j, (b, r) in enumerate(d for d in designs if d[0] > 1):
            for t, tau in enumerate(tau_mus):
                res = block_exponent(tau, None, b, r, n=n, n_classes=n_classes,
                                     priors=PRIORS[prior], n_blocks=n_blocks, tail=tail,
                                     random_state=random_state + 1000 * i + 100 * j + t)
                rows.append({"prior": prior, "block": b, "rho": r, "tau_mu": tau,
                             "gamma": res["gamma"], "per_feature": res["per_feature"],
                             "per_feature_se": res["per_feature_se"],
                             "noise_only": 1 / (1 + (b - 1) * r * r)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- one cell
@dataclass(frozen=True)
class Cell:
    """One design cell: effect prior, block size, within-block correlation and the estimator
    of :func:`effective_number` whose value replaces p - k in the ``meff`` fit (the data of
    a replicate do not depend on it, so cells differing only there are paired).

    Attributes
    ----------
    prior : str
        Effect prior of simulation and fit: a key of :data:`PRIORS` (``"t"`` or
        ``"normal"``).
    block : int
        Features per block of correlated noise (1: independent features).
    rho : float
        Within-block noise correlation, in [0, 1].
    meff_method : {"bretherton", "nyholt", "li_ji"}
        ``method`` of :func:`effective_number` used in the ``meff`` fit.
    name : str
        Read-only: ``<prior>_b<block>_rho<rho>``, with ``_<meff_method>`` appended unless
        it is ``"bretherton"``; the key of the cell's rows in the result file.

    Examples
    --------
    >>> Cell("t", 5, 0.5).name
    't_b5_rho0.5'
    >>> Cell("normal", 20, 0.9, "nyholt").name
    'normal_b20_rho0.9_nyholt'
    """

    prior: str
    block: int
    rho: float
    meff_method: str = "bretherton"

    @property
    def name(self) -> str:
        base = f"{self.prior}_b{self.block}_rho{self.rho:g}"
        return base if self.meff_method == "bretherton" else f"{base}_{self.meff_method}"


def _fit_replicate(X, y, k, priors, draws, tune, chains, thin_to, seed, meff_method):
    """Select, fit with both exponents, rank; returns one result row (without the truth)."""
    import warnings

    from ..filters._selection import select_features
    from ..models._gaussian import model_data, sample_nutpie
    from ..models._priors import GaussianPriors
    from ..sbc._core import thin_draws

    pr = GaussianPriors.from_dict(dict(priors))
    sel = select_features(X, y, k=k, statistic="f")
    omitted = sel.omitted_indices
    row = {"p_minus_k": int(sel.n_omitted), "gamma": float(sel.threshold)}
    for method in METHODS:
        row[f"m_eff_{method}"] = effective_number(X[:, omitted], y, method=method)
    row["m_eff_raw"] = effective_number(X[:, omitted], y, bias_correct=False)
    row["m_eff_used"] = row[f"m_eff_{meff_method}"]
    data = model_data(X[:, sel.indices], y, sel, pr, corrected=True)
    coords = {"feature": [int(i) for i in sel.indices], "class": [str(c) for c in sel.classes]}
    draws_out = {}
    for j, exponent in enumerate(EXPONENTS):
        d = dict(data)
        if exponent == "meff":
            d["n_omitted"] = np.float64(row["m_eff_used"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            idata, _ = sample_nutpie(d, pr, coords, draws=draws, tune=tune, chains=chains,
                                     seed=int(seed) + j, target_accept=0.9, progressbar=False)
        post = idata.posterior
        for param in PARAMS:
            draws_out[(exponent, param)] = thin_draws(post[param].values, thin_to)
    return row, draws_out


def run_cell(cell: Cell, n_replicates: int, random_state: int, *, n: int = 40, p: int = 200,
             n_classes: int = 3, k: int = 5, draws: int = 500, tune: int = 500,
             chains: int = 2, thin_to: int = 100, out_csv=None, progress: bool = True) -> list:
    """Run (or resume) the replicates of one cell; returns their result rows.

    Replicate i of a cell draws its streams from ``SeedSequence(random_state, spawn_key=
    (cell id, i))`` (simulation, sampler seed, rank tie-breaking), so a row depends only on
    the seed, the cell and i. Rows already in ``out_csv`` are reused, new ones appended.

    Parameters
    ----------
    cell : Cell
    n_replicates : int
    random_state : int
        Root seed, >= 0.
    n, p, n_classes, k : int
        Design (cases, features, classes, features kept).
    draws, tune, chains, thin_to : int
        nutpie draws and warm-up per chain, chains, and draws kept for the rank.
    out_csv : path-like, optional
        File of result rows (one per cell and replicate).
    progress : bool
        Print one line per replicate.

    Returns
    -------
    list of dict
        Rows with the cell, the truth, the effective numbers, ranks and fractional ranks
        (``frac_<exponent>_<param>``) and posterior medians of tau_mu.
        Rows reused from ``out_csv`` hold their values as strings, as read from the file.

    Raises
    ------
    ValueError
        If ``random_state`` is not an int >= 0; if the design is invalid (``cell.rho``
        outside [0, 1], ``cell.block`` outside 1..p, fewer than 2 classes or n < 2
        n_classes; see :class:`CorrelatedGaussianSimulator`); or if ``out_csv`` holds rows
        with other columns (written by another version of this experiment).
    KeyError
        If ``cell.prior`` is not a key of :data:`PRIORS`.

    Examples
    --------
    Two replicates of the independent design with short chains (runs MCMC):

    >>> rows = run_cell(Cell("normal", 1, 0.0), 2, 0, draws=100, tune=100,
    ...                 thin_to=20)  # doctest: +SKIP
    >>> sorted(r["rep"] for r in rows)  # doctest: +SKIP
    [0, 1]
    """
    from ..sbc._core import sbc_rank

    if not (isinstance(random_state, (int, np.integer)) and random_state >= 0):
        raise ValueError(f"random_state must be an int >= 0; got {random_state!r}")
    cell_id = (PRIOR_IDS[cell.prior], cell.block, int(round(cell.rho * 1000)))
    done = {}
    if out_csv is not None and Path(out_csv).exists():
        for r in _read_rows(out_csv):
            if r["cell"] == cell.name and int(r["seed"]) == random_state:
                done[int(r["rep"])] = r
    sim = CorrelatedGaussianSimulator(n=n, p=p, n_classes=n_classes, block=cell.block,
                                      rho=cell.rho, priors=PRIORS[cell.prior])
    rows = []
    for i in range(n_replicates):
        if i in done:
            rows.append(done[i])
            continue
        t0 = time.perf_counter()
        ss = np.random.SeedSequence(random_state, spawn_key=(*cell_id, i))
        sim_ss, fit_ss, tie_ss = ss.spawn(3)
        (X, y), truth = sim(np.random.default_rng(sim_ss))
        seed = int(fit_ss.generate_state(1)[0] % (2**31 - 2))
        row, post = _fit_replicate(X, y, k, PRIORS[cell.prior], draws, tune, chains, thin_to,
                                   seed, cell.meff_method)
        tie = np.random.default_rng(tie_ss)
        out = {"cell": cell.name, "prior": cell.prior, "block": cell.block, "rho": cell.rho,
               "seed": random_state, "rep": i, **truth, **row}
        for (exponent, param), dr in post.items():
            rank, frac = sbc_rank(truth[param], dr, tie)
            out[f"frac_{exponent}_{param}"] = frac
            if param == "tau_mu":
                out[f"median_{exponent}_tau_mu"] = float(np.median(dr))
        out["elapsed_s"] = time.perf_counter() - t0
        rows.append(out)
        if out_csv is not None:
            _append_row(out_csv, out)
        if progress:
            print(f"{cell.name} rep {i}: m_eff {out['m_eff_used']:.1f}, frac tau_mu "
                  f"indep {out['frac_indep_tau_mu']:.2f} meff {out['frac_meff_tau_mu']:.2f} "
                  f"({out['elapsed_s']:.1f} s)", flush=True)
    return rows


def _append_row(path, row):
    path = Path(path)
    new = not path.exists()
    if not new:
        with path.open(newline="") as fh:
            header = next(csv.reader(fh))
        if set(header) != set(row):
            raise ValueError(f"{path} holds rows of another version of this experiment "
                             "(other columns); use a new --out folder")
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(row) if new else header)
        if new:
            w.writeheader()
        w.writerow(row)


def _read_rows(path) -> list:
    with Path(path).open(newline="") as fh:
        return list(csv.DictReader(fh))


# ---------------------------------------------------------------------------- summary, report
def summarise(rows):
    """Per cell, exponent and parameter: replicates, mean fractional rank (and its SE under
    uniformity, sqrt(1/12 / N)), chi-square and ECDF uniformity p-values, mean m_eff.

    Parameters
    ----------
    rows : list of dict or pandas.DataFrame
        Result rows of :func:`run_cell`.

    Returns
    -------
    pandas.DataFrame
        One row per (cell, exponent, param), cells in order of first appearance; columns
        prior, block, rho, exponent (``"indep"`` or ``"meff"``), param (``"tau_mu"`` or
        ``"tau_nu"``), N (replicates), exponent_mean (mean p - k or mean m_eff used),
        mean_frac, se (sqrt(1/12 / N), its standard error under uniformity), chi2_p
        (chi-square on min(10, max(2, N // 5)) bins), ecdf_p and cell.

    Notes
    -----
    The uniformity tests of :mod:`selbayes.sbc._core` need at least 2 replicates per cell and
    raise ValueError otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> rows = [{"cell": "t_b5_rho0.9", "prior": "t", "block": 5, "rho": 0.9,
    ...          "p_minus_k": 195, "m_eff_used": 60.0,
    ...          **{f"frac_{e}_{q}": rng.uniform() for e in ("indep", "meff")
    ...             for q in ("tau_mu", "tau_nu")}} for _ in range(20)]
    >>> s = summarise(rows)
    >>> s[["exponent", "param", "N", "exponent_mean"]]
      exponent   param   N  exponent_mean
    0    indep  tau_mu  20          195.0
    1    indep  tau_nu  20          195.0
    2     meff  tau_mu  20           60.0
    3     meff  tau_nu  20           60.0
    >>> bool((s["se"] == np.sqrt(1 / 12 / 20)).all())
    True
    """
    import pandas as pd

    from ..sbc._core import chi2_uniformity, ecdf_uniformity

    df = _frame(rows)
    out = []
    for cell, g in df.groupby("cell", sort=False):
        for exponent in EXPONENTS:
            for param in PARAMS:
                u = g[f"frac_{exponent}_{param}"].to_numpy()
                _, _, chi_p = chi2_uniformity(u, n_bins=min(10, max(2, len(u) // 5)))
                _, ecdf_p = ecdf_uniformity(u, random_state=0)
                out.append({"prior": g["prior"].iloc[0], "block": int(g["block"].iloc[0]),
                            "rho": float(g["rho"].iloc[0]), "exponent": exponent,
                            "param": param, "N": len(u),
                            "exponent_mean": (float(g["p_minus_k"].mean()) if exponent == "indep"
                                              else float(g["m_eff_used"].mean())),
                            "mean_frac": float(u.mean()),
                            "se": float(np.sqrt(1 / 12 / len(u))),
                            "chi2_p": float(chi_p), "ecdf_p": float(ecdf_p),
                            "cell": cell})
    return pd.DataFrame(out)


def _frame(rows):
    """Result rows as a numeric DataFrame (rows read back from the CSV are strings); rows
    written before ``m_eff_used`` existed used the Bretherton number."""
    import pandas as pd

    df = pd.DataFrame(rows)
    if "m_eff_used" not in df:
        df["m_eff_used"] = df["m_eff_bretherton"]
    num = [c for c in df.columns if c not in ("cell", "prior")]
    df[num] = df[num].apply(pd.to_numeric)
    return df


def plot_ranks(rows, path, n_bins: int = 10):
    """Small multiples: rank histograms of tau_mu per cell (rows: prior; columns: design),
    the independent exponent and m_eff overlaid, with the 99% band of a uniform bin count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from scipy import stats

    df = pd.DataFrame(rows)
    priors = [q for q in PRIORS if q in set(df["prior"])]
    designs = sorted({(int(b), float(r)) for b, r in zip(df["block"], df["rho"], strict=True)})
    fig, axes = plt.subplots(len(priors), len(designs), figsize=(2.6 * len(designs),
                             2.3 * len(priors)), squeeze=False, sharey=True)
    edges = np.linspace(0, 1, n_bins + 1)
    for i, prior in enumerate(priors):
        for j, (b, r) in enumerate(designs):
            ax = axes[i][j]
            g = df[(df["prior"] == prior) & (df["block"].astype(int) == b)
                   & (df["rho"].astype(float) == r)]
            N = len(g)
            if N:
                lo, hi = stats.binom.ppf([0.005, 0.995], N, 1 / n_bins)
                ax.axhspan(lo, hi, color="0.85", lw=0)
                ax.axhline(N / n_bins, color="0.5", lw=0.8)
                for exponent, colour in zip(EXPONENTS, ("C3", "C0"), strict=True):
                    u = g[f"frac_{exponent}_tau_mu"].astype(float).to_numpy()
                    c, _ = np.histogram(u, edges)
                    ax.stairs(c, edges, color=colour, lw=1.6,
                              label="p - k" if exponent == "indep" else "m_eff")
            ax.set_title(f"{prior}: b={b}, rho={r:g} (N={N})", fontsize=8)
            ax.set_xticks([0, 0.5, 1])
            ax.tick_params(labelsize=7)
    axes[0][0].legend(fontsize=7, loc="upper right")
    fig.supxlabel("fractional rank of the true tau_mu", fontsize=9)
    fig.supylabel("replicates per bin", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _md(df, cols, fmt):
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        lines.append("| " + " | ".join(fmt.get(c, str)(r[c]) for c in cols) + " |")
    return "\n".join(lines)


def write_report(rows, out_dir, settings: dict, exact=None) -> Path:
    """Write ``summary.csv``, ``ranks.png`` and ``results.md`` (the measured tables) to
    ``out_dir``, with ``exact_exponent.csv`` and its table when ``exact`` (a DataFrame of
    :func:`exact_exponent_table`) is given; returns the path of ``results.md``.

    Parameters
    ----------
    rows : list of dict or pandas.DataFrame
        Result rows of :func:`run_cell` (all its columns, including the effective numbers
        ``m_eff_<method>``, ``m_eff_raw``, the posterior medians and ``elapsed_s``).
    out_dir : path-like
        Output folder; created if missing, files in it overwritten.
    settings : dict
        JSON-serialisable run settings, printed at the top of ``results.md``.
    exact : pandas.DataFrame, optional
        Output of :func:`exact_exponent_table`; adds ``exact_exponent.csv`` and a table of
        per-feature exponents (prior, design x tau_mu) to ``results.md``.

    Returns
    -------
    pathlib.Path
        ``out_dir / "results.md"``.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> rows = [{"cell": "t_b5_rho0.9", "prior": "t", "block": 5, "rho": 0.9,
    ...          "p_minus_k": 195, "m_eff_used": 60.0, "m_eff_bretherton": 60.0,
    ...          "m_eff_raw": 70.0, "m_eff_nyholt": 80.0, "m_eff_li_ji": 50.0,
    ...          "median_indep_tau_mu": 5.0, "median_meff_tau_mu": 3.0, "elapsed_s": 1.0,
    ...          **{f"frac_{e}_{q}": rng.uniform() for e in ("indep", "meff")
    ...             for q in ("tau_mu", "tau_nu")}} for _ in range(20)]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_report(rows, d, {"quick": True})
    ...     sorted(f.name for f in path.parent.iterdir())
    ['ranks.png', 'results.md', 'summary.csv']
    """
    import pandas as pd

    out = make_folder(out_dir, "out_dir")
    summ = summarise(rows)
    summ.to_csv(out / "summary.csv", index=False)
    plot_ranks(rows, out / "ranks.png")
    df = _frame(rows)
    f3 = "{:.3f}".format
    wide = []
    for (_, param), g in summ.groupby(["cell", "param"], sort=False):
        a, b = (g[g["exponent"] == e].iloc[0] for e in EXPONENTS)
        wide.append({"cell": a["cell"], "param": param,
                     "N": a["N"], "exponent p-k": f"{a['exponent_mean']:.0f}",
                     "mean m_eff": f"{b['exponent_mean']:.1f}",
                     "mean frac (p-k)": a["mean_frac"], "chi2 p (p-k)": a["chi2_p"],
                     "ECDF p (p-k)": a["ecdf_p"], "mean frac (m_eff)": b["mean_frac"],
                     "chi2 p (m_eff)": b["chi2_p"], "ECDF p (m_eff)": b["ecdf_p"]})
    wide = pd.DataFrame(wide)
    cols = list(wide.columns)
    fmt = {c: f3 for c in cols if c.startswith(("mean frac", "chi2", "ECDF"))}
    meff = df.groupby("cell", sort=False).agg(
        p_minus_k=("p_minus_k", "mean"), used=("m_eff_used", "mean"),
        bretherton=("m_eff_bretherton", "mean"),
        bretherton_sd=("m_eff_bretherton", "std"), raw=("m_eff_raw", "mean"),
        nyholt=("m_eff_nyholt", "mean"), li_ji=("m_eff_li_ji", "mean"),
        median_tau_mu_indep=("median_indep_tau_mu", "median"),
        median_tau_mu_meff=("median_meff_tau_mu", "median"),
        sec_per_rep=("elapsed_s", "mean")).reset_index()
    f1 = "{:.1f}".format
    mfmt = {c: f1 for c in meff.columns if c != "cell"}
    text = ["# Correlated omitted features: measured tables", "",
            f"Settings: `{json.dumps(settings)}`", "",
            "Fractional ranks of the truth among thinned posterior draws; uniform (mean 0.5, "
            "SE sqrt(1/12/N)) when the exponent is right. chi2 on 10 equal bins; ECDF: "
            "simultaneous-band test (Säilynoja et al. 2022).", "",
            _md(wide, cols, fmt), "",
            "Effective numbers of the p - k omitted features (means over replicates) and "
            "posterior medians of tau_mu (median over replicates):", "",
            _md(meff, list(meff.columns), mfmt), "", "![ranks](ranks.png)", ""]
    if exact is not None:
        exact.to_csv(out / "exact_exponent.csv", index=False)
        piv = exact.assign(value=[f"{v:.2f} ± {e:.2f}" for v, e in
                                  zip(exact["per_feature"], exact["per_feature_se"],
                                      strict=True)])
        piv = piv.pivot_table(index=["prior", "block", "rho", "noise_only"], columns="tau_mu",
                              values="value", aggfunc="first", sort=False).reset_index()
        piv.columns = [c if isinstance(c, str) else f"tau_mu={c:g}" for c in piv.columns]
        efmt = {"rho": "{:g}".format, "noise_only": "{:.3f}".format}
        text += ["## Exact exponent per omitted feature (Monte Carlo)", "",
                 "log P(max F of a block <= gamma | tau_mu) / (b log P(F <= gamma | tau_mu)): "
                 "1 means the product over independent features is exact, 1/b that the block "
                 "counts as one feature; gamma is the 1 - 5/200 quantile of one feature's F. "
                 "`noise_only` is the share the Bretherton m_eff of the noise correlation "
                 "gives, 1/(1 + (b - 1) rho^2). Mean ± MC standard error.", "",
                 _md(piv, list(piv.columns), efmt), ""]
    path = out / "results.md"
    path.write_text("\n".join(text))
    return path


def run_experiment(out_dir, n_replicates: int, random_state: int, *, cells=None,
                   quick: bool = False, progress: bool = True, **design) -> list:
    """Run every cell (default: both priors x :data:`DESIGNS`), write the report files.

    ``quick`` (smoke runs) uses 100 draws and 100 warm-up steps and 20 kept draws (and a small
    :func:`exact_exponent_table`). Further keywords go to :func:`run_cell` (``n``, ``p``,
    ``n_classes``, ``k``, ``draws``...). Returns all result rows.

    Writes to ``out_dir``: ``replicates.csv`` (one row per cell and replicate; an existing
    file is resumed), ``settings.json``, and the files of :func:`write_report`. The exact
    exponent table is computed only when some cell has block > 1 (500 Monte Carlo blocks
    and tau_mu in {10, 1e3} when ``quick``, else 10,000 and {1, 10, 100, 1e3, 1e4}).

    Parameters
    ----------
    out_dir : path-like
        Output folder; created if missing.
    n_replicates : int
        Replicates per cell (>= 1).
    random_state : int
        Root seed, >= 0 (see :func:`run_cell`).
    cells : list of Cell, optional
        Default: every prior of :data:`PRIORS` x every design of :data:`DESIGNS`.
    quick : bool
        Short MCMC and a small exact-exponent Monte Carlo (smoke runs); explicit keywords
        in ``design`` win over its settings.
    progress : bool
        Print one line per replicate.
    **design
        Keywords of :func:`run_cell`: ``n``, ``p``, ``n_classes``, ``k`` (also used for the
        exact exponent's tail k/p), ``draws``, ``tune``, ``chains``, ``thin_to``.

    Returns
    -------
    list of dict
        The result rows of :func:`run_cell` of all cells, in cell order.

    Examples
    --------
    A smoke run of two cells (runs MCMC; minutes):

    >>> rows = run_experiment("out", 2, 0, cells=[Cell("normal", 1, 0.0),
    ...                       Cell("normal", 5, 0.9)], quick=True)  # doctest: +SKIP
    >>> len(rows)  # doctest: +SKIP
    4
    """
    out = make_folder(out_dir, "out_dir")
    if cells is None:
        cells = [Cell(prior, b, r) for prior in PRIORS for b, r in DESIGNS]
    if quick:
        design = {"draws": 100, "tune": 100, "thin_to": 20, **design}
    csv_path = out / "replicates.csv"
    rows = []
    t0 = time.perf_counter()
    for cell in cells:
        rows += run_cell(cell, n_replicates, random_state, out_csv=csv_path, progress=progress,
                         **design)
    settings = {"n_replicates": n_replicates, "random_state": random_state,
                "cells": [asdict(c) for c in cells], "quick": quick,
                "design": {"n": 40, "p": 200, "n_classes": 3, "k": 5, "draws": 500,
                           "tune": 500, "chains": 2, "thin_to": 100, **design},
                "priors": PRIORS, "seconds_this_call": round(time.perf_counter() - t0)}
    (out / "settings.json").write_text(json.dumps(settings, indent=1))
    designs = sorted({(c.block, c.rho) for c in cells})
    priors = [q for q in PRIORS if q in {c.prior for c in cells}]
    exact = None
    if any(b > 1 for b, _ in designs):
        exact = exact_exponent_table(designs, priors, n=design.get("n", 40),
                                     n_classes=design.get("n_classes", 3),
                                     tail=design.get("k", 5) / design.get("p", 200),
                                     n_blocks=500 if quick else 10_000,
                                     tau_mus=(10.0, 1e3) if quick else
                                     (1.0, 10.0, 100.0, 1e3, 1e4),
                                     random_state=random_state)
    write_report(rows, out, settings, exact=exact)
    return rows


def main(argv=None) -> int:
    """``python -m selbayes.experiments.correlated_omitted``: run the cells, write the tables.

    Runs :func:`run_experiment` on the cells (priors x designs) given on the command line and
    prints ``results.md``. Bad arguments end the program through argparse (usage message on
    stderr, ``SystemExit`` with status 2).

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default: ``sys.argv[1:]``): ``--out DIR`` (required),
        ``--replicates R`` (per cell, >= 1; default 100), ``--random-state S`` (>= 0),
        ``--priors`` (comma-separated keys of :data:`PRIORS`), ``--designs`` (comma-separated
        ``block:rho`` pairs; default :data:`DESIGNS`), ``--p`` (features per replicate),
        ``--meff-method`` ({bretherton, nyholt, li_ji}) and ``--quick``.

    Returns
    -------
    int
        0 (exit status) after a completed run.

    Examples
    --------
    >>> main(["--out", "out", "--replicates", "0"])
    Traceback (most recent call last):
    ...
    SystemExit: 2
    >>> main(["--out", "out", "--replicates", "2", "--designs", "5:0.9",
    ...       "--quick"])  # doctest: +SKIP
    """
    import argparse

    ap = argparse.ArgumentParser(prog="python -m selbayes.experiments.correlated_omitted",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for replicates.csv and the tables")
    ap.add_argument("--replicates", type=int, default=100, help="replicates per cell")
    ap.add_argument("--random-state", type=int, default=0)
    ap.add_argument("--priors", default="t,normal", help="comma-separated: t, normal")
    ap.add_argument("--designs", default=",".join(f"{b}:{r:g}" for b, r in DESIGNS),
                    help="comma-separated block:rho pairs")
    ap.add_argument("--p", type=int, default=200, help="features per replicate")
    ap.add_argument("--meff-method", default="bretherton", choices=METHODS,
                    help="effective number used in the m_eff fit")
    ap.add_argument("--quick", action="store_true", help="short MCMC (smoke run)")
    a = ap.parse_args(argv)
    if a.replicates < 1:
        ap.error("--replicates must be >= 1")
    if a.random_state < 0:
        ap.error("--random-state must be >= 0")
    priors = [q for q in a.priors.split(",") if q]
    bad = [q for q in priors if q not in PRIORS]
    if bad:
        ap.error(f"unknown prior(s) {bad}; choose from {list(PRIORS)}")
    try:
        designs = [(int(s.split(":")[0]), float(s.split(":")[1]))
                   for s in a.designs.split(",") if s]
    except (ValueError, IndexError):
        ap.error(f"--designs must be block:rho pairs like 5:0.5; got {a.designs!r}")
    if a.p < 1:
        ap.error(f"--p must be >= 1; got {a.p}")
    for block, rho in designs:      # refused here, not as a traceback from the first replicate
        try:
            CorrelatedGaussianSimulator(p=a.p, block=block, rho=rho)
        except ValueError as exc:
            ap.error(f"--designs {block}:{rho:g} with --p {a.p}: {exc}")
    cells = [Cell(q, b, r, a.meff_method) for q in priors for b, r in designs]
    run_experiment(a.out, a.replicates, a.random_state, cells=cells, quick=a.quick, p=a.p)
    print((Path(a.out) / "results.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
