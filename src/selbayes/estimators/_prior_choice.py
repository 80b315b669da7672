"""Inner cross-validation of the prior on the class means (``effect_prior="auto"``).

Every candidate prior (the t prior at a few degrees of freedom, and the normal prior) is scored
by :func:`~selbayes.estimators.choose_k` on the same inner folds with the same seeds, so the
candidates' inner log scores are paired case by case; the prior whose best (k, T) scores lowest
is chosen. A criterion that cannot see the test folds, as k's is (Li 2009 chooses k by
cross-validation; the t prior of BCBCSF, Li 2012, fixes its df).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from numbers import Real

import numpy as np

from ..models._priors import EFFECT_PRIOR_CV_GRID, GaussianPriors
from ._inner_choice import InnerChoice, paired_rows

__all__ = ["PriorChoice", "choose_effect_prior", "effect_prior_candidates",
           "DEFAULT_EFFECT_PRIOR_GRID"]

#: Candidates of ``effect_prior="auto"`` (why these: ``selbayes.models._priors``, where the
#: command line reads them too).
DEFAULT_EFFECT_PRIOR_GRID = EFFECT_PRIOR_CV_GRID


def effect_prior_candidates(priors, grid=DEFAULT_EFFECT_PRIOR_GRID) -> list:
    """The candidate priors of ``effect_prior="auto"``: ``(label, df, GaussianPriors)`` each.

    Parameters
    ----------
    priors : GaussianPriors, dict or None
        The other prior settings (the paper's fitting priors where unset). They must not set
        the effect prior themselves (``mu_t_df``, ``mu_t_df_grid``, ``pi0_a``/``pi0_b``).
    grid : sequence of (float or "normal"), default :data:`DEFAULT_EFFECT_PRIOR_GRID`
        Degrees of freedom of t priors (> 0), and "normal" for the normal prior (None: the
        default).

    Returns
    -------
    list of tuple
        ``(label, df, priors)``; df is None for the normal prior.

    Raises
    ------
    ValueError
        For an empty grid, an entry that is neither a positive number nor "normal", a
        repeated entry, or priors that set the effect prior.

    Examples
    --------
    >>> [(label, df) for label, df, _ in effect_prior_candidates(None, (1, "normal"))]
    [('t (df = 1)', 1.0), ('normal', None)]
    """
    base = GaussianPriors.from_dict(priors)
    set_here = [name for name, on in (("mu_t_df", base.mu_t_df is not None),
                                      ("mu_t_df_grid", base.mu_t_df_grid is not None),
                                      ("pi0_a/pi0_b", base.two_groups)) if on]
    if set_here:
        raise ValueError(f"effect_prior='auto' chooses the prior on the class means itself, "
                         f"but priors set {', '.join(set_here)}: drop them, or pass the family "
                         f"they describe as effect_prior")
    entries = list(DEFAULT_EFFECT_PRIOR_GRID if grid is None else grid)
    if not entries:
        raise ValueError("effect_prior_grid must list at least one candidate (t degrees of "
                         "freedom > 0, or 'normal')")
    out, seen = [], set()
    for entry in entries:
        if isinstance(entry, str) and entry == "normal":
            key, label, df, pr = "normal", "normal", None, base
        elif (isinstance(entry, Real) and not isinstance(entry, bool)
              and np.isfinite(entry) and entry > 0):
            df = float(entry)
            key, label, pr = df, f"t (df = {df:g})", replace(base, mu_t_df=df)
        else:
            raise ValueError(f"effect_prior_grid entries must be t degrees of freedom (numbers "
                             f"> 0) or 'normal'; got {entry!r}")
        if key in seen:
            raise ValueError(f"effect_prior_grid lists {entry!r} twice")
        seen.add(key)
        out.append((label, df, pr))
    return out


@dataclass(frozen=True, kw_only=True)
class PriorChoice(InnerChoice):
    """Outcome of :func:`choose_effect_prior`: one row per candidate prior
    (:class:`~selbayes.estimators._inner_choice.InnerChoice`), with each candidate's df.

    Attributes
    ----------
    labels : list of str
        "t (df = 2)", ..., "normal".
    df : ndarray of shape (n_candidates,)
        The t prior's degrees of freedom (NaN: the normal prior).
    k, temperature, score, se, diff, diff_se, chosen, k_choices
        As in :class:`~selbayes.estimators._inner_choice.InnerChoice`: each candidate's own
        best k and T, its inner cross-validated -log p(true class) (nats) and SE, the paired
        difference to the chosen one and its SE, the chosen index, the inner curves.

    Examples
    --------
    >>> import numpy as np
    >>> ch = PriorChoice(labels=["t (df = 2)", "normal"], df=np.array([2.0, np.nan]),
    ...                  k=np.array([20, 50]), temperature=np.array([1.0, 1.2]),
    ...                  score=np.array([0.30, 0.35]), se=np.array([0.05, 0.05]),
    ...                  diff=np.array([0.0, 0.05]), diff_se=np.array([0.0, 0.02]), chosen=0)
    >>> ch.label, ch.t_df, ch.family
    ('t (df = 2)', 2.0, 't')
    """

    _column = "prior"
    _what = "priors"
    _prefix = "prior_choice"
    _dim = "prior_candidate"
    _extra = ("df",)

    df: np.ndarray

    @property
    def t_df(self) -> float | None:
        """The chosen t prior's degrees of freedom (None: the normal prior)."""
        v = float(self.df[self.chosen])
        return None if np.isnan(v) else v

    @property
    def family(self) -> str:
        """The chosen family: "t" or "normal"."""
        return "normal" if self.t_df is None else "t"


def choose_effect_prior(X, y, candidates, *, random_state=None, **choose_k_settings
                        ) -> PriorChoice:
    """Choose the prior on the class means by inner stratified cross-validated log score.

    Each candidate prior is scored by :func:`~selbayes.estimators.choose_k` with the same inner
    folds and seeds (``random_state`` is turned into one integer seed first), so every
    candidate is judged on the same inner test cases with the same tau_x draws; each gets its
    own best (k, lambda, T) and the candidate whose best scores lowest is chosen.

    Parameters
    ----------
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
    candidates : list of (label, df, GaussianPriors)
        :func:`effect_prior_candidates`.
    random_state : int or numpy.random.Generator, optional
    **choose_k_settings
        Every other argument of :func:`~selbayes.estimators.choose_k` (``grid``,
        ``temperature_grid``, ``corrected``, ``label_noise``, ``cv``, ...) except ``priors``.

    Returns
    -------
    PriorChoice

    Raises
    ------
    TypeError
        If ``priors`` is passed (the candidates carry the priors).
    ValueError
        For the inputs and settings :func:`~selbayes.estimators.choose_k` refuses.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :3] += 2.0 * y[:, None]
    >>> cands = effect_prior_candidates(None, (2.0, "normal"))
    >>> ch = choose_effect_prior(X, y, cands, grid=[3, 30], random_state=0)
    >>> ch.label in ("t (df = 2)", "normal"), ch.table().shape
    (True, (2, 7))
    """
    from .._validation import check_random_state
    from ._inner_cv import choose_k

    if "priors" in choose_k_settings:
        raise TypeError("choose_effect_prior takes the priors as candidates, not priors=")
    seed = int(check_random_state(random_state).integers(2 ** 31 - 1))
    fits = [choose_k(X, y, priors=pr, random_state=seed, **choose_k_settings)
            for _, _, pr in candidates]
    return PriorChoice(
        labels=[label for label, _, _ in candidates],
        df=np.array([np.nan if df is None else df for _, df, _ in candidates]),
        **paired_rows(fits))

