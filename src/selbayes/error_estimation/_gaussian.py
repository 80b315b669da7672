"""BEE and conditional MSE of linear classifiers in the Gaussian model (Dalton 2012, Ch. IV-V).

L. A. Dalton's 2012 dissertation: the BEE in Ch. IV.A (eqs 4.8, 4.10, 4.11), its conditional
MSE in Ch. V.C (eqs 5.12-5.19).

Class y: ``X | y ~ N(mu_y, Sigma_y)`` with a conjugate prior per class; the covariance is known
(``"fixed"``), ``sigma_y^2 I`` (``"scaled_identity"``) or any SPD matrix (``"general"``,
normal-inverse-Wishart). A linear classifier ``psi(x) = 1[w . x + b > 0]`` has class errors
``Phi((-1)^y g(mu_y) / sqrt(w' Sigma_y w))``; their posterior moments are closed forms:

* fixed: ``E = Phi(d)``, ``E2 = Phi(d) - 2 T(d, sqrt(nu*/(nu* + 2)))`` (Owen's T);
* random covariance: ``E = F_t(2 alpha)(A sqrt(alpha / beta))`` (the numerically stable Student-t
  form, no ``(1 - I)/2`` cancellation) and ``E2 = 1[A > 0] I(A^2/(A^2 + 2 beta); 1/2, alpha)
  + R((nu* + 2)/(2 (nu* + 1)), A^2 / (2 beta); alpha)``.

The sign convention is sklearn's: class 1 is predicted where ``decision_function > 0``, so
``weights = coef_`` and ``bias = intercept_``. Any positive rescaling of (w, b) changes nothing.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

from .._validation import check_matrix, check_positive, check_real, labels_1d, numeric_array
from ._common import BEEResult, class_prob_moments, combine_class_moments
from ._special import owen_r

__all__ = [
    "GaussianPrior",
    "GaussianPosterior",
    "ImproperPosteriorError",
    "gaussian_posterior",
    "posterior_from_statistics",
    "linear_class_moments",
    "gaussian_bee_result",
    "gaussian_bee",
    "gaussian_conditional_mse",
]

COV_MODELS = ("fixed", "scaled_identity", "general")


class ImproperPosteriorError(ValueError):
    """The posterior of a class does not normalise, so the BEE is undefined."""


@dataclass(frozen=True, eq=False)  # array fields: identity equality
class GaussianPrior:
    """Conjugate prior of one class (Dalton 2012, eq 4.2), possibly improper.

    Parameters
    ----------
    cov_model : {"general", "scaled_identity", "fixed"}
        Covariance model: any SPD matrix (normal-inverse-Wishart), sigma^2 I, or known.
    nu : float
        Pseudo-count of the mean, ``mu | Sigma ~ N(m, Sigma / nu)``; 0 gives a flat mean prior.
    m : float or array-like of shape (D,)
        Prior mean location (a scalar is repeated).
    kappa : float or None
        Degrees of freedom of the covariance prior; None means flat (Laplace), ``-D - 2``.
        Proper (general model) iff ``kappa > D - 1`` and S is positive definite.
    S : None, float or array-like of shape (D, D)
        Scale matrix (a scalar s gives s I; None gives 0).
    Sigma : None, float or array-like of shape (D, D)
        The known covariance, required for ``cov_model="fixed"`` (a scalar gives s I).

    Raises
    ------
    ValueError
        If ``cov_model`` is unknown, ``nu`` is negative or not finite, ``kappa`` is not finite,
        or ``cov_model="fixed"`` without ``Sigma``. Shape and symmetry of ``m``, ``S`` and
        ``Sigma``, and that ``S`` is positive semi-definite, are checked by :meth:`resolved`,
        once D is known.
    TypeError
        If ``nu`` or ``kappa`` is not a number (a bool or a string included).

    Examples
    --------
    >>> p = GaussianPrior("general", nu=6.0, m=0.0, kappa=3.0, S=0.03)   # low-info, D = 1
    >>> nu, m, kappa, S, Sigma = p.resolved(2)
    >>> m.tolist(), S.tolist(), Sigma is None
    ([0.0, 0.0], [[0.03, 0.0], [0.0, 0.03]], True)
    >>> GaussianPrior.flat(2).kappa
    -4.0
    """

    cov_model: Literal["fixed", "scaled_identity", "general"] = "general"
    nu: float = 0.0
    m: float | np.ndarray = 0.0
    kappa: float | None = None
    S: float | np.ndarray | None = None
    Sigma: float | np.ndarray | None = None

    def __post_init__(self):
        if self.cov_model not in COV_MODELS:
            raise ValueError(f"cov_model must be one of {COV_MODELS}; got {self.cov_model!r}")
        check_positive(self.nu, name="nu", strict=False)
        if self.kappa is not None:
            check_real(self.kappa, name="kappa")
        if self.cov_model == "fixed" and self.Sigma is None:
            raise ValueError("cov_model='fixed' needs the known covariance Sigma")

    @classmethod
    def flat(cls, D: int, cov_model: str = "general") -> GaussianPrior:
        """Flat (Laplace) improper prior: ``kappa = -D - 2``, ``S = 0``, ``nu = 0``.

        The general-model posterior is proper only when ``n_y >= 2 D + 2``.
        """
        return cls(cov_model=cov_model, nu=0.0, m=0.0, kappa=-float(D) - 2.0, S=None)

    @classmethod
    def jeffreys(cls, D: int) -> GaussianPrior:
        """Jeffreys' rule prior of the general model: ``kappa = 0``, ``S = 0``, ``nu = 0``."""
        return cls(cov_model="general", nu=0.0, m=0.0, kappa=0.0, S=None)

    @classmethod
    def known_covariance(cls, Sigma, nu: float = 0.0, m=0.0) -> GaussianPrior:
        """Known covariance ``Sigma`` with a ``N(m, Sigma / nu)`` (flat if nu = 0) mean prior."""
        return cls(cov_model="fixed", nu=nu, m=m, Sigma=Sigma)

    def resolved(self, D: int) -> tuple:
        """Return ``(nu, m (D,), kappa, S (D, D), Sigma (D, D) or None)`` as float arrays."""
        m = _vector(self.m, D, "prior m")
        S = _matrix(self.S, D, "prior S")
        # a scale that is no covariance is no prior at all, though data may make the posterior
        # proper (the estimate came back as if valid); 0 is the flat and Jeffreys priors'
        ev = np.linalg.eigvalsh(S)
        low = float(ev[0])
        # eigenvalues' rounding error grows with D and the largest of them
        if low < -10.0 * D * np.finfo(np.float64).eps * float(np.abs(ev).max()):
            raise ValueError(f"prior S must be positive semi-definite (0 for the flat and "
                             f"Jeffreys priors); its smallest eigenvalue is {low:.3g}")
        Sigma = None
        if self.cov_model == "fixed":
            Sigma = _matrix(self.Sigma, D, "prior Sigma")
            try:
                np.linalg.cholesky(Sigma)
            except np.linalg.LinAlgError as exc:
                raise ValueError(
                    "prior Sigma (known covariance) must be positive definite") from exc
        kappa = -float(D) - 2.0 if self.kappa is None else float(self.kappa)
        return float(self.nu), m, kappa, S, Sigma


