"""The logarithmic pool and its weights (selbayes/estimators/_pooling.py).

For two classes the pool of models with log odds a_j is the logistic function of sum_j w_j a_j,
so its weights are a logistic regression without intercept on the models' log odds: fitted
here by scikit-learn (a second algorithm) as the reference wherever its coefficients lie in
the box [0, 1]; outside it, the optimum over the box is checked by its Karush-Kuhn-Tucker
conditions with a finite-difference gradient.
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from selbayes.estimators import log_pool, log_pool_weights


def _two_class_log_proba(logits):
    """(n_models, n, 2) log probabilities of models with the given log odds of class 1."""
    return np.stack([np.stack([-np.logaddexp(0, a), -np.logaddexp(0, -a)], axis=1)
                     for a in logits])


def _data(seed, n, scales, noise):
    """Cases with true log odds z; model j's log odds are scales[j] * (z + noise_j)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=2.0, size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    logits = [s * (z + noise * rng.normal(size=n)) for s in scales]
    return _two_class_log_proba(logits), y, logits


def _mean_log_score(A, y, w):
    return log_pool(A, w)[np.arange(y.size), y].mean()


def test_the_pool_is_the_normalised_product_of_powers():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4), size=(3, 5))                   # 3 models, 5 cases, 4 classes
    w = np.array([0.3, 1.0, 0.0])
    prod = np.prod(P ** w[:, None, None], axis=0)
    np.testing.assert_allclose(np.exp(log_pool(np.log(P), w)),
                               prod / prod.sum(axis=1, keepdims=True), rtol=1e-12)
    flat = np.exp(log_pool(np.log(P), np.zeros(3)))
    np.testing.assert_allclose(flat, 0.25)


@pytest.mark.parametrize("scales, noise", [((2.0, 2.5), 1.0), ((1.6,), 0.0), ((2.0, 3.0), 1.5)])
def test_weights_inside_the_box_are_logistic_regression_on_the_log_odds(scales, noise):
    A, y, logits = _data(1, 4000, scales, noise)
    ref = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-10, max_iter=10_000)
    coef = ref.fit(np.column_stack(logits), y).coef_[0]
    assert np.all((coef > 0.05) & (coef < 0.95)), coef           # the design keeps it inside
    np.testing.assert_allclose(log_pool_weights(A, y), coef, atol=1e-4)


def _assert_optimal(A, y, w, h=1e-5, tol=1e-5):
    """The Karush-Kuhn-Tucker conditions of the box, with a central finite-difference
    gradient of the mean log score: zero inside, pointing out of the box at a bound."""
    for j in range(w.size):
        e = np.zeros(w.size)
        e[j] = h
        lo, hi = np.clip(w - e, 0, 1), np.clip(w + e, 0, 1)
        g = (_mean_log_score(A, y, hi) - _mean_log_score(A, y, lo)) / (hi[j] - lo[j])
        if w[j] <= 0.0:
            assert g <= tol, (j, w, g)
        elif w[j] >= 1.0:
            assert g >= -tol, (j, w, g)
        else:
            assert abs(g) <= tol, (j, w, g)


def test_weights_at_the_edges_satisfy_the_optimality_conditions():
    """Model 1 is underconfident (its log odds a third of the truth's): its best power is
    about 3, so the box holds it at 1; model 2 is noise: its power stays near 0. At the
    optimum the log score cannot rise by moving a weight within the box."""
    rng = np.random.default_rng(20)                   # not the seed of the cases' draws
    A, y, _ = _data(2, 3000, (1 / 3,), 0.0)
    A = np.concatenate([A, _two_class_log_proba([rng.normal(size=y.size)])])
    w = log_pool_weights(A, y)
    assert w[0] == 1.0 and w[1] < 0.02, w
    _assert_optimal(A, y, w)


def test_more_classes_maximise_the_mean_log_score():
    """Three classes (no logistic-regression reference): the weights meet the optimality
    conditions."""
    rng = np.random.default_rng(3)
    n = 600
    eta = rng.normal(scale=1.5, size=(n, 3))
    y = np.array([rng.choice(3, p=np.exp(e) / np.exp(e).sum()) for e in eta])
    noisy = [0.6 * (eta + rng.normal(size=eta.shape)), 0.5 * (eta + rng.normal(size=eta.shape))]
    A = np.stack([e - np.logaddexp.reduce(e, axis=1, keepdims=True) for e in noisy])
    w = log_pool_weights(A, y)
    assert np.all((w > 0.05) & (w < 0.95)), w
    _assert_optimal(A, y, w)


@pytest.mark.parametrize("bad, match", [
    (np.zeros((2, 3)), "3-D"),
    (np.full((1, 2, 2), np.nan), "NaN"),
    (np.full((1, 2, 2), 0.5), "above 0"),
    (np.full((1, 2, 2), -np.inf), "exactly 0"),
])
def test_bad_log_probabilities_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        log_pool_weights(bad, [0, 1][: bad.shape[1] if bad.ndim == 3 else 2])
    with pytest.raises(ValueError, match=match):
        log_pool(bad, np.ones(bad.shape[0]))


def test_bad_weights_and_classes_are_named():
    A = np.log(np.full((2, 3, 2), 0.5))
    with pytest.raises(ValueError, match="weights must be 2 non-negative"):
        log_pool(A, [1.0, -0.5])
    with pytest.raises(ValueError, match="weights must be 2"):
        log_pool(A, [1.0])
    with pytest.raises(ValueError, match="class indices in 0 .. 1"):
        log_pool_weights(A, [0, 1, 2])
    with pytest.raises(ValueError, match="class indices"):
        log_pool_weights(A, [0.0, 1.0, 0.0])
