"""The plasmode suite's truths and scores, against closed forms and simulation."""

import re

import numpy as np
import pytest

from selbayes.experiments.plasmode import (
    HOLDOUT_SCENARIOS,
    IMBALANCED_SCENARIOS,
    SCENARIOS,
    SHIFTED_SCENARIOS,
    SMALL_SAMPLE_SCENARIOS,
    Scenario,
    bayes_optimal_log_densities,
    bayes_optimal_log_odds,
    calibration_scores,
    factor_covariance,
    make_replicate,
    paired_differences,
    scenario,
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


def test_a_prevalence_sets_the_share_of_class_1_and_the_truth_follows_it():
    """prevalence=0.25: a simulation's training set holds that share of class 1, and its test
    labels and true probabilities average it (within 4 binomial SE) and agree with each other;
    a plasmode truth averages it exactly over all cases, so over the test cases within
    n_train / n_cases of it. The named scenarios are the suite's with only that changed."""
    sc = Scenario("t", "simulation", n_train=40, p=50, n_effects=5, effect_sd=1.0,
                  n_test=20000, prevalence=0.25)
    d = make_replicate(sc, 3)
    assert d["y_train"].sum() == 10
    p1, y = d["p_test"][:, 1], d["y_test"]
    assert abs(np.sum(y - p1)) < 4 * np.sqrt(np.sum(p1 * (1 - p1)))
    assert abs(y.mean() - 0.25) < 4 * np.sqrt(0.25 * 0.75 / y.size)
    assert abs(p1.mean() - 0.25) < 4 * p1.std() / np.sqrt(p1.size)

    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 40))
    X = (X - X.mean(0)) / X.std(0)
    pl = Scenario("t", "plasmode", n_train=100, n_effects=3, effect_sd=2.0, dataset="none",
                  prevalence=0.25)
    d = make_replicate(pl, 1, X_real=X)
    p1, y = d["p_test"][:, 1], d["y_test"]
    assert abs(p1.mean() - 0.25) <= 100 / 2900 + 1e-12
    assert abs(np.sum(y - p1)) < 4 * np.sqrt(np.sum(p1 * (1 - p1)))

    from dataclasses import replace

    assert all(s.prevalence is None for s in SCENARIOS.values())
    for name, s in IMBALANCED_SCENARIOS.items():
        assert s == replace(SCENARIOS[name.removesuffix("_q")], name=name, prevalence=0.25)


def _logistic_fit(z, y):
    """(a, b) of P(y = 1) = sigmoid(a + b z) (the suite's own fit, checked against closed forms
    above) and their standard errors from the inverse Fisher information."""
    from selbayes.experiments.plasmode import _logistic_calibration

    w, H = _logistic_calibration(z, y)
    return w, np.sqrt(np.diag(np.linalg.inv(H)))


def test_bayes_optimal_predictive_is_calibrated_and_a_plug_in_is_not():
    """The closed-form predictive of a simulation scenario is, pooled over replicates drawn from
    the scenario, calibrated against the drawn labels (what a Bayes predictive under the true
    prior must be): intercept 0 and slope 1 within 4 standard errors. The plug-in of the
    class-mean differences (no posterior uncertainty, no prior) is overconfident beyond 4 SE,
    so the check can fail."""
    sc = Scenario("t", "simulation", n_train=40, p=300, n_effects=6, effect_sd=1.5,
                  n_test=200, model_holds=True)
    z_opt, z_plug, ys = [], [], []
    for rep in range(40):
        d = make_replicate(sc, 100 + rep)
        z_opt.append(bayes_optimal_log_odds(sc, d["X_train"], d["y_train"], d["X_test"]))
        diff = d["X_train"][d["y_train"] == 1].mean(0) - d["X_train"][d["y_train"] == 0].mean(0)
        z_plug.append(d["X_test"] @ diff)                    # the log odds with delta = diff
        ys.append(d["y_test"])
    y = np.concatenate(ys)
    (a, b), (se_a, se_b) = _logistic_fit(np.concatenate(z_opt), y)
    assert abs(a) < 4 * se_a and abs(b - 1) < 4 * se_b, (a, b, se_a, se_b)
    (_, b_plug), (_, se_plug) = _logistic_fit(np.concatenate(z_plug), y)
    assert b_plug < 1 - 4 * se_plug, (b_plug, se_plug)


