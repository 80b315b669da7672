"""Exact simulators of each selbayes model: parameters from the prior, data given them.

These are the references most statistical tests are built on (prior-predictive checks,
simulation-based calibration, the papers' experiments), so they follow the papers literally:

:func:`gaussian_classification`
    Hierarchical Gaussian classifier (Li 2009 section 3.1, eqs 4-11). Defaults are the settings
    of Experiment 4.1.
:func:`binary_naive_bayes`
    Binary naive Bayes (Li 2007 section 2.3.1). Defaults are the settings of the thesis'
    simulation in section 2.3.5 (alpha fixed at 300).
:func:`binary_mixture`
    Two-component binary mixture with a latent label z (Li 2007 section 2.4.1). Defaults are the
    settings of the thesis' simulation in section 2.4.4.

Conventions
-----------
* ``Gamma(a, b)`` is shape/rate (mean a/b); numpy's generator takes ``scale = 1/b``.
* ``Inverse-Gamma(a, b)``: 1/alpha ~ Gamma(shape a, rate b), i.e. ``scipy.stats.invgamma(a,
  scale=b)``, the density alpha^-(1+a) exp(-b / alpha) of Li 2007 section 2.3.1.
* Class labels are integers ``0..G-1``; for the binary models class 1 is ``y = 1``.
* Class probabilities come from one of: fixed ``class_probs``, a draw from ``Dirichlet(c)``
  (for two classes ``c = (f0, f1)`` is the thesis' Beta(f1, f0) prior on P(y = 1)), or a fixed
  design ``class_counts`` (the thesis' experiments fix the class counts; the rows are shuffled).
* Data are generated in blocks of rows, so memory stays at about one copy of X
  (n x p float64 for the Gaussian model, int8 for the binary ones); nothing loops over features.

Every dataset has ``take(rows)`` and ``split(n_train, ...)``: simulate ``n_train + n_test`` cases
at once and split, so that training and test cases share the same parameters (the papers'
200 training / 5000 or 2000 test cases).

Examples
--------
>>> from selbayes.datasets import gaussian_classification
>>> data = gaussian_classification(5200, 4000, random_state=1)       # Experiment 4.1
>>> train, test = data.split(200, random_state=2)
>>> train.X.shape, test.X.shape, train.mu is test.mu
((200, 4000), (5000, 4000), True)
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive, check_random_state, numeric_array

__all__ = [
    "GaussianClassificationData",
    "BinaryNaiveBayesData",
    "BinaryMixtureData",
    "gaussian_classification",
    "binary_naive_bayes",
    "binary_mixture",
    "train_test_split",
]

# Rows generated per block: bounds the temporaries to _ROW_BLOCK x p.
_ROW_BLOCK = 256


# ---------------------------------------------------------------------------------------------
# containers


class _Cases:
    """Mixin for the per-case fields (``X``, ``y`` and, for the mixture, ``z``)."""

    _case_fields: tuple[str, ...] = ("X", "y")

    @property
    def n_samples(self) -> int:
        """Number of cases n (rows of ``X``)."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features p (columns of ``X``)."""
        return int(self.X.shape[1])

    def take(self, rows):
        """Return the dataset restricted to ``rows`` (indices or boolean mask), same parameters.

        Parameters
        ----------
        rows : array-like of int or bool
            Row indices (numpy's: -n..n-1, negative ones counting from the end), or a
            boolean mask of shape (n,).

        Returns
        -------
        dataset of the same type
            The per-case fields indexed by ``rows``; the parameters are shared, not copied.

        Raises
        ------
        TypeError
            When ``rows`` holds neither integers nor booleans.
        ValueError
            When ``rows`` is not 1-D, a mask is not of length n, or an index is out of range.
        """
        rows = np.asarray(rows)
        n = self.n_samples
        if rows.ndim != 1:
            raise ValueError(f"rows must be 1-D (indices, or a boolean mask of length {n}); "
                             f"got shape {rows.shape}")
        if rows.dtype == np.bool_:
            if rows.shape[0] != n:
                raise ValueError(f"rows as a boolean mask must have length n = {n}; got "
                                 f"{rows.shape[0]}")
        elif rows.dtype.kind in "iu" or rows.size == 0:
            rows = rows.astype(np.int64)
            if rows.size and (rows.min() < -n or rows.max() >= n):
                raise ValueError(f"rows must be indices in -{n}..{n - 1} (negative ones count "
                                 f"from the end); got values from {rows.min()} to "
                                 f"{rows.max()}")
        else:
            raise TypeError(f"rows must be integer indices or a boolean mask; got dtype "
                            f"{rows.dtype}")
        return dataclasses.replace(self, **{f: getattr(self, f)[rows] for f in self._case_fields})

    def split(self, n_train: int, *, stratify: str | None = None, random_state=None):
        """Split into ``(train, test)``; see :func:`train_test_split` for the parameters.

        Returns
        -------
        (train, test) : two datasets of the same type.
        """
        return train_test_split(self, n_train, stratify=stratify, random_state=random_state)


