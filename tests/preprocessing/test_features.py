"""Feature preparation of the Gaussian classifier: the fitted map applied to new cases equals
the transform of the training cases, and the standardisation is the pooled within-class one."""

import numpy as np
import pytest

from selbayes.preprocessing import AffineFeatures, prepare_features


def _data(seed=0, n=30, p=12):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.normal(size=(n, p)) * rng.uniform(0.1, 10, size=p) + rng.normal(size=p) * 50
    X[:, :3] += 2.0 * y[:, None]
    return X, y


def test_standardisation_is_by_the_pooled_within_class_sd():
    # reference written out here: centre by the grand mean, scale by sqrt(SSW / (n - G))
    X, y = _data()
    Z, feats = prepare_features(X, y, 3)
    resid = X - np.stack([X[y == g].mean(0) for g in range(3)])[y]
    sd = np.sqrt((resid ** 2).sum(0) / (len(y) - 3))
    np.testing.assert_allclose(Z, (X - X.mean(0)) / sd, rtol=1e-12)
    assert feats.decorrelation is None
    same, kept = prepare_features(X, y, 3, standardize=False)
    assert same is X and np.all(kept.mean == 0) and np.all(kept.scale == 1)


@pytest.mark.parametrize("decorrelate, method", [(None, "symmetric"), (5.0, "symmetric"),
                                                 (5.0, "cholesky"), (0.0, "symmetric")])
def test_the_fitted_map_on_new_cases_equals_the_training_transform(decorrelate, method):
    X, y = _data(1)
    Z, feats = prepare_features(X, y, 3, decorrelate=decorrelate, method=method)
    idx = [4, 0, 7]
    np.testing.assert_allclose(feats.selected(X, idx), Z[:, idx], atol=1e-10)
    center, scale, rows = feats.selected_affine(idx)
    mapped = X[:, idx] if rows is None else X @ rows.T
    np.testing.assert_allclose((mapped - center) / scale, Z[:, idx], atol=1e-10)
    assert (rows is None) == (decorrelate is None)


def test_affine_features_without_decorrelation_are_per_feature():
    f = AffineFeatures(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 8.0]))
    X = np.array([[3.0, 6.0, 11.0]])
    np.testing.assert_array_equal(f.selected(X, [2, 0]), [[1.0, 1.0]])
    center, scale, rows = f.selected_affine([2, 0])
    assert rows is None and center.tolist() == [3.0, 1.0] and scale.tolist() == [8.0, 2.0]