def _importance_sampled_log_odds(X, y, Xt, pi, sd, rng, batches=20, per=20000):
    """Log odds of class 1 by self-normalised importance sampling with the prior as proposal
    (delta_j drawn from (1 - pi) point mass + pi N(0, sd^2), weighted by the training
    likelihood x_ij ~ N((y_i - 1/2) delta_j, 1); the predictive is the weighted mean of each
    class's test density): per-batch estimates, shape (batches, m)."""
    est = []
    for _ in range(batches):
        delta = np.where(rng.random((per, X.shape[1])) < pi,
                         sd * rng.standard_normal((per, X.shape[1])), 0.0)
        mu = (y - 0.5)[None, :, None] * delta[:, None, :]               # (draws, n, p)
        loglik = -0.5 * ((X[None] - mu) ** 2).sum(axis=(1, 2))
        w = np.exp(loglik - loglik.max())
        l1 = -0.5 * ((Xt[None] - delta[:, None, :] / 2) ** 2).sum(-1)     # (draws, m)
        l0 = -0.5 * ((Xt[None] + delta[:, None, :] / 2) ** 2).sum(-1)
        est.append(np.log(w @ np.exp(l1)) - np.log(w @ np.exp(l0)))
    return np.array(est)


def test_bayes_optimal_predictive_against_importance_sampling_from_the_prior():
    """A second algorithm for the same predictive: agreement within 5 batch-means standard
    errors on every test case, with unequal training classes (the general form of the
    sufficient statistic), and with the genes that carry effects known (pi = 1 on them)."""
    sc = Scenario("t", "simulation", n_train=12, p=3, n_effects=1, effect_sd=1.5, n_test=6,
                  model_holds=True)
    d = make_replicate(sc, 7)
    keep = np.r_[0, 1, 6:12]                           # 2 cases of class 1, 6 of class 0
    X, y, Xt = d["X_train"][keep], d["y_train"][keep], d["X_test"]
    assert (y == 1).sum() == 2 and (y == 0).sum() == 6
    rng = np.random.default_rng(0)
    for genes in (None, [1]):
        Xg, Xtg = (X, Xt) if genes is None else (X[:, genes], Xt[:, genes])
        pi = sc.n_effects / sc.p if genes is None else 1.0
        est = _importance_sampled_log_odds(Xg, y, Xtg, pi, sc.effect_sd, rng)
        mc, se = est.mean(0), est.std(0, ddof=1) / np.sqrt(len(est))
        closed = bayes_optimal_log_odds(sc, X, y, Xt, genes=genes)
        assert np.all(np.abs(closed - mc) < 5 * se + 1e-9), (genes, closed, mc, se)
        assert np.ptp(closed) > 10 * se.max()               # the test cases differ: not vacuous
    with pytest.raises(ValueError, match="simulation scenarios only"):
        bayes_optimal_log_odds(Scenario("q", "plasmode", n_train=12), X, y, Xt)
    with pytest.raises(ValueError, match="both classes"):
        bayes_optimal_log_odds(sc, X[y == 0], y[y == 0], Xt)


