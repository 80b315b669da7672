"""Figures for calibration, MCMC output and simulation-based calibration.

Every function draws on the matplotlib ``Axes`` it is given (or on a new figure) and returns the
``Figure`` or ``Axes``; none calls ``plt.show``, so they work under the non-interactive Agg
backend (scripts, CI) as well as in notebooks.

Figures
-------
reliability_diagram
    Observed fraction against mean predicted probability per bin, with binomial error bars, the
    diagonal and per-bin counts (Li 2009 Table 1 as a picture).
predictive_scatter
    Corrected against uncorrected predictive probabilities (Li 2009 Fig 1).
error_vs_k
    Expected vs actual error, average loss and AMLP against the number of selected features
    (Li 2009 Fig 2; Li 2007 Figs 2.5-2.6).
trace_log_tau
    Traces and posterior density of log tau_mu with the true value (Li 2009 Fig 3).
f_statistic_plot
    The kept features' F statistics against the fitted model's mixed predictive (the check
    ``fit`` runs; a classifier's ``plot_ppc``).
sbc_rank_plot
    Rank histogram with its binomial band, and ECDF difference with a simultaneous band
    (Talts et al. 2018; Saeilynoja et al. 2022).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._calibration import reliability_table

__all__ = [
    "reliability_diagram",
    "predictive_scatter",
    "error_vs_k",
    "trace_log_tau",
    "f_statistic_plot",
    "sbc_rank_plot",
    "sbc_histogram_band",
    "sbc_ecdf_band",
]


def _new_axes(ax, **subplot_kw):
    if ax is not None:
        return ax.figure, ax
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(**subplot_kw)
    return fig, ax


# ---------------------------------------------------------------------------------------------
# reliability diagram
# ---------------------------------------------------------------------------------------------
def _as_table(obj, outcome, n_bins):
    if isinstance(obj, pd.DataFrame):
        return obj
    if isinstance(obj, tuple) and len(obj) == 2:
        return reliability_table(obj[0], obj[1], n_bins=n_bins)
    if outcome is None:
        raise ValueError(
            "pass a reliability table (DataFrame), a (prob, outcome) pair, or prob together "
            "with outcome="
        )
    return reliability_table(obj, outcome, n_bins=n_bins)


def fraction_bars(observed, half) -> np.ndarray:
    """Error bars (``yerr`` of shape (2, n)) of ``half`` around observed fractions, stopped at
    0 and 1: a fraction lies in [0, 1] (a bin of 3 cases at 0.67 drew a bar from 0.09 to
    1.25, cut by the frame).

    Examples
    --------
    >>> fraction_bars(np.array([0.67, 0.5]), np.array([0.58, 0.1])).round(2).tolist()
    [[0.58, 0.1], [0.33, 0.1]]
    """
    observed, half = np.asarray(observed, dtype=float), np.asarray(half, dtype=float)
    return np.vstack([np.minimum(half, observed), np.minimum(half, 1.0 - observed)])


def reliability_diagram(proba_or_table, outcome=None, *, n_bins: int = 10, z: float = 2.0,
                        ax=None, show_counts: bool = True, title: str | None = None):
    """Reliability diagram: observed fraction against mean predicted probability, per bin.

    Parameters
    ----------
    proba_or_table : DataFrame, array-like of shape (n,), (prob, outcome) pair, or dict
        A table from :func:`selbayes.evaluation.reliability_table`; or the predicted
        event
        probabilities (with ``outcome``); or a dict ``{label: table or (prob, outcome)}`` to
        overlay several predictors (e.g. corrected and uncorrected).
    outcome : array-like of shape (n,), optional
        Binary outcomes, when ``proba_or_table`` holds probabilities.
    n_bins : int, default 10
        Bins used when the table is computed here.
    z : float, default 2.0
        Error bars span ``observed_fraction +- z * se`` (binomial standard error under
        calibration), about a 95% interval for z = 2.
    ax : matplotlib Axes, optional
        Where to draw; a new figure otherwise.
    show_counts : bool, default True
        Draw the number of cases per non-empty bin as bars on a secondary y axis (``ax.count_ax``,
        in the lower part of the panel).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The main axes; the count axes is attached as ``ax.count_ax`` (None without counts).

    Raises
    ------
    ValueError
        When probabilities come without ``outcome``, or ``proba_or_table`` is an empty dict;
        bad probabilities or outcomes raise from
        :func:`~selbayes.evaluation.reliability_table`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> prob = rng.uniform(size=200)
    >>> outcome = rng.uniform(size=200) < prob
    >>> ax = reliability_diagram(prob, outcome, n_bins=5)
    >>> ax.get_xlabel()
    'mean predicted probability'
    """
    if isinstance(proba_or_table, Mapping):
        series = {str(k): _as_table(v, None, n_bins) for k, v in proba_or_table.items()}
    else:
        series = {None: _as_table(proba_or_table, outcome, n_bins)}
    if not series:
        raise ValueError("proba_or_table is an empty dict")
    fig, ax = _new_axes(ax, figsize=(5, 5))
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="perfect calibration")
    cax = ax.twinx() if show_counts else None
    n_series = len(series)
    max_count = 1
    for s, (label, table) in enumerate(series.items()):
        nb = len(table)
        full = table[table["count"] > 0]
        observed = full["observed_fraction"].to_numpy(float)
        line = ax.errorbar(full["mean_predicted"].to_numpy(float), observed,
                           yerr=fraction_bars(observed, z * full["se"].to_numpy(float)),
                           fmt="o-", ms=4, capsize=3, label=label)
        if cax is not None and len(full):
            width = 1.0 / nb / n_series * 0.9
            left = full["bin"].to_numpy() / nb + s * width + 0.05 / nb
            cax.bar(left, full["count"], width=width, align="edge", alpha=0.25,
                    color=line[0].get_color())
            max_count = max(max_count, int(full["count"].max()))
    if cax is not None:
        cax.set_ylim(0, max_count * 3.5)  # keep the bars in the lower part of the panel
        cax.set_ylabel("cases per bin")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("mean predicted probability")
    ax.set_ylabel("observed fraction")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left", fontsize="small")
    ax.count_ax = cax
    return ax


# ---------------------------------------------------------------------------------------------
# predictive scatter (Fig 1)
# ---------------------------------------------------------------------------------------------
def predictive_scatter(p_corrected, p_uncorrected, outcome=None, *, ax=None,
                       max_points: int | None = None, random_state=None):
    """Corrected against uncorrected predictive probabilities of one class (Li 2009 Fig 1).

    Points off the diagonal towards the x-axis ends show the uncorrected predictions being more
    extreme (overconfident).

    Parameters
    ----------
    p_corrected, p_uncorrected : array-like of shape (n,)
        Predictive probability of the class for the same test cases, with and without the
        selection correction.
    outcome : array-like of shape (n,), optional
        1 where the case is in the class: drawn as solid squares, the others as hollow circles
        (as in the paper).
    ax : matplotlib Axes, optional
    max_points : int, optional
        Plot a random subset of this many cases (the paper shows 500).
    random_state : int, Generator or None
        For the subset.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        When the inputs differ in length or a probability lies outside [0, 1].

    Examples
    --------
    >>> ax = predictive_scatter([0.2, 0.5, 0.7], [0.1, 0.5, 0.9], outcome=[0, 1, 1])
    >>> ax.get_ylabel()
    'predictive probability, corrected'
    """
    from .._validation import check_random_state

    pc = np.asarray(p_corrected, dtype=float).ravel()
    pu = np.asarray(p_uncorrected, dtype=float).ravel()
    if pc.shape != pu.shape:
        raise ValueError(f"p_corrected ({pc.size}) and p_uncorrected ({pu.size}) must have the "
                         "same length")
    for name, v in (("p_corrected", pc), ("p_uncorrected", pu)):
        if not np.all((v >= 0) & (v <= 1)):
            raise ValueError(f"{name} must hold probabilities in [0, 1]")
    o = None
    if outcome is not None:
        o = np.asarray(outcome).ravel().astype(bool)
        if o.shape != pc.shape:
            raise ValueError(f"outcome has {o.size} entries, expected {pc.size}")
    idx = np.arange(pc.size)
    if max_points is not None and max_points < pc.size:
        idx = np.sort(check_random_state(random_state).choice(pc.size, max_points,
                                                              replace=False))
    fig, ax = _new_axes(ax, figsize=(5, 5))
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1)
    if o is None:
        ax.scatter(pu[idx], pc[idx], s=12, marker="o", facecolors="none", edgecolors="C0")
    else:
        sel = o[idx]
        ax.scatter(pu[idx][~sel], pc[idx][~sel], s=16, marker="o", facecolors="none",
                   edgecolors="k", lw=0.8, label="not in class")
        ax.scatter(pu[idx][sel], pc[idx][sel], s=9, marker="s", color="k", label="in class")
        ax.legend(loc="upper left", fontsize="small")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel("predictive probability, uncorrected")
    ax.set_ylabel("predictive probability, corrected")
    return ax


# ---------------------------------------------------------------------------------------------
# performance against k (Fig 2)
# ---------------------------------------------------------------------------------------------
_PANELS = (
    ("error rate", "error_rate", "expected_error_rate"),
    ("average loss", "actual_loss", "expected_loss"),
    ("AMLP", "amlp", None),
    ("average squared error", "brier", None),
    ("training time (s)", "train_time", None),
)
_MARKERS = {"uncorrected": "x", "corrected": "o"}


def error_vs_k(table: pd.DataFrame, *, k: str = "k", method: str = "method", logx: bool = True,
               axes=None):
    """Calibration measures against the number of selected features (Li 2009 Fig 2).

    Parameters
    ----------
    table : pandas.DataFrame
        Long format, one row per (k, method), with column ``k`` (number of features), ``method``
        (e.g. "corrected", "uncorrected") and any of: ``error_rate`` and
        ``expected_error_rate`` (first panel: actual solid, expected dashed), ``actual_loss`` and
        ``expected_loss`` (same, under a random loss matrix), ``amlp``, ``brier``,
        ``train_time``. The keys of :func:`~selbayes.evaluation.calibration_summary` and
        :func:`~selbayes.evaluation.expected_vs_actual_loss` have these names.
    k, method : str
        Column names of the number of features and of the method.
    logx : bool, default True
        Log scale for k.
    axes : sequence of Axes, optional
        One per panel drawn (panels whose columns are absent are skipped).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        When ``table`` is not a DataFrame.
    ValueError
        When the ``k`` or ``method`` column, or every metric column, is missing, or ``axes``
        has fewer entries than panels.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"k": [1, 10, 1, 10], "method": ["corrected"] * 2
    ...                       + ["uncorrected"] * 2, "error_rate": [0.3, 0.2, 0.3, 0.25],
    ...                       "expected_error_rate": [0.3, 0.21, 0.2, 0.1]})
    >>> fig = error_vs_k(table)
    >>> [a.get_title() for a in fig.axes]
    ['error rate']
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame; got {type(table).__name__}")
    for col in (k, method):
        if col not in table.columns:
            raise ValueError(f"table needs a column {col!r}; has {list(table.columns)}")
    panels = [p for p in _PANELS if p[1] in table.columns]
    if not panels:
        raise ValueError("table has none of the metric columns "
                         f"{[p[1] for p in _PANELS] + ['expected_error_rate', 'expected_loss']}")
    if axes is None:
        import matplotlib.pyplot as plt

        ncol = 2 if len(panels) > 2 else len(panels)
        nrow = int(np.ceil(len(panels) / ncol))
        fig, grid = plt.subplots(nrow, ncol, figsize=(4.5 * ncol, 3.6 * nrow), squeeze=False)
        axes = grid.ravel()
        for extra in axes[len(panels):]:
            extra.set_visible(False)
    else:
        axes = list(np.ravel(axes))
        if len(axes) < len(panels):
            raise ValueError(f"axes has {len(axes)} entries but {len(panels)} panels are drawn")
        fig = axes[0].figure
    for a, (title, actual, expected) in zip(axes, panels, strict=False):
        for i, (name, sub) in enumerate(table.groupby(method, sort=True)):
            sub = sub.sort_values(k)
            marker = _MARKERS.get(str(name), "osx^v"[i % 5])
            color = f"C{i}"
            a.plot(sub[k], sub[actual], marker=marker, ls="-", color=color, label=f"{name}")
            if expected and expected in sub.columns:
                a.plot(sub[k], sub[expected], marker=marker, ls="--", color=color,
                       label=f"{name}, expected")
        a.set_title(title)
        a.set_xlabel("number of selected features")
        if logx:
            a.set_xscale("log")
        a.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------
