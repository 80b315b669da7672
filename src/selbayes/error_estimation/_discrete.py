"""BEE and conditional MSE in the discrete model: b bins, Dirichlet priors (Dalton 2012).

L. A. Dalton's 2012 dissertation: the BEE in Ch. III.A (eqs 3.5, 3.6), its conditional MSE in
Ch. V.B (eqs 5.9, 5.10).

The misclassified mass of class y, ``sum_i p_i 1[psi(i) != y]``, is Beta(W_y, n_y + A_y - W_y)
a posteriori, where ``W_y`` sums the posterior Dirichlet parameters over the bins the classifier
assigns to the other class. Everything is rational: no gamma functions are needed.
"""

from __future__ import annotations

import numpy as np

from .._validation import numeric_array
from ._common import BEEResult, class_prob_moments, combine_class_moments

__all__ = ["discrete_bee", "discrete_conditional_mse", "discrete_bee_result"]


def _counts(counts, name):
    arr = np.asarray(counts)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of bin counts; "
                         f"got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be numeric; got dtype {arr.dtype}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold non-negative whole numbers; got {arr.tolist()}")
    return arr


def _alpha(alpha, b, name):
    arr = numeric_array(alpha, f"{name} (Dirichlet parameters)")    # True, "1": no numbers
    if arr.ndim == 0:
        arr = np.full(b, float(arr))
    if arr.shape != (b,):
        raise ValueError(f"{name} must be a scalar or have one entry per bin ({b}); "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} (Dirichlet parameters) must be finite and > 0; "
                         f"got {arr.tolist()}")
    return arr


def discrete_bee_result(labels, counts0, counts1, alpha0=1.0, alpha1=1.0,
                        class_prob=None) -> BEEResult:
    """BEE, its conditional MSE and the per-class moments in the discrete model.

    Parameters
    ----------
    labels : array-like of {0, 1}, shape (..., b)
        The classifier's label for each bin. Leading dimensions batch several classifiers
        (e.g. surrogate or candidate classifiers) evaluated on the same sample.
    counts0, counts1 : array-like of int, shape (b,)
        Training counts per bin in class 0 (U_i) and class 1 (V_i). Empty bins are allowed.
    alpha0, alpha1 : float or array-like of shape (b,)
        Dirichlet prior parameters (> 0) of the bin probabilities of class 0 and class 1.
    class_prob : None, float or pair
        Prior on c = P(Y = 0): None (uniform, updated by the class counts), a float (c known) or a
        pair (a, b) for a Beta(a, b) prior. See :func:`class_prob_moments`.

    Returns
    -------
    BEEResult
        Errors are probabilities (0..1), the MSE in squared probability units; fields have shape
        ``labels.shape[:-1]`` (floats for a single classifier).

    Raises
    ------
    ValueError
        If ``counts0`` / ``counts1`` are not non-empty 1-D arrays of non-negative whole numbers
        of equal length b, ``alpha0`` / ``alpha1`` are not scalars or (b,) arrays of finite
        positive values, ``labels`` does not end in a dimension of length b or holds values
        other than 0 and 1, or ``class_prob`` is out of range.
    TypeError
        If the counts or ``alpha0`` / ``alpha1`` are not numeric, or ``class_prob`` is not
        None, a float or a pair.

    Examples
    --------
    Two bins, bin 0 labelled 0 and bin 1 labelled 1; uniform priors give
    E[c] = 5/10, eps0_hat = (1 + 1)/(4 + 2) and eps1_hat = (0 + 1)/(4 + 2):

    >>> r = discrete_bee_result([0, 1], [3, 1], [0, 4])
    >>> round(float(r.estimate), 4), bool(r.rms <= (1 / (4 * 8)) ** 0.5)
    (0.25, True)
    >>> [round(e, 4) for e in r.class_errors]
    [0.3333, 0.1667]

    The conditional MSE is the posterior variance of the true error; a brute-force check by
    drawing c ~ Beta(1 + 4, 1 + 4) and the bin probabilities from their Dirichlet posteriors:

    >>> rng = np.random.default_rng(0)
    >>> c = rng.beta(5, 5, 100_000)
    >>> p0 = rng.dirichlet([3 + 1, 1 + 1], 100_000)          # class 0: U + alpha0
    >>> p1 = rng.dirichlet([0 + 1, 4 + 1], 100_000)          # class 1: V + alpha1
    >>> eps = c * p0[:, 1] + (1 - c) * p1[:, 0]             # true error of the classifier
    >>> round(r.mse, 5), bool(abs(eps.var() - r.mse) < 3e-4), bool(abs(eps.mean() - 0.25) < 2e-3)
    (0.0147, True, True)
    """
    U = _counts(counts0, "counts0")
    V = _counts(counts1, "counts1")
    if U.shape != V.shape:
        raise ValueError(f"counts0 and counts1 must have the same number of bins; "
                         f"got {U.shape[0]} and {V.shape[0]}")
    b = U.shape[0]
    a0 = _alpha(alpha0, b, "alpha0")
    a1 = _alpha(alpha1, b, "alpha1")
    lab = np.asarray(labels)
    if lab.ndim == 0 or lab.shape[-1] != b:
        raise ValueError(f"labels must have shape (..., {b}), one label per bin; "
                         f"got shape {lab.shape}")
    if not np.all((lab == 0) | (lab == 1)):
        raise ValueError("labels must hold only 0 and 1 (the classifier's label per bin)")
    wrong0 = (lab == 1).astype(float)  # class-0 mass in these bins is misclassified
    wrong1 = (lab == 0).astype(float)
    n0, n1 = U.sum(), V.sum()
    T0, T1 = n0 + a0.sum(), n1 + a1.sum()
    e0 = (wrong0 @ (U + a0)) / T0
    e1 = (wrong1 @ (V + a1)) / T1
    # misclassified mass ~ Beta(W, T - W): variance e(1 - e)/(T + 1)
    m0 = e0 * e0 + e0 * (1.0 - e0) / (T0 + 1.0)
    m1 = e1 * e1 + e1 * (1.0 - e1) / (T1 + 1.0)
    return combine_class_moments(e0, m0, e1, m1, class_prob_moments(n0, n1, class_prob))


