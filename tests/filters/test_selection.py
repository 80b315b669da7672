"""Tests of selbayes.select_features and the statistics it uses.

References: scipy.stats.f_oneway (F), numpy.corrcoef (correlation), and a plain stable sort
(ranking and tie rule). Validation cases follow issue 2's list.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import selbayes
from selbayes.filters import (
    Selection,
    abs_correlation,
    binary_correlation,
    f_statistic,
    select_features,
    selection_from_scores,
)

# ---------------------------------------------------------------------------------------------
# scores against independent references


@pytest.mark.parametrize("counts", [(10, 10, 10), (3, 17, 2, 40), (2, 2), (50, 7)])
def test_f_equals_scipy_f_oneway(counts):
    rng = np.random.default_rng(sum(counts))
    y = rng.permutation(np.repeat(np.arange(len(counts)), counts))
    p = 300
    # columns on different scales and offsets, some with a real class effect
    X = rng.normal(size=(y.size, p)) * rng.lognormal(0, 1, size=p) + rng.normal(0, 5, size=p)
    X[:, :50] += rng.normal(size=(len(counts), 50))[y] * 3
    sel = select_features(X, y, k=5)
    ref = stats.f_oneway(*[X[y == g] for g in range(len(counts))], axis=0).statistic
    np.testing.assert_allclose(sel.scores, ref, rtol=1e-10, atol=0)
    np.testing.assert_allclose(f_statistic(X, y, len(counts)), ref, rtol=1e-10, atol=0)


def _f_longdouble(X, y):
    """Two-pass F in extended precision: the reference for ill-conditioned columns."""
    G = int(y.max()) + 1
    Xl = X.astype(np.longdouble)
    counts = np.bincount(y, minlength=G)
    means = np.array([Xl[y == g].mean(axis=0) for g in range(G)])
    ssb = (counts[:, None] * (means - Xl.mean(axis=0)) ** 2).sum(axis=0)
    ssw = ((Xl - means[y]) ** 2).sum(axis=0)
    return ((ssb / (G - 1)) / (ssw / (y.size - G))).astype(np.float64)


def test_f_precise_when_level_dwarfs_spread():
    # level ~ 1e3, spread down to ~1e-2 (expression-like data): scipy.stats.f_oneway, which
    # subtracts the grand mean first, stays within ~1e-13 of the extended-precision reference
    rng = np.random.default_rng(7)
    y = rng.permutation(np.repeat([0, 1, 2], [12, 5, 20]))
    X = rng.normal(size=(y.size, 300)) * rng.lognormal(0, 2, size=300) + rng.normal(0, 1e3, 300)
    ref = _f_longdouble(X, y)
    scipy_f = stats.f_oneway(*[X[y == g] for g in range(3)], axis=0).statistic
    np.testing.assert_allclose(scipy_f, ref, rtol=1e-11)
    np.testing.assert_allclose(f_statistic(X, y, 3), ref, rtol=1e-11)


def test_f_blocks_agree_with_reference_beyond_one_block():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], [5, 9, 6])
    X = rng.normal(size=(20, 5000))                  # > the 2048-column block
    ref = stats.f_oneway(X[y == 0], X[y == 1], X[y == 2], axis=0).statistic
    np.testing.assert_allclose(f_statistic(X, y, 3), ref, rtol=1e-10)


def test_f_degenerate_columns():
    y = np.array([0, 0, 1, 1])
    X = np.array([[1.0, 1.0, 2.0], [1.0, 1.0, 3.0], [1.0, 5.0, 2.0], [1.0, 5.0, 4.0]])
    f = f_statistic(X, y, 2)
    assert f[0] == 0.0                     # constant column: 0 (scipy would give nan)
    assert f[1] == np.inf                  # no within-class spread, different means
    assert np.isfinite(f[2])


def test_f_of_a_column_constant_within_classes_is_infinite_despite_rounding():
    """0.1 and 0.3 (or a floor and a ceiling after clipping): the class means of such
    values carry a rounding residue (about 1e-17), which gave F about 1e32 rather than
    infinity, so select_features' error for such a column never fired (only exact values
    such as 0 and 5 triggered it). Dense and sparse alike; a spread just above rounding
    (1e-9 of the level) still scores finite."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], [15, 11, 9])
    X = rng.normal(size=(y.size, 4))
    X[:, 0] = np.where(y == 1, 0.1, 0.3)
    X[:, 1] = np.log2(np.where(y == 0, 100.0, 16000.0))
    X[:, 2] = np.where(y == 2, 0.1, 0.3) * (1 + 1e-9 * rng.normal(size=y.size))
    for M in (X, sp.csr_matrix(X), sp.csc_matrix(X)):
        f = (selbayes.filters._selection._f_statistic_sparse(M, y, 3) if sp.issparse(M)
             else f_statistic(M, y, 3))
        assert np.isposinf(f[:2]).all()
        # residuals carry eps of the column's level: relative error eps / (spread / level)
        # = 2e-16 / 1e-9, 2e-7 (measured 2.4e-9)
        np.testing.assert_allclose(f[2:], _f_longdouble(X[:, 2:], y), rtol=1e-6)
        with pytest.raises(ValueError, match=r"2 column\(s\) of X \(positions \[0, 1\]\) "
                                             "separate the classes with no variance"):
            select_features(M, y, k=2)


