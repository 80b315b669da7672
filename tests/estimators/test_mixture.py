"""Tests of the binary mixture model: adjustment factor, sampler invariance, estimator API.

References are independent of the code under test:

* the adjustment factor against brute-force enumeration of all 2^n values of an omitted
  feature (n <= 10), the spec's reference values (7.4), the naive Bayes factor (z = y), and a
  Monte Carlo simulation from the prior at n = 200;
* the sampler against the exact posterior of a tiny problem (n = 8): z enumerated (2^8), theta
  integrated exactly (the likelihood is a polynomial in theta, so Gauss-Legendre is exact),
  alpha and alpha0 on a fine midpoint rule of their prior CDFs, and P_keep by brute force.
"""

from __future__ import annotations

import functools
import itertools
import json

import numpy as np
import pytest
from arviz_stats import ess
from scipy.special import gammaln
from scipy.stats import invgamma

from selbayes.adjustment import MixtureOmitFactor, corr_log_omit_prob, mixture_log_omit_prob
from selbayes.adjustment._mixture import canonical_counts, mixture_counts
from selbayes.filters import binary_correlation
from selbayes.models import MixturePrior, sample_mixture
from selbayes.models._mixture import predict_log_proba

# ---------------------------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------------------------
_GL_X, _GL_W = np.polynomial.legendre.leggauss(24)
GL_THETA, GL_W = 0.5 * (_GL_X + 1.0), 0.5 * _GL_W          # exact for polynomials of degree 47


def log_u(a, b, I, O):
    """log U(a, b, I, O) of eq 2.29 (probability of one sequence with I ones, O zeros)."""
    return gammaln(a + I) - gammaln(a) + gammaln(b + O) - gammaln(b) - gammaln(a + b + I + O) \
        + gammaln(a + b)


def brute_force_keep(alpha, z, y, gamma):
    """P(|Cor(x, y)| <= gamma | alpha, z) by enumerating all 2^n feature vectors x.

    alpha: (A,) array. Theta integrated with Gauss-Legendre (exact: polynomial in theta).
    """
    z, y = np.asarray(z), np.asarray(y)
    n = y.shape[0]
    xs = np.array(list(itertools.product((0, 1), repeat=n)))          # (2^n, n)
    I0 = (xs * (y == 0)).sum(1)
    I1 = (xs * (y == 1)).sum(1)
    cor = binary_correlation(I0, I1, int((y == 0).sum()), int((y == 1).sum()))
    keep = np.abs(cor) <= gamma * (1 + 1e-12) + 1e-14
    nz = np.array([(z == 0).sum(), (z == 1).sum()])
    m = np.stack([(xs * (z == 0)).sum(1), (xs * (z == 1)).sum(1)], axis=1)   # (2^n, 2)
    # P(x | alpha, z) depends on x only through its ones per group m: evaluate it once per
    # distinct m (at most 25 of the 256 vectors) and count the kept vectors of each
    ms, inv = np.unique(m, axis=0, return_inverse=True)
    inv = inv.ravel()
    al = np.asarray(alpha, dtype=float)[:, None, None]
    a, b = al * GL_THETA[None, :, None], al * (1 - GL_THETA[None, :, None])
    lp = sum(log_u(a, b, ms[None, None, :, c], nz[c] - ms[None, None, :, c]) for c in (0, 1))
    p_m = np.einsum("aqm,q->am", np.exp(lp), GL_W)                    # (A, distinct m)
    n_kept = np.bincount(inv, weights=keep, minlength=ms.shape[0])
    n_all = np.bincount(inv, minlength=ms.shape[0])
    return p_m @ n_kept, p_m @ n_all


