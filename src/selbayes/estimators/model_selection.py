"""Choosing the number of selected features k (and the decorrelation strength) inside ``fit``.

The criterion is the inner cross-validated log score (mean -log p(true class), AMLP, in nats) of
the hierarchical Gaussian classifier, with selection, standardisation and decorrelation redone
on every inner training fold. A full MCMC fit per inner fold and k would cost minutes (every k
is a new shape to compile), so the inner predictive is a fast approximation of the same model,
:func:`plugin_log_proba`: tau_mu and tau_nu at the mode of their (corrected) marginal posterior
and tau_x drawn from its conditional given the within-class sums of squares. The corrected
posterior of tau_mu carries the factor P(F <= gamma | tau_mu w_x)^(p - k), which makes it sharp,
so a point estimate loses little; ``tests/estimators/test_model_selection.py`` checks the
approximation against MCMC.

References
----------
Li, L. (2009). Calibrating predictions based on a selected subset of features from Bayesian
Gaussian classification models (manuscript), eqs 13-15 and 23-24.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize
from scipy.special import gammaln

from .._validation import check_labels, check_matrix, check_random_state
from ..filters.selection import Selection, f_statistic, selection_from_scores
from ..models.gaussian import (
    class_log_prior,
    class_means_log_density,
    predictive_log_proba,
    predictive_moments,
    sufficient_statistics,
)
from ..models.priors import GaussianPriors

__all__ = ["KChoice", "choose_k", "plugin_log_proba", "temper_log_proba", "DEFAULT_K_GRID",
           "correlation_temperature",
           "DEFAULT_T_GRID", "prepare_features", "label_noise_log_proba", "default_label_noise",
           "AffineFeatures", "pick_candidate"]

DEFAULT_K_GRID = (5, 10, 20, 50, 100, 200, 500)
DEFAULT_T_GRID = (1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0, 30.0, 50.0)


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
        ``temperature="correlation"`` the :func:`correlation_temperature` of the chosen
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
    extra : dict
        Free-form details (not compared).

    Examples
    --------
    >>> import numpy as np
    >>> ch = KChoice(k=10, decorrelate=None, temperature=3.0,
    ...              grid=[(5, None, 3.0), (10, None, 3.0)], score=np.array([0.4, 0.3]),
    ...              se=np.array([0.05, 0.05]),
    ...              criterion="inner_cv_log_score_plugin", n_splits=5)
    >>> ch.table().loc[1, "score"]
    np.float64(0.3)
    """

    k: int
    decorrelate: float | None
    temperature: float
    grid: list
    score: np.ndarray
    se: np.ndarray
    criterion: str
    n_splits: int
    extra: dict = field(default_factory=dict, compare=False)

    def table(self):
        """The curve as a pandas DataFrame (columns k, decorrelate, temperature, score, se)."""
        import pandas as pd

        return pd.DataFrame({"k": [g[0] for g in self.grid],
                             "decorrelate": [g[1] for g in self.grid],
                             "temperature": [g[2] for g in self.grid],
                             "score": self.score, "se": self.se})


def prepare_features(X, y_index, n_classes, *, standardize=True, decorrelate=None,
                     method="symmetric"):
    """Fit the feature transforms of the classifier on training data.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    y_index : ndarray of int, shape (n,)
    n_classes : int
    standardize : bool
        Centre and scale every feature (:class:`selbayes.preprocessing.Standardization`).
    decorrelate : float or None
        lambda of the decorrelation (:class:`selbayes.preprocessing.Decorrelation`), or None.
    method : {"symmetric", "cholesky"}
        Whitening of the decorrelation ("cholesky" is used whenever lambda = 0).

    Returns
    -------
    (ndarray of shape (n, p), AffineFeatures)
        The transformed training features and the fitted map (``.selected(X, indices)``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 5.0], [3.0, 1.0], [6.0, 2.0], [8.0, 9.0]]); y = np.array([0, 0, 1, 1])
    >>> Z, feats = prepare_features(X, y, 2)
    >>> bool(np.allclose(feats.selected(X, [1]), Z[:, [1]]))
    True
    """
    from ..preprocessing.decorrelation import Decorrelation, Standardization

    p = X.shape[1]
    mean = np.zeros(p)
    scale = np.ones(p)
    Z = X
    if standardize:
        st = Standardization("within").fit(X, y_index, n_classes)
        mean, scale = st.mean_, st.scale_
        Z = st.transform(X)
    dec = None
    if decorrelate is not None:
        dec = Decorrelation(decorrelate, method=method if decorrelate > 0 else "cholesky")
        dec = dec.fit(Z, y_index, n_classes)
        Z = dec.transform(Z)
    return Z, AffineFeatures(mean, scale, dec)