def test_sparse_f_precise_when_level_dwarfs_spread():
    """The sparse path took SSW as sum(x^2) - n mean^2, which cancelled to 0 where the level
    is 1e4 and the spread 1e-5 (F = 0 for a column with F near 400); against the
    extended-precision reference, as the dense path."""
    import scipy.sparse as sp

    rng = np.random.default_rng(8)
    y = rng.permutation(np.repeat([0, 1], [14, 16]))
    X = rng.normal(size=(y.size, 60))
    X[rng.random(X.shape) < 0.5] = 0.0
    X[:, 0] = 1e4 + 1e-4 * y + 1e-5 * rng.normal(size=y.size)
    X[:, 1] = 1e3 + 1e-3 * rng.normal(size=y.size)
    got = selbayes.filters._selection._f_statistic_sparse(sp.csr_matrix(X), y, 2)
    # eps times the level over the spread: 2e-16 * 1e4 / 1e-5 = 2e-7 (measured 4e-8)
    np.testing.assert_allclose(got, _f_longdouble(X, y), rtol=1e-6)
    assert got[0] > 100 and got[1] > 0
    # repeated entries of one position (a CSR built from COO triplets) add up, as scipy reads
    dup = sp.csr_matrix((np.array([1.0, 2.0, 4.0]), (np.array([0, 0, 3]), np.array([5, 5, 5]))),
                        shape=X.shape)
    np.testing.assert_allclose(
        selbayes.filters._selection._f_statistic_sparse(dup, y, 2)[5],
        f_statistic(dup.toarray(), y, 2)[5], rtol=1e-12)


def _corrcoef_cols(X, y):
    return np.array([np.corrcoef(X[:, j], y)[0, 1] for j in range(X.shape[1])])


