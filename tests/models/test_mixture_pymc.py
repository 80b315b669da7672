"""The PyMC mixture model's log density equals the reference sampler's log target + constant."""

import numpy as np
import pytest

from selbayes.models.mixture import MixturePrior, _Chain
from selbayes.models.mixture_pymc import build_mixture_model


def test_logp_matches_reference_log_target_up_to_constant():
    rng = np.random.default_rng(3)
    n, k = 12, 3
    X = rng.integers(0, 2, size=(n, k))
    y = rng.integers(0, 2, size=n)
    model = build_mixture_model(X, y, corrected=False)
    logp = model.compile_logp(jacobian=False)
    diffs = []
    for s in range(5):
        ch = _Chain(np.column_stack([y, X]).astype(float), MixturePrior(), 0, None, False,
                    True, np.random.default_rng(s))
        pt_ = {"theta_interval__": np.log(ch.theta / (1 - ch.theta)),
               "alpha0_log__": ch.log_alpha0, "alpha_log__": ch.log_alpha, "z": ch.z}
        diffs.append(logp(pt_) - ch.log_target())
    assert np.ptp(diffs) < 1e-8, diffs


def test_pm_sample_with_collapsed_z_step_runs():
    import pymc as pm

    from selbayes.models.mixture_pymc import mixture_steps

    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(10, 2))
    y = rng.integers(0, 2, size=10)
    model = build_mixture_model(X, y, corrected=False)
    with model:
        idata = pm.sample(draws=50, tune=20, chains=1, cores=1,
                          step=mixture_steps(model, X, y), random_seed=0, progressbar=False,
                          compute_convergence_checks=False)
    assert idata.posterior["alpha"].shape == (1, 50)
    assert set(np.unique(idata.posterior["z"].values)) <= {0, 1}


def test_compiled_sweep_equals_the_reference_loop():
    # same state, same random numbers: the compiled exact sweep (with the factor) makes the
    # same label decisions as the reference sampler's Python loop
    from selbayes.adjustment.mixture import MixtureOmitFactor
    from selbayes.models._mixture_fast import mixture_factor, z_sweep

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, 4))
    y = np.repeat([0, 1], 20)
    Xf = np.column_stack([y, X]).astype(float)
    ref, fast = MixtureOmitFactor(20, 20, 0.3), mixture_factor(20, 20, 0.3)
    for use in (False, True):
        for s in range(3):
            ch = _Chain(Xf, MixturePrior(), 200, ref if use else None, use, True,
                        np.random.default_rng(s))
            z = ch.z.astype(np.int64).copy()
            av = ch.alpha_vec()
            ch.rng = np.random.default_rng(100 + s)
            ch.update_labels()
            z_sweep(z, Xf, av * ch.theta, av - av * ch.theta, av[-1], av[0], 1.0, 1.0,
                    np.random.default_rng(100 + s), 200, fast if use else None)
            np.testing.assert_array_equal(z, ch.z)


def test_fast_factor_equals_the_reference_factor():
    from selbayes.adjustment.mixture import MixtureOmitFactor
    from selbayes.models._mixture_fast import FastMixtureFactor

    rng = np.random.default_rng(1)
    for n0, n1 in ((4, 4), (15, 26), (50, 50), (100, 101)):
        f, g = FastMixtureFactor(n0, n1, 0.25), MixtureOmitFactor(n0, n1, 0.25)
        for _ in range(10):
            n00, n01 = int(rng.integers(0, n0 + 1)), int(rng.integers(0, n1 + 1))
            N = (n00, n01, n0 - n00, n1 - n01)
            a = float(np.exp(rng.uniform(-5, 10)))
            assert abs(f.log_keep(a, *N) - g.log_keep(a, *N)) < 1e-11
    # pickles without its caches and still evaluates
    import pickle

    h = pickle.loads(pickle.dumps(f))
    assert h.log_keep(2.0, *N) == f.log_keep(2.0, *N)


@pytest.mark.slow
@pytest.mark.parametrize("corrected", [False, True])
def test_classifier_route_matches_exact_posterior(corrected):
    # the route the classifier uses: sample_mixture(backend="pymc") (CollapsedZGibbs, NUTS,
    # Slice in pm.sample) against the n = 8 enumeration of tests/test_mixture.py
    from tests.estimators.test_mixture import _compare_to_exact

    zscores, _ = _compare_to_exact(corrected, backend="pymc", draws=1000, chains=2)
    assert max(abs(v) for v in zscores.values()) < 4.0, zscores


@pytest.mark.slow
@pytest.mark.parametrize("corrected", [True, False])
def test_pymc_route_matches_reference_sampler_at_moderate_size(corrected):
    # n = 40 cases, p = 300 features, k = 5 kept: the posterior of alpha from pm.sample (the
    # classifier's route) and from the hand-written reference sampler agree within their
    # combined Monte Carlo standard error (ArviZ's MCSE of the mean; |z| < 4)
    from arviz_stats import mcse

    from selbayes.datasets.simulate import binary_mixture
    from selbayes.filters.selection import select_features
    from selbayes.models.mixture import sample_mixture

    d = binary_mixture(None, 300, class_counts=np.array([20, 20]), random_state=7)
    sel = select_features(d.X, d.y, k=5, statistic="abs_corr")
    Xs = d.X[:, sel.indices]
    la = {}
    for backend in ("pymc", "reference"):
        res = sample_mixture(Xs, d.y, n_omitted=sel.n_omitted, threshold=sel.threshold,
                             corrected=corrected, draws=2000, tune=500, chains=4,
                             random_state=3, backend=backend)
        la[backend] = res.idata.posterior["log_alpha"].values
    cut = float(np.median(la["reference"]))
    z = {}
    for name, f in (("E[log alpha]", lambda v: v),
                    ("P(log alpha <= median)", lambda v: (v <= cut).astype(float))):
        a, b = f(la["pymc"]), f(la["reference"])
        se = np.hypot(float(mcse(a, method="mean")), float(mcse(b, method="mean")))
        z[name] = (a.mean() - b.mean()) / se
    assert max(abs(v) for v in z.values()) < 4.0, z