@dataclass(frozen=True, repr=False)
class GaussianClassificationData(_Cases):
    """A draw from the hierarchical Gaussian classifier (Li 2009 eqs 4-11).

    Attributes
    ----------
    X : ndarray of float64, shape (n, p)
    y : ndarray of int64, shape (n,)
        Classes ``0..G-1``.
    psi : ndarray, shape (G,) or None
        Class probabilities (None for a fixed design ``class_counts``).
    mu : ndarray, shape (G, p)
        Class means mu_j^(g).
    nu : ndarray, shape (p,)
        Feature-level means nu_j.
    tau_x : ndarray, shape (p,)
        Within-class precisions tau_j^x (variance of x_j is 1 / tau_x[j]).
    tau_mu, tau_nu : float
        Precision of mu_j^(g) around nu_j, and of nu_j around 0.

    Examples
    --------
    >>> data = gaussian_classification(30, 5, n_classes=3, random_state=0)
    >>> data.X.shape, data.mu.shape, data.n_classes
    ((30, 5), (3, 5), 3)
    """

    X: np.ndarray
    y: np.ndarray
    psi: np.ndarray | None
    mu: np.ndarray
    nu: np.ndarray
    tau_x: np.ndarray
    tau_mu: float
    tau_nu: float

    @property
    def n_classes(self) -> int:
        """Number of classes G (rows of ``mu``)."""
        return int(self.mu.shape[0])

    def __repr__(self) -> str:
        return (f"GaussianClassificationData(n={self.n_samples}, p={self.n_features}, "
                f"G={self.n_classes}, tau_mu={self.tau_mu:.4g}, tau_nu={self.tau_nu:.4g})")


@dataclass(frozen=True, repr=False)
class BinaryNaiveBayesData(_Cases):
    """A draw from the binary naive Bayes model (Li 2007 eqs 2.15-2.26).

    Attributes
    ----------
    X : ndarray of int8, shape (n, p)
        0/1 features.
    y : ndarray of int64, shape (n,)
        0/1 classes.
    psi : ndarray, shape (2,) or None
        (P(y = 0), P(y = 1)); None for a fixed design.
    alpha : float
        Concentration: phi_{y,j} ~ Beta(alpha theta_j, alpha (1 - theta_j)).
    theta : ndarray, shape (p,)
        Feature-level means, Uniform(0, 1).
    phi : ndarray, shape (2, p)
        phi[y, j] = P(x_j = 1 | y).

    Examples
    --------
    >>> data = binary_naive_bayes(20, 4, random_state=0)
    >>> data.X.shape, data.X.dtype, data.phi.shape
    ((20, 4), dtype('int8'), (2, 4))
    """

    X: np.ndarray
    y: np.ndarray
    psi: np.ndarray | None
    alpha: float
    theta: np.ndarray
    phi: np.ndarray

    def __repr__(self) -> str:
        return (f"BinaryNaiveBayesData(n={self.n_samples}, p={self.n_features}, "
                f"alpha={self.alpha:.4g})")