# log tau traces (Fig 3)
# ---------------------------------------------------------------------------------------------
def _posterior_values(idata, var):
    import xarray as xr

    if isinstance(idata, xr.DataTree):
        if "posterior" not in idata.children:
            raise ValueError("idata has no 'posterior' group")
        post = idata["posterior"]
    elif isinstance(idata, xr.Dataset):
        post = idata
    else:
        raise TypeError(f"idata must be an xarray DataTree or Dataset; got {type(idata).__name__}")
    if var not in post.data_vars:
        raise ValueError(f"{var!r} is not a posterior variable; have {list(post.data_vars)}")
    da = post[var]
    if set(da.dims) != {"chain", "draw"}:
        raise ValueError(f"{var!r} must be a scalar parameter with dims (chain, draw); got "
                         f"{da.dims}")
    vals = da.transpose("chain", "draw").values.astype(float)
    if np.any(vals <= 0):
        raise ValueError(f"{var!r} must be positive to take its log")
    return np.log(vals)


def trace_log_tau(idata, var: str = "tau_mu", reference: float | None = None, *, axes=None):
    """Traces and posterior density of ``log(var)``, with the true value marked (Li 2009 Fig 3).

    Parameters
    ----------
    idata : xarray.DataTree or dict of {label: DataTree}
        Sampling output(s) with a scalar positive ``var`` in the posterior. With a dict (e.g.
        ``{"corrected": ..., "uncorrected": ...}``) each fit gets its own colour and line style
        (solid for the first, dashed for the second, as in the paper).
    var : str, default "tau_mu"
        Posterior variable whose log is drawn.
    reference : float, optional
        True value of ``var`` (not of its log), drawn at ``log(reference)``, e.g. 100.
    axes : pair of Axes, optional
        (trace axes, density axes).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An empty dict, a non-positive ``reference``, a missing posterior group or variable, a
        ``var`` that is not a positive scalar with dims (chain, draw), or one that is the same
        in every draw (a plug-in fit).
    TypeError
        When a fit is not an xarray DataTree or Dataset.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> tau = np.random.default_rng(0).lognormal(np.log(100), 0.3, size=(2, 50))
    >>> post = xr.Dataset({"tau_mu": (("chain", "draw"), tau)})
    >>> fig = trace_log_tau(post, reference=100.0)
    >>> fig.axes[0].get_ylabel()
    'log tau_mu'
    """
    import xarray as xr
    from arviz_stats.base import array_stats

    # DataTree and Dataset are Mappings themselves
    single = isinstance(idata, xr.DataTree | xr.Dataset) or not isinstance(idata, Mapping)
    fits = {None: idata} if single else dict(idata)
    if not fits:
        raise ValueError("idata is an empty dict")
    if reference is not None and not (np.isfinite(reference) and reference > 0):
        raise ValueError(f"reference must be a positive number (the value of {var}); "
                         f"got {reference!r}")
    if axes is None:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), width_ratios=[2.2, 1])
    fig = axes[0].figure
    ax_t, ax_d = axes
    styles = ["-", "--", ":", "-."]
    for i, (label, dt) in enumerate(fits.items()):
        logv = _posterior_values(dt, var)
        if np.ptp(logv) == 0:
            # a plug-in fit's draws repeat the mode: a flat line and an empty density, with
            # arviz's "single value" warning, drawn as if they were a posterior
            which = "" if label is None else f" of fit {label!r}"
            raise ValueError(f"{var}{which} is the same in every draw "
                             f"({float(np.exp(logv.flat[0])):.4g}), so there is no trace or "
                             f"posterior density to draw: a fit with method='plugin' holds "
                             f"the hyperparameters at their mode (method='mcmc' samples "
                             f"them), or the fit kept a single draw")
        color, ls = f"C{i}", styles[i % len(styles)]
        for c in range(logv.shape[0]):
            ax_t.plot(logv[c], color=color, ls=ls, lw=0.8, alpha=0.8,
                      label=label if c == 0 else None)
        grid, pdf, _ = array_stats.kde(logv.ravel())
        ax_d.plot(grid, pdf, color=color, ls=ls, label=label)
    if reference is not None:
        ax_t.axhline(np.log(reference), color="k", lw=1.2, label="true value")
        ax_d.axvline(np.log(reference), color="k", lw=1.2)
    ax_t.set_xlabel("draw")
    ax_t.set_ylabel(f"log {var}")
    ax_d.set_xlabel(f"log {var}")
    ax_d.set_ylabel("posterior density")
    if len(fits) > 1 or reference is not None:
        ax_t.legend(fontsize="small")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------