def exact_posterior(X, y, n_omitted, gamma, corrected, prior=None, n_alpha=1092):
    """Exact joint posterior weights over (z, alpha-node) for a tiny problem.

    Returns (zs (2^n, n), log-alpha nodes (A,), weights (2^n, A)) with weights summing to 1.
    alpha and alpha0 use the midpoint rule on a uniform log scale over [-9, 30] (the corrected
    posterior puts mass at alpha < 1, where a rule on the prior CDF scale would be coarse).
    The upper end matters: the IG(0.5, 5) prior's tail on the log scale is exp(-u / 2), and
    cutting it at u = 16 drops 1e-3 of the uncorrected posterior and moves E[log alpha] by
    0.014, which long chains detect (about 2 standard errors at 80 000 draws).
    """
    prior = MixturePrior() if prior is None else prior
    n, k = X.shape
    edges = np.linspace(-9.0, 30.0, n_alpha + 1)
    log_alpha = 0.5 * (edges[1:] + edges[:-1])
    alpha = alpha0 = np.exp(log_alpha)
    # log prior weight of each cell: IG log density + log alpha (Jacobian of the log scale)
    lprior = invgamma(prior.alpha_shape, scale=prior.alpha_scale).logpdf(alpha) + log_alpha
    lprior0 = invgamma(prior.alpha0_shape, scale=prior.alpha0_scale).logpdf(alpha0) + log_alpha
    prior0 = np.exp(lprior0 - lprior0.max())
    prior0 /= prior0.sum()
    Xf = np.column_stack([y, X])
    zs = np.array(list(itertools.product((0, 1), repeat=n)))
    logw = np.empty((zs.shape[0], n_alpha))
    keep_cache, feat_cache = {}, {}

    def feat(counts, nz):
        """log of one feature's marginal likelihood at each node of the (alpha and alpha0)
        grid: a function of its ones per group (counts) and the group sizes nz only, so
        computed once per distinct pair."""
        key = (*counts, *nz)
        if key not in feat_cache:
            a = alpha[:, None] * GL_THETA[None, :]
            b = alpha[:, None] - a
            lp = sum(log_u(a, b, counts[c], nz[c] - counts[c]) for c in (0, 1))
            feat_cache[key] = np.log(np.exp(lp) @ GL_W)
        return feat_cache[key]

    for r, z in enumerate(zs):
        nz = ((z == 0).sum(), (z == 1).sum())
        I = np.stack([Xf[z == 0].sum(0), Xf[z == 1].sum(0)])          # (2, k + 1)
        lz = log_u(prior.f1, prior.f0, nz[1], nz[0])
        l0 = np.log(prior0 @ np.exp(feat(tuple(I[:, 0]), nz)))
        lf = sum(feat(tuple(I[:, j]), nz) for j in range(1, k + 1))
        lw = lz + l0 + lf + lprior
        if corrected:
            key = canonical_counts(mixture_counts(z, y))
            if key not in keep_cache:
                keep_cache[key] = np.log(brute_force_keep(alpha, z, y, gamma)[0])
            lw = lw + n_omitted * keep_cache[key]
        logw[r] = lw
    w = np.exp(logw - logw.max())
    return zs, log_alpha, w / w.sum()


# ---------------------------------------------------------------------------------------------
# adjustment factor
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha,N,gamma,expected", [
    (2.0, (3, 1, 1, 3), 0.30, 0.619563),
    (10.0, (2, 2, 1, 3), 0.20, 0.486028),
    (0.8, (4, 1, 0, 4), 0.45, 0.679761),
])
def test_factor_matches_spec_reference_values(alpha, N, gamma, expected):
    # spec 7.4 table (brute force + adaptive quadrature, 6 decimals)
    assert np.exp(mixture_log_omit_prob(alpha, N, gamma)) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("n0,n1,gamma,seed", [(4, 4, 0.3, 0), (3, 6, 0.2, 1), (5, 5, 0.45, 2),
                                              (2, 7, 0.1, 3)])
def test_factor_matches_brute_force_enumeration(n0, n1, gamma, seed):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [n0, n1])
    alpha = np.array([0.05, 0.7, 3.0, 25.0, 400.0])
    for _ in range(3):
        z = rng.integers(0, 2, n0 + n1)
        keep, total = brute_force_keep(alpha, z, y, gamma)
        np.testing.assert_allclose(total, 1.0, atol=1e-12)             # the reference is exact
        got = mixture_log_omit_prob(alpha, mixture_counts(z, y), gamma)
        np.testing.assert_allclose(got, np.log(keep), atol=1e-10, rtol=0)


def test_factor_reduces_to_naive_bayes_and_is_label_swap_invariant():
    alpha = np.exp(np.linspace(-3, 10, 9))
    nb = corr_log_omit_prob(alpha, 100, 100, 0.13)
    mix = mixture_log_omit_prob(alpha, (100, 0, 0, 100), 0.13)
    np.testing.assert_allclose(9000 * mix, 9000 * nb, atol=1e-8)
    f = MixtureOmitFactor(60, 50, 0.2)
    a = f(alpha, (35, 20, 25, 30))
    b = f(alpha, (25, 30, 35, 20))
    np.testing.assert_array_equal(a, b)


