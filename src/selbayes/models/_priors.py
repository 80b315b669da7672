"""Typed prior settings for the selbayes models, on one small base.

Every prior is a frozen dataclass deriving from :class:`PriorBase`, which gives it
``from_dict`` (None, an instance or a partial dict of fields; unknown fields are an error),
``to_dict`` (a plain JSON-able dict, the inverse of ``from_dict``) and validation of every
field at construction. The same hyperparameter has the same field name in every prior:
alpha ~ InverseGamma(``alpha_shape``, scale ``alpha_scale``) and psi ~ Beta(``f1``, ``f0``)
in both binary models.

References
----------
.. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
   Bayesian Gaussian classification models. Manuscript (the Gaussian model and its fitting
   priors).
.. [2] Li, L. (2007). Bayesian classification and regression with high dimensional
   features. PhD thesis, University of Toronto (the binary naive Bayes and mixture models).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from .._validation import check_positive, check_real

__all__ = ["PriorBase", "GaussianPriors", "NaiveBayesPrior", "MixturePrior", "EFFECT_PRIORS",
           "T_DF_GRID", "effect_prior_of", "with_effect_prior", "for_centred_features"]


class PriorBase:
    """What every prior shares: ``from_dict``, ``to_dict`` and validation of its fields.

    A subclass is a frozen dataclass of positive finite numbers. Class attributes:
    ``_label`` (the prefix of error messages), ``_optional`` (fields that may be None) and
    ``_aliases`` (other accepted names of fields, mapped to the field name).

    Examples
    --------
    >>> from selbayes.models import NaiveBayesPrior
    >>> NaiveBayesPrior.from_dict({"alpha_scale": 2}).to_dict()
    {'alpha_shape': 0.5, 'alpha_scale': 2.0, 'f0': 1.0, 'f1': 1.0}
    """

    _label: ClassVar[str] = "prior"
    _optional: ClassVar[tuple] = ()
    #: settings added after fits were saved: left out of :meth:`to_dict` when off (None), so
    #: the recorded settings, and the model ids, of fits saved before them are unchanged
    _omit_when_none: ClassVar[tuple] = ()
    _aliases: ClassVar[dict] = {}

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in self._optional:
                continue
            self._check_field(f.name, value)

    def _check_field(self, name: str, value) -> None:
        check_positive(value, name=f"{self._label}.{name}")

    def to_dict(self) -> dict:
        """The settings as a plain dict (JSON-serialisable; inverse of :meth:`from_dict`).

        Returns
        -------
        dict
            One entry per field.

        Examples
        --------
        >>> from selbayes.models import GaussianPriors
        >>> GaussianPriors().to_dict()["w_x"]
        1.0
        """
        out = asdict(self)
        for name in self._omit_when_none:
            if out.get(name, 0) is None:
                del out[name]
        return out

    @classmethod
    def _coerce(cls, key: str, value):
        """Numbers become floats, so equal settings give equal dicts (and model ids)."""
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
        return value

    @classmethod
    def from_dict(cls, d):
        """Build a prior from None (the defaults), a prior (returned as is) or a partial dict.

        Parameters
        ----------
        d : dict, prior instance or None
            Settings by field name (or an accepted alias); missing fields take the defaults.

        Returns
        -------
        PriorBase
            An instance of the class ``from_dict`` is called on.

        Raises
        ------
        TypeError
            If ``d`` is of another type, or a setting is not a number.
        ValueError
            If ``d`` names an unknown setting or a value is not positive and finite.

        Examples
        --------
        >>> from selbayes.models import GaussianPriors
        >>> GaussianPriors.from_dict({"w_mu": 0.05}) == GaussianPriors(w_mu=0.05)
        True
        >>> GaussianPriors.from_dict(None) == GaussianPriors()
        True
        """
        if d is None:
            return cls()
        if isinstance(d, cls):
            return d
        if not isinstance(d, dict):
            raise TypeError(f"{cls._label} must be a {cls.__name__}, a dict or None; got "
                            f"{type(d).__name__}")
        known = [f.name for f in fields(cls)]
        values = {cls._aliases.get(k, k): v for k, v in d.items()}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown prior setting(s) {unknown}; known: {known}")
        return cls(**{k: cls._coerce(k, v) for k, v in values.items()})


class _TwoGroupsSwitch:
    """The on/off switch of the two-groups prior, for priors with the fields ``pi0_a`` and
    ``pi0_b`` (Gaussian and naive Bayes): pi0 ~ Beta(pi0_a, pi0_b), both set or neither."""

    def __post_init__(self):
        super().__post_init__()
        if (self.pi0_a is None) != (self.pi0_b is None):
            raise ValueError(f"{self._label}.pi0_a and {self._label}.pi0_b switch the "
                             "two-groups prior on together: give both (e.g. 1 and 1) or "
                             f"neither; got pi0_a={self.pi0_a!r}, pi0_b={self.pi0_b!r}")

    @property
    def two_groups(self) -> bool:
        """True when the two-groups prior (a share pi0 of null features) is on."""
        return self.pi0_a is not None


@dataclass(frozen=True)
class GaussianPriors(_TwoGroupsSwitch, PriorBase):
    """Priors of the hierarchical Gaussian classifier (Li 2009, eqs 4-11).

    Each precision tau has a Gamma(shape alpha/2, rate alpha*w/2) prior: ``w`` is the prior
    magnitude of the variance 1/tau (E[tau] = 1/w) and ``alpha`` its precision (alpha <= 2
    gives 1/tau a heavy upper tail). Defaults are the paper's fitting priors.

    Parameters
    ----------
    c : float
        Dirichlet parameter of the class probabilities (all classes alike).
    alpha_x, w_x : float
        Prior of the per-feature noise precision tau_x_j (alpha_x in [0.01, 1e6], where the
        selection factor's integral over tau_x stays computable).
    alpha_mu, w_mu : float
        Prior of tau_mu, the precision of class means around the feature mean nu_j:
        small tau_mu means strongly predictive features.
    alpha_nu, w_nu : float
        Prior of tau_nu, the precision of the feature means nu_j around 0. ``alpha_nu=None``:
        a flat (improper) prior on every nu_j instead, so only the contrasts of each
        feature's class means inform the model (the restricted likelihood of Patterson and
        Thompson 1971) and there is no tau_nu. That is the exact model for features centred
        on their training means, as ``standardize=True`` centres them: centring sets every
        feature's overall mean to 0, which the normal prior on nu would read as class means
        that barely vary (tau_nu, then tau_mu, driven up: predictions shrunk towards the
        class frequencies, the more the larger k).
    w_x_alpha : float or None
        If given, w_x becomes a parameter (a hyperprior, as in BCBCSF, Li 2012) with prior
        Gamma(shape w_x_alpha/2, rate (w_x_alpha/2) / w_x): mean ``w_x``, and the larger
        ``w_x_alpha`` the tighter. Otherwise w_x is fixed at ``w_x``. The selection factor depends
        on tau_mu and w_x only through tau_mu * w_x, so the same adjustment serves both.
    mu_t_df : float or None
        If given, the class means get a multivariate-t prior given nu_j (BCBCSF, Li 2012):
        mu_j | nu_j, lambda_j ~ N(nu_j, 1 / (tau_mu lambda_j)) with a per-feature scale
        lambda_j ~ Gamma(mu_t_df / 2, rate mu_t_df / 2), mu_t_df >= 0.1 (below it the
        scales overflow float64). Heavy tails let a few features be
        strongly predictive without dragging tau_mu down. The adjustment factor then averages
        over lambda as well (one more 1-D quadrature, same accuracy).
    mu_t_df_grid : tuple of float or None
        If given (instead of ``mu_t_df``), the degrees of freedom of the t prior are unknown
        with a uniform prior over these values, so the data choose the tails (sparse strong
        markers: small df; effects spread thinly over many features: large df, close to the
        normal prior). The discrete df is summed out exactly, the selection factor inside
        the sum (each df has its own P(F <= gamma)), and NUTS samples the lambda_j; the
        posterior probability of each df is the deterministic ``t_df_prob``.
        ``effect_prior="t_auto"`` sets :data:`T_DF_GRID`.
    pi0_a, pi0_b : float or None
        If given (both or neither), the two-groups prior (Efron 2008): each feature is null
        (mu_j1 = ... = mu_jG = nu_j, no class difference) with probability pi0, and otherwise
        its class means come from the slab above (normal, or t with ``mu_t_df``); the share
        of null features pi0 ~ Beta(``pi0_a``, ``pi0_b``). The indicator of each feature is
        summed out, so NUTS samples pi0 (on the logit scale) and the precisions only; the
        selection factor becomes (p - k) log[pi0 P(F <= gamma | null) + (1 - pi0)
        P(F <= gamma | slab)], where under the null F is a central F(G - 1, n - G) whatever
        tau_x is. Every kept feature gets a posterior probability of being a marker
        (:func:`selbayes.models.marker_probabilities`). Beta(1, 1) is a neutral
        choice: thousands of omitted features pin pi0 down through the factor.

    Notes
    -----
    Which prior on the class means:

    * normal (the default, Li 2009): effects of similar size spread over many features; the
      paper's model, used by the reproductions.
    * t (``mu_t_df``, e.g. 2; BCBCSF): a few strong markers among many weak effects; its
      heavy tails let the strong ones escape the shrinkage that the many weak ones impose.
    * t with unknown df (``mu_t_df_grid``): as the t prior, the tails chosen by the data
      (summed over in the model; the estimator's default ``effect_prior="t_auto"`` picks
      the df of highest plug-in posterior density instead): heavy tails for a few strong
      markers, lighter ones (df 8 to 16) where effects are tiny and dense
      (reports/plasmode/t_auto_flat_nu).
    * two-groups (``pi0_a``, ``pi0_b``): most features have no class difference at all and a
      few are real markers (expression data with thousands of null genes); gives each kept
      feature a posterior marker probability. Combine with ``mu_t_df`` for a t slab.

    Raises
    ------
    ValueError
        If any setting is not a positive finite number (``w_x_alpha``, ``mu_t_df``,
        ``pi0_a`` and ``pi0_b`` may be None), or only one of ``pi0_a``, ``pi0_b`` is given.
    TypeError
        If a setting is not a number.

    References
    ----------
    .. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features
       from Bayesian Gaussian classification models. Manuscript.
    .. [2] Li, L. (2012). Bias-corrected hierarchical Bayesian classification with a selected
       subset of high-dimensional features. JASA 107, 120-134 (the t prior, BCBCSF).
    .. [3] Efron, B. (2008). Microarrays, empirical Bayes and the two-groups model.
       Statistical Science 23, 1-22.
    .. [4] Patterson, H. D. and Thompson, R. (1971). Recovery of inter-block information
       when block sizes are unequal. Biometrika 58, 545-554 (the restricted likelihood).

    Examples
    --------
    >>> from selbayes.models import GaussianPriors
    >>> pri = GaussianPriors(w_mu=0.1)
    >>> pri.alpha_mu, pri.w_mu
    (1.5, 0.1)
    """

    c: float = 1.0
    alpha_x: float = 4.0
    w_x: float = 1.0
    alpha_mu: float = 1.5
    w_mu: float = 0.01
    alpha_nu: float = 1.5
    w_nu: float = 0.01
    w_x_alpha: float | None = None
    mu_t_df: float | None = None
    pi0_a: float | None = None
    pi0_b: float | None = None
    mu_t_df_grid: tuple[float, ...] | None = None

    _label = "priors"
    _optional = ("w_x_alpha", "mu_t_df", "pi0_a", "pi0_b", "mu_t_df_grid", "alpha_nu")
    _omit_when_none = ("mu_t_df_grid",)

    def __post_init__(self):
        super().__post_init__()
        if self.mu_t_df is not None and self.mu_t_df_grid is not None:
            raise ValueError(f"{self._label}: give mu_t_df (a fixed df) or mu_t_df_grid (the "
                             f"df chosen by the data among these values), not both; got "
                             f"mu_t_df={self.mu_t_df!r}, mu_t_df_grid={self.mu_t_df_grid!r}")

    def _check_field(self, name: str, value) -> None:
        if name != "mu_t_df_grid":
            super()._check_field(name, value)
            if name in _COMPUTABLE and value is not None:
                _check_computable(f"{self._label}.{name}", value, *_COMPUTABLE[name])
            return None
        for v in value if isinstance(value, tuple) else ():   # numbers first: sorted() below
            check_positive(v, name=f"{self._label}.mu_t_df_grid")
            _check_computable(f"{self._label}.mu_t_df_grid", v, *_COMPUTABLE["mu_t_df"])
        if (not isinstance(value, tuple) or len(value) < 2 or len(set(value)) != len(value)
                or list(value) != sorted(value)):
            raise ValueError(f"{self._label}.mu_t_df_grid must be a tuple of two or more "
                             f"distinct degrees of freedom in increasing order, e.g. "
                             f"{T_DF_GRID}; got {value!r}")

    @classmethod
    def _coerce(cls, key: str, value):
        if key == "mu_t_df_grid" and isinstance(value, (list, tuple)):
            coerce = super()._coerce                                 # JSON gives a list
            return tuple(coerce(key, v) for v in value)
        return super()._coerce(key, value)

    @property
    def flat_nu(self) -> bool:
        """Whether the feature means nu_j have a flat prior (``alpha_nu=None``)."""
        return self.alpha_nu is None

    @property
    def t_df_values(self) -> tuple | None:
        """The degrees of freedom of the t prior: ``(mu_t_df,)``, ``mu_t_df_grid``, or None
        without a t prior."""
        if self.mu_t_df_grid is not None:
            return self.mu_t_df_grid
        return None if self.mu_t_df is None else (self.mu_t_df,)


#: The range of the settings the selection factor's integrals are computed for, and why.
#: alpha_x: the grid over log T (the noise precisions) grows like 1 / alpha_x below (0.01:
#: 0.8 s and 0.3 GB for 200 points; 1e-5 asked for 4 to 435 GB) and like sqrt(alpha_x) above
#: (1e6: 0.1 s). mu_t_df: below 0.05 the quadrature of the t prior's scales overflows (0.1
#: leaves a margin).
_COMPUTABLE = {"alpha_x": (0.01, 1e6, "the grid of the selection factor's integral over the "
                                      "noise precisions grows without bound outside it"),
               "mu_t_df": (0.1, float("inf"), "a t prior with fewer degrees of freedom puts its "
                                        "scales beyond float64 (a Cauchy prior has 1)")}


def _check_computable(name: str, value, low: float, high: float, why: str) -> None:
    """check_real's range check, its message saying why the range."""
    try:
        check_real(value, name=name, low=low, high=high)
    except ValueError as exc:
        raise ValueError(f"{exc}: {why}") from None


