"""Powered calibration statistics of the cross-validated reproductions (experiments._cv).

References independent of the code under test: a Monte Carlo of the paired t-test for the power
and minimal detectable difference (MDD), the exact Poisson-binomial distribution of the error
count (dynamic programming) for the calibration-in-the-large test, and hand-computed toy tables
for the direction summary.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from selbayes.experiments import _cv


def _row(expected, actual):
    return {"expected_error_rate": expected, "error_rate": actual}


def _poisson_binomial(p):
    """pmf of the number of successes of independent Bernoulli(p_i), by dynamic programming."""
    pmf = np.zeros(len(p) + 1)
    pmf[0] = 1.0
    for q in p:
        pmf[1:] = pmf[1:] * (1 - q) + pmf[:-1] * q
        pmf[0] *= 1 - q
    return pmf


# ---------------------------------------------------------------------------------------------
# paired t power and MDD
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n, sd", [(10, 0.0078), (6, 1.0)])
def test_mdd_has_the_stated_power_in_simulation(n, sd):
    mdd = _cv.paired_t_mdd(sd, n, alpha=0.05, power=0.8)
    # close to the normal-approximation formula (t quantiles in place of the noncentral t)
    approx = (stats.t.ppf(0.95, n - 1) + stats.t.ppf(0.8, n - 1)) * sd / math.sqrt(n)
    assert mdd == pytest.approx(approx, rel=0.08)
    rng = np.random.default_rng(7)
    reps = 40_000
    crit = stats.t.ppf(0.95, n - 1)
    for delta, target in ((mdd, 0.8), (0.0, 0.05)):
        d = rng.normal(delta, sd, size=(reps, n))
        t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
        rate = (t > crit).mean()
        se = math.sqrt(target * (1 - target) / reps)
        assert abs(rate - target) < 4 * se, (delta, rate)
        assert _cv.paired_t_power(delta, sd, n) == pytest.approx(target, abs=1e-9)


def test_power_rejects_bad_input():
    with pytest.raises(ValueError, match="n >= 2 and sd > 0"):
        _cv.paired_t_power(0.1, 0.0, 10)
    with pytest.raises(ValueError, match="alpha < power"):
        _cv.paired_t_mdd(1.0, 10, alpha=0.9, power=0.8)


# ---------------------------------------------------------------------------------------------
# toy tables: direction summary and the gap test
# ---------------------------------------------------------------------------------------------
def test_direction_summary_on_a_toy_table():
    metrics = {(0, "corrected"): _row(0.02, 0.05), (1, "corrected"): _row(0.04, 0.03),
               (2, "corrected"): _row(0.01, 0.04), (0, "uncorrected"): _row(0.01, 0.05),
               (1, "uncorrected"): _row(0.02, 0.03), (2, "uncorrected"): _row(0.00, 0.04)}
    out = _cv.direction_summary(metrics, [0, 1, 2])
    c, u = out["corrected"], out["uncorrected"]
    assert c["gaps"] == pytest.approx([-0.03, 0.01, -0.03])
    assert c["mean_gap"] == pytest.approx(-0.05 / 3)
    assert c["se"] == pytest.approx(np.std([-0.03, 0.01, -0.03], ddof=1) / math.sqrt(3))
    assert (c["n_overconfident"], c["n_underconfident"]) == (2, 1)
    assert u["mean_gap"] == pytest.approx(-0.03) and u["n_overconfident"] == 3
    assert u["n_underconfident"] == 0
    # one group: the SE is undefined (nan), not an error
    assert math.isnan(_cv.direction_summary(metrics, [0])["corrected"]["se"])


def test_gap_test_decides_only_with_power():
    # uncorrected |gap| 0.04 in every group; the correction removes 0.02 +- noise
    red = np.array([0.018, 0.022, 0.019, 0.021, 0.020, 0.017, 0.023, 0.020])
    metrics = {}
    for g, r in enumerate(red):
        metrics[(g, "uncorrected")] = _row(0.01, 0.05)
        metrics[(g, "corrected")] = _row(0.01 + r, 0.05)
    groups = list(range(len(red)))
    res = _cv.gap_reduction_test(metrics, groups, claim_fraction=0.5)
    sd = red.std(ddof=1)
    assert res["mean_reduction"] == pytest.approx(red.mean())
    assert res["sd"] == pytest.approx(sd)
    assert res["p_value"] == pytest.approx(stats.ttest_1samp(red, 0, alternative="greater")
                                           .pvalue)
    assert res["mdd"] == pytest.approx(_cv.paired_t_mdd(sd, len(red)))
    assert res["claim"] == pytest.approx(0.02)
    assert res["decidable"] and res["passed"]
    # a claim below the MDD cannot be decided: None, whatever the p-value
    tiny = res["mdd"] / 0.04 / 2
    small = _cv.gap_reduction_test(metrics, groups, claim_fraction=tiny)
    assert not small["decidable"] and small["passed"] is None
    assert small["power_at_claim"] < 0.8
    # no reduction at all, with enough power for the claim: FAIL
    flat = {k: (_row(0.01 + 0.001 * (k[0] % 3 - 1), 0.05) if k[1] == "corrected" else v)
            for k, v in metrics.items()}
    res = _cv.gap_reduction_test(flat, groups, claim_fraction=0.5)
    assert res["decidable"] and res["passed"] is False
    assert _cv.gap_reduction_test(metrics, [0], claim_fraction=0.5) is None


# ---------------------------------------------------------------------------------------------
# calibration in the large, against the exact Poisson-binomial law
# ---------------------------------------------------------------------------------------------
def _case_probabilities(rng, n, G=3, sharp=3.0):
    logits = rng.normal(0, sharp, size=(n, G))
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def test_calibration_in_the_large_matches_the_exact_law():
    rng = np.random.default_rng(11)
    n = 80
    proba = _case_probabilities(rng, n)
    m = 1 - proba.max(axis=1)
    pmf0 = _poisson_binomial(m)
    # labels that make 3 more errors than expected (rounded): an overconfident fit
    n_err = int(round(m.sum())) + 3
    y = proba.argmax(axis=1).copy()
    wrong = rng.choice(n, n_err, replace=False)
    y[wrong] = (y[wrong] + 1) % 3
    res = _cv.calibration_in_the_large([proba], y, n_sim=40_000, random_state=1)
    exact_p = pmf0[n_err:].sum()  # P0(errors >= observed) = P0(gap <= observed)
    assert res["gaps"][0] == pytest.approx(m.mean() - n_err / n)
    assert res["p_values"][0] == pytest.approx(exact_p, abs=4 * math.sqrt(exact_p / 40_000))
    assert res["p_value"] == pytest.approx(res["p_values"][0])  # one group: pooled = group
    # the MDD: at the alternative q = min(1, c m) with that effect, the exact power of the
    # test "errors >= smallest count with P0 <= alpha" is 0.8 (up to the step of one count)
    crit = np.nonzero(np.cumsum(pmf0[::-1])[::-1] <= 0.05)[0][0]

    def exact_power(effect):
        lo, hi = 1.0, 1.0 / m[m > 0].min()
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if (np.minimum(1, mid * m) - m).mean() < effect else (lo, mid)
        return _poisson_binomial(np.minimum(1, hi * m))[crit:].sum()

    assert 0.8 - 0.02 <= exact_power(res["mdd"]) <= 0.8 + 0.06
    assert exact_power(res["mdd"] - 1.5 / n) < 0.8
    assert res["power_at_observed"] == pytest.approx(exact_power(n_err / n - m.mean()),
                                                     abs=0.03)


@pytest.mark.slow        # 150 simulated studies (5 s): a level check, make slow
def test_calibration_in_the_large_holds_its_level_under_calibration():
    rng = np.random.default_rng(5)
    n, groups, reps = 60, 3, 150
    rejected = 0
    for r in range(reps):
        probas = [_case_probabilities(rng, n) for _ in range(groups)]
        # one label per case shared by the groups: drawn from the first group's
        # probabilities, which the other groups then copy (calibrated, correlated groups)
        probas = [probas[0]] * groups
        y = (rng.random(n)[:, None] > np.cumsum(probas[0], axis=1)).sum(axis=1)
        res = _cv.calibration_in_the_large(probas, y, n_sim=2000, random_state=r)
        rejected += res["p_value"] < 0.05
    assert rejected / reps <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)


def test_calibration_in_the_large_needs_groups():
    with pytest.raises(ValueError, match="at least one group"):
        _cv.calibration_in_the_large([], np.zeros(3, int))
