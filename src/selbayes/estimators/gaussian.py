"""scikit-learn style estimator: the hierarchical Gaussian classifier with selection correction."""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np

from ..filters.selection import Selection
from ..models.priors import GaussianPriors
from .base import SAMPLERS, Interval, SelectionClassifier, StrOptions, require_sampler

__all__ = ["HierarchicalGaussianClassifier", "SAMPLERS", "EXACT_MODEL", "prior_boundary_checks",
           "PRIOR_TAIL", "KPath"]

#: Settings that make the classifier the exact model of Li (2009): data in their own units, the
#: Cholesky decorrelation of eq 12, the model's own predictive (no tempering, no label noise).
#: ``HierarchicalGaussianClassifier(k=10, **EXACT_MODEL)`` is what simulation-based checks and
#: paper reproductions need; the defaults are tuned for real data instead.
EXACT_MODEL = {"standardize": False, "temperature": 1.0, "label_noise": 0.0,
               "decorrelation_method": "cholesky"}

#: Tail probability of the prior beyond which a posterior median counts as "held by the prior"
#: (:func:`prior_boundary_checks`).
PRIOR_TAIL = 1e-3

# What each hyperparameter is and what to do when its prior holds it (for the warning).
_PRIOR_ADVICE = {
    "tau_x": ("the per-feature noise precision",
              "X is probably in other units than the prior assumes (variance about w_x): keep "
              "standardize=True (the default), rescale X, or set priors w_x to about the "
              "within-class variance of the selected features ({data_scale:.3g} here)"),
    "w_x": ("the prior scale of the noise variance (hyperprior)",
            "its Gamma hyperprior cannot reach the data's scale: keep standardize=True (the "
            "default), rescale X, set priors w_x to about the within-class variance of the "
            "selected features ({data_scale:.3g} here), or loosen the hyperprior (smaller "
            "w_x_alpha)"),
    "tau_mu": ("the precision of the class means around the feature means",
               "the selected features separate the classes far more (or less) than the prior "
               "allows: keep standardize=True, rescale X, or widen its prior (smaller alpha_mu, "
               "or w_mu nearer the between-class variance)"),
}


def _gamma_prior(name: str, priors: GaussianPriors):
    """(shape, rate) of the Gamma prior of ``name`` (None when it has no fixed Gamma prior)."""
    if name == "tau_mu":
        return priors.alpha_mu / 2, priors.alpha_mu * priors.w_mu / 2
    if name == "tau_x" and priors.w_x_alpha is None:
        return priors.alpha_x / 2, priors.alpha_x * priors.w_x / 2
    if name == "w_x" and priors.w_x_alpha is not None:
        return priors.w_x_alpha / 2, priors.w_x_alpha / (2 * priors.w_x)
    return None


def prior_boundary_checks(posterior, priors=None, tail: float = PRIOR_TAIL):
    """Hyperparameters whose posterior median lies far in the tail of their own prior.

    A posterior median beyond the prior's ``tail`` or ``1 - tail`` quantile means the prior, not
    the data, sets the value: the data pull further than the prior lets the posterior go
    (prior-data conflict). Typically X is in other units than the priors assume; the sampler
    explores such a posterior without any divergence, so R-hat and ESS do not see it. Checked:
    ``tau_mu``, ``tau_x`` (per feature; when ``w_x`` is fixed) and ``w_x`` (when it has a
    hyperprior), each against its Gamma prior (Li 2009, eqs 4-11). ``tau_nu`` is not checked:
    after standardisation the feature means are all near 0, which sends tau_nu to its prior's
    upper tail harmlessly (it does not enter the class predictions beyond a shared offset).

    Parameters
    ----------
    posterior : xarray.Dataset or xarray.DataTree
        Draws with ``chain`` and ``draw`` dimensions (a fit's ``idata_`` or its posterior).
    priors : GaussianPriors or dict, optional
    tail : float, default :data:`PRIOR_TAIL`
        Prior tail probability that counts as "far".

    Returns
    -------
    pandas.DataFrame
        One row per checked component: ``parameter``, ``variable``, ``median`` (posterior),
        ``prior_cdf`` (prior CDF at that median), ``prior_low`` and ``prior_high`` (the prior's
        ``tail`` and ``1 - tail`` quantiles) and ``held`` (True when outside them).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> post = xr.Dataset({"tau_mu": (("chain", "draw"), np.full((1, 4), 2.0)),
    ...                    "tau_x": (("chain", "draw", "feature"), np.full((1, 4, 2), 1e-4))})
    >>> prior_boundary_checks(post)["held"].tolist()
    [False, True, True]
    """
    import pandas as pd
    import xarray as xr
    from scipy import stats

    priors = GaussianPriors.from_dict(priors)
    if isinstance(posterior, xr.DataTree):
        posterior = posterior["posterior"].to_dataset()
    rows = []
    for name in ("tau_mu", "w_x", "tau_x"):
        ab = _gamma_prior(name, priors)
        if ab is None or name not in posterior:
            continue
        da = posterior[name]
        med = da.median(("chain", "draw")).values.reshape(-1)
        labels = ([name] if da.ndim == 2 else
                  [f"{name}[{c}]" for c in da[da.dims[-1]].values.tolist()])
        dist = stats.gamma(ab[0], scale=1.0 / ab[1])
        lo, hi = dist.ppf(tail), dist.ppf(1 - tail)
        cdf = dist.cdf(med)
        rows.append(pd.DataFrame({"parameter": labels, "variable": name, "median": med,
                                  "prior_cdf": cdf, "prior_low": lo, "prior_high": hi,
                                  "held": (med < lo) | (med > hi)}))
    if not rows:
        return pd.DataFrame(columns=["parameter", "variable", "median", "prior_cdf",
                                     "prior_low", "prior_high", "held"])
    return pd.concat(rows, ignore_index=True)