@pytest.mark.parametrize("n0, n1", [(10, 10), (3, 25), (40, 2)])
def test_abs_corr_equals_numpy_corrcoef(n0, n1):
    rng = np.random.default_rng(n0 * 100 + n1)
    y = rng.permutation(np.repeat([0, 1], [n0, n1]))
    p = 400
    probs = rng.uniform(0.05, 0.95, size=(2, p))
    X = (rng.random((y.size, p)) < probs[y]).astype(float)
    X[:, 0] = 0.0                          # constant features: correlation defined as 0
    X[:, 1] = 1.0
    sel = select_features(X, y, k=3, statistic="abs_corr")
    with np.errstate(invalid="ignore", divide="ignore"):
        ref = np.abs(_corrcoef_cols(X, y))
    const = X.min(axis=0) == X.max(axis=0)
    assert const[:2].all() and np.all(np.isnan(ref[const]))   # corrcoef: nan; ours: 0
    assert np.all(sel.scores[const] == 0.0)
    np.testing.assert_allclose(sel.scores[~const], ref[~const], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(abs_correlation(X, y), sel.scores)


def test_binary_correlation_signed_and_broadcast():
    # eq 2.46 against corrcoef on every count pair of a small design (signed)
    n0, n1 = 4, 3
    y = np.repeat([0, 1], [n0, n1])
    I0, I1 = np.meshgrid(np.arange(n0 + 1), np.arange(n1 + 1), indexing="ij")
    got = binary_correlation(I0, I1, n0, n1)
    for i0 in range(n0 + 1):
        for i1 in range(n1 + 1):
            x = np.r_[np.ones(i0), np.zeros(n0 - i0), np.ones(i1), np.zeros(n1 - i1)]
            want = 0.0 if x.std() == 0 else np.corrcoef(x, y)[0, 1]
            assert got[i0, i1] == pytest.approx(want, abs=1e-14)


# ---------------------------------------------------------------------------------------------
# ranking, ties and the Selection record


def test_tie_rule_lowest_index_first_and_omitted_at_most_gamma():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], [6, 6])
    X = (rng.random((12, 200)) < 0.5).astype(float)          # binary: many exact ties
    X[:, 150] = X[:, 7]                                         # a guaranteed duplicate pair
    sel = select_features(X, y, k=20, statistic="abs_corr")
    ref = np.lexsort((np.arange(200), -sel.scores))[:20]       # stable: score desc, index asc
    np.testing.assert_array_equal(sel.indices, ref)
    gamma = sel.threshold
    assert gamma == sel.scores[sel.indices[-1]]
    om = sel.omitted_indices
    assert np.all(sel.scores[om] <= gamma) and sel.omitted_below_threshold
    assert sel.n_ties_at_threshold == np.count_nonzero(sel.scores[om] == gamma)
    assert sel.n_ties_at_threshold > 0                         # the case this test is about
    # ties are resolved towards the lowest index: any omitted tie has a larger index
    kept_at_gamma = sel.indices[sel.scores[sel.indices] == gamma]
    omitted_at_gamma = om[sel.scores[om] == gamma]
    assert kept_at_gamma.max() < omitted_at_gamma.min()


def test_selection_record_fields():
    rng = np.random.default_rng(4)
    y = np.array(["b", "a", "c"] * 10)
    X = rng.normal(size=(30, 50))
    sel = select_features(X, y, k=7)
    assert isinstance(sel, Selection) and isinstance(selbayes.Selection, type)
    assert sel.n_features == 50 and sel.n_selected == 7 and sel.n_omitted == 43
    assert sel.statistic == "f" and sel.rule == "k" and sel.n_classes == 3
    np.testing.assert_array_equal(sel.classes, ["a", "b", "c"])
    np.testing.assert_array_equal(sel.class_counts, [10, 10, 10])
    np.testing.assert_array_equal(sel.transform(X), X[:, sel.indices])
    attrs = sel.to_attrs()
    assert attrs["selection_indices"] == sel.indices.tolist()
    assert attrs["selection_classes"] == ["a", "b", "c"]
    with pytest.raises(AttributeError):
        sel.threshold = 0.0                                     # frozen
    with pytest.raises(ValueError, match="columns"):
        sel.transform(X[:, :10])


def test_threshold_mode():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 8)
    X = rng.normal(size=(24, 300))
    scores = select_features(X, y, k=1).scores
    gamma = float(np.quantile(scores, 0.9))
    sel = select_features(X, y, threshold=gamma)
    assert sel.rule == "threshold" and sel.threshold == gamma
    np.testing.assert_array_equal(np.sort(sel.indices), np.flatnonzero(scores > gamma))
    assert np.all(np.diff(sel.scores[sel.indices]) <= 0)
    assert sel.omitted_below_threshold
    # a threshold equal to an attained score omits that feature (strict >) and counts the tie
    tie = select_features(X, y, threshold=float(scores[17]))
    assert 17 not in tie.indices and tie.n_ties_at_threshold == 1


