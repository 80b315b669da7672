"""The PyMC mixture model's log density equals the reference sampler's log target + constant."""

import numpy as np
import pytest

from selbayes.models import MixturePrior, build_mixture_model
from selbayes.models._mixture import _Chain


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

    from selbayes.models._mixture_pymc import mixture_steps

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


def _counts(X, y, z):
    Xf = np.column_stack([y, X]).astype(float)
    nz = np.array([np.sum(z == 0), np.sum(z == 1)], dtype=float)
    I = np.stack([Xf[z == 0].sum(0), Xf[z == 1].sum(0)])
    N = np.array([np.sum((z == c) & (y == v)) for c in (0, 1) for v in (0, 1)], dtype=np.int64)
    return Xf, nz, I, N


def test_conditional_slice_conditionals_equal_the_model_log_density():
    # The compiled continuous step's conditionals (theta_j on (0, 1); log alpha0, log alpha
    # with their Jacobians) differ from the PyMC model's log density only by terms free of
    # the variable updated: an independent check that the step samples the model's posterior
    # (the model's log density is checked against the reference sampler's target above).
    from selbayes.adjustment._mixture_nb import _log_cond_alpha, _log_u_theta, mixture_factor

    rng = np.random.default_rng(11)
    n, k, n_omit, gamma = 16, 3, 40, 0.3
    X = rng.integers(0, 2, size=(n, k))
    y = np.repeat([0, 1], n // 2)
    fac = mixture_factor(n // 2, n // 2, gamma)
    model = build_mixture_model(X, y, n_omitted=n_omit, corrected=True, factor=fac)
    logp_jac = model.compile_logp(jacobian=True)
    logp = model.compile_logp(jacobian=False)
    pr = MixturePrior()
    for s in range(4):
        r = np.random.default_rng(s)
        z = r.integers(0, 2, size=n)
        theta = r.uniform(0.05, 0.95, size=k + 1)
        la = r.normal(1.0, 1.5, size=2)                # log alpha0, log alpha
        _, nz, I, N = _counts(X, y, z)

        def point(theta=theta, la=la, z=z):
            return {"theta_interval__": np.log(theta / (1 - theta)), "alpha0_log__": la[0],
                    "alpha_log__": la[1], "z": z}

        def cond(u, first, stop, shape, scale, use_adj, theta=theta, I=I, nz=nz, N=N):
            return _log_cond_alpha(u, first, stop, theta, I, nz, shape, scale, float(n_omit),
                                   use_adj, N, fac.compiled_args())

        for d in (-2.0, 0.7, 3.0):
            la1 = la + np.array([d, 0.0])
            want = logp_jac(point(la=la1)) - logp_jac(point())
            got = (cond(la1[0], 0, 1, pr.alpha0_shape, pr.alpha0_scale, False)
                   - cond(la[0], 0, 1, pr.alpha0_shape, pr.alpha0_scale, False))
            assert abs(got - want) < 1e-8, (s, "alpha0", got, want)
            la1 = la + np.array([0.0, d])
            want = logp_jac(point(la=la1)) - logp_jac(point())
            got = (cond(la1[1], 1, k + 1, pr.alpha_shape, pr.alpha_scale, True)
                   - cond(la[1], 1, k + 1, pr.alpha_shape, pr.alpha_scale, True))
            assert abs(got - want) < 1e-8, (s, "alpha", got, want)
        alphas = np.exp(np.r_[la[0], np.full(k, la[1])])
        for j in range(k + 1):
            th1 = theta.copy()
            th1[j] = r.uniform(0.01, 0.99)
            want = logp(point(theta=th1)) - logp(point())
            args = (I[0, j], nz[0] - I[0, j], I[1, j], nz[1] - I[1, j])
            got = (_log_u_theta(alphas[j], th1[j], *args)
                   - _log_u_theta(alphas[j], theta[j], *args))
            assert abs(got - want) < 1e-8, (s, j, got, want)


def test_conditional_slice_step_is_reproducible_and_moves():
    from selbayes.models._mixture_fast import conditional_sweep

    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(12, 2))
    y = np.repeat([0, 1], 6)
    Xf = np.column_stack([y, X]).astype(float)
    z = rng.integers(0, 2, size=12).astype(np.int64)
    runs = []
    for _ in range(2):
        theta, la = np.full(3, 0.5), np.array([1.0, 2.0])
        evals = conditional_sweep(z, Xf, theta, la, MixturePrior(), np.random.default_rng(5))
        runs.append((theta.copy(), la.copy(), evals))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert np.all(runs[0][0] != 0.5) and np.all(runs[0][1] != [1.0, 2.0])
    assert np.all((runs[0][0] > 0) & (runs[0][0] < 1)) and runs[0][2] >= 5


@pytest.mark.parametrize("corrected", [True, False])
def test_default_route_matches_exact_posterior(corrected):
    # the classifier's default route (pm.sample with CollapsedZGibbs + ConditionalSlice)
    # against the n = 8 enumeration of tests/estimators/test_mixture.py; 9 statistics,
    # |z| < 4.0 each (family-wise false-alarm rate < 1e-3)
    from tests.estimators.test_mixture import _compare_to_exact

    zscores, _ = _compare_to_exact(corrected, backend="pymc", draws=2000, chains=4)
    assert max(abs(v) for v in zscores.values()) < 4.0, zscores


def test_default_route_starts_chains_from_random_labels_reproducibly():
    # one initial point serves every chain; the label step draws each chain's starting labels
    # from that chain's generator (so chains differ, and a seed reproduces them); the chains'
    # traces share one compiled function but not their draws (_SharedFunctionTrace)
    from selbayes.models._mixture_pymc import sample_pymc

    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(30, 2))
    y = np.repeat([0, 1], 15)

    def first_labels(seed):
        s = sample_pymc(X, y, n_omitted=0, threshold=None, corrected=False, draws=1, tune=0,
                        chains=3, random_state=seed)
        return s.idata.posterior["n_z1"].values[:, 0], s.idata.posterior["alpha"].values[:, 0]

    (n1, a1), (n2, a2) = first_labels(7), first_labels(7)
    np.testing.assert_array_equal(n1, n2)
    np.testing.assert_array_equal(a1, a2)
    assert len(set(a1.tolist())) == 3                  # the chains moved apart at once
    assert np.all((n1 > 0) & (n1 < 30))                # not PyMC's all-zero default start