class AffineFeatures:
    """z = W ((x - mean) / scale), W the decorrelation (identity when None).

    Parameters
    ----------
    mean, scale : ndarray of shape (p,)
        Per-feature centre and scale (data units).
    decorrelation : selbayes.preprocessing.decorrelation.Decorrelation, optional
        A fitted decorrelation of the standardised features.

    Examples
    --------
    >>> import numpy as np
    >>> f = AffineFeatures(np.array([1.0, 2.0]), np.array([2.0, 4.0]))
    >>> f.selected(np.array([[3.0, 6.0]]), [1]).tolist()
    [[1.0]]
    """

    def __init__(self, mean, scale, decorrelation=None):
        self.mean = mean
        self.scale = scale
        self.decorrelation = decorrelation

    def selected(self, X, indices):
        """The transformed features ``indices`` of new cases X, shape (m, k)."""
        indices = np.asarray(indices, dtype=np.int64)
        if self.decorrelation is None:
            return (X[:, indices] - self.mean[indices]) / self.scale[indices]
        rows = self.decorrelation.rows(indices)
        return ((X - self.mean) / self.scale) @ rows.T

    def selected_affine(self, indices):
        """(center (k,), scale (k,), rows (k, p) or None) with
        z = ((X @ rows.T if rows is not None else X[:, indices]) - center) / scale."""
        indices = np.asarray(indices, dtype=np.int64)
        if self.decorrelation is None:
            return self.mean[indices].copy(), self.scale[indices].copy(), None
        rows = self.decorrelation.rows(indices) / self.scale[None, :]
        return rows @ self.mean, np.ones(indices.size), rows


# --------------------------------------------------------------------------- fast predictive
def _log_gamma_density_log(u, alpha, w):
    """log density of log(tau) when tau ~ Gamma(alpha/2, rate alpha w / 2) (Jacobian in)."""
    a, b = alpha / 2, alpha * w / 2
    return a * np.log(b) - gammaln(a) + a * u - b * np.exp(u)


def _class_means_loglik(log_tau_mu, log_tau_nu, xbar, counts, tau_x):
    """log p(xbar | tau_mu, tau_nu, tau_x), mu and nu integrated out; vectorised over the
    leading shape of the two log precisions (the PyMC model's own formula)."""
    u = np.asarray(log_tau_mu, dtype=np.float64)[..., None, None]
    v = np.asarray(log_tau_nu, dtype=np.float64)[..., None]
    d = np.exp(-u) + 1.0 / (counts[None, :] * tau_x[:, None])                # (..., k, G)
    return class_means_log_density(d, np.exp(-v), xbar, xbar.shape[1]).sum(-1)


