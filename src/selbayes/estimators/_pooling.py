"""The logarithmic pool of predictive distributions and its weights.

Stacking (:func:`~selbayes.estimators.stacking_weights`) averages the models' probabilities:
a linear pool. A linear pool of two forecasts that each are calibrated, and that differ, is
not calibrated: it is less sharp than the information in the two together allows (Ranjan and
Gneiting 2010, Theorem 1). On the plasmode suite the default stacked with the probit model of
all genes showed it where the Gaussian model was calibrated alone (sim_dense_weak: calibration
slope 0.95 alone, 1.28 stacked; reports/plasmode/linear_stack_mcmc), and on the colon
development set the first stack (2026-12-02, before its inner cases were paired right)
expected an error of 0.20 where it made 0.11
(reports/benchmark_microarray_linear_stack_2026-12-02). With the weights fitted on refitted
inner folds the slope in sim_dense_weak is 1.04 (reports/plasmode/refit_inner).

The logarithmic pool multiplies powers of the probabilities instead,
p(c) proportional to prod_j p_j(c)^(w_j): in log odds, a weighted sum of the models' log
odds. With weights summing to 1 it is the geometric mean, the pool that is externally
Bayesian (Genest, McConway and Schervish 1986); the weights here are each in [0, 1] with no
constraint on their sum, chosen like stacking weights by the inner cross-validated log score,
so that the pool can be sharper than either model where they carry different evidence. The
box keeps that bounded: both at 1 is the product of the two predictives, the combination of
two independent pieces of evidence; past it the inner cases could drive the weights without
limit whenever they are all classified correctly. The log score of the pool is concave in the
weights (a linear term minus a log-sum-exp of linear terms), so the optimum over the box is
found by a bounded quasi-Newton method with the exact gradient.
"""

from __future__ import annotations

import numpy as np

__all__ = ["log_pool", "log_pool_weights"]


def _checked(log_proba) -> np.ndarray:
    A = np.asarray(log_proba, dtype=np.float64)
    if A.ndim != 3 or 0 in A.shape:
        raise ValueError(f"log_proba must be a non-empty 3-D array (models x cases x classes); "
                         f"got shape {A.shape}")
    if np.isnan(A).any() or (A > 0).any():
        raise ValueError("log_proba holds NaN or values above 0; log probabilities are <= 0")
    if np.isneginf(A).any():
        raise ValueError("log_proba holds -inf (a probability of exactly 0); the logarithmic "
                         "pool needs every model to give every class some probability")
    return A


def log_pool(log_proba, weights) -> np.ndarray:
    """The logarithmic pool: log p(c) = sum_j w_j log p_j(c) - log sum_c' prod_j p_j(c')^(w_j).

    Parameters
    ----------
    log_proba : array-like of shape (n_models, n_cases, n_classes)
        Each model's log predictive probabilities (nats).
    weights : array-like of shape (n_models,)
        Non-negative powers (need not sum to 1); all 0 gives equal probabilities.

    Returns
    -------
    ndarray of shape (n_cases, n_classes)
        The pool's log probabilities (nats), each row normalised.

    Raises
    ------
    ValueError
        If ``log_proba`` is not a 3-D array of finite log probabilities, or ``weights`` does
        not have one non-negative finite entry per model.

    Examples
    --------
    >>> import numpy as np
    >>> lp = np.log([[[0.8, 0.2]], [[0.6, 0.4]]])         # two models, one case
    >>> np.exp(log_pool(lp, [1.0, 0.0])).round(3)          # the first model alone
    array([[0.8, 0.2]])
    >>> np.exp(log_pool(lp, [1.0, 1.0])).round(3)          # their product: sharper than both
    array([[0.857, 0.143]])
    """
    from scipy.special import logsumexp

    A = _checked(log_proba)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (A.shape[0],) or not np.all(np.isfinite(w)) or (w < 0).any():
        raise ValueError(f"weights must be {A.shape[0]} non-negative finite numbers (one per "
                         f"model); got {weights!r}")
    s = np.tensordot(w, A, axes=1)                           # (n_cases, n_classes)
    return s - logsumexp(s, axis=1, keepdims=True)


def log_pool_weights(log_proba, y) -> np.ndarray:
    """Weights in [0, 1] maximising the mean log score of :func:`log_pool` on held-out cases.

    The objective, mean_i log p_pool(y_i | x_i), is concave in the weights; it is maximised
    over the box [0, 1]^n_models (module docstring: why a box) by L-BFGS-B with its exact
    gradient, mean_i [log p_j(y_i) - sum_c p_pool(c) log p_j(c)], from equal weights 1/2.

    Parameters
    ----------
    log_proba : array-like of shape (n_models, n_cases, n_classes)
        Each model's log predictive probabilities (nats) of held-out cases.
    y : array-like of int, shape (n_cases,)
        Each case's class index (0 .. n_classes - 1).

    Returns
    -------
    ndarray of shape (n_models,)
        Each weight in [0, 1].

    Raises
    ------
    ValueError
        If ``log_proba`` is not a 3-D array of finite log probabilities, or ``y`` does not
        hold one class index per case.

    References
    ----------
    Genest, C., McConway, K. J. and Schervish, M. J. (1986). Characterization of externally
    Bayesian pooling operators. Annals of Statistics 14, 487-501. Ranjan, R. and Gneiting, T.
    (2010). Combining probability forecasts. JRSS B 72, 71-91.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=400); y = (rng.random(400) < 1 / (1 + np.exp(-z))).astype(int)
    >>> a, b = z + rng.normal(size=400), z + rng.normal(size=400)   # two noisy log odds
    >>> lp = np.stack([np.stack([-np.logaddexp(0, t), -np.logaddexp(0, -t)], 1)
    ...                for t in (a, b)])
    >>> w = log_pool_weights(lp, y)
    >>> bool(np.all((w > 0) & (w <= 1)))
    True
    """
    from scipy.optimize import minimize

    A = _checked(log_proba)
    yi = np.asarray(y)
    n_cases, n_classes = A.shape[1:]
    if (yi.shape != (n_cases,) or not np.issubdtype(yi.dtype, np.integer)
            or (yi < 0).any() or (yi >= n_classes).any()):
        raise ValueError(f"y must hold {n_cases} class indices in 0 .. {n_classes - 1}")
    own = A[:, np.arange(n_cases), yi]                       # (n_models, n_cases)

    def loss(w):
        lp = log_pool(A, w)
        p = np.exp(lp)
        value = -lp[np.arange(n_cases), yi].mean()
        grad = -(own - np.einsum("ic,jic->ji", p, A)).mean(axis=1)
        return value, grad

    m = A.shape[0]
    res = minimize(loss, np.full(m, 0.5), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, 1.0)] * m, options={"ftol": 1e-12, "gtol": 1e-9})
    return np.clip(res.x, 0.0, 1.0)
