"""Plasmode and simulation suite: calibration against known true class probabilities.

A benchmark on real labels can only score a method against the one label each case has; a
default chosen on such a benchmark is tuned to those sets. Here the truth is known, so a method
is scored against the true class probabilities of every test case:

* **simulation** scenarios draw X and y from the hierarchical Gaussian model's own assumptions
  (independent Gaussian features given the class), with sparse strong or dense weak effects:
  there the model's assumptions hold, and a calibrated method must be calibrated;
* **plasmode** scenarios keep the real expression matrix X of a development set (its genes'
  correlation, skewness and outliers) and draw the labels from a known logistic model
  P(y = 1 | x) = sigmoid(b0 + x' beta) on the standardised genes, with beta sparse and strong,
  dense and weak, or spread over a module of correlated genes. The model's assumptions do not
  hold there; a method should be no worse calibrated than L2 logistic regression.

Scores (per replicate, on its test cases; two classes):

``kl``
    mean KL(p_true || p_hat) in nats (0 for the truth itself);
``slope``
    calibration slope: b of the logistic fit P(y = 1) = sigmoid(a + b logit p_hat) with the
    true probabilities as (fractional) outcomes; 1 is calibrated, < 1 overconfident, > 1
    underconfident;
``expected_error``, ``actual_error``, ``abs_gap``
    the method's own expected error mean(1 - max_g p_hat), the true error of its decisions
    mean(1 - p_true[argmax p_hat]) and their absolute difference;
``log_score``
    expected log loss E_{y ~ p_true}[-log p_hat(y)] (nats; KL plus the truth's entropy).

Replicates are independent (new labels, new train/test split), so a scenario's standard error
is the standard deviation over replicates / sqrt(R); paired differences between two methods use
the per-replicate differences.

References
----------
Franklin, J. M. et al. (2014). Plasmode simulation for the evaluation of
pharmacoepidemiologic methods in complex healthcare databases. Computational Statistics & Data
Analysis 72:219-226 (the plasmode idea: real covariates, known outcome model).
Li, L. (2009). Calibrating predictions based on a selected subset of features from Bayesian
Gaussian classification models (the model of the simulation scenarios).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from .._parallel import check_n_jobs
from .._validation import make_folder

__all__ = ["SCENARIOS", "HOLDOUT_SCENARIOS", "IMBALANCED_SCENARIOS", "SMALL_SAMPLE_SCENARIOS",
           "SHIFTED_SCENARIOS", "scenario", "factor_covariance",
           "CANDIDATES", "STACKED", "LINEAR_STACKED", "WIDE_K_GRID", "Scenario", "make_replicate",
           "true_logit", "bayes_optimal_log_odds", "bayes_optimal_log_densities",
           "fit_replicate", "make_candidate", "calibration_scores", "run_suite", "summarise",
           "paired_differences", "write_report"]


@dataclass(frozen=True)
class Scenario:
    """One data-generating scenario of the suite.

    Parameters
    ----------
    name : str
    kind : {"simulation", "plasmode", "shifted"}
        "simulation": independent genes, the classes shift their means. "plasmode": real X,
        labels drawn given it. "shifted": the classes shift the means of genes correlated as
        real ones are (``n_factors`` factors of ``dataset``'s correlation plus each gene's
        own variance), labels first; delta is scaled so that the classes are as separable as
        in the simulation with the same ``n_effects`` and ``effect_sd`` (Mahalanobis
        distance of the class means squared: n_effects effect_sd^2).
    n_train : int
        Training cases per replicate (the rest, or ``n_test`` simulated cases, are the test set).
    p : int
        Features (simulation only; plasmode uses every gene of ``dataset``).
    n_effects : int
        Features with a class effect (simulation) or with a nonzero logistic coefficient
        (plasmode; for ``module`` the module size).
    effect_sd : float
        Simulation: standard deviation of a real effect (class-mean difference in within-class
        standard deviations). Plasmode: standard deviation of the true linear predictor
        x' beta over the cases (a larger value is a more separable truth).
    pattern : {"random", "module", "factor"}
        Plasmode: coefficients on random genes, or on one gene and its most correlated genes.
        "shifted": the class difference on ``n_effects`` random genes ("random"), or along
        the factors of the real correlation ("factor": delta = L v, v standard normal, as a
        class difference that shows in a principal-component plot).
    dataset : str or None
        Development set whose X is used (plasmode).
    n_test : int
        Simulated test cases (simulation only).
    model_holds : bool
        Whether the Gaussian model's assumptions hold (decides which acceptance applies).
    prevalence : float or None
        Share of class 1 in training and test cases. None: as the suite draws them
        (simulation: half of the training cases, test labels at 1/2; plasmode: as the true log
        odds, centred over the cases, make them). A number: simulation, that share of the
        training cases, test labels Bernoulli(prevalence) and the true log odds shifted by its
        log odds; plasmode, the true log odds shifted so that the true probabilities average
        ``prevalence`` over all cases.
    n_factors : int
        "shifted": factors of the real correlation kept (the rest is each gene's own
        variance).

    Raises
    ------
    ValueError
        If ``kind`` is unknown or ``pattern`` is not one that ``kind`` draws (a pattern it
        ignored would silently give another scenario).

    Examples
    --------
    >>> Scenario("s", "simulation", n_train=20, p=50).model_holds
    False
    """

    name: str
    kind: str
    n_train: int
    p: int = 0
    n_effects: int = 10
    effect_sd: float = 1.0
    pattern: str = "random"
    dataset: str | None = None
    n_test: int = 400
    model_holds: bool = False
    prevalence: float | None = None
    n_factors: int = 10

    def __post_init__(self):
        patterns = _PATTERNS.get(self.kind)
        if patterns is None:
            raise ValueError(f"scenario {self.name!r}: kind must be one of "
                             f"{', '.join(_PATTERNS)}; got {self.kind!r}")
        if self.pattern not in patterns:
            raise ValueError(f"scenario {self.name!r}: a {self.kind} scenario draws pattern "
                             f"{' or '.join(map(repr, patterns))}; got {self.pattern!r}")


#: The effect patterns each kind of scenario draws (make_replicate, true_logit).
_PATTERNS = {"simulation": ("random",), "plasmode": ("random", "module"),
             "shifted": ("random", "factor")}

#: The suite. Fixed before any run (see reports/plasmode/README.md, "Protocol").
SCENARIOS = {
    "sim_sparse_strong": Scenario("sim_sparse_strong", "simulation", n_train=60, p=2000,
                                  n_effects=8, effect_sd=1.5, model_holds=True),
    "sim_dense_weak": Scenario("sim_dense_weak", "simulation", n_train=80, p=2000,
                               n_effects=1000, effect_sd=0.12, model_holds=True),
    "plasmode_sparse": Scenario("plasmode_sparse", "plasmode", n_train=70, n_effects=5,
                                effect_sd=3.0, dataset="gravier"),
    "plasmode_dense": Scenario("plasmode_dense", "plasmode", n_train=70, n_effects=500,
                               effect_sd=3.0, dataset="gravier"),
    "plasmode_module": Scenario("plasmode_module", "plasmode", n_train=70, n_effects=40,
                                effect_sd=3.0, pattern="module", dataset="singh"),
}

#: Validation scenarios on real X that chose nothing (2026-12-02, reports/plasmode_holdout):
#: the suite's plasmode mechanisms (sparse, dense, module) on the X of two development sets
#: whose X the suite does not use, fixed before any run on them. The defaults were chosen on
#: :data:`SCENARIOS`; these check whether what they showed holds on other genes' correlation.
#: Not run unless named (``--scenarios``).
HOLDOUT_SCENARIOS = {
    "holdout_sparse": Scenario("holdout_sparse", "plasmode", n_train=70, n_effects=5,
                               effect_sd=3.0, dataset="chowdary"),
    "holdout_dense": Scenario("holdout_dense", "plasmode", n_train=70, n_effects=500,
                              effect_sd=3.0, dataset="nakayama"),
    "holdout_module": Scenario("holdout_module", "plasmode", n_train=70, n_effects=40,
                               effect_sd=3.0, pattern="module", dataset="chowdary"),
}
#: Unequal classes (2026-12-04, reports/plasmode/imbalance_probe, rule written first): three of
#: the suite's scenarios with class 1 at a quarter of the cases. Not run unless named.
IMBALANCED_SCENARIOS = {
    f"{name}_q": replace(SCENARIOS[name], name=f"{name}_q", prevalence=0.25)
    for name in ("sim_sparse_strong", "sim_dense_weak", "plasmode_sparse")}
#: Small samples (2026-12-04, reports/plasmode/small_n_probe, rule written first): four of the
#: suite's scenarios with 40 training cases, what 5-fold cross-validation leaves of a set of 50
#: (the suite has 60 to 80). Not run unless named.
SMALL_SAMPLE_SCENARIOS = {
    f"{name}_n40": replace(SCENARIOS[name], name=f"{name}_n40", n_train=40)
    for name in ("sim_sparse_strong", "sim_dense_weak", "plasmode_sparse", "plasmode_dense")}
#: Classes that shift real correlated genes (2026-12-04, reports/plasmode/probit_two_priors:
#: the plasmode scenarios draw labels given X, the simulations shift independent genes; real
#: classes shift correlated ones). The simulations' effects, on random genes, under the
#: correlation of gravier's X (10 factors), as separable as the simulations: there the class
#: difference lies mostly along genes' own variance, where a linear model of 60 to 80 cases
#: finds little (the report). "shifted_factor": the class difference along the factors.
#: Not run unless named.
SHIFTED_SCENARIOS = {
    "shifted_sparse_strong": Scenario("shifted_sparse_strong", "shifted", n_train=60,
                                      n_effects=8, effect_sd=1.5, dataset="gravier"),
    "shifted_dense_weak": Scenario("shifted_dense_weak", "shifted", n_train=80,
                                   n_effects=1000, effect_sd=0.12, dataset="gravier"),
    "shifted_factor": Scenario("shifted_factor", "shifted", n_train=70, n_effects=8,
                               effect_sd=1.5, pattern="factor", dataset="gravier"),
    # 2026-12-05 (reports/plasmode/probit_prior_gate, rule written first): as shifted_factor
    # with 40 training cases, what 5-fold cross-validation leaves of a set of 50
    "shifted_factor_n40": Scenario("shifted_factor_n40", "shifted", n_train=40, n_effects=8,
                                   effect_sd=1.5, pattern="factor", dataset="gravier"),
}
_ALL_SCENARIOS = {**SCENARIOS, **HOLDOUT_SCENARIOS, **IMBALANCED_SCENARIOS,
                  **SMALL_SAMPLE_SCENARIOS, **SHIFTED_SCENARIOS}


def scenario(name: str) -> Scenario:
    """The scenario called ``name``, from any of the tables above (the suite's, the held-out
    X, imbalanced, small-sample and shifted ones).

    Parameters
    ----------
    name : str
        A scenario's name, e.g. "sim_dense_weak" or "sim_dense_weak_n40".

    Returns
    -------
    Scenario

    Raises
    ------
    ValueError
        If no table has that name (the message lists the known names).

    Examples
    --------
    >>> scenario("sim_dense_weak_n40").n_train
    40
    """
    if name not in _ALL_SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; known: {sorted(_ALL_SCENARIOS)}")
    return _ALL_SCENARIOS[name]

#: The k grid of the "wide" candidates: the default grid continued to 2000 (dense signal).
WIDE_K_GRID = (5, 10, 20, 50, 100, 200, 500, 1000, 2000)

#: Candidate defaults: name -> keyword arguments of HierarchicalGaussianClassifier (on top of
#: the benchmark's ``selbayes_default``). Other method names come from the benchmark's METHODS.
#: Every setting that the defaults have changed since the suite was written is spelled out,
#: so a name means the same configuration before and after. Each candidate has an
#: ``<name>_uncorrected`` twin, the same without the selection correction.
_OLD_GRID = (5, 10, 20, 50, 100, 200, 500)
_BASE_CANDIDATES = {
    "sb_normal": {"effect_prior": "normal", "k_grid": _OLD_GRID},
    "sb_normal_wide": {"effect_prior": "normal", "k_grid": WIDE_K_GRID},
    "sb_t_wide": {"effect_prior": "t", "k_grid": WIDE_K_GRID},
    "sb_t_auto_wide": {"effect_prior": "t_auto", "k_grid": WIDE_K_GRID},
    "sb_prior_cv_wide": {"effect_prior": "auto", "k_grid": WIDE_K_GRID},
    "sb_two_groups_wide": {"effect_prior": "two_groups", "k_grid": WIDE_K_GRID},
    # k_grid None: the default grid, continued past 2000 while the inner score is best at its
    # end; as run on 2026-11-27 (commit 1ec743b). The continuation now follows the switch
    # selbayes.estimators._gaussian.EXTEND_DEFAULT_K_GRID (off, decided on cost on
    # 2026-11-28): with it off these names fit the plain grid.
    "sb_t_extended": {"effect_prior": "t", "k_grid": None},
    "sb_t_auto_extended": {"effect_prior": "t_auto", "k_grid": None},
    # The default (t_auto, grid to 2000) without its label-noise share: label_noise=0, so the
    # probabilities are the tempered posterior predictive alone (2026-11-28,
    # reports/plasmode/label_noise_zero).
    "sb_t_auto_wide_no_label_noise": {"effect_prior": "t_auto", "k_grid": WIDE_K_GRID,
                                      "label_noise": 0.0},
    # The default with its label-noise share c / (n + 2) chosen by the inner cross-validation
    # at the chosen k, c in {1, 0, 1/4, 4} (label_noise="cv"; 2026-11-28,
    # reports/plasmode/label_noise_cv_mcmc, after the offline check label_noise_cv).
    "sb_t_auto_wide_noise_cv": {"effect_prior": "t_auto", "k_grid": WIDE_K_GRID,
                                "label_noise": "cv"},
    # The default with the correction itself chosen by the inner cross-validation
    # (correct_selection="auto"; 2026-11-28, reports/plasmode/correction_cv). Its
    # "_uncorrected" twin is sb_t_auto_wide_uncorrected's configuration.
    "sb_t_auto_wide_correction_cv": {"effect_prior": "t_auto", "k_grid": WIDE_K_GRID,
                                     "correct_selection": "auto"},
}
# Every candidate before label_noise="cv" became the default (2026-11-28,
# reports/plasmode/label_noise_cv_mcmc) ran with Laplace's share 1/(n + 2): spelled out.
for _kwargs in _BASE_CANDIDATES.values():
    _kwargs.setdefault("label_noise", "auto")
CANDIDATES = {f"{name}{suffix}": {**kwargs, **extra}
              for name, kwargs in _BASE_CANDIDATES.items()
              for suffix, extra in (("", {}), ("_uncorrected", {"correct_selection": False}))}
#: Candidates that stack another candidate's k (StackedGaussianClassifier; 2026-11-28,
#: reports/plasmode/stacking_k_mcmc, with Laplace's share; 2026-11-29,
#: reports/plasmode/stacking_k_noise_cv_mcmc, each component with its share chosen by inner
#: CV, as label_noise="cv" does at a given k): name -> the candidate whose inner CV is stacked.
STACKED = {"sb_t_auto_wide_stack_k": "sb_t_auto_wide",
           "sb_t_auto_wide_noise_cv_stack_k": "sb_t_auto_wide_noise_cv"}
#: Candidates that stack another candidate with a Bayesian probit regression of all genes
#: (LinearStackedClassifier; 2026-12-02, offline in reports/plasmode/bayes_linear_ep and
#: bayes_linear_ep_confirm): name -> the candidate stacked.
LINEAR_STACKED = {"sb_t_auto_wide_noise_cv_linear_stack": "sb_t_auto_wide_noise_cv"}


def make_candidate(name: str, random_state=None, *, quick: bool = False):
    """An unfitted classifier for ``name``: a key of :data:`CANDIDATES` or a benchmark method.

    Parameters
    ----------
    name : str
        A key of :data:`CANDIDATES`, :data:`STACKED` or :data:`LINEAR_STACKED`, or a benchmark
        method.
    random_state : int, optional
    quick : bool
        Short MCMC.

    Returns
    -------
    estimator
        Unfitted, with ``fit`` and ``predict_proba``.

    Examples
    --------
    >>> make_candidate("sb_t_wide").effect_prior
    't'
    """
    from ..benchmark._methods import make_method, selbayes_default

    if name in STACKED:
        from ..estimators._stacking import StackedGaussianClassifier

        return StackedGaussianClassifier(
            selbayes_default(random_state, quick=quick, **CANDIDATES[STACKED[name]]))
    if name in LINEAR_STACKED:
        from ..estimators._linear_stack import LinearStackedClassifier

        # the reports' two-model stack (the gated L1 model, since 2026-12-03, is scored
        # offline from these fits: reports/plasmode/gated_l1_stack)
        return LinearStackedClassifier(
            selbayes_default(random_state, quick=quick, **CANDIDATES[LINEAR_STACKED[name]]),
            l1_gate=None)
    if name in CANDIDATES:
        return selbayes_default(random_state, quick=quick, **CANDIDATES[name])
    return make_method(name, 2, random_state=random_state, quick=quick)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _standardised_dataset(name: str) -> np.ndarray:
    """The development set's X (preprocessed as the benchmark does), genes standardised; genes
    with no variance dropped. Shape (n, p)."""
    from ..datasets._loaders import load_dataset

    X = np.asarray(load_dataset(name).X, dtype=np.float64)
    sd = X.std(axis=0)
    X = X[:, sd > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def true_logit(scenario: Scenario, X, rng) -> np.ndarray:
    """The plasmode truth: log odds of class 1 for every row of the real X, a linear predictor
    scaled to sd ``effect_sd`` (:func:`make_replicate`'s first draws from ``rng``).

    Parameters
    ----------
    scenario : Scenario
        A plasmode scenario (``pattern`` "random" or "module").
    X : ndarray of shape (n, p)
        The standardised real X.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((30, 50))
    >>> sc = Scenario("s", "plasmode", n_train=20, n_effects=5, effect_sd=3.0)
    >>> eta = true_logit(sc, X, np.random.default_rng(1))
    >>> eta.shape, round(float(eta.std()), 6)
    ((30,), 3.0)
    """
    n, p = X.shape
    for _ in range(100):                               # a non-degenerate linear predictor
        beta = np.zeros(p)
        if scenario.pattern == "module":
            hub = rng.integers(p)
            r = (X.T @ X[:, hub]) / n                  # correlation with the hub gene, O(np)
            idx = np.argsort(-np.abs(r))[: scenario.n_effects]
            beta[idx] = np.sign(r[idx])
        else:
            idx = rng.choice(p, scenario.n_effects, replace=False)
            beta[idx] = rng.standard_normal(scenario.n_effects)
        eta = X @ beta
        if np.isfinite(eta).all() and eta.std() > 1e-8 * np.abs(beta).sum():
            break
    return scenario.effect_sd * (eta - eta.mean()) / eta.std()


def factor_covariance(X, n_factors: int, *, min_own: float = 0.05):
    """A low-rank-plus-diagonal covariance fitted to standardised real genes: the
    ``n_factors`` leading factors of their sample correlation and each gene's remaining
    variance, so that every gene has variance 1 (the "shifted" scenarios' within-class
    covariance). Through the n x n problem (an SVD of X); nothing p x p.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Standardised genes (mean 0, variance 1 over the n cases).
    n_factors : int
        Factors kept, at most n - 1.
    min_own : float
        Floor of a gene's own variance (a gene the factors explain entirely keeps this much).

    Returns
    -------
    L : ndarray of shape (p, n_factors)
        Loadings: the sample correlation's leading part is L L'.
    d : ndarray of shape (p,)
        Each gene's own variance, 1 - sum of its squared loadings (at least ``min_own``).

    Raises
    ------
    ValueError
        If ``n_factors`` is not between 1 and n - 1.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((30, 200)); X = (X - X.mean(0)) / X.std(0)
    >>> L, d = factor_covariance(X, 3)
    >>> L.shape, bool(np.all(d >= 0.05)), bool(np.allclose(((L ** 2).sum(1) + d)[d > 0.05], 1))
    ((200, 3), True, True)
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if not 1 <= n_factors <= n - 1:
        raise ValueError(f"n_factors must be between 1 and n - 1 = {n - 1}; got {n_factors}")
    _, sv, Vt = np.linalg.svd(X, full_matrices=False)
    # X'X / n = V diag(sv^2 / n) V': the leading factors' loadings
    L = Vt[:n_factors].T * (sv[:n_factors] / np.sqrt(n))
    d = np.maximum(1.0 - (L ** 2).sum(axis=1), min_own)
    return L, d


def make_replicate(scenario: Scenario, random_state: int, *, X_real=None):
    """Draw one replicate: training data, test data and the test cases' true probabilities.

    Parameters
    ----------
    scenario : Scenario
    random_state : int
    X_real : ndarray of shape (n, p), optional
        The standardised real X (plasmode; loaded from ``scenario.dataset`` when None).

    Returns
    -------
    dict
        ``X_train`` (n_train, p), ``y_train`` (n_train,) in {0, 1}, ``X_test``, ``y_test``,
        ``p_test`` (n_test, 2): true class probabilities of the test cases.

    Raises
    ------
    ValueError
        If no draw of the labels gives 5 training cases of each class.

    Examples
    --------
    >>> d = make_replicate(Scenario("s", "simulation", n_train=20, p=50, n_test=30), 0)
    >>> d["X_train"].shape, d["p_test"].shape
    ((20, 50), (30, 2))
    """
    rng = np.random.default_rng(random_state)
    if scenario.kind in ("simulation", "shifted"):
        if scenario.kind == "shifted":
            L, d = factor_covariance(_standardised_dataset(scenario.dataset)
                                     if X_real is None else X_real, scenario.n_factors)
            p = d.size
        else:
            p = scenario.p
        n = scenario.n_train + scenario.n_test
        y = np.zeros(n, dtype=int)
        prior = 0.5 if scenario.prevalence is None else scenario.prevalence
        if scenario.prevalence is None:
            # balanced training set, test classes at the same prior 1/2
            y[: scenario.n_train // 2] = 1
            y[scenario.n_train:] = rng.integers(0, 2, scenario.n_test)
        else:
            y[: round(prior * scenario.n_train)] = 1
            y[scenario.n_train:] = rng.random(scenario.n_test) < prior
        if scenario.pattern == "factor":
            delta = L @ rng.standard_normal(L.shape[1])      # scaled below
        else:
            delta = np.zeros(p)
            idx = rng.choice(p, scenario.n_effects, replace=False)
            delta[idx] = scenario.effect_sd * rng.standard_normal(scenario.n_effects)
        if scenario.kind == "simulation":
            # class means +/- delta/2; unit within-class variance; independent features
            X = rng.standard_normal((n, p)) + np.outer(y - 0.5, delta)
            direction = delta
        else:
            # within-class covariance L L' + diag(d); its inverse applied by Woodbury
            Dinv_delta, Dinv_L = delta / d, L / d[:, None]
            small = np.eye(L.shape[1]) + L.T @ Dinv_L
            direction = Dinv_delta - Dinv_L @ np.linalg.solve(small, L.T @ Dinv_delta)
            # as separable as the simulation with the same effects: the Mahalanobis distance
            # of the class means, delta' Sigma^-1 delta, set to its mean there,
            # n_effects effect_sd^2 (genes with little own variance would otherwise make
            # the classes all but deterministic)
            scale = np.sqrt(scenario.n_effects * scenario.effect_sd ** 2 / (delta @ direction))
            delta, direction = scale * delta, scale * direction
            X = (rng.standard_normal((n, L.shape[1])) @ L.T
                 + rng.standard_normal((n, p)) * np.sqrt(d) + np.outer(y - 0.5, delta))
        Xt = X[scenario.n_train:]
        # exact log odds of class 1 under the true model (its prior odds added):
        # delta' Sigma^-1 x for class means +/- delta / 2 and a shared covariance Sigma
        logit = Xt @ direction + np.log(prior / (1 - prior))
        p1 = _sigmoid(logit)
        return {"X_train": X[: scenario.n_train], "y_train": y[: scenario.n_train],
                "X_test": Xt, "y_test": y[scenario.n_train:],
                "p_test": np.column_stack([1 - p1, p1])}
    X = _standardised_dataset(scenario.dataset) if X_real is None else X_real
    n = X.shape[0]
    eta = true_logit(scenario, X, rng)
    if scenario.prevalence is not None:
        from scipy.optimize import brentq

        eta = eta + brentq(lambda b: _sigmoid(eta + b).mean() - scenario.prevalence, -50, 50)
    p1 = _sigmoid(eta)
    # At least 5 cases of each class in training, so inner cross-validation can stratify.
    for _ in range(1000):
        perm = rng.permutation(n)
        y = (rng.random(n) < p1).astype(int)
        tr, te = perm[: scenario.n_train], perm[scenario.n_train:]
        if 5 <= y[tr].sum() <= scenario.n_train - 5:
            break
    else:
        raise ValueError(f"scenario {scenario.name}: no draw with 5 cases of each class")
    return {"X_train": X[tr], "y_train": y[tr], "X_test": X[te], "y_test": y[te],
            "p_test": np.column_stack([1 - p1[te], p1[te]])}


def bayes_optimal_log_odds(scenario: Scenario, X_train, y_train, X_test, *, genes=None):
    """Log odds of class 1 under the Bayes-optimal predictive of a simulation scenario.

    The reference a calibrated method is measured against where the model holds: the exact
    posterior predictive under the scenario's own data-generating process, given everything a
    method has to estimate (unit within-class variances, class means +-delta_j / 2 around 0,
    equal class priors, and the prior of delta_j: 0 or N(0, ``effect_sd``^2) for
    ``n_effects`` of the p genes). The prior is taken per gene as the two-groups prior
    (1 - pi) point mass at 0 + pi N(0, effect_sd^2), pi = n_effects / p (the scenario fixes
    the count; the difference is negligible at the suite's p). With the centres known, each
    gene's class means give d_j = 2 (n1 m1j - n0 m0j) / n ~ N(delta_j, 4 / n); the posterior
    factorises over genes, and so does the predictive density of a test case under each class,

        f_g(x_j) = (1 - w_j) N(x_j; 0, 1) + w_j N(x_j; +-m_j / 2, 1 + c_j / 4),

    w_j the slab's posterior probability and N(m_j, c_j) its posterior of delta_j. No sampling;
    O(n p).

    Parameters
    ----------
    scenario : Scenario
        A simulation scenario (``kind == "simulation"``).
    X_train : ndarray of shape (n, p)
    y_train : ndarray of shape (n,)
        Labels in {0, 1}.
    X_test : ndarray of shape (m, p)
    genes : array of int, optional
        The genes that carry effects, when the predictor is to know them (pi = 1 on these,
        the other genes dropped): a sharper reference that is spared the search.

    Returns
    -------
    ndarray of shape (m,)
        log P(y = 1 | x, training data) - log P(y = 0 | x, training data), nats.

    Raises
    ------
    ValueError
        If the scenario is not a simulation, or a class has no training case.

    Examples
    --------
    >>> sc = Scenario("s", "simulation", n_train=40, p=100, n_effects=5, effect_sd=2.0,
    ...               n_test=10, model_holds=True)
    >>> d = make_replicate(sc, 0)
    >>> z = bayes_optimal_log_odds(sc, d["X_train"], d["y_train"], d["X_test"])
    >>> z.shape, bool(np.all(np.isfinite(z)))
    ((10,), True)
    """
    f = bayes_optimal_log_densities(scenario, X_train, y_train, X_test, genes=genes)
    return f[:, 1] - f[:, 0]


def bayes_optimal_log_densities(scenario: Scenario, X_train, y_train, X_test, *, genes=None):
    """The two class densities whose log ratio :func:`bayes_optimal_log_odds` returns.

    Wanted on their own where the test case itself informs a quantity the predictive is
    averaged over (the effect scale, say), since p(x | training data) is their mean.

    Parameters
    ----------
    scenario, X_train, y_train, X_test, genes
        As :func:`bayes_optimal_log_odds`.

    Returns
    -------
    ndarray of shape (m, 2)
        log p(x | y = 0, training data) and log p(x | y = 1, training data), nats.

    Raises
    ------
    ValueError
        As :func:`bayes_optimal_log_odds`.

    Examples
    --------
    >>> sc = Scenario("s", "simulation", n_train=40, p=100, n_effects=5, effect_sd=2.0,
    ...               n_test=10, model_holds=True)
    >>> d = make_replicate(sc, 0)
    >>> f = bayes_optimal_log_densities(sc, d["X_train"], d["y_train"], d["X_test"])
    >>> bool(np.allclose(f[:, 1] - f[:, 0], bayes_optimal_log_odds(
    ...     sc, d["X_train"], d["y_train"], d["X_test"])))
    True
    """
    from scipy.stats import norm

    if scenario.kind != "simulation":
        raise ValueError(f"scenario {scenario.name!r} is {scenario.kind!r}: the Bayes-optimal "
                         "predictive is known in closed form for simulation scenarios only")
    X_train, X_test = np.asarray(X_train, float), np.asarray(X_test, float)
    y_train = np.asarray(y_train)
    n1, n0 = int((y_train == 1).sum()), int((y_train == 0).sum())
    if min(n1, n0) == 0:
        raise ValueError("bayes_optimal_log_odds needs training cases of both classes")
    pi = scenario.n_effects / scenario.p
    if genes is not None:
        X_train, X_test, pi = X_train[:, genes], X_test[:, genes], 1.0
    n, s2 = n1 + n0, scenario.effect_sd ** 2
    d = 2.0 * (n1 * X_train[y_train == 1].mean(0) - n0 * X_train[y_train == 0].mean(0)) / n
    v = 4.0 / n
    c = 1.0 / (1.0 / s2 + 1.0 / v)                     # the slab's posterior variance
    m = c * d / v                                      # and mean
    if pi < 1:
        log_slab = np.log(pi) + norm.logpdf(d, 0.0, np.sqrt(s2 + v))
        log_null = np.log1p(-pi) + norm.logpdf(d, 0.0, np.sqrt(v))
        log_w = log_slab - np.logaddexp(log_slab, log_null)
        log_1mw = log_null - np.logaddexp(log_slab, log_null)
    else:
        log_w, log_1mw = np.zeros_like(d), np.full_like(d, -np.inf)
    sd = np.sqrt(1.0 + c / 4.0)
    null = log_1mw + norm.logpdf(X_test)               # (m, p); -inf where w = 1
    f1 = np.logaddexp(null, log_w + norm.logpdf(X_test, m / 2, sd))
    f0 = np.logaddexp(null, log_w + norm.logpdf(X_test, -m / 2, sd))
    return np.column_stack([f0.sum(axis=1), f1.sum(axis=1)])


def _logistic_calibration(z, target):
    """(a, b) of P(y = 1) = sigmoid(a + b z) fitted to outcomes ``target`` (labels, or
    fractional: true probabilities) by maximum likelihood, Newton's method on a 2-parameter
    concave problem; and the Fisher information at the fit, (2, 2), whose inverse is the
    covariance of (a, b) when ``target`` are labels."""
    A = np.column_stack([np.ones_like(z), z])
    w = np.zeros(2)
    for _ in range(100):
        m = _sigmoid(A @ w)
        H = (A * (m * (1 - m))[:, None]).T @ A + 1e-10 * np.eye(2)
        step = np.linalg.solve(H, A.T @ (target - m))
        w += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w, H


def _calibration_slope(p_hat1, p_true1) -> float:
    """b of sigmoid(a + b logit p_hat) fitted to fractional outcomes p_true by maximum
    likelihood (:func:`_logistic_calibration`)."""
    eps = 1e-12
    z = np.log(np.clip(p_hat1, eps, 1)) - np.log(np.clip(1 - p_hat1, eps, 1))
    z = np.clip(z, -30, 30)
    if np.ptp(z) < 1e-9:                               # constant predictions: no slope
        return float("nan")
    return float(_logistic_calibration(z, p_true1)[0][1])


def calibration_scores(proba, p_true) -> dict:
    """Scores of predicted probabilities against the true ones (see the module docstring).

    Parameters
    ----------
    proba : ndarray of shape (n, 2)
        Predicted class probabilities.
    p_true : ndarray of shape (n, 2)
        True class probabilities.

    Returns
    -------
    dict
        ``kl``, ``log_score``, ``slope``, ``expected_error``, ``actual_error``, ``abs_gap``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.2, 0.8], [0.7, 0.3]])
    >>> s = calibration_scores(p, p)
    >>> round(s["kl"], 12), round(s["abs_gap"], 12)
    (0.0, 0.0)
    """
    proba = np.asarray(proba, dtype=np.float64)
    p_true = np.asarray(p_true, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        logq = np.log(proba)
        ent = np.where(p_true > 0, p_true * np.log(p_true), 0.0).sum(axis=1)
        cross = -np.where(p_true > 0, p_true * logq, 0.0).sum(axis=1)
    pick = np.argmax(proba, axis=1)
    expected = float(np.mean(1 - proba.max(axis=1)))
    actual = float(np.mean(1 - p_true[np.arange(len(pick)), pick]))
    return {"kl": float(np.mean(cross + ent)), "log_score": float(np.mean(cross)),
            "slope": _calibration_slope(proba[:, 1], p_true[:, 1]),
            "expected_error": expected, "actual_error": actual,
            "abs_gap": abs(expected - actual)}


def fit_replicate(method: str, scenario: Scenario, rep: int, seed: int = 0, *, X_real=None,
                  quick: bool = False):
    """Draw replicate ``rep`` of ``scenario`` and fit ``method`` to its training data, with the
    suite's seeds (data ``seed + 1000 rep``, estimator ``seed + rep``), warnings silenced.

    Parameters
    ----------
    method : str
        A key of :data:`CANDIDATES` or a benchmark method.
    scenario : Scenario
    rep, seed : int
    X_real : ndarray, optional
        The standardised real X of a plasmode scenario (loaded when None).
    quick : bool
        Short MCMC.

    Returns
    -------
    est : fitted estimator
    data : dict
        :func:`make_replicate`'s output.

    Examples
    --------
    >>> est, data = fit_replicate("gnb", SCENARIOS["sim_sparse_strong"], 0)
    >>> data["X_train"].shape, est.predict_proba(data["X_test"]).shape
    ((60, 2000), (400, 2))
    """
    import warnings

    data = make_replicate(scenario, seed + 1000 * rep, X_real=X_real)
    est = make_candidate(method, random_state=seed + rep, quick=quick)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data["X_train"], data["y_train"])
    return est, data


def _fit_one(method: str, scenario: Scenario, rep: int, seed: int, X_real, quick: bool):
    import warnings

    t0 = time.perf_counter()
    est, data = fit_replicate(method, scenario, rep, seed, X_real=X_real, quick=quick)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = est.predict_proba(data["X_test"])
    out = calibration_scores(proba, data["p_test"])
    out.update(method=method, scenario=scenario.name, replicate=rep,
               seconds=time.perf_counter() - t0, k=_k_of(est))
    if getattr(est, "linear_weight_", None) is not None:  # LinearStackedClassifier
        out["linear_weight"] = est.linear_weight_
        est = est.estimator_
    if getattr(est, "t_df_", None) is not None:          # effect_prior="t_auto" or "auto"
        out["t_df"] = float(est.t_df_)
    if getattr(est, "prior_choice_", None) is not None:  # effect_prior="auto"
        out["prior"] = est.prior_choice_.label
    if getattr(est, "correction_choice_", None) is not None:  # correct_selection="auto"
        out["correction"] = est.correction_choice_.label
    return out


def _k_of(est):
    from ..benchmark._methods import chosen_k

    try:
        k = chosen_k(est)
    except Exception:                                   # a peer that does not say
        return None
    return None if k is None else int(k)


def run_suite(methods, scenarios=None, *, replicates: int = 8, seed: int = 0,
              out=None, n_jobs: int = 1, quick: bool = False):
    """Fit every method on every replicate of every scenario; resumable.

    Parameters
    ----------
    methods : sequence of str
        Keys of :data:`CANDIDATES` or names from :data:`selbayes.benchmark.METHODS`.
    scenarios : sequence of str, optional
        Names from :data:`SCENARIOS`, :data:`HOLDOUT_SCENARIOS`,
        :data:`IMBALANCED_SCENARIOS`, :data:`SMALL_SAMPLE_SCENARIOS` or
        :data:`SHIFTED_SCENARIOS` (default: all of :data:`SCENARIOS`).
    replicates : int
    seed : int
    out : path, optional
        Folder for ``results.jsonl`` (one line per fit; fits already there are not redone).
    n_jobs : int
        Parallel processes (joblib).
    quick : bool
        Short MCMC (smoke runs).

    Returns
    -------
    pandas.DataFrame
        One row per (method, scenario, replicate) with the scores of :func:`calibration_scores`.

    Raises
    ------
    ValueError
        If a scenario name is unknown.

    Examples
    --------
    >>> res = run_suite(["logreg_l2_cv"], ["sim_sparse_strong"], replicates=2)  # doctest: +SKIP
    """
    import pandas as pd
    from sklearn.utils.parallel import Parallel, delayed

    names = list(scenarios) if scenarios is not None else list(SCENARIOS)
    unknown = sorted(set(names) - set(_ALL_SCENARIOS))
    if unknown:
        raise ValueError(f"unknown scenario(s) {unknown}; known: {sorted(_ALL_SCENARIOS)}")
    rows, done = [], set()
    path = None
    if out is not None:
        path = make_folder(out, "out") / "results.jsonl"
        if path.exists():
            for line in path.read_text().splitlines():
                r = json.loads(line)
                rows.append(r)
                done.add((r["method"], r["scenario"], r["replicate"]))
    jobs = [(m, _ALL_SCENARIOS[s], r) for s in names for r in range(replicates) for m in methods
            if (m, s, r) not in done]
    if done:
        print(f"resuming: {len(done)} fits found in {path}; {len(jobs)} to do", flush=True)
    X_cache = {}
    for s in names:
        ds = _ALL_SCENARIOS[s].dataset
        if ds is not None and ds not in X_cache:
            X_cache[ds] = _standardised_dataset(ds)
    batch = max(1, n_jobs) * 4
    for start in range(0, len(jobs), batch):
        chunk = jobs[start:start + batch]
        res = Parallel(n_jobs=n_jobs)(
            delayed(_fit_one)(m, sc, r, seed, X_cache.get(sc.dataset), quick)
            for m, sc, r in chunk)
        rows.extend(res)
        if path is not None:
            with path.open("a") as fh:
                for r in res:
                    fh.write(json.dumps(r) + "\n")
        print(f"{start + len(chunk)} of {len(jobs)} fits done", flush=True)
    return pd.DataFrame(rows)


def summarise(results):
    """Mean and standard error (over replicates) of every score, per scenario and method.

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`run_suite`.

    Returns
    -------
    pandas.DataFrame
        Index (scenario, method); columns ``<score>`` and ``<score>_se``.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"scenario": "s", "method": "m", "replicate": [0, 1], "kl": [1., 3.],
    ...                   "log_score": 0., "slope": 1., "expected_error": 0.,
    ...                   "actual_error": 0., "abs_gap": 0.})
    >>> float(summarise(r).loc[("s", "m"), "kl_se"])
    1.0
    """
    import pandas as pd

    scores = ["kl", "log_score", "slope", "expected_error", "actual_error", "abs_gap"]
    g = results.groupby(["scenario", "method"])[scores]
    mean, sd, n = g.mean(), g.std(ddof=1), g.count()
    se = sd / np.sqrt(n)
    se.columns = [f"{c}_se" for c in se.columns]
    out = pd.concat([mean, se], axis=1)
    out["replicates"] = n["kl"]
    return out


def paired_differences(results, method, reference, score: str = "kl"):
    """Per scenario: mean of ``score[method] - score[reference]`` over paired replicates, its
    standard error, and whether it is beyond 2 SE.

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`run_suite`.
    method, reference : str
    score : str
        A column of ``results``.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"scenario": "s", "replicate": [0, 1, 0, 1], "method": list("aabb"),
    ...                   "kl": [1.0, 2.0, 1.5, 2.5]})
    >>> float(paired_differences(r, "b", "a").loc["s", "diff"])
    0.5

    Returns
    -------
    pandas.DataFrame
        Columns ``diff``, ``se``, ``beyond_2se``; index scenario.
    """
    import pandas as pd

    wide = results.pivot_table(index=["scenario", "replicate"], columns="method",
                               values=score)
    d = (wide[method] - wide[reference]).dropna()
    g = d.groupby(level="scenario")
    mean, se = g.mean(), g.std(ddof=1) / np.sqrt(g.count())
    return pd.DataFrame({"diff": mean, "se": se, "beyond_2se": (mean.abs() > 2 * se)})


def settings(methods, scenarios, replicates, seed, quick) -> dict:
    """The settings a report records."""
    return {"methods": list(methods), "scenarios": {s: asdict(_ALL_SCENARIOS[s])
                                                        for s in scenarios},
            "replicates": replicates, "seed": seed, "quick": quick}


def _fmt(mean, se, digits=3):
    if not np.isfinite(mean):
        return "n/a"
    return f"{mean:.{digits}f} ± {se:.{digits}f}"


#: The last line of the tables :func:`write_report` writes: a README without it is not replaced.
_REPORT_MARK = "<!-- tables written by selbayes.experiments.plasmode; rerun it to update -->"


def write_report(results, out, *, reference: str = "sb_normal",
                 peer: str = "logreg_l2_cv", header: str = "") -> Path:
    """Write ``README.md`` (tables) and ``kl.png`` (one panel per scenario) into ``out``.

    A ``README.md`` already there that this function did not write (a hand-written protocol
    or notes) is kept, and the tables go to ``suite.md`` beside it, saying so.

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`run_suite`.
    out : path
    reference : str
        Method that paired KL differences are taken against (the current default).
    peer : str
        Method the calibration of the plasmode scenarios is compared with.
    header : str
        Markdown put first (settings, the command that made the run).

    Returns
    -------
    Path
        The path the tables were written to.

    Examples
    --------
    >>> write_report(run_suite(["logreg_l2_cv"], replicates=2), "out")  # doctest: +SKIP
    """
    import matplotlib.pyplot as plt

    out = make_folder(out, "out")
    summ = summarise(results)
    methods = list(dict.fromkeys(results["method"]))
    scen = [s for s in _ALL_SCENARIOS if s in set(results["scenario"])]
    lines = [header, "", "## Scores against the true probabilities (mean ± SE over replicates)",
             ""]
    for s in scen:
        sc = _ALL_SCENARIOS[s]
        holds = "model holds" if sc.model_holds else "model does not hold"
        lines += [f"### {s} ({sc.kind}, {holds})", "",
                  "| method | KL (nats) | slope | \\|expected - actual\\| | actual error "
                  "| k (median) |",
                  "|---|---:|---:|---:|---:|---:|"]
        for m in methods:
            if (s, m) not in summ.index:
                continue
            r = summ.loc[(s, m)]
            ks = results[(results.scenario == s) & (results.method == m)]["k"].dropna()
            kmed = f"{np.median(ks):.0f}" if len(ks) else ""
            lines.append(f"| {m} | {_fmt(r.kl, r.kl_se)} | {_fmt(r.slope, r.slope_se, 2)} | "
                         f"{_fmt(r.abs_gap, r.abs_gap_se)} | {r.actual_error:.3f} | {kmed} |")
        lines.append("")
    if reference in methods:
        lines += [f"## Paired KL differences against `{reference}` "
                  "(negative: better; * beyond 2 SE)",
                  "", "| method | " + " | ".join(scen) + " | mean over scenarios |",
                  "|---|" + "---:|" * (len(scen) + 1)]
        for m in methods:
            if m == reference:
                continue
            d = paired_differences(results, m, reference, "kl")
            cells = []
            for s in scen:
                if s in d.index:
                    star = "*" if d.loc[s, "beyond_2se"] else ""
                    cells.append(f"{d.loc[s, 'diff']:+.3f} ± {d.loc[s, 'se']:.3f}{star}")
                else:
                    cells.append("")
            lines.append(f"| {m} | " + " | ".join(cells) + f" | {d['diff'].mean():+.3f} |")
        lines.append("")
    if peer in methods:
        lines += [f"## Paired \\|expected - actual\\| differences against `{peer}` "
                  "(negative: better calibrated; * beyond 2 SE)", "",
                  "| method | " + " | ".join(scen) + " |", "|---|" + "---:|" * len(scen)]
        for m in methods:
            if m == peer:
                continue
            d = paired_differences(results, m, peer, "abs_gap")
            cells = [(f"{d.loc[s, 'diff']:+.3f} ± {d.loc[s, 'se']:.3f}"
                      f"{'*' if d.loc[s, 'beyond_2se'] else ''}") if s in d.index else ""
                     for s in scen]
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        lines.append("")
    path = out / "README.md"
    if path.exists() and _REPORT_MARK not in path.read_text():
        # A README written by hand there (a protocol, a rule written before the run, notes)
        # is kept: the tables go beside it.
        print(f"{path} was not written by this runner and is kept; the tables go to "
              f"{out / 'suite.md'}")
        path = out / "suite.md"
    path.write_text("\n".join(lines) + f"\n\n{_REPORT_MARK}\n")

    fig, axes = plt.subplots(1, len(scen), figsize=(3.2 * len(scen), 0.35 * len(methods) + 1.5),
                             sharey=True, squeeze=False)
    for ax, s in zip(axes[0], scen, strict=True):
        ms = [m for m in methods if (s, m) in summ.index]
        r = summ.loc[[(s, m) for m in ms]]
        y = np.arange(len(ms))
        ax.errorbar(r["kl"].values, y, xerr=2 * r["kl_se"].values, fmt="o", ms=4, capsize=2)
        ax.set_yticks(y, ms)
        ax.set_title(s, fontsize=9)
        ax.set_xlabel("KL to the truth (nats), ± 2 SE")
        ax.grid(alpha=0.3)
    axes[0][0].invert_yaxis()
    fig.tight_layout()
    fig.savefig(out / "kl.png", dpi=110)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    """``python -m selbayes.experiments.plasmode``: run the suite and write its report."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m selbayes.experiments.plasmode",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="logreg_l2_cv,logreg_l1_cv,sb_normal,sb_t_wide,"
                    "sb_t_wide_uncorrected",
                    help="comma-separated method names: keys of CANDIDATES, STACKED or "
                    "LINEAR_STACKED here, or of selbayes.benchmark.METHODS (an unknown name "
                    "is refused with the list)")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS),
                    help="comma-separated names of SCENARIOS (default: all of them), "
                    f"HOLDOUT_SCENARIOS ({', '.join(HOLDOUT_SCENARIOS)}), "
                    f"IMBALANCED_SCENARIOS ({', '.join(IMBALANCED_SCENARIOS)}), "
                    f"SMALL_SAMPLE_SCENARIOS ({', '.join(SMALL_SAMPLE_SCENARIOS)}) or "
                    f"SHIFTED_SCENARIOS ({', '.join(SHIFTED_SCENARIOS)})")
    ap.add_argument("--replicates", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="short MCMC (smoke run)")
    ap.add_argument("--reference", default="sb_normal")
    ap.add_argument("--out", required=True, help="folder for results.jsonl and the report")
    a = ap.parse_args(argv)
    # refused as usage errors (exit status 2) before anything runs or is written: they were
    # tracebacks from pandas (0 replicates), numpy (a negative seed) or joblib (0 jobs)
    for flag, value, low in (("--replicates", a.replicates, 1), ("--seed", a.seed, 0)):
        if value < low:
            ap.error(f"{flag} must be >= {low}; got {value}")
    try:
        check_n_jobs(a.jobs)
    except ValueError as exc:
        ap.error(str(exc).replace("n_jobs", "--jobs"))
    methods = [m for m in a.methods.split(",") if m]
    scenarios = [s for s in a.scenarios.split(",") if s]
    from ..benchmark._methods import METHODS

    known = set(CANDIDATES) | set(STACKED) | set(LINEAR_STACKED) | set(METHODS)
    if unknown := [m for m in methods if m not in known]:
        ap.error(f"unknown method(s) {unknown}; choose from {sorted(known)}")
    if unknown := sorted(set(scenarios) - set(_ALL_SCENARIOS)):
        ap.error(f"unknown scenario(s) {unknown}; choose from {sorted(_ALL_SCENARIOS)}")
    t0 = time.perf_counter()
    res = run_suite(methods, scenarios, replicates=a.replicates, seed=a.seed, out=a.out,
                    n_jobs=a.jobs, quick=a.quick)
    st = settings(methods, scenarios, a.replicates, a.seed, a.quick)
    (Path(a.out) / "settings.json").write_text(json.dumps(st, indent=1))
    header = ("# Plasmode and simulation suite\n\n"
              f"Command: `python -m selbayes.experiments.plasmode --methods {a.methods} "
              f"--scenarios {a.scenarios} --replicates {a.replicates} --seed {a.seed} "
              f"--jobs {a.jobs} --out {a.out}` ({time.perf_counter() - t0:.0f} s this call; "
              "settings in settings.json). Protocol and decision rule: PROTOCOL.md.")
    print(write_report(res, a.out, reference=a.reference, header=header))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