@pytest.mark.parametrize("rule,n_theta", [("simpson", 21), ("gauss", 30), ("auto", None)])
def test_compiled_factor_keeps_the_theta_rule(rule, n_theta):
    # the samplers swap a given factor for the compiled one of its design: same rule, nodes
    # and values (a Simpson factor must not become a Gauss one)
    from selbayes.adjustment import MixtureOmitFactor
    from selbayes.models._mixture_fast import compiled_factor

    ref = MixtureOmitFactor(10, 10, 0.3, n_theta=n_theta, theta_rule=rule)
    fast = compiled_factor(ref)
    assert (fast.theta_rule, fast.n_theta) == (ref.theta_rule, ref.n_theta)
    assert compiled_factor(fast) is fast
    for N in ((6, 4, 4, 6), (10, 0, 0, 10), (3, 5, 7, 5)):
        for a in (0.5, 5.0, 500.0):
            assert abs(fast.log_keep(a, *N) - ref.log_keep(a, *N)) < 1e-12


def test_compiled_sweep_equals_the_reference_loop():
    # same state, same random numbers: the compiled exact sweep (with the factor) makes the
    # same label decisions as the reference sampler's Python loop
    from selbayes.adjustment import MixtureOmitFactor
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
    from selbayes.adjustment import MixtureOmitFactor
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
@pytest.mark.parametrize("backend", ["pymc", "pymc_nuts"])
def test_pymc_routes_match_exact_posterior_long(corrected, backend):
    # both PyMC routes (compiled continuous step; PyMC's NUTS + slice) against the n = 8
    # enumeration of tests/estimators/test_mixture.py, with long chains
    from tests.estimators.test_mixture import _compare_to_exact

    draws = 20000 if backend == "pymc" else 1000
    zscores, _ = _compare_to_exact(corrected, backend=backend, draws=draws,
                                   chains=4 if backend == "pymc" else 2, seed=22)
    assert max(abs(v) for v in zscores.values()) < 4.0, zscores


