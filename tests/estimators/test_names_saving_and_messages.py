"""Gene names that are not strings, what ``save`` keeps and where it writes, and the messages
of the notebook path (selbayes/estimators/_base.py, _persistence.py, _gaussian.py,
_k_choice.py).

Integer column names (Entrez gene ids) are names by their string form, as string names are:
scikit-learn alone drops them, so ``selected_features_`` held positions and ``predict`` took
reordered columns silently. The fits are plug-in fits on small data (deterministic, fast).
"""

from __future__ import annotations

import errno
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators import KChoice
from selbayes.estimators._inner_cv import InnerCVImpossibleError

from ._data import two_class_gaussian

#: Entrez gene ids, as a table of expression data indexed by them has them.
IDS = [67065 + 7 * j for j in range(30)]


def _clf(**kw):
    params = dict(k=3, method="plugin", progressbar=False, random_state=0)
    params.update(kw)
    return HierarchicalGaussianClassifier(**params)


@pytest.fixture(scope="module")
def by_id():
    X, y = two_class_gaussian(seed=2, n=24, p=len(IDS))
    frame = pd.DataFrame(X, columns=IDS)
    return frame, y, _clf().fit(frame, y)


# ----------------------------------------------------------------------------- names
def test_integer_column_names_are_names_by_their_string_form(by_id):
    frame, y, clf = by_id
    assert list(clf.feature_names_in_) == [str(i) for i in IDS]
    selected = [str(IDS[j]) for j in clf.selection_.indices]
    assert list(clf.selected_features_) == selected
    assert list(clf.idata_["constant_data"]["feature"].values) == selected


def test_integer_named_columns_in_another_order_are_refused_with_the_fix(by_id):
    frame, y, clf = by_id
    with pytest.raises(ValueError, match=r"another order: position 0 holds '67268'.*"
                                         r"X\.rename\(columns=str\)\[clf\.feature_names_in_\]$"):
        clf.predict_proba(frame[frame.columns[::-1]])
    with pytest.raises(ValueError, match=r"missing column\(s\) seen at fit: \['67065'\]"):
        clf.predict_proba(frame.drop(columns=IDS[0]))
    # the fix the message gives, and the same ids as strings, are taken
    shuffled = frame[frame.columns[::-1]]
    expected = clf.predict_proba(frame)
    np.testing.assert_array_equal(
        clf.predict_proba(shuffled.rename(columns=str)[clf.feature_names_in_]), expected)
    np.testing.assert_array_equal(clf.predict_proba(frame.rename(columns=str)), expected)


def test_mixed_integer_and_string_names_are_strings():
    X, y = two_class_gaussian(seed=2, n=24, p=6)
    names = [101, "MYC", 102, "TP53", 103, "KRAS"]
    clf = _clf().fit(pd.DataFrame(X, columns=names), y)
    assert list(clf.feature_names_in_) == [str(c) for c in names]
    with pytest.raises(ValueError, match="another order"):
        clf.predict_proba(pd.DataFrame(X[:, ::-1], columns=names[::-1]))


def test_names_equal_as_strings_are_duplicates():
    X, y = two_class_gaussian(seed=2, n=24, p=4)
    with pytest.raises(ValueError, match=r"1 duplicated column name\(s\): \['1'\]"):
        _clf().fit(pd.DataFrame(X, columns=[1, "1", 2, 3]), y)


def test_pandas_default_columns_stay_unnamed():
    """``pd.DataFrame(X)``'s columns 0 ... p-1 are positions: no names, and an ndarray at
    predict time does not warn."""
    X, y = two_class_gaussian(seed=2, n=24, p=6)
    clf = _clf().fit(pd.DataFrame(X), y)
    assert not hasattr(clf, "feature_names_in_")
    assert list(clf.selected_features_) == [f"x{j}" for j in clf.selection_.indices]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.predict_proba(X)


def test_pandas_default_columns_in_another_order_are_named():
    """Positions 0..p-1 reordered were names to scikit-learn, which only warned that the fit
    had none and predicted from the columns by position: the wrong genes, with a warning
    that did not say so. Now a warning names the reordering and the fix (the fit's order
    back); a warning, not an error, because after a fit on an array the order its columns had
    is unknown (a frame reordered before ``.to_numpy()`` is the right input then)."""
    X, y = two_class_gaussian(seed=2, n=24, p=6)
    frame = pd.DataFrame(X)
    clf = _clf().fit(frame, y)
    shuffled = frame[[0, 1, 4, 3, 2, 5]]
    with pytest.warns(UserWarning, match=r"columns are the positions 0\.\.5 in another order "
                                         r"\(position 2 holds column 4\).*X\.sort_index"):
        clf.predict_proba(shuffled)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(clf.predict_proba(shuffled.sort_index(axis=1)),
                                      clf.predict_proba(X))
    on_array = _clf().fit(shuffled.to_numpy(), y)
    with pytest.warns(UserWarning, match="in another order"):
        got = on_array.predict_proba(shuffled)
    np.testing.assert_array_equal(got, on_array.predict_proba(shuffled.to_numpy()))


