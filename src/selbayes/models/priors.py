"""Typed prior settings for the selbayes models."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from .._validation import check_positive

__all__ = ["GaussianPriors"]


@dataclass(frozen=True)
class GaussianPriors:
    """Priors of the hierarchical Gaussian classifier (seed 000 eqs 4-11).

    Each precision tau has a Gamma(shape alpha/2, rate alpha*w/2) prior: ``w`` is the prior
    magnitude of the variance 1/tau (E[tau] = 1/w) and ``alpha`` its precision (alpha <= 2
    gives 1/tau a heavy upper tail). Defaults are the paper's fitting priors.

    Parameters
    ----------
    c : float
        Dirichlet parameter of the class probabilities (all classes alike).
    alpha_x, w_x : float
        Prior of the per-feature noise precision tau_x_j.
    alpha_mu, w_mu : float
        Prior of tau_mu, the precision of class means around the feature mean nu_j:
        small tau_mu means strongly predictive features.
    alpha_nu, w_nu : float
        Prior of tau_nu, the precision of the feature means nu_j around 0.
    w_x_alpha : float or None
        If given, w_x becomes a parameter (a hyperprior, as in BCBCSF, Li 2012) with prior
        Gamma(shape w_x_alpha/2, rate (w_x_alpha/2) / w_x): mean ``w_x``, and the larger
        ``w_x_alpha`` the tighter. Otherwise w_x is fixed at ``w_x``. The selection factor depends
        on tau_mu and w_x only through tau_mu * w_x, so the same adjustment serves both.
    mu_t_df : float or None
        If given, the class means get a multivariate-t prior given nu_j (BCBCSF, Li 2012):
        mu_j | nu_j, lambda_j ~ N(nu_j, 1 / (tau_mu lambda_j)) with a per-feature scale
        lambda_j ~ Gamma(mu_t_df / 2, rate mu_t_df / 2). Heavy tails let a few features be
        strongly predictive without dragging tau_mu down. The adjustment factor then averages
        over lambda as well (one more 1-D quadrature, same accuracy).

    Raises
    ------
    ValueError
        If any setting is not a positive finite number (``w_x_alpha`` and ``mu_t_df`` may be
        None).
    TypeError
        If a setting is not a number.

    Examples
    --------
    >>> from selbayes.models.priors import GaussianPriors
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

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in ("w_x_alpha", "mu_t_df"):
                continue
            check_positive(value, name=f"priors.{f.name}")

    def to_dict(self) -> dict:
        """The settings as a plain dict (JSON-serialisable; inverse of :meth:`from_dict`).

        Returns
        -------
        dict
            One entry per field (``c``, ``alpha_x``, ``w_x``, ...).

        Examples
        --------
        >>> GaussianPriors().to_dict()["w_x"]
        1.0
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> GaussianPriors:
        """Build priors from a (partial) dict of settings; missing fields take the defaults.

        Parameters
        ----------
        d : dict, GaussianPriors or None
            Settings by field name. None gives the defaults; a GaussianPriors is returned as
            is.

        Returns
        -------
        GaussianPriors

        Raises
        ------
        ValueError
            If ``d`` names an unknown setting or a value is not positive and finite.

        Examples
        --------
        >>> GaussianPriors.from_dict({"w_mu": 0.05}) == GaussianPriors(w_mu=0.05)
        True
        >>> GaussianPriors.from_dict(None) == GaussianPriors()
        True
        """
        if d is None:
            return cls()
        if isinstance(d, GaussianPriors):
            return d
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(
                f"unknown prior setting(s) {sorted(unknown)}; "
                f"known: {[f.name for f in fields(cls)]}"
            )
        return cls(**d)