def _numeric(v, name):
    """``v`` (None: 0) as a float array, refusing bools and text (float() reads "1" and True)."""
    return numeric_array(0.0 if v is None else v, name)


def _vector(v, D, name):
    arr = _numeric(v, name)
    if arr.ndim == 0:
        arr = np.full(D, float(arr))
    if arr.shape != (D,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite scalar or have shape ({D},); got {arr.shape}")
    return arr


def _matrix(v, D, name):
    arr = _numeric(v, name)
    if arr.ndim == 0:
        arr = float(arr) * np.eye(D)
    if arr.shape != (D, D) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite scalar or have shape ({D}, {D}); "
                         f"got {arr.shape}")
    if not np.allclose(arr, arr.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(arr).max())):
        raise ValueError(f"{name} must be symmetric")
    return 0.5 * (arr + arr.T)


@dataclass(frozen=True, eq=False)
class GaussianPosterior:
    """Posterior hyperparameters of one class (Dalton 2012, eq 4.4), possibly batched.

    Attributes
    ----------
    cov_model : str
        ``"general"``, ``"scaled_identity"`` or ``"fixed"``, from the prior.
    n : ndarray, shape (...)
        Number of class points.
    nu : ndarray, shape (...)
        nu* = nu + n.
    m : ndarray, shape (..., D)
        m* = (n xbar + nu m) / (n + nu).
    kappa : ndarray, shape (...)
        kappa* = kappa + n.
    S : ndarray, shape (..., D, D)
        S* = scatter + S + n nu / (n + nu) (xbar - m)(xbar - m)'.
    Sigma : ndarray of shape (D, D) or None
        Known covariance (fixed model only).

    Examples
    --------
    >>> post = gaussian_posterior([[-1.0], [1.0], [3.0]], GaussianPrior("general", nu=1.0,
    ...                                                                  kappa=2.0, S=1.0))
    >>> float(post.nu), post.m.tolist(), float(post.kappa), post.dim   # m* = 3 * 1 / (3 + 1)
    (4.0, [0.75], 5.0, 1)
    >>> post.S.tolist()                           # 8 + 1 + (3 * 1 / 4) * 1^2
    [[9.75]]
    >>> bool(post.validity()[0])
    True
    """

    cov_model: str
    n: np.ndarray
    nu: np.ndarray
    m: np.ndarray
    kappa: np.ndarray
    S: np.ndarray
    Sigma: np.ndarray | None = None

    @property
    def dim(self) -> int:
        """Feature dimension D."""
        return int(self.m.shape[-1])

    def validity(self) -> tuple[np.ndarray, str]:
        """Boolean mask (batch shape) of proper posteriors and the condition checked.

        Returns ``(ok, condition)``: a bool array of the batch shape (a NumPy bool for one
        posterior) and the condition as text, for error messages.
        """
        D = self.dim
        ok = self.nu > 0
        if self.cov_model == "fixed":
            return ok, "nu* > 0"
        if self.cov_model == "scaled_identity":
            alpha = (self.kappa + D + 1.0) * D / 2.0 - 1.0
            ok = ok & (alpha > 0) & (np.trace(self.S, axis1=-2, axis2=-1) > 0)
            return ok, "nu* > 0, (kappa* + D + 1) D / 2 - 1 > 0 and trace(S*) > 0"
        ok = ok & (self.kappa > D - 1) & (np.linalg.eigvalsh(self.S)[..., 0] > 0)
        return ok, "nu* > 0, kappa* > D - 1 and S* positive definite"