@dataclass(frozen=True, repr=False)
class BinaryMixtureData(_Cases):
    """A draw from the two-component binary mixture (Li 2007 eqs 2.64-2.84).

    The response is "feature 0": y | z ~ Bernoulli(phi0[z]).

    Attributes
    ----------
    X : ndarray of int8, shape (n, p)
    y : ndarray of int64, shape (n,)
    z : ndarray of int64, shape (n,)
        Latent component of each case.
    psi : ndarray, shape (2,) or None
        (P(z = 0), P(z = 1)); None for a fixed design.
    alpha0 : float or None
        Concentration of the response parameters (None when ``phi0`` was fixed).
    alpha : float
        Concentration shared by the features.
    theta0 : float or None
        Mean of the response parameters (None when ``phi0`` was fixed).
    phi0 : ndarray, shape (2,)
        phi0[z] = P(y = 1 | z).
    theta : ndarray, shape (p,)
    phi : ndarray, shape (2, p)
        phi[z, j] = P(x_j = 1 | z).

    Examples
    --------
    >>> data = binary_mixture(20, 4, random_state=0)
    >>> data.X.shape, data.z.shape, data.phi0.tolist()
    ((20, 4), (20,), [0.1, 0.9])
    """

    X: np.ndarray
    y: np.ndarray
    z: np.ndarray
    psi: np.ndarray | None
    alpha0: float | None
    alpha: float
    theta0: float | None
    phi0: np.ndarray
    theta: np.ndarray
    phi: np.ndarray

    _case_fields = ("X", "y", "z")

    def __repr__(self) -> str:
        return (f"BinaryMixtureData(n={self.n_samples}, p={self.n_features}, "
                f"alpha={self.alpha:.4g}, phi0={np.round(self.phi0, 4).tolist()})")


# ---------------------------------------------------------------------------------------------
# helpers


def _check_count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


def _draw_labels(rng, n, G, class_probs, dirichlet_c, class_counts, what="y"):
    """Return (psi or None, labels of shape (n,)) from exactly one way of choosing classes."""
    given = [v is not None for v in (class_probs, dirichlet_c, class_counts)]
    if sum(given) > 1:
        raise ValueError("give at most one of class_probs, dirichlet_c and class_counts")
    if class_counts is not None:
        numeric_array(class_counts, "class_counts", must="hold numbers")
        counts = np.asarray(class_counts)
        if counts.shape != (G,) or counts.dtype.kind not in "iu" or np.any(counts < 0):
            raise ValueError(
                f"class_counts must be {G} non-negative integers; got {np.asarray(class_counts)!r}")
        if int(counts.sum()) == 0:
            raise ValueError(f"class_counts must hold at least one case; got {counts.tolist()}")
        if n is not None and int(counts.sum()) != n:
            raise ValueError(f"class_counts sum to {int(counts.sum())} but n = {n}")
        labels = np.repeat(np.arange(G, dtype=np.int64), counts)
        rng.shuffle(labels)
        return None, labels
    if n is None:
        raise ValueError("n is required unless class_counts is given")
    if dirichlet_c is not None:
        c = numeric_array(dirichlet_c, "dirichlet_c", must="hold numbers")
        if c.shape != (G,) or not np.all(np.isfinite(c)) or np.any(c <= 0):
            raise ValueError(f"dirichlet_c must be {G} positive numbers; got {dirichlet_c!r}")
        psi = rng.dirichlet(c)
    elif class_probs is not None:
        psi = numeric_array(class_probs, "class_probs", must="hold numbers")
        if (psi.shape != (G,) or not np.all(np.isfinite(psi)) or np.any(psi < 0)
                or abs(psi.sum() - 1.0) > 1e-9):
            raise ValueError(
                f"class_probs must be {G} non-negative numbers summing to 1; got {class_probs!r}")
    else:
        psi = np.full(G, 1.0 / G)
    labels = rng.choice(G, size=n, p=psi).astype(np.int64)
    return psi, labels


