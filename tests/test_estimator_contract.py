"""The contract every selbayes classifier keeps, checked on all three with tiny fits.

Gene names and class labels, scikit-learn's feature-name checks, pickling (pickle, joblib,
process-parallel cross-validation) and ArviZ after a netCDF round trip. The fits are tiny
(few draws): these tests check plumbing, not statistics.
"""

from __future__ import annotations

import pickle
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest

from selbayes import (
    BinaryMixtureClassifier,
    BinaryNaiveBayesClassifier,
    HierarchicalGaussianClassifier,
)
from selbayes.datasets import binary_naive_bayes

P = 24
GENES = [f"gene_{j:02d}" for j in range(P)]


def _gaussian_data(n=36, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(["ctrl", "tumour", "zz"], n // 3)
    shift = np.zeros((3, P))
    shift[1, :4] = 1.5
    shift[2, 4:8] = -1.5
    X = rng.normal(size=(n, P)) + shift[np.repeat(np.arange(3), n // 3)]
    return pd.DataFrame(X, columns=GENES), y


def _binary_data(seed=0):
    d = binary_naive_bayes(None, P, alpha=30.0, class_counts=(20, 20), random_state=seed)
    y = np.where(d.y == 1, "tumour", "normal")
    return pd.DataFrame(d.X.astype(float), columns=GENES), y


def _make(name):
    if name == "gaussian":
        # the default sampler (nutpie) at k = 10, the shape tests/cli/test_predict.py's round
        # trip, tests/evaluation/test_ppc.py and tests/evaluation/test_cross_validation.py
        # compile too (one compile, 12 s, for all); PyMC's own sampler is exercised in
        # tests/estimators/test_gaussian_checks.py
        return HierarchicalGaussianClassifier(k=10, draws=40, tune=40, chains=2,
                                              progressbar=False, random_state=1,
                                              max_predict_draws=50)
    if name == "naive_bayes":
        return BinaryNaiveBayesClassifier(k=3)
    return BinaryMixtureClassifier(k=3, draws=30, tune=10, chains=2, random_state=1)


NAMES = ["gaussian", "naive_bayes", "mixture"]


def _data(name):
    return _gaussian_data() if name == "gaussian" else _binary_data()


def _fit(name):
    X, y = _data(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # few draws: sampling diagnostics warn by design
        clf = _make(name).fit(X, y)
    return clf, X, y


@pytest.fixture(scope="module", params=NAMES)
def fitted(request):
    return (request.param, *_fit(request.param))


# ----------------------------------------------------------------------------- names
def test_feature_names_are_recorded(fitted):
    name, clf, X, y = fitted
    assert clf.n_features_in_ == P
    assert list(clf.feature_names_in_) == GENES
    assert list(clf.selected_features_) == [GENES[i] for i in clf.selection_.indices]
    assert list(clf.classes_) == sorted(set(y))


@pytest.mark.parametrize("change, phrase", [
    ("reorder", "another order: position 0 holds 'gene_23'"),
    ("rename", r"not seen at fit: \['GENE_05'\]"),
    ("drop", r"missing column\(s\) seen at fit: \['gene_07'\]"),
])
def test_other_columns_at_predict_time_raise_naming_them(fitted, change, phrase):
    name, clf, X, y = fitted
    if change == "reorder":
        bad = X[X.columns[::-1]]
    elif change == "rename":
        bad = X.rename(columns={"gene_05": "GENE_05"})
    else:
        bad = X.drop(columns="gene_07")
    with pytest.raises(ValueError, match=phrase):
        clf.predict_proba(bad)


def test_ndarray_after_dataframe_fit_warns_as_sklearn(fitted):
    name, clf, X, y = fitted
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        proba = clf.predict_proba(X.to_numpy())
    np.testing.assert_array_equal(proba, clf.predict_proba(X))


def test_ndarray_fit_names_features_x0(fitted):
    name, clf, X, y = fitted
    if name != "naive_bayes":
        pytest.skip("one fit is enough: the naming rule lives in the base class")
    clf2 = _make(name).fit(X.to_numpy(), y)
    assert not hasattr(clf2, "feature_names_in_")
    assert list(clf2.selected_features_) == [f"x{i}" for i in clf2.selection_.indices]


# ----------------------------------------------------------------------------- coordinates
def test_idata_coordinates_show_gene_names_and_class_labels(fitted):
    name, clf, X, y = fitted
    cd = clf.idata_["constant_data"].to_dataset()
    assert list(cd["feature"].values) == list(clf.selected_features_)
    assert list(cd["class"].values) == [str(c) for c in clf.classes_]
    assert list(cd["all_features"].values) == GENES
    if name == "gaussian":
        post = clf.idata_.posterior
        assert list(post["tau_x"]["feature"].values) == list(clf.selected_features_)
        assert list(post["mu"]["class"].values) == ["ctrl", "tumour", "zz"]


def test_az_summary_shows_gene_names():
    import arviz as az

    clf, X, y = _fit("gaussian")
    table = az.summary(clf.idata_, var_names=["tau_x", "mu"])
    index = " ".join(map(str, table.index))
    for gene in clf.selected_features_:
        assert gene in index
    assert "tumour" in index


# ----------------------------------------------------------------------------- pickling
def test_pickle_and_joblib_round_trips_are_bit_identical(fitted, tmp_path):
    name, clf, X, y = fitted
    proba = clf.predict_proba(X)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), proba)
    joblib.dump(clf, tmp_path / "clf.joblib")
    np.testing.assert_array_equal(joblib.load(tmp_path / "clf.joblib").predict_proba(X), proba)
    assert list(again.feature_names_in_) == GENES


# Two worker processes that each import PyMC and compile the Gaussian model's C code: ~22 s
# from empty caches for the Gaussian estimator, so make slow; its pickling is tested above
# (test_pickle_and_joblib_round_trips_are_bit_identical) and the two binary estimators keep
# the parallel run in make test.
@pytest.mark.parametrize("name", [pytest.param("gaussian", marks=pytest.mark.slow),
                                  *NAMES[1:]])
def test_cross_validate_in_parallel_returns_estimators(name):
    from sklearn.model_selection import StratifiedKFold, cross_validate

    X, y = _data(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cross_validate(_make(name), X, y, cv=StratifiedKFold(2), n_jobs=2,
                             return_estimator=True, scoring="neg_log_loss",
                             error_score="raise")
    assert len(res["estimator"]) == 2
    assert np.all(np.isfinite(res["test_score"]))
    assert list(res["estimator"][0].feature_names_in_) == GENES


# ----------------------------------------------------------------------------- persistence
def test_save_load_keeps_names_and_predictions(fitted, tmp_path):
    name, clf, X, y = fitted
    path = clf.save(tmp_path / "fit.nc")
    back = type(clf).load(path)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    assert list(back.feature_names_in_) == GENES
    with pytest.raises(ValueError, match="another order"):
        back.predict_proba(X[X.columns[::-1]])


def test_arviz_plots_work_after_save_and_load(tmp_path):
    import arviz as az
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import xarray as xr

    clf, X, y = _fit("gaussian")
    path = clf.save(tmp_path / "fit.nc")
    for tree in (type(clf).load(path).idata_, xr.open_datatree(path, engine="h5netcdf")):
        # netCDF-native attributes: lists come back as lists, not JSON strings
        assert list(tree.posterior.attrs["sample_dims"]) == ["chain", "draw"]
        assert list(tree.attrs["selection_class_counts"]) == [12, 12, 12]
        assert all(not (isinstance(v, str) and v.startswith("["))
                   for node in tree.subtree for k, v in node.attrs.items()
                   if k != "selbayes_classes")
        az.plot_rank(tree, var_names=["tau_mu"])
        az.plot_forest(tree, var_names=["tau_x"])
        az.plot_energy(tree)
        az.plot_trace_dist(tree, var_names=["tau_mu"])
        plt.close("all")


def test_loss_matrix_is_validated(fitted):
    name, clf, X, y = fitted
    G = len(clf.classes_)
    with pytest.raises(ValueError, match=rf"shape \({G}, {G}\)"):
        clf.predict(X, loss=np.ones((G + 1, G)))
    with pytest.raises(ValueError, match="finite"):
        clf.predict(X, loss=np.full((G, G), np.nan))
    with pytest.raises(ValueError, match=r"non-negative; loss\[0, 1\] = -1"):
        loss = np.ones((G, G))
        loss[0, 1] = -1
        clf.predict(X, loss=loss)


# nutpie at k = 4, a model compiled for tests/estimators/test_naive_bayes.py too; PyMC's own
# sampler compiles one of its own (20 s), so that run is in make slow
@pytest.mark.parametrize("sampler", ["auto", pytest.param("pymc", marks=pytest.mark.slow)])
def test_naive_bayes_mcmc_fit_pickles(sampler):
    X, y = _binary_data()
    clf = BinaryNaiveBayesClassifier(k=4, method="mcmc", sampler=sampler, draws=30, tune=30,
                                     chains=1, progressbar=False, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    proba = clf.predict_proba(X)
    again = pickle.loads(pickle.dumps(clf))
    assert not hasattr(again, "model_")
    np.testing.assert_array_equal(again.predict_proba(X), proba)
    post = clf.idata_.posterior
    assert list(post["theta"]["feature"].values) == list(clf.selected_features_)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("param, value, phrase", [
    ("draws", 0, "draws must be an integer >= 1; got 0"),
    # the Gaussian model also takes k="auto" (chosen inside fit)
    ("k", True, r"k must be an integer >= 1, (one of \('all', 'auto'\)|'all') or None; got True"),
    ("k", "most",
     r"k must be an integer >= 1, (one of \('all', 'auto'\)|'all') or None; got 'most'"),
    # the Gaussian model also takes correct_selection="auto" (chosen by inner CV)
    ("correct_selection", "yes", "correct_selection must be a bool( or 'auto')?; got 'yes'"),
])
def test_parameters_are_validated_declaratively(name, param, value, phrase):
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _data(name)
    clf = _make(name).set_params(**{param: value})
    with pytest.raises(InvalidParameterError, match=phrase):
        clf.fit(X, y)


def test_every_fitted_attribute_is_documented(fitted):
    """Each attribute ``fit`` sets (a trailing underscore, no leading one) is listed in the
    class docstring's Attributes section: a user reading ``help(clf)`` finds what it holds."""
    from tests._attributes import undocumented_fitted_attributes

    _, clf, _, _ = fitted
    assert undocumented_fitted_attributes(clf) == []
