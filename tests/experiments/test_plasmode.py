"""The plasmode suite's truths and scores, against closed forms and simulation."""

import numpy as np
import pytest

from selbayes.experiments.plasmode import (
    HOLDOUT_SCENARIOS,
    SCENARIOS,
    Scenario,
    calibration_scores,
    make_replicate,
    paired_differences,
    summarise,
    write_report,
)


def _sig(z):
    return 1 / (1 + np.exp(-z))


def test_scores_of_the_truth_itself():
    z = np.linspace(-3, 3, 201)
    p = np.column_stack([1 - _sig(z), _sig(z)])
    s = calibration_scores(p, p)
    assert s["kl"] == pytest.approx(0, abs=1e-12)
    assert s["abs_gap"] == pytest.approx(0, abs=1e-12)
    assert s["slope"] == pytest.approx(1, abs=1e-8)       # exact: the MLE is (a, b) = (0, 1)


@pytest.mark.parametrize("b", [0.5, 2.0])
def test_slope_of_over_and_underconfident_predictions(b):
    # predictions logit p_hat = z / b for true logit z: the slope is exactly b
    z = np.linspace(-3, 3, 201)
    truth = np.column_stack([1 - _sig(z), _sig(z)])
    hat = np.column_stack([1 - _sig(z / b), _sig(z / b)])
    s = calibration_scores(hat, truth)
    assert s["slope"] == pytest.approx(b, rel=1e-6)
    # KL: closed form per case, averaged
    kl = (truth * (np.log(truth) - np.log(hat))).sum(axis=1).mean()
    assert s["kl"] == pytest.approx(kl, rel=1e-10)


def test_errors_expected_and_actual():
    hat = np.array([[0.9, 0.1], [0.4, 0.6]])
    truth = np.array([[0.7, 0.3], [0.5, 0.5]])
    s = calibration_scores(hat, truth)
    assert s["expected_error"] == pytest.approx((0.1 + 0.4) / 2)
    assert s["actual_error"] == pytest.approx((0.3 + 0.5) / 2)


def test_simulation_truth_is_the_class_probability():
    # With the true P(y | x), the labels are calibrated: the weighted residual sums vanish
    # within Monte Carlo error (binomial SE), and the truth's own slope on y is 1.
    sc = Scenario("t", "simulation", n_train=20, p=50, n_effects=5, effect_sd=1.0,
                  n_test=20000, model_holds=True)
    d = make_replicate(sc, 3)
    p1, y = d["p_test"][:, 1], d["y_test"]
    se = np.sqrt(np.sum(p1 * (1 - p1)))
    assert abs(np.sum(y - p1)) < 4 * se
    for lo, hi in [(0, 0.2), (0.2, 0.5), (0.5, 0.8), (0.8, 1)]:
        m = (p1 >= lo) & (p1 < hi)
        se_b = np.sqrt(np.sum(p1[m] * (1 - p1[m])))
        assert abs(np.sum(y[m] - p1[m])) < 4 * se_b + 1e-9


def test_plasmode_labels_follow_the_logistic_truth():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 40))
    X[:, 1] = X[:, 0] + 0.1 * rng.standard_normal(3000)          # a correlated pair
    X = (X - X.mean(0)) / X.std(0)
    for pattern in ("random", "module"):
        sc = Scenario("t", "plasmode", n_train=100, n_effects=3, effect_sd=2.0,
                      pattern=pattern, dataset="none")
        d = make_replicate(sc, 1, X_real=X)
        assert d["X_train"].shape == (100, 40) and d["X_test"].shape == (2900, 40)
        p1, y = d["p_test"][:, 1], d["y_test"]
        assert abs(np.sum(y - p1)) < 4 * np.sqrt(np.sum(p1 * (1 - p1)))
        # the linear predictor has the requested spread
        eta = np.log(p1) - np.log1p(-p1)
        assert 1.6 < eta.std() < 2.4


def test_summary_and_paired_differences():
    import pandas as pd

    rows = []
    for r in range(4):
        rows.append({"method": "a", "scenario": "s", "replicate": r, "kl": 1.0 + r,
                     "log_score": 0, "slope": 1, "expected_error": 0, "actual_error": 0,
                     "abs_gap": 0})
        rows.append({"method": "b", "scenario": "s", "replicate": r, "kl": 1.5 + r,
                     "log_score": 0, "slope": 1, "expected_error": 0, "actual_error": 0,
                     "abs_gap": 0})
    df = pd.DataFrame(rows)
    s = summarise(df)
    assert s.loc[("s", "a"), "kl"] == pytest.approx(2.5)
    assert s.loc[("s", "a"), "kl_se"] == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2)
    d = paired_differences(df, "b", "a")
    assert d.loc["s", "diff"] == pytest.approx(0.5) and d.loc["s", "se"] == pytest.approx(0)


def test_the_suite_has_both_kinds_of_scenario():
    assert any(s.model_holds for s in SCENARIOS.values())
    assert any(not s.model_holds for s in SCENARIOS.values())


def test_holdout_scenarios_use_other_genes_and_are_run_only_when_named(tmp_path):
    """The validation scenarios keep the suite's mechanisms on X the suite never used, and an
    unknown name is refused with the names that exist."""
    from selbayes.experiments.plasmode import run_suite

    used = {s.dataset for s in SCENARIOS.values()}
    assert all(s.kind == "plasmode" and s.dataset not in used for s in HOLDOUT_SCENARIOS.values())
    assert not set(HOLDOUT_SCENARIOS) & set(SCENARIOS)
    with pytest.raises(ValueError, match="holdout_sparse"):
        run_suite(["logreg_l2_cv"], ["no_such_scenario"], replicates=1, out=tmp_path)


def test_the_report_never_replaces_a_hand_written_readme(tmp_path, capsys):
    """A README written by hand in the output folder (a rule written before the run) is kept;
    the tables go beside it. The runner's own README is replaced on a rerun."""
    import pandas as pd

    rows = [{"method": m, "scenario": "sim_sparse_strong", "replicate": r,
             "kl": 1.0 + r + (m == "b"),
             "log_score": 0, "slope": 1, "expected_error": 0, "actual_error": 0,
             "abs_gap": 0, "k": 5} for m in ("a", "b") for r in range(3)]
    df = pd.DataFrame(rows)
    fresh = write_report(df, tmp_path / "new", reference="a")
    assert fresh.name == "README.md"
    assert write_report(df, tmp_path / "new", reference="a") == fresh       # its own: replaced
    (tmp_path / "rule").mkdir()
    (tmp_path / "rule" / "README.md").write_text("# The rule, written before the run\n")
    got = write_report(df, tmp_path / "rule", reference="a")
    assert got.name == "suite.md" and "suite.md" in capsys.readouterr().out
    assert (tmp_path / "rule" / "README.md").read_text() == "# The rule, written before the run\n"
