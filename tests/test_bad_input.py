"""Bad input a new user meets: each gives an error (or warning) naming the problem."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from selbayes import (
    BinaryNaiveBayesClassifier,
    HierarchicalGaussianClassifier,
    select_features,
)
from selbayes.datasets import binary_naive_bayes


def _gauss(n=30, p=12, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[y == 1, :3] += 2.0
    return X, y


def _binary(p=30):
    d = binary_naive_bayes(None, p, alpha=30.0, class_counts=(20, 20), random_state=0)
    return d.X, d.y


def test_a_feature_constant_within_each_class_is_named():
    """F = inf (the class read off one column) was a PriorBoundaryWarning advising to rescale,
    then 'threshold must be > 0 and finite' from deep inside the selection factor."""
    X, y = _gauss()
    X[:, 7] = np.where(y == 0, 3.0, 4.0)
    with pytest.raises(ValueError, match=r"1 column\(s\) of X \(positions \[7\]\) separate "
                                         r"the classes with no variance"):
        _plugin().fit(X, y)
    with pytest.raises(ValueError, match=r"positions \[7\]"):
        select_features(X, y, k=3)


def test_overflowing_f_statistic():
    X, y = _gauss()
    with pytest.raises(ValueError, match="F statistic overflows float64.*rescale X"):
        HierarchicalGaussianClassifier(k=3).fit(X * 1e300, y)
    with pytest.raises(ValueError, match="F statistic overflows"):
        select_features(X * 1e300, y, k=3)


def test_a_too_small_scale_is_named_not_read_as_no_signal():
    """Values whose squares are subnormal (below 1.5e-154) lose the sums of squares' digits;
    at 1e-170 every F came out 0 and the fit said no feature was related to the class. The
    scores at the smallest scale kept are the scores of X itself (F is scale-free)."""
    import scipy.sparse as sp

    X, y = _gauss()
    for small in (X * 1e-170, X / np.abs(X).max() * 1e-155, sp.csr_matrix(X * 1e-170)):
        with pytest.raises(ValueError, match="X is too small in scale for float64.*rescale X"):
            select_features(small, y, k=3)
    with pytest.raises(ValueError, match="X is too small in scale"):
        HierarchicalGaussianClassifier(k=3).fit(X * 1e-170, y)
    np.testing.assert_allclose(select_features(X / np.abs(X).max() * 1e-153, y, k=3).scores,
                               select_features(X, y, k=3).scores, rtol=1e-12)


def test_all_constant_X():
    X, y = _gauss()
    with pytest.raises(ValueError, match="every feature is constant"):
        HierarchicalGaussianClassifier(k=3).fit(np.ones_like(X), y)
    with pytest.raises(ValueError, match="every feature is constant"):
        BinaryNaiveBayesClassifier(k=3).fit(np.ones((40, 10)), np.repeat([0, 1], 20))


def test_k_beyond_the_varying_features():
    X, y = _gauss()
    X[:, 4:] = 1.0
    with pytest.raises(ValueError, match=r"only 4 of the 12 features have F > 0.*k <= 4"):
        HierarchicalGaussianClassifier(k=6).fit(X, y)


@pytest.mark.parametrize("missing", [np.nan, pd.NA, None])
def test_object_labels_with_missing_values(missing):
    X, y = _binary()
    labels = np.where(y == 1, "tumour", "normal").astype(object)
    labels[5] = missing
    with pytest.raises(ValueError, match=r"missing labels.*1 of them, the first at position 5"):
        BinaryNaiveBayesClassifier(k=3).fit(X, labels)
    with pytest.raises(ValueError, match="missing label"):
        BinaryNaiveBayesClassifier(k=3).fit(X, pd.Series(labels, dtype="string"))


def test_sparse_X_is_supported_and_matches_dense():
    X, y = _binary()
    dense = BinaryNaiveBayesClassifier(k=5).fit(X, y)
    sparse = BinaryNaiveBayesClassifier(k=5).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sparse.selection_.indices, dense.selection_.indices)
    np.testing.assert_allclose(sparse.predict_proba(sp.csr_matrix(X)), dense.predict_proba(X),
                               rtol=1e-12)
    Xg, yg = _gauss()
    Xg[np.abs(Xg) < 0.8] = 0.0
    s_sel = select_features(sp.csc_matrix(Xg), yg, k=4)
    d_sel = select_features(Xg, yg, k=4)
    np.testing.assert_array_equal(s_sel.indices, d_sel.indices)
    np.testing.assert_allclose(s_sel.scores, d_sel.scores, rtol=1e-9)
    with pytest.raises(ValueError, match="must be binary"):
        BinaryNaiveBayesClassifier(k=3).fit(sp.csr_matrix(X * 2.0), y)


def test_duplicated_column_names_are_an_error_as_in_read_table():
    X, y = _binary(p=6)
    df = pd.DataFrame(X, columns=["a", "b", "a", "c", "d", "b"])
    with pytest.raises(ValueError, match=r"2 duplicated column name\(s\): \['a', 'b'\]"):
        BinaryNaiveBayesClassifier(k=2).fit(df, y)
    BinaryNaiveBayesClassifier(k=2).fit(df.to_numpy(), y)          # the way out it names


def test_labels_indexed_in_another_order_than_x_warn():
    """Positional pairing (scikit-learn's) of a Series whose index lists X's samples in another
    order is almost surely a mistake: it warns; an aligned or plain y does not."""
    import warnings

    X, y = _binary(p=6)
    ids = [f"s{i}" for i in range(len(y))]
    df = pd.DataFrame(X, index=ids)
    shuffled = pd.Series(y, index=ids).iloc[::-1]
    with pytest.warns(UserWarning, match=r"y's index holds the samples of X's index in "
                                         r"another order .* X has 's0' first, y has 's"):
        BinaryNaiveBayesClassifier(k=2).fit(df, shuffled)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BinaryNaiveBayesClassifier(k=2).fit(df, shuffled.loc[df.index])
        BinaryNaiveBayesClassifier(k=2).fit(df, shuffled.to_numpy())


@pytest.mark.parametrize("damage", ["truncate", "garbage", "foreign"])
def test_damaged_saved_file(tmp_path, damage):
    import xarray as xr

    X, y = _binary()
    path = BinaryNaiveBayesClassifier(k=3).fit(X, y).save(tmp_path / "fit.nc")
    if damage == "truncate":
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a netCDF file at all")
    else:                                    # a valid netCDF file that is not a selbayes fit
        xr.Dataset({"a": ("x", [1.0, 2.0])}).to_netcdf(path, engine="h5netcdf")
    phrase = "does not hold a BinaryNaiveBayesClassifier" if damage == "foreign" else \
        "not a readable selbayes fit"
    with pytest.raises(ValueError, match=phrase) as info:
        BinaryNaiveBayesClassifier.load(path)
    assert str(path) in str(info.value)


def test_missing_group_in_saved_file(tmp_path):
    import xarray as xr

    X, y = _binary()
    path = BinaryNaiveBayesClassifier(k=3).fit(X, y).save(tmp_path / "fit.nc")
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    del tree["quadrature_internal"]
    tree.to_netcdf(tmp_path / "cut.nc", engine="h5netcdf")
    with pytest.raises(ValueError, match="cut.nc is not a readable selbayes fit"):
        BinaryNaiveBayesClassifier.load(tmp_path / "cut.nc")


def test_diagnostics_on_a_quadrature_fit():
    from selbayes.evaluation import check

    X, y = _binary()
    clf = BinaryNaiveBayesClassifier(k=3).fit(X, y)
    with pytest.raises(ValueError, match="has no draws.*quadrature"):
        check(clf.idata_)
    with pytest.raises(ValueError, match="has no draws"):
        check(clf)


def test_sparse_gaussian_fit_with_mock_sampling():
    from pymc.testing import mock_sample_setup_and_teardown

    X, y = _gauss()
    gen = mock_sample_setup_and_teardown()
    next(gen)
    try:
        clf = HierarchicalGaussianClassifier(k=3, draws=10, chains=1, sampler="pymc",
                                             progressbar=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(sp.csr_matrix(X), y)
        assert clf.predict_proba(sp.csr_matrix(X)).shape == (30, 2)
        np.testing.assert_array_equal(clf.predict_proba(sp.csr_matrix(X)),
                                      clf.predict_proba(X))
    finally:
        next(gen, None)


# ------------------------------------------------- the second audit of the API (2026-11-29)
def _plugin(**kw):
    return HierarchicalGaussianClassifier(**{"k": 3, "method": "plugin", "random_state": 0,
                                             "progressbar": False, **kw})


def test_x_as_a_list_of_lists_fits_and_predicts():
    """A list's ``index`` is a method, not sample ids (the audit's TypeError)."""
    X, y = _gauss()
    clf = _plugin().fit(X.tolist(), y.tolist())
    np.testing.assert_array_equal(clf.predict_proba(X.tolist()), clf.predict_proba(X))


def test_values_far_outside_the_training_data_are_an_error_not_a_non_distribution():
    """At |x| of 1e17 and more float64 cannot resolve the classes' log densities: rows came out
    [1, 1], [0.5, 0.5] or NaN. Now an error naming the rows; 1e12 still predicts, resolved."""
    X, y = _gauss()
    clf = _plugin().fit(X, y)
    fine = X[:2].copy()
    fine[0, 0] = 1e12
    np.testing.assert_allclose(clf.predict_proba(fine).sum(axis=1), 1.0, rtol=1e-12)
    assert clf.predict_proba(fine)[0].max() == 1.0        # resolved: one class, not 50/50
    for big in (1e17, 1e20, 9.97e36, 1e200):
        bad = X[:3].copy()
        bad[1, 0] = big
        with pytest.raises(ValueError, match=r"1 row\(s\) of X \(positions \[1\]\) give class "
                                             r"probabilities that float64 cannot resolve"):
            clf.predict_proba(bad)


def test_rows_on_another_scale_than_fit_warn():
    """Raw intensities given to a fit on log2 values, or log2 taken twice: every probability
    came out near 0 or 1 without a word. Rows like the training ones, and a real outlier in
    one gene, do not warn; a fill value in one gene warns of that gene."""
    from selbayes.estimators import FarFromTrainingWarning

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 20)
    logged = 8.0 + rng.normal(size=(40, 50))              # log2 intensities around 2^8
    logged[y == 1, :5] += 1.5
    clf = _plugin(k=10).fit(logged[::2], y[::2])
    new = logged[1::2]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FarFromTrainingWarning)
        clf.predict_proba(new)                            # the same scale: silent
        one_off = new.copy()
        gene = clf.selection_.indices[0]
        one_off[0, gene] = logged[::2, gene].mean() - 20.0  # 20 SDs (unit SD): silent
        clf.predict_proba(one_off)
    # a fill value in one kept gene (it decided the probability alone, to 1 - 1e-300): the
    # scale check's median holds, the one-feature check names the gene and the row, once
    one_off[0, gene] = 1e6
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        clf.predict_proba(one_off)
    far = [w.message for w in said if w.category is FarFromTrainingWarning]
    assert len(far) == 1 and far[0].rows == [0]
    assert str(far[0]).startswith(
        f"1 of 20 rows of X (positions [0]) have a kept feature far from every class's "
        f"predictive distribution (predictive SDs from the nearest class mean: "
        f"'{clf.selected_features_[0]}' ")
    with pytest.warns(FarFromTrainingWarning, match=r"20 of 20 rows of X \(positions "
                                                    r"\[0, 1, 2, 3, 4\]\) lie far from"):
        clf.predict_proba(2.0 ** new)                     # raw intensities
    with pytest.warns(FarFromTrainingWarning, match="log2 taken once"):
        clf.predict_proba(np.log2(new))                   # log2 taken twice


def test_evaluate_and_score_warn_on_a_misordered_y_and_check_its_length():
    X, y = _gauss()
    ids = [f"s{i}" for i in range(len(y))]
    Xd = pd.DataFrame(X, index=ids, columns=[f"g{j}" for j in range(X.shape[1])])
    ys = pd.Series(np.where(y == 0, "ctl", "case"), index=ids)
    clf = _plugin().fit(Xd, ys)
    shuffled = ys.iloc[::-1]
    with pytest.warns(UserWarning, match="y's index holds the samples of X's index"):
        clf.evaluate(Xd, shuffled)
    with pytest.warns(UserWarning, match="y's index holds the samples of X's index"):
        clf.score(Xd, shuffled)
    with pytest.raises(ValueError, match=r"y has 29 label\(s\) for the 30 rows of X"):
        clf.evaluate(Xd, ys.iloc[:-1])


def test_a_loss_dataframe_is_read_by_its_labels():
    """A DataFrame loss labelled by class is reordered to classes_ (it was read by position);
    labels that are not the classes are an error."""
    X, y = _gauss()
    labels = np.where(y == 0, "ctl", "case")                 # classes_ = ['case', 'ctl']
    clf = _plugin().fit(X, labels)
    L = pd.DataFrame([[0.0, 10.0], [1.0, 0.0]], index=["ctl", "case"], columns=["ctl", "case"])
    ordered = L.loc[list(clf.classes_), list(clf.classes_)].to_numpy()
    np.testing.assert_array_equal(clf.predict(X, loss=L), clf.predict(X, loss=ordered))
    assert clf.evaluate(X, labels, loss=L) == clf.evaluate(X, labels, loss=ordered)
    with pytest.raises(ValueError, match=r"loss DataFrame's index \(true classes\) are "
                                         r"\['ctl', 'other'\]"):
        clf.predict(X, loss=L.rename(index={"case": "other"}))


def test_two_cases_per_class_fit_with_the_default_share_and_auto_says_what_it_needs():
    """The documented minimum of two cases per class fits with label_noise="cv" (Laplace's
    share: inner training folds of 2 cases for 2 classes have no within-class variance); a
    setting chosen by the inner cross-validation says why it cannot (was an inner fold's
    'n = 2')."""
    X = np.random.default_rng(0).normal(size=(4, 50))
    X[2:, :2] += 3.0
    y = np.array([0, 0, 1, 1])
    clf = _plugin(k=2).fit(X, y)
    assert clf.label_noise_ == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match=r'k="auto" is chosen by inner cross-validation, whose '
                                         r"training folds would hold 2 cases for 2 classes"):
        _plugin(k="auto").fit(X, y)
    # a class of two among larger ones still has its inner cross-validation
    X40 = np.random.default_rng(1).normal(size=(40, 50))
    y40 = np.r_[np.zeros(38, int), 1, 1]
    X40[y40 == 1, :2] += 3.0
    assert _plugin(k="auto").fit(X40, y40).k_choice_ is not None


@pytest.mark.parametrize(("kw", "match"), [
    ({"k": "auto", "k_grid": []}, "k_grid is empty"),
    ({"k": "auto", "k_grid": [0, 5]}, r"k_grid must hold integers >= 1; got \[0\]"),
    ({"k": "auto", "k_grid": [float("nan"), 5]}, "k_grid must hold integers >= 1"),
    ({"k": "auto", "k_grid": [5.5, 7]}, r"k_grid must hold integers >= 1; got \[5.5\]"),
    ({"temperature": "auto", "temperature_grid": []}, "temperature_grid is empty"),
    ({"temperature": "auto", "temperature_grid": [0, 1]}, "temperature_grid must hold finite"),
    ({"decorrelate": "auto", "decorrelate_grid": []}, "decorrelate_grid is empty"),
    ({"decorrelate": "auto", "decorrelate_grid": [-1]}, "decorrelate_grid must hold finite"),
])
def test_bad_candidate_grids_name_the_grid(kw, match):
    """Empty grids were bare numpy/IndexError messages, invalid k quietly dropped or
    truncated, a bad T or lambda named the wrong parameter."""
    X, y = _gauss()
    with pytest.raises(ValueError, match=match):
        _plugin(**kw).fit(X, y)


@pytest.mark.parametrize("grid", [["foo"], [], [None]])
def test_an_unused_effect_prior_grid_is_checked_as_the_other_grids(grid):
    """effect_prior_grid was checked only with effect_prior="auto" (the other grids always)."""
    X, y = _gauss()
    with pytest.raises(ValueError, match="effect_prior_grid"):
        _plugin(effect_prior_grid=grid).fit(X, y)


@pytest.mark.parametrize(("priors", "error", "match"), [
    ({"alpha_nu": True}, TypeError, r"priors.alpha_nu must be a number; got True"),
    ({"c": "1"}, TypeError, r"priors.c must be a number; got '1'"),
    ({"mu_t_df_grid": [1, 2, "x"]}, TypeError, r"priors.mu_t_df_grid must be a number"),
])
def test_prior_settings_must_be_numbers_not_bools_or_text(priors, error, match):
    """True and "1" were read as 1.0 (float() takes both); a text df in the grid was
    Python's "'<' not supported between instances of 'str' and 'float'"."""
    X, y = _gauss()
    with pytest.raises(error, match=match):
        _plugin(effect_prior="normal", priors=priors).fit(X, y)