@pytest.mark.slow
@pytest.mark.parametrize("corrected", [True, False])
@pytest.mark.parametrize("route", ["pymc", "pymc_nuts"])
def test_pymc_route_matches_reference_sampler_at_moderate_size(corrected, route):
    # n = 40 cases, p = 300 features, k = 5 kept: the posterior of alpha from pm.sample (the
    # classifier's route) and from the hand-written reference sampler agree within their
    # combined Monte Carlo standard error (ArviZ's MCSE of the mean; |z| < 4)
    from arviz_stats import mcse

    from selbayes.datasets import binary_mixture
    from selbayes.filters import select_features
    from selbayes.models import sample_mixture

    d = binary_mixture(None, 300, class_counts=np.array([20, 20]), random_state=7)
    sel = select_features(d.X, d.y, k=5, statistic="abs_corr")
    Xs = d.X[:, sel.indices]
    la = {}
    for backend in (route, "reference"):
        res = sample_mixture(Xs, d.y, n_omitted=sel.n_omitted, threshold=sel.threshold,
                             corrected=corrected, draws=2000, tune=500, chains=4,
                             random_state=3, backend=backend)
        la[backend] = res.idata.posterior["log_alpha"].values
    cut = float(np.median(la["reference"]))
    z = {}
    for name, f in (("E[log alpha]", lambda v: v),
                    ("P(log alpha <= median)", lambda v: (v <= cut).astype(float))):
        a, b = f(la[route]), f(la["reference"])
        se = np.hypot(float(mcse(a, method="mean")), float(mcse(b, method="mean")))
        z[name] = (a.mean() - b.mean()) / se
    assert max(abs(v) for v in z.values()) < 4.0, z


def _collapsed_reference(Xf, z, theta, av):
    """sum over features and components of log U(av theta, av (1 - theta), I, O) as sums of
    logs (Li 2007 eq 2.30), with no log Gamma difference."""
    import math

    out = []
    for j in range(Xf.shape[1]):
        a, b = av[j] * theta[j], av[j] * (1.0 - theta[j])
        for c in (0, 1):
            col = Xf[z == c, j]
            i, nc = int(col.sum()), int(col.shape[0])
            out += [math.log(a + l) for l in range(i)]
            out += [math.log(b + l) for l in range(nc - i)]
            out += [-math.log(av[j] + l) for l in range(nc)]
    return math.fsum(out)


def test_log_density_is_exact_at_large_alpha():
    """The three implementations of the collapsed likelihood (the PyMC model, the reference
    sampler's target, the compiled alpha conditional) against sums of logs, alpha up to 1e17:
    as log Gamma differences they were off by up to hundreds of nats beyond alpha ~ 1e12."""
    from selbayes.adjustment._mixture_nb import _log_cond_alpha, mixture_factor

    rng = np.random.default_rng(5)
    n, k = 30, 3
    X = rng.integers(0, 2, size=(n, k))
    y = rng.integers(0, 2, size=n)
    z = rng.integers(0, 2, size=n)
    theta = np.array([0.4, 0.3, 0.6, 0.55])
    Xf, nz, I, N = _counts(X, y, z)
    pr = MixturePrior()
    model = build_mixture_model(X, y, corrected=False)
    logp = model.compile_logp(jacobian=False)
    ch = _Chain(Xf, pr, 0, None, False, True, np.random.default_rng(0))
    ch.theta, ch.z = theta.copy(), z.copy()
    ch._recount()
    ch.log_alpha0 = la0 = 1.0
    fa = mixture_factor(int(nz[0]), int(nz[1]), 0.3).compiled_args()   # unused: use_adj False

    def ref(la):
        av = np.r_[np.exp(la0), np.full(k, np.exp(la))]
        prior = -(pr.alpha_shape + 1) * la - pr.alpha_scale / np.exp(la)
        return _collapsed_reference(Xf, z, theta, av) + prior

    def model_logp(la):
        return float(logp({"theta_interval__": np.log(theta / (1 - theta)),
                           "alpha0_log__": la0, "alpha_log__": la, "z": z}))

    base = np.log(10.0)
    for log10_alpha in (6.0, 12.0, 14.0, 16.0, 17.0):
        la = log10_alpha * np.log(10.0)
        want = ref(la) - ref(base)
        assert abs((model_logp(la) - model_logp(base)) - want) < 1e-8 * max(1.0, abs(want))
        # the compiled conditional of log alpha carries the Jacobian (+ log alpha)
        got = (_log_cond_alpha(la, 1, k + 1, theta, I, nz, pr.alpha_shape, pr.alpha_scale,
                               0.0, False, N, fa)
               - _log_cond_alpha(base, 1, k + 1, theta, I, nz, pr.alpha_shape,
                                 pr.alpha_scale, 0.0, False, N, fa))
        assert abs(got - (want + la - base)) < 1e-8 * max(1.0, abs(want)), (log10_alpha, got)
        ch.log_alpha = la
        t1 = ch.log_target()
        ch.log_alpha = base
        assert abs(t1 - ch.log_target() - want) < 1e-8 * max(1.0, abs(want)), log10_alpha