def _hyper_mode(xbar, ssw, counts, selection, priors, corrected):
    """Mode of (log tau_mu, log tau_nu) given tau_x at its conditional mean."""
    n, G = counts.sum(), counts.shape[0]
    a = priors.alpha_x / 2 + (n - G) / 2
    tau_x = a / (priors.alpha_x * priors.w_x / 2 + ssw / 2)
    us = np.linspace(-8.0, 12.0, 41)
    vs = np.linspace(-8.0, 8.0, 17)
    adj = None
    if corrected and selection.n_omitted > 0:
        from scipy.interpolate import CubicSpline

        from ..adjustment.fstat import fstat_log_omit_prob

        # One vectorised evaluation on a fine grid, then a spline: the exact adjustment costs
        # about 10 ms per call, too much inside an optimiser.
        fine = np.arange(-10.0, 14.0 + 1e-9, 0.05)
        vals = selection.n_omitted * fstat_log_omit_prob(
            fine + np.log(priors.w_x), counts.astype(np.int64), selection.threshold,
            priors.alpha_x, mu_t_df=priors.mu_t_df)
        adj = CubicSpline(fine, vals)

    def objective(uv):
        u, v = uv
        val = (_log_gamma_density_log(u, priors.alpha_mu, priors.w_mu)
               + _log_gamma_density_log(v, priors.alpha_nu, priors.w_nu)
               + _class_means_loglik(u, v, xbar, counts, tau_x))
        if adj is not None:
            val = val + float(adj(np.clip(u, -10.0, 14.0)))
        return -float(val)

    # A coarse grid first (the corrected objective can have a second, spurious mode at very
    # small tau_mu), then a local refinement.
    U, Vv = np.meshgrid(us, vs, indexing="ij")
    vals = (_log_gamma_density_log(U, priors.alpha_mu, priors.w_mu)
            + _log_gamma_density_log(Vv, priors.alpha_nu, priors.w_nu)
            + _class_means_loglik(U, Vv, xbar, counts, tau_x))
    if adj is not None:
        vals = vals + adj(us)[:, None]
    i, j = np.unravel_index(np.argmax(vals), vals.shape)
    res = optimize.minimize(objective, x0=[us[i], vs[j]], method="Nelder-Mead",
                            options={"xatol": 1e-4, "fatol": 1e-6})
    return res.x


def plugin_log_proba(X_train_selected, y_index, X_test_selected, selection: Selection,
                     priors=None, corrected=True, n_draws=200, random_state=None):
    """Fast approximate predictive log probabilities of the hierarchical Gaussian classifier.

    (log tau_mu, log tau_nu) are set to the mode of their marginal posterior (class means
    integrated out exactly, tau_x at its conditional mean given the within-class sums of squares,
    and, when ``corrected``, the selection factor (p - k) log P(F <= gamma | tau_mu w_x));
    tau_x is drawn ``n_draws`` times from Gamma(alpha_x/2 + (n - G)/2, rate alpha_x w_x/2 +
    SSW_j/2); the predictive then averages over those draws exactly as the MCMC fit does
    (Rao-Blackwellised, :func:`selbayes.models.gaussian.predictive_log_proba`). A t prior on
    the class means (``priors.mu_t_df``) enters the adjustment but its scales are set to 1.

    Parameters
    ----------
    X_train_selected : ndarray of shape (n, k)
        Training values of the selected (transformed) features.
    y_index : ndarray of int, shape (n,)
        Class index of each training case, 0..G-1.
    X_test_selected : ndarray of shape (m, k)
    selection : Selection
        The F-statistic selection (p - k and gamma).
    priors : GaussianPriors or dict, optional
    corrected : bool
    n_draws : int
    random_state : int or numpy.random.Generator, optional

    Returns
    -------
    ndarray of shape (m, G)
        Normalised log probabilities (nats).

    Examples
    --------
    >>> import numpy as np, selbayes
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 200)); X[:, :5] += 1.5 * y[:, None]
    >>> sel = selbayes.select_features(X, y, k=5)
    >>> lp = plugin_log_proba(X[:, sel.indices], y, X[:3, sel.indices], sel, random_state=0)
    >>> lp.shape, bool(np.allclose(np.exp(lp).sum(1), 1))
    ((3, 2), True)
    """
    priors = GaussianPriors.from_dict(priors)
    rng = check_random_state(random_state)
    G = len(selection.class_counts)
    counts, xbar, ssw = sufficient_statistics(X_train_selected, y_index, G)
    counts = counts.astype(np.float64)
    u, v = _hyper_mode(xbar, ssw, counts, selection, priors, corrected)
    n = counts.sum()
    a = priors.alpha_x / 2 + (n - G) / 2
    rate = priors.alpha_x * priors.w_x / 2 + ssw / 2
    tau_x = rng.gamma(a, 1.0, size=(n_draws, ssw.shape[0])) / rate
    S = n_draws
    mean, prec = predictive_moments(tau_x, np.full(S, np.exp(u)), np.full(S, np.exp(v)), xbar,
                                    counts)
    return predictive_log_proba(X_test_selected, mean, prec,
                                class_log_prior(counts, priors.c))


