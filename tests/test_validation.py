"""Direct tests of the input-validation helpers in selbayes._validation."""

import numpy as np
import pytest

from selbayes._validation import (
    check_binary,
    check_class_counts,
    check_labels,
    check_matrix,
    check_positive,
    check_positive_int,
    check_random_state,
    numeric_array,
)


def test_check_matrix_converts_and_reports():
    out = check_matrix([[1, 2], [3, 4]])
    assert out.dtype == np.float64 and out.shape == (2, 2)
    assert check_matrix(np.array([[True, False]])).dtype == np.float64
    with pytest.raises(ValueError, match="must be 2-D"):
        check_matrix(np.zeros(3))
    with pytest.raises(ValueError, match="empty"):
        check_matrix(np.zeros((0, 3)))
    with pytest.raises(TypeError, match="must be numeric"):
        check_matrix(np.array([["a", "b"]]))
    X = np.zeros((3, 4))
    X[2, 1] = -np.inf
    with pytest.raises(ValueError, match=r"0 NaN and 1 infinite value\(s\).*row 2, column 1"):
        check_matrix(X, name="X_test")
    with pytest.raises(ValueError, match="X_test"):
        check_matrix(X, name="X_test")


def test_check_matrix_pandas_numeric():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4], "c": [True, False]})
    np.testing.assert_array_equal(check_matrix(df), [[1, 3, 1], [2, 4, 0]])


def test_check_matrix_pandas_non_numeric_and_nullable_columns():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    with pytest.raises(TypeError, match=r"non-numeric columns: \['b'\]"):
        check_matrix(df)
    df = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "b": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match=r"1 NaN.*row 1, column 0"):
        check_matrix(df)


def test_check_labels_encoding():
    classes, idx, counts = check_labels(["b", "a", "b", "a", "c", "c"], 6)
    np.testing.assert_array_equal(classes, ["a", "b", "c"])
    np.testing.assert_array_equal(idx, [1, 0, 1, 0, 2, 2])
    np.testing.assert_array_equal(counts, [2, 2, 2])
    assert idx.dtype == np.int64
    classes, idx, _ = check_labels(np.array([[3], [3], [7], [7]]))   # column vector accepted
    np.testing.assert_array_equal(idx, [0, 0, 1, 1])


@pytest.mark.parametrize(
    "y, n, exc, phrase",
    [
        (np.zeros((2, 3)), None, ValueError, "must be 1-D"),
        ([0, 0, 1, 1], 5, ValueError, "4 labels but X has 5 rows"),
        ([0.0, np.nan, 1.0, 1.0], None, ValueError, "NaN or infinite labels"),
        (np.array(["a", None, "a", "b"], dtype=object), None, ValueError, "missing labels"),
        (np.array([1, "a", 1, "a"], dtype=object), None, TypeError, "mutually comparable"),
        ([1, 1, 1], None, ValueError, "at least 2 are needed"),
        ([1, 1, 2], None, ValueError, r"too few in class\(es\).*2.*\(1 case\)"),
    ],
)
def test_check_labels_errors(y, n, exc, phrase):
    with pytest.raises(exc, match=phrase):
        check_labels(y, n)


def test_check_binary():
    arr = np.array([[0.0, 1.0], [1.0, 0.5]])
    with pytest.raises(ValueError, match=r"Z must be binary.*1 other value\(s\), first 0\.5 at "
                                         r"row 1, column 1$"):
        check_binary(arr, name="Z")                     # the value as a number, not np.float64
    import scipy.sparse as sp

    with pytest.raises(ValueError, match=r"1 other value\(s\), first 0\.5$"):
        check_binary(sp.csr_matrix(arr), name="Z")
    assert check_binary(np.array([[0, 1]]), name="Z") is not None


def test_check_positive():
    assert check_positive(2, name="w") == 2.0
    assert check_positive(0, name="w", strict=False) == 0.0
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="w must be > 0"):
            check_positive(bad, name="w")
    with pytest.raises(TypeError, match="w must be a number"):
        check_positive("x", name="w")


def test_check_positive_int():
    """Integers >= 1 (numpy's too) come back as int; 0, negatives, floats, bools and strings
    are named in a ValueError, with what they count where given."""
    assert check_positive_int(3, name="n") == 3
    assert type(check_positive_int(np.int64(2), name="n")) is int
    for bad in (0, -2, 2.0, True, "3", None):
        with pytest.raises(ValueError, match="n must be a positive integer; got"):
            check_positive_int(bad, name="n")
    with pytest.raises(ValueError, match=r"n must be a positive integer \(draws\); got 0"):
        check_positive_int(0, name="n", what="draws")


def test_check_class_counts():
    np.testing.assert_array_equal(check_class_counts([3.0, 4.0]), [3, 4])
    with pytest.raises(ValueError, match="at least 2 classes"):
        check_class_counts([5])
    with pytest.raises(ValueError, match="whole numbers"):
        check_class_counts([2.5, 3.0])
    with pytest.raises(ValueError, match="positive integers"):
        check_class_counts([0, 3])