def _gamma_precision(rng, alpha, w, size=None, name: str = "alpha"):
    """Draw tau ~ Gamma(shape alpha/2, rate alpha w / 2) (Li 2009 eqs 9-11).

    A small shape puts mass below the smallest double: a draw of exactly 0 made the standard
    deviation 1 / sqrt(tau) infinite and the data inf or NaN, with only numpy's warning
    (alpha_x = 0.02 in a quarter of the draws of 500 features)."""
    tau = rng.gamma(alpha / 2.0, 2.0 / (alpha * w), size=size)
    if np.any(tau == 0) or not np.all(np.isfinite(tau)):
        raise ValueError(f"a precision drawn from its Gamma({name} / 2, ...) prior underflowed "
                         f"to 0 ({name} = {alpha:g}: the prior puts mass below 1e-308); use a "
                         f"larger {name}")
    return tau


def _inverse_gamma(rng, a, b):
    """Draw alpha ~ Inverse-Gamma(a, b): 1/alpha ~ Gamma(shape a, rate b)."""
    return float(1.0 / rng.gamma(a, 1.0 / b))


def _alpha(rng, alpha, a, b) -> float:
    """The given alpha (checked), or a draw from its Inverse-Gamma(a, b) prior."""
    if alpha is None:
        return _inverse_gamma(rng, check_positive(a, name="a"), check_positive(b, name="b"))
    return check_positive(alpha, name="alpha")


def _binary_start(random_state, n, p, class_probs, dirichlet_c, class_counts, alpha, a, b):
    """What the binary simulators draw first, in this order: (rng, p, psi, labels, alpha).

    The labels (y of the naive Bayes model, z of the mixture) come from
    :func:`_draw_labels` with two classes, then alpha from :func:`_alpha`; one order keeps the
    two simulators' streams alike for the same seed.
    """
    rng = check_random_state(random_state)
    p = _check_count(p, "p")
    if n is not None:
        n = _check_count(n, "n")
    # the prior of alpha is checked even when alpha is given (a bad value is a mistake either
    # way, and was accepted silently)
    a, b = check_positive(a, name="a"), check_positive(b, name="b")
    psi, labels = _draw_labels(rng, n, 2, class_probs, dirichlet_c, class_counts)
    return rng, p, psi, labels, _alpha(rng, alpha, a, b)


def _uniform_open(rng, size):
    """Uniform(0, 1) without the endpoints, so Beta(alpha theta, alpha (1-theta)) is proper."""
    u = rng.random(size)
    return np.clip(u, np.finfo(float).tiny, 1.0 - np.finfo(float).epsneg)


def _bernoulli_rows(rng, probs_by_label, labels, p):
    """X[i, j] ~ Bernoulli(probs_by_label[labels[i], j]) as int8, in blocks of rows."""
    n = labels.shape[0]
    X = np.empty((n, p), dtype=np.int8)
    for start in range(0, n, _ROW_BLOCK):
        lab = labels[start:start + _ROW_BLOCK]
        u = rng.random((lab.shape[0], p))
        np.less(u, probs_by_label[lab], out=X[start:start + _ROW_BLOCK], casting="unsafe")
    return X


# ---------------------------------------------------------------------------------------------
# simulators


