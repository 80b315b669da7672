"""MCMC convergence diagnostics in one call: R-hat, bulk/tail ESS, divergences and BFMI.

The diagnostics are ArviZ 1.x's (``arviz_stats``): rank-normalised split R-hat and bulk/tail
effective sample sizes (Vehtari et al. 2021), and the energy BFMI (Betancourt 2016). ArviZ loops
over scalar components in Python, so for vector parameters this module runs a vectorised copy of
the same algorithms (checked against ArviZ to 1e-8 in the tests; ``engine="arviz"`` uses ArviZ
itself). It gathers everything into one tidy table and says, in a :class:`SamplingWarning`, what
fails the usual thresholds.

``pm.sample`` (PyMC 6) returns an ``xarray.DataTree`` with groups ``posterior`` and
``sample_stats``; Gibbs or custom samplers may have no ``sample_stats`` at all, in which case the
divergence and BFMI checks are skipped and say so.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from itertools import product

import numpy as np
import pandas as pd
import xarray as xr

__all__ = ["SamplingWarning", "PriorBoundaryWarning", "GridBoundaryWarning", "check",
           "sampler_summary", "warn_from_user_line"]

SAMPLE_DIMS = ("chain", "draw")


class SamplingWarning(UserWarning):
    """MCMC output fails a convergence or sampler-health threshold.

    Emitted by :func:`check` (and so by the classifiers' ``fit``); filter it with the standard
    :mod:`warnings` machinery.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", SamplingWarning)
    ...     try:
    ...         warnings.warn("R-hat 1.2", SamplingWarning)
    ...     except SamplingWarning as w:
    ...         print(w)
    R-hat 1.2
    """


class PriorBoundaryWarning(UserWarning):
    """The posterior sits against a prior (or a grid) that it cannot leave.

    A hyperparameter whose posterior median lies beyond its prior's 0.1% or 99.9% quantile is
    in conflict with its prior (typically: X in other units than the prior assumes); the
    message says whether the prior holds it there or the data put it there against the prior
    (``prior_pull`` in ``prior_checks_``).
    Convergence diagnostics do not see this, since the sampler explores the prior-bounded
    posterior perfectly well. Emitted by the Gaussian classifier's ``fit``.

    Examples
    --------
    >>> issubclass(PriorBoundaryWarning, UserWarning)
    True
    """


class GridBoundaryWarning(PriorBoundaryWarning):
    """A value chosen over a finite grid (k, the temperature) is at the grid's end, so a value
    beyond the grid may be better: the grid acts as a prior the choice cannot leave.

    Examples
    --------
    >>> issubclass(GridBoundaryWarning, PriorBoundaryWarning)
    True
    """


def warn_from_user_line(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the user's line
    (:func:`selbayes._validation.warn_at_user`, under this module's older name).

    Parameters
    ----------
    message : str
    category : Warning subclass

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_from_user_line("look", UserWarning)
    >>> str(w[0].message)
    'look'
    """
    from .._validation import warn_at_user

    warn_at_user(message, category)


# ---------------------------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------------------------
def _groups(idata) -> tuple[xr.Dataset, xr.Dataset | None]:
    """Return (posterior, sample_stats or None) as xarray Datasets."""
    if isinstance(idata, xr.Dataset):
        return idata, None
    if hasattr(idata, "idata_") and hasattr(idata, "classes_"):     # a fitted classifier
        idata = idata.idata_
    if not isinstance(idata, xr.DataTree):
        try:
            from arviz_base import convert_to_datatree

            idata = convert_to_datatree(idata)
        except Exception as exc:
            raise TypeError(
                "idata must be an xarray DataTree (what pm.sample returns), an xarray Dataset "
                f"of posterior draws, or something arviz can convert; got {type(idata).__name__}"
            ) from exc
    if "posterior" not in idata.children:
        if "alpha_grid" in idata.children:
            raise ValueError(
                "this fit has no draws: it was computed by quadrature (method='quadrature'), "
                "which is deterministic, so there are no chains to diagnose; MCMC diagnostics "
                "apply to fits with method='mcmc'")
        raise ValueError(
            f"idata has no draws (no 'posterior' group); groups present: "
            f"{sorted(idata.children)}"
        )
    if _fit_method(idata) == "plugin":
        raise ValueError(
            "this fit has no MCMC draws: method='plugin' fixes the hyperparameters at their "
            "posterior mode and draws the rest independently, so there are no chains to "
            "diagnose (R-hat, ESS); MCMC diagnostics apply to fits with method='mcmc'")
    post = idata["posterior"].to_dataset()
    stats = idata["sample_stats"].to_dataset() if "sample_stats" in idata.children else None
    return post, stats


def _fit_method(idata) -> str | None:
    """The ``method`` a selbayes classifier recorded in ``idata.attrs`` (None otherwise)."""
    import json

    try:
        return json.loads(idata.attrs["selbayes_config"]).get("method")
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _select(post: xr.Dataset, var_names) -> xr.Dataset:
    missing_dims = [d for d in SAMPLE_DIMS if d not in post.dims]
    if missing_dims:
        raise ValueError(
            f"the posterior must have dimensions {SAMPLE_DIMS}; missing {missing_dims}"
        )
    if var_names is None:
        names = [v for v in post.data_vars
                 if set(SAMPLE_DIMS) <= set(post[v].dims) and post[v].dtype.kind in "biuf"]
    else:
        names = [var_names] if isinstance(var_names, str) else list(var_names)
        unknown = [v for v in names if v not in post.data_vars]
        if unknown:
            raise ValueError(
                f"var_names {unknown} not in the posterior; available: {list(post.data_vars)}"
            )
    if not names:
        raise ValueError("no numeric posterior variable with (chain, draw) dimensions to check")
    # (chain, draw, ...) order, float so that arviz's rank transforms accept bool/int draws
    return xr.Dataset(
        {v: post[v].transpose(*SAMPLE_DIMS, ...).astype(np.float64) for v in names}
    )


def _labels(da: xr.DataArray, name: str) -> list[str]:
    if da.ndim == 0:
        return [name]
    coords = [da.coords[d].values if d in da.coords else np.arange(da.sizes[d]) for d in da.dims]
    return [f"{name}[{', '.join(str(c) for c in idx)}]" for idx in product(*coords)]


# ---------------------------------------------------------------------------------------------
# vectorised rank-normalised R-hat and ESS
# ---------------------------------------------------------------------------------------------
# ArviZ computes these with a Python loop over scalar components (about 1-2 ms each), which takes
# minutes for a (k x G) or p-vector parameter. The functions below are the same algorithms
# (Vehtari et al. 2021, as coded in arviz_stats.base.diagnostics), vectorised over components;
# tests check them against ArviZ to 1e-8. ``arr`` has shape (M, chain, draw) throughout.
_MIN_HALF_DRAWS = 8  # below this, fall back to ArviZ (its edge cases for tiny chains)


def _split(arr: np.ndarray) -> np.ndarray:
    half = arr.shape[2] // 2
    return np.concatenate([arr[:, :, :half], arr[:, :, arr.shape[2] - half:]], axis=1)


def _z_scale(arr: np.ndarray) -> np.ndarray:
    # normal scores of the pooled ranks, Blom's offset 3/8 (arviz _backtransform_ranks)
    from scipy.special import ndtri
    from scipy.stats import rankdata

    M = arr.shape[0]
    flat = arr.reshape(M, -1)
    ranks = rankdata(flat, method="average", axis=1)
    size = flat.shape[1]
    return ndtri((ranks - 0.375) / (size - 0.75 + 1)).reshape(arr.shape)


def _rhat_classic(arr: np.ndarray) -> np.ndarray:
    n = arr.shape[2]
    between = n * np.var(arr.mean(axis=2), axis=1, ddof=1)
    within = np.mean(np.var(arr, axis=2, ddof=1), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt((between / within + n - 1) / n)


def _folded_z(split: np.ndarray) -> np.ndarray:
    """The z-scaled distances of the draws from their median (the tail half of R-hat)."""
    med = np.median(split.reshape(split.shape[0], -1), axis=1)[:, None, None]
    return _z_scale(np.abs(split - med))


def _rhat_rank(split: np.ndarray, z: np.ndarray, zf: np.ndarray | None = None) -> np.ndarray:
    # max of bulk (z-scaled) and tail (folded, z-scaled) split R-hat; z = _z_scale(split),
    # zf = _folded_z(split)
    zf = _folded_z(split) if zf is None else zf
    return np.maximum(_rhat_classic(z), _rhat_classic(zf))


def _ess_raw(arr: np.ndarray, between: bool | tuple = True):
    """Geyer initial-monotone-sequence ESS of (M, chain, draw) arrays (``arviz _ess``);
    ``between=False``: the chains' autocorrelation alone, as if their means agreed. A tuple
    of such flags gives a tuple of ESS arrays from one pass over the autocovariances."""
    from scipy.fft import irfft, next_fast_len, rfft

    M, C, n = arr.shape
    size = C * n
    centred = arr - arr.mean(axis=2, keepdims=True)
    m = next_fast_len(2 * n)
    f = rfft(centred, n=m, axis=2)
    acov = irfft(f * np.conjugate(f), n=m, axis=2)[:, :, :n] / n
    mean_var = acov[:, :, 0].mean(axis=1) * n / (n - 1.0)
    const = (arr.max(axis=(1, 2)) - arr.min(axis=(1, 2))) < np.finfo(float).resolution
    chain_var = np.var(arr.mean(axis=2), axis=1, ddof=1) if C > 1 else 0.0

    def ess_for(with_between: bool) -> np.ndarray:
        var_plus = mean_var * (n - 1.0) / n
        if C > 1 and with_between:
            var_plus = var_plus + chain_var
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = 1.0 - (mean_var[:, None] - acov.mean(axis=1)) / var_plus[:, None]  # (M, n)
        rho[:, 0] = 1.0
        # pairs P_j = rho[2j] + rho[2j+1]; arviz evaluates j = 1.. while 2j - 1 < n - 3
        jmax = len(range(1, n - 3, 2))
        j = np.arange(jmax + 1)
        pairs = rho[:, 2 * j] + rho[:, 2 * j + 1]  # (M, jmax + 1)
        nonpos = pairs[:, 1:] <= 0
        # last evaluated pair: the first non-positive one, or jmax when all stay positive
        j_last = np.where(nonpos.any(axis=1), nonpos.argmax(axis=1) + 1, jmax)
        keep = j[None, :] < j_last[:, None]
        mono = np.minimum.accumulate(np.where(keep, pairs, np.inf), axis=1)
        total = np.where(keep, mono, 0.0).sum(axis=1)
        rows = np.arange(M)
        even = rho[rows, 2 * j_last]
        last_pair = pairs[rows, j_last]
        tail = np.where((last_pair >= 0) | (even > 0), even, 0.0)
        tau = -1.0 + 2.0 * total + tail
        tau = np.maximum(tau, 1.0 / np.log10(size))
        ess = size / tau
        ess[np.isnan(rho).any(axis=1)] = np.nan
        ess[const] = size
        return ess

    if isinstance(between, tuple):
        return tuple(ess_for(b) for b in between)
    return ess_for(between)


def _ess_tail(arr: np.ndarray, prob=(0.05, 0.95)) -> np.ndarray:
    M = arr.shape[0]
    q = np.quantile(arr.reshape(M, -1), prob, axis=1)  # (2, M)
    low = _ess_raw(_split((arr <= q[0][:, None, None]).astype(float)))
    high = _ess_raw(_split((arr <= q[1][:, None, None]).astype(float)))
    return np.minimum(low, high)


def _diagnostics_numpy(arr: np.ndarray, tail_prob, chain_ess: bool = False):
    """R-hat, bulk ESS, tail ESS of (M, chain, draw) draws; NaN where a draw is not finite.
    With ``chain_ess``, a fourth array: :func:`_chain_ess`, from the same z-scaled series."""
    M = arr.shape[0]
    out = [np.full(M, np.nan) for _ in range(4 if chain_ess else 3)]
    good = np.isfinite(arr).all(axis=(1, 2))
    if good.any():
        a = arr[good]
        split = _split(a)
        z = _z_scale(split)  # shared by R-hat, bulk ESS and the chain ESS
        zf = _folded_z(split) if a.shape[1] >= 2 else None
        if a.shape[1] >= 2:
            out[0][good] = _rhat_rank(split, z, zf)
        if chain_ess and a.shape[1] >= 2:
            bulk, own = _ess_raw(z, between=(True, False))
            out[1][good] = bulk
            out[3][good] = _chain_ess(a, z, zf, own)
        else:
            out[1][good] = _ess_raw(z)
        out[2][good] = _ess_tail(a, tail_prob)
    return tuple(out)


def _diagnostics_arviz(arr: np.ndarray, tail_prob) -> tuple[np.ndarray, ...]:
    from arviz_stats.base import array_stats

    x = np.moveaxis(arr, 0, -1)  # (chain, draw, M)
    kw = {"chain_axis": 0, "draw_axis": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (np.asarray(array_stats.rhat(x, **kw), dtype=float),
                np.asarray(array_stats.ess(x, method="bulk", **kw), dtype=float),
                np.asarray(array_stats.ess(x, method="tail", prob=tuple(tail_prob), **kw),
                           dtype=float))


def _chain_ess(arr: np.ndarray, z=None, zf=None, bulk=None) -> np.ndarray:
    """ESS per split chain from the split chains' own autocorrelation, (M, chain, draw) ->
    (M,), the smaller of the two series R-hat compares (the rank-normalised draws and their
    folded distances from the median, :func:`_rhat_rank`): the ESS without the disagreement
    between chains that the bulk ESS also counts (so that chains stuck in different places
    keep a high value here), over the number of split chains. The autocorrelation is
    averaged over the chains, as in the bulk ESS (one split chain's own estimate is noisier
    and biased high where it mixes slowly). The folded series matters on its own: NUTS often
    draws the location antithetically (bulk ESS above the number of draws) but not the
    scale. ``z``, ``zf`` and ``bulk``: the split chains' z-scaled and folded series and the
    first's ESS without the between-chain term, where the caller has them."""
    split = _split(arr)
    z = _z_scale(split) if z is None else z
    zf = _folded_z(split) if zf is None else zf
    bulk = _ess_raw(z, between=False) if bulk is None else bulk
    return np.minimum(bulk, _ess_raw(zf, between=False)) / split.shape[1]


def _chi2_logsf(x, df: int) -> np.ndarray:
    """log P(X > x), X ~ chi-squared(df), finite where scipy's (the log of the survival
    function) underflows to -inf (x above about 1450 at df 7): there the asymptotic series of
    the upper incomplete gamma function, Gamma(a, y) ~ y^(a-1) e^(-y) (1 + (a-1)/y
    + (a-1)(a-2)/y^2 + ...) (Abramowitz and Stegun 6.5.32), a = df/2, y = x/2; its terms fall
    by about a/y < 0.05 there, so eight terms reach double precision."""
    from scipy.stats import chi2

    x = np.asarray(x, dtype=np.float64)
    out = np.asarray(chi2.logsf(x, df), dtype=np.float64)
    far = np.isneginf(out) & np.isfinite(x)
    if far.any():
        out = out.copy()
        out[far] = _chi2_logsf_series(x[far], df)
    return out


def _chi2_logsf_series(x, df: int) -> np.ndarray:
    """The asymptotic series of :func:`_chi2_logsf` (accurate for x much larger than df)."""
    from scipy.special import gammaln

    a, y = df / 2.0, np.asarray(x, dtype=np.float64) / 2.0
    term, total = np.ones_like(y), np.ones_like(y)
    for j in range(1, 9):
        term = term * (a - j) / y
        total = total + term
    return (a - 1.0) * np.log(y) - y - gammaln(a) + np.log(total)


def _rhat_limit(rhat_max: float, chain_ess: np.ndarray, n: int, m: int,
                n_components: int) -> np.ndarray:
    """Each component's R-hat bar when ``n_components`` are judged together.

    For converged chains the split R-hat of a component satisfies, to first order,
    R^2 = 1 - 1/n + X / ((m - 1) (e - 1)), X ~ chi-squared(m - 1): the m split chains' means
    vary as means of e effectively independent draws each (``chain_ess``; the within-chain
    variance is low by the factor 1 - 1/e), n draws per split chain (the classic R-hat's
    between/within decomposition, Gelman and Rubin 1992; Vats and Knudson 2021 for its link
    to the effective sample size). Checked by simulation from autocorrelated chains; where
    chains mix slowly (e below about 30) the ESS estimate runs high and the bar a little low.
    One component exceeds ``rhat_max`` with probability
    p0 = P(X > (m - 1) (e - 1) (rhat_max^2 - 1 + 1/n)); the bar is the
    R-hat that converged chains exceed with probability p0 / n_components, so that the
    chance of a false alarm anywhere among them is that of one component against
    ``rhat_max`` (Bonferroni). R-hat is the larger of two such statistics (bulk and folded);
    ``chain_ess`` is the smaller of their ESS, which gives both halves a bar at least as high
    as their own. One component: exactly ``rhat_max``; never below it.
    """
    df = m - 1
    # e - 1 effective draws' worth of information in a split chain's variance; at least a
    # little above zero (a chain of e <= 1 has nothing to compare)
    e = np.maximum(np.asarray(chain_ess, dtype=np.float64) - 1.0, 1e-3)
    with np.errstate(invalid="ignore", divide="ignore"):
        q1 = df * e * (rhat_max ** 2 - 1.0 + 1.0 / n)
        target = _chi2_logsf(q1, df) - np.log(n_components)
        # the quantile of chi-squared(df) with upper tail exp(target), by bisection in log
        # space (p0 / n_components underflows where e is large); the first bracket suffices
        # for few chains, many chains (a large df) may need it widened
        lo, hi = q1.copy(), q1 + 2.0 * np.log(n_components) + 60.0
        for _ in range(200):
            short = _chi2_logsf(hi, df) > target
            if not short.any():
                break
            hi = np.where(short, 2.0 * hi + 10.0, hi)
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            above = _chi2_logsf(mid, df) > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        limit = np.sqrt(1.0 - 1.0 / n + hi / (df * e))
    return np.where(np.isfinite(limit), np.maximum(limit, rhat_max), np.nan)


# ---------------------------------------------------------------------------------------------
# sampler-level checks
# ---------------------------------------------------------------------------------------------
def sampler_summary(idata) -> dict:
    """Divergences and energy BFMI from the ``sample_stats`` group.

    Parameters
    ----------
    idata : xarray.DataTree
        Sampling output, e.g. from ``pm.sample``.

    Returns
    -------
    dict
        ``n_chains``, ``n_draws`` (per chain), ``n_divergent`` (total; None when the sampler
        records no ``diverging``), ``divergent_by_chain`` (list or None) and ``bfmi`` (list of
        per-chain energy BFMI values, or None when no ``energy`` is recorded).

    Raises
    ------
    TypeError
        If ``idata`` cannot be converted to an ArviZ DataTree.
    ValueError
        If it has no posterior draws with (chain, draw) dimensions.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> post = xr.Dataset({"tau": (("chain", "draw"), np.zeros((2, 50)))})
    >>> sampler_summary(post)["n_chains"], sampler_summary(post)["n_divergent"]
    (2, None)
    """
    post, stats = _groups(idata)
    return _sampler_summary(post, stats)


def _sampler_summary(post: xr.Dataset, stats: xr.Dataset | None) -> dict:
    out = {"n_chains": int(post.sizes.get("chain", 0)), "n_draws": int(post.sizes.get("draw", 0)),
           "n_divergent": None, "divergent_by_chain": None, "bfmi": None}
    if stats is None:
        return out
    if "diverging" in stats.data_vars:
        div = stats["diverging"].astype(bool)
        by_chain = div.sum([d for d in div.dims if d != "chain"]).values
        out["divergent_by_chain"] = [int(v) for v in np.atleast_1d(by_chain)]
        out["n_divergent"] = int(np.sum(by_chain))
    if "energy" in stats.data_vars:
        from arviz_stats import bfmi

        energy = stats["energy"].transpose("chain", "draw").values
        out["bfmi"] = [float(v) for v in np.atleast_1d(bfmi(energy))]
    return out


# ---------------------------------------------------------------------------------------------
# main entry point
# ---------------------------------------------------------------------------------------------
def check(idata, var_names: str | Sequence[str] | None = None, rhat_max: float = 1.01,
          ess_min: float = 400, *, bfmi_min: float = 0.3, max_divergences: int = 0,
          tail_prob: tuple[float, float] = (0.05, 0.95), engine: str = "numpy",
          warn: bool = True, max_listed: int = 5,
          rhat_components: bool = True) -> pd.DataFrame:
    """Convergence table of every scalar posterior component, with a warning listing failures.

    Parameters
    ----------
    idata : xarray.DataTree or xarray.Dataset
        Output of ``pm.sample`` (a DataTree with ``posterior`` and, for HMC, ``sample_stats``),
        or a Dataset of posterior draws with dimensions ``(chain, draw, ...)``.
    var_names : str or sequence of str, optional
        Posterior variables to check; default all numeric ones with ``(chain, draw)`` dims.
    rhat_max : float, default 1.01
        Largest acceptable rank-normalised split R-hat of one component (Vehtari et al. 2021);
        with many components see ``rhat_components``.
    ess_min : float, default 400
        Smallest acceptable bulk and tail ESS (total over chains).
    bfmi_min : float, default 0.3
        Smallest acceptable per-chain energy BFMI.
    max_divergences : int, default 0
        Largest acceptable number of divergent transitions (all chains together).
    tail_prob : (float, float), default (0.05, 0.95)
        Quantiles whose indicator ESS defines the tail ESS (Vehtari et al. 2021; note that
        ``arviz.ess(method="tail")`` defaults to ``rcParams["stats.ci_prob"]``, i.e. 0.11/0.89).
    engine : {"numpy", "arviz"}, default "numpy"
        ``"numpy"``: this module's vectorised copy of ArviZ's algorithms (fast for vector
        parameters; equal to ArviZ to 1e-8). ``"arviz"``: ``arviz_stats`` itself, one component
        at a time (1-2 ms per component per diagnostic). Chains shorter than 16 draws always
        use ArviZ.
    warn : bool, default True
        Emit a :class:`SamplingWarning` when anything fails.
    max_listed : int, default 5
        Worst components named per failing criterion in the warning.
    rhat_components : bool, default True
        Judge the M components together: each component's R-hat against the bar that
        converged chains, with that component's autocorrelation, exceed as rarely somewhere
        among the M as one component exceeds ``rhat_max`` (column ``rhat_limit``: exactly
        ``rhat_max`` for a single component, never below it; about 1.02 for 2000 components
        of 1000 effective draws). With thousands of components (a noise precision per kept
        gene) converged chains put some R-hat above 1.01 by chance in most fits; a chain
        that sits elsewhere still fails. False: ``rhat_max`` for every component.

    Returns
    -------
    pandas.DataFrame
        One row per scalar component (``mu`` of shape (k, G) gives k * G rows), columns
        ``variable``, ``parameter`` (e.g. ``"mu[3, 1]"``), ``rhat``, ``rhat_limit`` (the bar
        its R-hat is held to), ``ess_bulk``, ``ess_tail``, ``rhat_ok``, ``ess_bulk_ok``,
        ``ess_tail_ok``, ``ok``. A NaN diagnostic (a component
        that never moves, or R-hat of a single chain, which ArviZ leaves undefined) counts as a
        failure. ``DataFrame.attrs`` holds the sampler-level
        results: ``sampler`` (see :func:`sampler_summary`), ``thresholds``, ``failures`` (list of
        messages, empty when all pass) and ``ok`` (bool).

    Raises
    ------
    ValueError
        If a threshold is out of range or not finite (``rhat_max < 1``, negative ``ess_min``/
        ``bfmi_min``), ``max_divergences`` is not an integer >= 0 or ``max_listed`` an integer
        >= 1, ``engine`` is unknown, ``tail_prob`` is not two increasing probabilities,
        ``var_names`` names a missing variable, or there is nothing to check.
    TypeError
        If ``idata`` cannot be converted to an ArviZ DataTree, ``var_names`` is neither a
        string nor a sequence of strings, a threshold or ``tail_prob`` is not numbers (a bool
        or a string is not), or ``warn`` or ``rhat_components`` is not a bool.

    Warns
    -----
    SamplingWarning
        When ``warn`` is true and any criterion fails.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> draws = np.random.default_rng(0).normal(size=(4, 500))
    >>> post = xr.Dataset({"tau_mu": (("chain", "draw"), draws)})
    >>> table = check(post)
    >>> bool(table.attrs["ok"]), table["parameter"].tolist()
    (True, ['tau_mu'])
    """
    var_names, rhat_max, ess_min, bfmi_min, max_divergences, tail_prob = _check_args(
        var_names, rhat_max, ess_min, bfmi_min, max_divergences, tail_prob, engine, warn,
        max_listed, rhat_components)

    post, stats = _groups(idata)
    ds = _select(post, var_names)
    use_numpy = engine == "numpy" and ds.sizes["draw"] // 2 >= _MIN_HALF_DRAWS

    n_chain, n_draw = ds.sizes["chain"], ds.sizes["draw"]
    # the bars need two chains and the split chains' own ESS (as long as the numpy engine's)
    by_components = (bool(rhat_components) and n_chain >= 2
                     and n_draw // 2 >= _MIN_HALF_DRAWS)
    parts, chain_ess = [], []
    for v in ds.data_vars:
        da = ds[v]
        # (chain, draw, *shape) -> (M, chain, draw), components in C order of *shape
        arr = np.ascontiguousarray(np.moveaxis(da.values.reshape(n_chain, n_draw, -1), 2, 0))
        if use_numpy:
            rh, eb, et, *own = _diagnostics_numpy(arr, tail_prob, chain_ess=by_components)
        else:
            rh, eb, et = _diagnostics_arviz(arr, tail_prob)
            own = []
            if by_components:
                own = [np.full(arr.shape[0], np.nan)]
                good = np.isfinite(arr).all(axis=(1, 2))
                if good.any():
                    own[0][good] = _chain_ess(arr[good])
        chain_ess.extend(own)
        parts.append(pd.DataFrame({
            "variable": v,
            "parameter": _labels(da.isel(chain=0, draw=0, drop=True), v),
            "rhat": rh,
            "ess_bulk": eb,
            "ess_tail": et,
        }))
    table = pd.concat(parts, ignore_index=True)
    table.insert(table.columns.get_loc("rhat") + 1, "rhat_limit", (
        _rhat_limit(rhat_max, np.concatenate(chain_ess), n_draw // 2, 2 * n_chain, len(table))
        if by_components else np.full(len(table), float(rhat_max))))
    # comparisons with NaN are False, so a NaN diagnostic fails
    table["rhat_ok"] = table["rhat"] <= table["rhat_limit"]
    table["ess_bulk_ok"] = table["ess_bulk"] >= ess_min
    table["ess_tail_ok"] = table["ess_tail"] >= ess_min
    table["ok"] = table["rhat_ok"] & table["ess_bulk_ok"] & table["ess_tail_ok"]

    sampler = _sampler_summary(post, stats)
    failures = _failures(table, sampler, rhat_max, ess_min, bfmi_min, max_divergences,
                         max_listed)
    table.attrs["sampler"] = sampler
    table.attrs["thresholds"] = {"rhat_max": rhat_max, "ess_min": ess_min,
                                 "bfmi_min": bfmi_min, "max_divergences": max_divergences,
                                 "rhat_components": by_components}
    table.attrs["failures"] = failures
    table.attrs["ok"] = not failures
    if failures and warn:
        # Name the user's line, not the selbayes frame that called check().
        warn_from_user_line("MCMC diagnostics failed:\n  " + "\n  ".join(failures),
                            SamplingWarning)
    return table


def _check_args(var_names, rhat_max, ess_min, bfmi_min, max_divergences, tail_prob, engine,
                warn, max_listed, rhat_components):
    """:func:`check`'s arguments other than ``idata``, checked up front; returns (var_names,
    rhat_max, ess_min, bfmi_min, max_divergences, tail_prob): None, a name or a list of names
    (a generator read once), float, float, float, int and a pair of floats."""
    from .._validation import check_flag, check_int, check_positive, check_positive_int

    if var_names is not None and not isinstance(var_names, str):
        try:
            names = list(var_names)
        except TypeError:
            names = None
        if names is None or not all(isinstance(v, str) for v in names):
            raise TypeError(f"var_names must be a variable name, a sequence of names or None; "
                            f"got {var_names!r}")
        var_names = names
    if isinstance(rhat_max, bool | np.bool_) or not isinstance(rhat_max, numbers.Real):
        raise TypeError(f"rhat_max must be a number; got {rhat_max!r}")
    if not (np.isfinite(rhat_max) and rhat_max >= 1):
        raise ValueError(f"rhat_max must be a finite number >= 1; got {rhat_max!r}")
    ess_min = check_positive(ess_min, name="ess_min", strict=False)
    bfmi_min = check_positive(bfmi_min, name="bfmi_min", strict=False)
    max_divergences = check_int(max_divergences, name="max_divergences", low=0)
    if engine not in ("numpy", "arviz"):
        raise ValueError(f"engine must be 'numpy' or 'arviz'; got {engine!r}")
    try:
        probs = None if isinstance(tail_prob, str | bytes) else list(tail_prob)
    except TypeError:
        probs = None
    if probs is None or any(isinstance(q, bool | np.bool_) or not isinstance(q, numbers.Real)
                            for q in probs):
        raise TypeError(f"tail_prob must be two probabilities (low, high), e.g. (0.05, 0.95); "
                        f"got {tail_prob!r}")
    tail_prob = tuple(float(q) for q in probs)
    if len(tail_prob) != 2 or not 0 < tail_prob[0] < tail_prob[1] < 1:
        raise ValueError(f"tail_prob must be two increasing probabilities in (0, 1); got "
                         f"{tail_prob!r}")
    check_flag(warn, "warn")
    check_flag(rhat_components, "rhat_components")
    check_positive_int(max_listed, name="max_listed", what="components named per criterion")
    return var_names, float(rhat_max), ess_min, bfmi_min, max_divergences, tail_prob


def _worst(table: pd.DataFrame, column: str, bad: pd.Series, ascending: bool, k: int) -> str:
    sub = table.loc[bad, ["parameter", column]].sort_values(column, ascending=ascending,
                                                             na_position="first")
    shown = ", ".join(f"{p} ({x:.4g})" for p, x in sub.head(k).itertuples(index=False))
    return shown + (", ..." if len(sub) > k else "")


def _failures(table, sampler, rhat_max, ess_min, bfmi_min, max_div, k) -> list[str]:
    out = []
    n = len(table)
    raised = bool((table["rhat_limit"] > rhat_max).any())
    rhat_text = (f"R-hat > {rhat_max:g} and above what converged chains reach by chance "
                 f"among {n} components (column rhat_limit)" if raised
                 else f"R-hat > {rhat_max:g}")
    # each failure with what to do about it (the thresholds' table in the user guide's
    # "Reading the diagnostics")
    more_draws = "too few effective draws: more draws"
    for col, ok, thr, asc, fix in (
            ("rhat", "rhat_ok", rhat_text, False,
             "the chains disagree: longer runs (more tune and draws) or more chains"),
            ("ess_bulk", "ess_bulk_ok", f"bulk ESS < {ess_min:g}", True, more_draws),
            ("ess_tail", "ess_tail_ok", f"tail ESS < {ess_min:g}", True, more_draws)):
        bad = ~table[ok]
        if bad.any():
            out.append(f"{thr} (or NaN) for {int(bad.sum())} of {n} components: "
                       + _worst(table, col, bad, asc, k) + f"; {fix}")
    nd = sampler["n_divergent"]
    if nd is not None and nd > max_div:
        total = sampler["n_chains"] * sampler["n_draws"]
        out.append(f"{nd} divergent transitions ({100 * nd / max(total, 1):.2g}% of {total} draws; "
                   f"by chain {sampler['divergent_by_chain']}); raise target_accept (0.95, "
                   "0.99) and check that the results do not move")
    bf = sampler["bfmi"]
    if bf is not None:
        low = [(c, b) for c, b in enumerate(bf) if not b >= bfmi_min]
        if low:
            out.append(f"energy BFMI < {bfmi_min:g} in chain(s) "
                       + ", ".join(f"{c} ({b:.3g})" for c, b in low)
                       + "; poor exploration of the energy: longer tuning (more tune)")
    return out
