"""Pieces shared by every BEE model: the class probability c and the combination rule.

Every model supplies four per-class numbers, the posterior mean and second moment of each class
error, E[eps^y] and E[(eps^y)^2]; the prior on ``c = P(Y = 0)`` supplies four moments. Posterior
independence of c, theta_0 and theta_1 then gives the BEE (Dalton 2012, eq 2.10) and its
sample-conditioned MSE, the posterior variance of the true error (eq 5.1).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["ClassProbMoments", "BEEResult", "class_prob_moments", "combine_class_moments"]


@dataclass(frozen=True)
class ClassProbMoments:
    """Posterior moments of ``c = P(Y = 0)``.

    Attributes
    ----------
    mean : float
        E[c].
    second : float
        E[c^2].
    second_complement : float
        E[(1 - c)^2].
    var : float
        Var(c); 0 when c is known.
    """

    mean: float
    second: float
    second_complement: float
    var: float


def class_prob_moments(n0, n1, class_prob=None) -> ClassProbMoments:
    """Posterior moments of c = P(Y = 0) (Dalton 2012, eqs 5.3-5.7).

    Parameters
    ----------
    n0, n1 : int
        Training cases in class 0 and class 1 (non-stratified sampling, n0 ~ Bin(n, c)).
    class_prob : None, float or pair of floats
        ``None``: uniform Beta(1, 1) prior updated by the counts. A float in [0, 1]: c is known
        (the counts are ignored, Var(c) = 0). A pair ``(a, b)`` with a, b > 0: Beta(a, b) prior,
        posterior Beta(a + n0, b + n1).

    Returns
    -------
    ClassProbMoments

    Raises
    ------
    ValueError
        If ``n0`` or ``n1`` is not a whole number >= 0, a known ``class_prob`` is outside
        [0, 1], or Beta parameters are not finite and > 0.
    TypeError
        If ``class_prob`` is not None, a float or a pair of numbers.

    Examples
    --------
    >>> class_prob_moments(3, 1).mean                   # Beta(1 + 3, 1 + 1)
    0.6666666666666666
    >>> class_prob_moments(3, 1, 0.5).var               # c known
    0.0
    """
    n0, n1 = _count(n0, "n0"), _count(n1, "n1")
    if class_prob is None:
        class_prob = (1.0, 1.0)
    if isinstance(class_prob, numbers.Real) and not isinstance(class_prob, bool):
        c = float(class_prob)
        if not 0.0 <= c <= 1.0:
            raise ValueError(f"class_prob, a known P(Y = 0), must lie in [0, 1]; got {c!r}")
        return ClassProbMoments(c, c * c, (1.0 - c) ** 2, 0.0)
    try:
        if isinstance(class_prob, str | bytes) or any(
                isinstance(v, bool | np.bool_ | str | bytes) for v in class_prob):
            raise TypeError
        a, b = (float(v) for v in class_prob)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "class_prob must be None, a float in [0, 1] (known c) or a pair (a, b) of Beta "
            f"prior parameters; got {class_prob!r}"
        ) from exc
    if not (np.isfinite(a) and np.isfinite(b) and a > 0 and b > 0):
        raise ValueError(f"class_prob Beta parameters must be finite and > 0; got {(a, b)}")
    a, b = a + n0, b + n1
    N = a + b
    return ClassProbMoments(
        mean=a / N,
        second=a * (a + 1.0) / (N * (N + 1.0)),
        second_complement=b * (b + 1.0) / (N * (N + 1.0)),
        var=a * b / (N * N * (N + 1.0)),
    )


def _count(n, name: str) -> float:
    """A class count as a float, refusing what is not a whole number >= 0."""
    if isinstance(n, bool | np.bool_ | str | bytes):
        raise ValueError(f"{name} must be a whole number >= 0 (cases in the class); got {n!r}")
    try:
        v = float(n)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number >= 0 (cases in the class); got "
                         f"{n!r}") from None
    if not np.isfinite(v) or v < 0 or v != round(v):
        raise ValueError(f"{name} must be a whole number >= 0 (cases in the class); got {n!r}")
    return v


@dataclass(frozen=True)
class BEEResult:
    """Bayesian MMSE error estimate with its sample-conditioned MSE.

    Array-valued fields have the batch shape of the classifiers passed in (``()`` for one).

    Attributes
    ----------
    estimate : float or ndarray
        The BEE, E[eps | S_n] (probability scale, 0..1).
    mse : float or ndarray
        MSE(BEE | S_n) = Var(eps | S_n).
    class_errors : tuple of (float or ndarray)
        (E[eps^0 | S_n], E[eps^1 | S_n]).
    class_second_moments : tuple of (float or ndarray)
        (E[(eps^0)^2 | S_n], E[(eps^1)^2 | S_n]).
    class_prob : ClassProbMoments
    """

    estimate: float | np.ndarray
    mse: float | np.ndarray
    class_errors: tuple
    class_second_moments: tuple
    class_prob: ClassProbMoments

    @property
    def rms(self):
        """Square root of :attr:`mse`."""
        return np.sqrt(self.mse)

    def mse_of(self, other_estimate):
        """Sample-conditioned MSE of any other estimate from the same sample (Dalton 2012, eq 5.8).

        ``MSE(other | S_n) = MSE(BEE | S_n) + (BEE - other)^2``.
        """
        return self.mse + (self.estimate - np.asarray(other_estimate, dtype=float)) ** 2

    def rms_of(self, other_estimate):
        """Square root of :meth:`mse_of`."""
        return np.sqrt(self.mse_of(other_estimate))


def _scalar(v):
    v = np.asarray(v, dtype=float)
    return float(v) if v.ndim == 0 else v


def combine_class_moments(e0, m0, e1, m1, cm: ClassProbMoments) -> BEEResult:
    """Combine per-class posterior moments into the BEE and its MSE (Dalton 2012, eqs 2.10, 5.1).

    Uses the variance form (5.1), with each class variance clipped at 0 against round-off, rather
    than the raw second moments of (5.2), to avoid cancellation.
    """
    e0, m0, e1, m1 = (np.asarray(v, dtype=float) for v in (e0, m0, e1, m1))
    var0 = np.maximum(m0 - e0 * e0, 0.0)
    var1 = np.maximum(m1 - e1 * e1, 0.0)
    estimate = cm.mean * e0 + (1.0 - cm.mean) * e1
    mse = cm.var * (e0 - e1) ** 2 + cm.second * var0 + cm.second_complement * var1
    return BEEResult(
        estimate=_scalar(estimate),
        mse=_scalar(mse),
        class_errors=(_scalar(e0), _scalar(e1)),
        class_second_moments=(_scalar(m0), _scalar(m1)),
        class_prob=cm,
    )
