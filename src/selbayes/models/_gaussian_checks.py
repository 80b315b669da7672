"""Model-checking quantities of the hierarchical Gaussian classifier, from posterior draws.

:func:`case_log_likelihood` is the pointwise log likelihood of the training cases (the ArviZ
``log_likelihood`` group, for ``az.loo``); :func:`replicated_f_statistics` draws the F statistics
of the kept features in replicated training sets (the ``posterior_predictive`` group, for
``az.plot_ppc_dist`` against the observed F). Both are vectorised over draws and never form a
(draws x cases x features) array.
"""

from __future__ import annotations

import numpy as np

from ._gaussian_posterior import draw_blocks

__all__ = ["case_log_likelihood", "replicated_f_statistics", "arviz_groups"]


def case_log_likelihood(X_selected, y_index, tau_x, mu) -> np.ndarray:
    """log p(x_i | y_i, draw) of every training case: sum_j log N(x_ij | mu_j,y_i, 1 / tau_x_j).

    The density of the kept features given the class (Li 2009, eq 1): it is not a class
    probability, and it depends on which features were kept, so it is comparable only between
    fits with the same selected features.

    Parameters
    ----------
    X_selected : ndarray of shape (n, k)
        The kept features, in the units the model was fitted in.
    y_index : ndarray of int, shape (n,)
        Class index of each case, 0..G-1.
    tau_x : ndarray of shape (S, k)
        Noise precision draws.
    mu : ndarray of shape (S, k, G)
        Class mean draws.

    Returns
    -------
    ndarray of shape (S, n)
        Log densities (nats).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> X = np.array([[0.5], [2.0]]); y = np.array([0, 1])
    >>> ll = case_log_likelihood(X, y, np.array([[4.0]]), np.array([[[0.0, 1.0]]]))
    >>> bool(np.allclose(ll, stats.norm.logpdf([0.5, 2.0], [0.0, 1.0], 0.5)))
    True
    """
    X = np.asarray(X_selected, dtype=np.float64)
    t = np.asarray(tau_x, dtype=np.float64)
    m = np.asarray(mu, dtype=np.float64)
    out = np.empty((t.shape[0], X.shape[0]))
    half_log_t = 0.5 * np.log(t / (2 * np.pi)).sum(axis=1)
    # Expanded around the observed class means, so that large offsets do not cancel.
    for g in range(m.shape[-1]):
        rows = np.flatnonzero(y_index == g)
        centre = X[rows].mean(axis=0)
        dX = X[rows] - centre
        dm = m[:, :, g] - centre
        quad = t @ (dX ** 2).T - 2 * (t * dm) @ dX.T + (t * dm ** 2).sum(axis=1)[:, None]
        out[:, rows] = half_log_t[:, None] - 0.5 * quad
    return out


def replicated_f_statistics(tau_x, mu, class_counts, rng, max_bytes: float = 2e8) -> np.ndarray:
    """One-way F statistics of the kept features in replicated training sets, one per draw.

    Drawn exactly from the sufficient statistics of a training set with the same class counts:
    class means ~ N(mu_jg, 1 / (n_g tau_x_j)) and the within-class sum of squares ~
    chi2(n - G) / tau_x_j, independent (Li 2009, eq 1).

    Parameters
    ----------
    tau_x : ndarray of shape (S, k)
    mu : ndarray of shape (S, k, G)
    class_counts : ndarray of int, shape (G,)
        n_g; n = sum n_g > G.
    rng : numpy.random.Generator
    max_bytes : float
        Bytes (about) of the temporaries of one block of draws.

    Returns
    -------
    ndarray of shape (S, k)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> S = 40000          # F(1, 18) under equal means: mean 18 / 16, sd 1.75 (SE 0.009)
    >>> f = replicated_f_statistics(np.ones((S, 1)), np.zeros((S, 1, 2)), [10, 10], rng)
    >>> bool(abs(np.mean(f) - 18 / 16) < 0.05)
    True
    """
    t = np.asarray(tau_x, dtype=np.float64)
    m = np.asarray(mu, dtype=np.float64)
    counts = np.asarray(class_counts)
    n, G = int(counts.sum()), counts.shape[0]
    S, k = t.shape
    # In blocks of draws (at k = 10 000, 10 classes and 4000 draws each (S, k, G) temporary
    # is 3.2 GB); the normal draws come in the same order as in one piece, then the
    # chi-squares, so the values do not depend on the block (tests/models/test_gaussian_checks.py).
    ssb = np.empty((S, k))
    for sl in draw_blocks(S, 8 * k * G * 4, max_bytes):     # four (block, k, G) temporaries
        sd = 1.0 / np.sqrt(counts[None, None, :] * t[sl, :, None])
        xbar = m[sl] + sd * rng.standard_normal(m[sl].shape)
        grand = (xbar * counts).sum(axis=2, keepdims=True) / n
        ssb[sl] = (counts * (xbar - grand) ** 2).sum(axis=2)
    ssw = rng.chisquare(n - G, size=t.shape) / t
    return (ssb / (G - 1)) / (ssw / (n - G))