def temper_log_proba(log_proba, class_log_prior_, temperature):
    """Predictive tempered by T: P_T(g | x) proportional to pi_g [p(x | g, data)]^(1/T).

    The naive (independent-feature) predictive multiplies the evidence of correlated features
    as if each were new information, so its log likelihood ratios are too large by roughly the
    features' redundancy; dividing them by a scalar T >= 1 is the curvature adjustment of a
    composite likelihood (Pauli, Racugno and Ventura 2011; Varin, Reid and Firth 2011), with T
    chosen by inner cross-validated log score (:func:`choose_k`). T = 1 is the model's own
    predictive.

    Parameters
    ----------
    log_proba : ndarray of shape (m, G)
        Normalised log predictive probabilities (nats).
    class_log_prior_ : ndarray of shape (G,)
        The log class probabilities that ``log_proba`` includes.
    temperature : float
        T > 0.

    Returns
    -------
    ndarray of shape (m, G)
        Normalised tempered log probabilities.

    Raises
    ------
    ValueError
        If ``temperature`` is not a positive finite number.

    Examples
    --------
    >>> import numpy as np
    >>> lp = np.log([[0.9, 0.1]]); prior = np.log([0.5, 0.5])
    >>> np.round(np.exp(temper_log_proba(lp, prior, 2.0)), 3).tolist()   # odds 9 -> 3
    [[0.75, 0.25]]
    """
    from scipy.special import logsumexp

    if not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be a positive number; got {temperature!r}")
    if temperature == 1:
        return log_proba
    z = (log_proba - class_log_prior_) / temperature + class_log_prior_
    return z - logsumexp(z, axis=1, keepdims=True)


def label_noise_log_proba(log_proba, class_log_prior_, eps):
    """Predictive with a label-noise component: (1 - eps) P(g | x) + eps pi_g.

    A case's label is, with probability eps, unrelated to its features (mislabelled or
    atypical cases, which real expression sets contain). This bounds the loss of any case by
    -log(eps pi_g) nats, at a cost of about eps (1 - pi_g) nats on cases predicted with
    certainty. The default eps = 1 / (n + 2) is Laplace's rule of succession: the posterior mean
    of a mislabelling rate with a uniform prior when none of the n training labels is known to
    be wrong.

    Parameters
    ----------
    log_proba : ndarray of shape (m, G)
        Normalised log predictive probabilities (nats).
    class_log_prior_ : ndarray of shape (G,)
        log pi_g, the class probabilities (e.g. :func:`selbayes.models.gaussian.class_log_prior`).
    eps : float
        Mislabelling probability, 0 <= eps < 1 (0 returns ``log_proba`` unchanged).

    Returns
    -------
    ndarray of shape (m, G)

    Raises
    ------
    ValueError
        If ``eps`` is outside [0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> lp = np.log([[1e-30, 1.0]]); prior = np.log([0.5, 0.5])
    >>> np.round(np.exp(label_noise_log_proba(lp, prior, 0.02)), 3).tolist()
    [[0.01, 0.99]]
    """
    if not (0 <= eps < 1):
        raise ValueError(f"label noise eps must be in [0, 1); got {eps!r}")
    if eps == 0:
        return log_proba
    return np.logaddexp(np.log1p(-eps) + log_proba, np.log(eps) + class_log_prior_[None, :])