def discrete_bee(labels, counts0, counts1, alpha0=1.0, alpha1=1.0, class_prob=None):
    """Bayesian MMSE error estimate of a discrete (binned) classifier (eqs 2.10, 3.5, 3.6).

    Parameters
    ----------
    labels : array-like of {0, 1}, shape (..., b)
        The classifier's label for each of the b bins; leading dimensions batch classifiers.
    counts0, counts1 : array-like of int, shape (b,)
        Training counts per bin in class 0 and class 1.
    alpha0, alpha1 : float or array-like of shape (b,)
        Dirichlet prior parameters (> 0) of the bin probabilities of each class.
    class_prob : None, float or pair
        Prior on c = P(Y = 0) (see :func:`discrete_bee_result`).

    Returns
    -------
    float or ndarray of shape labels.shape[:-1]
        Posterior expected true error, ``E[c] eps0_hat + (1 - E[c]) eps1_hat`` (probability).

    Raises
    ------
    ValueError, TypeError
        For invalid arguments, as :func:`discrete_bee_result`.

    Examples
    --------
    Three candidate classifiers on the same two-bin sample (rows): the sensible one, "always 1"
    and "always 0":

    >>> discrete_bee([[0, 1], [1, 1], [0, 0]], [3, 1], [0, 4]).tolist()
    [0.25, 0.5, 0.5]
    """
    return discrete_bee_result(labels, counts0, counts1, alpha0, alpha1, class_prob).estimate


def discrete_conditional_mse(labels, counts0, counts1, alpha0=1.0, alpha1=1.0, class_prob=None):
    """Sample-conditioned MSE of the discrete BEE, Var(eps | S_n) (Dalton 2012, Ch. V.B).

    Eqs 5.9-5.10 combined with eqs 5.1 and 5.3-5.7; the expanded formula printed after eq 5.7
    lacks a factor alpha^0 + alpha^1 + n in the denominators of its E[c^2] and E[(1 - c)^2] terms
    and is not used.

    Take the square root for the RMS; with ``alpha0 = alpha1 = 1`` and a uniform prior on c it
    never exceeds ``1 / (4 n)``.

    Parameters
    ----------
    labels : array-like of {0, 1}, shape (..., b)
        The classifier's label for each of the b bins; leading dimensions batch classifiers.
    counts0, counts1 : array-like of int, shape (b,)
        Training counts per bin in class 0 and class 1.
    alpha0, alpha1 : float or array-like of shape (b,)
        Dirichlet prior parameters (> 0) of the bin probabilities of each class.
    class_prob : None, float or pair
        Prior on c = P(Y = 0) (see :func:`discrete_bee_result`).

    Returns
    -------
    float or ndarray of shape labels.shape[:-1]
        Var(eps | S_n), in squared probability units.

    Raises
    ------
    ValueError, TypeError
        For invalid arguments, as :func:`discrete_bee_result`.

    Examples
    --------
    Knowing c (here 1/2) removes its share of the uncertainty:

    >>> mse = discrete_conditional_mse([0, 1], [3, 1], [0, 4])
    >>> mse_known_c = discrete_conditional_mse([0, 1], [3, 1], [0, 4], class_prob=0.5)
    >>> round(mse, 5), round(mse_known_c, 5), bool(mse <= 1 / (4 * 8))
    (0.0147, 0.0129, True)
    """
    return discrete_bee_result(labels, counts0, counts1, alpha0, alpha1, class_prob).mse