def posterior_from_statistics(n, mean, scatter, prior: GaussianPrior) -> GaussianPosterior:
    """Conjugate update from sufficient statistics, vectorised over a batch of samples.

    Parameters
    ----------
    n : array-like, shape (...)
        Class sizes (>= 0).
    mean : array-like, shape (..., D)
        Class sample means (ignored where n = 0).
    scatter : array-like, shape (..., D, D)
        Scatter matrices ``sum (x - xbar)(x - xbar)'`` = (n - 1) times the sample covariance.
    prior : GaussianPrior
        The class's conjugate prior.

    Returns
    -------
    GaussianPosterior
        Batch shape that of ``n``.

    Raises
    ------
    ValueError
        If ``n`` is not finite and >= 0, ``mean`` is not finite, ``scatter`` is not a finite
        (..., D, D) array, or the prior's ``m``, ``S`` or ``Sigma`` do not fit dimension D,
        are not finite or not symmetric, or ``Sigma`` is not positive definite.
    TypeError
        If ``prior`` is not a GaussianPrior, or a statistic or a prior field is not numeric.

    Examples
    --------
    Two samples at once (batch shape (2,)), D = 1:

    >>> prior = GaussianPrior("general", nu=2.0, m=0.0, kappa=3.0, S=1.0)
    >>> post = posterior_from_statistics([4, 10], [[0.0], [1.0]], [[[5.0]], [[9.0]]], prior)
    >>> post.nu.tolist(), post.kappa.tolist(), post.m.round(4).tolist()
    ([6.0, 12.0], [7.0, 13.0], [[0.0], [0.8333]])
    >>> post.S.round(4).tolist()                    # 9 + 1 + (10 * 2 / 12) * 1^2 for sample 2
    [[[6.0]], [[11.6667]]]
    """
    _check_prior(prior)
    mean = _numeric(mean, "mean")
    if mean.ndim == 0 or not np.isfinite(mean).all():
        raise ValueError("mean must be a finite array of shape (..., D) (class sample means)")
    D = mean.shape[-1]
    nu0, m0, kappa0, S0, Sigma = prior.resolved(D)
    n = _numeric(n, "n")
    if not (np.isfinite(n).all() and (n >= 0).all()):
        raise ValueError("n must hold class sizes (finite, >= 0)")
    scatter = _numeric(scatter, "scatter")
    if scatter.shape[-2:] != (D, D) or not np.isfinite(scatter).all():
        raise ValueError(f"scatter must be a finite array of shape (..., {D}, {D}); got shape "
                         f"{scatter.shape}")
    nu_s = nu0 + n
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(nu_s > 0, n / np.where(nu_s > 0, nu_s, 1.0), 0.0)
        shrink = np.where(nu_s > 0, n * nu0 / np.where(nu_s > 0, nu_s, 1.0), 0.0)
    mean = np.where((n > 0)[..., None], mean, 0.0)
    m_s = w[..., None] * mean + (1.0 - w)[..., None] * m0
    dev = mean - m0
    S_s = scatter + S0 + shrink[..., None, None] * dev[..., :, None] * dev[..., None, :]
    S_s = 0.5 * (S_s + np.swapaxes(S_s, -1, -2))
    return GaussianPosterior(prior.cov_model, n, nu_s, m_s, kappa0 + n, S_s, Sigma)