def default_label_noise(n: int) -> float:
    """Laplace's rule of succession, 1 / (n + 2), for n training cases.

    Parameters
    ----------
    n : int
        Training cases.

    Returns
    -------
    float
        The label-noise probability eps.

    Examples
    --------
    >>> default_label_noise(48)
    0.02
    """
    return 1.0 / (n + 2.0)


# --------------------------------------------------------------------------- choose k
def correlation_temperature(X_selected, y_index, n_classes) -> float:
    """Predictive temperature from the within-class correlation of the selected features.

    The naive (independent-feature) predictive's log likelihood ratio between classes g and h
    is, up to a constant, s = d'x with d_j = (mu_gj - mu_hj) / sigma_j^2. Along d the classes
    are separated by d'(mu_g - mu_h) = ||delta||^2 (delta_j = (mu_gj - mu_hj) / sigma_j), but
    with correlated features s varies within a class by delta' R delta, R the within-class
    correlation matrix, not by ||delta||^2 as the naive model assumes. The calibrated log odds
    along d are therefore s / T with

        T = delta' R delta / delta' delta,

    the variance inflation (Kish's design effect) of the naive evidence along the direction
    that separates the classes: 1 for independent features, up to k for k copies of one
    feature. With G > 2 classes the pairs are pooled, weighted by n_g n_h. Means, standard
    deviations and R are the training sample's; ``delta' R delta`` is computed as
    ||E delta||^2 / (n - G) from the within-class residuals E, so no k x k matrix is formed.

    T is a property of the features and the classes, not of how the class means are
    estimated: the same T serves the corrected and the uncorrected model, which differ in how
    far they shrink the class-mean differences (the selection correction) rather than in how
    they count correlated evidence (the temperature). T is floored at 1: below 1 (features
    whose noise cancels along d) the estimate is dominated by the sampling error of R
    (standard deviation about sqrt(2 / (n - G)) for independent features), and the model's own
    predictive is then kept.

    Parameters
    ----------
    X_selected : ndarray of shape (n, k)
        Training values of the selected features (any units; each feature is scaled by its
        pooled within-class standard deviation here).
    y_index : ndarray of int, shape (n,)
        Class index of each training case, 0..G-1 (at least n_classes + 1 cases).
    n_classes : int
        G.

    Returns
    -------
    float
        T >= 1 (for :func:`temper_log_proba`).

    References
    ----------
    Kish, L. (1965). Survey Sampling. Wiley (the design effect). Pauli, F., Racugno, W. and
    Ventura, L. (2011). Bayesian composite marginal likelihoods. Statistica Sinica 21,
    149-164 (the curvature adjustment of a composite likelihood).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 200); s = rng.normal(size=400) + y
    >>> X = np.column_stack([s + 0.1 * rng.normal(size=400) for _ in range(10)])
    >>> round(correlation_temperature(X, y, 2))        # 10 near-copies of one feature
    10
    >>> correlation_temperature(rng.normal(size=(400, 10)) + y[:, None], y, 2) < 1.5
    True
    """
    X = np.asarray(X_selected, dtype=np.float64)
    y_index = np.asarray(y_index)
    G = int(n_classes)
    n = X.shape[0]
    counts = np.bincount(y_index, minlength=G).astype(np.float64)
    present = np.flatnonzero(counts > 0)
    if n - G < 1 or present.size < 2:
        return 1.0
    means = np.zeros((G, X.shape[1]))
    np.add.at(means, y_index, X)
    means[present] /= counts[present, None]
    E = X - means[y_index]
    sd = np.sqrt((E ** 2).sum(axis=0) / (n - G))
    ok = sd > 0                                  # a constant feature carries no evidence
    E, means, sd = E[:, ok], means[:, ok], sd[ok]
    if not ok.any():
        return 1.0
    g, h = np.triu_indices(present.size, 1)
    g, h = present[g], present[h]
    delta = (means[g] - means[h]) / sd                               # (pairs, k)
    w = counts[g] * counts[h]
    num = (w * (((E / sd) @ delta.T) ** 2).sum(axis=0)).sum() / (n - G)
    den = (w * (delta ** 2).sum(axis=1)).sum()
    if not den > 0:
        return 1.0
    return float(max(1.0, num / den))


