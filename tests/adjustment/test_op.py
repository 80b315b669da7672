"""The selection-adjustment Op family (selbayes.adjustment._base and its subclasses).

Each Op (FStatAdjustment with methods table / mc / exact, CorrAdjustment table / exact,
MixtureAdjustment) is checked against an independent reference (the accurate numpy functions,
the old pytensor expression of the table written out here), its gradient against finite
differences (verify_grad) below, across and above the table, its numba implementation (NUMBA mode
with warnings as errors: no object-mode fallback) and its JAX implementation against perform.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.gradient import verify_grad

from selbayes.adjustment import (
    CorrAdjustment,
    CorrOmitLogProb,
    FStatAdjustment,
    FStatOmitLogProb,
    MixtureAdjustment,
    MixtureOmitFactor,
    SelectionAdjustment,
    corr_log_omit_prob,
    corr_parameters,
    fstat_log_omit_prob,
    fstat_parameters,
    mc_standard_error,
    mixture_log_omit_prob,
    mixture_parameters,
)

COUNTS = np.array([34, 34, 33, 33, 33, 33])          # Li 2009's simulation design (n = 200)
GAMMA, ALPHA_X = 3.15, 4.0
TABLE = FStatOmitLogProb(COUNTS, threshold=GAMMA, alpha_x=ALPHA_X)
# Points below the table, across it and above it (table range (-30, log(200) + 30)).
F_POINTS = np.array([-45.0, -31.0, -12.3, 0.0, 2.7, 9.1, 34.0, 40.0, 60.0])
# The paper's estimator is meant for tau_mu w_x of order 1 and above (x = 0 .. 9).
MC_POINTS = np.array([0.0, 2.0, np.log(20.0), np.log(100.0), 9.0])
CORR = (9, 11, 0.3)
# Corr table range (-12, 18).
C_POINTS = np.array([-20.0, -12.5, -3.0, 0.0, 2.0, 10.0, 18.5, 25.0])
M_COUNTS = np.array([3, 1, 1, 3])
M_POINTS = np.array([-10.0, -2.0, 0.0, np.log(2.0), 3.0, 10.0])


def _cases():
    """(id, op, params, x points, extra inputs before params) for every Op and method."""
    cases = []
    for method, pts in (("table", F_POINTS), ("exact", F_POINTS), ("mc", MC_POINTS)):
        op, params = fstat_parameters(COUNTS, GAMMA, ALPHA_X, method=method)
        cases.append((f"fstat-{method}", op, list(params.values()), pts))
    for method in ("table", "exact"):
        op, params = corr_parameters(*CORR, method=method)
        cases.append((f"corr-{method}", op, list(params.values()), C_POINTS))
    op, params = mixture_parameters(4, 4, 0.3)
    cases.append(("mixture", op, [M_COUNTS, *params.values()], M_POINTS))
    return cases


CASES = _cases()
IDS = [c[0] for c in CASES]


def _function(op, params, mode):
    x = pt.dvector("x")
    out = op(x, *[pt.constant(p) for p in params])
    return pytensor.function([x], [out, pytensor.grad(out.sum(), x)], mode=mode)


def _table_expression(coef, edges, spacing, x):
    """The table and its tails as ordinary pytensor operations (the pre-Op implementation,
    written independently of the Op's code): the reference for method "table"."""
    x_lo, x_hi, l_lo, dl_lo, r_lo, l_hi, dl_hi, r_hi = (float(v) for v in edges)
    xi = pt.clip(x, x_lo, x_hi)
    pos = (xi - x_lo) / spacing
    fl = pt.clip(pt.floor(pos), 0.0, coef.shape[1] - 1.0)
    t = pos - fl
    idx = pt.cast(fl, "int64")
    c = pt.constant(coef)
    mid = c[5][idx]
    for j in range(4, -1, -1):
        mid = mid * t + c[j][idx]

    def tail(d, l0, dl, r):
        return l0 + dl * d if r == 0 else l0 + dl * (pt.exp(r * d) - 1.0) / r

    low = tail(pt.minimum(x - x_lo, 0.0), l_lo, dl_lo, r_lo)
    up = tail(pt.maximum(x - x_hi, 0.0), l_hi, dl_hi, r_hi)
    return pt.switch(pt.lt(x, x_lo), low, pt.switch(pt.gt(x, x_hi), up, mid))


@pytest.mark.parametrize("table, points", [(TABLE, F_POINTS), (CorrOmitLogProb(*CORR), C_POINTS)],
                         ids=["fstat", "corr"])
def test_table_method_matches_independent_expression(table, points):
    params = table.spline_parameters()
    x = pt.dvector("x")
    ref = _table_expression(params["coef"], params["edges"], table.spacing, x)
    f_ref = pytensor.function([x], [ref, pytensor.grad(ref.sum(), x)], mode="FAST_COMPILE")
    out = table(x)
    assert isinstance(out.owner.op, SelectionAdjustment)
    f = pytensor.function([x], [out, pytensor.grad(out.sum(), x)], mode="FAST_COMPILE")
    for got, want in zip(f(points), f_ref(points), strict=True):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)


