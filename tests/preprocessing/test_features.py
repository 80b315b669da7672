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


@pytest.mark.parametrize("kw, exc, phrase", [
    ({"standardize": "yes"}, TypeError, "standardize must be True or False"),
    ({"decorrelate": "auto"}, TypeError, "decorrelate must be a number"),
    ({"decorrelate": True}, TypeError, "decorrelate must be a number"),
    ({"decorrelate": -1.0}, ValueError, "lambda must be >= 0 and finite; got decorrelate=-1.0"),
    ({"method": "qr"}, ValueError, "method must be one of"),       # checked even when unused
    ({"X": np.full((30, 12), np.inf)}, ValueError, "X contains 0 NaN and 360 infinite"),
    ({"X": np.zeros(30)}, ValueError, "X must be 2-D"),
    ({"y": np.zeros(29, dtype=int)}, ValueError, "y_index has 29 entries but X has 30 rows"),
    ({"y": np.repeat([0.5, 1.0, 2.0], 10)}, ValueError, "y_index must hold integer class"),
    ({"G": 2}, ValueError, r"y_index must hold class indices 0\.\.1"),
    ({"G": 1.5}, ValueError, "n_classes must be a positive integer"),
])
def test_prepare_features_names_bad_input(kw, exc, phrase):
    X, y = _data()
    X, y, G = kw.pop("X", X), kw.pop("y", y), kw.pop("G", 3)
    with pytest.raises(exc, match=phrase):
        prepare_features(X, y, G, **kw)


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda f, X: f.selected(X[:, :11], [0]), ValueError,
     "X has 11 features; the transform was fitted on 12"),      # was a silent answer
    (lambda f, X: f.selected(np.where(X > 0, np.nan, X), [0]), ValueError, "X contains"),
    (lambda f, X: f.selected(X, [12]), ValueError, r"indices must hold column positions in "
                                                   r"0\.\.11"),
    (lambda f, X: f.selected(X, [1.5]), TypeError, "indices must hold integer column"),
    (lambda f, X: f.selected_affine([-1]), ValueError, "indices must hold column positions"),
    (lambda f, X: AffineFeatures(np.zeros(3), np.zeros(3)), ValueError, "scale must be > 0"),
    (lambda f, X: AffineFeatures(np.zeros(3), np.ones(2)), ValueError,
     "mean and scale must have one entry per feature; got 3 and 2"),
    (lambda f, X: AffineFeatures(np.zeros(3), [1.0, np.nan, 1.0]), ValueError,
     "scale must be a 1-D array of finite numbers"),
    (lambda f, X: AffineFeatures(["a"], [1.0]), ValueError, "mean must be a 1-D array"),
    (lambda f, X: AffineFeatures(np.zeros(3), np.ones(3), "whiten"), TypeError,
     "decorrelation must be a fitted"),
    (lambda f, X: AffineFeatures(np.zeros(3), np.ones(3), f.decorrelation), ValueError,
     "decorrelation must be fitted on the 3 features"),
])
def test_affine_features_name_bad_input(call, exc, phrase):
    X, y = _data(2)
    _, feats = prepare_features(X, y, 3, decorrelate=5.0)
    with pytest.raises(exc, match=phrase):
        call(feats, X)