#: The degrees of freedom ``effect_prior="t_auto"`` chooses among (uniform prior): from the
#: Cauchy (1) to nearly normal (64: lambda_j within 0.7 to 1.4 with 98% probability).
T_DF_GRID = (1.0, 2.0, 4.0, 8.0, 16.0, 64.0)


#: Candidates of ``HierarchicalGaussianClassifier(effect_prior="auto")``, chosen among by inner
#: cross-validation: the t prior at these degrees of freedom, and the normal prior. Set before
#: any run of the plasmode suite with it (2026-11-27): 2 is the fixed-df t prior (then the
#: default); 1 (Cauchy) and 4 the neighbours on :data:`T_DF_GRID`; the normal prior is
#: df -> infinity. df 8 to 64 were left out to keep the inner cross-validation about four
#: times that of one t prior.
EFFECT_PRIOR_CV_GRID = (1.0, 2.0, 4.0, "normal")


#: Families of the prior on the class means, and the settings each adds when ``priors`` does
#: not set them: the t prior with 2 degrees of freedom (BCBCSF, Li 2012), the two-groups prior
#: with pi0 ~ Beta(1, 1), the t prior with its df chosen by the data among :data:`T_DF_GRID`,
#: or the paper's exchangeable normal prior (Li 2009).
EFFECT_PRIORS = {"t": {"mu_t_df": 2.0}, "t_auto": {"mu_t_df_grid": T_DF_GRID},
                 "two_groups": {"pi0_a": 1.0, "pi0_b": 1.0}, "normal": {}}