def _prior_boundary_messages(table, data_scale: float) -> list[str]:
    """One sentence per held variable: the parameter, its value, the prior's range, the fix."""
    out = []
    for name, sub in table[table["held"]].groupby("variable", sort=False):
        total = int((table["variable"] == name).sum())
        worst = sub.iloc[int(np.argmax(np.abs(np.log(sub["median"] / np.sqrt(
            sub["prior_low"] * sub["prior_high"])))))]
        what, fix = _PRIOR_ADVICE[name]
        side = "below" if worst["median"] < worst["prior_low"] else "above"
        edge = worst["prior_low"] if side == "below" else worst["prior_high"]
        q = "0.1%" if side == "below" else "99.9%"
        count = f" ({len(sub)} of {total} features)" if total > 1 else ""
        out.append(
            f"{worst['parameter']} ({what}) has posterior median {worst['median']:.3g}, "
            f"{side} its prior's {q} quantile {edge:.3g}{count}: the prior, not the data, "
            f"sets it. {fix.format(data_scale=data_scale)}.")
    return out


# Kept one release for code that imported the private helper from here.
_require_sampler = require_sampler


class HierarchicalGaussianClassifier(SelectionClassifier):
    """Hierarchical Bayesian Gaussian classifier that conditions on F-statistic selection.

    ``fit`` takes all p features, selects k of them by the one-way F statistic (so selection is
    internal to any cross-validation), and samples the posterior of the hierarchical Gaussian
    model of Li (2009) [1]_ (see :mod:`selbayes.models.gaussian`). With
    ``correct_selection=True`` the posterior also conditions on the p - k omitted features
    having F <= gamma, which keeps the predictive probabilities calibrated.

    Parameters
    ----------
    k : int, "auto" or "all", default "auto"
        Number of features to keep (1 <= k < p); "auto" chooses it inside ``fit`` by inner
        stratified cross-validated log score over ``k_grid``
        (:func:`selbayes.estimators.model_selection.choose_k`, stored as ``k_choice_``); "all" uses
        every feature (nothing is omitted, so there is nothing to correct). ``threshold``
        overrides ``k``.
    threshold : float, optional
        Keep features with F > threshold.
    correct_selection : bool, default True
        Add the selection adjustment factor P(F <= gamma | tau_mu w_x)^(p - k).
    priors : GaussianPriors or dict, optional
        Prior settings; default: the paper's fitting priors.
    decorrelate : float, "auto" or None, default None
        If a number lambda, whiten all p features with the shrunk pooled within-class covariance
        (Li 2009, eq 12) fitted on the training data before selecting; "auto" chooses lambda
        from ``decorrelate_grid`` (None included) together with k.
    decorrelation_method : {"symmetric", "cholesky"}, default "symmetric"
        "symmetric": low-rank whitening with no p x p matrix (any p); "cholesky": the paper's
        dense Cholesky whitening (p <= 20 000). See
        :class:`selbayes.preprocessing.Decorrelation`.
    standardize : bool, default True
        Centre every feature and scale it by its pooled within-class standard deviation
        (training statistics) before anything else, so predictions do not depend on the units
        of X. The F statistics, hence the selection and its adjustment, are unchanged by this.
        False fits the model to X in its own units (as in the paper).
    temperature : float, "correlation" or "auto", default "correlation"
        Predictive temperature T: P(g | x) proportional to pi_g p(x | g, data)^(1/T), a
        correction for evidence counted several times by correlated features
        (:func:`selbayes.estimators.model_selection.temper_log_proba`); 1 is the model's own
        predictive. "correlation" (default) computes T from the training data of the
        selected features: the variance inflation of the naive log likelihood ratio along
        the class-mean differences caused by the features' within-class correlation
        (:func:`selbayes.estimators.model_selection.correlation_temperature`), so the
        temperature accounts for correlation and the selection correction for selection.
        "auto" chooses T with k by inner cross-validated log score over
        ``temperature_grid`` (it then also absorbs the overconfidence that ignoring the
        selection causes).
    k_grid, decorrelate_grid, temperature_grid : sequence, optional
        Candidates for the "auto" choices (defaults in :mod:`selbayes.estimators.model_selection`).
    inner_cv : int, default 5
        Inner folds of the "auto" choices.
    choice_rule : {"best", "one_se"}, default "best"
        How the "auto" choices pick from the inner cross-validation curve: the lowest score,
        or the smallest temperature within one paired standard error of it
        (:func:`selbayes.estimators.model_selection.choose_k`; tried on the benchmark, not
        better).
    label_noise : float or "auto", default "auto"
        Probability eps that a case's label is unrelated to its features: the predictive is
        (1 - eps) P(g | x) + eps pi_g
        (:func:`selbayes.estimators.model_selection.label_noise_log_proba`),
        which bounds the loss of any one case; "auto" is 1 / (n + 2); 0 turns it off.
    draws, tune, chains : int
        MCMC settings per chain.
    sampler : {"auto", "nutpie", "pymc", "numpyro", "blackjax"}
        NUTS implementation. "auto" (the default) is nutpie when installed (it is a dependency
        of selbayes; several times faster here) and PyMC's own NUTS otherwise.
    target_accept : float, default 0.9
    max_predict_draws : int or None, default 1000
        Posterior draws (evenly thinned) used for prediction; None uses all. Prediction
        integrates the class means out per draw (Rao-Blackwellised), so far fewer draws are
        needed than with sampled means when k is large.
    random_state : int, optional
    progressbar : bool, default True
    parameterization : {"marginal", "noncentered"}, default "marginal"
        "marginal" integrates the class means out analytically (NUTS sees only the k + 2
        precisions; mu and nu are drawn exactly afterwards), which samples cleanly whether
        the selected features are weak or strong. "noncentered" samples them directly.

    Attributes
    ----------
    classes_ : ndarray of shape (G,)
    selection_ : Selection
        Integer positions of the selected features (``selection_.indices``), their scores
        and gamma.
    selected_features_ : ndarray of str, shape (k,)
        Names of the selected features, best first.
    feature_names_in_ : ndarray of str, shape (p,)
        Column names of a DataFrame passed to ``fit`` (absent for array input, whose
        features are named ``x0`` ... ``x{p-1}``).
    n_features_in_ : int
    k_, temperature_, decorrelate_ : int, float, float or None
        The values used (chosen, computed or as given).
    k_choice_ : selbayes.estimators.model_selection.KChoice or None
        The inner cross-validation curve when something was "auto".
    idata_ : xarray.DataTree
        The ArviZ result, with the selected features' names as the ``feature`` coordinate and
        the class labels as the ``class`` coordinate. Groups:

        ``posterior``
            ``tau_mu``, ``tau_nu`` (scalars), ``tau_x``, ``nu`` (per feature) and ``mu``
            (feature x class), per chain and draw.
        ``sample_stats``
            NUTS statistics (energy, divergences, tree depth, ...).
        ``log_likelihood``
            ``x`` (chain, draw, case): log density of each training case's selected
            features given its class, sum over features of log N(x_ij | mu_j,y_i, 1/tau_x_j)
            (nats), so ``az.loo`` works.
        ``posterior_predictive``
            ``f_statistic`` (chain, draw, feature): the one-way F statistic of each
            selected feature in a replicated training set with the same class counts.
        ``observed_data``
            ``f_statistic`` (feature): the observed F statistics, for
            ``az.plot_ppc_dist(idata_, var_names=["f_statistic"])``; ``x`` (case, feature)
            and ``y`` (case): the selected training features (after ``decorrelate``) and
            labels; ``ssw``: within-class sums of squares.
        ``constant_data``
            The selection (``selection_indices``, ``selection_scores`` of all p features,
            ``selection_class_counts``), the class means and the adjustment table.

        ``idata_.attrs`` record the selection, the priors, the settings, the selbayes
        version and a model id.

    References
    ----------
    .. [1] Li, L. (2009). Calibrating predictions based on a selected subset of features from
       Bayesian Gaussian classification models. Manuscript, University of Saskatchewan.
    .. [2] Li, L. (2007). Bayesian classification and regression with high dimensional
       features. PhD thesis, University of Toronto.

    Examples
    --------
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> clf = HierarchicalGaussianClassifier(k=10, draws=500, chains=2)   # doctest: +SKIP
    >>> clf.fit(X_train, y_train).predict_proba(X_test)                   # doctest: +SKIP
    """

    def __init__(self, k: int | str | None = "auto", threshold: float | None = None,
                 correct_selection: bool = True, priors=None,
                 decorrelate: float | str | None = None,
                 decorrelation_method: str = "symmetric", standardize: bool = True,
                 temperature: float | str = "correlation", k_grid=None, decorrelate_grid=None,
                 temperature_grid=None, inner_cv: int = 5, choice_rule: str = "best",
                 label_noise: float | str = "auto",
                 draws: int = 1000, tune: int = 1000, chains: int = 4, sampler: str = "auto",
                 target_accept: float = 0.9, max_predict_draws: int | None = 1000,
                 random_state: int | None = None, progressbar: bool = True,
                 parameterization: str = "marginal"):
        self.k = k
        self.threshold = threshold
        self.correct_selection = correct_selection
        self.priors = priors
        self.decorrelate = decorrelate
        self.decorrelation_method = decorrelation_method
        self.standardize = standardize
        self.temperature = temperature
        self.k_grid = k_grid
        self.decorrelate_grid = decorrelate_grid
        self.temperature_grid = temperature_grid
        self.inner_cv = inner_cv
        self.choice_rule = choice_rule
        self.label_noise = label_noise
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.sampler = sampler
        self.target_accept = target_accept
        self.max_predict_draws = max_predict_draws
        self.random_state = random_state
        self.progressbar = progressbar
        self.parameterization = parameterization

    _parameter_constraints = {
        **SelectionClassifier._parameter_constraints,
        **SelectionClassifier._nuts_constraints,
        "k": [Interval(Integral, 1, None, closed="left"), StrOptions({"all", "auto"}), None],
        "priors": [GaussianPriors, dict, None],
        "decorrelate": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"}), None],
        "decorrelation_method": [StrOptions({"symmetric", "cholesky"})],
        "standardize": ["boolean"],
        "temperature": [Interval(Real, 0, None, closed="neither"),
                        StrOptions({"auto", "correlation"})],
        "k_grid": [list, tuple, np.ndarray, None],
        "decorrelate_grid": [list, tuple, np.ndarray, None],
        "temperature_grid": [list, tuple, np.ndarray, None],
        "inner_cv": [Interval(Integral, 2, None, closed="left")],
        "choice_rule": [StrOptions({"best", "one_se"})],
        "label_noise": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "random_state": [Interval(Integral, None, None, closed="neither"), None],
        "parameterization": [StrOptions({"marginal", "noncentered"})],
    }
    _statistic = "f"
    _diagnostic_vars = ("tau_mu", "tau_nu", "tau_x")
    _internal_groups = ("predictive_draws",)

    # ------------------------------------------------------------------ hooks
    def _prior_object(self) -> GaussianPriors:
        return GaussianPriors.from_dict(self.priors)

    _priors = _prior_object

    def _prepare_features(self, X, y_index, classes) -> np.ndarray:
        """Resolve the "auto" settings (inner CV on the training data only), then standardise
        and decorrelate all p features with training statistics."""
        from .model_selection import choose_k, default_label_noise, prepare_features

        self.sampler_used_ = require_sampler(self.sampler)
        # The F ranking of all p features: given by fit_path, else computed once when needed.
        self._ranking_cache = self.__dict__.pop("_path_ranking", None)
        self.k_, self.temperature_, self.decorrelate_ = self.k, self.temperature, self.decorrelate
        self.k_choice_ = None
        self.label_noise_ = (default_label_noise(X.shape[0]) if self.label_noise == "auto"
                             else float(self.label_noise))
        sparse = hasattr(X, "toarray")
        autos = [self.k == "auto" and self.threshold is None, self.temperature == "auto",
                 self.decorrelate == "auto"]
        if any(autos):
            # Validate as the selection will (clear errors before any inner CV), and offer
            # only k that keep features with F > 0.
            if isinstance(self.k, Integral) or self.threshold is not None:
                self._check_selection(self._selection_from_ranking(X, y_index, classes))
            scores = self._ranking(X, y_index, classes).scores
            n_positive = int(np.sum(scores > 0))      # one F computation for both uses
            dec_grid = None
            if self.decorrelate == "auto":
                dec_grid = (list(self.decorrelate_grid) if self.decorrelate_grid is not None
                            else [None, 10.0])
            from .model_selection import DEFAULT_K_GRID

            if autos[0]:
                k_grid = [k for k in (self.k_grid if self.k_grid is not None
                                      else DEFAULT_K_GRID) if k <= n_positive] or [n_positive]
            else:
                k_grid = [self.k if isinstance(self.k, Integral)
                          else min(n_positive, X.shape[1] - 1)]
            shared = self.__dict__.pop("_path_choice", None)
            self.k_choice_ = shared if shared is not None else choose_k(
                self, X.toarray() if sparse else X, classes[y_index], grid=k_grid,
                decorrelate_grid=dec_grid,
                temperature_grid=self.temperature_grid if autos[1] else None,
                cv=self.inner_cv, random_state=self.random_state)
            if autos[0]:
                self.k_ = self.k_choice_.k
            if autos[1]:
                self.temperature_ = self.k_choice_.temperature
            if autos[2]:
                self.decorrelate_ = self.k_choice_.decorrelate
            self._warn_grid_ends(k_grid, min(n_positive, X.shape[1] - 1))
        if self.decorrelate_ is None:
            # The F statistic is invariant to per-feature affine maps, so selection runs on X
            # as given (sparse stays sparse); only the k selected columns are standardised,
            # in _fit_selected.
            self._features = None
            return X
        X = X.toarray() if sparse else X                 # whitening mixes every column
        Xp, self._features = prepare_features(
            X, y_index, len(classes), standardize=self.standardize,
            decorrelate=self.decorrelate_, method=self.decorrelation_method)
        return Xp

    def _ranking(self, X, y_index, classes) -> Selection:
        """F statistics of all p features of this fit's X, computed once per fit (or once per
        path, :meth:`fit_path`) and shared by the "auto" choices and the selection."""
        ranking = self.__dict__.get("_ranking_cache")
        if ranking is None:
            from ..filters.selection import select_features

            ranking = select_features(X, classes[y_index], k=1, statistic="f")
            self._ranking_cache = ranking
        return ranking

    def _selection_from_ranking(self, X, y_index, classes) -> Selection:
        from ..filters.selection import selection_from_scores

        r = self._ranking(X, y_index, classes)
        if self.threshold is not None:
            k, threshold = None, self.threshold
        elif self.k == "auto":
            k, threshold = min(int(self.k_), X.shape[1] - 1), None
        else:
            k, threshold = self.k, None
        return selection_from_scores(r.scores, k, threshold, "f", r.class_counts, r.classes)

    def _resolve_selection(self, X, y_index, classes) -> Selection:
        if self.k == "all" and self.threshold is None:
            self.__dict__.pop("_ranking_cache", None)
            return super()._resolve_selection(X, y_index, classes)
        if self._features is not None:      # decorrelated: rank the whitened features afresh
            self.__dict__.pop("_ranking_cache", None)
        sel = self._selection_from_ranking(X, y_index, classes)
        self.__dict__.pop("_ranking_cache", None)
        self._check_selection(sel)
        return sel

    def fit_path(self, X, y, ks):
        """Fit one model per k of ``ks`` with one F ranking of the features (Li 2009).

        The reference R package accepts a vector of k; this is its equivalent. The F
        statistics of all p features are computed once and every k keeps its k best; with
        ``temperature="auto"`` (or ``decorrelate="auto"``) one inner cross-validation scores
        every k of the path at once (each inner fold ranked once) and each k gets its own
        best temperature. Each fit then samples its own posterior; models compiled for a k
        (in this process or, through the on-disk cache, an earlier one) are reused, so a path
        refitted on other folds or data of the same size compiles nothing. Different k need
        different compiled models, since the number of parameters (tau_x has k) differs.

        The result equals fitting ``clone(self).set_params(k=k)`` for each k separately with
        the same ``random_state``, bit for bit: the same scores give the same selection, the
        inner cross-validation uses the same folds and seeds for every candidate, and the
        sampler the same seed.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
        y : array-like of shape (n_samples,)
        ks : sequence of int
            Numbers of features, each 1 <= k < p; duplicates are fitted once.

        Returns
        -------
        KPath
            Mapping k -> fitted :class:`HierarchicalGaussianClassifier` (``self`` is left
            unfitted), with ``predict_proba(X)`` of shape (len(ks), n, G) and the shared
            ``ranking`` (a :class:`~selbayes.filters.selection.Selection`).

        Raises
        ------
        ValueError
            If ``ks`` is empty or not all integers, or ``threshold`` is set.

        Examples
        --------
        >>> from selbayes import HierarchicalGaussianClassifier
        >>> path = HierarchicalGaussianClassifier().fit_path(X, y, [5, 10, 50])  # doctest: +SKIP
        >>> path[10].temperature_, path.predict_proba(X_test).shape              # doctest: +SKIP
        """
        from sklearn.base import clone

        ks = list(dict.fromkeys(ks)) if ks is not None else []
        if not ks or not all(isinstance(k, Integral) and not isinstance(k, bool) for k in ks):
            raise ValueError(f"ks must be a non-empty sequence of integers; got {ks!r}")
        if self.threshold is not None:
            raise ValueError("fit_path takes numbers of features ks; threshold must be None")
        template = clone(self).set_params(k=int(ks[0]))
        template._validate_params()
        Xv, classes, y_index = template._validate_training_data(X, y)
        bad = [k for k in ks if not 1 <= k < Xv.shape[1]]
        if bad:               # before any fit, not after the first ones
            raise ValueError(f"every k of ks must satisfy 1 <= k < p = {Xv.shape[1]}; got {bad}")
        ranking = template._ranking(Xv, y_index, classes)
        choices = {}
        if self.temperature == "auto" or self.decorrelate == "auto":
            choices = self._path_choices(Xv, classes[y_index], ks)
        out = {}
        for k in ks:
            est = clone(self).set_params(k=int(k))
            if self.decorrelate != "auto":
                est._path_ranking = ranking      # decorrelated fits rank their own features
            if k in choices:
                est._path_choice = choices[k]
            out[int(k)] = est.fit(X, y)
        return KPath(out, ranking)

    def _path_choices(self, X, y, ks) -> dict:
        """One inner cross-validation for every k of a path; per k the KChoice a separate
        fit at that k would store (same folds and seeds: the candidates do not interact)."""
        from .model_selection import KChoice, choose_k, pick_candidate

        dec_grid = None
        if self.decorrelate == "auto":
            dec_grid = (list(self.decorrelate_grid) if self.decorrelate_grid is not None
                        else [None, 10.0])
        if hasattr(X, "toarray"):
            X = X.toarray()
        full = choose_k(self, X, y, grid=ks, decorrelate_grid=dec_grid,
                        temperature_grid=(self.temperature_grid if self.temperature == "auto"
                                          else None),
                        cv=self.inner_cv, random_state=self.random_state)
        out = {}
        L = full.extra["case_losses"]
        for k in ks:
            rows = [i for i, g in enumerate(full.grid) if g[0] == k]
            if not rows:
                continue                      # k >= p: the fit itself reports the error
            best = rows[pick_candidate(L[rows], [full.grid[i][2] for i in rows],
                                       full.extra["rule"])]
            _, lam, t = full.grid[best]
            out[k] = KChoice(k=int(k), decorrelate=lam, temperature=t,
                             grid=[full.grid[i] for i in rows], score=full.score[rows],
                             se=full.se[rows], criterion=full.criterion,
                             n_splits=full.n_splits,
                             extra={"k_grid": [int(k)], "case_losses": L[rows],
                                    "rule": full.extra["rule"]})
        return out

    def _fit_selected(self, X_sel, y_index, selection: Selection) -> None:
        """Sample the posterior of the selected features (``idata_``, ``model_``)."""
        from ..models.gaussian import build_model, draw_class_means, model_data, sample_nutpie

        priors = self._prior_object()
        y = self.classes_[y_index]
        features = self.__dict__.pop("_features")
        if features is not None:                  # decorrelated: X_sel is already mapped
            self.feature_center_, self.feature_scale_, self.transform_rows_ = (
                features.selected_affine(selection.indices))
        else:
            from ..preprocessing.decorrelation import Standardization

            self.transform_rows_ = None
            if self.standardize:
                st = Standardization("within").fit(X_sel, y_index, len(self.classes_))
                self.feature_center_, self.feature_scale_ = st.mean_, st.scale_
            else:
                k = X_sel.shape[1]
                self.feature_center_, self.feature_scale_ = np.zeros(k), np.ones(k)
            X_sel = (X_sel - self.feature_center_) / self.feature_scale_
        self._X_sel_model = X_sel                 # what the model saw (for _add_checks)
        if self.temperature == "correlation":
            from .model_selection import correlation_temperature

            self.temperature_ = correlation_temperature(X_sel, y_index,
                                                        len(selection.class_counts))
        coords = {"feature": [int(i) for i in selection.indices],
                  "class": [str(c) for c in selection.classes]}
        seed = self.random_state
        data = model_data(X_sel, y, selection, priors, corrected=self.correct_selection)
        if self.sampler_used_ == "nutpie":
            # The compiled model is cached per shape and reused (numba compile dominates).
            idata, model = sample_nutpie(
                data, priors, coords, draws=self.draws, tune=self.tune, chains=self.chains,
                seed=None if seed is None else int(seed), target_accept=self.target_accept,
                progressbar=self.progressbar, parameterization=self.parameterization)
        else:
            model = build_model(X_sel, y, selection, priors, corrected=self.correct_selection,
                                parameterization=self.parameterization)
            idata = self._run_nuts(model, seed)
            if self.parameterization == "marginal":
                draw_class_means(idata, data, priors, random_state=seed)
        self.idata_ = idata
        self.model_ = model
        self._model_data = data
        n, G = X_sel.shape[0], len(selection.class_counts)
        self._within_var = float(np.median(data["ssw_obs"]) / max(n - G, 1))

    def _store_predictive(self) -> None:
        """Per-draw predictive moments with mu integrated out (Rao-Blackwellised; see
        :func:`selbayes.models.gaussian.predictive_moments`), on evenly thinned draws."""
        from ..models.gaussian import predictive_moments

        data = self.__dict__.pop("_model_data")
        post = self.idata_.posterior

        def flat(name):
            v = post[name].values
            return v.reshape(-1, *v.shape[2:])

        keep = self._thin_index(flat("tau_mu").shape[0])
        lam = flat("lambda_mu")[keep] if "lambda_mu" in post else None
        self.pred_mean_, self.pred_precision_ = predictive_moments(
            flat("tau_x")[keep], flat("tau_mu")[keep], flat("tau_nu")[keep], data["xbar_obs"],
            data["class_counts"], lambda_mu=lam)

    def _add_checks(self, X_sel, y_index) -> None:
        """``log_likelihood``, ``posterior_predictive`` and ``observed_data`` for ArviZ.

        ``log_likelihood["x"]`` (chain, draw, case): log N(x_i | mu[:, y_i], 1 / tau_x) of each
        training case's selected features given its class, so ``az.loo`` works.
        ``posterior_predictive["f_statistic"]`` (chain, draw, feature): the one-way F statistic
        of each selected feature in a replicated training set with the same class counts,
        drawn exactly from its sufficient statistics (class means ~ N(mu, 1 / (n_g tau_x)),
        within-class sum of squares ~ chi2(n - G) / tau_x); ``observed_data["f_statistic"]``
        holds the observed ones, so ``az.plot_ppc_dist`` compares them.
        """
        X_sel = self.__dict__.pop("_X_sel_model", X_sel)   # in the units the model was fitted in
        import xarray as xr

        from .._validation import check_random_state
        from ..filters.selection import f_statistic

        post = self.idata_.posterior
        tau = post["tau_x"].transpose("chain", "draw", "feature").values
        mu = post["mu"].transpose("chain", "draw", "feature", "class").values
        C, D, k = tau.shape
        G = mu.shape[-1]
        t = tau.reshape(-1, k)
        m = mu.reshape(-1, k, G)
        n = X_sel.shape[0]
        counts = np.bincount(y_index, minlength=G)

        # Per-case log likelihood, expanded around the observed class means so that no
        # (draws x cases x features) array is formed and large offsets do not cancel.
        loglik = np.empty((t.shape[0], n))
        half_log_t = 0.5 * np.log(t / (2 * np.pi)).sum(axis=1)
        for g in range(G):
            rows = np.flatnonzero(y_index == g)
            centre = X_sel[rows].mean(axis=0)
            dX = X_sel[rows] - centre
            dm = m[:, :, g] - centre
            quad = t @ (dX ** 2).T - 2 * (t * dm) @ dX.T + (t * dm ** 2).sum(axis=1)[:, None]
            loglik[:, rows] = half_log_t[:, None] - 0.5 * quad

        # Replicated F statistics from the exact sampling distribution of the statistics.
        seed = None if self.random_state is None else int(self.random_state) + 1
        rng = check_random_state(seed)
        sd = 1.0 / np.sqrt(counts[None, None, :] * t[:, :, None])
        xbar = m + sd * rng.standard_normal(m.shape)
        ssw = rng.chisquare(n - G, size=t.shape) / t
        grand = (xbar * counts).sum(axis=2, keepdims=True) / n
        ssb = (counts * (xbar - grand) ** 2).sum(axis=2)
        f_rep = (ssb / (G - 1)) / (ssw / (n - G))

        features = post["tau_x"]["feature"].values
        case = np.arange(n)
        self.idata_["log_likelihood"] = xr.DataTree(xr.Dataset(
            {"x": (("chain", "draw", "case"), loglik.reshape(C, D, n))},
            coords={"chain": post["chain"].values, "draw": post["draw"].values, "case": case}))
        self.idata_["posterior_predictive"] = xr.DataTree(xr.Dataset(
            {"f_statistic": (("chain", "draw", "feature"), f_rep.reshape(C, D, k))},
            coords={"chain": post["chain"].values, "draw": post["draw"].values,
                    "feature": features}))
        obs = (self.idata_["observed_data"].to_dataset()
               if "observed_data" in self.idata_.children else xr.Dataset())
        obs = obs.assign(
            f_statistic=xr.DataArray(f_statistic(X_sel, y_index, G), dims=["feature"],
                                     coords={"feature": features}),
            x=xr.DataArray(X_sel, dims=["case", "feature"],
                           coords={"case": case, "feature": features}),
            y=xr.DataArray(np.asarray(self._class_labels())[y_index], dims=["case"],
                           coords={"case": case}))
        self.idata_["observed_data"] = xr.DataTree(obs)

    def _check_diagnostics(self) -> None:
        """Convergence diagnostics (base class), then :func:`prior_boundary_checks`: a
        :class:`~selbayes.evaluation.diagnostics.PriorBoundaryWarning` names every
        hyperparameter whose posterior the prior holds (``prior_checks_``)."""
        super()._check_diagnostics()
        if "posterior" not in self.idata_.children:
            return
        from ..evaluation.diagnostics import PriorBoundaryWarning, warn_from_user_line

        # The within-class variance of the features the model saw (in its units).
        scale = self.__dict__.pop("_within_var", float("nan"))
        table = prior_boundary_checks(self.idata_, self._prior_object())
        self.prior_checks_ = table
        if table["held"].any():
            for msg in _prior_boundary_messages(table, scale):
                warn_from_user_line(msg, PriorBoundaryWarning)

    def _warn_grid_ends(self, k_grid, k_cap: int) -> None:
        """:class:`~selbayes.evaluation.diagnostics.GridBoundaryWarning` when a value chosen by
        inner CV is at an end of its grid that is not a natural limit (k = 1, k = every usable
        feature, T = 1, the model's own predictive) and the inner curve still falls there: the
        chosen candidate beats its neighbour inside the grid (the next k at the same T, or the
        next T at the same k) by more than two paired standard errors over the inner test
        cases, so a value beyond the grid may score better still. A flat curve at the end does
        not warn."""
        from ..evaluation.diagnostics import GridBoundaryWarning, warn_from_user_line

        ch = self.k_choice_
        grid = [tuple(g) for g in ch.grid]
        L = ch.extra.get("case_losses")
        chosen = (ch.k, ch.decorrelate, ch.temperature)
        # Unless T is on the grid ("auto"), a candidate is (k, lambda): with the correlation
        # rule every k has its own T.
        width = 3 if self.temperature == "auto" else 2
        keys = [g[:width] for g in grid]
        if chosen[:width] not in keys:
            return

        def falling(neighbour) -> bool:
            if neighbour[:width] not in keys:
                return False
            if L is None:
                return True
            d = L[keys.index(neighbour[:width])] - L[keys.index(chosen[:width])]
            # Two paired SEs: at one, a quarter of the default fits on real expression sets
            # warned, mostly where a wider grid then did not score better.
            return bool(d.mean() > 2 * d.std(ddof=1) / np.sqrt(d.size))

        msgs = []
        ks = sorted({g[0] for g in grid})
        if self.k == "auto" and self.threshold is None and len(ks) > 1:
            if ch.k == ks[-1] and ks[-1] < k_cap and falling((ks[-2], *chosen[1:])):
                msgs.append(f"k = {ch.k} was chosen at the upper end of k_grid {ks}, where the "
                            f"inner score still improves; a larger k may score better (up to "
                            f"{k_cap} features have F > 0): widen k_grid")
            elif ch.k == ks[0] and ks[0] > 1 and falling((ks[1], *chosen[1:])):
                msgs.append(f"k = {ch.k} was chosen at the lower end of k_grid {ks}, where the "
                            f"inner score still improves; a smaller k may score better: add "
                            f"smaller values to k_grid")
        ts = sorted({g[2] for g in grid})
        if (self.temperature == "auto" and len(ts) > 1 and ch.temperature == ts[-1]
                and falling((ch.k, ch.decorrelate, ts[-2]))):
            msgs.append(f"temperature T = {ch.temperature:g} was chosen at the upper end of "
                        f"temperature_grid {ts}, where the inner score still improves; the "
                        f"predictive may need an even larger T (very redundant features): add "
                        f"larger values to temperature_grid, or consider decorrelate='auto'")
        for m in msgs:
            warn_from_user_line(m + " (the inner cross-validation curve is in k_choice_)",
                                GridBoundaryWarning)

    def _extra_attrs(self) -> dict:
        out = {"selbayes_k_used": int(self.selection_.n_selected),
               "selbayes_temperature": float(self.temperature_),
               "selbayes_label_noise": float(self.label_noise_),
               "selbayes_decorrelate": (-1.0 if self.decorrelate_ is None
                                        else float(self.decorrelate_))}
        if self.k_choice_ is not None:
            out["selbayes_k_choice_criterion"] = self.k_choice_.criterion
        return out

    def _extra_constant_data(self) -> dict:
        import xarray as xr

        out = {"feature_center": xr.DataArray(self.feature_center_, dims=["feature"]),
               "feature_scale": xr.DataArray(self.feature_scale_, dims=["feature"])}
        if self.transform_rows_ is not None:
            out["transform_rows"] = xr.DataArray(self.transform_rows_,
                                                 dims=["feature", "all_features"])
        if self.k_choice_ is not None:
            ch = self.k_choice_
            out["k_choice_score"] = xr.DataArray(ch.score, dims=["k_candidate"])
            out["k_choice_se"] = xr.DataArray(ch.se, dims=["k_candidate"])
            out["k_choice_k"] = xr.DataArray([g[0] for g in ch.grid], dims=["k_candidate"])
            out["k_choice_temperature"] = xr.DataArray([g[2] for g in ch.grid],
                                                       dims=["k_candidate"])
            out["k_choice_decorrelate"] = xr.DataArray(
                [-1.0 if g[1] is None else g[1] for g in ch.grid], dims=["k_candidate"])
        return out

    def _select_test_columns(self, X) -> np.ndarray:
        """The same affine map as in training: z = (x - center) / scale on the selected
        columns, or the stored rows of the (standardised) decorrelating transform."""
        if self.transform_rows_ is not None:
            Z = np.asarray(X @ self.transform_rows_.T)
        else:
            Z = super()._select_test_columns(X)
        return (Z - self.feature_center_) / self.feature_scale_

    def _predict_log_proba_selected(self, X_sel) -> np.ndarray:
        """Average the per-draw Student-t / Gaussian predictive densities of the selected
        features over the (thinned) posterior draws, with the class means integrated out."""
        from ..models.gaussian import class_log_prior, predictive_log_proba
        from .model_selection import label_noise_log_proba, temper_log_proba

        lp = class_log_prior(self.selection_.class_counts, self._prior_object().c)
        out = predictive_log_proba(X_sel, self.pred_mean_, self.pred_precision_, lp)
        return label_noise_log_proba(temper_log_proba(out, lp, self.temperature_), lp,
                                     self.label_noise_)

    def _predictive_state(self) -> dict:
        import xarray as xr

        dims = ["sample", "selected", "class_index"]
        return {"predictive_draws": xr.Dataset({
            "mean": xr.DataArray(self.pred_mean_, dims=dims),
            "precision": xr.DataArray(self.pred_precision_, dims=dims)})}

    def _restore_predictive(self, tree, cd) -> None:
        self.transform_rows_ = cd["transform_rows"].values if "transform_rows" in cd else None
        k = self.selection_.n_selected
        self.feature_center_ = (cd["feature_center"].values if "feature_center" in cd
                                else np.zeros(k))
        self.feature_scale_ = (cd["feature_scale"].values if "feature_scale" in cd
                               else np.ones(k))
        attrs = tree.attrs
        self.temperature_ = float(attrs.get("selbayes_temperature", 1.0))
        self.label_noise_ = float(attrs.get("selbayes_label_noise", 0.0))
        dec = float(attrs.get("selbayes_decorrelate", -1.0))
        self.decorrelate_ = None if dec < 0 else dec
        self.k_ = int(attrs.get("selbayes_k_used", k))
        self.k_choice_ = None
        if "k_choice_score" in cd:
            from .model_selection import KChoice

            grid = [(int(a), None if b < 0 else float(b), float(c)) for a, b, c in zip(
                cd["k_choice_k"].values, cd["k_choice_decorrelate"].values,
                cd["k_choice_temperature"].values, strict=True)]
            self.k_choice_ = KChoice(
                k=self.k_, decorrelate=self.decorrelate_, temperature=self.temperature_,
                grid=grid, score=cd["k_choice_score"].values, se=cd["k_choice_se"].values,
                criterion=str(attrs.get("selbayes_k_choice_criterion", "")),
                n_splits=int(self.inner_cv))
        draws = tree["predictive_draws"].to_dataset()
        self.pred_mean_ = draws["mean"].values
        self.pred_precision_ = draws["precision"].values




