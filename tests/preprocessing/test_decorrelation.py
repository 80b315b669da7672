"""Standardisation and the low-rank (symmetric) decorrelation, against dense references."""

import numpy as np
import pytest

from selbayes.preprocessing import Decorrelation, Standardization, pooled_within_residuals


def _design(seed, n=30, p=50, G=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(G), n // G)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + y[:, None]
    return X, y, G


def _dense_symmetric(X, y, G, lam):
    """Independent route: form Sigma(lambda), scale by D, eigendecompose (p x p)."""
    n = X.shape[0]
    R = X - np.stack([X[y == g].mean(0) for g in range(G)])[y]
    S = R.T @ R / (n - G)
    sigma = (S + lam * np.diag(np.diag(S))) / (1 + lam)
    D = lam * np.diag(S) / (1 + lam)
    w, V = np.linalg.eigh(sigma / np.sqrt(np.outer(D, D)))
    return (V @ np.diag(w ** -0.5) @ V.T) / np.sqrt(D)[None, :], sigma


@pytest.mark.parametrize("lam", [0.3, 10.0])
def test_symmetric_matches_dense_and_whitens(lam):
    X, y, G = _design(1)
    W, sigma = _dense_symmetric(X, y, G, lam)
    t = Decorrelation(lam, method="symmetric").fit(X, y, G)
    np.testing.assert_allclose(t.transform(X), X @ W.T, atol=1e-10)
    np.testing.assert_allclose(t.rows([4, 0, 17]), W[[4, 0, 17]], atol=1e-10)
    np.testing.assert_allclose(W @ sigma @ W.T, np.eye(X.shape[1]), atol=1e-9)
    assert t.basis_.shape[1] <= X.shape[0]          # rank <= n: nothing p x p is stored


def test_symmetric_is_order_and_scale_invariant():
    X, y, G = _design(2)
    rng = np.random.default_rng(3)
    perm = rng.permutation(X.shape[1])
    scale = np.exp(rng.uniform(-5, 5, X.shape[1]))
    Z = Decorrelation(5.0, "symmetric").fit(X, y, G).transform(X)
    Zp = Decorrelation(5.0, "symmetric").fit(X[:, perm] * scale[perm], y, G)
    np.testing.assert_allclose(Zp.transform(X[:, perm] * scale[perm]), Z[:, perm], atol=1e-9)


def test_decorrelation_rejects_bad_settings():
    with pytest.raises(ValueError, match="needs lambda > 0"):
        Decorrelation(0.0, method="symmetric")
    with pytest.raises(ValueError, match="method must be one of"):
        Decorrelation(1.0, method="qr")
    X, y, G = _design(4)
    t = Decorrelation(1.0, "symmetric").fit(X, y, G)
    with pytest.raises(ValueError, match="fitted on 50"):
        t.transform(X[:, :10])


def test_standardization_makes_inputs_unit_free():
    X, y, G = _design(5)
    rng = np.random.default_rng(6)
    Z = Standardization().fit(X, y, G).transform(X)
    for c in (1e-4, 1e4):
        shift = rng.normal(size=X.shape[1]) * 100
        X2 = c * X + shift
        Z2 = Standardization().fit(X2, y, G).transform(X2)
        np.testing.assert_allclose(Z2, Z, atol=1e-8)
    R = Z - np.stack([Z[y == g].mean(0) for g in range(G)])[y]
    np.testing.assert_allclose((R ** 2).sum(0) / (X.shape[0] - G), 1.0)
    Zt = Standardization("total").fit(X, y, G).transform(X)
    np.testing.assert_allclose(Zt.std(0, ddof=1), 1.0)


@pytest.mark.parametrize("value", [None, 0.1, np.log2(100.0), 0.1 * 3])
def test_symmetric_passes_within_class_constant_features_through(value):
    """A feature constant within classes passes the symmetric route unchanged and is refused
    by the Cholesky route. None: exactly constant (3 y); a value: equal within each class
    but not reproduced by the class means to the last bit, a within-class variance of about
    1e-33 rather than 0 that ``d <= 0`` let through, scaled by 1 / sqrt(d) to about 1e16."""
    X, y, G = _design(7)
    X[:, 5] = y * 3.0 if value is None else np.where(y == 0, value, value / 3)
    t = Decorrelation(4.0, "symmetric").fit(X, y, G)
    Z = t.transform(X)
    np.testing.assert_allclose(Z[:, 5], X[:, 5], atol=1e-12)
    assert np.all(np.isfinite(Z))
    with pytest.raises(ValueError, match="zero within-class variance"):
        Decorrelation(4.0).fit(X, y, G)      # the dense Cholesky route still refuses


@pytest.mark.parametrize("scale", ["within", "total"])
def test_standardization_in_any_units(scale):
    """Moments in each column's power-of-2 unit: bit for bit the textbook ones at ordinary
    scales; at 1e200 (overflow) and 1e-200 (underflow) the feature was left unscaled."""
    X, y, G = _design(3, n=12, p=4, G=2)
    st = Standardization(scale).fit(X, y, G)
    R = X - np.stack([X[y == g].mean(0) for g in range(G)])[y]
    # within: the reference sums the squares in another order (a few ulp); total is numpy's
    # own formula, bit for bit
    ref = np.sqrt((R ** 2).sum(0) / (12 - G)) if scale == "within" else X.std(0, ddof=1)
    np.testing.assert_allclose(st.scale_, ref, rtol=1e-14)
    if scale == "total":
        assert np.array_equal(st.scale_, X.std(0, ddof=1))
    assert np.array_equal(st.mean_, X.mean(axis=0))
    # one extreme column makes every column scaled by its power of 2: the others' moments
    # stay bit for bit the textbook ones
    wide = np.column_stack([X, np.full(12, 1e200) * np.arange(1, 13)])
    st_wide = Standardization(scale).fit(wide, y, G)
    assert np.array_equal(st_wide.mean_[:4], st.mean_)
    assert np.array_equal(st_wide.scale_[:4], st.scale_)
    for factor in (1e200, 1e-200):
        # the factor (not a power of 2) rounds each value by 1 ulp; centring amplifies it by
        # |x| / |x - mean|, at most about 10 here: 1e-14 (measured 4e-16)
        Z = Standardization(scale).fit(X * factor, y, G).transform(X * factor)
        np.testing.assert_allclose(Z, st.transform(X), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("scale", ["within", "total"])
def test_standardization_at_the_ends_of_the_double_range(scale):
    """A column near 1e308 is scaled (its unit did overflow to inf: NaN means); a column of
    subnormal spread stays unscaled, as its SD has lost its digits."""
    X, y, G = _design(3, n=12, p=2, G=2)
    big = np.column_stack([X, 1e308 * np.linspace(-0.9, 0.9, 12)])
    st = Standardization(scale).fit(big, y, G)
    assert np.all(np.isfinite(st.transform(big)))
    # scaled, not only finite: its SD is linspace's times 1e308 (rounding only)
    ref = Standardization(scale).fit(np.column_stack([X, np.linspace(-0.9, 0.9, 12)]), y, G)
    np.testing.assert_allclose(st.scale_[2], 1e308 * ref.scale_[2], rtol=1e-14)
    tiny = np.column_stack([X, np.r_[np.zeros(11), 5e-324]])
    assert Standardization(scale).fit(tiny, y, G).scale_[2] == 1.0
    # a level of 2^-499 (6e-151) with a spread of 1e-9 of it: its squared deviations (1e-318)
    # are subnormal unless the column is rescaled (they were, with 2^-500 as the lower end of
    # the range left unscaled: 8 digits lost). Reference: the same column at unit level,
    # scaled by the power of 2 exactly, so the SDs agree to rounding (1e-15)
    unit = np.column_stack([X, 1.0 + 1e-9 * np.arange(12.0)])
    low = unit * np.r_[1.0, 1.0, 2.0 ** -499]
    np.testing.assert_allclose(Standardization(scale).fit(low, y, G).scale_[2] * 2.0 ** 499,
                               Standardization(scale).fit(unit, y, G).scale_[2], rtol=1e-14)


def test_decorrelation_names_an_overflowing_variance():
    X, y, G = _design(3, n=12, p=4, G=2)
    with pytest.raises(ValueError, match="overflows .* standardize=True"):
        Decorrelation(1.0).fit(X * 1e200, y, G)


def test_total_scale_of_one_case_is_refused():
    with pytest.raises(ValueError, match="total scale needs n >= 2"):
        Standardization("total").fit(np.ones((1, 3)), np.array([0]), 1)


@pytest.mark.parametrize("lam", [1e-12, 1e-6])
def test_symmetric_whitens_down_to_its_smallest_lambda(lam):
    """At its smallest lambda the low-rank update still whitens: the within-class covariance
    of the output is Sigma(lambda)'s whitening, checked against the dense reference (at
    lambda = 1e-30, now refused, it was 0.8 off)."""
    X, y, G = _design(1, n=12, p=3, G=2)
    W, sigma = _dense_symmetric(X, y, G, lam)
    Z = Decorrelation(lam, "symmetric").fit(X, y, G).transform(X)
    # first-order error: the update's cancellation loses eps / sqrt(lambda) (2e-10 at
    # 1e-12), amplified at most by the condition of the scaled Sigma (3e3 here): 7e-7, a
    # bound rather than a fit to the measured 2.8e-10
    D = np.sqrt(np.diag(sigma))
    cond = np.linalg.cond(sigma / np.outer(D, D))
    tol = np.finfo(float).eps / np.sqrt(lam) * cond
    np.testing.assert_allclose(Z, X @ W.T, rtol=tol, atol=tol * np.abs(Z).max())


@pytest.mark.parametrize("lam", [1e-13, 1e-30])
def test_symmetric_refuses_a_lambda_below_its_precision(lam):
    with pytest.raises(ValueError, match="at least 1e-12.*method='cholesky'"):
        Decorrelation(lam, "symmetric")


@pytest.mark.parametrize("scale", ["within", "total"])
@pytest.mark.parametrize("value", [-0.11952286093343936, np.log2(100.0), 0.1 * 3])
def test_a_feature_constant_over_the_training_cases_keeps_its_units(scale, value):
    # all training values equal, to a number their mean does not reproduce to the last bit:
    # the computed sd is a rounding residue (about 1e-17), not 0; scaled by it, a test case
    # off the constant got 1e16 or more. Reference: what an exactly constant feature gets
    # (scale 1, the centred value in data units).
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 35)
    X = rng.normal(size=(70, 4))
    X[:, 2] = value
    st = Standardization(scale).fit(X, y, 2)
    assert st.scale_[2] == 1.0 and np.all(st.scale_[[0, 1, 3]] != 1.0)
    test = np.array([[0.0, 0.0, value + 2.0, 0.0]])
    assert st.transform(test)[0, 2] == pytest.approx(2.0, abs=1e-12)


def _small():
    X, y, G = _design(8, n=12, p=4, G=2)
    return X, y


_BAD_FIT = [
    # X: NumPy's 'operands could not be broadcast', 'list has no attribute shape', or NaN
    # carried into the output
    (lambda X, y: (X[:, 0], y, 2), ValueError, "X must be 2-D"),
    (lambda X, y: (None, y, 2), ValueError, "X must be 2-D"),
    (lambda X, y: (np.where(np.eye(12, 4, dtype=bool), np.nan, X), y, 2), ValueError,
     r"X contains 4 NaN and 0 infinite value\(s\); the first is at row 0, column 0"),
    (lambda X, y: (np.full((12, 4), "a"), y, 2), TypeError, "X must be numeric"),
    # y_index: NumPy's 'index 2 is out of bounds' and 'arrays used as indices', and a -1
    # silently taken as the last class
    (lambda X, y: (X, y[:5], 2), ValueError, r"y_index has 5 entries but X has 12 rows"),
    (lambda X, y: (X, y + 1, 2), ValueError, r"y_index must hold class indices 0\.\.1"),
    (lambda X, y: (X, y - 1, 2), ValueError, r"y_index must hold class indices 0\.\.1 .*got -1"),
    (lambda X, y: (X, y + 0.5, 2), ValueError, "y_index must hold integer class indices"),
    (lambda X, y: (X, y.astype(bool), 2), ValueError, "y_index must hold integer class"),
    (lambda X, y: (X, y, True), ValueError, "n_classes must be a positive integer"),
    (lambda X, y: (X, y, "2"), ValueError, "n_classes must be a positive integer"),
    (lambda X, y: (X, y, 0), ValueError, "n_classes must be a positive integer"),
    (lambda X, y: (X, y, 3), ValueError, r"y_index: every class 0\.\.2 needs at least one "
                                         r"case \(n_classes = 3\); counts are \[6, 6, 0\]"),
]


@pytest.mark.parametrize("make, exc, phrase", _BAD_FIT)
@pytest.mark.parametrize("fit", [
    lambda *a: Standardization().fit(*a),
    lambda *a: Decorrelation(1.0).fit(*a),
    lambda *a: Decorrelation(1.0, "symmetric").fit(*a),
    lambda *a: pooled_within_residuals(*a),
], ids=["standardization", "cholesky", "symmetric", "residuals"])
def test_fit_names_bad_input(fit, make, exc, phrase):
    X, y = _small()
    with pytest.raises(exc, match=phrase):
        fit(*make(X, y))


@pytest.mark.parametrize("make", [lambda: Standardization(), lambda: Decorrelation(1.0),
                                  lambda: Decorrelation(1.0, "symmetric")],
                         ids=["standardization", "cholesky", "symmetric"])
@pytest.mark.parametrize("bad, exc, phrase", [
    ("unfitted", ValueError, r"is not fitted yet: call fit\(X, y_index, n_classes\) first"),
    ("columns", ValueError, "X has 3 features; the transform was fitted on 4"),
    ("nan", ValueError, "X contains 4 NaN"),
    ("1d", ValueError, "X must be 2-D"),
])
def test_transform_names_bad_input(make, bad, exc, phrase):
    X, y = _small()
    t = make()
    if bad != "unfitted":
        t.fit(X, y, 2)
    Xt = {"columns": X[:, :3], "nan": np.where(np.eye(12, 4, dtype=bool), np.nan, X),
          "1d": X[:, 0]}.get(bad, X)
    with pytest.raises(exc, match=phrase):
        t.transform(Xt)


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda: Decorrelation(True), TypeError, "lam must be a number; got True"),
    (lambda: Decorrelation("3"), TypeError, "lam must be a number"),
    (lambda: Decorrelation(None), TypeError, "lam must be a number"),
    (lambda: Decorrelation(-1.0), ValueError, "lambda must be >= 0 and finite; got lam=-1.0"),
    (lambda: Decorrelation(np.inf), ValueError, "lambda must be >= 0"),
    (lambda: Decorrelation(1.0, method=None), ValueError, "method must be one of"),
    (lambda: Standardization(None), ValueError, "scale must be 'within' or 'total'"),
    (lambda: Decorrelation(1.0).rows([0]), ValueError, "not fitted yet"),
    (lambda: Decorrelation(1.0).fit(*_small(), 2).rows([4]), ValueError,
     r"indices must hold column positions in 0\.\.3"),
    (lambda: Decorrelation(1.0).fit(*_small(), 2).rows([1.5]), TypeError,
     "indices must hold integer column positions"),
    (lambda: Decorrelation(1.0, "symmetric").fit(*_small(), 2).rows([[0]]), ValueError,
     "indices must be 1-D"),
])
def test_settings_and_rows_name_bad_input(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


def test_prepare_features_whitens_a_tiny_lambda_by_cholesky():
    """decorrelate below the symmetric route's precision (as 0) takes the Cholesky route; it
    was refused inside the classifiers' inner cross-validation."""
    from selbayes.preprocessing import prepare_features

    X, y, G = _design(1, n=30, p=5, G=3)
    Z, _ = prepare_features(X, y, G, decorrelate=1e-13)
    Z0, _ = prepare_features(X, y, G, decorrelate=0.0)
    # lambda = 1e-13 moves Sigma by 1e-13 of itself; the whitening moves by that times the
    # condition of Sigma (29 here), plus the Cholesky factor's rounding, eps times the
    # condition: 1e-9 bounds both with room (measured 3e-12)
    np.testing.assert_allclose(Z, Z0, rtol=1e-9, atol=1e-9)
