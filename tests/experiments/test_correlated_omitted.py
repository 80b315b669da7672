"""Effective number of omitted features, the correlated simulator and the experiment's smoke run.

References are independent of the code under test: the m x m correlation matrix built
directly (small cases only), the exact null moment E r^2 = 1/(n - G) of residual correlations,
and the limits rho = 0 (m_eff = m) and rho -> 1 (m_eff = number of blocks).
"""

import re

import numpy as np
import pytest

from selbayes.experiments.correlated_omitted import (
    Cell,
    CorrelatedGaussianSimulator,
    block_exponent,
    effective_number,
    omitted_correlation_moments,
    run_experiment,
    summarise,
)


def _labels(n, G):
    return np.arange(n) % G


def _residual_corr_pxp(X, y):
    """Reference: the m x m correlation of within-class residuals, formed explicitly."""
    R = X.astype(float).copy()
    for g in np.unique(y):
        R[y == g] -= R[y == g].mean(axis=0)
    R /= np.linalg.norm(R, axis=0)
    return R.T @ R


def test_gram_route_equals_the_pxp_route():
    rng = np.random.default_rng(3)
    n, m, G = 15, 30, 3
    y = _labels(n, G)
    X = rng.normal(size=(n, m)) + np.repeat(rng.normal(size=(n, 6)), 5, axis=1)
    C = _residual_corr_pxp(X, y)
    mom = omitted_correlation_moments(X, y)
    lam = np.linalg.eigvalsh(C)[::-1]
    assert mom["frob2"] == pytest.approx(np.sum(C * C), rel=1e-12)
    assert mom["m"] == pytest.approx(np.trace(C), rel=1e-12)
    assert mom["df"] == n - G
    k = mom["eigenvalues"].size
    assert k == n - G                                # rank of the residuals
    np.testing.assert_allclose(mom["eigenvalues"], lam[:k], rtol=1e-9)
    assert np.all(np.abs(lam[k:]) < 1e-9)
    # every estimator, from the m x m eigenvalues
    assert effective_number(X, y, bias_correct=False) == pytest.approx(
        m**2 / np.sum(lam**2), rel=1e-10)
    lam_pos = lam[lam > 1e-9]
    li_ji = np.sum((lam_pos >= 1) + lam_pos - np.floor(lam_pos))
    assert effective_number(X, y, method="li_ji") == pytest.approx(li_ji, rel=1e-10)
    var = np.var(lam, ddof=1)
    assert effective_number(X, y, method="nyholt", bias_correct=False) == pytest.approx(
        1 + (m - 1) * (1 - var / m), rel=1e-10)


def test_bias_correction_is_unbiased_for_independent_columns():
    # E sum_{i != j} r_ij^2 = m(m - 1)/(n - G) exactly for independent Gaussian columns
    # (residuals isotropic in n - G dimensions); the raw m_eff is then far below m.
    rng = np.random.default_rng(11)
    n, m, G, reps = 40, 200, 3, 40
    y = _labels(n, G)
    off, meff, raw = [], [], []
    for _ in range(reps):
        X = rng.normal(size=(n, m)) * rng.gamma(2.0, size=m) + rng.normal(size=(G, m))[y]
        mom = omitted_correlation_moments(X, y)
        off.append(mom["frob2"] - m)
        meff.append(effective_number(X, y))
        raw.append(effective_number(X, y, bias_correct=False))
    off = np.array(off)
    expected = m * (m - 1) / (n - G)
    assert abs(off.mean() - expected) < 4 * off.std(ddof=1) / np.sqrt(reps)
    meff = np.array(meff)
    # the estimate has sd about 0.056 m here (simulated) and is clipped at m: every one within
    # 3.5 sd, and the median (unaffected by the clip when below m) within 1.5 SE of m
    assert np.all(meff <= m) and np.all(meff > 0.8 * m)
    assert np.median(meff) > m - 1.5 * 1.25 * 0.056 * m / np.sqrt(reps)
    d = n - G
    assert np.mean(raw) == pytest.approx(d * m / (d + m - 1), rel=0.05)