@pytest.mark.parametrize("change, fix", [
    ("reorder", r"Pass the columns of fit, in order: X\[clf\.feature_names_in_\]$"),
    ("extra", r"not seen at fit: \['extra'\]\. Pass the columns of fit, in order: "
              r"X\[clf\.feature_names_in_\]$"),
    ("drop", r"missing column\(s\) seen at fit: \['g2'\]\. X must hold every column of fit: "
             r"add the missing ones, then pass X\[clf\.feature_names_in_\]$"),
])
def test_other_columns_at_predict_time_give_the_fix_in_code(change, fix):
    X, y = two_class_gaussian(seed=2, n=24, p=6)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(6)])
    clf = _clf().fit(frame, y)
    if change == "reorder":
        bad = frame[frame.columns[::-1]]
    elif change == "extra":
        bad = frame.assign(extra=1.0)
    else:
        bad = frame.drop(columns="g2")
    with pytest.raises(ValueError, match=fix):
        clf.predict_proba(bad)
    if change != "drop":
        np.testing.assert_array_equal(clf.predict_proba(bad[clf.feature_names_in_]),
                                      clf.predict_proba(frame))


# ----------------------------------------------------------------------------- save / load
def test_groups_are_saved_and_loaded(tmp_path):
    import xarray as xr

    X, y = two_class_gaussian(seed=2, n=24, p=30)
    groups = np.arange(24) // 2
    clf = _clf().fit(X, y, groups=groups)
    assert clf.groups_ is not None
    back = HierarchicalGaussianClassifier.load(clf.save(tmp_path / "fit.nc"))
    np.testing.assert_array_equal(back.groups_, clf.groups_)
    # none found (independent cases): None stays None
    plain = _clf().fit(X, y, groups=None)
    assert plain.groups_ is None
    assert HierarchicalGaussianClassifier.load(plain.save(tmp_path / "plain.nc")).groups_ is None
    # a file written before groups_ was saved: None
    tree = xr.open_datatree(tmp_path / "fit.nc", engine="h5netcdf").load()
    tree["constant_data"] = xr.DataTree(
        tree["constant_data"].to_dataset().drop_vars("inner_cv_group"))
    tree.to_netcdf(tmp_path / "old.nc", engine="h5netcdf")
    old = HierarchicalGaussianClassifier.load(tmp_path / "old.nc")
    assert old.groups_ is None
    np.testing.assert_array_equal(old.predict_proba(X), clf.predict_proba(X))


def test_load_gives_back_the_settings_as_given(tmp_path):
    """A loaded fit's get_params equals the fitted one's: the prior as given (None), not as
    resolved, so that a clone of it set to another effect prior is that estimator (it was
    refused: "priors set mu_t_df_grid ... but effect_prior is 'normal'", a setting the user
    never made), and NumPy numbers as numbers (k=np.int64(3) came back as the text "3")."""
    import json

    import xarray as xr
    from sklearn.base import clone

    X, y = two_class_gaussian(seed=2, n=24, p=30)
    clf = _clf(k=np.int64(3), effect_prior="t", random_state=np.int64(0)).fit(X, y)
    path = clf.save(tmp_path / "fit.nc")
    back = HierarchicalGaussianClassifier.load(path)
    assert back.get_params() == clf.get_params()
    assert back.priors is None and type(back.k) is int and type(back.random_state) is int
    clone(back).set_params(effect_prior="normal")._validate_params()
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))

    # a file written before the settings as given were saved: its resolved settings
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    tree.attrs = {k: v for k, v in tree.attrs.items() if k != "selbayes_params"}
    tree.to_netcdf(tmp_path / "old.nc", engine="h5netcdf")
    old = HierarchicalGaussianClassifier.load(tmp_path / "old.nc")
    assert old.priors == json.loads(tree.attrs["selbayes_config"])["priors"]
    np.testing.assert_array_equal(old.predict_proba(X), clf.predict_proba(X))

    # a seed that is no int (a deprecated RandomState, a Generator) is saved as None, not as
    # its text "RandomState(MT19937)", which a clone of the loaded fit refused
    from selbayes.estimators import BinaryMixtureClassifier
    from selbayes.estimators._persistence import user_params

    for seed in (np.random.RandomState(0), np.random.default_rng(0)):
        assert user_params(BinaryMixtureClassifier(random_state=seed))["random_state"] is None

    # an edit of either record of the settings is refused
    for attr in ("selbayes_params", "selbayes_config"):
        tree = xr.open_datatree(path, engine="h5netcdf").load()
        tree.attrs[attr] = tree.attrs[attr].replace('"k": 3', '"k": 4')
        tree.to_netcdf(tmp_path / "altered.nc", engine="h5netcdf")
        with pytest.raises(ValueError, match="model id mismatch"):
            HierarchicalGaussianClassifier.load(tmp_path / "altered.nc")