def effect_prior_of(priors) -> str:
    """The family of the prior on the class means that ``priors`` describes.

    Parameters
    ----------
    priors : GaussianPriors, dict or None

    Returns
    -------
    {"normal", "t", "t_auto", "two_groups"}

    Examples
    --------
    >>> effect_prior_of({"mu_t_df": 4}), effect_prior_of(None)
    ('t', 'normal')
    >>> effect_prior_of({"mu_t_df_grid": [1, 8]})
    't_auto'
    """
    p = GaussianPriors.from_dict(priors)
    if p.two_groups:
        return "two_groups"
    return "t" if p.mu_t_df is not None else "t_auto" if p.mu_t_df_grid else "normal"


def for_centred_features(priors) -> GaussianPriors:
    """``priors`` for features centred on their training means: a flat prior on the feature
    means nu_j (``alpha_nu=None``; see :class:`GaussianPriors`).

    Centring makes every feature's overall training mean exactly 0. Under the normal prior on
    nu the model reads that as feature means with no spread and class means that barely
    vary, so tau_mu is pushed up and predictions are shrunk towards the class frequencies,
    the more the more features are kept: on simulated data with 2000 features of one effect
    variance, the plug-in mode of tau_mu rose from 340 at k = 100 to 1980 at k = 1900 on
    centred data, against 240 to 290 on the same data uncentred (truth 278). With the flat
    prior only the contrasts of the class means enter, which centring does not change.

    Parameters
    ----------
    priors : GaussianPriors, dict or None

    Returns
    -------
    GaussianPriors

    Examples
    --------
    >>> for_centred_features(None).flat_nu
    True
    """
    from dataclasses import replace

    priors = GaussianPriors.from_dict(priors)
    return priors if priors.flat_nu else replace(priors, alpha_nu=None)


