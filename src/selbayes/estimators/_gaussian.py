"""scikit-learn style estimator: the hierarchical Gaussian classifier with selection correction."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .._validation import warn_if_misaligned
from ..evaluation._prior_checks import PRIOR_TAIL, prior_boundary_checks  # noqa: F401 (old home)
from ..filters._selection import Selection
from ..models._priors import GaussianPriors
from ..preprocessing._features import AffineFeatures
from ._base import SAMPLERS, Posterior, SelectionClassifier, require_sampler
from ._gaussian_checks import FAR_FROM_TRAINING, GaussianChecks  # noqa: F401 (old home)
from ._params import Interval, StrOptions
from ._path import KPath

__all__ = ["HierarchicalGaussianClassifier", "SAMPLERS", "EXACT_MODEL", "KPath"]

#: Whether ``k="auto"`` continues the default k grid past 2000 (the 1-2-5 series, up to every
#: feature with F > 0) while the inner score is best at its end (``choose_k(extend_to=...)``).
#: Off, decided on 2026-11-28 on cost: the plasmode suite allowed it (KL not worse beyond 2 SE,
#: reports/plasmode/extended_k_grid) but showed no gain either (paired KL within 0.002 nats in
#: every scenario), and on a ten-class set of 22 283 genes it continued to k = 22 282, an hour
#: and a 22 GB peak for one fit. Past 2000, give ``k_grid`` (or ``method="plugin"``).
EXTEND_DEFAULT_K_GRID = False

#: Settings that make the classifier the exact model of Li (2009): data in their own units, the
#: Cholesky decorrelation of eq 12, the model's own predictive (no tempering, no label noise).
#: ``HierarchicalGaussianClassifier(k=10, **EXACT_MODEL)`` is what simulation-based checks and
#: paper reproductions need; the defaults are tuned for real data instead.
EXACT_MODEL = {"standardize": False, "temperature": 1.0, "label_noise": 0.0,
               "decorrelation_method": "cholesky", "effect_prior": "normal"}

# Kept one release for code that imported the private helper from here.
_require_sampler = require_sampler


@dataclass(frozen=True)
class _Prepared:
    """What ``_prepare_features`` hands to the selection and the fit."""

    #: the fitted decorrelating map of all p features (None: not decorrelated; the kept
    #: columns are then standardised in ``_fit_selected``)
    features: AffineFeatures | None
    #: F statistics of all p features of the X that selection sees (None: not computed yet)
    ranking: Selection | None


@dataclass(kw_only=True)
class _GaussianPosterior(Posterior):
    """The fitted posterior with the model data (sufficient statistics) it was fitted to."""

    data: dict
    #: median within-class variance of the kept features the model saw (for the advice of the
    #: prior-boundary warning)
    within_var: float


def _check_grids(k_grid, temperature_grid, decorrelate_grid) -> None:
    """Each candidate grid given is non-empty and holds what its parameter takes: k >= 1
    integers, T > 0, lambda >= 0 (or None, no decorrelation); all finite."""
    rules = (("k_grid", k_grid, False, lambda v: v == int(v) and v >= 1, "integers >= 1"),
             ("temperature_grid", temperature_grid, False, lambda v: v > 0,
              "finite numbers > 0"),
             ("decorrelate_grid", decorrelate_grid, True, lambda v: v >= 0,
              "finite numbers >= 0 or None (no decorrelation)"))
    for name, grid, none_ok, ok, what in rules:
        if grid is None:
            continue
        items = list(grid)
        if not items:
            raise ValueError(f"{name} is empty; give at least one value, or None for the "
                             "default")
        bad = [v for v in items if not (none_ok and v is None) and (
            isinstance(v, bool) or not isinstance(v, Real) or not np.isfinite(v) or not ok(v))]
        if bad:
            raise ValueError(f"{name} must hold {what}; got {bad[:5]}")


def _give_values(names) -> str:
    """The advice to fix the settings inner cross-validation would choose, as a sentence:
    ``give k a value``, ``give k and temperature values``, ``give k, temperature and
    decorrelate values``."""
    if len(names) == 1:
        return f"give {names[0]} a value"
    return f"give {', '.join(names[:-1])} and {names[-1]} values"


def _rank(X, y_index, classes) -> Selection:
    """F statistics of all p features (a Selection of the best one, with every score)."""
    from ..filters._selection import select_features

    if X.shape[1] < 2:      # the selection below keeps one feature: name the user's setting
        raise ValueError(f"selecting features needs at least 2 (1 <= k < p), but X has "
                         f"{X.shape[1]}: k='all' fits the model to it")
    return select_features(X, classes[y_index], k=1, statistic="f")


class HierarchicalGaussianClassifier(GaussianChecks, SelectionClassifier):
    """Hierarchical Bayesian Gaussian classifier that conditions on F-statistic selection.

    ``fit`` takes all p features, selects k of them by the one-way F statistic (so selection is
    internal to any cross-validation), and samples the posterior of the hierarchical Gaussian
    model of Li (2009) [1]_ (see :mod:`selbayes.models._gaussian`). With
    ``correct_selection=True`` the posterior also conditions on the p - k omitted features
    having F <= gamma, which keeps the predictive probabilities calibrated.

    Parameters
    ----------
    k : int, "auto" or "all", default "auto"
        Number of features to keep (1 <= k < p); "auto" chooses it inside ``fit`` by inner
        stratified cross-validated log score over ``k_grid``
        (:func:`selbayes.estimators.choose_k`, stored as ``k_choice_``); "all" uses
        every feature (nothing is omitted, so there is nothing to correct). ``threshold``
        overrides ``k`` (a ``k`` other than the default given with it warns that it is unused).
    threshold : float, optional
        Keep features with F > threshold.
    correct_selection : bool or "auto", default True
        Add the selection adjustment factor P(F <= gamma | tau_mu w_x)^(p - k). "auto":
        the corrected or the uncorrected model, whichever scores better in the inner
        cross-validation that chooses k (each at its own best k and T, on the same inner
        folds; ``correction_choice_``,
        :func:`selbayes.estimators._correction_choice.choose_correction`).
        On data whose signal is spread over correlated genes the corrected model can read
        the kept genes as noise (``reports/plasmode/correlated_underconfidence``). Not with
        ``effect_prior="auto"``.
    priors : GaussianPriors or dict, optional
        Prior settings; unset fields take the paper's fitting priors (Li 2009).
    effect_prior : {"t_auto", "t", "auto", "two_groups", "normal"}, default "t_auto"
        Prior on the class means, filled into ``priors`` where they do not set it
        (:func:`selbayes.models.with_effect_prior`). "t_auto" (default): the t prior with its
        degrees of freedom chosen by the data among :data:`selbayes.models.T_DF_GRID` (1 to
        64): the df of highest posterior density at the plug-in mode of the training data
        (empirical Bayes, ``t_df_``), then NUTS at that df (and in the inner
        cross-validation, per fold); it picks heavy tails (df = 2) for a few strong markers
        and lighter ones (df 8-16) for effects spread thinly over many genes. "t":
        multivariate t with 2 df (BCBCSF, Li 2012), whose heavy tails hold a few strong
        markers and many null genes at once (with the normal prior the correction then
        shrinks the markers to nothing); the default from 2026-11-25 to 2026-11-28.
        "two_groups": a share pi0 ~ Beta(1, 1) of features with no class difference plus a
        normal slab (``marker_probabilities_``); "normal": the paper's exchangeable prior;
        "auto": the prior among ``effect_prior_grid`` (t priors at a few df, and the normal
        prior) whose inner cross-validated log score, each at its own best k and T, is
        lowest (``prior_choice_``; :func:`~selbayes.estimators.choose_effect_prior`); tested
        and not adopted: with tens of training cases the inner scores hardly separate the
        priors, whose corrected fits then differ in calibration
        (``reports/plasmode/prior_cv``). The default was chosen on simulated and plasmode
        data with a rule written before the run (``reports/plasmode/t_auto_flat_nu``) and
        then checked, not chosen, on the eleven development sets
        (``reports/benchmark_microarray_t_auto_2026-11-28``). The df search adds one plug-in
        mode per df of the grid to each fit (and to each inner fold).
    effect_prior_grid : sequence of (float or "normal"), optional
        The candidates of ``effect_prior="auto"``: degrees of freedom of t priors (> 0) and
        "normal"; None: ``(1, 2, 4, "normal")``
        (``selbayes.estimators._prior_choice.DEFAULT_EFFECT_PRIOR_GRID``). Each candidate costs
        one inner cross-validation (a t prior about five times a normal one).
    decorrelate : float, "auto" or None, default None
        If a number lambda, whiten all p features with the shrunk pooled within-class covariance
        (Li 2009, eq 12) fitted on the training data before selecting; "auto" chooses lambda
        from ``decorrelate_grid`` (None included) together with k. Off by default: with tens
        of cases and thousands of genes the whitened training cases are nearly separable and
        new cases are not, so the fit is confidently wrong out of sample; on plasmode data
        with a linear truth over correlated genes the inner cross-validation never chose it
        (``reports/plasmode/decorrelate_auto``).
    decorrelation_method : {"symmetric", "cholesky"}, default "symmetric"
        "symmetric": low-rank whitening with no p x p matrix (any p); "cholesky": the paper's
        dense Cholesky whitening (p <= 20 000). See
        :class:`selbayes.preprocessing.Decorrelation`.
    standardize : bool, default True
        Centre every feature and scale it by its pooled within-class standard deviation
        (training statistics) before anything else, so predictions do not depend on the units
        of X. The F statistics, hence the selection and its adjustment, are unchanged by this.
        Centred features get a flat prior on their means nu_j in place of ``priors``'
        ``alpha_nu``, ``w_nu`` (:func:`selbayes.models.for_centred_features`: under the normal
        prior the zero means read as class means that barely vary, which shrank the
        predictions the more the larger k). False fits the paper's model to X in its own
        units.
    temperature : float, "correlation" or "auto", default "correlation"
        Predictive temperature T: P(g | x) proportional to pi_g p(x | g, data)^(1/T), a
        correction for evidence counted several times by correlated features
        (:func:`selbayes.models.temper_log_proba`); 1 is the model's own
        predictive. "correlation" (default) computes T from the training data of the
        selected features: the variance inflation of the naive log likelihood ratio along
        the class-mean differences caused by the features' within-class correlation
        (:func:`selbayes.models.correlation_temperature`), so the
        temperature accounts for correlation and the selection correction for selection.
        "auto" chooses T with k by inner cross-validated log score over
        ``temperature_grid`` (it then also absorbs the overconfidence that ignoring the
        selection causes).
    k_grid, decorrelate_grid, temperature_grid : sequence, optional
        Candidates for the "auto" choices (defaults ``DEFAULT_K_GRID``,
        ``DEFAULT_DECORRELATE_GRID``, ``DEFAULT_T_GRID`` of ``selbayes.estimators._k_grid``).
        A ``k_grid`` given here is used as given (its values above p - 1 treated as
        ``k_grid_beyond_p`` says; not continued past its end, see ``EXTEND_DEFAULT_K_GRID``).
    k_grid_beyond_p : {"clip", "drop"}, default "clip"
        What the k grid does with values above the largest k a fit can keep (p - 1, or the
        number of features with F > 0): "clip" (the default since 2026-12-06) replaces them
        by that largest k, so the inner cross-validation also scores (nearly) every feature
        where p is at most the grid's last value (with p = 2000 the default grid ends at
        1999; with p = 456 at 455); "drop" (the default before) leaves them out (1000 and
        200 there). The two differ only where p is at most the grid's last value (2000 for
        the default grid). A grid with no value up to that largest k is an error either way.
        Decided on new simulation replicates with the rule written first
        (``reports/plasmode/k_grid_clip/``).
    inner_cv : int, default 5
        Inner folds of the "auto" choices; at most the smallest class's number of training
        cases (a class of 3 gives 3 folds). The number used is ``k_choice_.n_splits``. A
        class with a single training case (a rare class in a cross-validation fold) is
        fitted, its mean that case, but not split: the inner folds hold the other classes'
        cases (``k_choice_.extra["cases"]``), which choose the settings, and ``fit`` warns.
    inner_repeats : int, default 1
        Repeated inner cross-validation: the inner folds are drawn this many times
        (independent stratified splits; the first is the one of ``inner_repeats=1``) and each
        candidate's loss on a training case is its mean over the splits, so that the "auto"
        choices depend less on how one split fell (costs that many times the inner
        cross-validation's time, not the MCMC fit's). The stack's inner refits use the first
        split.
    choice_rule : {"best", "one_se", "largest_k_one_se"}, default "best"
        How the "auto" choices pick from the inner cross-validation curve: the lowest score,
        the smallest temperature within one paired standard error of it (tried on the
        benchmark, not better), or the largest k within one paired standard error of it
        (:func:`selbayes.estimators.choose_k`).
    label_noise : float, "auto" or "cv", default "cv"
        Probability eps that a case's label is unrelated to its features: the predictive is
        (1 - eps) P(g | x) + eps pi_g
        (:func:`selbayes.models.label_noise_log_proba`),
        which bounds the loss of any one case; "auto" is 1 / (n + 2) (Laplace's rule of
        succession); 0 turns it off. "cv": c / (n + 2) with c in {1, 0, 1/4, 4}
        (:data:`selbayes.estimators.LABEL_NOISE_SHARES`) chosen by the inner
        cross-validation at the k it chooses (or at the given k; with ``k="all"`` at p - 1,
        the largest k it fits, and with a single feature, or inner training folds of no
        more cases than classes, Laplace's share), from the same
        inner test cases: no share where the inner cases are all predicted well (a few
        strong markers), a larger one where the model is overconfident out of sample. The
        chosen eps is ``label_noise_``.
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
        Show the sampler's progress and, with ``k="auto"``, the inner cross-validation's
        folds as they are scored (:func:`~selbayes.estimators.choose_k`).
    parameterization : {"marginal", "noncentered"}, default "marginal"
        "marginal" integrates the class means out analytically (NUTS sees only the
        precisions tau_mu and tau_x, tau_nu when the features are not standardised, and the
        t prior's k scales lambda_mu; mu and nu are drawn exactly afterwards), which samples
        cleanly whether the selected features are weak or strong. "noncentered" samples
        them directly.
    method : {"mcmc", "plugin"}, default "mcmc"
        "mcmc" samples the posterior with NUTS; predictions average each kept feature's
        predictive density over its own draws within groups of draws of nearly equal tau_mu
        (the features are independent given it:
        :func:`selbayes.models.factorised_predictive_log_proba`), which
        at k = 1000 cuts the Monte Carlo error of the log odds twelvefold against the
        average of joint draws. "plugin" sets the hyperparameters (tau_mu, and
        tau_nu when the features are not standardised) at their posterior mode, selection
        factor included, and draws each kept feature's precision (and t scale) from its
        posterior given them
        (:func:`selbayes.models.plugin_posterior`): no sampler runs, ``draws``
        draws in one chain, predictions averaged per feature, and the cost is O(k): under a
        minute at k = 20 000 on 2 cores where NUTS takes 10 to 25
        (``benchmarks/results/large_k_plugin.md``). With few features prefer "mcmc" (it
        integrates over the hyperparameters). Not with ``effect_prior="two_groups"`` or a
        hyperprior on w_x; no ``diagnostics_`` (nothing to converge) and no ``model_``.

    Attributes
    ----------
    classes_ : ndarray of shape (G,)
    selection_ : Selection
        Integer positions of the selected features (``selection_.indices``), their scores
        and gamma.
    selected_features_ : ndarray of str, shape (k,)
        Names of the selected features, best first.
    data_min_, data_max_ : ndarray of shape (p,) or None
        Each feature's smallest and largest training value, in the units of X as given to
        ``fit``; ``predict_proba`` warns (:class:`~selbayes.estimators.FarFromTrainingWarning`)
        about rows outside this range on most features (another scale than in ``fit``).
        None for a scipy sparse X (a pandas DataFrame of sparse columns, as
        ``read_anndata(dense=False)`` gives, has them). Saved and loaded with the fit.
    prior_checks_ : pandas.DataFrame
        :func:`selbayes.evaluation.prior_boundary_checks` of the posterior (a
        :class:`~selbayes.evaluation.PriorBoundaryWarning` names the held ones).
    loo_checks_ : pandas.DataFrame or None
        One row per training case: ``held_out_proba`` (the inner cross-validation's
        probability of its own class, without label noise), ``label_p_value`` and
        ``suspect_label`` (:func:`selbayes.evaluation.held_out_label_check`; a
        :class:`~selbayes.evaluation.SuspectLabelWarning` names the flagged cases), and the
        Pareto k of PSIS-LOO on its likelihood of the kept features (``pareto_k``,
        ``influential``; reported, not warned on). The label columns need the inner
        cross-validation's probabilities without label noise (``label_noise="cv"``, the
        default, or 0). Set by ``fit``; saved and loaded with it.
    replicate_groups_ : pandas.DataFrame or None
        Groups of training samples (pairs, triplets, ...) far more alike among themselves than
        any member is to any other sample (:func:`selbayes.evaluation.replicate_groups`: one
        row per sample in a group, ``group``, ``case`` (row number), ``sample`` (its id, as in
        ``loo_checks_``), ``size``, ``correlation``, ``margin``, and ``kept``: whether the
        inner folds kept its group whole), looked for where inner cross-validation runs, X is
        dense and no group labels were given (None otherwise). ``groups="near_copies"`` (the
        default) keeps the groups whose members all correlate at 0.8 or more whole, ``"auto"``
        every group; where the groups not kept hold 10% of the samples or more a
        :class:`~selbayes.evaluation.ReplicateWarning` asks whether they are replicates. Saved
        and loaded with the fit.
    groups_ : ndarray of int, shape (n_samples,), or None
        The group code of each training case that the inner cross-validation kept whole:
        those given to ``fit`` (as codes), the groups found and kept (the near-copies by
        default, every group with ``groups="auto"``), or None
        (every case its own group, or no inner cross-validation ran). Saved and loaded with
        the fit (as ``constant_data``'s ``inner_cv_group``; a file written before it was
        saved loads with None).
    feature_names_in_ : ndarray of str, shape (p,)
        Column names of a DataFrame passed to ``fit`` (absent for array input, whose
        features are named ``x0`` ... ``x{p-1}``).
    n_features_in_ : int
    k_, temperature_, decorrelate_ : int, float, float or None
        The values used (chosen, computed or as given; ``k_`` is the number of features
        kept, also with ``k="all"`` or a ``threshold``).
    k_choice_ : KChoice or None
        The inner cross-validation curve when something was "auto" (``print`` shows it as a
        table; ``k_choice_.table()`` is the DataFrame).
    label_noise_ : float
        The label-noise probability eps of the predictive (``label_noise`` as given, 1 / (n
        + 2) for "auto", the inner cross-validation's choice for "cv").
    t_df_ : float or None
        With ``effect_prior="t_auto"`` or ``"auto"``: the degrees of freedom of the t prior
        chosen on the training data (recorded as ``idata_.attrs["selbayes_t_df"]``); None
        otherwise (and when "auto" chose the normal prior).
    correct_selection_ : bool
        Whether the fitted model has the selection correction (``correct_selection``, or
        what "auto" chose).
    correction_choice_ : CorrectionChoice or None
        With ``correct_selection="auto"``: the corrected and the uncorrected model's inner
        cross-validated log scores at their own best k and T, and their paired difference
        (``print`` shows the table); None otherwise.
    prior_choice_ : PriorChoice or None
        With ``effect_prior="auto"``: every candidate prior's inner cross-validated log score
        at its own best k and T, and the paired difference to the chosen one (``print``
        shows the table); None otherwise.
    marker_probabilities_ : ndarray of shape (k,) or None
        With ``effect_prior="two_groups"``: each kept feature's posterior probability of
        being a real marker (a class difference, not the null), after the selection, in the
        order of ``selected_features_``; None with the other priors.
    ppc_checks_ : pandas.DataFrame or None
        The posterior-predictive check of the kept features' F statistics
        (:func:`selbayes.evaluation.f_statistic_check`; a
        :class:`~selbayes.evaluation.PriorDataConflictWarning` says when the fitted
        hyperparameters cannot produce F statistics as large as the observed ones);
        ``plot_ppc`` draws it. None where the fit stores no F statistics.
    diagnostics_ : pandas.DataFrame or None
        :func:`selbayes.evaluation.check` of the hyperparameters' chains (R-hat, ESS; the
        sampler's checks in ``diagnostics_.attrs``); None with ``method="plugin"``.
    sampler_used_ : str
        The NUTS implementation that ran, ``"nutpie"`` or ``"pymc"`` (``sampler="auto"``
        takes nutpie where it is installed).
    model_ : pymc.Model
        The PyMC model that was sampled (``method="mcmc"``; absent otherwise, after ``load``
        and in an unpickled copy: a compiled model does not pickle).
    pred_mean_, pred_precision_, pred_null_, pred_groups_ : internal
        The predictive's per-feature moments, for ``predict_proba``; not for use.
    feature_center_, feature_scale_, transform_rows_ : internal
        The feature transform (standardisation, decorrelation), for ``predict_proba``; not
        for use.
    idata_ : xarray.DataTree
        The ArviZ result, with the selected features' names as the ``feature`` coordinate and
        the class labels as the ``class`` coordinate. Groups:

        ``posterior``
            ``tau_mu`` (scalar; ``tau_nu`` too with ``standardize=False``: standardised
            features are centred and get a flat prior on their means), ``tau_x``, ``nu``
            (per feature), ``lambda_mu`` (per feature, with a t prior) and ``mu``
            (feature x class), per chain and draw.
        ``sample_stats``
            NUTS statistics (energy, divergences, tree depth, ...).
        ``log_likelihood``
            ``x`` (chain, draw, case): log p(x_i | y_i) of each training case's kept
            features given its class, sum over features of log N(x_ij | mu_j,y_i, 1/tau_x_j)
            (nats), so ``az.loo`` works. It is a density of the kept features, not a class
            probability: its scale depends on k, on which features were kept and on their
            units (standardisation, decorrelation). ``az.loo`` / ``az.compare`` may therefore
            compare only fits with the same selected features (for example the corrected and
            the uncorrected model at the same k); to compare k or selections, use the class
            log score (``evaluate``, or cross-validation).
        ``posterior_predictive``
            ``f_statistic`` (chain, draw, feature): the one-way F statistic of each
            selected feature in a replicated training set with the same class counts.
        ``observed_data``
            ``f_statistic`` (feature): the observed F statistics, the counterpart of the
            posterior predictive, so ``az.plot_ppc_dist(idata_)`` works without arguments
            (also after ``save`` / ``load``).
        ``constant_data``
            ``x`` (case, feature): the kept training features as the model saw them (after
            standardisation or decorrelation); ``y`` (case): each case's class as an integer
            index into the ``class`` coordinate (the class labels); the sufficient statistics
            a PyMC-sampled model records (``ssw``, ``xbar``); the selection
            (``selection_indices``, ``selection_scores`` of all p features,
            ``selection_class_counts``); the feature transform, the inner
            cross-validation curve and ``inner_cv_group`` (case; ``groups_``, where not
            None).

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
                 correct_selection: bool = True, priors=None, effect_prior: str = "t_auto",
                 effect_prior_grid=None, decorrelate: float | str | None = None,
                 decorrelation_method: str = "symmetric", standardize: bool = True,
                 temperature: float | str = "correlation", k_grid=None, decorrelate_grid=None,
                 temperature_grid=None, k_grid_beyond_p: str = "clip", inner_cv: int = 5,
                 inner_repeats: int = 1, choice_rule: str = "best",
                 label_noise: float | str = "cv",
                 draws: int = 1000, tune: int = 1000, chains: int = 4, sampler: str = "auto",
                 target_accept: float = 0.9, max_predict_draws: int | None = 1000,
                 random_state: int | None = None, progressbar: bool = True,
                 parameterization: str = "marginal", method: str = "mcmc"):
        self.k = k
        self.threshold = threshold
        self.correct_selection = correct_selection
        self.priors = priors
        self.effect_prior = effect_prior
        self.effect_prior_grid = effect_prior_grid
        self.decorrelate = decorrelate
        self.decorrelation_method = decorrelation_method
        self.standardize = standardize
        self.temperature = temperature
        self.k_grid = k_grid
        self.decorrelate_grid = decorrelate_grid
        self.temperature_grid = temperature_grid
        self.k_grid_beyond_p = k_grid_beyond_p
        self.inner_cv = inner_cv
        self.inner_repeats = inner_repeats
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
        self.method = method

    _parameter_constraints = {
        **SelectionClassifier._parameter_constraints,
        **SelectionClassifier._nuts_constraints,
        "k": [Interval(Integral, 1, None, closed="left"), StrOptions({"all", "auto"}), None],
        "correct_selection": ["boolean", StrOptions({"auto"})],
        "priors": [GaussianPriors, dict, None],
        "effect_prior": [StrOptions({"t", "t_auto", "normal", "two_groups", "auto"})],
        "effect_prior_grid": [list, tuple, np.ndarray, None],
        "decorrelate": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"}), None],
        "decorrelation_method": [StrOptions({"symmetric", "cholesky"})],
        "standardize": ["boolean"],
        "temperature": [Interval(Real, 0, None, closed="neither"),
                        StrOptions({"auto", "correlation"})],
        "k_grid": [list, tuple, np.ndarray, None],
        "decorrelate_grid": [list, tuple, np.ndarray, None],
        "temperature_grid": [list, tuple, np.ndarray, None],
        "k_grid_beyond_p": [StrOptions({"drop", "clip"})],
        "inner_cv": [Interval(Integral, 2, None, closed="left")],
        "inner_repeats": [Interval(Integral, 1, None, closed="left")],
        "choice_rule": [StrOptions({"best", "one_se", "largest_k_one_se"})],  # _k_choice.RULES
        "label_noise": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto", "cv"})],
        "parameterization": [StrOptions({"marginal", "noncentered"})],
        "method": [StrOptions({"mcmc", "plugin"})],
    }
    _statistic = "f"
    _diagnostic_vars = ("tau_mu", "tau_nu", "tau_x", "pi0")
    # A class of one case has its mean and no within-class variance (the pooled variance's
    # df are n - G); inner cross-validation leaves it out (_inner_cv.inner_cv_cases), and
    # needs two classes it can split.
    _min_per_class = 1
    _min_classes_of_two = 2
    _internal_groups = ("predictive_draws",)


    # ------------------------------------------------------------------ hooks
    def _prior_object(self) -> GaussianPriors:
        """The priors the settings describe; with ``effect_prior="auto"`` (chosen in ``fit``)
        the other settings alone, the prior on the class means left normal (the fitted one is
        :meth:`_fitted_priors`)."""
        from ..models._priors import for_centred_features, with_effect_prior
        from ._prior_choice import effect_prior_candidates

        if self.effect_prior == "auto":
            effect_prior_candidates(self.priors, self.effect_prior_grid)  # its checks
            priors = GaussianPriors.from_dict(self.priors)
        else:
            if self.effect_prior_grid is not None:    # unused, but checked as the other grids
                effect_prior_candidates(None, self.effect_prior_grid)
            priors = with_effect_prior(self.priors, self.effect_prior)
        # Standardised features are centred: a flat prior on their means (the normal one
        # would read the zero means as class means that barely vary).
        return for_centred_features(priors) if self.standardize else priors

    _priors = _prior_object

    def _fitted_priors(self) -> GaussianPriors:
        """The priors the posterior was fitted with: where the df of the t prior was chosen in
        ``fit`` (``effect_prior="t_auto"`` or ``"auto"``; ``t_df_``) the t prior at that df,
        otherwise :meth:`_prior_object`."""
        from dataclasses import replace

        priors = self._prior_object()
        t_df = getattr(self, "t_df_", None)        # set only where fit chose the df
        if t_df is not None:
            priors = replace(priors, mu_t_df=float(t_df), mu_t_df_grid=None)
        return priors

    def _choose_t_df(self, X_sel, y_index, selection: Selection, priors):
        """``t_df_``: with a grid of df (``effect_prior="t_auto"``), the df whose plug-in
        mode of the hyperparameters has the highest posterior density on these training
        data (an empirical-Bayes choice; :func:`selbayes.models.plugin_posterior`), so that
        NUTS samples the t prior at one df. The full sum over df in one model
        (:func:`selbayes.models.build_model` with ``mu_t_df_grid``) mixes badly between df
        once k is in the hundreds: given hundreds of lambda_j the df is pinned, and moving
        to another df moves them all (R-hat 1.7 at k = 300). Without a grid (a fixed df, or
        one chosen already by ``effect_prior="auto"``) ``priors`` is returned as given.

        Returns ``(priors, mode)``: the priors at the chosen df, and the plug-in mode of
        (log tau_mu, log tau_nu) the search found at it (None without a grid), which
        ``method="plugin"`` then uses instead of searching it again."""
        if priors.mu_t_df_grid is None:
            return priors, None
        from ..models._gaussian import sufficient_statistics
        from ..models._gaussian_plugin import _t_df_mode

        counts, xbar, ssw = sufficient_statistics(X_sel, y_index, len(selection.class_counts))
        mode, self.t_df_, _ = _t_df_mode(xbar, ssw, counts.astype(np.float64), selection,
                                         priors, self.correct_selection_)
        return self._fitted_priors(), tuple(float(m) for m in mode)

    def _validate_params(self, skip=()) -> None:
        """The base checks, then the combinations the plug-in does not cover (before any work)."""
        super()._validate_params(skip=skip)
        _check_grids(self.k_grid, self.temperature_grid, self.decorrelate_grid)
        if self.correct_selection == "auto" and self.effect_prior == "auto":
            raise ValueError("correct_selection='auto' and effect_prior='auto' cannot be "
                             "combined: choose the prior (effect_prior='t_auto', the "
                             "default, or another) or give correct_selection=True/False")
        if self.method == "plugin":
            from ..models._gaussian_plugin import check_plugin_priors

            check_plugin_priors(self._prior_object())

    def fit(self, X, y, groups="near_copies"):
        """Choose the "auto" settings by inner cross-validation, select features on (X, y)
        and compute the posterior of the selected ones.

        Parameters
        ----------
        X : array-like of shape (n_samples, p)
            All p features (a DataFrame's column names become ``feature_names_in_``).
        y : array-like of shape (n_samples,)
            Class labels (any sortable hashable values).
        groups : array-like, "near_copies", "auto" or None, default "near_copies"
            A group label per case (shape (n_samples,)), for samples that are not
            independent (technical replicates, two preparations of one tumour, several
            samples of one patient): the inner cross-validation that chooses the "auto"
            settings keeps a group's cases in one fold (``k_choice_`` prints how many
            groups), so that no inner test case is scored with its twin among the inner
            training cases. The check
            :func:`selbayes.evaluation.replicate_groups` looks for groups of samples far more
            alike than any others (pairs to groups of 5; ``replicate_groups_``), and
            ``"near_copies"`` (the default) keeps whole those whose members all correlate at
            0.8 or more (near-copies, such as technical replicates of one RNA; chosen by a
            rule written before its run, ``reports/plasmode/near_copies_default/``),
            ``"auto"`` every group it finds (it also finds less alike pairs, such as two
            preparations of one tumour, and on real data now and then a chance pair), each
            other sample alone (``groups_``). Where the groups found but not kept hold 10% of
            the samples, a :class:`~selbayes.evaluation.ReplicateWarning` names them. Sparse
            X is not looked in (refused with ``"auto"``). None: every case is its own group
            (still looked in, to warn). Without an "auto" setting nothing uses them.

        Returns
        -------
        self
            The fitted classifier (``classes_``, ``selection_``, ``idata_``, ...).

        Raises
        ------
        ValueError
            For a bad setting or input, named; for ``groups`` that are not one label per
            case, have a missing one or are an unknown string, or ``"auto"`` with sparse X;
            an :class:`~selbayes.estimators.InnerCVImpossibleError` where the groups leave an
            inner training fold without a class.
        """
        if not isinstance(groups, str):
            warn_if_misaligned(X, groups, name="groups")
        return self._fit(X, y, groups=groups)

    def _prepare_features(self, X, y_index, classes, ranking=None, choice=None, groups=None):
        """Resolve the "auto" settings (inner CV on the training data only), then standardise
        and decorrelate all p features with training statistics.

        ``ranking`` (the F statistics of all p features of X) and ``choice`` (the inner
        cross-validation's :class:`KChoice`) are given by :meth:`fit_path`, which computes them
        once for the whole path; ``groups`` (a label per case) by :meth:`fit`. Returns
        ``(X, _Prepared)``.
        """
        from ..models._gaussian_plugin import default_label_noise

        self.sampler_used_ = require_sampler(self.sampler)
        self.k_, self.temperature_, self.decorrelate_ = self.k, self.temperature, self.decorrelate
        self.k_choice_ = self.prior_choice_ = self.correction_choice_ = self.t_df_ = None
        self.replicate_groups_ = None
        correction_auto = self.correct_selection == "auto"
        self.correct_selection_ = self._correction_until_chosen()
        noise_cv = self.label_noise == "cv"
        sparse = hasattr(X, "toarray")
        from ..evaluation._replicates import group_mode

        # "near_copies" or "auto": the groups found below, where inner CV runs
        group_kind, groups = group_mode(groups)
        if groups is not None:
            from ..evaluation._folds import group_codes

            groups = group_codes(groups, X.shape[0])       # its errors before any work
        self.label_noise_ = (default_label_noise(X.shape[0])
                             if self.label_noise in ("auto", "cv") else float(self.label_noise))
        k_auto = self.k == "auto" and self.threshold is None
        t_auto = self.temperature == "auto"
        prior_auto = self.effect_prior == "auto"
        chosen = [name for name, auto in (("k", k_auto), ("temperature", t_auto),
                                          ("decorrelate", self.decorrelate == "auto"),
                                          ("effect_prior", prior_auto),
                                          ("correct_selection", correction_auto)) if auto]
        inner_cv = bool(chosen) or noise_cv
        from ._inner_cv import InnerCVImpossibleError, class_counts, smallest_inner_training_fold

        if inner_cv and X.shape[1] < 2:
            # The inner cross-validation fits 1 <= k < p features: with one there is none.
            if chosen:
                raise InnerCVImpossibleError(
                    f"{', '.join(chosen)}=\"auto\" is chosen by inner cross-validation over "
                    f"1 <= k < p kept features, but X has n_features = 1: "
                    f"{_give_values(chosen)} (k=\"all\" keeps the one feature)")
            inner_cv = False          # label_noise="cv": the share stays Laplace's 1 / (n + 2)
        train_cases = smallest_inner_training_fold(y_index, self.inner_cv)
        # a class with a single training case is not split by the inner folds (its case joins
        # only the fit on all the data: inner_cv_cases)
        inner_classes = int(np.sum(np.bincount(y_index) >= 2))
        if inner_cv and (train_cases <= inner_classes or inner_classes < 2):
            # a pooled within-class variance needs more cases than classes in every inner
            # training fold (two cases per class in all: n = 4, G = 2 leaves folds of 2)
            if chosen:
                raise InnerCVImpossibleError(
                    f"{', '.join(chosen)}=\"auto\" is chosen by inner cross-validation, whose "
                    f"training folds would hold {train_cases} cases for {inner_classes} "
                    "classes (it splits the classes with two cases or more; class counts "
                    f"{class_counts(classes, y_index)}); it needs two such classes and more "
                    f"cases than classes: {_give_values(chosen)}")
            inner_cv = False          # label_noise="cv": the share stays Laplace's 1 / (n + 2)
        single = classes[np.bincount(y_index) == 1]
        if single.size:
            from ..evaluation._diagnostics import warn_from_user_line

            warn_from_user_line(
                f"class(es) {', '.join(map(repr, single.tolist()))} have a single training "
                "case: its values are the class mean (the within-class variance comes from "
                "the other classes)" + (f", and inner cross-validation chooses "
                                        f"{', '.join(chosen) or 'the label-noise share'} on "
                                        "the other classes' cases" if inner_cv else ""),
                UserWarning)
        if inner_cv:
            # Validate as the selection will (clear errors before any inner CV), and offer
            # only k that keep features with F > 0.
            if ranking is None:
                ranking = _rank(X, y_index, classes)
            self._check_selection(ranking)
            fixed = None                  # the selection when k or the threshold is given
            if isinstance(self.k, Integral) or self.threshold is not None:
                fixed = self._selection_from_ranking(ranking, X)
                self._check_selection(fixed)
            n_positive = int(np.sum(ranking.scores > 0))
            k_cap = min(n_positive, X.shape[1] - 1)
            if k_auto:
                from ._k_grid import DEFAULT_K_GRID, usable_k_grid

                if self.k_grid is not None and not any(k <= k_cap for k in self.k_grid):
                    why = (f"k must leave at least one of the {X.shape[1]} features omitted"
                           + (f", and only {n_positive} have F > 0"
                              if n_positive < X.shape[1] - 1 else ""))
                    raise ValueError(f"k_grid {sorted(int(k) for k in self.k_grid)} has no k "
                                     f"up to {k_cap} ({why}); give smaller values")
                grid = self.k_grid if self.k_grid is not None else DEFAULT_K_GRID
                k_grid = usable_k_grid(grid, k_cap, self.k_grid_beyond_p)
            else:
                # T, lambda, the prior or the label-noise share chosen at the k the fit
                # will keep
                k_grid = [int(fixed.n_selected) if fixed is not None else k_cap]
            # With EXTEND_DEFAULT_K_GRID the default grid goes on past its end while the inner
            # curve's best is there (k up to every feature with F > 0 where the data ask for
            # it); a grid the user gives is taken as given.
            extend_to = (k_cap if EXTEND_DEFAULT_K_GRID and k_auto and self.k_grid is None
                         else None)
            if groups is None:
                # groups that look like replicates: those of group_kind kept whole (the
                # near-copies by default), the others for the warning of _check_replicates
                from ..evaluation._replicates import kept_groups

                self.replicate_groups_, groups = kept_groups(X, y_index, group_kind)
            settings = self._choice_settings(k_grid, extend_to, groups)
            if prior_auto:
                self._choose_effect_prior(X.toarray() if sparse else X, classes[y_index],
                                          settings)
            elif correction_auto:
                self._choose_correction(X.toarray() if sparse else X, classes[y_index],
                                        settings)
            else:
                self.k_choice_ = choice if choice is not None else self._choose(
                    X.toarray() if sparse else X, classes[y_index], settings)
            if k_auto:
                self.k_ = self.k_choice_.k
            if t_auto:
                self.temperature_ = self.k_choice_.temperature
            if self.decorrelate == "auto":
                self.decorrelate_ = self.k_choice_.decorrelate
            if noise_cv:
                from ._k_choice import share_label_noise

                self.label_noise_ = share_label_noise(self.k_choice_.extra["label_noise_c"],
                                                      X.shape[0])
            self._warn_grid_ends(k_cap)
        self.groups_ = groups if inner_cv else None
        if self.decorrelate_ is None:
            # The F statistic is invariant to per-feature affine maps, so selection runs on X
            # as given (sparse stays sparse); only the k selected columns are standardised,
            # in _fit_selected.
            return X, _Prepared(features=None, ranking=ranking)
        from ..preprocessing._features import prepare_features

        X = X.toarray() if sparse else X                 # whitening mixes every column
        Xp, features = prepare_features(
            X, y_index, len(classes), standardize=self.standardize,
            decorrelate=self.decorrelate_, method=self.decorrelation_method)
        # Selection ranks the whitened features afresh.
        return Xp, _Prepared(features=features, ranking=None)

    def _choose_effect_prior(self, X, y, settings) -> None:
        """``effect_prior="auto"``: :func:`~selbayes.estimators.choose_effect_prior` over the
        candidates of ``effect_prior_grid`` with this classifier's other settings
        (:meth:`_choice_settings`); sets ``prior_choice_``, ``t_df_`` and ``k_choice_`` (the
        chosen prior's curve)."""
        from ._prior_choice import choose_effect_prior, effect_prior_candidates

        candidates = effect_prior_candidates(self.priors, self.effect_prior_grid)
        self.prior_choice_ = choose_effect_prior(
            X, y, candidates, random_state=self.random_state, **settings)
        self.t_df_ = self.prior_choice_.t_df
        self.k_choice_ = self.prior_choice_.k_choices[self.prior_choice_.chosen]

    def _choose_correction(self, X, y, settings) -> None:
        """``correct_selection="auto"``: :func:`choose_correction` with this classifier's
        other settings (:meth:`_choice_settings`); sets ``correction_choice_``,
        ``correct_selection_`` and ``k_choice_`` (the chosen model's curve)."""
        from ._correction_choice import choose_correction

        settings = dict(settings)
        del settings["corrected"]
        self.correction_choice_ = choose_correction(
            X, y, priors=self._prior_object(), random_state=self.random_state, **settings)
        self.correct_selection_ = self.correction_choice_.corrected
        self.k_choice_ = self.correction_choice_.k_choices[self.correction_choice_.chosen]

    def _correction_until_chosen(self) -> bool:
        """The correction as the parameter gives it: ``correct_selection="auto"`` means the
        corrected model until :meth:`_choose_correction` chooses (its corrected arm is the
        inner cross-validation a corrected fit runs)."""
        return self.correct_selection == "auto" or bool(self.correct_selection)

    def _choose(self, X, y, settings):
        """:func:`~selbayes.estimators.choose_k` with this classifier's priors and
        ``settings`` (:meth:`_choice_settings`)."""
        from ._inner_cv import choose_k

        return choose_k(X, y, priors=self._prior_object(), random_state=self.random_state,
                        **settings)

    def _choice_settings(self, k_grid, extend_to=None, groups=None) -> dict:
        """The settings of :func:`~selbayes.estimators.choose_k` other than the priors and
        the seed: the grid of k (continued up to ``extend_to`` while its best is at the
        end), the "auto" grids, correction, transforms, label noise, rule and folds (with
        ``groups``, a code per case, kept whole)."""
        from ._k_grid import DEFAULT_DECORRELATE_GRID, DEFAULT_T_GRID

        if self.decorrelate == "auto":
            dec_grid = list(DEFAULT_DECORRELATE_GRID if self.decorrelate_grid is None
                            else self.decorrelate_grid)
        else:
            dec_grid = [self.decorrelate if isinstance(self.decorrelate, int | float) else None]
        if self.temperature == "auto":
            t_grid = DEFAULT_T_GRID if self.temperature_grid is None else self.temperature_grid
        elif self.temperature == "correlation":
            t_grid = "correlation"
        else:
            t_grid = [float(self.temperature)]
        return dict(grid=k_grid, decorrelate_grid=dec_grid, temperature_grid=t_grid,
                    corrected=self._correction_until_chosen(), standardize=self.standardize,
                    decorrelation_method=self.decorrelation_method,
                    label_noise=self.label_noise, rule=self.choice_rule, cv=self.inner_cv,
                    repeats=self.inner_repeats, groups=groups,
                    extend_to=extend_to, progressbar=self.progressbar)

    def _selection_from_ranking(self, ranking: Selection, X) -> Selection:
        """The selection rule applied to the F statistics of ``ranking``."""
        from ..filters._selection import selection_from_scores

        if self.threshold is not None:
            k, threshold = None, self.threshold
        elif self.k == "auto":
            k, threshold = min(int(self.k_), X.shape[1] - 1), None
        else:
            k, threshold = self.k, None
        return selection_from_scores(ranking.scores, k, threshold, "f", ranking.class_counts,
                                     ranking.classes)

    def _resolve_selection(self, X, y_index, classes, transform=None) -> Selection:
        if self.k == "all" and self.threshold is None:
            return super()._resolve_selection(X, y_index, classes, transform)
        ranking = transform.ranking if transform is not None else None
        if ranking is None:
            ranking = _rank(X, y_index, classes)
        sel = self._selection_from_ranking(ranking, X)
        self._check_selection(sel)
        return sel

    def fit_path(self, X, y, ks, groups="near_copies"):
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
        groups : array-like, "near_copies", "auto" or None, default "near_copies"
            A group label per case, kept whole by the inner folds, or what :meth:`fit` takes
            (the groups found once, the same for every k).

        Returns
        -------
        KPath
            Mapping k -> fitted :class:`HierarchicalGaussianClassifier` (``self`` is left
            unfitted), with ``predict_proba(X)`` of shape (len(ks), n, G) and the shared
            ``ranking`` (a :class:`~selbayes.filters.Selection`).

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
        from ._path import fit_k_path

        return fit_k_path(self, X, y, ks, groups)

    def _fit_selected(self, X_sel, y_index, selection: Selection,
                      transform: _Prepared) -> _GaussianPosterior:
        """Standardise the kept columns (unless decorrelated: already mapped), set the
        correlation temperature, and sample the posterior of the selected features."""
        from ..models._gaussian import _model_from_data, model_data, sample_nutpie
        from ..models._gaussian_posterior import draw_class_means
        from ._memory import check_fit_memory

        priors = self._fitted_priors()       # with "auto", the prior its inner CV chose
        # the number kept, whatever chose it (k, "all", a threshold), as load() restores it
        self.k_ = int(selection.n_selected)
        y = self.classes_[y_index]
        G = len(selection.class_counts)
        if transform.features is not None:        # decorrelated: X_sel is already mapped
            self.feature_center_, self.feature_scale_, self.transform_rows_ = (
                transform.features.selected_affine(selection.indices))
        else:
            from ..preprocessing._features import prepare_features

            X_sel, kept = prepare_features(X_sel, y_index, len(self.classes_),
                                           standardize=self.standardize)
            self.feature_center_, self.feature_scale_ = kept.mean, kept.scale
            self.transform_rows_ = None
        if self.temperature == "correlation":
            from ..models._gaussian_plugin import correlation_temperature

            self.temperature_ = correlation_temperature(X_sel, y_index, G)
        coords = {"feature": [int(i) for i in selection.indices],
                  "class": [str(c) for c in selection.classes]}
        seed = self.random_state
        priors, mode = self._choose_t_df(X_sel, y_index, selection, priors)
        data = model_data(X_sel, y, selection, priors, corrected=self.correct_selection_)
        # Warn before sampling when the draws kept would fill the machine (a kill for memory
        # gives no message at all).
        check_fit_memory(X_sel.shape[1], G, 1 if self.method == "plugin" else self.chains,
                         self.draws, self.max_predict_draws,
                         t_prior=priors.mu_t_df is not None)
        n = X_sel.shape[0]
        within_var = float(np.median(data["ssw_obs"]) / max(n - G, 1))
        if self.method == "plugin":
            from ..models._gaussian_plugin import plugin_idata

            idata = plugin_idata(X_sel, y_index, selection, priors, data, coords,
                                 corrected=self.correct_selection_, draws=self.draws,
                                 random_state=seed, mode=mode)
            return _GaussianPosterior(idata=idata, model=None, X=X_sel, data=data,
                                      within_var=within_var)
        if self.sampler_used_ == "nutpie":
            # The compiled model is cached per shape and reused (numba compile dominates).
            idata, model = sample_nutpie(
                data, priors, coords, draws=self.draws, tune=self.tune, chains=self.chains,
                seed=None if seed is None else int(seed), target_accept=self.target_accept,
                progressbar=self.progressbar, parameterization=self.parameterization)
        else:
            model = _model_from_data(data, priors, coords, self.parameterization)
            idata = self._run_nuts(model, seed)
            if self.parameterization == "marginal":
                draw_class_means(idata, data, priors, random_state=seed)
        return _GaussianPosterior(idata=idata, model=model, X=X_sel, data=data,
                                  within_var=within_var)

    def _store_predictive(self, posterior: _GaussianPosterior) -> None:
        """Per-draw predictive moments with mu integrated out (Rao-Blackwellised; see
        :func:`selbayes.models.predictive_moments`), on evenly thinned draws."""
        from ..models._gaussian_posterior import (
            FACTORISED_MAX_DRAWS,
            hyperparameter_groups,
            predictive_moments,
            tau_nu_draws,
        )
        from ..models._gaussian_two_groups import marker_probabilities, two_groups_predictive

        data = posterior.data
        post = self.idata_.posterior

        def flat(name):
            v = tau_nu_draws(post) if name == "tau_nu" else post[name].values
            return v.reshape(-1, *v.shape[2:])

        keep = self._thin_index(flat("tau_mu").shape[0])
        if self.method == "plugin" and keep.size > FACTORISED_MAX_DRAWS:
            # The plug-in's predictive averages each feature over this many evenly spaced
            # draws (factorised_predictive_log_proba): the moments of the others would be
            # computed and saved for nothing (5x the work at k = 20 000, 1000 draws). The
            # same draws are kept, so the predictions are unchanged.
            keep = keep[np.linspace(0, keep.size - 1, FACTORISED_MAX_DRAWS).round().astype(int)]
        lam = flat("lambda_mu")[keep] if "lambda_mu" in post else None
        self.pred_null_ = None
        self.marker_probabilities_ = None
        if "pi0" in post:
            # Two-groups prior: each kept feature is a marker with its per-draw probability;
            # prediction averages the indicators out exactly.
            pred = two_groups_predictive(
                flat("tau_x")[keep], flat("tau_mu")[keep], flat("tau_nu")[keep],
                flat("pi0")[keep], data["xbar_obs"], data["class_counts"], lambda_mu=lam)
            self.pred_mean_, self.pred_precision_ = pred["mean"], pred["precision"]
            self.pred_null_ = (pred["null_mean"], pred["null_precision"], pred["marker_prob"])
            self.marker_probabilities_ = marker_probabilities(self.idata_, data)
        else:
            self.pred_mean_, self.pred_precision_ = predictive_moments(
                flat("tau_x")[keep], flat("tau_mu")[keep], flat("tau_nu")[keep],
                data["xbar_obs"], data["class_counts"], lambda_mu=lam)
        # Draws of nearly equal globals (tau_mu; and pi0 under the two-groups prior) share a
        # group: prediction averages each feature over its own draws within a group (the
        # features are independent given the globals), which removes most of the Monte Carlo
        # error of the joint average at large k.
        self.pred_groups_ = None
        if self.method == "mcmc":
            self.pred_groups_ = hyperparameter_groups(
                flat("tau_mu")[keep], pi0=flat("pi0")[keep] if "pi0" in post else None)

    def _extra_attrs(self) -> dict:
        out = {"selbayes_method": self.method,      # as the naive Bayes classifier records
               "selbayes_k_used": int(self.selection_.n_selected),
               "selbayes_temperature": float(self.temperature_),
               "selbayes_label_noise": float(self.label_noise_),
               "selbayes_decorrelate": (-1.0 if self.decorrelate_ is None
                                        else float(self.decorrelate_))}
        if getattr(self, "t_df_", None) is not None:
            out["selbayes_t_df"] = float(self.t_df_)
        if self.k_choice_ is not None:
            out["selbayes_k_choice_criterion"] = self.k_choice_.criterion
        if getattr(self, "prior_choice_", None) is not None:
            out["selbayes_effect_prior_chosen"] = self.prior_choice_.label
        out["selbayes_corrected"] = int(self.correct_selection_)
        if getattr(self, "correction_choice_", None) is not None:
            out["selbayes_correction_chosen"] = self.correction_choice_.label
        return out

    def _extra_constant_data(self) -> dict:
        import xarray as xr

        out = {"feature_center": xr.DataArray(self.feature_center_, dims=["feature"]),
               "feature_scale": xr.DataArray(self.feature_scale_, dims=["feature"])}
        if self.transform_rows_ is not None:
            out["transform_rows"] = xr.DataArray(self.transform_rows_,
                                                 dims=["feature", "all_features"])
        if self.k_choice_ is not None:
            out.update(self.k_choice_.to_constant_data())
        if getattr(self, "prior_choice_", None) is not None:
            out.update(self.prior_choice_.to_constant_data())
        if getattr(self, "correction_choice_", None) is not None:
            out.update(self.correction_choice_.to_constant_data())
        if getattr(self, "groups_", None) is not None:
            # the groups the inner folds kept whole, which a stack's inner fits reuse
            out["inner_cv_group"] = xr.DataArray(np.asarray(self.groups_), dims=["case"])
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
        """Average the per-draw Gaussian predictive densities of the selected features (class
        means integrated out) over the (thinned) posterior draws: feature by feature within
        groups of draws of nearly equal globals (``pred_groups_``), then over groups."""
        from ..models._gaussian_plugin import _tempered, _with_label_noise
        from ..models._gaussian_posterior import class_log_prior, predictive_log_proba
        from ..models._gaussian_posterior import factorised_predictive_log_proba as fpl
        from ..models._gaussian_two_groups import predictive_log_proba_two_groups

        lp = class_log_prior(self.selection_.class_counts, self._prior_object().c)
        if getattr(self, "pred_null_", None) is not None:
            out = predictive_log_proba_two_groups(X_sel, self.pred_mean_, self.pred_precision_,
                                                  *self.pred_null_, lp,
                                                  groups=getattr(self, "pred_groups_", None))
        elif self.method == "plugin":       # features independent given the hyperparameters
            out = fpl(X_sel, self.pred_mean_, self.pred_precision_, lp)
        elif getattr(self, "pred_groups_", None) is not None:
            out = fpl(X_sel, self.pred_mean_, self.pred_precision_, lp, max_draws=None,
                      groups=self.pred_groups_)
        else:       # a fit saved before the grouped predictive: the joint average it used
            out = predictive_log_proba(X_sel, self.pred_mean_, self.pred_precision_, lp)
        # the unchecked forms: rows float64 cannot resolve are named by the caller's check
        return _with_label_noise(_tempered(out, lp, self.temperature_), lp, self.label_noise_)

    def _predictive_state(self) -> dict:
        import xarray as xr

        dims = ["sample", "selected", "class_index"]
        ds = xr.Dataset({"mean": xr.DataArray(self.pred_mean_, dims=dims),
                         "precision": xr.DataArray(self.pred_precision_, dims=dims)})
        if getattr(self, "pred_null_", None) is not None:
            for name, value in zip(("null_mean", "null_precision", "marker_prob"),
                                   self.pred_null_, strict=True):
                ds[name] = xr.DataArray(value, dims=dims[:2])
        if getattr(self, "pred_groups_", None) is not None:
            ds["group"] = xr.DataArray(self.pred_groups_, dims=dims[:1])
        return {"predictive_draws": ds}

    def _restore_predictive(self, tree, cd) -> None:
        self.transform_rows_ = cd["transform_rows"].values if "transform_rows" in cd else None
        # files written before groups_ was saved: None, as for a fit without groups
        self.groups_ = cd["inner_cv_group"].values if "inner_cv_group" in cd else None
        k = self.selection_.n_selected
        self.feature_center_ = (cd["feature_center"].values if "feature_center" in cd
                                else np.zeros(k))
        self.feature_scale_ = (cd["feature_scale"].values if "feature_scale" in cd
                               else np.ones(k))
        attrs = tree.attrs
        self.temperature_ = float(attrs.get("selbayes_temperature", 1.0))
        self.label_noise_ = float(attrs.get("selbayes_label_noise", 0.0))
        self.t_df_ = float(attrs["selbayes_t_df"]) if "selbayes_t_df" in attrs else None
        dec = float(attrs.get("selbayes_decorrelate", -1.0))
        self.decorrelate_ = None if dec < 0 else dec
        self.k_ = int(attrs.get("selbayes_k_used", k))
        self.k_choice_ = None
        if "k_choice_score" in cd:
            from ._k_choice import KChoice

            self.k_choice_ = KChoice.from_constant_data(
                cd, k=self.k_, decorrelate=self.decorrelate_, temperature=self.temperature_,
                criterion=str(attrs.get("selbayes_k_choice_criterion", "")),
                n_splits=int(self.inner_cv), n_repeats=int(self.inner_repeats),
                rule=self.choice_rule)
        self.prior_choice_ = None
        if "prior_choice_score" in cd:
            from ._prior_choice import PriorChoice

            self.prior_choice_ = PriorChoice.from_constant_data(
                cd, chosen_label=str(attrs["selbayes_effect_prior_chosen"]))
        # files written before correct_selection="auto" existed: the parameter says it
        self.correct_selection_ = (bool(attrs["selbayes_corrected"])
                                   if "selbayes_corrected" in attrs
                                   else self._correction_until_chosen())
        self.correction_choice_ = None
        if "correction_choice_score" in cd:
            from ._correction_choice import CorrectionChoice

            self.correction_choice_ = CorrectionChoice.from_constant_data(
                cd, chosen_label=str(attrs["selbayes_correction_chosen"]))
        draws = tree["predictive_draws"].to_dataset()
        self.pred_mean_ = draws["mean"].values
        self.pred_precision_ = draws["precision"].values
        self.pred_null_ = None
        self.pred_groups_ = draws["group"].values if "group" in draws else None
        self.marker_probabilities_ = None
        if "marker_prob" in draws:
            from ..models._gaussian_two_groups import marker_probabilities

            self.pred_null_ = (draws["null_mean"].values, draws["null_precision"].values,
                               draws["marker_prob"].values)
            self.marker_probabilities_ = marker_probabilities(tree)