def test_string_labels_and_k_equal_ranks():
    rng = np.random.default_rng(6)
    y_int = rng.permutation(np.repeat([0, 1, 2], [7, 9, 5]))
    y_str = np.array(["control", "drug", "placebo"])[y_int]
    X = rng.normal(size=(21, 80))
    a = select_features(X, y_int, k=10)
    b = select_features(X, list(y_str), k=10)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(b.class_counts, [7, 9, 5])
    Xb = (X > 0).astype(float)
    yb = np.where(y_int == 1, "yes", "no")
    c = select_features(Xb, yb, k=4, statistic="abs_corr")
    with np.errstate(invalid="ignore"):
        ref = np.nan_to_num(np.abs(_corrcoef_cols(Xb, (yb == "yes").astype(float))))
    np.testing.assert_allclose(c.scores, ref, atol=1e-13)


def test_pandas_input():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(7)
    X = rng.normal(size=(20, 6))
    y = np.repeat(["u", "v"], 10)
    a = select_features(pd.DataFrame(X), pd.Series(y), k=2)
    b = select_features(X, y, k=2)
    np.testing.assert_array_equal(a.indices, b.indices)


# ---------------------------------------------------------------------------------------------
# property-based tests

_settings = settings(max_examples=40, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@st.composite
def gaussian_problem(draw):
    G = draw(st.integers(2, 4))
    counts = draw(st.lists(st.integers(2, 8), min_size=G, max_size=G))
    p = draw(st.integers(2, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(G), counts))
    X = rng.normal(size=(y.size, p)) + rng.normal(size=(G, p))[y]
    return X, y


@_settings
@given(gaussian_problem(),
       st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3),
       st.floats(-1e3, 1e3))
def test_f_invariant_to_affine_transform_of_columns(problem, a, b):
    X, y = problem
    f0 = f_statistic(X, y, int(y.max()) + 1)
    f1 = f_statistic(a * X + b, y, int(y.max()) + 1)
    # Rounding a * X + b perturbs each entry by about eps (|b / a| + |X|) in X's units, and
    # sqrt(F), like a t statistic, moves by about sqrt(n) times that: an absolute error, which
    # is a large relative one where F is near 0 (a = 0.001, b = 512 once gave F = 1.6e-7 to
    # a relative 1.6e-7).
    atol = 10 * np.finfo(float).eps * (1 + abs(b / a) + np.abs(X).max()) * np.sqrt(y.size)
    np.testing.assert_allclose(np.sqrt(f1), np.sqrt(f0), rtol=1e-7, atol=atol)


@_settings
@given(gaussian_problem(), st.integers(0, 2**32 - 1))
def test_f_invariant_to_case_order_and_label_names(problem, seed):
    X, y = problem
    rng = np.random.default_rng(seed)
    perm = rng.permutation(y.size)
    names = np.array(["z", "m", "a", "q"])[: int(y.max()) + 1]
    a = select_features(X, y, k=1)
    b = select_features(X[perm], names[y[perm]], k=1)
    np.testing.assert_allclose(b.scores, a.scores, rtol=1e-10)


@st.composite
def binary_problem(draw):
    n0 = draw(st.integers(2, 8))
    n1 = draw(st.integers(2, 8))
    p = draw(st.integers(3, 60))
    k = draw(st.integers(1, p - 1))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat([0, 1], [n0, n1]))
    X = (rng.random((n0 + n1, p)) < rng.uniform(0, 1, size=p)).astype(float)
    return X, y, k


@_settings
@given(binary_problem())
def test_selection_is_top_k_of_stable_sort(problem):
    X, y, k = problem                      # small binary data: ties are everywhere
    sel = select_features(X, y, k=k, statistic="abs_corr")
    p = X.shape[1]
    order = np.lexsort((np.arange(p), -sel.scores))
    np.testing.assert_array_equal(sel.indices, order[:k])
    s = sel.scores[sel.indices]
    assert np.all(np.diff(s) <= 0)                                  # best first
    assert np.all(sel.scores[sel.omitted_indices] <= sel.threshold)
    assert np.all(s >= sel.threshold)
    assert sel.n_ties_at_threshold == np.count_nonzero(
        sel.scores[sel.omitted_indices] == sel.threshold)
    # permuting the columns permutes the scores
    perm = np.random.default_rng(k).permutation(p)
    np.testing.assert_array_equal(
        select_features(X[:, perm], y, k=k, statistic="abs_corr").scores, sel.scores[perm])