def with_effect_prior(priors, family: str) -> GaussianPriors:
    """``priors`` with the prior on the class means of ``family`` filled in.

    Settings that ``priors`` gives win (``{"mu_t_df": 4}`` with "t" keeps 4 degrees of
    freedom; ``mu_t_df`` with "two_groups" makes the slab a t); settings of another family are
    an error, so a request is never silently changed.

    Parameters
    ----------
    priors : GaussianPriors, dict or None
        Prior settings (None: the paper's fitting priors).
    family : {"t", "t_auto", "two_groups", "normal"}

    Returns
    -------
    GaussianPriors

    Raises
    ------
    ValueError
        If ``family`` is unknown, or ``priors`` sets the pi0 fields with "t" or "normal", or
        ``mu_t_df`` or ``mu_t_df_grid`` with "normal", or one of them with the family of the
        other ("t" is a fixed df, "t_auto" a grid).

    Examples
    --------
    >>> with_effect_prior(None, "t").mu_t_df
    2.0
    >>> with_effect_prior({"mu_t_df": 4.0}, "two_groups").pi0_a
    1.0
    """
    from dataclasses import replace

    if family not in EFFECT_PRIORS:
        raise ValueError(f"effect_prior must be one of {sorted(EFFECT_PRIORS)}; got {family!r}")
    p = GaussianPriors.from_dict(priors)
    if p.two_groups and family != "two_groups":
        raise ValueError(f"priors set pi0_a/pi0_b (the two-groups prior) but effect_prior is "
                         f"{family!r}: pass effect_prior='two_groups' (with mu_t_df for a t "
                         f"slab)")
    if p.mu_t_df is not None and family in ("normal", "t_auto"):
        raise ValueError(f"priors set mu_t_df (a t prior with fixed df) but effect_prior is "
                         f"{family!r}: pass effect_prior='t', or drop mu_t_df")
    if p.mu_t_df_grid is not None and family in ("normal", "t"):
        raise ValueError(f"priors set mu_t_df_grid (a t prior whose df the data choose) but "
                         f"effect_prior is {family!r}: pass effect_prior='t_auto', or drop "
                         f"mu_t_df_grid")
    missing = {k: v for k, v in EFFECT_PRIORS[family].items() if getattr(p, k) is None}
    return replace(p, **missing) if missing else p