# predictive check of the kept F statistics
# ---------------------------------------------------------------------------------------------
def f_statistic_plot(f_observed, log_tau_mu_w_x, class_counts, threshold, alpha_x, *,
                     mu_t_df=None, pi0=None, features=None, prob: float = 0.95,
                     max_labels: int = 5, n_levels: int = 60, ax=None):
    """The kept features' F statistics against what the fitted model predicts for a selected
    feature: the picture of the check ``fit`` runs (:func:`selbayes.evaluation.check_fit`).

    Given the hyperparameters, the kept features' F statistics are independent draws of a
    feature's F conditioned on F > gamma, so the share of kept features with F >= x should
    follow the mixed predictive survival curve
    (:func:`selbayes.evaluation.f_statistic_survival`) within binomial noise. Each kept
    feature is a point at (its F, the share of kept features with an F as large); the line is
    the model's curve, the band the pointwise ``prob`` range of that share over replicated
    selections of the same number of features (binomial given the curve). Points far to the
    right of the band are features stronger than the fitted model allows: the prior-data
    conflict of a normal prior that cannot hold a few strong markers beside thousands of null
    genes. The features that fail the check (mixed predictive p times the number of kept features
    below :data:`selbayes.evaluation.FAMILY_LEVEL`) are drawn in red and named. Points to the
    left of the band are weaker than the fitted prior expects of a selected feature (a
    heavy-tailed prior that leaves room for stronger markers than the data have); the check
    does not warn of that side, which does not make the correction shrink real markers.

    Parameters
    ----------
    f_observed : array_like of shape (k,)
        The kept features' F statistics (all >= ``threshold``: with k given, gamma is the
        weakest kept feature's F).
    log_tau_mu_w_x, class_counts, threshold, alpha_x, mu_t_df, pi0, features
        As in :func:`selbayes.evaluation.f_statistic_check`; a fitted Gaussian classifier's
        are ``check_inputs(clf.idata_, clf.selection_, ...)``, and its method
        ``clf.plot_ppc()`` draws this figure.
    prob : float in (0, 1), default 0.95
        Coverage of the band.
    max_labels : int, default 5
        At most this many failing features are named.
    n_levels : int, default 60
        Points of the curve (log-spaced from gamma to beyond the largest F).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Log-log axes: F (x) against the share of kept features with F >= x (y).

    Raises
    ------
    ValueError
        If ``f_observed`` is empty, not finite, or not all at or above ``threshold``; if
        ``threshold`` is not positive; or if ``prob`` is not in (0, 1).

    Examples
    --------
    Features simulated without class differences, checked against that model:

    >>> import numpy as np
    >>> from scipy import stats
    >>> f = stats.f.rvs(1, 38, size=4000, random_state=0); f = f[f > 4.0]
    >>> ax = f_statistic_plot(f, [np.inf], [20, 20], 4.0, 4.0)
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    """
    from matplotlib import ticker
    from scipy import stats

    from ._ppc import FAMILY_LEVEL, f_statistic_check, f_statistic_survival

    f = np.asarray(f_observed, dtype=np.float64).reshape(-1)
    threshold = float(threshold)
    if not threshold > 0:
        raise ValueError(f"threshold (gamma) must be positive; got {threshold}")
    # with k given, gamma is the weakest kept feature's F (recomputed, it may differ from it
    # by rounding): at or above gamma, to 1e-9 relative
    if (f.size == 0 or not np.all(np.isfinite(f))
            or not np.all(f >= threshold * (1 - 1e-9))):
        raise ValueError("f_observed must hold the kept features' F statistics: finite, at "
                         f"least one, all at or above the threshold {threshold:g}")
    if not 0 < prob < 1:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    k = f.size
    kw = dict(mu_t_df=mu_t_df, pi0=pi0)
    top = max(1.5 * f.max(), 2.0 * threshold)
    grid = np.geomspace(threshold, top, n_levels)
    curve = f_statistic_survival(grid, log_tau_mu_w_x, class_counts, threshold, alpha_x, **kw)
    table = f_statistic_check(f, log_tau_mu_w_x, class_counts, threshold, alpha_x, **kw,
                              features=features)
    floor = 0.3 / k                                     # the axis' bottom: below 1/k
    lo = stats.binom.ppf((1 - prob) / 2, k, curve) / k
    hi = stats.binom.ppf((1 + prob) / 2, k, curve) / k
    order = np.sort(f)[::-1]
    share = np.arange(1, k + 1) / k                     # share of kept features with F >= it

    fig, ax = _new_axes(ax, figsize=(6, 4.2))
    ax.fill_between(grid, np.maximum(lo, floor), np.maximum(hi, floor), color="C0", alpha=0.2,
                    lw=0, label=f"{prob:.0%} of replicated selections (pointwise)")
    shown = curve >= floor / 10
    ax.plot(grid[shown], curve[shown], color="C0", lw=1.5, label="the fitted model's prediction")
    ax.scatter(order, share, s=12, color="k", zorder=3, label=f"the {k} kept features")
    failing = table[table["p_family"] < FAMILY_LEVEL]
    if len(failing):
        # each at its own point: the share of kept features with an F as large
        ys = (f[None, :] >= failing["observed"].to_numpy()[:, None]).mean(axis=1)
        ax.scatter(failing["observed"], ys, s=30, color="C3", zorder=4,
                   label="beyond what the model allows")
        for name, x, yv in list(zip(failing["feature"], failing["observed"], ys,
                                    strict=True))[:max_labels]:
            ax.annotate(str(name), (x, yv), xytext=(4, 3), textcoords="offset points",
                        fontsize="small", color="C3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    # F ranges from about 2 to a few hundred: label 1, 2, 5, 10, 20, ... in plain numbers
    ax.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlim(threshold * 0.95, top)
    ax.set_ylim(floor, 1.3)
    ax.set_xlabel("F statistic")
    ax.set_ylabel("share of kept features with F at least this")
    ax.set_title("Kept features' F against the fitted model", fontsize="medium")
    ax.legend(loc="best", fontsize="small")
    return ax


# ---------------------------------------------------------------------------------------------
# SBC rank plots
# ---------------------------------------------------------------------------------------------
def _check_ranks(ranks, n_draws) -> np.ndarray:
    from .._validation import check_positive_int

    check_positive_int(n_draws, name="n_draws", what="posterior draws per replicate")
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0:
        raise ValueError(f"ranks must be a non-empty 1-D array; got shape {r.shape}")
    if r.dtype.kind == "f":
        if not np.all(np.isfinite(r)) or not np.all(r == np.round(r)):
            raise ValueError("ranks must be whole numbers")
    elif r.dtype.kind not in "iu":
        raise TypeError(f"ranks must be integers; got dtype {r.dtype}")
    r = r.astype(np.int64)
    if r.min() < 0 or r.max() > n_draws:
        raise ValueError(f"ranks must lie in 0..n_draws = 0..{n_draws}; found "
                         f"[{r.min()}, {r.max()}]")
    return r


def sbc_histogram_band(ranks, n_draws: int, n_bins: int | None = None, prob: float = 0.99):
    """Binned SBC ranks with the central ``prob`` binomial interval for each bin under uniformity.

    The rank of the true value among ``n_draws`` posterior draws is uniform on
    ``0..n_draws`` when the posterior is calibrated (Talts et al. 2018). Rank ``r`` goes to bin
    ``floor(r * n_bins / (n_draws + 1))``; the expected probability of a bin is the number of
    rank values it holds over ``n_draws + 1`` (exact even when the bins are unequal).

    Parameters
    ----------
    ranks : array-like of int, shape (N,)
    n_draws : int
        Posterior draws per replicate, L (ranks lie in 0..L).
    n_bins : int, optional
        Default ``min(20, L + 1, max(2, N // 10))``.
    prob : float, default 0.99

    Returns
    -------
    dict
        ``edges`` (n_bins + 1, in rank units), ``counts``, ``expected`` (N * bin probability),
        ``lower``, ``upper`` (binomial quantiles).

    Raises
    ------
    ValueError
        Ranks that are not whole numbers in 0..n_draws, a non-positive ``n_draws``, ``n_bins``
        outside 1..n_draws + 1, or ``prob`` outside (0, 1).
    TypeError
        Ranks of a non-numeric dtype.

    Examples
    --------
    >>> band = sbc_histogram_band(list(range(10)), n_draws=9, n_bins=5)
    >>> band["counts"].tolist(), band["expected"].tolist()
    ([2, 2, 2, 2, 2], [2.0, 2.0, 2.0, 2.0, 2.0])
    """
    from scipy.stats import binom

    r = _check_ranks(ranks, n_draws)
    n_values = n_draws + 1
    N = r.size
    if n_bins is None:
        n_bins = int(min(20, n_values, max(2, N // 10)))
    if not isinstance(n_bins, int | np.integer) or not 1 <= n_bins <= n_values:
        raise ValueError(f"n_bins must be an integer in 1..{n_values}; got {n_bins!r}")
    if not 0 < prob < 1:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    b = (r * n_bins) // n_values
    counts = np.bincount(b, minlength=n_bins)
    width = np.bincount((np.arange(n_values) * n_bins) // n_values, minlength=n_bins)
    p = width / n_values
    edges = np.concatenate([[0], np.cumsum(width)]) - 0.5
    tail = (1 - prob) / 2
    return {"edges": edges, "counts": counts, "expected": N * p,
            "lower": binom.ppf(tail, N, p), "upper": binom.ppf(1 - tail, N, p)}


def sbc_ecdf_band(ranks, n_draws: int, prob: float = 0.95, *, max_points: int = 256,
                  n_simulations: int = 1000, random_state=0):
    """ECDF of SBC ranks with a simultaneous ``prob`` band under discrete uniformity.

    The fractional rank ``(r + 1) / (L + 1)`` of a uniform rank on ``0..L`` has ECDF equal to
    ``z`` at ``z_i = i / (L + 1)``, and ``N * ECDF(z_i) ~ Binomial(N, z_i)``. The band is the
    pointwise binomial band whose level is widened (by simulation) until it covers a whole
    uniform ECDF with probability ``prob`` (Saeilynoja, Buerkner and Vehtari 2022, computed by
    ``arviz_stats.ecdf_utils``).

    Parameters
    ----------
    ranks : array-like of int, shape (N,)
    n_draws : int
        L; ranks lie in 0..L.
    prob : float, default 0.95
        Simultaneous coverage of the band.
    max_points : int, default 256
        At most this many evaluation points ``z_i`` (evenly spread over i = 1..L).
    n_simulations : int, default 1000
        Uniform samples used to calibrate the band.
    random_state : int, Generator or None, default 0

    Returns
    -------
    dict
        ``z`` (evaluation points), ``ecdf``, ``lower``, ``upper`` (each of shape (K,)) and
        ``inside`` (bool: the whole ECDF lies within the band).

    Raises
    ------
    ValueError
        Ranks that are not whole numbers in 0..n_draws, a non-positive ``n_draws``, or
        ``prob`` outside (0, 1).
    TypeError
        Ranks of a non-numeric dtype.

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.random.default_rng(1).integers(0, 100, size=200)
    >>> band = sbc_ecdf_band(ranks, n_draws=99, n_simulations=200)
    >>> band["z"].shape == band["lower"].shape == band["ecdf"].shape
    True
    """
    from arviz_stats.ecdf_utils import get_pointwise_confidence_band, simulate_confidence_bands

    from .._validation import check_random_state

    r = _check_ranks(ranks, n_draws)
    if not 0 < prob < 1:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    if n_draws < 1:
        raise ValueError("n_draws must be >= 1")
    N = r.size
    i = np.unique(np.linspace(1, n_draws, min(n_draws, max_points)).round().astype(int))
    z = i / (n_draws + 1)
    ecdf = np.searchsorted(np.sort(r), i, side="left") / N  # fraction of ranks < i
    rng = check_random_state(random_state)
    gamma = simulate_confidence_bands(N, 1, z, prob, n_simulations, rng)
    lower, upper = get_pointwise_confidence_band(gamma, N, z)
    inside = bool(np.all((ecdf >= lower) & (ecdf <= upper)))
    return {"z": z, "ecdf": ecdf, "lower": lower, "upper": upper, "inside": inside}


def _rank_columns(ranks) -> dict:
    if isinstance(ranks, pd.DataFrame):
        return {str(c): ranks[c].to_numpy() for c in ranks.columns}
    if isinstance(ranks, Mapping):
        return {str(k): np.asarray(v) for k, v in ranks.items()}
    arr = np.asarray(ranks)
    if arr.ndim == 2:
        return {f"parameter {j}": arr[:, j] for j in range(arr.shape[1])}
    return {"": arr}


def sbc_rank_plot(ranks, n_draws: int, *, n_bins: int | None = None, hist_prob: float = 0.99,
                  ecdf_prob: float = 0.95, axes=None, random_state=0, title: str | None = None):
    """SBC rank histogram and ECDF-difference plot, one row per parameter.

    Left: histogram of the ranks with the expected count and the central ``hist_prob`` binomial
    interval of each bin under uniformity (grey band). Right: ``ECDF(z) - z`` of the fractional
    ranks with the simultaneous ``ecdf_prob`` band (see :func:`sbc_ecdf_band`); a calibrated
    posterior stays inside it with probability ``ecdf_prob``. A U-shape / an ECDF below then
    above zero means an overconfident posterior; a hump means an underconfident one; a tilt
    means bias.

    Parameters
    ----------
    ranks : array-like of int (N,) or (N, m), DataFrame, or dict {name: ranks}
        Rank of the true value among the ``n_draws`` posterior draws, per replicate.
    n_draws : int
        Posterior draws per replicate, L (ranks lie in 0..L).
    n_bins : int, optional
        Histogram bins (see :func:`sbc_histogram_band`).
    hist_prob, ecdf_prob : float
        Coverage of the histogram band (per bin) and of the ECDF band (simultaneous).
    axes : array of Axes of shape (m, 2), optional
    random_state : int, Generator or None, default 0
        For the band simulation.
    title : str, optional
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.sbc_results`` holds, per parameter, the dicts of :func:`sbc_histogram_band` and
        :func:`sbc_ecdf_band`.

    Raises
    ------
    ValueError
        When ``ranks`` is empty, ``axes`` does not have one row per parameter, or the ranks
        fail the checks of :func:`sbc_histogram_band` / :func:`sbc_ecdf_band`.

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.random.default_rng(2).integers(0, 50, size=(100, 2))
    >>> fig = sbc_rank_plot(ranks, n_draws=49)
    >>> sorted(fig.sbc_results)
    ['parameter 0', 'parameter 1']
    """
    cols = _rank_columns(ranks)
    if not cols:
        raise ValueError("ranks is empty")
    m = len(cols)
    if axes is None:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(m, 2, figsize=(9, 3.2 * m), squeeze=False)
    else:
        axes = np.asarray(axes, dtype=object).reshape(-1, 2)
        if axes.shape[0] != m:
            raise ValueError(f"axes must have shape ({m}, 2) for {m} parameter(s)")
        fig = axes[0, 0].figure
    results = {}
    for row, (name, r) in enumerate(cols.items()):
        h = sbc_histogram_band(r, n_draws, n_bins=n_bins, prob=hist_prob)
        e = sbc_ecdf_band(r, n_draws, prob=ecdf_prob, random_state=random_state)
        results[name] = {"histogram": h, "ecdf": e}
        ah, ae = axes[row]
        edges = h["edges"]
        ah.stairs(h["lower"], edges, baseline=h["upper"], fill=True, color="0.85",
                  label=f"{hist_prob:.0%} band")
        ah.stairs(h["expected"], edges, color="0.4", ls="--", lw=1)
        ah.bar(edges[:-1], h["counts"], width=np.diff(edges), align="edge", fill=False,
               edgecolor="C0", lw=1.2)
        ah.set_xlim(edges[0], edges[-1])
        ah.set_xlabel("rank")
        ah.set_ylabel("count")
        ah.set_title(f"{name} rank histogram".strip())
        z = np.concatenate([[0.0], e["z"], [1.0]])
        pad = lambda v: np.concatenate([[0.0], v, [0.0]])  # noqa: E731
        ae.fill_between(z, pad(e["lower"] - e["z"]), pad(e["upper"] - e["z"]), step="post",
                        color="0.85", label=f"{ecdf_prob:.0%} simultaneous band")
        ae.step(z, pad(e["ecdf"] - e["z"]), where="post", color="C0", lw=1.2)
        ae.axhline(0, color="0.4", lw=0.8, ls="--")
        ae.set_xlim(0, 1)
        ae.set_xlabel("fractional rank")
        ae.set_ylabel("ECDF - uniform")
        ae.set_title(f"{name} ECDF difference".strip())
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.sbc_results = results
    return fig