def test_readable_names():
    assert str(TABLE(np.zeros(2)).owner.op) == "FStatAdjustment{G=6, gamma=3.15}"
    assert str(fstat_parameters(COUNTS, GAMMA, ALPHA_X, method="mc")[0]) == \
        "FStatAdjustment{G=6, gamma=3.15, method=mc}"
    assert str(corr_parameters(*CORR)[0]) == "CorrAdjustment{n0=9, n1=11, gamma=0.3}"
    assert str(mixture_parameters(4, 4, 0.3)[0]) == "MixtureAdjustment{n0=4, n1=4, gamma=0.3}"
    assert str(FStatAdjustment("table", 0.1)) == "FStatAdjustment{spacing=0.1}"
    assert str(CorrAdjustment("table", 0.1, True)) == "CorrAdjustmentGrad{spacing=0.1}"
    with pytest.raises(ValueError, match="method must be one of"):
        CorrAdjustment("mc", 0.1)
    with pytest.raises(TypeError, match="takes x and 2 inputs"):
        FStatAdjustment("table", 0.1)(np.zeros(2), np.zeros((6, 3)))


def test_exact_methods_match_the_accurate_functions():
    """"exact" inside the Ops against the package's reference functions (independent code:
    ExactTable.evaluate for F, the vectorised quadrature for |COR|, the cached factor for the
    mixture)."""
    inside = F_POINTS[(F_POINTS > TABLE.table_range[0]) & (F_POINTS < TABLE.table_range[1])]
    op, params = fstat_parameters(COUNTS, GAMMA, ALPHA_X, method="exact")
    f = _function(op, list(params.values()), "FAST_COMPILE")
    val, der = f(inside)
    np.testing.assert_allclose(val, fstat_log_omit_prob(inside, COUNTS, GAMMA, ALPHA_X),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(der, TABLE.evaluate(inside, derivative=True)[1], rtol=0,
                               atol=1e-9)   # the table's own derivative error bound

    op, params = corr_parameters(*CORR, method="exact")
    val, der = _function(op, list(params.values()), "FAST_COMPILE")(C_POINTS)
    ref, dref = corr_log_omit_prob(np.exp(C_POINTS), *CORR, return_grad=True)
    np.testing.assert_allclose(val, ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(der, dref, rtol=0, atol=1e-14)

    op, params = mixture_parameters(6, 5, 0.25)
    factor = MixtureOmitFactor(6, 5, 0.25)
    x, c = pt.dvector("x"), pt.lvector("c")
    out = op(x, c, *[pt.constant(p) for p in params.values()])
    f = pytensor.function([x, c], out, mode="FAST_COMPILE")
    for counts in ([6, 5, 0, 0], [2, 3, 4, 2], [0, 5, 6, 0], [3, 0, 3, 5]):
        np.testing.assert_allclose(f(M_POINTS, counts), factor(np.exp(M_POINTS), counts),
                                   rtol=0, atol=1e-13)
    np.testing.assert_allclose(f(M_POINTS, [2, 3, 4, 2]),
                               mixture_log_omit_prob(np.exp(M_POINTS), (2, 3, 4, 2), 0.25),
                               rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="counts"):
        f(M_POINTS, [3, 1, 1, 3])                       # another design's counts


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_verify_grad(case):
    _, op, params, points = case
    consts = [pt.constant(p) for p in params]
    # One vector of points: verify_grad perturbs each element, so every point is checked.
    verify_grad(lambda x: op(x, *consts), [np.array(points)], rng=np.random.default_rng(0),
                abs_tol=1e-6, rel_tol=1e-5, mode="FAST_COMPILE")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_numba_mode_without_object_mode(case):
    _, op, params, points = case
    ref = _function(op, params, "FAST_COMPILE")(points)          # NumPy perform
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an object-mode fallback warns
        got = _function(op, params, "NUMBA")(points)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)


# far outside any posterior, but reachable by a wild proposal early in tuning
EXTREME = np.array([-np.inf, -800.0, -746.0, -709.0, 709.0, 710.0, 800.0, np.inf, np.nan])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_backends_agree_at_extreme_points(case):
    """Where exp(x) under- or overflows, and at +-inf and NaN: the lattice Ops' numba code
    divided by alpha = 0 below x = -745 (ZeroDivisionError, which would end sampling), their
    NumPy derivative was NaN past +-709 while the value was finite, and the NumPy table's
    value raised IndexError at NaN and its derivative was NaN at -inf; the Monte Carlo F
    factor's Poisson means overflowed (value and slope NaN below x = -745 and at +inf; this
    case was left out of the test until 2026-12-08). Every backend now
    gives the same numbers there, finite except at NaN (and the F factor's log 0 at
    tau_mu w_x = 0, x = -inf)."""
    name, op, params, _ = case
    ref = _function(op, params, "FAST_COMPILE")(EXTREME)
    got = _function(op, params, "NUMBA")(EXTREME)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12, equal_nan=True)
    value, slope = ref
    inner = ~np.isnan(EXTREME) & ~(np.isneginf(EXTREME) & name.startswith("fstat"))
    assert np.isfinite(value[inner]).all() and np.isfinite(slope[~np.isnan(EXTREME)]).all()
    assert np.isnan(value[-1]) and np.isnan(slope[-1])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cvm_backend_agrees(case):
    """PyMC's default backend: the table's C code, the other methods' NumPy perform."""
    _, op, params, points = case
    ref = _function(op, params, "FAST_COMPILE")(points)
    got = _function(op, params, "CVM")(points)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_jax_backend_agrees(case):
    pytest.importorskip("jax")
    import jax

    jax.config.update("jax_enable_x64", True)
    _, op, params, points = case
    ref = _function(op, params, "FAST_COMPILE")(points)
    got = _function(op, params, "JAX")(points)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(np.asarray(g), r, rtol=1e-10, atol=1e-10)