@dataclass(frozen=True)
class NaiveBayesPrior(_TwoGroupsSwitch, PriorBase):
    """Hyperparameters of the binary naive Bayes prior (Li 2007, section 2.3).

    Attributes
    ----------
    alpha_shape, alpha_scale : float
        alpha ~ InverseGamma(shape a, scale b), i.e. 1 / alpha ~ Gamma(a, rate b); the thesis'
        a = 0.5, b = 5 (scipy ``invgamma(a, scale=b)``, PyMC ``InverseGamma(alpha=a, beta=b)``).
    f0, f1 : float
        psi ~ Beta(f1, f0) (f1 pairs with class 1).
    pi0_a, pi0_b : float or None
        The two-groups prior, off by default (None): each feature is null with probability
        pi0 ~ Beta(``pi0_a``, ``pi0_b``), its two class probabilities then equal
        (phi_{0,j} = phi_{1,j} = theta_j ~ U(0, 1)), and otherwise drawn as above. The
        omitted-feature factor becomes (p - k) log[pi0 P(|COR| <= gamma | null) + (1 - pi0)
        P(|COR| <= gamma | alpha)], and every kept feature gets the posterior probability
        of being a marker. Quadrature only
        (:func:`selbayes.models.fit_naive_bayes_two_groups`).

    Raises
    ------
    ValueError
        If a setting is not positive and finite.
    TypeError
        If a setting is not a number.

    References
    ----------
    .. [1] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto.

    Examples
    --------
    >>> from scipy.stats import invgamma
    >>> prior = NaiveBayesPrior()
    >>> round(float(invgamma(prior.alpha_shape, scale=prior.alpha_scale).median()), 2)
    21.98
    >>> NaiveBayesPrior(f1=0.0)
    Traceback (most recent call last):
    ...
    ValueError: prior.f1 must be > 0 and finite; got 0.0
    """

    alpha_shape: float = 0.5
    alpha_scale: float = 5.0
    f0: float = 1.0
    f1: float = 1.0
    pi0_a: float | None = None
    pi0_b: float | None = None

    _optional = ("pi0_a", "pi0_b")
    _omit_when_none = ("pi0_a", "pi0_b")