def test_factor_theta_rule_converged_to_the_naive_bayes_bar():
    # 0.05 nats after multiplying by p - k = 10^4: compare with a rule twice as fine
    alpha = np.exp(np.linspace(-4, 12, 17))
    N = (48, 40, 52, 60)
    coarse = MixtureOmitFactor(100, 100, 0.12)(alpha, N)
    fine = MixtureOmitFactor(100, 100, 0.12, n_theta=2 * 114)(alpha, N)
    assert np.max(np.abs(1e4 * (coarse - fine))) < 0.05


def test_factor_matches_simulation_from_the_prior_at_n200():
    # Monte Carlo recipe of spec 7.4 at n = 200: theta ~ U(0, 1), phi_z ~ Beta, binomial counts
    rng = np.random.default_rng(7)
    N = np.array([62, 38, 41, 59])                                      # (n00, n01, n10, n11)
    gamma, n_mc = 0.12, 200_000
    for alpha in (3.0, 300.0):
        theta = rng.random(n_mc)
        phi = rng.beta(alpha * theta, alpha * (1 - theta), size=(2, n_mc))
        I0 = rng.binomial(N[0], phi[0]) + rng.binomial(N[2], phi[1])
        I1 = rng.binomial(N[1], phi[0]) + rng.binomial(N[3], phi[1])
        cor = binary_correlation(I0, I1, N[0] + N[2], N[1] + N[3])
        hit = np.abs(cor) <= gamma * (1 + 1e-12) + 1e-14
        est, se = hit.mean(), hit.std() / np.sqrt(n_mc)
        exact = np.exp(mixture_log_omit_prob(alpha, N, gamma))
        assert abs(exact - est) < 4 * se, (alpha, exact, est, se)


def test_factor_limits_and_caching():
    f = MixtureOmitFactor(100, 100, 0.13)
    # alpha -> 0: phi_0, phi_1 in {0, 1}, so x is constant or marks a component. With z = y
    # that is naive Bayes' limit 2/3 (0.6656 at alpha = 1e-3, spec 4.8); with components that
    # hold y = 0 and y = 1 equally, x is uncorrelated with y and always kept.
    assert np.exp(f(1e-3, (100, 0, 0, 100))) == pytest.approx(0.6656, abs=1e-4)
    assert np.exp(f(1e-6, (50, 50, 50, 50))) == pytest.approx(1.0, abs=1e-4)
    # alpha -> infinity: the null value 2 Phi(gamma sqrt(n)) - 1 ~ 0.934 (spec 4.8)
    assert np.exp(f(1e7, (50, 50, 50, 50))) == pytest.approx(0.93399, abs=2e-3)
    f(5.0, (40, 60, 60, 40))
    built = f.n_kernels_built
    f(7.0, (60, 40, 40, 60))                                            # swapped: cached kernel
    assert f.n_kernels_built == built
    assert f.cache_info()["kernels"] >= 1


@pytest.mark.parametrize("bad,match", [
    ((1, 2, 3), "4 non-negative"), ((-1, 2, 3, 4), "4 non-negative"),
    ((1.5, 2, 3, 4), "4 non-negative"), ((2, 0, 3, 0), "empty"),
])
def test_factor_bad_counts(bad, match):
    with pytest.raises(ValueError, match=match):
        mixture_log_omit_prob(1.0, bad, 0.2)


def test_factor_bad_inputs():
    with pytest.raises(ValueError, match="alpha"):
        mixture_log_omit_prob(-1.0, (2, 2, 2, 2), 0.2)
    with pytest.raises(ValueError, match="threshold"):
        mixture_log_omit_prob(1.0, (2, 2, 2, 2), -0.2)
    f = MixtureOmitFactor(4, 4, 0.2)
    with pytest.raises(ValueError, match="do not match"):
        f(1.0, (2, 2, 2, 3))
    with pytest.raises(ValueError, match="theta_rule"):
        MixtureOmitFactor(4, 4, 0.2, theta_rule="trapezoid")
    with pytest.raises(ValueError, match="n0"):
        MixtureOmitFactor(0, 4, 0.2)


# ---------------------------------------------------------------------------------------------
# sampler invariance: exact enumeration on a tiny problem
# ---------------------------------------------------------------------------------------------
TINY_N_OMITTED, TINY_GAMMA = 25, 0.3