def gaussian_posterior(X_y, prior: GaussianPrior) -> GaussianPosterior:
    """Posterior of one class from its points ``X_y`` of shape (n_y, D); n_y may be 0.

    Parameters
    ----------
    X_y : array-like, shape (n_y, D)
        The training points of the class (n_y >= 0).
    prior : GaussianPrior
        The class's conjugate prior.

    Returns
    -------
    GaussianPosterior
        Unbatched (scalar ``n``, ``nu``, ``kappa``).

    Raises
    ------
    ValueError
        If ``X_y`` is not a finite 2-D array, or the prior does not fit dimension D (see
        :func:`posterior_from_statistics`).
    TypeError
        If ``X_y`` is not numeric or ``prior`` is not a GaussianPrior.

    Examples
    --------
    >>> post = gaussian_posterior([[-1.5], [-0.5], [0.5], [1.5]],
    ...                           GaussianPrior.known_covariance(1.0))
    >>> float(post.nu), post.m.tolist(), post.S.tolist()
    (4.0, [0.0], [[5.0]])

    Under the flat prior two points in D = 2 do not give a proper posterior:

    >>> bool(gaussian_posterior(np.zeros((2, 2)), GaussianPrior.flat(2)).validity()[0])
    False
    """
    _check_prior(prior)
    X_y = _numeric(X_y, "X_y")
    if X_y.ndim != 2:
        raise ValueError(f"X_y (the class points) must be 2-D (n_y, D); got shape {X_y.shape}")
    if not np.isfinite(X_y).all():
        raise ValueError("X_y (the class points) contains NaN or infinite values")
    n = X_y.shape[0]
    if n == 0:
        return posterior_from_statistics(0, np.zeros(X_y.shape[1]),
                                         np.zeros((X_y.shape[1],) * 2), prior)
    xbar = X_y.mean(axis=0)
    R = X_y - xbar
    return posterior_from_statistics(n, xbar, R.T @ R, prior)