@dataclass(frozen=True)
class MixturePrior(PriorBase):
    """Fitting prior of the binary mixture (the thesis' values by default).

    Attributes
    ----------
    f0, f1 : float
        psi = P(z = 1) ~ Beta(f1, f0).
    alpha_shape, alpha_scale : float
        alpha ~ Inverse-Gamma(alpha_shape, scale alpha_scale) (1/alpha ~ Gamma(shape
        alpha_shape, rate alpha_scale)): the same prior, with the same field names, as in
        :class:`NaiveBayesPrior`.
    alpha0_shape, alpha0_scale : float
        alpha_0 (response) ~ Inverse-Gamma(alpha0_shape, scale alpha0_scale).

    Notes
    -----
    ``from_dict`` still accepts the thesis' short names ``a``, ``b``, ``a0``, ``b0`` (the names
    of earlier selbayes releases) for ``alpha_shape``, ``alpha_scale``, ``alpha0_shape`` and
    ``alpha0_scale``.

    Raises
    ------
    ValueError
        If a setting is not a finite number > 0.

    References
    ----------
    .. [1] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto, section 2.4.

    Examples
    --------
    >>> prior = MixturePrior()
    >>> prior.alpha_shape, prior.alpha_scale, prior.alpha0_shape, prior.alpha0_scale
    (0.5, 5.0, 0.5, 5.0)
    >>> MixturePrior.from_dict({"alpha_scale": 2}).alpha_scale
    2.0
    >>> MixturePrior.from_dict({"b": 2}) == MixturePrior(alpha_scale=2.0)     # the old name
    True
    """

    f0: float = 1.0
    f1: float = 1.0
    alpha_shape: float = 0.5
    alpha_scale: float = 5.0
    alpha0_shape: float = 0.5
    alpha0_scale: float = 5.0

    _label = "MixturePrior"
    _aliases = {"a": "alpha_shape", "b": "alpha_scale", "a0": "alpha0_shape",
                "b0": "alpha0_scale"}

    def _check_field(self, name: str, v) -> None:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) \
                or v <= 0:
            raise ValueError(f"MixturePrior.{name} must be a finite number > 0; got {v!r}")

    @classmethod
    def _coerce(cls, key: str, v):
        if isinstance(v, bool | str | bytes):      # float() would read True and "1" as 1.0
            raise ValueError(f"MixturePrior.{key} must be a finite number > 0; got {v!r}")
        try:
            return float(v)
        except (TypeError, ValueError):
            raise ValueError(f"MixturePrior.{key} must be a finite number > 0; got {v!r}") from None