def _tiny_data():
    rng = np.random.default_rng(11)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    X = (rng.random((8, 2)) < np.where(y[:, None] == 1, 0.75, 0.3)).astype(int)
    return X, y


@functools.lru_cache(maxsize=2)
def _exact_summaries(corrected):
    X, y = _tiny_data()
    zs, log_alpha, w = exact_posterior(X, y, TINY_N_OMITTED, TINY_GAMMA, corrected)
    pz = w.sum(1)
    nz1 = zs.sum(1)
    p_nz1 = np.bincount(nz1, weights=pz, minlength=9)
    pa = w.sum(0)
    cdf = np.cumsum(pa)
    # near the quartiles of the exact alpha posterior, at cell boundaries of the midpoint rule
    half = 0.5 * (log_alpha[1] - log_alpha[0])
    idx = [int(np.searchsorted(cdf, q)) for q in (0.25, 0.5, 0.75)]
    cuts = [float(np.exp(log_alpha[i] + half)) for i in idx]
    p_cut = [float(cdf[i]) for i in idx]
    mean_log_alpha = float(pa @ log_alpha)
    return p_nz1, cuts, p_cut, mean_log_alpha


def _compare_to_exact(corrected, z_update="exact", draws=1200, chains=4, seed=5,
                      backend="reference"):
    X, y = _tiny_data()
    p_nz1, cuts, p_cut, mean_la = _exact_summaries(corrected)
    res = sample_mixture(X, y, n_omitted=TINY_N_OMITTED, threshold=TINY_GAMMA,
                         corrected=corrected, z_update=z_update, draws=draws, tune=300,
                         chains=chains, random_state=seed, backend=backend)
    post = res.idata.posterior
    nz1 = post["n_z1"].values.astype(int)
    la = post["log_alpha"].values
    zscores = {}

    def add(name, indicator, exact):
        ind = np.asarray(indicator, dtype=float)
        sd = ind.std()
        if sd == 0:
            zscores[name] = 0.0 if ind.mean() == exact else np.inf
            return
        se = sd / np.sqrt(ess(ind, method="bulk"))
        zscores[name] = (ind.mean() - exact) / se

    # the labels are not identified (the posterior is symmetric under swapping them), and moving
    # between the two mirror images is slow: compare the label-invariant size of the smaller
    # component, min(n_z1, n - n_z1)
    small = np.minimum(nz1, 8 - nz1)
    p_small = p_nz1[:5] + np.r_[p_nz1[8:4:-1], 0.0]
    for m in range(5):
        if p_small[m] > 0.01:
            add(f"P(min size={m})", small == m, p_small[m])
    for c, pc in zip(cuts, p_cut, strict=True):
        add(f"P(alpha<={c:.3g})", np.exp(la) <= c, pc)
    add("E[log alpha]", la, mean_la)
    return zscores, (p_nz1, p_cut, mean_la)


# The hand-written reference sampler against the exact enumeration: ~35 s of Python loops, so
# make slow (with test_sampler_matches_exact_posterior_long). The classifier does not use this
# sampler: its default route (pm.sample with the compiled z and slice steps) is compared with
# the same enumeration in make test by tests/models/test_mixture_pymc.py
# (test_default_route_matches_exact_posterior, corrected and uncorrected).
@pytest.mark.slow
@pytest.mark.parametrize("corrected", [True, False])
def test_sampler_matches_exact_posterior(corrected):
    zscores, _ = _compare_to_exact(corrected)
    worst = max(zscores, key=lambda k: abs(zscores[k]))
    # 9 statistics; |z| < 4.0 each has family-wise false-alarm rate < 1e-3
    assert abs(zscores[worst]) < 4.0, zscores


def test_exact_posteriors_differ_with_and_without_correction():
    # the comparison above has power: the correction moves both the alpha and the z posteriors
    pc, cuts_c, _, mla_c = _exact_summaries(True)
    pu, cuts_u, _, mla_u = _exact_summaries(False)
    assert abs(mla_c - mla_u) > 0.5
    assert np.abs(pc - pu).max() > 0.02


@pytest.mark.slow
def test_approximate_label_update_is_not_the_corrected_posterior():
    # Dropping the factor from the z-updates (predmixcor's approxim=TRUE) changes the stationary
    # distribution; with a long run the exact-enumeration comparison detects it.
    zscores, _ = _compare_to_exact(True, z_update="approximate", draws=20000, seed=9)
    assert max(abs(v) for v in zscores.values()) > 5.0, zscores


