"""The memory check before a fit: the estimate against the arrays a fit really holds."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators import FitMemoryWarning, _memory


def _data(G=3, n_per=12, p=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(G), n_per)
    X = rng.normal(size=(G * n_per, p))
    X[:, :5] += 1.0 * y[:, None]
    return X, y


def test_estimate_is_the_size_of_what_a_plugin_fit_holds():
    X, y = _data()
    clf = HierarchicalGaussianClassifier(k=8, method="plugin", draws=50,
                                         max_predict_draws=20, random_state=0).fit(X, y)
    post = clf.idata_.posterior
    held = sum(post[name].values.nbytes for name in ("mu", "nu", "tau_x", "lambda_mu"))
    held += clf.pred_mean_.nbytes + clf.pred_precision_.nbytes
    assert held == _memory.posterior_bytes(8, 3, 1, 50, 20, t_prior=True)


def test_warns_only_above_half_of_the_available_memory(monkeypatch):
    need = _memory.posterior_bytes(1000, 4, 4, 1000, 1000)
    with pytest.warns(FitMemoryWarning, match=r"k = 1000 features x 4 classes x 4000 draws"):
        assert _memory.check_fit_memory(1000, 4, 4, 1000, 1000, available=need) == need
    monkeypatch.setattr(_memory, "available_memory_bytes", lambda: None)    # not known
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _memory.check_fit_memory(1000, 4, 4, 1000, 1000, available=2 * need + 8)
        _memory.check_fit_memory(1000, 4, 4, 1000, 1000)


def test_fit_warns_at_the_users_line_before_it_samples(monkeypatch):
    X, y = _data()
    monkeypatch.setattr(_memory, "available_memory_bytes", lambda: 1000)
    with pytest.warns(FitMemoryWarning, match="method='plugin'") as record:
        HierarchicalGaussianClassifier(k=8, method="plugin", draws=50,
                                       random_state=0).fit(X, y)
    assert record[0].filename == __file__