def test_bayes_optimal_class_densities_in_closed_form_with_known_effect_genes():
    """With the effect genes known (pi = 1), each class density is a product of normal
    predictives: d_j ~ N(delta_j, 4 / n), delta_j ~ N(0, s^2) gives delta_j | d ~ N(m, c) and
    x_j | y ~ N(+-m / 2, 1 + c / 4), here computed by the conjugate formulas in precision
    form; their difference is the log odds."""
    from scipy.stats import norm

    sc = Scenario("t", "simulation", n_train=14, p=4, n_effects=2, effect_sd=1.5, n_test=5,
                  model_holds=True)
    d = make_replicate(sc, 3)
    X, y, Xt, genes = d["X_train"], d["y_train"], d["X_test"], [0, 2]
    n1, n0 = (y == 1).sum(), (y == 0).sum()
    dj = 2 * (n1 * X[y == 1][:, genes].mean(0) - n0 * X[y == 0][:, genes].mean(0)) / (n1 + n0)
    prec = 1 / sc.effect_sd ** 2 + (n1 + n0) / 4
    m, c = dj * (n1 + n0) / 4 / prec, 1 / prec
    want = np.column_stack([norm.logpdf(Xt[:, genes], sign * m / 2, np.sqrt(1 + c / 4)).sum(1)
                            for sign in (-1, 1)])
    got = bayes_optimal_log_densities(sc, X, y, Xt, genes=genes)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got[:, 1] - got[:, 0],
                               bayes_optimal_log_odds(sc, X, y, Xt, genes=genes), rtol=1e-12)


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


def test_small_sample_scenarios_are_the_suites_with_40_training_cases():
    """Each small-sample scenario is its suite scenario with n_train = 40 and nothing else
    changed; a simulation replicate then has 20 training cases of each class and the suite's
    400 test cases."""
    from dataclasses import replace

    assert len(SMALL_SAMPLE_SCENARIOS) == 4
    for name, s in SMALL_SAMPLE_SCENARIOS.items():
        assert s == replace(SCENARIOS[name.removesuffix("_n40")], name=name, n_train=40)
    d = make_replicate(SMALL_SAMPLE_SCENARIOS["sim_sparse_strong_n40"], 3)
    assert d["X_train"].shape == (40, 2000) and d["y_train"].sum() == 20
    assert d["X_test"].shape == (400, 2000)


def test_every_table_s_scenario_is_found_by_its_name_and_an_unknown_name_is_named():
    tables = (SCENARIOS, HOLDOUT_SCENARIOS, IMBALANCED_SCENARIOS, SMALL_SAMPLE_SCENARIOS,
              SHIFTED_SCENARIOS)
    for table in tables:
        for name, s in table.items():
            assert scenario(name) is s and s.name == name
    with pytest.raises(ValueError, match="unknown scenario 'sim_dense'.*sim_dense_weak"):
        scenario("sim_dense")


def test_factor_covariance_is_the_leading_part_of_the_sample_correlation():
    """Reference: the eigendecomposition of the p x p sample correlation (small p): L L' is
    its leading part, and every gene's variance is 1 unless the floor holds it."""
    rng = np.random.default_rng(5)
    F = rng.standard_normal((40, 3))
    X = F @ rng.standard_normal((3, 25)) + rng.standard_normal((40, 25))
    X = (X - X.mean(0)) / X.std(0)
    L, d = factor_covariance(X, 3)
    e, V = np.linalg.eigh(X.T @ X / 40)
    top = V[:, -3:] * np.sqrt(e[-3:])
    np.testing.assert_allclose(L @ L.T, top @ top.T, atol=1e-10)
    np.testing.assert_allclose(((L ** 2).sum(1) + d)[d > 0.05], 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="n_factors must be between 1 and n - 1 = 39"):
        factor_covariance(X, 40)


