"""Fitting a path of k in one call (issue 19): one ranking, results equal to separate fits."""

import numpy as np
import pytest

import selbayes.estimators._inner_cv as inner_cv
import selbayes.filters._selection as selection
from tests.estimators._data import two_class_gaussian


def _fast(**kw):
    from selbayes import HierarchicalGaussianClassifier

    base = dict(draws=50, tune=50, chains=1, random_state=3, progressbar=False,
                temperature="auto", temperature_grid=[1.0, 2.0, 4.0])
    return HierarchicalGaussianClassifier(**{**base, **kw})


def _counting(monkeypatch, module, p):
    calls = []
    real = module.f_statistic

    def counted(X, *args, **kw):
        if X.shape[1] >= p - 1:               # full rankings only (not the k kept columns)
            calls.append(X.shape)
        return real(X, *args, **kw)

    monkeypatch.setattr(module, "f_statistic", counted)
    return calls


@pytest.mark.filterwarnings("ignore::selbayes.evaluation.SamplingWarning")
def test_path_equals_separate_fits_and_ranks_once(monkeypatch):
    """Bit for bit, not within Monte Carlo error: the same scores give the same selection, the
    shared inner cross-validation gives every k the same folds and seeds as its own would, and
    each k is sampled with the same seed by the same compiled model."""
    X, y = two_class_gaussian()
    ks = [4, 10]                    # shapes other tests compile too
    full = _counting(monkeypatch, selection, X.shape[1])
    inner = _counting(monkeypatch, inner_cv, 0)
    path = _fast().fit_path(X, y, ks)
    assert len(full) == 1                     # one ranking of all p features for the path
    n_inner = len(inner)
    assert n_inner == path[4].k_choice_.n_splits     # each inner fold ranked once, not per k
    assert path.ks == ks and path.ranking.n_features == X.shape[1]

    full.clear(), inner.clear()
    separate = {k: _fast(k=k).fit(X, y) for k in ks}
    assert len(full) == len(ks) and len(inner) == len(ks) * n_inner
    for k in ks:
        a, b = path[k], separate[k]
        assert a.k_ == k and a.selection_.n_selected == k
        np.testing.assert_array_equal(a.selection_.indices, b.selection_.indices)
        assert a.selection_.threshold == b.selection_.threshold
        assert a.temperature_ == b.temperature_
        np.testing.assert_array_equal(a.k_choice_.score, b.k_choice_.score)
        np.testing.assert_array_equal(a.idata_.posterior["tau_mu"].values,
                                      b.idata_.posterior["tau_mu"].values)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    stacked = path.predict_proba(X[:5])
    assert stacked.shape == (2, 5, 2)
    np.testing.assert_array_equal(stacked[1], separate[10].predict_proba(X[:5]))


def test_path_rejects_bad_ks():
    X, y = two_class_gaussian()
    with pytest.raises(ValueError, match="ks must be"):
        _fast().fit_path(X, y, [])
    with pytest.raises(ValueError, match="ks must be"):
        _fast().fit_path(X, y, [2.5])
    with pytest.raises(ValueError, match="threshold"):
        _fast(threshold=3.0).fit_path(X, y, [2])
    with pytest.raises(ValueError, match="1 <= k < p = 120; got \\[120\\]"):
        _fast(temperature=1.0).fit_path(X, y, [2, X.shape[1]])