# ---------------------------------------------------------------------------------------------
# validation (issue 2, item 5)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(10, 6)), np.repeat([0, 1], 5)


def test_x_not_2d(data):
    X, y = data
    with pytest.raises(ValueError, match="X must be 2-D.*1 dimension"):
        select_features(X[:, 0], y, k=1)
    with pytest.raises(ValueError, match="X must be 2-D.*3 dimension"):
        select_features(X[:, :, None], y, k=1)


def test_x_nan_and_inf_counted_and_located(data):
    X, y = data
    X = X.copy()
    X[3, 4] = np.nan
    X[2, 5] = np.inf
    X[7, 0] = np.nan
    with pytest.raises(ValueError, match=r"2 NaN and 1 infinite.*row 2, column 5"):
        select_features(X, y, k=1)


def test_y_length_mismatch(data):
    X, y = data
    with pytest.raises(ValueError, match="y has 9 labels but X has 10 rows"):
        select_features(X, y[:9], k=1)


def test_fewer_than_two_classes(data):
    X, _ = data
    with pytest.raises(ValueError, match=r"1 class\(es\).*at least 2"):
        select_features(X, ["only"] * 10, k=1)


def test_a_class_of_one_case_has_the_one_way_anova_f(data):
    """A class of one case adds to the between-class spread and nothing to the within-class
    df (n - G): the F statistic is scipy's one-way ANOVA F with that group of one."""
    from scipy.stats import f_oneway

    X, _ = data
    y = np.array(["a"] * 5 + ["b"] * 4 + ["lonely"])
    sel = select_features(X, y, k=1)
    expected = f_oneway(*(X[y == g] for g in ("a", "b", "lonely"))).statistic
    np.testing.assert_allclose(sel.scores, expected, rtol=1e-10)
    with pytest.raises(ValueError, match=r"n - G >= 1"):
        select_features(X[:3], ["a", "b", "c"], k=1)


@pytest.mark.parametrize("k", [0, -1, 6, 7])
def test_k_out_of_range(data, k):
    X, y = data
    with pytest.raises(ValueError, match=r"1 <= k < p = 6"
                                         + (r".*all 6 features.*k='all'" if k > 0 else "")):
        select_features(X, y, k=k)


def test_k_not_an_integer(data):
    X, y = data
    with pytest.raises(TypeError, match="k must be an integer"):
        select_features(X, y, k=2.0)


def test_threshold_keeping_none_or_all(data):
    X, y = data
    scores = select_features(X, y, k=1).scores
    with pytest.raises(ValueError, match="keeps no feature"):
        select_features(X, y, threshold=float(scores.max()))
    with pytest.raises(ValueError, match="keeps every feature"):
        select_features(X, y, threshold=float(scores.min()) - 1.0)
    with pytest.raises(ValueError, match="threshold must be finite"):
        select_features(X, y, threshold=np.nan)


def test_exactly_one_of_k_and_threshold(data):
    X, y = data
    with pytest.raises(ValueError, match="exactly one of k and threshold"):
        select_features(X, y)
    with pytest.raises(ValueError, match="exactly one of k and threshold"):
        select_features(X, y, k=1, threshold=0.5)


def test_unknown_statistic(data):
    X, y = data
    with pytest.raises(ValueError, match="statistic must be one of"):
        select_features(X, y, k=1, statistic="t")