@pytest.mark.slow
def test_sampler_matches_exact_posterior_long():
    for corrected in (True, False):
        zscores, _ = _compare_to_exact(corrected, draws=20000, seed=21)
        assert max(abs(v) for v in zscores.values()) < 4.0, zscores


# ---------------------------------------------------------------------------------------------
# predictions and sampler API
# ---------------------------------------------------------------------------------------------
def test_predict_is_ratio_of_averages_against_a_direct_loop():
    rng = np.random.default_rng(3)
    S, k, T = 7, 4, 5
    psi = rng.uniform(0.2, 0.8, S)
    phi = rng.uniform(0.05, 0.95, (S, 2, k + 1))
    X = rng.integers(0, 2, (T, k))
    got = np.exp(predict_log_proba(X, psi, phi, chunk=3))
    for t in range(T):
        joint = np.zeros(2)
        for ystar in (0, 1):
            for s in range(S):
                for zs, pz in ((0, 1 - psi[s]), (1, psi[s])):
                    pr = pz * (phi[s, zs, 0] if ystar else 1 - phi[s, zs, 0])
                    pr *= np.prod(np.where(X[t] == 1, phi[s, zs, 1:], 1 - phi[s, zs, 1:]))
                    joint[ystar] += pr / S
        np.testing.assert_allclose(got[t], joint / joint.sum(), rtol=1e-10)


def test_sample_mixture_output_structure():
    from selbayes.evaluation import check

    X, y = _tiny_data()
    res = sample_mixture(X, y, n_omitted=10, threshold=0.3, draws=30, tune=10, chains=2,
                         random_state=1)
    post = res.idata.posterior
    assert post["alpha"].dims == ("chain", "draw")
    assert post["alpha"].shape == (2, 30)
    assert post["counts"].shape == (2, 30, 4)
    assert np.all(post["counts"].sum("zy") == 8)
    assert res.phi_hat.shape == (2, 30, 2, 3)
    assert res.psi_hat.shape == (2, 30)
    assert np.all((res.phi_hat > 0) & (res.phi_hat < 1))
    table = check(res.idata, var_names=["alpha", "alpha0"], warn=False)
    assert set(table["variable"]) == {"alpha", "alpha0"}
    again = sample_mixture(X, y, n_omitted=10, threshold=0.3, draws=30, tune=10, chains=2,
                           random_state=1)
    np.testing.assert_array_equal(post["alpha"].values, again.idata.posterior["alpha"].values)


@pytest.mark.parametrize("kwargs,err,match", [
    ({"z_update": "fast"}, ValueError, "z_update"),
    ({"threshold": None}, ValueError, "threshold"),
    ({"n_omitted": -1}, ValueError, "n_omitted"),
    ({"draws": 0}, ValueError, "draws"),
    ({"prior": {"a": -1}}, ValueError, "MixturePrior.alpha_shape"),
    ({"prior": {"q": 1}}, ValueError, "unknown prior"),
])
def test_sample_mixture_bad_inputs(kwargs, err, match):
    X, y = _tiny_data()
    args = {"n_omitted": 10, "threshold": 0.3, "draws": 5, "tune": 0, "chains": 1}
    args.update(kwargs)
    with pytest.raises(err, match=match):
        sample_mixture(X, y, **args)


def test_sample_mixture_bad_data():
    X, y = _tiny_data()
    with pytest.raises(ValueError, match="both classes"):
        sample_mixture(X, np.zeros(8, int), n_omitted=1, threshold=0.3)
    with pytest.raises(ValueError, match="only 0 and 1"):
        sample_mixture(X + 1, y, n_omitted=1, threshold=0.3)
    with pytest.raises(ValueError, match="one row per case"):
        sample_mixture(X[:5], y, n_omitted=1, threshold=0.3)


# ---------------------------------------------------------------------------------------------
# estimator
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fitted():
    from selbayes.datasets import binary_mixture
    from selbayes.estimators import BinaryMixtureClassifier

    d = binary_mixture(None, 300, class_counts=np.array([40, 40]), random_state=4)
    labels = np.array(["normal", "tumour"])[d.y]
    clf = BinaryMixtureClassifier(k=5, draws=40, tune=20, chains=2, random_state=2)
    with pytest.warns(Warning):  # short chains: the convergence check warns
        clf.fit(d.X[:60], labels[:60])
    return clf, d, labels