def test_mixture_op_with_z_counts_equals_corr_when_components_are_classes():
    """Counts (n0, 0, 0, n1) (z = y) give the naive Bayes factor: two Ops, one number."""
    op_m, pm_ = mixture_parameters(*CORR)
    op_c, pc = corr_parameters(*CORR, method="table")
    x = pt.dvector("x")
    fm = pytensor.function([x], op_m(x, np.array([9, 0, 0, 11]), *pm_.values()))
    fc = pytensor.function([x], op_c(x, *pc.values()))
    inside = C_POINTS[(C_POINTS > -12) & (C_POINTS < 18)]
    np.testing.assert_allclose(fm(inside), fc(inside), rtol=0, atol=1e-9)


# ------------------------------------------------------------------------------ Monte Carlo
def test_mc_method_is_the_papers_recipe_on_the_same_draws():
    """The Op's "mc" equals fstat_log_omit_prob(method="mc") with the same seed (same pool)."""
    op, params = fstat_parameters(COUNTS, GAMMA, ALPHA_X, method="mc", n_draws=400,
                                  random_state=7)
    val, _ = _function(op, list(params.values()), "FAST_COMPILE")(MC_POINTS)
    ref = fstat_log_omit_prob(MC_POINTS, COUNTS, GAMMA, ALPHA_X, method="mc", n_draws=400,
                              seed=7)
    np.testing.assert_allclose(val, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mc_agrees_with_exact_within_its_monte_carlo_error(seed):
    """|mc - exact| < 4 se at each point, with se the delta-method standard error of the log of
    a mean of n_draws iid terms, computed from the draws themselves.

    This bound can fail only if se is not inflated: that se matches the estimate's actual
    spread over seeds is checked against an se-free reference in
    test_mc_standard_error_matches_the_spread_over_seeds (which rejects an se 31.6x too
    large). A shift of the estimate by 10 such se would then fail |z| < 4."""
    op, params = fstat_parameters(COUNTS, GAMMA, ALPHA_X, method="mc", n_draws=1000,
                                  random_state=seed)
    mc, _ = _function(op, list(params.values()), "FAST_COMPILE")(MC_POINTS)
    exact = fstat_log_omit_prob(MC_POINTS, COUNTS, GAMMA, ALPHA_X)
    se = mc_standard_error(params, MC_POINTS)
    assert np.all(se > 0) and np.all(np.isfinite(se))
    z = (mc - exact) / se
    assert np.all(np.abs(z) < 4), z


def test_mc_standard_error_matches_the_spread_over_seeds():
    """mc_standard_error against an independent reference: the empirical sd of the Op's "mc"
    estimate over R = 40 independent pools (seeds), at each of the MC_POINTS.

    (1) emp / median(se) lies in the chi-square band of a sample sd with R - 1 df: under a
    correct se, (R-1) emp^2 / sd^2 ~ chi2(R-1) (the estimate is a log of a mean of 1000 iid
    terms, close to normal). The median se stands in for sd: its own seed-to-seed noise
    (relative sd of se <= 0.11 per seed, so ~0.02 for the median of 40) is small against the
    band. (2) The z values (mc - exact) / se fall within the central 50% normal interval
    (|z| < 0.674) with probability 1/2, so their count per point is Binomial(40, 1/2). The
    95% interval's count would not do: an inflated se puts all 40 inside, and 0.95^40 = 0.13.
    Both checks are at a two-sided 0.001 level per family, Bonferroni over the 5 points."""
    from scipy import stats

    R, n_draws = 40, 1000
    op, params = fstat_parameters(COUNTS, GAMMA, ALPHA_X, method="mc", n_draws=n_draws,
                                  random_state=69910)
    x = pt.dvector("x")
    ins = [pt.tensor(name=k, dtype=v.dtype, shape=(None,) * v.ndim) for k, v in params.items()]
    f = pytensor.function([x, *ins], op(x, *ins), mode="FAST_COMPILE")
    mc, se = np.empty((R, MC_POINTS.size)), np.empty((R, MC_POINTS.size))
    for r in range(R):
        _, params = fstat_parameters(COUNTS, GAMMA, ALPHA_X, method="mc", n_draws=n_draws,
                                     random_state=69910 + r)
        mc[r] = f(MC_POINTS, *params.values())
        se[r] = mc_standard_error(params, MC_POINTS)
    exact = fstat_log_omit_prob(MC_POINTS, COUNTS, GAMMA, ALPHA_X)

    alpha = 0.001 / MC_POINTS.size               # two-sided 0.001 per family, Bonferroni
    lo, hi = np.sqrt(stats.chi2.ppf([alpha / 2, 1 - alpha / 2], R - 1) / (R - 1))  # ~0.61, 1.44
    ratio = mc.std(axis=0, ddof=1) / np.median(se, axis=0)
    assert np.all((ratio > lo) & (ratio < hi)), (ratio, lo, hi)

    inside = (np.abs((mc - exact) / se) < stats.norm.ppf(0.75)).sum(axis=0)
    # Binomial(40, 1/2) quantiles at alpha/2 and 1 - alpha/2: 9 and 31.
    k_lo, k_hi = stats.binom.ppf(alpha / 2, R, 0.5), stats.binom.isf(alpha / 2, R, 0.5)
    assert np.all((inside >= k_lo) & (inside <= k_hi)), (inside, k_lo, k_hi)


def test_mc_error_matches_the_spec_at_1000_draws():
    """Spec (Li 2009 design, p - k = 3800, 1000 draws): the pool mis-states the log factor
    relative to tau_mu = 100 by 3 to 8 nats at tau_mu = 67..150 and by 45 to 75 nats at
    tau_mu = 20, depending on the seed. Over 8 seeds, the median error must be of that size
    (within a factor of 3 either way) and, at tau_mu = 20, clearly larger than at 67..150."""
    x = np.log([20.0, 67.0, 150.0, 100.0])
    exact = fstat_log_omit_prob(x, COUNTS, GAMMA, ALPHA_X)
    errs = []
    for seed in range(8):
        op, params = fstat_parameters(COUNTS, GAMMA, ALPHA_X, method="mc", n_draws=1000,
                                      random_state=seed)
        mc, _ = _function(op, list(params.values()), "FAST_COMPILE")(x)
        errs.append(3800 * np.abs((mc[:3] - mc[3]) - (exact[:3] - exact[3])))
    med = np.median(np.array(errs), axis=0)
    assert 45 / 3 < med[0] < 75 * 3, med
    assert 3 / 3 < max(med[1], med[2]) < 8 * 3, med
    assert med[0] > 3 * max(med[1], med[2])


# ------------------------------------------------------------------------ the models' graphs
def _op_instances(var):
    from pytensor.graph.traversal import ancestors

    return [v.owner.op for v in ancestors([var]) if v.owner is not None
            and isinstance(v.owner.op, SelectionAdjustment)]


def _mocked_fit(clf, X, y):
    from pymc.testing import mock_sample_setup_and_teardown

    # The model's structure is the point, not its draws: PyMC's mocked sampling skips the
    # compile and the MCMC run.
    gen = mock_sample_setup_and_teardown()
    next(gen)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return clf.fit(X, y)
    finally:
        next(gen, None)


def test_gaussian_fit_model_contains_the_op():
    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 15)
    X = rng.normal(size=(45, 60)) + 0.8 * (y[:, None] == np.arange(3)[None, :]).repeat(20, 1)
    clf = _mocked_fit(HierarchicalGaussianClassifier(k=3, draws=10, tune=10, chains=1,
                                                     sampler="pymc", random_state=0,
                                                     progressbar=False), X, y)
    ops = _op_instances(clf.model_["selection_adjustment"])
    assert any(isinstance(op, FStatAdjustment) and not op.derivative for op in ops)
    assert "FStatAdjustment" in pytensor.printing.debugprint(clf.model_["selection_adjustment"],
                                                             file="str")


