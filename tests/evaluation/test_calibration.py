"""Tests for selbayes.evaluation._calibration: hand-computed values, independent references,
simulation."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit, logit

from selbayes.evaluation import (
    bayes_decision,
    calibration_summary,
    case_losses,
    check_loss,
    check_proba,
    encode_outcome,
    error_gap_test,
    expected_vs_actual_loss,
    flag_miscalibrated_bins,
    random_loss_matrices,
    reliability_table,
)


# ---------------------------------------------------------------------------------------------
# reliability table
# ---------------------------------------------------------------------------------------------
def test_reliability_table_hand_computed():
    prob = [0.02, 0.08, 0.15, 0.15, 0.19, 0.55, 0.95, 1.0]
    out = [0, 1, 0, 0, 1, 1, 1, 1]
    t = reliability_table(prob, out)
    assert list(t.columns) == ["bin", "count", "mean_predicted", "observed_fraction", "se"]
    assert t["bin"].tolist() == list(range(10))
    assert t["count"].tolist() == [2, 3, 0, 0, 0, 1, 0, 0, 0, 2]
    np.testing.assert_allclose(t.loc[0, ["mean_predicted", "observed_fraction"]], [0.05, 0.5])
    np.testing.assert_allclose(t.loc[1, ["mean_predicted", "observed_fraction"]],
                               [0.49 / 3, 1 / 3])
    np.testing.assert_allclose(t.loc[9, ["mean_predicted", "observed_fraction"]], [0.975, 1.0])
    # se from the mean predicted probability: sqrt(m (1 - m) / count)
    np.testing.assert_allclose(t.loc[0, "se"], np.sqrt(0.05 * 0.95 / 2))
    np.testing.assert_allclose(t.loc[1, "se"], np.sqrt((0.49 / 3) * (1 - 0.49 / 3) / 3))
    np.testing.assert_allclose(t.loc[5, "se"], np.sqrt(0.55 * 0.45))
    assert t.loc[2:4, ["mean_predicted", "observed_fraction", "se"]].isna().all().all()
    assert t["count"].sum() == len(prob)


def test_reliability_bins_follow_first_decimal():
    # c / 10 starts bin c (first decimal); 1.0 is in the last bin (closed)
    edges = np.arange(11) / 10
    t = reliability_table(edges, np.zeros(11))
    assert t["count"].tolist() == [1] * 9 + [2]
    # just below an edge stays in the lower bin
    t = reliability_table(np.nextafter(edges[1:], 0), np.zeros(10))
    assert t["count"].tolist() == [1] * 10
    # literal decimals, where floor(10 * p) is prone to rounding
    lits = [0.3, 0.6, 0.7, 0.29, 0.57]
    assert reliability_table(lits, np.zeros(5))["count"].tolist() == [0, 0, 1, 1, 0, 1, 1, 1, 0,
                                                                      0]


def test_reliability_table_other_bin_count():
    t = reliability_table([0.1, 0.3, 0.6, 0.99], [0, 0, 1, 1], n_bins=4)
    assert t["count"].tolist() == [1, 1, 1, 1]


def _calibrated(n, rng):
    p = rng.beta(0.7, 0.7, size=n)
    return p, rng.random(n) < p


def test_calibrated_predictor_agrees_within_binomial_error():
    rng = np.random.default_rng(2024)
    p, y = _calibrated(50_000, rng)
    t = flag_miscalibrated_bins(reliability_table(p, y))
    assert (t["count"] > 1000).all()
    assert not t["flagged"].any()
    # the sum of squared z over 10 bins is (at most) chi-square(10): se is conservative
    chi2 = float((t["z"] ** 2).sum())
    assert stats.chi2.sf(chi2, df=10) > 1e-3


def test_binomial_se_has_the_right_size():
    # Over many calibrated data sets, |z| > 2 should happen in about 4.6% of bins (at most,
    # since se is slightly conservative), and not far less (se not too large).
    rng = np.random.default_rng(7)
    zs = []
    for _ in range(100):
        p = rng.uniform(size=2000)
        t = flag_miscalibrated_bins(reliability_table(p, rng.random(2000) < p), z=2.0)
        zs.append(t.loc[t["count"] > 0, "z"].to_numpy())
    z = np.concatenate(zs)
    rate = np.mean(np.abs(z) > 2)
    mc_se = np.sqrt(0.0455 * (1 - 0.0455) / z.size)
    assert abs(rate - 0.0455) < 4 * mc_se + 0.005


def test_overconfident_predictor_is_flagged():
    rng = np.random.default_rng(11)
    p, y = _calibrated(20_000, rng)
    sharp = expit(2.5 * logit(np.clip(p, 1e-12, 1 - 1e-12)))  # probabilities sharpened
    t = flag_miscalibrated_bins(reliability_table(sharp, y))
    assert t["flagged"].sum() >= 4
    assert set(t.loc[t["flagged"], "direction"]) == {"overconfident"}
    # the calibrated version of the same data is not flagged
    assert not flag_miscalibrated_bins(reliability_table(p, y))["flagged"].any()
    s_sharp = calibration_summary(np.column_stack([1 - sharp, sharp]), y.astype(int))
    s_cal = calibration_summary(np.column_stack([1 - p, p]), y.astype(int))
    # same decisions, so the same error rate; but the sharp one expects far fewer errors
    assert s_sharp["error_rate"] == pytest.approx(s_cal["error_rate"])
    assert s_sharp["expected_error_rate"] < s_sharp["error_rate"] - 0.05
    # calibrated: each case errs with probability e_i = min(p_i, 1 - p_i), independently, so
    # actual - expected has SE sqrt(sum e_i (1 - e_i)) / n (0.003 here); 4 SE
    e = np.minimum(p, 1 - p)
    se = np.sqrt((e * (1 - e)).sum()) / e.size
    assert abs(s_cal["expected_error_rate"] - s_cal["error_rate"]) < 4 * se
    assert s_sharp["amlp"] > s_cal["amlp"] and s_sharp["ece"] > 5 * s_cal["ece"]


def test_underconfident_direction():
    rng = np.random.default_rng(3)
    p, y = _calibrated(20_000, rng)
    flat = expit(0.4 * logit(np.clip(p, 1e-12, 1 - 1e-12)))
    t = flag_miscalibrated_bins(reliability_table(flat, y))
    assert t["flagged"].any()
    assert set(t.loc[t["flagged"], "direction"]) == {"underconfident"}


def test_flag_min_count_and_zero_se():
    t = reliability_table([0.0, 0.0, 0.0, 0.95], [1, 1, 0, 1])
    f = flag_miscalibrated_bins(t, min_count=3)
    assert np.isinf(f.loc[0, "z"]) and f.loc[0, "flagged"]
    assert not f.loc[9, "flagged"]  # only one case
    assert not flag_miscalibrated_bins(t, min_count=10)["flagged"].any()


# ---------------------------------------------------------------------------------------------
# summary metrics
# ---------------------------------------------------------------------------------------------
PROBA3 = np.array([[0.7, 0.2, 0.1], [0.1, 0.5, 0.4], [0.3, 0.3, 0.4]])
Y3 = np.array([0, 2, 1])


def test_calibration_summary_hand_computed():
    s = calibration_summary(PROBA3, Y3)
    assert s["n"] == 3
    assert s["error_rate"] == pytest.approx(2 / 3)
    assert s["expected_error_rate"] == pytest.approx((0.3 + 0.5 + 0.6) / 3)
    assert s["amlp"] == pytest.approx(-(np.log(0.7) + np.log(0.4) + np.log(0.3)) / 3)
    assert s["brier"] == pytest.approx((0.14 + 0.62 + 0.74) / 3)
    # confidences 0.7, 0.5, 0.4 in separate bins; correct = 1, 0, 0
    assert s["ece"] == pytest.approx((0.3 + 0.5 + 0.4) / 3)


def test_calibration_summary_labels_and_classes():
    labels = np.array(["a", "b", "c"])
    s_idx = calibration_summary(PROBA3, Y3)
    s_lab = calibration_summary(PROBA3, labels[Y3], classes=labels)
    assert s_idx == s_lab
    # classes given in any order map through their positions
    s_perm = calibration_summary(PROBA3[:, [2, 0, 1]], labels[Y3], classes=labels[[2, 0, 1]])
    assert s_perm == pytest.approx(s_idx)
    with pytest.raises(TypeError, match="classes="):
        calibration_summary(PROBA3, labels[Y3])
    with pytest.raises(ValueError, match="not in classes"):
        calibration_summary(PROBA3, ["a", "b", "z"], classes=labels)


def test_binary_metrics_match_sklearn():
    from sklearn.metrics import brier_score_loss, log_loss

    rng = np.random.default_rng(5)
    p1 = rng.uniform(size=200)
    y = (rng.random(200) < p1).astype(int)
    proba = np.column_stack([1 - p1, p1])
    s = calibration_summary(proba, y)
    assert s["brier"] == pytest.approx(brier_score_loss(y, p1))
    assert s["amlp"] == pytest.approx(log_loss(y, proba))
    # the thesis' expected error rate: p I(p < 0.5) + (1 - p) I(p >= 0.5)
    assert s["expected_error_rate"] == pytest.approx(np.mean(np.minimum(p1, 1 - p1)))
    assert s["error_rate"] == pytest.approx(np.mean((p1 >= 0.5) != y))


def test_multiclass_brier_matches_sklearn_if_available():
    from sklearn.metrics import brier_score_loss

    try:
        ref = brier_score_loss(Y3, PROBA3, labels=[0, 1, 2])
    except (TypeError, ValueError):  # older sklearn: binary only
        pytest.skip("sklearn without multiclass Brier")
    assert calibration_summary(PROBA3, Y3)["brier"] == pytest.approx(ref)


def test_amlp_is_never_floored():
    # A true-class probability of exactly 0 is an infinite loss, reported as such.
    s = calibration_summary([[1.0, 0.0], [0.5, 0.5]], [1, 0])
    assert s["amlp"] == np.inf and s["max_case_loss"] == np.inf
    assert s["n_cases_over_5_nats"] == 1
    # A tiny probability is a huge (finite) loss, not capped at -log(1e-15) = 34.5.
    tiny = 1e-300
    s = calibration_summary([[1.0 - tiny, tiny], [0.5, 0.5], [0.999, 0.001]], [1, 0, 1])
    losses = np.array([-np.log(tiny), np.log(2.0), -np.log(0.001)])
    assert s["amlp"] == pytest.approx(losses.mean())
    assert s["amlp"] > 200
    assert s["max_case_loss"] == pytest.approx(-np.log(tiny))
    assert s["n_cases_over_5_nats"] == 2  # 690.8 and 6.9 nats; log 2 is not
    np.testing.assert_allclose(case_losses([[1.0 - tiny, tiny], [0.5, 0.5]], [1, 0]),
                               losses[:2])


def test_input_validation():
    with pytest.raises(ValueError, match="sum to 1"):
        calibration_summary([[0.5, 0.6]], [0])
    with pytest.raises(ValueError, match="2-D"):
        calibration_summary([0.5, 0.5], [0])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        check_proba([[1.2, -0.2]])
    with pytest.raises(ValueError, match="must match"):
        calibration_summary(PROBA3, [0, 1])
    with pytest.raises(ValueError, match="0..2"):
        calibration_summary(PROBA3, [0, 1, 3])
    with pytest.raises(ValueError, match="NaN"):
        calibration_summary([[np.nan, 1.0]], [0])
    with pytest.raises(ValueError, match="outcome"):
        reliability_table([0.2, 0.4], [0, 2])
    with pytest.raises(ValueError, match="prob"):
        reliability_table(PROBA3, [0, 1, 1])
    with pytest.raises(ValueError, match="n_bins"):
        reliability_table([0.2], [1], n_bins=0)
    # tolerance: rows summing to 1 within 1e-6 pass
    check_proba([[0.5, 0.5 + 5e-7]])
    # labels numpy cannot order against the classes, and classes named twice
    with pytest.raises(ValueError, match="cannot be compared"):
        error_gap_test([[0.9, 0.1], [0.8, 0.2]], [1, None], classes=[1, 2])
    with pytest.raises(ValueError, match="repeated labels"):
        calibration_summary([[0.9, 0.1], [0.8, 0.2]], ["a", "a"], classes=["a", "a"])


# ---------------------------------------------------------------------------------------------
# general loss
# ---------------------------------------------------------------------------------------------
def test_bayes_decision_hand_and_zero_one():
    L = np.array([[0.0, 1.0], [5.0, 0.0]])
    assert bayes_decision([[0.8, 0.2], [0.9, 0.1]], L).tolist() == [1, 0]
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(4), size=100)
    zero_one = 1.0 - np.eye(4)
    np.testing.assert_array_equal(bayes_decision(proba, zero_one), proba.argmax(axis=1))


def test_bayes_decision_brute_force():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), size=50)
    Ls = random_loss_matrices(3, 4, random_state=2)
    d = bayes_decision(proba, Ls)
    assert d.shape == (4, 50)
    for m in range(4):
        for i in range(50):
            risks = [sum(proba[i, t] * Ls[m, t, g] for t in range(3)) for g in range(3)]
            assert d[m, i] == int(np.argmin(risks))


def test_expected_vs_actual_loss_hand_computed():
    L = np.array([[0.0, 1.0], [5.0, 0.0]])
    proba = [[0.8, 0.2], [0.9, 0.1]]
    # decisions 1, 0; expected losses 0.8 and 0.5; truths 0 and 1 -> actual 1 and 5
    r = expected_vs_actual_loss(proba, [0, 1], L)
    assert r["expected_loss"] == pytest.approx(0.65)
    assert r["actual_loss"] == pytest.approx(3.0)
    assert r["n"] == 2
    # 0-1 loss reproduces the error rates
    s = calibration_summary(PROBA3, Y3)
    r01 = expected_vs_actual_loss(PROBA3, Y3, 1 - np.eye(3))
    assert r01["expected_loss"] == pytest.approx(s["expected_error_rate"])
    assert r01["actual_loss"] == pytest.approx(s["error_rate"])


def test_expected_equals_actual_loss_when_calibrated():
    rng = np.random.default_rng(42)
    n, G = 20_000, 4
    proba = rng.dirichlet(np.full(G, 0.6), size=n)
    y = (rng.random((n, 1)) > proba.cumsum(axis=1)).sum(axis=1)  # y_i ~ proba_i
    Ls = random_loss_matrices(G, 3, random_state=9)
    r = expected_vs_actual_loss(proba, y, Ls)
    for m in range(3):
        risk = proba @ Ls[m]
        d = risk.argmin(axis=1)
        diff = Ls[m][y, d] - risk[np.arange(n), d]  # mean zero under calibration
        se = diff.std(ddof=1) / np.sqrt(n)
        assert abs(r["actual_loss"][m] - r["expected_loss"][m]) < 4 * se
        single = expected_vs_actual_loss(proba, y, Ls[m])
        assert single["actual_loss"] == pytest.approx(r["actual_loss"][m])
        assert single["expected_loss"] == pytest.approx(r["expected_loss"][m])
    # sharpened probabilities expect less loss than they incur
    sharp = proba**3 / (proba**3).sum(axis=1, keepdims=True)
    r_sharp = expected_vs_actual_loss(sharp, y, Ls)
    assert np.all(r_sharp["expected_loss"] < r_sharp["actual_loss"])


def test_random_loss_matrices():
    L = random_loss_matrices(5, 400, sigma=2.0, random_state=123)
    assert L.shape == (400, 5, 5)
    assert np.all(L[:, np.arange(5), np.arange(5)] == 0)
    off = L[:, ~np.eye(5, dtype=bool)]
    assert np.all(off > 0)
    assert stats.kstest(np.log(off.ravel()), stats.norm(0, 2).cdf).pvalue > 1e-3
    np.testing.assert_array_equal(L, random_loss_matrices(5, 400, random_state=123))
    gen = np.random.default_rng(5)
    assert random_loss_matrices(2, 1, random_state=gen).shape == (1, 2, 2)
    with pytest.raises(ValueError, match="G"):
        random_loss_matrices(1, 3)
    with pytest.raises(ValueError, match="sigma"):
        random_loss_matrices(3, 3, sigma=-1)
    with pytest.raises(ValueError, match="loss"):
        bayes_decision(PROBA3, np.zeros((2, 2)))


@pytest.mark.parametrize("call, error, match", [
    (lambda t: flag_miscalibrated_bins(t, z="3"), TypeError, "z must be a number"),
    (lambda t: flag_miscalibrated_bins(t, z=True), TypeError, "z must be a number"),
    (lambda t: flag_miscalibrated_bins(t, z=0), ValueError, "z must be > 0"),
    (lambda t: flag_miscalibrated_bins(t, min_count=-1), ValueError,
     "min_count must be an integer >= 0"),
    (lambda t: flag_miscalibrated_bins(t, min_count=1.5), ValueError,
     "min_count must be an integer >= 0"),
    (lambda t: check_proba([[0.5, 0.9]], atol=np.nan), ValueError, "atol must be >= 0 and finite"),
    (lambda t: check_proba([[0.5, 0.5]], atol=-1), ValueError, "atol must be >= 0 and finite"),
    (lambda t: check_proba([[0.5, 0.5]], atol="x"), TypeError, "atol must be a number"),
    (lambda t: check_loss([[0, 1], [1, 0]], 0), ValueError, "n_classes must be an integer >= 2"),
    (lambda t: check_loss([[0, 1], [1, 0]], -2), ValueError, "n_classes must be an integer >= 2"),
    (lambda t: check_loss([[0, 1], [1, 0]], True), ValueError,
     "n_classes must be an integer >= 2"),
    (lambda t: check_loss([[0, 1], [1, 0]], "2"), ValueError, "n_classes must be an integer >= 2"),
    (lambda t: check_loss([[0, 1], [1, 0]], 2.0), ValueError, "n_classes must be an integer >= 2"),
    (lambda t: encode_outcome([0, 1], 0), ValueError, "n_classes must be an integer >= 2"),
    (lambda t: encode_outcome([0, 1], -1), ValueError, "n_classes must be an integer >= 2"),
    (lambda t: encode_outcome([0, 1], 2.5), ValueError, "n_classes must be an integer >= 2"),
    (lambda t: random_loss_matrices(2, 5, 2.0, random_state=-1), ValueError,
     "random_state must be >= 0"),
    (lambda t: random_loss_matrices(2, 5, 2.0, random_state=True), TypeError, "random_state"),
    (lambda t: random_loss_matrices(2, 5, "2"), TypeError, "sigma must be a number"),
])
def test_bad_arguments_name_the_argument(call, error, match):
    table = reliability_table(np.linspace(0, 1, 50), np.arange(50) % 2)
    with pytest.raises(error, match=match):
        call(table)


def test_empty_bins_are_reported_with_count_0_and_nan_as_documented():
    t = reliability_table(np.linspace(0, 1, 20), np.arange(20) % 2, n_bins=1000)
    empty = t[t["count"] == 0]
    assert len(t) == 1000 and t["count"].sum() == 20 and len(empty) == 980
    assert empty[["mean_predicted", "observed_fraction", "se"]].isna().all().all()
    flagged = flag_miscalibrated_bins(t, min_count=0)
    assert not flagged.loc[flagged["count"] == 0, "flagged"].any()


def test_reliability_table_accepts_pandas():
    p = pd.Series([0.1, 0.9])
    y = pd.Series([False, True])
    assert reliability_table(p, y)["count"].sum() == 2


# ---------------------------------------------------------------------------------------------
# expected minus actual error against a calibrated predictor's scatter
# ---------------------------------------------------------------------------------------------
def _top_label_proba(conf):
    return np.column_stack([conf, 1.0 - conf])


def test_error_gap_test_matches_enumeration():
    """The exact p-value is the enumerated probability of every outcome at least as far."""
    rng = np.random.default_rng(1)
    n = 10
    conf = rng.uniform(0.5, 1.0, n)
    y = (rng.random(n) > conf).astype(int)            # column 0 is every guess
    t = error_gap_test(_top_label_proba(conf), y)
    outcomes = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1   # 1 = guess right
    prob = np.prod(np.where(outcomes == 1, conf, 1.0 - conf), axis=1)
    dist = np.abs(outcomes.sum(axis=1) - conf.sum())
    observed = abs(np.sum(y == 0) - conf.sum())
    assert t["p_value"] == pytest.approx(prob[dist >= observed - 1e-12].sum(), rel=1e-12)
    assert t["gap"] == pytest.approx(np.mean(1 - conf) - np.mean(y != 0))
    assert t["se"] == pytest.approx(np.sqrt(np.sum(conf * (1 - conf))) / n)


def test_error_gap_test_is_calibrated_under_calibration():
    """Labels drawn from the predictions: the gap's spread is ``se``, and p < 0.05 in at
    most 5% of the draws (a discrete test is conservative), within Monte Carlo error."""
    rng = np.random.default_rng(2)
    n, reps = 60, 2000
    proba = rng.dirichlet([1.0, 1.0, 1.0], size=n)
    gaps, pvals = [], []
    for _ in range(reps):
        y = np.array([rng.choice(3, p=row) for row in proba])
        t = error_gap_test(proba, y)
        gaps.append(t["gap"])
        pvals.append(t["p_value"])
    se = t["se"]
    # sd of a sample sd: about sd / sqrt(2 reps) -> 4 of those as tolerance
    assert np.std(gaps) == pytest.approx(se, rel=4 / np.sqrt(2 * reps))
    assert abs(np.mean(gaps)) < 4 * se / np.sqrt(reps)
    rate = np.mean(np.array(pvals) < 0.05)
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


def test_error_gap_test_flags_an_overconfident_predictor():
    """Confidences 0.95 on cases right 75% of the time: gap -0.2, far beyond chance."""
    rng = np.random.default_rng(3)
    n = 100
    y = (rng.random(n) > 0.75).astype(int)
    t = error_gap_test(_top_label_proba(np.full(n, 0.95)), y)
    assert t["gap"] < 0 and t["z"] < -4 and t["p_value"] < 1e-4


def _pmf_by_recursion(p):
    """The Poisson-binomial pmf one case at a time (the textbook recursion, O(n^2))."""
    pmf = np.zeros(p.size + 1)
    pmf[0] = 1.0
    for i, c in enumerate(p):
        pmf[1:i + 2] = pmf[1:i + 2] * (1.0 - c) + pmf[0:i + 1] * c
        pmf[0] *= 1.0 - c
    return pmf


@pytest.mark.parametrize("n", [1, 63, 64, 65, 130, 3001])
def test_poisson_binomial_by_blocks_and_fft_matches_the_recursion(n):
    """Blocks of 64 and the FFT products between them, against the plain recursion; the
    mean and variance against their closed forms."""
    from selbayes.evaluation._calibration import _poisson_binomial_pmf

    p = np.random.default_rng(n).uniform(0.0, 1.0, n)
    p[: n // 7] = 1.0                      # sure cases, as near-certain predictions give
    got = _poisson_binomial_pmf(p)
    np.testing.assert_allclose(got, _pmf_by_recursion(p), rtol=0, atol=1e-13)
    if n <= 130:                           # a second, independent implementation (slow)
        from scipy.stats import poisson_binom

        np.testing.assert_allclose(got, poisson_binom.pmf(np.arange(n + 1), p), rtol=0,
                                   atol=1e-13)
    s = np.arange(n + 1)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)
    assert got @ s == pytest.approx(p.sum(), rel=1e-10)
    assert got @ (s - p.sum()) ** 2 == pytest.approx(np.sum(p * (1 - p)), rel=1e-8, abs=1e-12)


def test_error_gap_test_sure_predictions():
    sure = _top_label_proba(np.ones(5))
    right = error_gap_test(sure, [0, 0, 0, 0, 0])
    assert np.isnan(right["z"]) and right["p_value"] == 1.0 and right["se"] == 0.0
    wrong = error_gap_test(sure, [0, 0, 0, 0, 1])
    assert wrong["z"] == -np.inf and wrong["p_value"] == 0.0 and wrong["gap"] == -0.2


def test_calibration_summary_carries_the_gap_test():
    proba = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]]
    s, t = calibration_summary(proba, [0, 0, 1, 0]), error_gap_test(proba, [0, 0, 1, 0])
    assert s["expected_error_rate"] - s["error_rate"] == pytest.approx(t["gap"])
    assert (s["error_gap_se"], s["error_gap_p_value"]) == (t["se"], t["p_value"])


def test_a_probability_frame_names_the_classes_of_y():
    """A DataFrame of probabilities whose columns are the classes: y of labels 1 and 2 were
    read as column positions (an error for 2; class 2 for label 1, silently) unless classes=
    was given. The columns now say which class each one is."""
    proba = pd.DataFrame([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]], columns=[1, 2])
    got = calibration_summary(proba, [1, 2, 2])
    want = calibration_summary(proba.to_numpy(), [0, 1, 1])
    assert got["amlp"] == pytest.approx(want["amlp"]) and got["error_rate"] == want["error_rate"]
    named = pd.DataFrame(proba.to_numpy(), columns=["normal", "tumour"])
    assert calibration_summary(named, ["normal", "tumour", "tumour"])["amlp"] == pytest.approx(
        want["amlp"])


@pytest.mark.parametrize("loss", [np.ones((2, 2)), np.zeros((3, 3)), [[0, 0], [2, 2]]])
def test_a_loss_under_which_every_guess_costs_the_same_is_refused(loss):
    """A loss matrix whose rows are constant makes the Bayes decision a tie-break and its
    expected loss independent of the predictions; it was accepted silently."""
    G = np.shape(loss)[0]
    with pytest.raises(ValueError, match="every row of loss is constant"):
        expected_vs_actual_loss(np.full((2, G), 1 / G), [0, 1], loss)