def test_check_random_state():
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    a = check_random_state(5).random()
    assert a == np.random.default_rng(5).random()
    assert isinstance(check_random_state(None), np.random.Generator)
    assert isinstance(check_random_state(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(TypeError, match="random_state"):
        check_random_state("seed")


def test_check_matrix_names_a_frame_s_bad_cell_and_takes_numbers_stored_as_objects():
    """A DataFrame's NaN is named by sample id and gene, not positions only; numbers held in
    object columns (dtype=object, .T of a mixed frame) are taken as scikit-learn takes them;
    text in an object column is still refused by name."""
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"g1": [1.0, 2.0], "g2": [3.0, np.nan]}, index=["s1", "s2"])
    with pytest.raises(ValueError, match=r"row 1 \('s2'\), column 1 \('g2'\)"):
        check_matrix(df)
    np.testing.assert_array_equal(check_matrix(df.fillna(0).astype(object)),
                                  [[1.0, 3.0], [2.0, 0.0]])
    with pytest.raises(TypeError, match=r"non-numeric columns: \['g2'\]"):
        check_matrix(pd.DataFrame({"g1": [1.0, 2.0], "g2": ["x", 1.0]}, dtype=object))


def test_check_matrix_names_an_anndata_with_the_fix():
    """numpy's message was that the array would exceed 64 dimensions."""
    anndata = pytest.importorskip("anndata")
    adata = anndata.AnnData(np.ones((3, 2)))
    with pytest.raises(TypeError, match=r"X is an AnnData: pass adata.to_df\(\).*read_anndata"):
        check_matrix(adata)


@pytest.mark.parametrize("value, exc", [(-1, ValueError), (True, TypeError),
                                        (1.5, TypeError), ("x", TypeError)])
def test_check_random_state_names_the_seed(value, exc):
    from selbayes._validation import check_random_state

    with pytest.raises(exc, match="seed must be None, an int >= 0 or a numpy Generator"):
        check_random_state(value, "seed")


def test_check_random_state_gives_numpy_s_stream():
    from selbayes._validation import check_random_state

    assert check_random_state(3).integers(10**9) == np.random.default_rng(3).integers(10**9)


@pytest.mark.parametrize("value, kw, exc, match", [
    (True, {}, TypeError, "x must be a number; got True"),
    ("1", {}, TypeError, "x must be a number; got '1'"),
    (None, {}, TypeError, "x must be a number; got None"),
    (np.nan, {}, ValueError, "x must be finite; got nan"),
    (0.0, {"low": 0, "high": 1, "closed": "right"}, ValueError, r"x must be in \(0, 1\]"),
    (1.0, {"low": 0, "high": 1, "closed": "left"}, ValueError, r"x must be in \[0, 1\)"),
    (-1.0, {"low": 0}, ValueError, "x must be >= 0 and finite"),
    (2.0, {"high": 1, "closed": "neither"}, ValueError, "x must be < 1 and finite"),
])
def test_check_real_names_the_argument_and_the_interval(value, kw, exc, match):
    from selbayes._validation import check_real

    with pytest.raises(exc, match=match):
        check_real(value, name="x", **kw)


def test_check_real_takes_numpy_numbers_and_closed_ends():
    from selbayes._validation import check_real

    assert check_real(np.float32(0.5), name="x", low=0, high=1) == 0.5
    assert check_real(np.int64(1), name="x", low=0, high=1) == 1.0
    assert check_real(0, name="x", low=0, high=1) == 0.0


def test_check_int_flag_and_class_index():
    from selbayes._validation import check_class_index, check_flag, check_int

    assert check_int(np.int64(3), name="n", low=2) == 3
    for bad in (2.0, True, "3", 1):
        with pytest.raises(ValueError, match="n must be an integer >= 2"):
            check_int(bad, name="n", low=2)
    assert check_flag(np.False_, "corrected") is False
    with pytest.raises(TypeError, match="corrected must be True or False"):
        check_flag(0, "corrected")
    assert check_class_index([0.0, 1.0, 1.0], 3, 2).dtype == np.int64
    with pytest.raises(ValueError, match="y_index has 2 entries but X has 3 rows"):
        check_class_index([0, 1], 3, 2)
    with pytest.raises(ValueError, match=r"y_index lacks class\(es\) \[1\]"):
        check_class_index([0, 0, 0], 3, 2)
    assert check_class_index([0, 0, 0], 3, 2, all_present=False).tolist() == [0, 0, 0]


@pytest.mark.parametrize("bad", [True, "0.5", [0.5, True], ["a", "b"], np.array([True]),
                                 np.array(["1"]), [1 + 2j], np.array([1 + 2j]), None,
                                 [[1.0], [1.0, 2.0]]])
def test_numeric_array_refuses_what_numpy_would_read_as_numbers(bad):
    """True, "0.5" and a list mixing them with numbers convert silently to floats."""
    with pytest.raises(TypeError, match="draws must be numeric"):
        numeric_array(bad, "draws")


@pytest.mark.parametrize("good, expected", [
    (3, [3.0]), ([1, 2.5], [1.0, 2.5]), (np.array([1, 2]), [1.0, 2.0]),
    (np.array([1.0, 2.0], dtype=object), [1.0, 2.0]), (np.float32(0.5), [0.5]),
    ([np.inf, -np.inf], [np.inf, -np.inf]),
])
def test_numeric_array_gives_float64(good, expected):
    out = numeric_array(good, "draws")
    assert out.dtype == np.float64
    assert np.ravel(out).tolist() == expected