def test_naive_bayes_fit_model_contains_the_op():
    from selbayes import BinaryNaiveBayesClassifier

    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 15)
    X = (rng.random((30, 40)) < 0.3 + 0.4 * y[:, None] * (np.arange(40) < 5)).astype(int)
    clf = _mocked_fit(BinaryNaiveBayesClassifier(k=4, method="mcmc", sampler="pymc", draws=10,
                                                 tune=10, chains=1, random_state=0,
                                                 progressbar=False), X, y)
    ops = _op_instances(clf.model_["selection_adjustment"])
    assert any(isinstance(op, CorrAdjustment) and not op.derivative for op in ops)


def test_mixture_model_contains_the_op_and_has_a_gradient_in_alpha():
    from selbayes.models import build_mixture_model

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 6)
    X = rng.integers(0, 2, size=(12, 3))
    factor = MixtureOmitFactor(6, 6, 0.4)
    model = build_mixture_model(X, y, n_omitted=50, factor=factor)
    pot = model["selection_adjustment"]
    assert any(isinstance(op, MixtureAdjustment) for op in _op_instances(pot))
    # Its value and its gradient in log alpha, against the factor the z step uses.
    point = model.initial_point()
    point["z"] = (np.arange(12) % 3 == 0).astype(point["z"].dtype)
    (pot_v,) = model.replace_rvs_by_values([pot])
    log_alpha = model.rvs_to_values[model["alpha"]]                  # alpha_log__
    inputs = [model.rvs_to_values[model["alpha"]], model.rvs_to_values[model["z"]]]
    f = pytensor.function(inputs, [pot_v, pytensor.grad(pot_v, log_alpha)],
                          on_unused_input="ignore", mode="FAST_COMPILE")
    val, dval = f(point["alpha_log__"], point["z"])
    alpha = np.exp(point["alpha_log__"])
    z = point["z"].astype(int)
    N = np.bincount(2 * z + y, minlength=4)
    assert np.isclose(val, 50 * factor.log_keep(alpha, *map(int, N)), rtol=0, atol=1e-10)
    h = 1e-6
    fd = 50 * (factor.log_keep(alpha * np.exp(h), *map(int, N))
               - factor.log_keep(alpha * np.exp(-h), *map(int, N))) / (2 * h)
    assert np.isclose(dval, fd, rtol=1e-5, atol=1e-8)


