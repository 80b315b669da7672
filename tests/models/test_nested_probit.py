"""The nested-dichotomy probit regressions (more than two classes) against independent
references: Monte Carlo over the joint prior of a tree's splits (no factorisation assumed), the
binary fit at two classes, and the count of trees, (2K - 3)!!."""

import numpy as np
import pytest
from scipy.special import ndtr

from selbayes.models import fit_linear_probit, fit_nested_probit, nested_dichotomies
from selbayes.models._linear_probit import INTERCEPT_VARIANCE, LOG_S_SD

from ._importance import BATCH, DRAWS, EP_PREDICTIVE_ALLOWANCE, WeightedMean

N, P = 6, 20


def test_two_classes_is_the_binary_fit():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 12)
    X = rng.normal(size=(24, 60)) + 0.8 * y[:, None]
    Xt = rng.normal(size=(5, 60))
    np.testing.assert_allclose(fit_nested_probit(X, y).predict_log_proba(Xt),
                               fit_linear_probit(X, y).predict_log_proba(Xt), atol=1e-12)


@pytest.mark.parametrize("k, count", [(2, 1), (3, 3), (4, 15), (5, 105)])
def test_every_tree_once(k, count):
    """(2K - 3)!! trees, none twice, each a partition of the classes down to single ones."""
    trees = nested_dichotomies(k, max_trees=10 ** 6)
    assert len(trees) == count
    assert len({tuple(sorted(t)) for t in trees}) == count
    for tree in trees:
        _check_tree(tree, k)


def _check_tree(tree, k):
    assert len(tree) == k - 1
    root = tree[0]
    assert sorted(root[0] + root[1]) == list(range(k))
    groups = {root[0] + root[1]}
    for left, right in tree:
        assert left and right and not set(left) & set(right)
        assert tuple(sorted(left + right)) in {tuple(sorted(g)) for g in groups}
        groups |= {left, right}
    leaves = [g for g in groups if len(g) == 1]
    assert sorted(g[0] for g in leaves) == list(range(k))


def test_drawn_trees_are_distinct_valid_and_reproducible():
    a = nested_dichotomies(7, max_trees=12, random_state=3)
    b = nested_dichotomies(7, max_trees=12, random_state=3)
    assert a == b and len({tuple(sorted(t)) for t in a}) == 12
    for tree in a:
        _check_tree(tree, 7)