def linear_class_moments(weights, bias, cls: int, posterior: GaussianPosterior):
    """Posterior mean and second moment of the class-``cls`` error of ``1[w . x + b > 0]``.

    Parameters
    ----------
    weights : array-like, shape (..., D)
        ``w`` of ``1[w . x + b > 0]``, in the units 1 / (feature units) of x.
    bias : array-like, shape (...)
        ``b``.
    cls : {0, 1}
        Class whose error is wanted: class 0 errs where w . x + b > 0, class 1 where <= 0.
    posterior : GaussianPosterior
        Its batch shape broadcasts with that of (weights, bias).

    Returns
    -------
    mean, second : ndarray
        E[eps^cls | S_n] and E[(eps^cls)^2 | S_n] (probability and squared probability), of
        the broadcast batch shape. NaN where the posterior is improper.

    Raises
    ------
    ValueError
        If ``cls`` is not 0 or 1, ``weights`` does not end in a dimension of length D, or
        ``weights`` / ``bias`` are not finite.
    TypeError
        If ``posterior`` is not a GaussianPosterior, or ``weights`` / ``bias`` is not
        numeric.

    Examples
    --------
    Known unit variance, flat mean prior and four points with mean 0: mu | S_n ~ N(0, 1/4), and
    class 0 errs where x > 1, so eps^0 = Phi(mu - 1). Check against Gauss-Hermite quadrature:

    >>> from scipy.stats import norm
    >>> post = gaussian_posterior([[-1.5], [-0.5], [0.5], [1.5]],
    ...                           GaussianPrior.known_covariance(1.0))
    >>> mean, second = linear_class_moments([1.0], -1.0, 0, post)
    >>> z, w = np.polynomial.hermite_e.hermegauss(40)
    >>> err = norm.cdf(0.5 * z - 1.0)                 # eps^0 at mu = z / 2
    >>> ref = (w @ err / np.sqrt(2 * np.pi), w @ err**2 / np.sqrt(2 * np.pi))
    >>> round(float(mean), 4), bool(np.allclose((mean, second), ref))
    (0.1855, True)
    """
    if (isinstance(cls, bool | np.bool_) or not isinstance(cls, numbers.Integral)
            or cls not in (0, 1)):
        raise ValueError(f"cls must be the int 0 or 1; got {cls!r}")
    if not isinstance(posterior, GaussianPosterior):
        raise TypeError(f"posterior must be a GaussianPosterior (from gaussian_posterior); got "
                        f"{type(posterior).__name__}")
    a = _numeric(weights, "weights")
    b = _numeric(bias, "bias")
    D = posterior.dim
    if a.ndim == 0 or a.shape[-1] != D:
        raise ValueError(f"weights must have shape (..., {D}); got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("weights must be finite")
    if not np.all(np.isfinite(b)):
        raise ValueError("bias must be finite")
    s = 1.0 if cls == 0 else -1.0
    norm = np.linalg.norm(a, axis=-1)
    const = norm == 0
    safe = np.where(const, 1.0, norm)
    a = a / safe[..., None]
    b = b / safe
    nu = posterior.nu
    valid, _ = posterior.validity()
    with np.errstate(all="ignore"):
        g = np.einsum("...i,...i->...", a, posterior.m) + b
        shrink = np.sqrt(nu / (nu + 1.0))
        if posterior.cov_model == "fixed":
            q = np.einsum("...i,ij,...j->...", a, posterior.Sigma, a)
            d = s * g / np.sqrt(q) * shrink
            mean = special.ndtr(d)
            # M = Phi_2(d, d; 1/(nu* + 1)) via Owen's T
            second = mean - 2.0 * special.owens_t(d, np.sqrt(nu / (nu + 2.0)))
        else:
            if posterior.cov_model == "scaled_identity":
                alpha = (posterior.kappa + D + 1.0) * D / 2.0 - 1.0
                two_beta = np.trace(posterior.S, axis1=-2, axis2=-1) * np.ones_like(g)
            else:
                alpha = (posterior.kappa - D + 1.0) / 2.0
                two_beta = np.einsum("...i,...ij,...j->...", a, posterior.S, a)
            A = s * g * shrink
            alpha = alpha * np.ones_like(A)
            mean = special.stdtr(2.0 * alpha, A * np.sqrt(2.0 * alpha / two_beta))
            x = A * A / (A * A + two_beta)
            y = A * A / two_beta
            second = np.where(A > 0, special.betainc(0.5, alpha, x), 0.0)
            second = second + owen_r((nu + 2.0) / (2.0 * (nu + 1.0)), y, alpha)
        mean, second, valid, const = np.broadcast_arrays(mean, second, valid, const)
        # constant classifier (w = 0): class 0 errs iff b > 0, class 1 iff b <= 0
        const_err = np.broadcast_to((s * b > 0) if cls == 0 else (s * b >= 0), mean.shape)
        mean = np.where(const, const_err.astype(float), mean)
        second = np.where(const, const_err.astype(float), second)
        mean = np.where(valid, mean, np.nan)
        second = np.where(valid, np.minimum(np.maximum(second, mean * mean), mean), np.nan)
    return mean, second


_ON_INVALID = ("raise", "nan", "half")


def _priors(prior, D):
    if isinstance(prior, str | GaussianPrior):
        prior = (prior, prior)
    try:
        pair = tuple(prior)
    except TypeError as exc:
        raise TypeError("prior must be a GaussianPrior, 'flat', 'jeffreys' or a pair of them; "
                        f"got {prior!r}") from exc
    if len(pair) != 2:
        raise ValueError(f"prior pair must have 2 entries (class 0, class 1); got {len(pair)}")
    out = []
    for p in pair:
        if isinstance(p, str):
            if p == "flat":
                p = GaussianPrior.flat(D)
            elif p == "jeffreys":
                p = GaussianPrior.jeffreys(D)
            else:
                raise ValueError(f"prior name must be 'flat' or 'jeffreys'; got {p!r}")
        if not isinstance(p, GaussianPrior):
            raise TypeError(f"prior must be a GaussianPrior or a name; got {type(p).__name__}")
        out.append(p)
    return out


def _check_prior(prior) -> None:
    if not isinstance(prior, GaussianPrior):
        raise TypeError(f"prior must be a GaussianPrior (e.g. GaussianPrior.flat(D)); got "
                        f"{type(prior).__name__}")


def _binary_labels(y, n):
    y = labels_1d(y)
    if y.shape[0] != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}); got shape {y.shape}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must hold class labels 0 and 1 only (c = P(Y = 0))")
    return y.astype(np.int64)