def test_gaussian_model_adjustment_methods_agree():
    """build_model(adjustment_method=...): the table and the exact convolution give the same
    log density (to the table's accuracy times p - k); the paper's Monte Carlo differs by no
    more than its derived MC error."""
    import selbayes
    from selbayes.models import build_model

    rng = np.random.default_rng(4)
    y = np.repeat([0, 1, 2], 12)
    X = rng.normal(size=(36, 80))
    sel = selbayes.select_features(X, y, k=4)
    logps = {}
    for method in ("table", "exact", "mc"):
        model = build_model(X[:, sel.indices], y, sel, adjustment_method=method)
        ops = _op_instances(model["selection_adjustment"])
        assert [op.method for op in ops] == [method]
        point = model.initial_point()
        point["tau_mu_log__"] = np.log(50.0)
        logps[method] = model.compile_logp(mode="FAST_COMPILE")(point)
    n_omit = sel.n_omitted
    assert abs(logps["table"] - logps["exact"]) < n_omit * 1e-9
    counts = np.bincount(y)
    # The model's pool (alpha_x = 4, seed 0, 1000 draws); x = log(tau_mu w_x), w_x = 1.
    _, params = fstat_parameters(counts, sel.threshold, 4.0, method="mc")
    # se is checked against the spread over seeds in
    # test_mc_standard_error_matches_the_spread_over_seeds, so 4 se is a real bound.
    se = mc_standard_error(params, np.log(50.0))
    assert abs(logps["mc"] - logps["exact"]) < 4 * n_omit * se