def gaussian_classification(n: int | None, p: int, n_classes: int = 6, *,
                            tau_mu: float | None = 100.0, tau_nu: float | None = 100.0,
                            alpha_x: float = 4.0, w_x: float = 1.0,
                            alpha_mu: float = 1.5, w_mu: float = 0.01,
                            alpha_nu: float = 1.5, w_nu: float = 0.01,
                            class_probs=None, dirichlet_c=None, class_counts=None,
                            random_state=None) -> GaussianClassificationData:
    """Simulate the hierarchical Gaussian classification model (Li 2009 section 3.1).

    Draws, in order: psi and y, tau_mu and tau_nu (when not fixed), nu_j ~ N(0, 1/tau_nu),
    mu_j^(g) ~ N(nu_j, 1/tau_mu), tau_j^x ~ Gamma(alpha_x/2, rate alpha_x w_x/2), and
    x_j^(i) | y^(i) = g ~ N(mu_j^(g), 1/tau_j^x).

    Parameters
    ----------
    n : int or None
        Number of cases (None when ``class_counts`` fixes it).
    p : int
        Number of features.
    n_classes : int
        G >= 2.
    tau_mu, tau_nu : float or None
        Fixed precisions (Experiment 4.1: 100 and 100), or None to draw each from its prior
        Gamma(alpha/2, rate alpha w / 2) with the matching ``alpha_*``, ``w_*``.
    alpha_x, w_x : float
        Prior of the per-feature precisions tau_j^x (E[tau_x] = 1 / w_x).
    alpha_mu, w_mu, alpha_nu, w_nu : float
        Priors of tau_mu and tau_nu, used only when those are None (defaults: the fitting
        priors of Experiment 4.1).
    class_probs : array-like of shape (G,), optional
        Fixed psi; the default is uniform (Experiment 4.1: "y uniform on 1..6").
    dirichlet_c : array-like of shape (G,), optional
        Draw psi ~ Dirichlet(c) (eq 6) instead.
    class_counts : array-like of int, shape (G,), optional
        Fixed design: exactly these many cases per class, in random order.
    random_state : int, Generator or None

    Returns
    -------
    GaussianClassificationData
        ``X`` (n, p) float64, ``y`` (n,) in 0..G-1 and the true parameters.

    Raises
    ------
    TypeError
        When ``n``, ``p`` or ``n_classes`` is not an integer, a precision or prior parameter
        is not a number (a bool or a string included), ``class_probs`` or ``dirichlet_c``
        holds a bool or a string, or ``random_state`` is none of the types above.
    ValueError
        Counts below their minimum, non-positive or non-finite precisions or prior parameters
        (the priors of ``tau_mu`` and ``tau_nu`` are checked even when those are fixed), more
        than one of ``class_probs``, ``dirichlet_c`` and ``class_counts``, class choices of
        the wrong length, that do not match ``n`` or hold no case, or a negative
        ``random_state``.

    Examples
    --------
    >>> data = gaussian_classification(None, 10, n_classes=2, class_counts=(4, 6),
    ...                                random_state=0)
    >>> data.X.shape, sorted(data.y.tolist()).count(1)
    ((10, 10), 6)
    """
    rng = check_random_state(random_state)
    G = _check_count(n_classes, "n_classes", 2)
    p = _check_count(p, "p")
    if n is not None:
        n = _check_count(n, "n")
    alpha_x = check_positive(alpha_x, name="alpha_x")
    w_x = check_positive(w_x, name="w_x")
    # the priors of tau_mu and tau_nu are checked even when those are fixed (a bad value is a
    # mistake either way, and was accepted silently)
    alpha_mu, w_mu = check_positive(alpha_mu, name="alpha_mu"), check_positive(w_mu, name="w_mu")
    alpha_nu, w_nu = check_positive(alpha_nu, name="alpha_nu"), check_positive(w_nu, name="w_nu")
    psi, y = _draw_labels(rng, n, G, class_probs, dirichlet_c, class_counts)
    n = y.shape[0]
    if tau_mu is None:
        tau_mu = float(_gamma_precision(rng, alpha_mu, w_mu, name="alpha_mu"))
    else:
        tau_mu = check_positive(tau_mu, name="tau_mu")
    if tau_nu is None:
        tau_nu = float(_gamma_precision(rng, alpha_nu, w_nu, name="alpha_nu"))
    else:
        tau_nu = check_positive(tau_nu, name="tau_nu")
    nu = rng.normal(0.0, 1.0 / np.sqrt(tau_nu), size=p)
    mu = nu + rng.normal(0.0, 1.0 / np.sqrt(tau_mu), size=(G, p))
    tau_x = _gamma_precision(rng, alpha_x, w_x, size=p, name="alpha_x")
    sd_x = 1.0 / np.sqrt(tau_x)
    X = np.empty((n, p))
    rng.standard_normal(out=X)
    for start in range(0, n, _ROW_BLOCK):                    # in place: no n x p temporaries
        block = X[start:start + _ROW_BLOCK]
        block *= sd_x
        block += mu[y[start:start + _ROW_BLOCK]]
    return GaussianClassificationData(X=X, y=y, psi=psi, mu=mu, nu=nu, tau_x=tau_x,
                                      tau_mu=float(tau_mu), tau_nu=float(tau_nu))