def test_three_classes_predictive_matches_monte_carlo_over_the_joint_prior():
    """Reference: for each tree, the two splits' (log s, latent values) drawn jointly from
    their independent priors, weighted by the likelihood of all labels under the tree, and
    the test case's class probabilities averaged with those weights; then the equal-weight
    average over the three trees. Nothing here factorises the posterior."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(N + 1, P))
    y = np.array([0, 0, 1, 1, 2, 2])
    X[:N, 0] += 1.5 * y
    fit = fit_nested_probit(X[:N], y)
    p_ep = np.exp(fit.predict_log_proba(X[N:])[0])
    Z = (X - X[:N].mean(0)) / X[:N].std(0, ddof=1)
    e, V = np.linalg.eigh(Z @ Z.T / P)
    root = V * np.sqrt(np.clip(e, 0, None))

    def draw(m):
        """Latent values of all N + 1 cases under one split's prior, (m, N + 1)."""
        s = np.exp(rng.normal(scale=LOG_S_SD, size=m))
        f = np.sqrt(s)[:, None] * (rng.normal(size=(m, N + 1)) @ root.T)
        return f + rng.normal(scale=np.sqrt(INTERCEPT_VARIANCE), size=(m, 1))

    p_mc, var = np.zeros(3), np.zeros(3)
    trees = nested_dichotomies(3)
    for tree in trees:
        mc = WeightedMean()
        for _ in range(DRAWS // BATCH):
            lik, prob = np.ones(BATCH), np.ones((BATCH, 3))
            for left, right in tree:
                f = draw(BATCH)
                cases = np.isin(y, left + right)
                sign = np.where(np.isin(y, right), 1.0, -1.0)
                lik *= ndtr(sign[cases] * f[:, :N][:, cases]).prod(1)
                p_right = ndtr(f[:, N])
                prob[:, list(left)] *= (1 - p_right)[:, None]
                prob[:, list(right)] *= p_right[:, None]
            mc.add(lik, prob)
        p_mc += mc.mean / len(trees)
        var += mc.se ** 2 / len(trees) ** 2          # the trees' draws are independent
    assert np.all(np.abs(p_ep - p_mc) < 4 * np.sqrt(var) + EP_PREDICTIVE_ALLOWANCE)
    assert p_ep.sum() == pytest.approx(1.0, abs=1e-12)


def test_bad_labels_and_constant_features():
    X = np.random.default_rng(0).normal(size=(12, 4))
    for bad in (np.zeros(12, int), np.arange(12) % 3 * 2, np.where(np.arange(12) % 2, 0.5, 0.0)):
        with pytest.raises(ValueError, match="class indices 0 .. K-1"):
            fit_nested_probit(X, bad)
    with pytest.raises(ValueError, match="no feature varies"):
        fit_nested_probit(np.ones((12, 4)), np.arange(12) % 3)
    with pytest.raises(ValueError, match="two classes or more"):
        nested_dichotomies(1)
    with pytest.raises(ValueError, match="max_trees"):
        nested_dichotomies(3, max_trees=0)


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("kwargs, exc, match", [
    ({"n_classes": 1}, ValueError, "n_classes must be an integer >= 2"),
    ({"n_classes": 2.5}, ValueError, "n_classes"),
    ({"n_classes": True}, ValueError, "n_classes"),
    ({"n_classes": "3"}, ValueError, "n_classes"),
    ({"max_trees": 0}, ValueError, "max_trees"),
    ({"max_trees": 1.5}, ValueError, "max_trees"),
    ({"max_trees": "3"}, ValueError, "max_trees"),
    ({"max_trees": np.nan}, ValueError, "max_trees"),
    ({"random_state": -1}, ValueError, "random_state must be None, an int >= 0"),
    ({"random_state": 1.5}, TypeError, "random_state"),
    ({"random_state": "x"}, TypeError, "random_state"),
])
def test_nested_dichotomies_names_bad_input(kwargs, exc, match):
    args = {"n_classes": 6, "max_trees": 3, **kwargs}
    with pytest.raises(exc, match=match):
        nested_dichotomies(args.pop("n_classes"), **args)


@pytest.mark.parametrize("change, exc, match", [
    (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 0, np.nan, X), y),
     ValueError, "X contains 1 NaN"),
    (lambda X, y: (X, y[:-1]), ValueError, "y has 11 labels but X has 12"),
    (lambda X, y: (X, y + 1), ValueError, "y: the nested probit"),
    (lambda X, y: (X, y + 0.5), ValueError, "y: the nested probit"),
])
def test_fit_nested_probit_names_bad_data(change, exc, match):
    rng = np.random.default_rng(0)
    X, y = change(rng.normal(size=(12, 5)), np.repeat([0, 1, 2], 4))
    with pytest.raises(exc, match=match):
        fit_nested_probit(X, y)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"max_trees": 1.5}, ValueError, "max_trees"),      # was accepted (K = 3 needs no draw)
    ({"max_trees": True}, ValueError, "max_trees"),
    ({"random_state": -1}, ValueError, "random_state"),  # was ignored for K < 5
    ({"random_state": "x"}, TypeError, "random_state"),
    ({"min_weight": -1.0}, ValueError, "min_weight"),
    ({"min_weight": True}, TypeError, "min_weight"),
])
def test_fit_nested_probit_names_bad_settings(kwargs, exc, match):
    rng = np.random.default_rng(0)
    with pytest.raises(exc, match=match):
        fit_nested_probit(rng.normal(size=(12, 5)), np.repeat([0, 1, 2], 4), **kwargs)


def test_nested_probit_predict_names_wrong_columns():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 5))
    fit = fit_nested_probit(X, np.repeat([0, 1, 2], 4))
    with pytest.raises(ValueError, match="X has 4 columns; the model was fitted on 5"):
        fit.predict_log_proba(X[:, :4])


def test_float_and_bool_class_indices_are_class_indices():
    """y as 0.0, 1.0, ... (or False/True) was refused, listing values that looked valid."""
    rng = np.random.default_rng(3)
    y = np.arange(18) % 3
    X = rng.normal(size=(18, 6)) + y[:, None]
    ref = fit_nested_probit(X, y).predict_log_proba(X[:3])
    np.testing.assert_array_equal(fit_nested_probit(X, y.astype(float)).predict_log_proba(X[:3]),
                                  ref)
    yb = y[y < 2]
    np.testing.assert_array_equal(
        fit_nested_probit(X[y < 2], yb.astype(bool)).predict_log_proba(X[:3]),
        fit_nested_probit(X[y < 2], yb).predict_log_proba(X[:3]))
    with pytest.raises(ValueError, match="class indices 0 .. K-1"):
        fit_nested_probit(X, y + 0.5)