def test_mixture_op_memo_returns_fresh_equal_values_and_stays_bounded():
    # The Op remembers recent lattice evaluations (blocked samplers re-evaluate the density
    # with alpha and z unchanged). A remembered value must equal a fresh evaluation, must not
    # be shared with the caller (a caller writing into its output cannot change later
    # results), and the memo must not grow without bound.
    from selbayes.adjustment import _base as op_module

    op, params = mixture_parameters(6, 6, 0.30)
    x, counts = pt.dvector("x"), pt.lvector("counts")
    f = pytensor.function([x, counts], op(x, counts, *params.values()), mode="FAST_COMPILE")
    xs, n = np.array([-1.0, 0.5, 3.0]), np.array([4, 2, 1, 5])
    op_module._RECENT.clear()
    first = f(xs, n).copy()
    again = f(xs, n)
    assert len(op_module._RECENT) >= 1
    np.testing.assert_array_equal(again, first)
    again[:] = 123.0                                   # the caller scribbles on its output
    np.testing.assert_array_equal(f(xs, n), first)
    size, op_module._RECENT_SIZE = op_module._RECENT_SIZE, 0
    try:
        op_module._RECENT.clear()
        np.testing.assert_array_equal(f(xs, n), first)  # fresh evaluation, same value
        assert not op_module._RECENT
    finally:
        op_module._RECENT_SIZE = size
    for v in np.linspace(-2, 2, 3 * size):
        f(np.array([v]), n)
    assert len(op_module._RECENT) <= size
    # another design's counts give another value, not the remembered one
    assert not np.allclose(f(xs, np.array([3, 3, 3, 3])), first)


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("call, exc, match", [
    (lambda: FStatOmitLogProb([10, 10], 2.0, 4.0, spacing=True), TypeError, "spacing"),
    (lambda: FStatOmitLogProb([10, 10], 2.0, 4.0, spacing="0.1"), TypeError, "spacing"),
    (lambda: FStatOmitLogProb([10, 10], 2.0, 4.0, spacing=2.0), ValueError, "spacing"),
    (lambda: FStatOmitLogProb([10, 10], 2.0, 4.0, table_range=(1,)), TypeError, "table_range"),
    (lambda: FStatOmitLogProb([10, 10], 2.0, 4.0, table_range="ab"), TypeError, "table_range"),
    (lambda: FStatOmitLogProb([10, 10], 2.0, 4.0, table_range=(True, 5)), TypeError,
     "table_range"),
    (lambda: FStatOmitLogProb([10, 10], 2.0, 4.0, table_range=(5, 1)), ValueError,
     "table_range"),
    (lambda: fstat_parameters([10, 10], 2.0, 4.0, spacing=True), TypeError, "spacing"),
    (lambda: fstat_parameters([10, 10], 2.0, 4.0, label="yes"), TypeError, "label"),
    (lambda: fstat_parameters([10, 10], 2.0, 4.0, method="mc", random_state=-1), ValueError,
     "random_state must be None, an int >= 0"),
    (lambda: fstat_parameters([10, 10], 2.0, 4.0, method="mc", random_state=True), TypeError,
     "random_state"),
    (lambda: fstat_parameters([10, 10], 2.0, 4.0, method="mc", mc_cutoff=1.5), ValueError,
     r"mc_cutoff must be in \[0, 1\)"),
    (lambda: mc_standard_error(fstat_parameters([10, 10], 2.0, 4.0)[1], [0.0]), ValueError,
     "op_params must be the params of fstat_parameters"),
    (lambda: mc_standard_error(5, [0.0]), ValueError, "op_params"),
    (lambda: mc_standard_error(fstat_parameters([10, 10], 2.0, 4.0, method="mc",
                                                n_draws=50)[1], np.nan), ValueError,
     "log_scale contains NaN"),
    (lambda: CorrOmitLogProb(5, 5, 0.5, spacing=True), TypeError, "spacing"),
    (lambda: CorrOmitLogProb(5, 5, 0.5, table_range=(True, 5)), TypeError, "table_range"),
    (lambda: corr_parameters(5, 5, 0.5, spacing="x"), TypeError, "spacing"),
    (lambda: corr_parameters(5, 5, 0.5, spacing=True), TypeError, "spacing"),
    (lambda: FStatAdjustment("table", "x"), TypeError, "spacing must be a number"),
    (lambda: CorrAdjustment("table", True), TypeError, "spacing must be a number"),
    (lambda: MixtureOmitFactor(5, 5, 0.5, kernel_cache=-1), ValueError, "kernel_cache"),
    (lambda: MixtureOmitFactor(5, 5, 0.5, value_cache=1.5), ValueError, "value_cache"),
    (lambda: MixtureOmitFactor(5, 5, 0.5, value_cache="5"), ValueError, "value_cache"),
    (lambda: mixture_log_omit_prob(True, (3, 3, 3, 3), 0.5), TypeError, "alpha"),
    (lambda: mixture_log_omit_prob(1.0, (3, 3, 3, 3), True), TypeError, "threshold"),
    (lambda: mixture_log_omit_prob(1.0, (3, 3, 3, 3), "0.5"), TypeError, "threshold"),
    (lambda: mixture_log_omit_prob(1.0, (3, 3, 3, 3), 0.5, n_theta="5"), ValueError,
     "n_theta must be an integer >= 2"),
    (lambda: mixture_parameters(5, 5, "0.5"), TypeError, "threshold"),
])
def test_adjustment_builders_name_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