def binary_naive_bayes(n: int | None, p: int, *, alpha: float | None = 300.0,
                       a: float = 0.5, b: float = 5.0, class_probs=None, dirichlet_c=None,
                       class_counts=None, random_state=None) -> BinaryNaiveBayesData:
    """Simulate the binary naive Bayes model (Li 2007 section 2.3.1).

    theta_j ~ Uniform(0, 1); phi_{0,j}, phi_{1,j} | alpha, theta_j iid
    Beta(alpha theta_j, alpha (1 - theta_j)); x_j | y ~ Bernoulli(phi_{y,j}).

    Parameters
    ----------
    n : int or None
        Number of cases (None when ``class_counts`` fixes it).
    p : int
        Number of binary features.
    alpha : float or None
        Fixed concentration (the thesis' simulation: 300), or None to draw it from
        Inverse-Gamma(a, b) (1/alpha ~ Gamma(shape a, rate b)).
    a, b : float
        Inverse-Gamma prior of alpha (thesis: a = 0.5, b = 5), used when ``alpha`` is None.
    class_probs : array-like of shape (2,), optional
        Fixed (P(y=0), P(y=1)); default (1/2, 1/2).
    dirichlet_c : array-like of shape (2,), optional
        ``(f0, f1)``: draw P(y=1) ~ Beta(f1, f0) (eq 2.17).
    class_counts : array-like of int, shape (2,), optional
        Fixed design, e.g. ``(100, 100)`` for the thesis' training set (section 2.3.5).
    random_state : int, Generator or None

    Returns
    -------
    BinaryNaiveBayesData
        ``X`` (n, p) int8, ``y`` (n,) in {0, 1} and the true parameters.

    Raises
    ------
    TypeError
        When ``n`` or ``p`` is not an integer, ``alpha``, ``a`` or ``b`` is not a number (a
        bool or a string included), ``class_probs`` or ``dirichlet_c`` holds a bool or a
        string, or ``random_state`` is none of the types above.
    ValueError
        Counts below 1, non-positive or non-finite ``alpha``, ``a`` or ``b`` (``a`` and ``b``
        are checked even when ``alpha`` is given), more than one of ``class_probs``,
        ``dirichlet_c`` and ``class_counts``, class choices of the wrong length, that do not
        match ``n`` or hold no case, or a negative ``random_state``.

    Examples
    --------
    >>> data = binary_naive_bayes(None, 50, class_counts=(5, 5), random_state=0)
    >>> data.X.shape, int(data.y.sum()), data.alpha
    ((10, 50), 5, 300.0)
    """
    rng, p, psi, y, alpha = _binary_start(random_state, n, p, class_probs, dirichlet_c,
                                          class_counts, alpha, a, b)
    theta = _uniform_open(rng, p)
    phi = rng.beta(alpha * theta, alpha * (1.0 - theta), size=(2, p))
    X = _bernoulli_rows(rng, phi, y, p)
    return BinaryNaiveBayesData(X=X, y=y, psi=psi, alpha=float(alpha), theta=theta, phi=phi)