def test_prior_settings_of_the_binary_models_must_be_numbers():
    from selbayes.models import MixturePrior, NaiveBayesPrior

    with pytest.raises(TypeError, match=r"prior.f0 must be a number; got True"):
        NaiveBayesPrior.from_dict({"f0": True})
    with pytest.raises(ValueError, match=r"MixturePrior.f1 must be a finite number > 0"):
        MixturePrior.from_dict({"f1": "0.5"})


@pytest.mark.parametrize("kw", [{"k": 5}, {"threshold": 1.0}])
def test_selection_from_a_single_feature_says_so(kw):
    """One feature: the message was about an internal k = 1, not the user's setting."""
    X, y = _gauss()
    with pytest.raises(ValueError, match=r"selecting features needs at least 2 .* X has 1: "
                                         r"k='all' fits the model to it"):
        _plugin(**kw).fit(X[:, :1], y)


def test_score_checks_y_as_evaluate_does_and_save_load_name_a_bad_path(tmp_path):
    """score passed y to scikit-learn, whose messages name neither y nor the fix; save(123)
    and load(3.5) were pathlib's "argument should be a str or an os.PathLike object"."""
    X, y = _gauss()
    clf = _plugin().fit(X, y)
    with pytest.raises(ValueError, match=r"y has 29 label\(s\) for the 30 rows of X"):
        clf.score(X, y[:-1])
    with pytest.raises(ValueError, match=r"y holds text where the classifier's classes are "
                                         r"numbers"):
        clf.score(X, y.astype(str))
    assert clf.score(X, y) == np.mean(clf.predict(X) == y)
    with pytest.raises(TypeError, match=r"path must be a file name \(a str or os.PathLike\); "
                                        r"got int 123"):
        clf.save(123)
    with pytest.raises(TypeError, match=r"path must be a file name"):
        HierarchicalGaussianClassifier.load(3.5)


def test_mcmc_diagnostics_of_a_plugin_fit_say_there_are_no_chains():
    """check() on a plug-in fit reported 'R-hat > 1.01 for 26 of 26 components'."""
    from selbayes.evaluation import check

    X, y = _gauss()
    with pytest.raises(ValueError, match=r"no MCMC draws: method='plugin'"):
        check(_plugin().fit(X, y).idata_)


def test_fit_path_names_ks_and_a_singular_decorrelation_names_decorrelate():
    X, y = _gauss()
    with pytest.raises(ValueError, match=r"every k of ks must be >= 1; got \[0\]"):
        _plugin().fit_path(X, y, ks=[0, 5])
    wide = np.random.default_rng(1).normal(size=(30, 60))      # p > n - G: S is singular
    with pytest.raises(ValueError, match=r"decorrelate=\); .* e\.g\. decorrelate=1 or 'auto'"):
        _plugin(k=40, decorrelate=0.0).fit(wide, y)