def gaussian_bee_result(weights, bias, X, y, prior="flat", class_prob=None,
                        on_invalid: str = "raise") -> BEEResult:
    """BEE, conditional MSE and per-class moments of a linear classifier, Gaussian model.

    Parameters
    ----------
    weights : array-like, shape (..., D)
        ``w`` of ``psi(x) = 1[w . x + b > 0]`` (sklearn ``coef_``); leading dims batch classifiers.
    bias : float or array-like, shape (...)
        ``b`` (sklearn ``intercept_``).
    X : array-like, shape (n, D)
        Training points (the features the classifier uses).
    y : array-like of {0, 1}, shape (n,)
        Training labels.
    prior : GaussianPrior, "flat", "jeffreys" or a pair (class 0, class 1)
        Conjugate prior of each class. "flat": general model, kappa = -D - 2, which needs at least
        2 D + 2 points per class.
    class_prob : None, float or pair
        Prior on c = P(Y = 0); see :func:`selbayes.error_estimation.class_prob_moments`.
    on_invalid : {"raise", "nan", "half"}
        Improper class posterior: raise :class:`ImproperPosteriorError`, return NaN, or (as the
        source's toolbox) use class error 0.5 (the MSE is then NaN).

    Returns
    -------
    BEEResult
        Errors are probabilities (0..1), the MSE in squared probability units; fields have the
        batch shape of (weights, bias).

    Raises
    ------
    ImproperPosteriorError
        With ``on_invalid="raise"``, when a class posterior is improper (too few points for the
        prior, e.g. fewer than 2 D + 2 under the flat prior).
    ValueError
        If ``on_invalid`` is unknown, ``X`` is not a finite 2-D array, ``y`` is not 0/1 with
        one label per row, ``weights`` does not end in a dimension of length D, a prior name
        is unknown or a prior pair does not have 2 entries, or ``class_prob`` is out of range.
    TypeError
        If ``prior`` or ``class_prob`` has the wrong type, or ``weights`` or ``bias`` is not
        numeric.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (20, 1)), rng.normal(2, 1, (20, 1))])
    >>> y = np.repeat([0, 1], 20)
    >>> r = gaussian_bee_result([1.0], -1.0, X, y)
    >>> bool(0.1 < r.estimate < 0.25) and bool(r.rms < 0.1)
    True
    >>> gaussian_bee_result([1.0], -1.0, X[18:22], y[18:22])     # 2 points per class
    Traceback (most recent call last):
    ...
    selbayes.error_estimation._gaussian.ImproperPosteriorError: class 0 posterior is improper ...
    """
    if on_invalid not in _ON_INVALID:
        raise ValueError(f"on_invalid must be one of {_ON_INVALID}; got {on_invalid!r}")
    X = check_matrix(X)
    y = _binary_labels(y, X.shape[0])
    D = X.shape[1]
    w = _numeric(weights, "weights")
    if w.ndim == 0 or w.shape[-1] != D:
        raise ValueError(f"weights must have shape (..., {D}) to match X; got {w.shape}")
    moments = []
    for cls, p in enumerate(_priors(prior, D)):
        post = gaussian_posterior(X[y == cls], p)
        ok, cond = post.validity()
        if not np.all(ok):
            if on_invalid == "raise":
                raise ImproperPosteriorError(
                    f"class {cls} posterior is improper ({int(post.n)} points, D = {D}): "
                    f"needs {cond}. Use a proper prior, more points, or on_invalid='nan'/'half'"
                )
        e, m2 = linear_class_moments(w, bias, cls, post)
        if on_invalid == "half":
            e = np.where(np.isnan(e), 0.5, e)
        moments.append((e, m2))
    n0, n1 = int(np.sum(y == 0)), int(np.sum(y == 1))
    (e0, m0), (e1, m1) = moments
    return combine_class_moments(e0, m0, e1, m1, class_prob_moments(n0, n1, class_prob))