def _stratified_folds(y_index, n_splits, rng):
    from sklearn.model_selection import StratifiedKFold

    seed = int(rng.integers(2 ** 31 - 1))
    min_count = np.bincount(y_index).min()
    n_splits = int(min(n_splits, min_count))
    if n_splits < 2:
        raise ValueError("choosing k by inner cross-validation needs at least 2 cases in every "
                         "class of the training data")
    return n_splits, list(StratifiedKFold(n_splits, shuffle=True,
                                          random_state=seed).split(np.zeros(len(y_index)),
                                                                   y_index))


def _candidate_selections(X, y_index, G, candidates, standardize, method):
    """For every (k, lambda) candidate: the prepared features Z of X (one preparation per
    lambda), their map and the F selection of the top k, as ``(Z, feats, sel)``."""
    classes = np.arange(G)
    counts = np.bincount(y_index, minlength=G)
    by_lam: dict = {}
    for k, lam in candidates:
        if lam not in by_lam:
            Z, feats = prepare_features(X, y_index, G, standardize=standardize,
                                        decorrelate=lam, method=method)
            # F directly, not select_features: a rare class (3 cases in all, as in some
            # tumour-type data) can keep a single case in an inner training fold, which the
            # F statistic and the model allow (they need n - G >= 1) but the public
            # function's input check does not.
            by_lam[lam] = (Z, feats, f_statistic(Z, y_index, G))
        Z, feats, scores = by_lam[lam]
        # Inside a fold fewer features may vary than in the whole training set.
        k_eff = max(1, min(k, Z.shape[1] - 1, int(np.sum(scores > 0))))
        yield Z, feats, selection_from_scores(scores, k_eff, None, "f", counts, classes)


def _fold_losses(X, y_index, G, train, test, candidates, standardize, priors, corrected,
                 n_draws, seed, temperatures=(1.0,), label_noise=0.0, method="symmetric"):
    """-log p(true class) of every test case of one inner fold, for every candidate and
    temperature: shape (len(candidates), len(temperatures), n_test); ``temperatures=
    "correlation"``: one temperature per candidate, :func:`correlation_temperature` of the
    fold's training data at that candidate (shape (len(candidates), 1, n_test))."""
    by_corr = isinstance(temperatures, str)
    out = np.empty((len(candidates), 1 if by_corr else len(temperatures), test.size))
    y_train = y_index[train]
    for ci, (Z, feats, sel) in enumerate(_candidate_selections(
            X[train], y_train, G, candidates, standardize, method)):
        lp = plugin_log_proba(Z[:, sel.indices], y_train,
                              feats.selected(X[test], sel.indices), sel, priors, corrected,
                              n_draws=n_draws, random_state=seed)
        prior = class_log_prior(sel.class_counts, priors.c)
        temps = ([correlation_temperature(Z[:, sel.indices], y_train, G)] if by_corr
                 else temperatures)
        for ti, T in enumerate(temps):
            lt = label_noise_log_proba(temper_log_proba(lp, prior, T), prior, label_noise)
            out[ci, ti] = -lt[np.arange(test.size), y_index[test]]
    return out


def _candidate_temperatures(X, y_index, G, candidates, standardize, method) -> list:
    """:func:`correlation_temperature` of all the training data at every (k, lambda)."""
    return [correlation_temperature(Z[:, sel.indices], y_index, G) for Z, _, sel in
            _candidate_selections(X, y_index, G, candidates, standardize, method)]


