"""The binary naive Bayes model of Li 2007 (section 2.3) as a PyMC model, and its predictive.

Model (thesis sections 2.3.1-2.3.2, eqs 2.15-2.26), for retained features j = 1..k::

    y ~ Bernoulli(psi),            psi ~ Beta(f1, f0)
    x_j | y ~ Bernoulli(phi[y, j]), phi[0, j], phi[1, j] ~ Beta(alpha theta_j, alpha (1 - theta_j))
    theta_j ~ Uniform(0, 1),       alpha ~ InverseGamma(a, scale b)

psi and phi are integrated out analytically (eqs 2.27-2.33): given (alpha, theta_j) the counts
I_{y,j} of ones among the N_y training cases of class y are independent beta-binomials, whose
log-pmf is log U(alpha theta_j, alpha (1 - theta_j), I_{y,j}, O_{y,j}) plus a binomial
coefficient that does not involve the parameters. Only alpha (log transform) and theta_{1:k}
(logit transform) are sampled, and psi enters the predictive as psi_hat = (f1 + N1) / (f0 + f1 + n).

Selection correction (eqs 2.41-2.44): ``pm.Potential("selection_adjustment",
(p - k) * log P(|COR| <= gamma | alpha))`` through the
:class:`selbayes.adjustment.CorrAdjustment` Op, whose table (interpolant in log alpha, from
:class:`selbayes.adjustment.CorrOmitLogProb`) is held in ``pm.Data``. The uncorrected
model keeps the same graph with ``n_omitted = 0`` (and a zero table), so one compiled model
serves both.

Prediction (eqs 2.8, 2.34) is a ratio of posterior averages taken in log space,
P(y* = c | x*) proportional to psi_hat_c * mean_s prod_j Bern(x*_j; phi_hat[s, c, j]) with
phi_hat[s, c, j] = (alpha_s theta_sj + I_{c,j}) / (alpha_s + N_c), never the average of per-draw
conditional probabilities.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pymc.distributions.dist_math import binomln
from scipy.special import logsumexp

from .._special import log_rising_pt
from .._validation import check_binary, check_matrix
from ..adjustment._corr_op import (
    DEFAULT_SPACING,
    DEFAULT_TABLE_RANGE,
    CorrAdjustment,
    corr_parameters,
)
from ..filters._selection import Selection
from ._naive_bayes_quadrature import NaiveBayesPrior, _resolve_selection
from ._packed_data import data_reader

__all__ = ["NaiveBayesPrior", "prior_from_dict", "prior_to_dict", "count_statistics",
           "model_data", "build_model", "sample_nutpie", "predictive_log_proba"]


def prior_from_dict(d) -> NaiveBayesPrior:
    """A :class:`NaiveBayesPrior` from None (the thesis' prior), a prior, or a dict of fields.

    Parameters
    ----------
    d : NaiveBayesPrior, dict or None
        None gives the thesis' prior (a = 0.5, b = 5, f0 = f1 = 1); a prior is returned as is;
        a dict sets some of the fields ``alpha_shape``, ``alpha_scale``, ``f0``, ``f1`` (the
        rest take their defaults).

    Returns
    -------
    NaiveBayesPrior

    Raises
    ------
    TypeError
        If ``d`` is of another type, or a setting is not a number.
    ValueError
        If ``d`` names an unknown setting, or a setting is not positive and finite.

    Examples
    --------
    >>> prior_from_dict({"alpha_scale": 2.0})
    NaiveBayesPrior(alpha_shape=0.5, alpha_scale=2.0, f0=1.0, f1=1.0, pi0_a=None, pi0_b=None)
    >>> prior_from_dict(None) == NaiveBayesPrior()
    True
    """
    return NaiveBayesPrior.from_dict(d)        # one implementation, in models/_priors.py


def prior_to_dict(prior: NaiveBayesPrior) -> dict:
    """The fields of a prior as a plain dict (inverse of :func:`prior_from_dict`).

    Parameters
    ----------
    prior : NaiveBayesPrior

    Returns
    -------
    dict
        ``{"alpha_shape": a, "alpha_scale": b, "f0": f0, "f1": f1}``.

    Examples
    --------
    >>> prior_to_dict(NaiveBayesPrior())
    {'alpha_shape': 0.5, 'alpha_scale': 5.0, 'f0': 1.0, 'f1': 1.0}
    >>> prior_from_dict(prior_to_dict(NaiveBayesPrior(f1=2.0))).f1
    2.0
    """
    return prior.to_dict()


def count_statistics(X_selected, y01):
    """Counts (I0, I1) per feature, shape (k, 2), and class counts (n0, n1).

    Given (alpha, theta) the model depends on the training data only through these counts.

    Parameters
    ----------
    X_selected : array-like of 0/1, shape (n, k)
        Training values of the retained features.
    y01 : array-like of 0/1, shape (n,)
        Training classes.

    Returns
    -------
    counts : ndarray of int64, shape (k, 2)
        ``counts[j, c]``: ones of feature j among the class-c cases.
    class_counts : ndarray of int64, shape (2,)
        (n0, n1).

    Raises
    ------
    ValueError
        If ``X_selected`` is not a finite non-empty 2-D 0/1 matrix, or ``y01`` is not a 0/1
        vector with one entry per row.
    TypeError
        If ``X_selected`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1]]); y = np.array([0, 0, 1])
    >>> counts, class_counts = count_statistics(X, y)
    >>> counts.tolist(), class_counts.tolist()
    ([[2, 0], [1, 1]], [2, 1])
    """
    X = check_matrix(X_selected, name="X_selected")
    check_binary(X, name="X_selected")
    y = np.asarray(y01).ravel()
    if y.shape[0] != X.shape[0] or not np.all((y == 0) | (y == 1)):
        raise ValueError("y must be a 0/1 vector with one entry per row of X_selected")
    in1 = y == 1
    counts = np.stack([X[~in1].sum(axis=0), X[in1].sum(axis=0)], axis=1)
    n1 = int(in1.sum())
    return counts.astype(np.int64), np.array([y.shape[0] - n1, n1], dtype=np.int64)


def _zero_table() -> dict:
    from ..adjustment.backends._numpy_kernels import zero_table

    lo, hi = DEFAULT_TABLE_RANGE
    return zero_table(lo, int(np.ceil((hi - lo) / DEFAULT_SPACING - 1e-9)), DEFAULT_SPACING)


def _resolve(selection, k: int, class_counts, corrected: bool) -> tuple[int, float | None]:
    """(p - k, gamma) from a Selection, a tuple (n_omitted, threshold) or None.

    The checks are those of the quadrature fit (one implementation); a tuple ``(n_omitted,
    None)`` is accepted where gamma is never used (uncorrected, or nothing omitted).
    """
    n0, n1 = int(class_counts[0]), int(class_counts[1])
    if isinstance(selection, tuple) and len(selection) == 2 and selection[1] is None:
        n_omitted, _ = _resolve_selection((selection[0], 0.0), k, n0, n1, corrected)
        if corrected and n_omitted > 0:
            raise ValueError("corrected=True with n_omitted > 0 needs the threshold gamma")
        return n_omitted, None
    return _resolve_selection(selection, k, n0, n1, corrected)


def _is_count(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _accepts_old_call(old_names: tuple[str, ...]):
    """Map the old call ``f(X, y01, n_omitted, threshold, ...)`` to ``f(X, y, selection, ...)``.

    The old call is recognised by a number as third argument (or ``n_omitted=`` by keyword),
    warned about with a FutureWarning and kept working for one release (issue 29: one
    ``model_data`` signature for every model).
    """
    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if not ((len(args) >= 3 and _is_count(args[2])) or "n_omitted" in kwargs):
                return func(*args, **kwargs)
            if len(args) > len(old_names):
                raise TypeError(f"{func.__name__}() takes at most {len(old_names)} positional "
                                f"arguments in the old form; got {len(args)}")
            bound = dict(zip(old_names, args, strict=False))   # fewer args than names
            clash = set(bound) & set(kwargs)
            if clash:
                raise TypeError(f"{func.__name__}() got multiple values for {sorted(clash)}")
            bound.update(kwargs)
            if "y01" in bound:
                bound["y"] = bound.pop("y01")
            warnings.warn(f"{func.__name__}(X, y01, n_omitted, threshold, ...) is deprecated and "
                          f"will be removed in the next release; call {func.__name__}(X, y, "
                          "selection, ...) with a Selection or a tuple (n_omitted, threshold)",
                          FutureWarning, stacklevel=2)
            selection = (bound.pop("n_omitted"), bound.pop("threshold", None))
            return func(bound.pop("X_selected"), bound.pop("y"), selection, **bound)
        return wrapper
    return decorate


@_accepts_old_call(("X_selected", "y01", "n_omitted", "threshold", "corrected", "n_theta",
                    "theta_rule"))
def model_data(X_selected, y, selection: Selection | tuple | None,
               prior: NaiveBayesPrior | dict | None = None, corrected: bool = True, *,
               n_theta: int | None = None, theta_rule: str = "gauss") -> dict:
    """Everything the model reads from the data, as arrays named like its ``pm.Data``.

    The leading parameters are those of :func:`selbayes.models.model_data`. The old
    call ``model_data(X, y01, n_omitted, threshold, ...)`` still works for one release, with a
    FutureWarning.

    Parameters
    ----------
    X_selected : array-like of 0/1, shape (n, k)
        Training values of the retained features.
    y : array-like of 0/1, shape (n,)
        Training classes.
    selection : Selection or tuple (n_omitted, threshold) or None
        What the corrected model conditions on: p - k omitted features all had
        |Cor| <= threshold (gamma). A :class:`selbayes.Selection` must come from
        ``select_features(..., statistic="abs_corr")`` on the same training cases. In a tuple,
        the threshold may be None when it is not used (uncorrected, or ``n_omitted = 0``).
        None is allowed only when ``corrected=False``.
    prior : NaiveBayesPrior or dict, optional
        Checked only: the adjustment P(|COR| <= gamma | alpha) does not depend on the prior, so
        neither do the data (the prior enters the model in :func:`sample_nutpie`).
    corrected : bool
        Fill the adjustment table; otherwise ``n_omitted`` is 0 and the table zero, so the
        uncorrected model has the same graph (and compiled code) as the corrected one.
    n_theta : int, optional
        Theta nodes of the adjustment table's quadrature (default: converged rule).
    theta_rule : str
        Theta rule of the adjustment table (see
        :class:`~selbayes.adjustment.CorrOmitLogProb`, the CorrAdjustment Op's table).

    Returns
    -------
    dict
        ``counts`` (k, 2) int64 ones per class, ``class_counts`` (2,) int64, ``n_omitted``
        (float; 0 when uncorrected), ``adj_coef`` (6, m), ``adj_edges`` (8,), and
        ``_adj_spacing`` (a graph constant, not data).

    Raises
    ------
    ValueError
        If ``corrected`` and p - k > 0 but the threshold is None, if ``selection`` is None while
        ``corrected``, if a Selection is not of ``"abs_corr"`` or does not match ``X_selected``
        and ``y`` (k, class counts), if ``X_selected`` or ``y`` is not 0/1 data of matching
        length, or if the adjustment settings or the prior are invalid.
    TypeError
        If ``selection`` is of another type, ``X_selected`` is not numeric, or ``prior`` is not
        a NaiveBayesPrior, dict or None.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(20, 3)); y = np.repeat([0, 1], 10)
    >>> data = model_data(X, y, (97, 0.3))
    >>> data["counts"].shape, data["class_counts"].tolist(), data["n_omitted"]
    ((3, 2), [10, 10], np.float64(97.0))
    >>> model_data(X, y, (97, 0.3), corrected=False)["n_omitted"]
    np.float64(0.0)

    With a Selection:

    >>> from selbayes import select_features
    >>> Xall = rng.integers(0, 2, size=(20, 50))
    >>> sel = select_features(Xall, y, k=3, statistic="abs_corr")
    >>> model_data(sel.transform(Xall), y, sel)["n_omitted"]
    np.float64(47.0)
    """
    prior_from_dict(prior)                     # checked for a clear error; see Parameters
    counts, class_counts = count_statistics(X_selected, y)
    n_omitted, threshold = _resolve(selection, counts.shape[0], class_counts, corrected)
    data = {"counts": counts, "class_counts": class_counts}
    if corrected and n_omitted > 0:
        _, table = corr_parameters(int(class_counts[0]), int(class_counts[1]), float(threshold),
                                   n_theta=n_theta, theta_rule=theta_rule, label=False)
        data["n_omitted"] = np.float64(n_omitted)
    else:
        table = _zero_table()
        data["n_omitted"] = np.float64(0.0)
    data.update(adj_coef=table["coef"], adj_edges=table["edges"], _adj_spacing=DEFAULT_SPACING)
    return data


@_accepts_old_call(("X_selected", "y01", "n_omitted", "threshold", "prior", "corrected",
                    "feature_names"))
def build_model(X_selected, y, selection: Selection | tuple | None,
                prior: NaiveBayesPrior | dict | None = None, corrected: bool = True, *,
                feature_names=None) -> pm.Model:
    """Build the PyMC model of binary naive Bayes on the retained features.

    The leading parameters are those of :func:`model_data` (and of the Gaussian model's
    ``build_model``); the old call ``build_model(X, y01, n_omitted, threshold, ...)`` still
    works for one release, with a FutureWarning.

    Parameters
    ----------
    X_selected : array-like of 0/1, shape (n, k)
        Training values of the retained features.
    y : array-like of 0/1, shape (n,)
        Training classes.
    selection : Selection or tuple (n_omitted, threshold) or None
        p - k and gamma of the absolute-correlation selection, as in :func:`model_data`.
    prior : NaiveBayesPrior or dict, optional
        Default: the thesis' a = 0.5, b = 5, f0 = f1 = 1.
    corrected : bool
        Add the selection adjustment (otherwise the Potential is multiplied by 0).
    feature_names : sequence, optional
        Labels of the ``feature`` dimension.

    Returns
    -------
    pymc.Model
        Free variables ``alpha`` (log transform) and ``theta`` (k, logit transform); observed
        beta-binomial counts ``I`` (k, 2); Potential ``selection_adjustment``.

    Raises
    ------
    ValueError
        For the data and selection problems listed in :func:`model_data`, or an invalid
        ``prior``.
    TypeError
        If ``prior`` is not a NaiveBayesPrior, dict or None, ``selection`` is of another type,
        or ``X_selected`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(20, 3)); y = np.repeat([0, 1], 10)
    >>> model = build_model(X, y, (97, 0.3))
    >>> [v.name for v in model.free_RVs], [p.name for p in model.potentials]
    (['alpha', 'theta'], ['selection_adjustment'])
    """
    prior = prior_from_dict(prior)
    data = model_data(X_selected, y, selection, prior, corrected)
    k = data["counts"].shape[0]
    coords = {"feature": list(feature_names) if feature_names is not None else list(range(k)),
              "class": [0, 1]}
    return _model_from_data(data, prior, coords)


def _beta_binomial_logp(value, n, a, b, a_plus_b):
    """log BetaBinomial(value | n, a, b) through log rising factorials (exact at any alpha).

    ``a_plus_b`` is alpha itself, passed so that a + b is not rounded.
    """
    return (binomln(n, value) + log_rising_pt(a, value) + log_rising_pt(b, n - value)
            - log_rising_pt(a_plus_b, n))


def _beta_binomial_random(n, a, b, a_plus_b, rng=None, size=None):
    """Draws of the counts (prior and posterior predictive), as pm.BetaBinomial draws them."""
    return rng.binomial(n, rng.beta(a, b, size=size), size=size)


def _model_from_data(data: dict, prior: NaiveBayesPrior, coords: dict, *,
                     packed: bool = False) -> pm.Model:
    """The ``pm.Model`` of ``data`` (see :func:`build_model`); ``packed``: the compiled form,
    every array a static slice of one ``pm.Data`` (:mod:`selbayes.models._packed_data`)."""
    with pm.Model(coords=coords) as model:
        data_var = data_reader(data, packed=packed)
        counts = data_var("counts", dims=("feature", "class"))
        class_counts = data_var("class_counts", dims="class")
        n_omitted = data_var("n_omitted")
        coef = data_var("adj_coef")
        edges = data_var("adj_edges")
        alpha = pm.InverseGamma("alpha", alpha=prior.alpha_shape, beta=prior.alpha_scale)
        theta = pm.Uniform("theta", 0.0, 1.0, dims="feature")
        a = alpha * theta
        # Beta-binomial = prod_y U(alpha theta, alpha (1 - theta), I_y, O_y) (eq 2.33) times a
        # binomial coefficient that does not involve the parameters. Not pm.BetaBinomial: its
        # betaln differences cancel at large alpha (+507 nats at alpha = 1e16 where the exact
        # value is -72, a spurious mode NUTS found); see selbayes._special.
        pm.CustomDist("I", class_counts[None, :], a[:, None], (alpha - a)[:, None],
                      alpha[None, None], logp=_beta_binomial_logp, random=_beta_binomial_random,
                      observed=counts, dims=("feature", "class"))
        # One CorrAdjustment Op (selbayes.adjustment._op); the table is data, so the design
        # (n0, n1, gamma) is too.
        op = CorrAdjustment("table", data["_adj_spacing"])
        log_p = op(pt.log(alpha), coef, edges)
        pm.Potential("selection_adjustment", n_omitted * log_p)
    return model


# ---------------------------------------------------------------------------- sampling
def _cache_key(data: dict, prior: NaiveBayesPrior) -> tuple:
    # the data's names and shapes are added by sample_compiled
    return ("naive_bayes", data["_adj_spacing"], tuple(sorted(prior_to_dict(prior).items())))


def sample_nutpie(data: dict, prior: NaiveBayesPrior, coords: dict, *, draws: int, tune: int,
                  chains: int, seed: int | None, target_accept: float, progressbar: bool):
    """Sample with nutpie, building and compiling the model once per (k, prior) and reusing it.

    Numba compilation takes tens of seconds while a fit samples in about a second, so CV
    folds, SBC replicates and the corrected/uncorrected pair (same graph, ``n_omitted = 0``)
    share one compiled model; only ``pm.Data`` values change between calls
    (:func:`selbayes.models._nutpie.sample_compiled`, shared with the Gaussian model). The
    machine code is also kept on disk (:func:`selbayes._compile_cache.compile_pymc_model`), so
    a later process reuses it; with ``progressbar`` a line on stderr announces a compilation.

    Parameters
    ----------
    data : dict
        From :func:`model_data`.
    prior : NaiveBayesPrior
        Prior of the model (part of the cache key).
    coords : dict
        ``{"feature": labels (k,), "class": [0, 1]}`` for the result's coordinates.
    draws, tune, chains : int
        Kept draws per chain, warm-up draws per chain, and chains.
    seed : int or None
        Seed of nutpie.
    target_accept : float
        NUTS target acceptance probability, in (0, 1).
    progressbar : bool
        Show nutpie's progress bar.

    Returns
    -------
    (xarray.DataTree, pymc.Model)
        The posterior (``alpha`` (chain, draw), ``theta`` (chain, draw, feature)) with
        coordinates relabelled to ``coords``, and the model of this shape and prior as first
        built for the cache (its ``pm.Data`` hold that first fit's values; rebuilding it for
        every fit would cost about as much as a small fit's sampling).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(20, 3)); y = np.repeat([0, 1], 10)
    >>> data = model_data(X, y, (97, 0.3))
    >>> coords = {"feature": [0, 1, 2], "class": [0, 1]}
    >>> idata, model = sample_nutpie(data, NaiveBayesPrior(), coords, draws=200, tune=200,
    ...                              chains=2, seed=1, target_accept=0.9,
    ...                              progressbar=False)  # doctest: +SKIP
    >>> idata["posterior"]["theta"].shape  # doctest: +SKIP
    (2, 200, 3)
    """
    from ._nutpie import sample_compiled

    return sample_compiled(
        _cache_key(data, prior),
        lambda: _model_from_data(data, prior, coords, packed=True),
        data, coords, draws=draws, tune=tune, chains=chains, seed=seed,
        target_accept=target_accept, progressbar=progressbar)


def predictive_log_proba(X_test_selected, alpha_draws, theta_draws, counts, class_counts,
                         prior: NaiveBayesPrior | None = None,
                         max_bytes: float = 2e8) -> np.ndarray:
    """log P(y* = c | x*, training data[, selection]) for c = 0, 1, from posterior draws.

    P(y* = c | x*) is proportional to psi_hat_c * mean_s prod_j Bern(x*_j; phi_hat[s, c, j]),
    phi_hat[s, c, j] = (alpha_s theta_sj + I_cj) / (alpha_s + N_c) (eqs 2.8, 2.32, 2.40); the
    mean over draws is taken in log space (logsumexp).

    Parameters
    ----------
    X_test_selected : array-like of 0/1, shape (T, k)
        Test values of the retained features, in training column order.
    alpha_draws : array-like, shape (S,)
        Posterior draws of alpha (any shape with S elements, e.g. (chains, draws)).
    theta_draws : array-like, shape (S, k)
        Posterior draws of theta, in (0, 1).
    counts : array-like of int, shape (k, 2)
        (I0, I1) of each retained feature in the training data.
    class_counts : array-like of int, shape (2,)
        (N0, N1).
    prior : NaiveBayesPrior, optional
        Supplies (f0, f1) for psi_hat.
    max_bytes : float
        Memory budget of one chunk of test cases (bytes).

    Returns
    -------
    ndarray of shape (T, 2)
        Normalised log probabilities of classes 0 and 1 (nats; rows log-sum-exp to 0).

    Raises
    ------
    ValueError
        If ``X_test_selected`` is not 2-D 0/1 with k columns, the numbers of alpha and theta
        draws differ, ``counts`` or ``class_counts`` have the wrong shape, or ``prior`` is
        invalid.
    TypeError
        If ``prior`` is not a NaiveBayesPrior, dict or None.

    Examples
    --------
    One draw alpha = 2, theta = 0.5 and counts I = (2, 8) of N = (10, 10): phi_hat is
    (1 + 2) / 12 = 0.25 in class 0 and (1 + 8) / 12 = 0.75 in class 1, psi_hat = 0.5, so
    P(y* = 1 | x* = 1) = 0.75:

    >>> import numpy as np
    >>> lp = predictive_log_proba([[1], [0]], [2.0], [[0.5]], [[2, 8]], [10, 10])
    >>> np.round(np.exp(lp), 4).tolist()
    [[0.25, 0.75], [0.75, 0.25]]
    """
    prior = prior_from_dict(prior)
    X = np.asarray(X_test_selected, dtype=np.float64)
    alpha = np.asarray(alpha_draws, dtype=np.float64).ravel()
    theta = np.asarray(theta_draws, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    N = np.asarray(class_counts, dtype=np.float64)
    if theta.ndim != 2:
        raise ValueError(f"theta_draws must have shape (S, k); got {theta.shape}")
    S, k = theta.shape
    if X.ndim != 2 or X.shape[1] != k:
        raise ValueError(f"test data must have shape (T, {k}); got {X.shape}")
    check_binary(X, name="X_test_selected")
    if alpha.shape[0] != S:
        raise ValueError(f"alpha_draws has {alpha.shape[0]} draws but theta_draws has {S}")
    if counts.shape != (k, 2) or N.shape != (2,):
        raise ValueError(f"counts must have shape (k, 2) = ({k}, 2) and class_counts shape "
                         f"(2,); got {counts.shape} and {N.shape}")
    n = N.sum()
    log_psi = np.log(np.array([prior.f0 + N[0], prior.f1 + N[1]])) - math.log(
        prior.f0 + prior.f1 + n)
    a = alpha[:, None] * theta                                           # (S, k)
    b = alpha[:, None] - a
    chunk = max(1, int(max_bytes // (8 * S * 2)))
    out = np.empty((X.shape[0], 2))
    scores = []
    for c in (0, 1):
        den = np.log(alpha + N[c])[:, None]
        l1 = np.log(a + counts[:, c]) - den                              # log phi_hat
        l0 = np.log(b + (N[c] - counts[:, c])) - den                     # log (1 - phi_hat)
        scores.append((l1 - l0, l0.sum(axis=1)))
    for start in range(0, X.shape[0], chunk):
        xb = X[start:start + chunk]
        lp = np.empty((xb.shape[0], 2))
        for c, (diff, base) in enumerate(scores):
            lp[:, c] = logsumexp(xb @ diff.T + base[None, :], axis=1) - math.log(S) + log_psi[c]
        out[start:start + chunk] = lp - logsumexp(lp, axis=1, keepdims=True)
    return out
