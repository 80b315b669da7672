"""Optimal Bayesian feature filtering (OBF) for a binary class.

Foroughi pour & Dalton, "Theory of Optimal Bayesian Feature Filtering" (Bayesian Analysis).
Each feature is a *marker* (its Gaussian mean or variance differs between the classes) with
prior probability pi(f), independently across features. With conjugate
normal-inverse-gamma priors, the posterior probability pi*(f) that f is a marker is closed form:

    log h(f) = logit pi*(f) = logit pi(f) + log p(S_0^f | good) + log p(S_1^f | good)
                              - log p(S^f | bad)                                 (eq 2.13, 2.18)

and the posterior over feature sets factorises (eq 2.15), so every Bayes-optimal selection rule
(MAP, MNC, CMNC, minimum risk, Neyman-Pearson) is a threshold on pi*(f) (section 3).

Unlike the t-test or the ANOVA F statistic, OBF also detects markers that differ only in
variance. Caveats: the consistency target is "mean or variance differs" (a skewness-only
difference is not a marker), and heavy-tailed non-markers produce false positives that vanish
only slowly with n, so log- or normal-score-transform expression data first.

Normalising constant: we use the paper's eq (2.18), which has an explicit sqrt(2 pi) that the
authors' MATLAB code omits in its Jeffreys branch; a MATLAB weight w equals our L = w/sqrt(2 pi)
(details in :mod:`selbayes.filters._obf_model`).

Scores of :func:`obf_select`
----------------------------
``Selection.scores`` holds log h(f) = logit pi*(f), the posterior log-odds of being a marker,
and ``Selection.threshold`` is in the same units (a posterior threshold T is logit(T); MNC is 0).
Log-odds rank exactly like pi* but, unlike pi*, do not round to 1.0 for strong markers, so the
ranking and the omitted-feature event {log h <= gamma} stay exact. pi* itself is in
``Selection.extra["posterior"]``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, log_expit, logit

from .._validation import check_labels, check_matrix, check_real
from ._obf_model import (
    ClassStats,
    NIGPrior,
    OBFPrior,
    _posterior_hyper,
    class_stats,
    log_marginal_likelihood,
    obf_log_h_from_stats,
)
from ._obf_rules import (
    expected_loss,
    expected_roc,
    log_set_posterior,
    mr_threshold,
    np_count,
    rank_desc,
)
from ._selection import Selection, selection_of

__all__ = [
    "obf",
    "obf_select",
    "OBFResult",
    "OBFPrior",
    "NIGPrior",
    "ClassStats",
    "class_stats",
    "log_marginal_likelihood",
    "obf_log_h_from_stats",
    "mr_threshold",
    "RULES",
]

RULES = ("map", "cmap", "mnc", "cmnc", "np", "top_k", "posterior_threshold")
_PRIOR_NAMES = ("jeffreys", "paper_pp")


@dataclass(frozen=True)
class OBFResult:
    """Per-feature OBF posterior for a binary class.

    Attributes
    ----------
    log_h : ndarray of float, shape (p,)
        log h(f) = logit pi*(f): posterior log-odds that feature f is a marker (eq 2.18),
        finite (:func:`obf` refuses a feature constant within a class under an improper
        prior).
    posterior : ndarray of float, shape (p,)
        pi*(f) = expit(log h(f)), in [0, 1].
    classes : ndarray, shape (2,)
        Sorted labels; ``classes[0]`` is class 0 (prior block ``good0``).
    class_counts : ndarray of int, shape (2,)
        n_0, n_1.
    prior : OBFPrior
        The priors used.
    prior_marker_prob : float or ndarray of shape (p,)
        pi(f), the prior probability that f is a marker.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.filters import obf
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> X = rng.normal(size=(60, 5)); X[y == 1, 0] += 1.5      # feature 0 is a mean marker
    >>> res = obf(X, y, prior_marker_prob=0.1)
    >>> res.n_features, res.class_counts.tolist(), res.posterior.round(3).tolist()
    (5, [30, 30], [1.0, 0.143, 0.024, 0.008, 0.012])
    >>> round(res.expected_n_markers, 3)                       # sum of pi*(f)
    1.188
    >>> fp, tp = res.expected_roc()                            # top-k sets, k = 0..5
    >>> fp.round(3).tolist(), tp.round(3).tolist()
    ([0.0, 0.0, 0.857, 1.833, 2.821, 3.812], [0.0, 1.0, 1.143, 1.167, 1.179, 1.188])
    >>> bool(np.isclose(res.log_set_posterior([0]),
    ...                 res.log_posterior[0] + res.log_complement[1:].sum()))
    True
    >>> round(res.expected_loss([0]), 4)        # expected errors: 1 - pi*(0) + sum_{f > 0} pi*(f)
    0.1876
    """

    log_h: np.ndarray
    posterior: np.ndarray
    classes: np.ndarray
    class_counts: np.ndarray
    prior: OBFPrior
    prior_marker_prob: float | np.ndarray

    @property
    def n_features(self) -> int:
        """Number of features p."""
        return int(self.log_h.shape[0])

    @property
    def log_posterior(self) -> np.ndarray:
        """log pi*(f), shape (p,), accurate where pi* underflows."""
        return log_expit(self.log_h)

    @property
    def log_complement(self) -> np.ndarray:
        """log(1 - pi*(f)), shape (p,), accurate where pi* rounds to 1."""
        return log_expit(-self.log_h)

    @property
    def expected_n_markers(self) -> float:
        """E(|Gbar| | S) = sum_f pi*(f) (eq 2.8)."""
        return float(np.nansum(self.posterior))

    def expected_roc(self) -> tuple[np.ndarray, np.ndarray]:
        """Expected (false, true) positive counts of the top-k sets, k = 0..p (eq 3.14).

        Returns two float arrays of shape (p + 1,): sum of 1 - pi* and sum of pi* over the k
        features with the largest pi*.
        """
        return expected_roc(self.log_h)

    def log_set_posterior(self, selected) -> float:
        """log p(G | S) for a feature set given as a boolean mask (p,) or indices (eq 2.15).

        The log posterior probability (nats) that G is exactly the set of markers.
        """
        return log_set_posterior(self.log_h, selected)

    def expected_loss(self, selected, lam_GG: float = 0.0, lam_GB: float = 1.0,
                      lam_BG: float = 1.0, lam_BB: float = 0.0) -> float:
        """Posterior expected loss of any selection (eq 3.7); default: expected errors.

        ``selected`` is a boolean mask (p,) or indices; ``lam_XY`` is the loss of a feature in
        state X (G: marker, B: non-marker) declared Y (G: selected, B: omitted). Returns a float
        in the loss units (with the defaults, an expected number of misclassified features).
        """
        return expected_loss(self.log_h, selected, lam_GG, lam_GB, lam_BG, lam_BB)


def _resolve_prior(priors) -> OBFPrior:
    if isinstance(priors, OBFPrior):
        return priors
    if isinstance(priors, str):
        if priors == "jeffreys":
            return OBFPrior.jeffreys()
        if priors == "paper_pp":
            return OBFPrior.paper_pp()
        raise ValueError(f"priors must be an OBFPrior or one of {_PRIOR_NAMES}; got {priors!r}")
    raise TypeError(f"priors must be an OBFPrior or one of {_PRIOR_NAMES}; got {priors!r}")


def _check_prior_shapes(prior: OBFPrior, p: int) -> None:
    for block in ("good0", "good1", "bad"):
        for field in ("s", "kappa", "m", "nu"):
            shape = np.shape(getattr(getattr(prior, block), field))
            if shape not in ((), (p,)):
                raise ValueError(
                    f"priors.{block}.{field} must be a scalar or have shape ({p},); got {shape}"
                )
    if prior.log_L is not None and np.shape(prior.log_L) not in ((), (p,)):
        raise ValueError(f"priors.log_L must be a scalar or have shape ({p},)")


def _check_marker_prob(prior_marker_prob, p: int):
    raw = np.asarray(prior_marker_prob, dtype=object if isinstance(prior_marker_prob, list | tuple)
                     else None)
    # a bool or a string is not a probability: no silent True -> 1.0 or '0.1' -> 0.1
    numeric = raw.dtype.kind in "iuf" or (raw.dtype.kind == "O" and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw.ravel()))
    if not numeric:
        raise TypeError("prior_marker_prob must be a number or an array of numbers (not bool "
                        f"or str) strictly inside (0, 1); got {prior_marker_prob!r}")
    pi = raw.astype(np.float64)
    if pi.shape not in ((), (p,)):
        raise ValueError(f"prior_marker_prob must be a scalar or have shape ({p},); got {pi.shape}")
    if not np.all(np.isfinite(pi)) or np.any(pi <= 0) or np.any(pi >= 1):
        raise ValueError(
            "prior_marker_prob must lie strictly inside (0, 1) (0 and 1 make log h infinite); "
            f"got min {pi.min():.6g}, max {pi.max():.6g}"
        )
    return float(pi) if pi.ndim == 0 else pi


def obf(X, y, priors: OBFPrior | str = "jeffreys", prior_marker_prob=0.005) -> OBFResult:
    """Posterior probability that each feature is a marker, for a binary class.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Continuous features (ideally roughly Gaussian within class; log-transform intensities).
    y : array-like of shape (n_samples,)
        Exactly two class labels; the sorted first label is class 0.
    priors : OBFPrior or {"jeffreys", "paper_pp"}, default "jeffreys"
        ``"jeffreys"`` is the paper's improper JP prior with L = 0.1 (paper convention);
        ``"paper_pp"`` its proper prior s = 0.5, kappa = 3, nu = 0.1, m = 0. Hyperparameters
        of an :class:`OBFPrior` may be scalars or (p,) arrays.
    prior_marker_prob : float or array-like of shape (p,), default 0.005
        pi(f), the prior probability that f is a marker, strictly in (0, 1). The default is the
        paper's (E|Gbar| = 100 of 20,000 features); choose it for your p.

    Returns
    -------
    OBFResult
        ``log_h`` and ``posterior`` of shape (p,), plus the class mapping and priors.

    Raises
    ------
    ValueError
        Bad shapes or values, not exactly two classes, fewer than 2 cases in a class under an
        improper prior (1 under a proper one), prior_marker_prob outside (0, 1), a feature
        constant within a class (or overall) under an improper prior (the paper needs
        s* > 0 for every feature: drop it or use a proper prior such as ``"paper_pp"``), or
        values of X whose sums of squares overflow or underflow float64 (rescale X).
    TypeError
        Non-numeric input, ``priors`` of the wrong type, or ``prior_marker_prob`` not a number
        or array of numbers (a bool or a string is not).

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.filters import obf
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> X = rng.normal(size=(100, 200))
    >>> X[y == 1, 0] *= 2.0                 # variance-only marker
    >>> res = obf(X, y, prior_marker_prob=0.05)
    >>> bool(res.posterior[0] > 0.9), res.log_h.shape
    (True, (200,))
    """
    prior = _resolve_prior(priors)
    X = check_matrix(X)
    n, p = X.shape
    min_per_class = 1 if prior.proper else 2
    classes, y_index, counts = check_labels(y, n, min_per_class=min_per_class)
    if classes.shape[0] != 2:
        raise ValueError(
            f"OBF needs a binary class; y has {classes.shape[0]} classes ({list(classes)})"
        )
    _check_prior_shapes(prior, p)
    pi = _check_marker_prob(prior_marker_prob, p)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):   # checked below
        stats = class_stats(X, y_index)
        _check_spread(X, y_index, stats, prior, priors)
        log_h = obf_log_h_from_stats(stats, prior, pi)
    bad = ~np.isfinite(log_h)
    if bad.any():                   # not constant (checked above): squares out of float64 range
        cols = np.flatnonzero(bad)
        big = float(np.abs(X[:, cols]).max())
        raise ValueError(
            f"OBF's log h is not finite for {cols.size} feature(s) of X (columns "
            f"{_first_columns(cols)}): their values (largest magnitude {big:.3g}) are too large "
            "or too small for float64 sums of squares; rescale X (for example standardise "
            "each column)")
    return OBFResult(log_h=log_h, posterior=expit(log_h), classes=classes, class_counts=counts,
                     prior=prior, prior_marker_prob=pi)


def _first_columns(cols: np.ndarray) -> str:
    """The first five column positions of ``cols``, and how many more."""
    return str(cols[:5].tolist()) + (f" and {cols.size - 5} more" if cols.size > 5 else "")


def _check_spread(X: np.ndarray, y_index: np.ndarray, stats: ClassStats, prior: OBFPrior,
                  priors) -> None:
    """Raise unless s* > 0 in every block for every feature (spec obf.md 1.4).

    Under an improper block (s = 0) a feature constant within a class has s_y* = 0 (and one
    constant overall s_B* = 0): log h is then +inf or NaN, not a posterior. Constancy is read
    from the values (max == min), not from the sums of squares, whose rounding residue
    (1e-33 for a column of 0.1) would hide it. A proper block (s > 0) keeps s* > 0.
    """
    in1 = y_index == 1
    const0 = np.ptp(X[~in1], axis=0) == 0
    const1 = np.ptp(X[in1], axis=0) == 0
    const = const0 & const1 & (X[np.argmin(in1)] == X[np.argmax(in1)])
    zero = np.zeros(X.shape[1])
    degenerate = np.zeros(X.shape[1], dtype=bool)
    for block, N, mean, flat in ((prior.good0, stats.n0, stats.mean0, const0),
                                 (prior.good1, stats.n1, stats.mean1, const1),
                                 (prior.bad, stats.n0 + stats.n1, stats.mean, const)):
        s_star = _posterior_hyper(block, N, mean, zero)[2]
        degenerate |= flat & (np.broadcast_to(s_star, flat.shape) <= 0)
    if not degenerate.any():
        return
    cols = np.flatnonzero(degenerate)
    which = f"priors={priors!r}" if isinstance(priors, str) else "an improper prior"
    raise ValueError(
        f"{cols.size} feature(s) of X are constant within a class (columns "
        f"{_first_columns(cols)}): under {which} (s = 0) OBF needs a spread within each class, "
        "s* > 0 for every feature (Foroughi pour & Dalton, section 2.3), and their posterior "
        "log-odds would be +inf or NaN. Drop these columns, or use a proper prior such as "
        "priors='paper_pp' (s > 0 keeps s* > 0)")


def _check_int_k(k, p: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise TypeError(f"k must be an integer; got {k!r}")
    if k < 1 or k >= p:
        raise ValueError(f"k must satisfy 1 <= k < p = {p}; got k = {k}")
    return int(k)


def obf_select(X, y, rule: str = "mnc", k: int | None = None, threshold: float | None = None,
               alpha: float | None = None, priors: OBFPrior | str = "jeffreys",
               prior_marker_prob=0.005) -> Selection:
    """Select features by an OBF rule (the paper's sections 3-4) and return a :class:`Selection`.

    Parameters
    ----------
    X, y, priors, prior_marker_prob
        As in :func:`obf`.
    rule : str, default "mnc"
        ``"mnc"`` / ``"map"``: pi*(f) > 0.5, i.e. log h > 0 (MAP set = MNC set in the
        independent model). ``"cmnc"`` / ``"cmap"`` / ``"top_k"``: the ``k`` features with the
        largest pi* (constrained MNC/MAP with D = k). ``"posterior_threshold"``: pi*(f) >
        ``threshold`` (the minimum-risk rule; see :func:`mr_threshold` for T from losses).
        ``"np"``: Neyman-Pearson, the largest top-ranked set whose expected number of false
        positives sum(1 - pi*) is <= ``alpha``.
    k : int, optional
        Number of features for ``"cmnc"``, ``"cmap"``, ``"top_k"``; 1 <= k < p.
    threshold : float, optional
        Posterior probability T in (0, 1) for ``"posterior_threshold"``.
    alpha : float, optional
        Bound (> 0) on the expected number of false positives for ``"np"``.

    Returns
    -------
    Selection
        ``statistic="obf"``, ``scores`` = log h (posterior log-odds, shape (p,)), ``threshold``
        gamma in log-odds units with every omitted feature scoring <= gamma, ``rule`` the rule
        name, and ``extra`` with ``posterior`` (pi*, shape (p,)), ``prior_marker_prob`` and
        ``priors``. Ties are broken by lowest column index, as in ``select_features``.

    Raises
    ------
    ValueError
        Unknown rule, a missing or superfluous k / threshold / alpha, k outside [1, p),
        threshold outside (0, 1), alpha not finite and > 0, a rule that selects no feature or
        every feature, plus everything :func:`obf` raises (a feature constant within a class
        under an improper prior among them).
    TypeError
        ``k`` not an integer, ``threshold`` or ``alpha`` not a real number (a bool or a
        string is not), plus everything :func:`obf` raises.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.filters import obf_select
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1], 40)
    >>> X = rng.normal(size=(80, 300)); X[y == 1, :3] += 2.0
    >>> sel = obf_select(X, y, rule="cmnc", k=3, prior_marker_prob=0.01)
    >>> sorted(sel.indices.tolist())
    [0, 1, 2]
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}")
    needs = {"cmnc": "k", "cmap": "k", "top_k": "k", "posterior_threshold": "threshold",
             "np": "alpha"}.get(rule)
    given = {"k": k, "threshold": threshold, "alpha": alpha}
    for name, value in given.items():
        if name == needs and value is None:
            raise ValueError(f"rule {rule!r} needs {name}")
        if name != needs and value is not None:
            raise ValueError(f"{name} is not used by rule {rule!r}; leave it None")

    if needs == "threshold":
        check_real(threshold, name="threshold")
    if needs == "alpha":
        check_real(alpha, name="alpha")
    res = obf(X, y, priors=priors, prior_marker_prob=prior_marker_prob)
    log_h = res.log_h
    p = log_h.shape[0]

    order = rank_desc(log_h)
    if needs == "k":
        n_keep = _check_int_k(k, p)
        indices = order[:n_keep]
        gamma = float(log_h[indices[-1]])
    elif rule == "np":
        a = float(alpha)
        if not np.isfinite(a) or a <= 0:
            raise ValueError(f"alpha must be finite and > 0; got {alpha!r}")
        n_keep = np_count(log_h, a)
        if n_keep == 0:
            raise ValueError(
                f"alpha = {a:g} admits no feature: the best has 1 - pi* = "
                f"{expit(-log_h[order[0]]):.6g}"
            )
        indices = order[:n_keep]
        gamma = float(log_h[indices[-1]])
    else:
        if rule == "posterior_threshold":
            T = float(threshold)
            if not (0.0 < T < 1.0):
                raise ValueError(f"threshold must be a probability in (0, 1); got {threshold!r}")
            gamma = float(logit(T))
        else:  # mnc / map: pi* > 1/2  <=>  log h > 0
            gamma = 0.0
        n_keep = int(np.count_nonzero(log_h > gamma))
        indices = order[:n_keep]
        if n_keep == 0:
            raise ValueError(
                f"rule {rule!r} selects no feature: the largest posterior is "
                f"{res.posterior.max():.6g} (threshold {expit(gamma):.6g})"
            )
    if indices.size == p:
        raise ValueError(f"rule {rule!r} selects every feature; nothing is omitted")

    return selection_of(indices, log_h, gamma, "obf", res.class_counts, res.classes, rule,
                        {"posterior": res.posterior, "prior_marker_prob": res.prior_marker_prob,
                         "priors": res.prior, "score_units": "log posterior odds (log h)"})
