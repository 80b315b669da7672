"""What the cross-validated experiments on real expression data share.

The experiment types ``gaussian_cv`` (Li 2009, Experiment 4.2, SRBCT) and ``naive_bayes_cv``
(Li 2007, section 2.3.6, colon) both split the genes at random into gene groups, cross-validate
the corrected and the uncorrected classifier within every group, and compare the two methods
group by group as Li 2009 Fig 4 does. The spec checks, gene groups, cached data and folds,
out-of-fold assembly, metrics, acceptance counts, paired t-tests and Fig 4 are defined here once
and imported by both runners (:mod:`selbayes.experiments._gaussian_cv`,
:mod:`selbayes.experiments._naive_bayes_cv`).

The calibration gap of one group and method is ``gap = expected - actual error rate`` (expected
error: mean of 1 - max probability; negative = overconfident). Two statistics with a derived
power judge it (:func:`gap_reduction_test`, :func:`calibration_in_the_large`); counting the groups
where the corrected |gap| is smaller has no stated power and is kept only where a spec asks for
it (``gap_min_fraction`` > 0).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from pathlib import Path

import numpy as np

from ._report import Criterion, md_table
from ._spec import Field, Spec, SpecError

__all__ = ["METHODS", "groups_run", "cv_schema", "check_cv_design", "data_settings",
           "gene_groups", "cv_data", "out_of_fold", "loss_matrices", "group_metrics", "evaluate",
           "criteria", "paired_tests", "paired_tests_table", "plot_fig4", "paired_t_power",
           "paired_t_mdd", "gap_reduction_test", "direction_summary", "calibration_in_the_large"]

METHODS = ("corrected", "uncorrected")


def groups_run(spec: Spec) -> list[int]:
    """The gene groups the spec runs (0-based): ``[data] groups``, or all ``n_groups``."""
    return spec["data"]["groups"] or list(range(spec["data"]["n_groups"]))


def cv_schema(sources: dict, folds: int | str, **data_fields: Field) -> dict:
    """The ``[data]`` and ``[cv]`` sections of a CV experiment's schema: the source (one of
    ``sources``), the unused n_train / n_test, data_home, then ``data_fields`` (the experiment's
    own), n_groups and groups; ``folds`` is the default of ``[cv] folds``."""
    return {
        "data": {
            "source": Field("str", "data set (selbayes.datasets loader)",
                            choices=tuple(sources)),
            "n_train": Field("int", "not used: cross-validation uses every case", default=None),
            "n_test": Field("int", "not used: cross-validation uses every case", default=None),
            "data_home": Field("str", "folder of the data files; '' = $SELBAYES_DATA, then the "
                               "user data folder", default=""),
            **data_fields,
            "n_groups": Field("int", "random gene groups the genes are split into", default=10,
                              minimum=1),
            "groups": Field("list[int]", "gene groups to run (0-based); [] = all", default=[],
                            minimum=0),
        },
        "cv": {
            "folds": Field("int|str", "number of cross-validation folds, or 'loo'",
                           default=folds),
        },
    }


def check_cv_design(spec: Spec, where: str, sources: dict) -> None:
    """No n_train / n_test, folds, gene groups, k against the smallest group, methods: shared by
    the CV experiments.

    ``sources`` maps each data source to its ``n_samples`` and ``n_genes``.
    """
    d, sel = spec["data"], spec["selection"]
    for key in ("n_train", "n_test"):
        if d[key] is not None:
            raise SpecError(f"{where}: [data] {key} is not used by model '{spec.model}' "
                            "(cross-validation uses every case); remove it")
    folds = spec["cv"]["folds"]
    n, p = sources[d["source"]]["n_samples"], sources[d["source"]]["n_genes"]
    if isinstance(folds, str) and folds != "loo":
        raise SpecError(f"{where}: [cv] folds must be an integer or 'loo'; got {folds!r}")
    if not isinstance(folds, str) and not 2 <= folds <= n:
        raise SpecError(f"{where}: [cv] folds must be between 2 and {n}; got {folds}")
    if d["n_groups"] > p:
        raise SpecError(f"{where}: [data] n_groups = {d['n_groups']} exceeds the {p} genes")
    bad = [g for g in d["groups"] if g >= d["n_groups"]]
    if bad or len(set(d["groups"])) != len(d["groups"]):
        raise SpecError(f"{where}: [data] groups must be distinct indices below n_groups = "
                        f"{d['n_groups']}; got {d['groups']}")
    smallest = p // d["n_groups"]
    if sel["k"] >= smallest:
        raise SpecError(f"{where}: [selection] k = {sel['k']} must be below the smallest gene "
                        f"group ({smallest} genes)")
    if not sel["methods"] or len(set(sel["methods"])) != len(sel["methods"]):
        raise SpecError(f"{where}: [selection] methods must be a non-empty list of distinct "
                        f"values from {list(METHODS)}")


def data_settings(spec: Spec, matrix) -> dict:
    """The ``[data]`` settings that change a fit (not which groups run, nor the unused n_train /
    n_test) with ``sha256``, a checksum of the data values: fits made on other data are refused.
    ``matrix(data_settings)`` returns (X, y, gene names), as for :func:`cv_data`."""
    data = {k: v for k, v in spec["data"].items() if k not in ("groups", "n_train", "n_test")}
    X, _, _ = matrix(data)
    data["sha256"] = hashlib.sha256(np.ascontiguousarray(X).tobytes()).hexdigest()[:16]
    return data


def gene_groups(p: int, n_groups: int, seed: int) -> list[np.ndarray]:
    """A random partition of the p genes into ``n_groups`` groups of nearly equal size."""
    perm = np.random.default_rng(seed).permutation(p)
    return [np.sort(g) for g in np.array_split(perm, n_groups)]


@functools.lru_cache(maxsize=2)
def _cv_data_cached(key: str, matrix):
    from ..evaluation._cross_validation import make_folds

    s = json.loads(key)
    X, y, genes = matrix(s["data"])
    groups = gene_groups(X.shape[1], s["data"]["n_groups"], s["seeds"]["data"])
    folds = make_folds(y, s["cv"]["folds"], random_state=s["seeds"]["split"])
    return X, y, genes, groups, folds


def cv_data(settings: dict, matrix):
    """(X, y, gene names, gene groups, folds) for the fit settings, cached per process;
    ``matrix(data_settings)`` returns (X, y, gene names) (one function per spec type).
    ``cv_data.cache_clear()`` empties the cache (a test that rewrites the data files)."""
    key = json.dumps({"data": settings["data"], "cv": settings["cv"],
                      "seeds": settings["seeds"]}, sort_keys=True)
    return _cv_data_cached(key, matrix)


cv_data.cache_clear = _cv_data_cached.cache_clear


def out_of_fold(fits: dict, group: int, method: str, n: int, G: int) -> np.ndarray | None:
    """The out-of-fold probabilities of one (gene group, method), shape (n, G).

    Gathered from the fits whose ``meta`` names that group and method (``arrays["test"]``: the
    cases, ``arrays["proba"]``: their probabilities); None when no fit matches or a case has
    no prediction yet (an unfinished run).
    """
    proba = np.full((n, G), np.nan)
    found = False
    for f in fits.values():
        if f.meta["group"] == group and f.meta["method"] == method:
            proba[f.arrays["test"]] = f.arrays["proba"]
            found = True
    if not found or np.isnan(proba).any():
        return None
    return proba


def loss_matrices(spec: Spec, G: int) -> np.ndarray:
    """The spec's random loss matrices, shape (n_loss_matrices, G, G) (``[evaluation]``
    n_loss_matrices and loss_log_sd, seed ``seeds.loss``)."""
    from ..evaluation._calibration import random_loss_matrices

    ev = spec["evaluation"]
    return random_loss_matrices(G, ev["n_loss_matrices"], sigma=ev["loss_log_sd"],
                                random_state=spec["seeds"]["loss"])


def group_metrics(spec: Spec, fits: dict, y_index: np.ndarray, G: int, losses: np.ndarray,
                  groups: list[int]) -> dict:
    """``{(group, method): evaluate(...)}`` of every gene group and spec method whose out-of-fold
    probabilities ``fits`` hold in full (see :func:`out_of_fold`)."""
    metrics = {}
    for g in groups:
        for m in spec["selection"]["methods"]:
            proba = out_of_fold(fits, g, m, len(y_index), G)
            if proba is not None:
                metrics[(g, m)] = evaluate(proba, y_index, losses, spec["evaluation"]["n_bins"])
    return metrics


def evaluate(proba: np.ndarray, y_index: np.ndarray, losses: np.ndarray, n_bins: int) -> dict:
    """Error, expected error, AMLP, Brier, ECE and the average actual and expected loss."""
    from ..evaluation._calibration import calibration_summary, expected_vs_actual_loss

    s = calibration_summary(proba, y_index, n_bins=n_bins)
    loss = expected_vs_actual_loss(proba, y_index, losses)
    return {**{k: s[k] for k in ("error_rate", "expected_error_rate", "amlp", "brier", "ece")},
            "actual_loss": float(np.mean(loss["actual_loss"])),
            "expected_loss": float(np.mean(loss["expected_loss"]))}


def criteria(spec: Spec, metrics: dict, groups: list[int]) -> list[Criterion]:
    """Acceptance over the gene groups that have both methods (Li 2009 Fig 4).

    - AMLP lower with the correction in at least ``[acceptance] amlp_min_fraction`` of the
      groups.
    - |expected - actual error rate| lower with the correction in at least
      ``gap_min_fraction`` of the groups, when that is > 0. This count has no stated power:
      the two fits mostly make the same errors, so the per-group differences of |gap| are
      far below the binomial noise of one error rate.
    - When the spec sets ``gap_reduction_claim`` > 0: the powered paired test of
      :func:`gap_reduction_test` (one-sided level ``alpha``, required power ``power``). PASS
      when it rejects "no reduction"; FAIL when it does not although the design has at least
      the required power for the claimed reduction; not decidable (``passed`` None) when the
      design has less power than that for the claim.
    """
    acc = spec["acceptance"]
    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    if not paired:
        return [Criterion("corrected vs uncorrected", "all groups", "needs both methods", "-",
                          None)]
    out = []
    amlp_wins = [g for g in paired
                 if metrics[(g, "corrected")]["amlp"] < metrics[(g, "uncorrected")]["amlp"]]
    gap_wins = [g for g in paired if _abs_gap(metrics[(g, "corrected")])
                < _abs_gap(metrics[(g, "uncorrected")])]
    counts = [("AMLP: corrected below uncorrected", amlp_wins, acc["amlp_min_fraction"])]
    if acc["gap_min_fraction"] > 0:
        counts.append(("|expected - actual error rate|: corrected below uncorrected", gap_wins,
                       acc["gap_min_fraction"]))
    for name, wins, frac in counts:
        need = math.ceil(frac * len(paired) - 1e-9)
        out.append(Criterion(name, f"{len(paired)} gene groups",
                             f"{len(wins)} of {len(paired)}",
                             f">= {need} of {len(paired)}", len(wins) >= need))
    claim = acc.get("gap_reduction_claim", 0.0) or 0.0
    if claim > 0:
        alpha, power = acc.get("alpha", 0.05), acc.get("power", 0.8)
        r = gap_reduction_test(metrics, paired, claim, alpha=alpha, power=power)
        name = ("|expected - actual error rate|: corrected reduces it (one-sided paired t over "
                "gene groups)")
        if r is None:
            out.append(Criterion(name, f"{len(paired)} gene groups", "needs >= 2 groups", "-",
                                 None))
        else:
            value = (f"reduction {r['mean_reduction']:.4f} (SE {r['se']:.4f}), p = "
                     f"{r['p_value']:.3f}; MDD80 {r['mdd']:.4f} vs claim {r['claim']:.4f} "
                     f"(power {r['power_at_claim']:.2f})")
            if not r["decidable"]:
                value += ": not decidable with this design"
            out.append(Criterion(
                name, f"{r['n_groups']} gene groups", value,
                f"p < {alpha:g} where the power for a reduction of {claim:g} x the uncorrected "
                f"mean |gap| is >= {power:g}", r["passed"]))
    return out


def _abs_gap(row: dict) -> float:
    return abs(row["expected_error_rate"] - row["error_rate"])


# ---------------------------------------------------------------------------------------------
# powered comparisons of the calibration gap
# ---------------------------------------------------------------------------------------------
def paired_t_power(delta: float, sd: float, n: int, alpha: float = 0.05) -> float:
    """Power of the one-sided paired t-test of n differences with true mean ``delta`` and SD.

    The statistic ``T = mean / (s / sqrt(n))`` of n normal differences with mean delta and
    standard deviation sd is noncentral t with n - 1 degrees of freedom and noncentrality
    ``delta sqrt(n) / sd``; the test rejects when T > t_{1-alpha, n-1}, so the power is
    ``P(T_{n-1, delta sqrt(n)/sd} > t_{1-alpha, n-1})``. At delta = 0 it is alpha.

    Parameters
    ----------
    delta : float
        True mean difference (same units as ``sd``; > 0 in the direction tested).
    sd : float
        Standard deviation of one difference (> 0).
    n : int
        Number of pairs (>= 2).
    alpha : float
        One-sided level.

    Returns
    -------
    float
        Rejection probability in [0, 1].
    """
    from scipy import stats

    if n < 2 or not sd > 0:
        raise ValueError(f"paired_t_power needs n >= 2 and sd > 0; got n = {n}, sd = {sd}")
    crit = stats.t.ppf(1 - alpha, n - 1)
    return float(stats.nct.sf(crit, n - 1, delta * math.sqrt(n) / sd))


def paired_t_mdd(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """Minimal detectable difference of the one-sided paired t-test: the smallest true mean
    difference whose power (:func:`paired_t_power`) reaches ``power``.

    Solved exactly on the noncentral t (root of power(delta) - power, which increases in
    delta); close to ``(t_{1-alpha, n-1} + t_{power, n-1}) sd / sqrt(n)``. Same units as sd.
    """
    from scipy.optimize import brentq

    if not 0 < alpha < power < 1:
        raise ValueError(f"paired_t_mdd needs 0 < alpha < power < 1; got alpha = {alpha}, "
                         f"power = {power}")
    hi = 10 * sd / math.sqrt(n)
    while paired_t_power(hi, sd, n, alpha) < power:
        hi *= 2
    return float(brentq(lambda d: paired_t_power(d, sd, n, alpha) - power, 0.0, hi,
                        xtol=1e-12 * max(sd, 1e-300)))


def gap_reduction_test(metrics: dict, groups: list[int], claim_fraction: float,
                       alpha: float = 0.05, power: float = 0.8) -> dict | None:
    """Does the correction reduce |expected - actual error rate|? A paired test with its power.

    For every gene group g with both methods, ``r_g = |gap_u| - |gap_c|`` (> 0: the correction
    brings the expected error nearer the actual one). The one-sided paired t-test of mean r
    > 0 over the n groups has, at a true mean reduction delta, the power of
    :func:`paired_t_power` with the observed SD of r. The claimed effect is
    ``claim = claim_fraction * mean_g |gap_u|`` (a reduction of that share of the uncorrected
    miscalibration). The design decides the claim only when its power at the claim is at
    least ``power``, i.e. when the minimal detectable difference ``mdd`` (at that power)
    is <= claim; otherwise the verdict is None ("not decidable with this design"). When
    decidable, passed = (p < alpha).

    The gene groups share the 83 cases, so the SD over groups is the variability across gene
    groups of this one set of cases; the test says nothing about other case samples.

    Parameters
    ----------
    metrics : dict
        ``{(group, method): row}`` with ``error_rate`` and ``expected_error_rate``.
    groups : list of int
        Groups to use (those without both methods are skipped).
    claim_fraction : float
        Claimed reduction as a fraction of the uncorrected mean |gap| (> 0).
    alpha, power : float
        One-sided level and the power required to decide.

    Returns
    -------
    dict or None
        ``n_groups, mean_reduction, sd, se, t, p_value, upper`` (one-sided 1 - alpha upper
        confidence bound of the mean reduction), ``mean_abs_gap_corrected/_uncorrected,
        claim, mdd, mdd_fraction`` (mdd / uncorrected mean |gap|), ``power_at_claim,
        decidable, passed``; None with fewer than 2 paired groups.
    """
    from scipy import stats

    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    n = len(paired)
    if n < 2:
        return None
    if not claim_fraction > 0:
        raise ValueError(f"claim_fraction must be > 0; got {claim_fraction}")
    gc = np.array([_abs_gap(metrics[(g, "corrected")]) for g in paired])
    gu = np.array([_abs_gap(metrics[(g, "uncorrected")]) for g in paired])
    r = gu - gc
    mean, sd = float(r.mean()), float(r.std(ddof=1))
    claim = float(claim_fraction * gu.mean())
    if sd > 0:
        se = sd / math.sqrt(n)
        t = mean / se
        p = float(stats.t.sf(t, n - 1))
        upper = mean + float(stats.t.ppf(1 - alpha, n - 1)) * se
        mdd = paired_t_mdd(sd, n, alpha, power)
        pw = paired_t_power(claim, sd, n, alpha)
    else:  # identical differences: no noise, the sign decides
        se, t, upper, mdd = 0.0, math.copysign(math.inf, mean) if mean else 0.0, mean, 0.0
        p = 0.0 if mean > 0 else 1.0
        pw = 1.0
    decidable = bool(pw >= power)
    return {"n_groups": n, "mean_reduction": mean, "sd": sd, "se": se, "t": t, "p_value": p,
            "upper": upper, "mean_abs_gap_corrected": float(gc.mean()),
            "mean_abs_gap_uncorrected": float(gu.mean()), "claim_fraction": claim_fraction,
            "claim": claim, "mdd": mdd,
            "mdd_fraction": mdd / float(gu.mean()) if gu.mean() > 0 else math.inf,
            "power_at_claim": pw, "alpha": alpha, "power": power, "decidable": decidable,
            "passed": (p < alpha) if decidable else None}


def direction_summary(metrics: dict, groups: list[int], methods=METHODS) -> dict:
    """Direction of the miscalibration of each method over the gene groups.

    ``gap_g = expected - actual error rate`` of group g (negative: overconfident, the model
    expects fewer errors than it makes). Per method: the signed mean over groups, its SE over
    groups (sd / sqrt(n); the groups share the cases, so it is the spread across gene groups
    only), and how many groups are overconfident (gap < 0) or underconfident (gap > 0).

    Returns
    -------
    dict
        ``{method: {"n_groups", "mean_gap", "se", "n_overconfident", "n_underconfident",
        "gaps"}}`` for the methods that have at least one group.
    """
    out = {}
    for m in methods:
        gaps = np.array([metrics[(g, m)]["expected_error_rate"] - metrics[(g, m)]["error_rate"]
                         for g in groups if (g, m) in metrics])
        if not len(gaps):
            continue
        se = float(gaps.std(ddof=1) / math.sqrt(len(gaps))) if len(gaps) > 1 else math.nan
        out[m] = {"n_groups": len(gaps), "mean_gap": float(gaps.mean()), "se": se,
                  "n_overconfident": int((gaps < 0).sum()),
                  "n_underconfident": int((gaps > 0).sum()), "gaps": gaps.tolist()}
    return out


def calibration_in_the_large(probas: list[np.ndarray], y_index: np.ndarray,
                             alpha: float = 0.05, power: float = 0.8, n_sim: int = 20_000,
                             random_state: int = 0) -> dict:
    """Is the model overconfident? A test whose null is simulated from its own probabilities.

    For one method, ``probas`` holds the out-of-fold probabilities of each gene group (n, G).
    Under calibration the label of case i is drawn from its predictive probabilities, so the
    Bayes decision (argmax) is wrong with probability ``m_i = 1 - max_c p_ic`` and the error
    rate is a mean of Bernoulli(m_i): the gap ``mean(m) - error`` is centred at 0. Each
    simulation draws one uniform U_i per case and counts an error where U_i < m_i.

    - Per group: one-sided p-value ``P0(gap <= observed)`` (+1 smoothing).
    - Pooled over groups: the mean gap. Its null uses the same U_i in every group (the
      comonotone coupling): the groups share the cases, and this coupling has the largest
      variance of the sum (largest in convex order), so the pooled p-value errs on the side
      of not rejecting.
    - Power: the alternative inflates every case's error probability, ``q_i = min(1, c m_i)``
      (an overconfidence that keeps the ranking of the cases); its effect is the true gap
      ``mean(m) - mean(q)``. With fresh uniforms (fixed over c, so the power is monotone in
      c) the power of the pooled test at level alpha is found by bisection on c: ``mdd`` is
      the smallest |true gap| with power >= ``power``, ``power_at_observed`` the power at a
      true gap equal to the observed pooled mean.

    Returns
    -------
    dict
        ``gaps`` (per group), ``p_values`` (per group), ``mean_gap``, ``p_value`` (pooled),
        ``mdd``, ``power_at_observed``, ``n_sim``.
    """
    if not probas:
        raise ValueError("calibration_in_the_large needs at least one group's probabilities")
    y_index = np.asarray(y_index)
    m = np.stack([1.0 - np.asarray(p).max(axis=1) for p in probas])        # (groups, n)
    err = np.stack([(np.asarray(p).argmax(axis=1) != y_index) for p in probas]).mean(axis=1)
    em = m.mean(axis=1)
    gaps = em - err
    rng = np.random.default_rng(random_state)
    n = m.shape[1]

    def sim_gaps(q, u):  # (n_sim, groups): mean(m) - simulated error rate, one U per case
        return em[None, :] - np.stack([(u < qg[None, :]).mean(axis=1) for qg in q], axis=1)

    u0 = rng.random((n_sim, n))
    null = sim_gaps(m, u0)
    p_groups = (1 + (null <= gaps[None, :] + 1e-12).sum(axis=0)) / (1 + n_sim)
    pooled0 = null.mean(axis=1)
    mean_gap = float(gaps.mean())
    p_pooled = float((1 + (pooled0 <= mean_gap + 1e-12).sum()) / (1 + n_sim))
    crit = np.quantile(pooled0, alpha, method="inverted_cdf")
    # reject when the pooled gap is below crit; P0(reject) <= alpha (the quantile of a
    # discrete null), strict inequality so the level is not exceeded
    u1 = rng.random((n_sim, n))

    def effect(c):  # true overconfidence |gap| of the alternative c (increasing in c)
        return float((np.minimum(1.0, c * m) - m).mean())

    def power_at(c):
        return float((sim_gaps(np.minimum(1.0, c * m), u1).mean(axis=1) < crit).mean())

    def bisect(ok, lo, hi, steps=40):  # smallest c in [lo, hi] with ok(c), on log c
        for _ in range(steps):
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return hi

    positive = m[m > 0]
    c_top = 1.0 / positive.min() if positive.size else 1.0  # every case with m > 0 errs
    c_top = max(c_top, 1.0 + 1e-9)
    if power_at(c_top) >= power:
        mdd = effect(bisect(lambda c: power_at(c) >= power, 1.0, c_top, steps=30))
    else:
        mdd = math.inf
    target = -mean_gap
    if target <= 0:
        pw_obs = float((pooled0 < crit).mean())  # the level: no overconfidence observed
    elif target >= effect(c_top):
        pw_obs = power_at(c_top)
    else:
        pw_obs = power_at(bisect(lambda c: effect(c) >= target, 1.0, c_top, steps=60))
    return {"gaps": gaps.tolist(), "p_values": p_groups.tolist(), "mean_gap": mean_gap,
            "p_value": p_pooled, "mdd": float(mdd), "power_at_observed": pw_obs,
            "alpha": alpha, "power": power, "n_sim": n_sim}


def paired_tests(metrics: dict, groups: list[int]) -> dict:
    """Paired t-tests, corrected vs uncorrected over the gene groups, of the AMLP, the average
    loss and |expected - actual error rate| (empty with fewer than 2 paired groups)."""
    from scipy.stats import ttest_rel

    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    out = {}
    if len(paired) < 2:
        return out
    for key, fn in (("amlp", lambda r: r["amlp"]), ("actual_loss", lambda r: r["actual_loss"]),
                    ("abs_error_gap",
                     lambda r: abs(r["expected_error_rate"] - r["error_rate"]))):
        c = np.array([fn(metrics[(g, "corrected")]) for g in paired])
        u = np.array([fn(metrics[(g, "uncorrected")]) for g in paired])
        res = ttest_rel(c, u)
        out[key] = {"mean_corrected": float(c.mean()), "mean_uncorrected": float(u.mean()),
                    "t": float(res.statistic), "p_value": float(res.pvalue),
                    "n_corrected_lower": int((c < u).sum()), "n_groups": len(paired)}
    return out


def paired_tests_table(tests: dict) -> str:
    """Markdown table of :func:`paired_tests` (one row per quantity)."""
    return md_table(["quantity", "mean corrected", "mean uncorrected", "groups corrected lower",
                     "t", "p"],
                    [[k, v["mean_corrected"], v["mean_uncorrected"],
                      f"{v['n_corrected_lower']} of {v['n_groups']}", v["t"], v["p_value"]]
                     for k, v in tests.items()], digits=4)


def plot_fig4(metrics: dict, groups: list[int], out_dir: Path, title: str) -> str | None:
    """Li 2009 Fig 4, one point per gene group: expected vs actual error rate, average loss and
    AMLP, corrected against uncorrected. Saved as ``out_dir/fig4.png``; returns the file name,
    or None when no group has both methods."""
    from matplotlib.figure import Figure

    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    if not paired:
        return None
    fig = Figure(figsize=(13.5, 4.4))
    axes = fig.subplots(1, 3)
    c = {key: np.array([metrics[(g, "corrected")][key] for g in paired])
         for key in metrics[(paired[0], "corrected")]}
    u = {key: np.array([metrics[(g, "uncorrected")][key] for g in paired])
         for key in metrics[(paired[0], "uncorrected")]}
    ax = axes[0]
    for g, xc, yc, xu, yu in zip(paired, c["error_rate"], c["expected_error_rate"],
                                 u["error_rate"], u["expected_error_rate"], strict=True):
        ax.plot([xc, xu], [yc, yu], color="0.8", lw=0.8, zorder=1)
        ax.annotate(str(g + 1), (xc, yc), fontsize=7, xytext=(3, 2),
                    textcoords="offset points")
    ax.scatter(c["error_rate"], c["expected_error_rate"], color="C0", label="corrected", zorder=2)
    ax.scatter(u["error_rate"], u["expected_error_rate"], facecolors="none", edgecolors="C3",
               label="uncorrected", zorder=2)
    hi = max(c["error_rate"].max(), u["error_rate"].max(), c["expected_error_rate"].max()) * 1.15
    hi = max(hi, 0.02)
    ax.plot([0, hi], [0, hi], "k--", lw=0.8)
    ax.set(xlim=(0, hi), ylim=(0, hi), xlabel="actual error rate (CV)",
           ylabel="expected error rate", title="(a) expected vs actual error, per group")
    ax.legend(loc="upper left", fontsize=8)
    for ax, key, label in ((axes[1], "actual_loss", "(b) average loss, random loss matrices"),
                           (axes[2], "amlp", "(c) AMLP (nats)")):
        ax.scatter(u[key], c[key], color="C0")
        for g, xu, yc in zip(paired, u[key], c[key], strict=True):
            ax.annotate(str(g + 1), (xu, yc), fontsize=7, xytext=(3, 2),
                        textcoords="offset points")
        lo = min(u[key].min(), c[key].min()) * 0.9
        top = max(u[key].max(), c[key].max()) * 1.05
        ax.plot([lo, top], [lo, top], "k--", lw=0.8)
        ax.set(xlim=(lo, top), ylim=(lo, top), xlabel="uncorrected", ylabel="corrected",
               title=label + "\n(below the diagonal: corrected better)")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out_dir / "fig4.png", dpi=100)
    return "fig4.png"