def test_save_and_load_expand_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    X, y = two_class_gaussian(seed=2, n=24, p=30)
    clf = _clf().fit(X, y)
    assert clf.save("~/fit.nc") == tmp_path / "fit.nc"
    assert (tmp_path / "fit.nc").is_file()
    np.testing.assert_array_equal(
        HierarchicalGaussianClassifier.load("~/fit.nc").predict_proba(X), clf.predict_proba(X))


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_folder_that_takes_no_files_is_one_line():
    X, y = two_class_gaussian(seed=2, n=24, p=30)
    with pytest.raises(OSError) as info:
        _clf().fit(X, y).save("/proc/x.nc")
    assert str(info.value) == ("/proc/x.nc: cannot write the fit (the folder does not take "
                               "new files)")


def test_no_permission_to_write_is_one_line(tmp_path, monkeypatch):
    """h5py's text for a file it may not create (as written under /sys) becomes one line."""
    import xarray as xr

    def refuse(self, path, **kw):
        raise PermissionError(errno.EACCES, f"Unable to synchronously create file (unable to "
                              f"open file: name = '{path}', errno = 13, error message = "
                              "'Permission denied', flags = 13, o_flags = 242)")

    X, y = two_class_gaussian(seed=2, n=24, p=30)
    clf = _clf().fit(X, y)
    monkeypatch.setattr(xr.DataTree, "to_netcdf", refuse)
    with pytest.raises(PermissionError) as info:
        clf.save(tmp_path / "x.nc")
    assert str(info.value) == f"{tmp_path / 'x.nc'}: cannot write the fit (no permission " \
                              "to write there)"


# ----------------------------------------------------------------------------- messages
def test_one_gene_says_give_k_a_value():
    X, y = two_class_gaussian(seed=2, n=24, p=3)
    with pytest.raises(InnerCVImpossibleError,
                       match=r'X has n_features = 1: give k a value \(k="all" keeps the one '
                             r"feature\)$"):
        _clf(k="auto").fit(X[:, :1], y)
    with pytest.raises(InnerCVImpossibleError,
                       match=r"n_features = 1: give k and temperature values \(k="):
        _clf(k="auto", temperature="auto").fit(X[:, :1], y)


def test_too_few_cases_say_give_a_value():
    rng = np.random.default_rng(0)
    with pytest.raises(InnerCVImpossibleError,
                       match=r"more cases than classes: give k a value$"):
        _clf(k="auto").fit(rng.normal(size=(5, 30)), ["a", "a", "b", "b", "b"])


def _one_candidate():
    return KChoice(k=10, decorrelate=None, temperature=1.0, grid=[(10, None, 1.0)],
                   score=np.array([0.46]), se=np.array([0.07]),
                   criterion="inner_cv_log_score_plugin", n_splits=5)


def test_a_curve_at_one_given_k_does_not_claim_to_choose_it():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    choice = _one_candidate()
    assert "(the only candidate, 5 inner folds;" in str(choice)
    assert "1 candidates" not in str(choice)
    ax = choice.plot()
    assert ax.get_title() == "5-fold inner cross-validation at k = 10"
    assert "k = 10, the only k tried" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)


def test_a_fit_with_k_given_prints_its_one_candidate():
    X, y = two_class_gaussian(seed=2, n=24, p=30)
    clf = _clf(k=10).fit(X, y)
    assert [g[0] for g in clf.k_choice_.grid] == [10]       # the label-noise share's curve
    assert "the only candidate" in str(clf.k_choice_)