def test_classifier_fit_predict(fitted):
    clf, d, labels = fitted
    assert list(clf.classes_) == ["normal", "tumour"]
    assert clf.selection_.n_selected == 5 and clf.n_features_in_ == 300
    proba = clf.predict_proba(d.X[60:])
    assert proba.shape == (20, 2)
    np.testing.assert_allclose(proba.sum(1), 1.0, atol=1e-12)
    # columns in classes_ order: column 1 is the model's y = 1 ("tumour")
    direct = np.exp(predict_log_proba(d.X[60:, clf.selection_.indices], clf.psi_hat_,
                                      clf.phi_hat_))
    np.testing.assert_allclose(proba, direct)
    assert set(clf.predict(d.X[60:])) <= {"normal", "tumour"}
    # a loss that makes "tumour" 100x costlier to miss turns every call into "tumour"
    pred = clf.predict(d.X[60:], loss=[[0, 1e-3], [1e3, 0]])
    assert np.all(pred == "tumour")
    assert clf.idata_.attrs["selbayes_estimator"] == "BinaryMixtureClassifier"
    assert "constant_data" in clf.idata_.children


def test_classifier_save_load_roundtrip(fitted, tmp_path):
    from selbayes.estimators import BinaryMixtureClassifier

    clf, d, _ = fitted
    path = clf.save(tmp_path / "mix.nc")
    back = BinaryMixtureClassifier.load(path)
    np.testing.assert_allclose(back.predict_proba(d.X[60:]), clf.predict_proba(d.X[60:]))
    # the settings as given come back (the prior as given, the sampling settings the model
    # id leaves out); the model is the one its resolved prior names
    assert back._prior() == clf._prior()
    assert back.get_params() == clf.get_params()
    import xarray as xr

    tree = xr.open_datatree(path, engine="h5netcdf").load()
    tree.attrs["selbayes_model_id"] = "0" * 16
    tree.to_netcdf(tmp_path / "bad.nc", engine="h5netcdf")
    with pytest.raises(ValueError, match="model id"):
        BinaryMixtureClassifier.load(tmp_path / "bad.nc")
    # an edit of a setting outside the model id (how the posterior was sampled) is refused
    # by the settings' own hash
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    given = json.loads(tree.attrs["selbayes_params"])
    given["algorithm"] = "bogus"
    tree.attrs["selbayes_params"] = json.dumps(given)
    tree.to_netcdf(tmp_path / "edited.nc", engine="h5netcdf")
    with pytest.raises(ValueError, match="the file's settings were altered"):
        BinaryMixtureClassifier.load(tmp_path / "edited.nc")


def test_classifier_bad_inputs(fitted):
    from sklearn.exceptions import NotFittedError

    from selbayes.estimators import BinaryMixtureClassifier

    clf, d, labels = fitted
    with pytest.raises(ValueError, match="features"):
        clf.predict_proba(d.X[60:, :10])
    with pytest.raises(ValueError, match="binary"):
        clf.predict_proba(d.X[60:] * 2)
    with pytest.raises(NotFittedError):
        BinaryMixtureClassifier().predict(d.X)
    with pytest.raises(ValueError, match="n_components"):
        BinaryMixtureClassifier(n_components=3).fit(d.X[:60], labels[:60])
    with pytest.raises(ValueError, match="2 classes"):
        BinaryMixtureClassifier(k=2).fit(d.X[:60], np.arange(60) % 3)
    with pytest.raises(ValueError, match="binary"):
        BinaryMixtureClassifier(k=2).fit(d.X[:60] + 0.5, labels[:60])


@pytest.mark.parametrize("z, y", [([0], [2]), ([0, 1], [0, -1]), ([0.5], [1]), ([3], [0])])
def test_mixture_counts_rejects_labels_other_than_0_1(z, y):
    # y = 2 once landed in the (z = 1, y = 0) cell of bincount(2 z + y)
    with pytest.raises(ValueError, match="only 0 and 1"):
        mixture_counts(np.array(z), np.array(y))


def test_mixture_prior_names_a_non_numeric_value():
    # the old short name "a" is an alias; the message names the field it maps to
    with pytest.raises(ValueError,
                       match=r"MixturePrior.alpha_shape must be a finite number > 0; got 'x'"):
        MixturePrior.from_dict({"a": "x"})