def test_m_eff_counts_blocks_when_rho_tends_to_one():
    rng = np.random.default_rng(5)
    n, G, b, n_blocks = 40, 3, 20, 10
    y = _labels(n, G)
    vals = []
    for _ in range(10):
        shared = np.repeat(rng.normal(size=(n, n_blocks)), b, axis=1)
        X = shared + 0.01 * rng.normal(size=shared.shape)        # rho = 1/(1 + 1e-4)
        vals.append(effective_number(X, y))
    assert np.mean(vals) == pytest.approx(n_blocks, rel=0.02)
    # moderate correlation: close to m / (1 + (b - 1) rho^2), the population value
    sim = CorrelatedGaussianSimulator(n=n, p=200, n_classes=G, block=b, rho=0.5,
                                      priors={"alpha_mu": 1.5, "w_mu": 1e6})  # ~no signal
    vals = [effective_number(*sim(rng)[0]) for _ in range(10)]
    assert np.mean(vals) == pytest.approx(200 / (1 + 19 * 0.25), rel=0.08)


def test_simulator_noise_correlation_within_and_between_blocks():
    rng = np.random.default_rng(2)
    sim = CorrelatedGaussianSimulator(n=400, p=40, n_classes=2, block=5, rho=0.6)
    (X, y), truth = sim(rng)
    C = _residual_corr_pxp(X, y)
    blocks = np.arange(40) // 5
    same = (blocks[:, None] == blocks[None, :]) & ~np.eye(40, dtype=bool)
    # r has sd about (1 - rho^2)/sqrt(n) per pair; 80 within-block and 1520 between pairs
    assert C[same].mean() == pytest.approx(0.6, abs=0.03)
    assert C[blocks[:, None] != blocks[None, :]].mean() == pytest.approx(0.0, abs=0.02)
    assert truth["tau_mu"] > 0 and truth["tau_nu"] > 0


def test_block_exponent_limits():
    # independent features: exponent 1; identical noise and no signal: one feature per block
    # (F is scale invariant, so the block's F statistics coincide)
    ind = block_exponent(100.0, None, 5, 0.0, n_blocks=4000, random_state=1)
    assert abs(ind["per_feature"] - 1) < 4 * ind["per_feature_se"]
    one = block_exponent(1e24, None, 5, 1.0, n_blocks=4000, random_state=1)
    assert one["per_feature"] == pytest.approx(0.2, abs=1e-3)


@pytest.mark.parametrize("bad, match", [
    ({"method": "pca"}, "method must be one of"),
])
def test_errors(bad, match):
    X = np.random.default_rng(0).normal(size=(10, 5))
    with pytest.raises(ValueError, match=match):
        effective_number(X, **bad)
    with pytest.raises(ValueError, match="no within-class variation"):
        effective_number(np.column_stack([X, np.ones(10)]))
    with pytest.raises(ValueError, match="rho must be in"):
        CorrelatedGaussianSimulator(rho=1.5)
    with pytest.raises(ValueError, match="y must have shape"):
        effective_number(X, np.zeros(3))


# A real run end to end (MCMC fits of a model compiled only here, ~16 s from empty caches):
# make slow; the experiment's parts are tested above.
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:expected count per bin")
def test_smoke_run(tmp_path):
    rows = run_experiment(tmp_path, 3, 7, cells=[Cell("t", 5, 0.5)], quick=True,
                          progress=False)
    assert len(rows) == 3
    for name in ("replicates.csv", "summary.csv", "ranks.png", "results.md", "settings.json",
                 "exact_exponent.csv"):
        assert (tmp_path / name).exists()
    summ = summarise(rows)
    assert set(summ["exponent"]) == {"indep", "meff"} and (summ["N"] == 3).all()
    for r in rows:
        assert 0 < r["frac_indep_tau_mu"] < 1 and 0 < r["frac_meff_tau_mu"] < 1
        assert 1 <= r["m_eff_bretherton"] <= r["p_minus_k"] == 195
    # resuming reuses the stored rows exactly
    again = run_experiment(tmp_path, 3, 7, cells=[Cell("t", 5, 0.5)], quick=True,
                           progress=False)
    assert [float(r["frac_meff_tau_mu"]) for r in again] == pytest.approx(
        [r["frac_meff_tau_mu"] for r in rows])


@pytest.mark.parametrize("args, match", [
    (["--p", "0"], "--p must be >= 1"),
    (["--designs", "5:2.0"], r"--designs 5:2 with --p 200: rho must be in \[0, 1\]"),
    (["--designs", "300:0.5"], "block must be in 1..p = 200"),
])
def test_main_refuses_bad_designs_before_running(args, match, tmp_path, capsys):
    """These were tracebacks from the first replicate's simulator."""
    from selbayes.experiments.correlated_omitted import main

    with pytest.raises(SystemExit) as exc:
        main(["--quick", "--out", str(tmp_path / "out"), *args])
    assert exc.value.code == 2
    assert re.search(match, capsys.readouterr().err)
    assert not (tmp_path / "out").exists()