def test_abs_corr_needs_binary_x_and_y(data):
    X, y = data
    with pytest.raises(ValueError, match=r"must be binary \(0/1\)"):
        select_features(X, y, k=1, statistic="abs_corr")
    Xb = (X > 0).astype(float)
    y3 = np.repeat([0, 1, 2], [3, 3, 4])
    with pytest.raises(ValueError, match="needs a binary class; y has 3 classes"):
        select_features(Xb, y3, k=1, statistic="abs_corr")


@pytest.mark.parametrize("k, threshold", [(2, None), (None, 0.2)])
def test_selection_from_scores_refuses_nan_scores(k, threshold):
    """A NaN is neither above nor below gamma: top-k kept one feature for k = 2, and a
    threshold counted the NaN feature as omitted, both silently."""
    with pytest.raises(ValueError, match=r"1 score\(s\) are NaN \(positions \[1\]\)"):
        selection_from_scores(np.array([0.1, np.nan, 0.5, 0.3]), k=k, threshold=threshold,
                              statistic="x", class_counts=[3, 3], classes=np.array([0, 1]))


def test_selections_compare_by_value():
    """== compared the generated tuple of arrays (numpy's "truth value of an array is
    ambiguous"); now field by field, arrays by value, ``extra`` left out."""
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 8)), np.repeat([0, 1], 10)
    a, b = select_features(X, y, k=3), select_features(X, y, k=3)
    assert a == b and not a != b and a in [b]
    assert a != select_features(X, y, k=4) and a != select_features(X[:, ::-1], y, k=3)
    assert a != "a selection"
    listed = Selection(**{**a.__dict__, "classes": a.classes.tolist()})
    assert listed == a and a == listed                  # an array on either side
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)


@pytest.mark.parametrize("call, match", [
    (lambda X, y: f_statistic(X, y[:8], 2), "y_index has 8 entries but X has 10 rows"),
    (lambda X, y: f_statistic(X, y, 3), r"lacks class\(es\) \[2\]"),
    (lambda X, y: f_statistic(X, np.zeros(10, int), 1), "n_classes must be an integer >= 2"),
    (lambda X, y: f_statistic(X, y + 1, 2), "class indices 0..1"),
    (lambda X, y: f_statistic(X[0], y, 2), "X must be a 2-D matrix"),
    (lambda X, y: abs_correlation(X, np.arange(10) % 3), "class indices 0..1"),
    (lambda X, y: abs_correlation(X, np.repeat(["a", "b"], 5)), "encode the labels first"),
    (lambda X, y: binary_correlation([7], [0], 5, 5), r"I0 must hold whole numbers in 0\.\.5"),
    (lambda X, y: binary_correlation([1], [0.5], 5, 5), r"I1 must hold whole numbers"),
])
def test_scoring_functions_name_inputs_they_cannot_score(call, match):
    """The exported scoring functions took their callers' validation for granted: y_index
    of another length, a class index out of range or an absent class gave other numbers or
    NaN without a word, counts beyond n0 a "correlation" of -1.5."""
    X = np.random.default_rng(0).integers(0, 2, size=(10, 4)).astype(float)
    with pytest.raises(ValueError, match=match):
        call(X, np.repeat([0, 1], 5))


def test_f_statistic_of_a_frame_or_integers_is_that_of_the_float_matrix():
    rng = np.random.default_rng(1)
    X, y = rng.integers(0, 9, size=(12, 5)), np.repeat([0, 1, 2], 4)
    want = f_statistic(X.astype(float), y, 3)
    np.testing.assert_array_equal(f_statistic(X, y, 3), want)
    np.testing.assert_array_equal(f_statistic(pd.DataFrame(X), y, 3), want)


def test_selection_from_scores_needs_k_or_threshold():
    with pytest.raises(ValueError, match="give either k .* or threshold"):
        selection_from_scores(np.array([0.1, 2.0, 0.5]), k=None, threshold=None,
                              statistic="x", class_counts=[2, 2], classes=np.array([0, 1]))