def pick_candidate(case_losses, temperatures, rule="best") -> int:
    """Index of the chosen candidate of an inner cross-validation curve.

    Parameters
    ----------
    case_losses : ndarray of shape (n_candidates, n_cases)
        -log p(true class) of every inner test case under every candidate (nats).
    temperatures : sequence of float, length n_candidates
    rule : {"best", "one_se"}
        "best": the lowest mean loss. "one_se": the smallest temperature among the
        candidates within one paired standard error of the best (then the lowest loss).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For an unknown rule.

    Examples
    --------
    >>> import numpy as np
    >>> L = np.array([[0.50, 0.51, 0.49, 0.51], [0.50, 0.50, 0.50, 0.49]])
    >>> pick_candidate(L, [1.0, 3.0]), pick_candidate(L, [1.0, 3.0], "one_se")
    (1, 0)
    """
    L = np.asarray(case_losses, dtype=np.float64)
    score = L.mean(axis=1)
    best = int(np.argmin(score))
    if rule == "best":
        return best
    if rule != "one_se":
        raise ValueError(f"rule must be 'best' or 'one_se'; got {rule!r}")
    # Paired: every candidate is scored on the same inner test cases.
    d_se = (L - L[best]).std(axis=1, ddof=1) / np.sqrt(L.shape[1])
    ok = np.flatnonzero(score <= score[best] + d_se)
    temps = np.asarray(temperatures, dtype=np.float64)[ok]
    ok = ok[temps == temps.min()]
    return int(ok[np.argmin(score[ok])])