def binary_mixture(n: int | None, p: int, *, alpha: float | None = 300.0,
                   phi0=(0.1, 0.9), alpha0: float | None = None,
                   a: float = 0.5, b: float = 5.0, a0: float = 0.5, b0: float = 5.0,
                   class_probs=None, dirichlet_c=None, class_counts=None,
                   random_state=None) -> BinaryMixtureData:
    """Simulate the two-component binary mixture (Li 2007 section 2.4.1).

    z ~ Bernoulli(psi) (or a fixed design); the response y is feature 0:
    y | z ~ Bernoulli(phi0[z]); theta_j ~ Uniform(0, 1);
    phi_{0,j}, phi_{1,j} ~ Beta(alpha theta_j, alpha (1 - theta_j)); x_j | z ~ Bernoulli(phi_{z,j}).

    Parameters
    ----------
    n : int or None
        Number of cases (None when ``class_counts`` fixes it).
    p : int
        Number of binary features (the response is not counted).
    alpha : float or None
        Fixed feature concentration (thesis: 300), or None to draw from Inverse-Gamma(a, b).
    phi0 : array-like of shape (2,) or None
        Fixed (P(y=1 | z=0), P(y=1 | z=1)); the thesis' experiment uses (0.1, 0.9). With None the
        response parameters come from the prior: theta_0 ~ U(0, 1), alpha0 (given, or drawn
        from Inverse-Gamma(a0, b0)), phi0[z] ~ Beta(alpha0 theta_0, alpha0 (1 - theta_0)).
    alpha0 : float, optional
        Fixed response concentration, used only when ``phi0`` is None.
    a, b, a0, b0 : float
        Inverse-Gamma priors of alpha and alpha0 (thesis: 0.5 and 5).
    class_probs, dirichlet_c, class_counts
        How z is chosen (as for the class in :func:`binary_naive_bayes`); the thesis fixes
        ``class_counts = (100, 100)`` for z in the training set.
    random_state : int, Generator or None

    Returns
    -------
    BinaryMixtureData
        ``X`` (n, p) int8, ``y`` and ``z`` (n,) in {0, 1} and the true parameters.

    Raises
    ------
    TypeError
        When ``n`` or ``p`` is not an integer, a concentration or prior parameter is not a
        number, ``phi0`` holds a bool or a string, or as in :func:`binary_naive_bayes`.
    ValueError
        Counts below 1, non-positive concentrations or prior parameters (all checked, used or
        not), ``alpha0`` given together with a fixed ``phi0``, a ``phi0`` that is not two
        probabilities, or bad class choices or ``random_state`` (as in
        :func:`binary_naive_bayes`).

    Examples
    --------
    >>> data = binary_mixture(None, 8, phi0=None, class_counts=(3, 3), random_state=0)
    >>> data.X.shape, data.theta0 is not None, data.phi0.shape
    ((6, 8), True, (2,))
    """
    rng, p, psi, z, alpha = _binary_start(random_state, n, p, class_probs, dirichlet_c,
                                          class_counts, alpha, a, b)
    a0, b0 = check_positive(a0, name="a0"), check_positive(b0, name="b0")   # used or not
    if phi0 is None:
        theta0 = float(_uniform_open(rng, None))
        if alpha0 is None:
            alpha0 = _inverse_gamma(rng, a0, b0)
        else:
            alpha0 = check_positive(alpha0, name="alpha0")
        phi0 = rng.beta(alpha0 * theta0, alpha0 * (1.0 - theta0), size=2)
    else:
        if alpha0 is not None:
            raise ValueError("alpha0 is used only when phi0 is None (drawn from the prior)")
        theta0 = None
        phi0 = numeric_array(phi0, "phi0", must="hold numbers")
        if phi0.shape != (2,) or not np.all((phi0 >= 0) & (phi0 <= 1)):
            raise ValueError(f"phi0 must be two probabilities (P(y=1|z=0), P(y=1|z=1)); "
                             f"got {phi0!r}")
    y = (rng.random(z.shape[0]) < phi0[z]).astype(np.int64)
    theta = _uniform_open(rng, p)
    phi = rng.beta(alpha * theta, alpha * (1.0 - theta), size=(2, p))
    X = _bernoulli_rows(rng, phi, z, p)
    return BinaryMixtureData(X=X, y=y, z=z, psi=psi,
                             alpha0=None if alpha0 is None else float(alpha0),
                             alpha=float(alpha), theta0=theta0, phi0=phi0, theta=theta, phi=phi)