def test_fit_warns_of_labels_that_differ_only_in_case(by_id):
    """'tumour' and 'Tumour ' are two classes (scikit-learn's convention, kept), but fit says
    so, with their counts, at the user's line; labels that are distinct words do not warn."""
    frame, y, _ = by_id
    labels = np.where(np.asarray(y) == np.unique(y)[0], "tumour", "normal").astype(object)
    labels[:3] = ["Tumour ", "Tumour ", "Tumour "]
    n_lower = int(np.sum(labels == "tumour"))
    with pytest.warns(UserWarning, match=rf"y: class labels that differ only in case or "
                                         rf"surrounding spaces are different classes: 'Tumour ' "
                                         rf"and 'tumour' \(3 and {n_lower} samples\)") as rec:
        clf = _clf().fit(frame, labels)
    assert sorted(clf.classes_) == ["Tumour ", "normal", "tumour"]
    assert any(Path(w.filename).name == Path(__file__).name for w in rec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _clf().fit(frame, np.where(labels == "Tumour ", "tumour", labels))


def test_evaluate_takes_labels_as_a_one_column_frame_and_names_a_type_mismatch(by_id):
    """y read as pd.read_csv(..., index_col=0) is a one-column DataFrame: evaluate said "y has
    24 label(s) for the 24 rows of X; give one label per row" (score took it). Labels of
    another type than the fit's (text '0'/'1' for integer classes) say so, with the fix."""
    frame, y, clf = by_id
    want = clf.evaluate(frame, y)
    got = clf.evaluate(frame, pd.DataFrame({"label": y}))
    assert got["amlp"] == want["amlp"]
    with pytest.raises(ValueError, match=r"y holds text where the classifier's classes are "
                                         r"numbers.*y\.astype\(int\)"):
        clf.evaluate(frame, np.asarray(y).astype(str))


def test_a_loss_frame_with_other_labels_names_them_as_written(by_id):
    """The message listed NumPy reprs ([np.int64(0), ...]); it lists the labels as written."""
    frame, y, clf = by_id
    loss = pd.DataFrame([[0, 1], [1, 0]], index=["a", "b"], columns=[0, 1])
    with pytest.raises(ValueError, match=r"index \(true classes\) are \['a', 'b'\]; they must "
                                         r"be the classes \['0', '1'\]") as err:
        clf.predict(frame, loss=loss)
    assert "np." not in str(err.value)


def test_groups_in_another_order_than_x_are_warned_of():
    """groups given as a Series holding X's samples in another order were paired by position
    without a word (y gets the same warning), splitting every declared pair across the inner
    folds; in order, nothing is said."""
    X, y = two_class_gaussian(seed=3, n=24, p=30)
    ids = [f"s{i}" for i in range(24)]
    frame = pd.DataFrame(X, index=ids)
    pairs = pd.Series(np.repeat(np.arange(12), 2), index=ids)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        _clf().fit(frame, y, groups=pairs)
    with pytest.warns(UserWarning, match=r"groups' index holds the samples of X's index in "
                                         r"another order.*groups.loc\[X.index\]"):
        _clf().fit(frame, y, groups=pairs.iloc[::-1])
    from selbayes import cross_validate

    with pytest.warns(UserWarning, match="groups' index holds the samples"):
        cross_validate(_clf(), frame, y, folds=3, groups=pairs.iloc[::-1], random_state=0)


def test_a_multiindex_of_samples_fits_and_names_its_samples():
    """pd.concat(..., keys=batches) gives rows a MultiIndex; every default fit failed inside
    pandas (the checks' tables of sample names). The samples are named by their tuple."""
    X, y = two_class_gaussian(seed=4, n=24, p=30)
    frame = pd.concat([pd.DataFrame(X[:12]), pd.DataFrame(X[12:])], keys=["b1", "b2"])
    clf = _clf(k="auto", k_grid=(3, 10)).fit(frame, y)
    assert clf.loo_checks_["sample"].iloc[0] == "('b1', 0)"
    np.testing.assert_array_equal(clf.predict_proba(frame), clf.predict_proba(X))


def test_evaluate_takes_a_column_vector_and_names_a_two_dimensional_y(by_id):
    """evaluate said "y has 24 label(s) for the 24 rows of X; give one label per row" for an
    (n, 1) array, which fit takes."""
    frame, y, clf = by_id
    assert clf.evaluate(frame, np.asarray(y)[:, None])["amlp"] == clf.evaluate(frame, y)["amlp"]
    with pytest.raises(ValueError, match=r"y must be 1-D, one label per row of X; got shape "
                                         r"\(2, 24\)"):
        clf.evaluate(frame, np.vstack([y, y]))
    with pytest.raises(ValueError, match="y has 23 label"):
        clf.evaluate(frame, y[:-1])