def gaussian_bee(weights, bias, X, y, prior="flat", class_prob=None, on_invalid="raise"):
    """Bayesian MMSE error estimate of a linear classifier (Dalton 2012, eqs 4.8, 4.10, 4.11).

    Parameters
    ----------
    weights : array-like, shape (..., D)
        ``w`` of ``psi(x) = 1[w . x + b > 0]``; leading dims batch classifiers.
    bias : float or array-like, shape (...)
        ``b``.
    X : array-like, shape (n, D)
        Training points.
    y : array-like of {0, 1}, shape (n,)
        Training labels.
    prior : GaussianPrior, "flat", "jeffreys" or a pair (class 0, class 1)
        Conjugate prior of each class.
    class_prob : None, float or pair
        Prior on c = P(Y = 0).
    on_invalid : {"raise", "nan", "half"}
        Handling of an improper class posterior (see :func:`gaussian_bee_result`).

    Returns
    -------
    float or ndarray
        Posterior expected true error (probability), batch shape of (weights, bias).

    Raises
    ------
    ImproperPosteriorError, ValueError, TypeError
        As :func:`gaussian_bee_result`.

    Examples
    --------
    The BEE is invariant to positive rescaling of (w, b); flipping the sign flips the labels:

    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (20, 1)), rng.normal(2, 1, (20, 1))])
    >>> y = np.repeat([0, 1], 20)
    >>> bee = gaussian_bee([[1.0], [2.0], [-1.0]], [-1.0, -2.0, 1.0], X, y)
    >>> bee.round(4).tolist()
    [0.1039, 0.1039, 0.8961]
    """
    return gaussian_bee_result(weights, bias, X, y, prior, class_prob, on_invalid).estimate


def gaussian_conditional_mse(weights, bias, X, y, prior="flat", class_prob=None,
                             on_invalid="raise"):
    """Sample-conditioned MSE of the Gaussian-model BEE (Dalton 2012, eqs 5.12-5.19).

    The RMS is its square root.

    Parameters
    ----------
    weights : array-like, shape (..., D)
        ``w`` of ``psi(x) = 1[w . x + b > 0]``; leading dims batch classifiers.
    bias : float or array-like, shape (...)
        ``b``.
    X : array-like, shape (n, D)
        Training points.
    y : array-like of {0, 1}, shape (n,)
        Training labels.
    prior : GaussianPrior, "flat", "jeffreys" or a pair (class 0, class 1)
        Conjugate prior of each class.
    class_prob : None, float or pair
        Prior on c = P(Y = 0).
    on_invalid : {"raise", "nan", "half"}
        Handling of an improper class posterior (see :func:`gaussian_bee_result`).

    Returns
    -------
    float or ndarray
        Var(eps | S_n) (squared probability), batch shape of (weights, bias).

    Raises
    ------
    ImproperPosteriorError, ValueError, TypeError
        As :func:`gaussian_bee_result`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (20, 1)), rng.normal(2, 1, (20, 1))])
    >>> y = np.repeat([0, 1], 20)
    >>> mse = gaussian_conditional_mse([[1.0], [1.0]], [-1.0, 0.0], X, y)
    >>> mse.round(5).tolist(), bool(np.all(np.sqrt(mse) < 0.06))
    ([0.00162, 0.00296], True)
    """
    return gaussian_bee_result(weights, bias, X, y, prior, class_prob, on_invalid).mse
