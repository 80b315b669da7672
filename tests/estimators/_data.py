"""Shared small data for the estimator tests."""

import numpy as np


def two_class_gaussian(seed=0, n=40, p=120):
    """n cases in two equal classes, p standard normal features, the first 4 shifted by 1.2 in
    class 1."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :4] += 1.2 * y[:, None]
    return X, y


def sparse_strong(seed, n=60, p=800, markers=4, effect=2.0):
    """A few strong markers among many null genes (n cases in two equal classes, the first
    ``markers`` of p standard normal features shifted by ``effect`` in class 1): the normal
    prior's worst case after the correction, the t prior's design case."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :markers] += effect * y[:, None]
    return X, y