def arviz_groups(posterior, X_selected, y_index, rng, observed=None, constant=None) -> dict:
    """The ArviZ model-checking groups of a fit, as xarray Datasets.

    ``log_likelihood["x"]`` (chain, draw, case): :func:`case_log_likelihood`.
    ``posterior_predictive["f_statistic"]`` (chain, draw, feature):
    :func:`replicated_f_statistics`. ``observed_data`` holds only the observed counterpart,
    ``f_statistic`` (feature), so ``az.plot_ppc_dist`` needs no ``var_names``.
    ``constant_data`` receives the training data, ``x`` (case, feature) and ``y`` (case) as
    integer class indices into the ``class`` coordinate, and every other variable of
    ``observed`` (the sufficient statistics a PyMC-sampled model records).

    Parameters
    ----------
    posterior : xarray.Dataset
        With ``tau_x`` (chain, draw, feature) and ``mu`` (chain, draw, feature, class).
    X_selected : ndarray of shape (n, k)
        The kept features in the units the model was fitted in.
    y_index : ndarray of int, shape (n,)
    rng : numpy.random.Generator
        For the replicated statistics.
    observed, constant : xarray.Dataset, optional
        The fit's existing ``observed_data`` and ``constant_data`` groups.

    Returns
    -------
    dict
        ``{"log_likelihood", "posterior_predictive", "observed_data", "constant_data"}`` ->
        xarray.Dataset.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> post = xr.Dataset({"tau_x": (("chain", "draw", "feature"), np.ones((1, 3, 2))),
    ...                    "mu": (("chain", "draw", "feature", "class"), np.zeros((1, 3, 2, 2)))})
    >>> X = np.random.default_rng(0).normal(size=(6, 2)); y = np.array([0, 0, 0, 1, 1, 1])
    >>> g = arviz_groups(post, X, y, np.random.default_rng(1))
    >>> list(g["observed_data"].data_vars), g["log_likelihood"]["x"].shape
    (['f_statistic'], (1, 3, 6))
    """
    import xarray as xr

    from ..filters._selection import f_statistic

    X = np.asarray(X_selected, dtype=np.float64)
    tau = posterior["tau_x"].transpose("chain", "draw", "feature").values
    mu = posterior["mu"].transpose("chain", "draw", "feature", "class").values
    C, D, k = tau.shape
    G = mu.shape[-1]
    t, m = tau.reshape(-1, k), mu.reshape(-1, k, G)
    n = X.shape[0]
    loglik = case_log_likelihood(X, y_index, t, m)
    f_rep = replicated_f_statistics(t, m, np.bincount(y_index, minlength=G), rng)
    features = posterior["tau_x"]["feature"].values
    case = np.arange(n)
    draws = {"chain": posterior["chain"].values, "draw": posterior["draw"].values}
    observed = xr.Dataset() if observed is None else observed
    constant = xr.Dataset() if constant is None else constant
    constant = constant.merge(observed[[v for v in observed.data_vars if v not in constant]])
    return {
        "log_likelihood": xr.Dataset({"x": (("chain", "draw", "case"), loglik.reshape(C, D, n))},
                                     coords={**draws, "case": case}),
        "posterior_predictive": xr.Dataset(
            {"f_statistic": (("chain", "draw", "feature"), f_rep.reshape(C, D, k))},
            coords={**draws, "feature": features}),
        "observed_data": xr.Dataset({"f_statistic": xr.DataArray(
            f_statistic(X, y_index, G), dims=["feature"], coords={"feature": features})}),
        "constant_data": constant.assign(
            x=xr.DataArray(X, dims=["case", "feature"],
                           coords={"case": case, "feature": features}),
            y=xr.DataArray(np.asarray(y_index, dtype=np.int64), dims=["case"],
                           coords={"case": case},
                           attrs={"description": "class index into the class coordinate"})),
    }