@pytest.mark.parametrize("bad", [True, False, np.True_, "1", "0.5", b"1", 1 + 0j, [1.0]])
def test_threshold_must_be_a_real_number(data, bad):
    from selbayes.filters import selection_from_scores

    X, y = data
    with pytest.raises(TypeError, match="threshold must be a number"):
        select_features(X, y, threshold=bad)
    with pytest.raises(TypeError, match="threshold must be a number"):
        selection_from_scores(np.array([0.1, 2.0, 0.5]), k=None, threshold=bad,
                              statistic="x", class_counts=[2, 2], classes=np.array([0, 1]))


@pytest.mark.parametrize("good", [1, np.int64(1), 1.0, np.float32(1.0), np.array(1.0)])
def test_threshold_real_numbers_accepted(good):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 30))
    y = np.repeat([0, 1], 20)
    X[y == 1, :3] += 3.0
    sel = select_features(X, y, threshold=good)
    assert sel.threshold == 1.0 and np.all(sel.scores[sel.indices] > 1.0)


def _continuous_y(kind):
    rng = np.random.default_rng(5)
    if kind == "all distinct":
        return rng.normal(size=20)
    if kind == "one tie":
        return np.r_[rng.normal(size=19), 0.0, 0.0][1:]
    return np.round(rng.normal(size=20), 1)          # "rounded": ties, still mostly distinct


@pytest.mark.parametrize("statistic", ["f", "abs_corr"])
@pytest.mark.parametrize("kind", ["all distinct", "one tie", "rounded"])
def test_continuous_y_is_not_class_labels(kind, statistic):
    X = (np.random.default_rng(6).normal(size=(20, 8)) > 0).astype(float)
    y = _continuous_y(kind)
    with pytest.raises(ValueError, match=r"Unknown label type: continuous\. y holds \d+ "
                                         r"distinct real values among 20 cases.*looks "
                                         r"continuous.*needs class labels"):
        select_features(X, y, k=2, statistic=statistic)


@pytest.mark.parametrize("y", [np.repeat([0.0, 1.0], 10),                 # whole-number floats
                               np.repeat([0.5, 1.5, 2.5, 4.0], 5),        # dose groups
                               np.r_[np.arange(9.0), np.zeros(11)]])     # 9 of 20 distinct
def test_float_class_labels_accepted(y):
    X = np.random.default_rng(7).normal(size=(20, 8))
    sel = select_features(X, y, k=2)
    assert sel.n_classes == np.unique(y).size


@pytest.mark.parametrize("y, message", [
    (np.r_[np.repeat([0.0, 1.0], 5)[:-1], np.nan], "y contains NaN or infinite labels"),
    (np.r_[np.repeat([0.0, 1.0], 5)[:-1], np.inf], "y contains NaN or infinite labels"),
    ([0, 0, 0, 0, 0, 1, 1, 1, 1, None], r"y contains missing labels \(None"),
    (["a"] * 5 + ["b"] * 4 + [None], r"y contains missing labels .*position 9"),
    (np.arange(10), r"n - G >= 1.*n = 10 cases in G = 10 classes, one case per class"),
])
def test_missing_labels_and_one_case_per_class(data, y, message):
    X, _ = data
    with pytest.raises(ValueError, match=message):
        select_features(X, y, k=1)


def test_missing_labels_pandas_na(data):
    import pandas as pd

    X, _ = data
    y = pd.Series([0, 0, 0, 0, 0, 1, 1, 1, 1, pd.NA], dtype="Int64")
    with pytest.raises(ValueError, match=r"y contains (NaN|missing labels)"):
        select_features(X, y, k=1)


def test_a_class_of_one_case_with_abs_corr(data):
    """A binary class with one case in a class is a valid correlation (eq 2.46)."""
    X, _ = data
    Xb = (X > 0).astype(float)
    y = np.r_[0, np.ones(9, dtype=int)]
    sel = select_features(Xb, y, k=2, statistic="abs_corr")
    expected = [abs(np.corrcoef(Xb[:, j], y)[0, 1]) if Xb[:, j].std() > 0 else 0.0
                for j in range(Xb.shape[1])]
    np.testing.assert_allclose(sel.scores, expected, atol=1e-12)