# ---------------------------------------------------------------------------------------------
# train / test


def train_test_split(data, n_train: int, *, stratify: str | None = None, random_state=None):
    """Split a simulated dataset into training and test cases that share its parameters.

    Parameters
    ----------
    data : GaussianClassificationData, BinaryNaiveBayesData or BinaryMixtureData
    n_train : int
        Training cases, 1 <= n_train < n; the rest are test cases.
    stratify : {None, "y", "z"}
        None: a uniformly random subset (Experiment 4.1: 200 of 5200 cases). ``"y"`` (or
        ``"z"`` for the mixture): the same fraction of each label in both parts, rounded
        by largest remainder; with ``class_counts = (1100, 1100)`` and ``n_train = 200`` this
        gives the thesis' 100/100 training and 1000/1000 test cases exactly.
    random_state : int, Generator or None

    Returns
    -------
    (train, test) : two datasets of the same type, rows in random order.

    Raises
    ------
    TypeError
        When ``data`` is not a simulated dataset, ``n_train`` is not an integer, or
        ``random_state`` is none of the types above.
    ValueError
        When ``n_train`` is not in 1..n-1, ``stratify`` names no label field of ``data``, or
        ``random_state`` is a negative int.

    Examples
    --------
    >>> data = binary_naive_bayes(None, 3, class_counts=(20, 20), random_state=0)
    >>> train, test = train_test_split(data, 10, stratify="y", random_state=1)
    >>> int(train.y.sum()), int(test.y.sum()), train.phi is data.phi
    (5, 15, True)
    """
    if not isinstance(data, _Cases):
        raise TypeError("data must be a simulated dataset (GaussianClassificationData, "
                        "BinaryNaiveBayesData or BinaryMixtureData); got "
                        f"{type(data).__name__}: for arrays use "
                        "sklearn.model_selection.train_test_split")
    rng = check_random_state(random_state)
    n = data.n_samples
    n_train = _check_count(n_train, "n_train")
    if n_train >= n:
        raise ValueError(f"n_train must be < n = {n}; got {n_train}")
    if stratify is None:
        perm = rng.permutation(n)
        return data.take(perm[:n_train]), data.take(perm[n_train:])
    if stratify not in data._case_fields or stratify == "X":
        raise ValueError(f"stratify must be None or one of "
                         f"{[f for f in data._case_fields if f != 'X']}; got {stratify!r}")
    labels = getattr(data, stratify)
    values, counts = np.unique(labels, return_counts=True)
    quota = counts * (n_train / n)
    take = np.floor(quota).astype(np.int64)
    extra = n_train - int(take.sum())
    take[np.argsort(-(quota - take), kind="stable")[:extra]] += 1
    train_rows, test_rows = [], []
    for v, m in zip(values, take, strict=True):            # loop over classes, not features
        rows = rng.permutation(np.flatnonzero(labels == v))
        train_rows.append(rows[:m])
        test_rows.append(rows[m:])
    train = rng.permutation(np.concatenate(train_rows))
    test = rng.permutation(np.concatenate(test_rows))
    return data.take(train), data.take(test)
