"""The MCMC fit of the Gaussian classifier predicts with the grouped per-feature average
(``pred_groups_``), keeps it through save/load, and a file saved before it (no groups) keeps
the joint average it was written with."""

import warnings

import numpy as np
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.models import (
    class_log_prior,
    factorised_predictive_log_proba,
    hyperparameter_groups,
    predictive_log_proba,
)
from tests.estimators._data import two_class_gaussian

QUICK = dict(draws=150, tune=150, chains=2, random_state=2, progressbar=False,
             temperature=1.0, label_noise=0.0)


def _fit(**kw):
    # k = 10 of two classes: the normal prior's model of tests/evaluation/test_ppc.py, so
    # make test compiles it once
    X, y = two_class_gaussian(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return HierarchicalGaussianClassifier(k=10, **QUICK, **kw).fit(X, y), X


def _draws(clf, name):
    v = clf.idata_.posterior[name].values
    return v.reshape(-1, *v.shape[2:])


@pytest.fixture(scope="module")
def normal_fit():
    return _fit(effect_prior="normal")


def test_mcmc_fit_predicts_with_groups_of_tau_mu(normal_fit):
    clf, X = normal_fit
    np.testing.assert_array_equal(clf.pred_groups_, hyperparameter_groups(_draws(clf, "tau_mu")))
    Xs = clf._select_test_columns(X)
    lp = class_log_prior(clf.selection_.class_counts, clf._prior_object().c)
    ref = factorised_predictive_log_proba(Xs, clf.pred_mean_, clf.pred_precision_, lp,
                                          max_draws=None, groups=clf.pred_groups_)
    np.testing.assert_allclose(clf.predict_log_proba(X), ref, atol=1e-12)
    joint = predictive_log_proba(Xs, clf.pred_mean_, clf.pred_precision_, lp)
    assert np.abs(ref - joint).max() > 1e-6          # the two estimators are not the same


def test_groups_survive_save_and_load_and_old_files_keep_the_joint_average(normal_fit,
                                                                              tmp_path):
    clf, X = normal_fit
    back = HierarchicalGaussianClassifier.load(clf.save(tmp_path / "fit.nc"))
    np.testing.assert_array_equal(back.pred_groups_, clf.pred_groups_)
    np.testing.assert_allclose(back.predict_log_proba(X), clf.predict_log_proba(X), atol=1e-12)
    back.pred_groups_ = None                          # as read from a file without "group"
    Xs = clf._select_test_columns(X)
    lp = class_log_prior(clf.selection_.class_counts, clf._prior_object().c)
    np.testing.assert_allclose(back.predict_log_proba(X), predictive_log_proba(
        Xs, clf.pred_mean_, clf.pred_precision_, lp), atol=1e-12)


def test_two_groups_fit_groups_by_tau_mu_and_pi0():
    from selbayes.models import predictive_log_proba_two_groups

    clf, X = _fit(effect_prior="two_groups")
    groups = hyperparameter_groups(_draws(clf, "tau_mu"), pi0=_draws(clf, "pi0"))
    np.testing.assert_array_equal(clf.pred_groups_, groups)
    lp = class_log_prior(clf.selection_.class_counts, clf._prior_object().c)
    ref = predictive_log_proba_two_groups(clf._select_test_columns(X), clf.pred_mean_,
                                          clf.pred_precision_, *clf.pred_null_, lp,
                                          groups=groups)
    np.testing.assert_allclose(clf.predict_log_proba(X), ref, atol=1e-12)


def test_plugin_fit_has_no_groups():
    clf, _ = _fit(effect_prior="normal", method="plugin")
    assert clf.pred_groups_ is None
