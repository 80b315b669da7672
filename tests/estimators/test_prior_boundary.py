"""Warnings from fit when the posterior sits against a prior (or a grid) it cannot leave (issue 19;
the checks themselves: tests/evaluation/test_prior_checks.py)."""

import warnings

import numpy as np
import pytest

from selbayes.estimators._k_choice import KChoice, grid_end_messages
from selbayes.evaluation import GridBoundaryWarning, PriorBoundaryWarning
from tests.estimators._data import two_class_gaussian


def _fast(**kw):
    from selbayes import HierarchicalGaussianClassifier

    base = dict(draws=200, tune=200, chains=1, random_state=0, progressbar=False)
    return HierarchicalGaussianClassifier(**{**base, **kw})


def _other_units():
    # the check is of tau_x, whatever the effect prior; the normal one's model at this shape is
    # compiled for other tests (tests/estimators/test_inner_cv.py), so no compilation of its own
    return _fast(k=4, temperature=1.0, standardize=False, effect_prior="normal")


def test_fit_in_other_units_than_the_prior_warns_at_the_users_line():
    """X in thousands of the prior's units, not standardised: the Gamma(2, rate 2) prior of
    tau_x cannot reach the data's precision (~1e-6), and only this check says so."""
    X, y = two_class_gaussian(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = _other_units().fit(1000.0 * X, y)
    ours = [w for w in caught if issubclass(w.category, PriorBoundaryWarning)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    msg = str(ours[0].message)
    assert ours[0].filename == __file__
    assert "tau_x" in msg and "4 of 4 features" in msg and "standardize=True" in msg
    assert clf.prior_checks_.query("variable == 'tau_x'")["held"].all()


def test_x_in_thousandths_still_warns_although_selection_is_allowed_for():
    """The allowance for selection (the best of p features may have a large tau_x) must not hide
    data in far smaller units than the prior assumes: tau_x near 1e6."""
    X, y = two_class_gaussian(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = _other_units().fit(X / 1000.0, y)
    msgs = [str(w.message) for w in caught if issubclass(w.category, PriorBoundaryWarning)]
    assert any("tau_x" in m and "largest of 120 draws" in m for m in msgs), msgs
    tab = clf.prior_checks_.query("variable == 'tau_x'")
    assert tab["held"].all() and (tab["n_from"] == 120).all()


def test_a_default_fit_does_not_warn():
    X, y = two_class_gaussian(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # k = 10: a model compiled for other tests too (tests/evaluation/test_ppc.py)
        clf = _fast(k=10, temperature=1.0).fit(1000.0 * X, y)
    assert not [w for w in caught if issubclass(w.category, PriorBoundaryWarning)]
    assert not clf.prior_checks_["held"].any()


def _choice(k, T, falling=True, ks=(5, 10, 20), ts=(1.0, 2.0, 5.0)):
    """Every other candidate has the same case losses B; the chosen one has B - 0.3 (a curve
    that falls at the chosen end: far more than a paired SE) or B + e with e = +-0.05
    alternating, mean -0.001 (better on average, but well within one paired SE: flat)."""
    grid = [(a, None, t) for a in ks for t in ts]
    base = 1.0 + 0.1 * np.random.default_rng(0).normal(size=30)
    L = np.tile(base, (len(grid), 1))
    e = np.where(np.arange(30) % 2 == 0, 0.05, -0.05) - 0.001
    L[grid.index((k, None, T))] = base - 0.3 if falling else base + e
    return KChoice(k=k, decorrelate=None, temperature=T, grid=grid,
                   score=L.mean(1), se=np.ones(len(grid)), criterion="x", n_splits=5,
                   extra={"case_losses": L})


@pytest.mark.parametrize(("k", "T", "cap", "falling", "expected"), [
    (10, 2.0, 100, True, []),                 # inside both grids
    (10, 1.0, 100, True, []),                 # T = 1: the model's own predictive, no warning
    (20, 2.0, 100, True, ["upper end of k_grid"]),
    (20, 2.0, 100, False, []),                # at the end, but the curve is flat there
    (20, 2.0, 20, True, []),                  # every usable feature: a natural limit
    (5, 2.0, 100, True, ["lower end of k_grid"]),
    (10, 5.0, 100, True, ["upper end of temperature_grid"]),
    (10, 5.0, 100, False, []),
    (20, 5.0, 100, True, ["upper end of k_grid", "upper end of temperature_grid"]),
])
def test_grid_end_choices_warn(k, T, cap, falling, expected):
    got = grid_end_messages(_choice(k, T, falling), k_cap=cap, k_auto=True, t_auto=True)
    assert len(got) == len(expected)
    for text, want in zip(got, expected, strict=True):
        assert want in text
    # a grid that was not searched ("auto" off) never warns
    assert not grid_end_messages(_choice(k, T, falling), k_cap=cap, k_auto=False,
                                 t_auto=False)


def test_grid_end_warning_from_fit_names_the_users_line():
    # The 4 kept features are copies of one signal, so the naive predictive counts it 4 times
    # and wants T near 4; a grid that stops at 2 holds it (T = 2 beats T = 1 by about 0.19
    # nats per case here, against two paired SEs of about 0.07).
    rng = np.random.default_rng(3)
    n = 300
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 400))
    X[:, :30] = (1.0 * y + rng.normal(size=n))[:, None] + 0.05 * rng.normal(size=(n, 30))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = _fast(k=4, temperature="auto", temperature_grid=[1.0, 2.0]).fit(X, y)
    ours = [w for w in caught if w.category is GridBoundaryWarning]
    assert clf.temperature_ == 2.0
    assert len(ours) == 1 and ours[0].filename == __file__
    assert "temperature_grid" in str(ours[0].message)