def choose_k(estimator, X, y, *, grid=None, decorrelate_grid=None, temperature_grid=None,
             cv=5, random_state=None, n_jobs=1, n_draws=200, label_noise=None,
             rule=None) -> KChoice:
    """Choose k (and optionally lambda) by inner stratified cross-validated log score.

    For every inner fold the estimator's feature preparation (standardisation, decorrelation)
    and the F ranking are fitted on the inner training cases only; every k of the grid is
    then scored by :func:`plugin_log_proba` on the inner test cases. The candidate with the
    lowest mean -log p(true class) is chosen.

    Parameters
    ----------
    estimator : HierarchicalGaussianClassifier
        Supplies ``priors``, ``correct_selection`` and ``standardize`` (default True).
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
    grid : sequence of int, optional
        Candidate k; default ``DEFAULT_K_GRID`` capped below p and the training size.
    decorrelate_grid : sequence of (float or None), optional
        Candidate lambdas (None: no decorrelation); default the estimator's ``decorrelate``
        when it is a number, else [None].
    temperature_grid : sequence of float or "correlation", optional
        Candidate predictive temperatures T (:func:`temper_log_proba`); "correlation": no
        grid, T of every candidate is :func:`correlation_temperature` of its (inner)
        training data. Default: the estimator's ``temperature`` when it is a number or
        "correlation", ``DEFAULT_T_GRID`` when it is "auto", else [1].
    cv : int
        Inner folds (reduced to the smallest class count when needed).
    random_state : int or numpy.random.Generator, optional
        Seeds the inner folds and the tau_x draws.
    n_jobs : int
        Folds run in parallel through joblib.
    n_draws : int
        tau_x draws of the fast predictive.
    label_noise : float, optional
        eps of :func:`label_noise_log_proba` applied to every inner prediction (the criterion
        then scores the predictive the fitted estimator will use); default the estimator's
        ``label_noise``: "auto" means ``default_label_noise`` of the inner training size,
        missing means 0.
    rule : {"best", "one_se"}, optional
        "best" (the default; the estimator's ``choice_rule`` when it has one): the candidate
        with the lowest score. "one_se": among the candidates whose score is within one
        paired standard error (over the inner test cases) of the best, the one with the
        smallest temperature, then the lowest score (the one-standard-error rule of Breiman
        et al. 1984, toward the model's own predictive, T = 1).

    Returns
    -------
    KChoice

    Raises
    ------
    ValueError
        If a class has fewer than 2 cases, or the grid is empty after capping.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :8] += y[:, None]
    >>> ch = choose_k(HierarchicalGaussianClassifier(), X, y, grid=[2, 8, 32],
    ...               temperature_grid=[1.0, 3.0], random_state=0)
    >>> ch.k in (2, 8, 32), ch.score.shape, ch.table().shape
    (True, (6,), (6, 5))
    """
    from joblib import Parallel, delayed

    X = check_matrix(X)
    classes, y_index, _ = check_labels(y, X.shape[0])
    G = len(classes)
    n, p = X.shape
    rng = check_random_state(random_state)
    params = estimator.get_params(deep=False)
    priors = GaussianPriors.from_dict(params.get("priors"))
    corrected = bool(params.get("correct_selection", True))
    standardize = bool(params.get("standardize", True))
    grid = DEFAULT_K_GRID if grid is None else grid
    n_splits, folds = _stratified_folds(y_index, cv, rng)
    # k may exceed n (each feature has its own n observations); it must leave one omitted.
    cap = p - 1
    ks = sorted({int(k) for k in grid if 1 <= int(k) <= cap})
    if not ks:
        raise ValueError(f"no candidate k in {list(grid)} is below p = {p}")
    if decorrelate_grid is None:
        dec = params.get("decorrelate")
        decorrelate_grid = [dec if isinstance(dec, int | float) else None]
    if temperature_grid is None:
        T = params.get("temperature", 1.0)
        temperature_grid = ("correlation" if T == "correlation" else DEFAULT_T_GRID
                            if T == "auto" else [float(T) if isinstance(T, int | float) else 1.0])
    by_corr = isinstance(temperature_grid, str)
    if by_corr and temperature_grid != "correlation":
        raise ValueError(f"temperature_grid must be numbers or 'correlation'; got "
                         f"{temperature_grid!r}")
    if not by_corr:
        temperature_grid = [float(t) for t in temperature_grid]
    if label_noise is None:
        label_noise = params.get("label_noise", 0.0)
    method = params.get("decorrelation_method", "symmetric")
    candidates = [(k, lam) for lam in decorrelate_grid for k in ks]
    seed = int(rng.integers(2 ** 31 - 1))

    def eps_for(train):
        return (default_label_noise(train.size) if label_noise == "auto"
                else float(label_noise))

    losses = Parallel(n_jobs=n_jobs)(
        delayed(_fold_losses)(X, y_index, G, tr, te, candidates, standardize, priors,
                              corrected, n_draws, seed, temperature_grid, eps_for(tr), method)
        for tr, te in folds)
    L = np.concatenate(losses, axis=2)                         # (candidates, T, n)
    if by_corr:       # the T each candidate's fit on all the training data would use
        full = [(k, lam, t) for (k, lam), t in zip(
            candidates, _candidate_temperatures(X, y_index, G, candidates, standardize, method),
            strict=True)]
    else:
        full = [(k, lam, t) for (k, lam) in candidates for t in temperature_grid]
    L = L.reshape(len(full), -1)
    score = L.mean(axis=1)
    se = L.std(axis=1, ddof=1) / np.sqrt(L.shape[1])
    if rule is None:
        rule = params.get("choice_rule", "best")
    best = pick_candidate(L, [g[2] for g in full], rule)
    k_best, lam_best, t_best = full[best]
    return KChoice(k=int(k_best), decorrelate=lam_best, temperature=t_best, grid=full,
                   score=score, se=se,
                   criterion="inner_cv_log_score_plugin" + ("_correlation_T" if by_corr else ""),
                   n_splits=n_splits, extra={"k_grid": ks, "case_losses": L, "rule": rule})