class KPath(Mapping):
    """Fitted classifiers along a path of k sharing one F ranking
    (:meth:`HierarchicalGaussianClassifier.fit_path`).

    A read-only mapping k -> fitted :class:`HierarchicalGaussianClassifier`, in the order of
    the ks given.

    Parameters
    ----------
    estimators : dict
        k -> fitted classifier.
    ranking : Selection
        The F statistics of all p features that every k selected from.

    Attributes
    ----------
    ks : list of int
    ranking : Selection

    Examples
    --------
    >>> path = KPath({}, None)
    >>> path.ks, len(path)
    ([], 0)
    """

    def __init__(self, estimators: dict, ranking):
        self._est = dict(estimators)
        self.ranking = ranking

    @property
    def ks(self) -> list:
        return list(self._est)

    def __getitem__(self, k):
        return self._est[k]

    def __iter__(self):
        return iter(self._est)

    def __len__(self) -> int:
        return len(self._est)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of every k: shape (len(ks), n_samples, G), in ``ks`` order."""
        return np.stack([est.predict_proba(X) for est in self._est.values()])

    def predict_log_proba(self, X) -> np.ndarray:
        """Log class probabilities of every k: shape (len(ks), n_samples, G)."""
        return np.stack([est.predict_log_proba(X) for est in self._est.values()])

    def __repr__(self) -> str:
        return f"KPath(ks={self.ks})"