def test_shifted_truth_is_the_class_probability_under_the_factor_covariance():
    """The "shifted" scenario's true log odds (Woodbury) equal delta' Sigma^-1 x with Sigma
    built and inverted as a p x p matrix (delta scaled to the Mahalanobis distance of the
    simulation with the same effects; on random genes, and along the factors), and the drawn
    test labels follow them (residual sum within 4 binomial SE); the training classes are
    balanced."""
    from dataclasses import replace

    rng = np.random.default_rng(6)
    F = rng.standard_normal((50, 4))
    X = F @ rng.standard_normal((4, 30)) + 0.5 * rng.standard_normal((50, 30))
    X = (X - X.mean(0)) / X.std(0)
    sc = Scenario("t", "shifted", n_train=40, n_effects=6, effect_sd=0.3, dataset="none",
                  n_test=20000, n_factors=4)
    d = make_replicate(sc, 2, X_real=X)
    assert d["X_train"].shape == (40, 30) and d["y_train"].sum() == 20
    p1, y = d["p_test"][:, 1], d["y_test"]
    # the reference redraws the labels and delta from the same seed, in make_replicate's order
    L, own = factor_covariance(X, 4)
    Sigma = L @ L.T + np.diag(own)
    again = np.random.default_rng(2)
    y_all = np.zeros(20040, dtype=int)
    y_all[:20] = 1
    y_all[40:] = again.integers(0, 2, 20000)
    delta = np.zeros(30)
    idx = again.choice(30, 6, replace=False)        # before the sizes, as make_replicate
    delta[idx] = 0.3 * again.standard_normal(6)
    delta *= np.sqrt(6 * 0.3 ** 2 / (delta @ np.linalg.solve(Sigma, delta)))
    logit = d["X_test"] @ np.linalg.solve(Sigma, delta)
    assert 0.5 < logit.std() < 10                    # neither flat nor saturated
    np.testing.assert_allclose(p1, 1 / (1 + np.exp(-logit)), rtol=1e-9, atol=1e-12)
    assert np.array_equal(y_all[40:], y)
    assert abs(np.sum(y - p1)) < 4 * np.sqrt(np.sum(p1 * (1 - p1)))
    # pattern "factor": delta = L v, scaled the same way
    fac = make_replicate(replace(sc, pattern="factor", n_test=2000), 2, X_real=X)
    again = np.random.default_rng(2)
    again.integers(0, 2, 2000)
    delta = L @ again.standard_normal(4)
    delta *= np.sqrt(6 * 0.3 ** 2 / (delta @ np.linalg.solve(Sigma, delta)))
    p_ref = 1 / (1 + np.exp(-fac["X_test"] @ np.linalg.solve(Sigma, delta)))
    np.testing.assert_allclose(fac["p_test"][:, 1], p_ref, rtol=1e-9, atol=1e-12)
    # the named scenarios: real correlation, so the Gaussian model's independence fails
    assert all(s.kind == "shifted" and not s.model_holds and s.dataset
               for s in SHIFTED_SCENARIOS.values())


@pytest.mark.parametrize("kind, pattern, match", [
    ("shifted", "module", "a shifted scenario draws pattern 'random' or 'factor'"),
    ("simulation", "factor", "a simulation scenario draws pattern 'random'; got 'factor'"),
    ("plasmode", "factor", "draws pattern 'random' or 'module'"),
    ("simulated", "random", "kind must be one of simulation, plasmode, shifted"),
])
def test_a_pattern_the_kind_does_not_draw_is_refused(kind, pattern, match):
    with pytest.raises(ValueError, match=match):
        Scenario("t", kind, n_train=20, pattern=pattern)


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


@pytest.mark.parametrize("args, match", [
    (["--replicates", "0"], "--replicates must be >= 1"),     # was pandas' KeyError
    (["--seed", "-1"], "--seed must be >= 0"),                # was numpy's ValueError
    (["--jobs", "0"], "--jobs must be a positive integer"),     # was joblib's ValueError
    (["--methods", "nope"], r"unknown method\(s\) \['nope'\]; choose from"),
    (["--scenarios", "nope"], r"unknown scenario\(s\) \['nope'\]; choose from"),
])
def test_main_refuses_bad_arguments_before_running(args, match, tmp_path, capsys):
    from selbayes.experiments.plasmode import main

    with pytest.raises(SystemExit) as exc:
        main(["--quick", "--out", str(tmp_path / "out"), *args])
    assert exc.value.code == 2
    assert re.search(match, capsys.readouterr().err)
    assert not (tmp_path / "out").exists()
