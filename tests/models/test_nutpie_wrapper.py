"""The one nutpie wrapper of the PyMC models (selbayes.models._nutpie) and its contract.

- nutpie is called from one place: every model's ``sample_nutpie`` delegates to
  ``sample_compiled``;
- a second fit of one shape reuses the compiled model and does not rebuild the pm.Model;
- swapping data into a cached compiled model draws exactly what a fresh compilation draws
  (same seed, bit for bit), for the Gaussian model (corrected and uncorrected) and naive Bayes;
- "uncorrected" means ``n_omitted == 0`` in the model data of both models, whose corrected and
  uncorrected fits of one shape share one compiled model.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytensor
import pytest

import selbayes
from selbayes.models import _gaussian as g
from selbayes.models import _naive_bayes as nb
from selbayes.models import _nutpie

SRC = Path(selbayes.__file__).resolve().parent
SAMPLE = dict(draws=60, tune=60, chains=1, target_accept=0.9, progressbar=False)


def _calls(tree) -> set[str]:
    """Names of the functions and methods a syntax tree calls."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            out.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return out


def test_nutpie_is_called_from_one_wrapper():
    wrapper = SRC / "models" / "_nutpie.py"
    samplers, swappers, wrappers, definitions = [], [], [], []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        nodes = list(ast.walk(tree))
        if any(isinstance(n, ast.Attribute) and n.attr == "sample"
               and getattr(n.value, "id", "") == "nutpie" for n in nodes):
            samplers.append(path)
        if {"with_data", "compile_pymc_model"} & _calls(tree):
            swappers.append(path)
        wrappers += [path for n in nodes
                     if isinstance(n, ast.FunctionDef) and n.name == "sample_compiled"]
        definitions += [(path, n) for n in nodes
                        if isinstance(n, ast.FunctionDef) and n.name == "sample_nutpie"]
    assert samplers == swappers == wrappers == [wrapper]
    # each model's public sample_nutpie is a thin call of the wrapper
    assert sorted(p.name for p, _ in definitions) == ["_gaussian.py", "_naive_bayes.py"]
    for path, node in definitions:
        assert "sample_compiled" in _calls(node), path


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 15)
    # four features, two classes: the shape of the naive Bayes fits in tests/estimators, so
    # that make test compiles that model once
    X = (rng.random((30, 4)) < np.where(y[:, None] == 1, 0.75, 0.35)).astype(int)
    return X, y, {"feature": [0, 1, 2, 3], "class": [0, 1]}


@pytest.fixture(scope="module")
def gaussian():
    # k = 4 of two classes: the shape of the paper's-prior fits in tests/estimators, so that
    # make test compiles that model once
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 40))
    X[:, :4] += y[:, None]
    sel = selbayes.select_features(X, y, k=4)
    coords = {"feature": sel.indices.tolist(), "class": ["0", "1"]}
    return X[:, sel.indices], y, sel, coords


def _posterior(idata, names):
    return {v: idata["posterior"][v].values for v in names}


def test_naive_bayes_reuses_the_compiled_model(binary, monkeypatch):
    X, y, coords = binary
    builds = []
    build = nb._model_from_data
    monkeypatch.setattr(nb, "_model_from_data",
                        lambda *a, **kw: builds.append(1) or build(*a, **kw))
    monkeypatch.setattr(_nutpie, "_COMPILED", {})
    first = nb.model_data(X, y, (57, 0.3))
    second = nb.model_data(X[::-1], y, (57, 0.3), corrected=False)    # same graph, other data
    _, model1 = nb.sample_nutpie(first, nb.NaiveBayesPrior(), coords, seed=1, **SAMPLE)
    _, model2 = nb.sample_nutpie(second, nb.NaiveBayesPrior(), coords, seed=1, **SAMPLE)
    assert len(builds) == 1 and model2 is model1 and len(_nutpie._COMPILED) == 1
    # another prior is another model (its constants are in the graph): another key; not
    # sampled here, that would compile a model no other test uses
    prior2 = nb.NaiveBayesPrior(alpha_scale=2.0)
    assert nb._cache_key(first, prior2) != nb._cache_key(first, nb.NaiveBayesPrior())
    assert nb._cache_key(second, nb.NaiveBayesPrior()) == nb._cache_key(first,
                                                                         nb.NaiveBayesPrior())


def _cached_equals_fresh(sample, datasets, names, monkeypatch):
    """Draws of the last data set on a cache warmed by the others == after a fresh compile."""
    monkeypatch.setattr(_nutpie, "_COMPILED", {})
    for seed, data in enumerate(datasets[:-1]):
        sample(data, seed)
    warm = _posterior(sample(datasets[-1], 11), names)
    n_cached = len(_nutpie._COMPILED)
    assert _nutpie.clear_compiled() == n_cached
    fresh = _posterior(sample(datasets[-1], 11), names)
    for v in names:
        np.testing.assert_array_equal(warm[v], fresh[v])
    return warm


def test_naive_bayes_swapped_data_draws_like_a_fresh_compile(binary, monkeypatch):
    X, y, coords = binary

    def sample(data, seed):
        return nb.sample_nutpie(data, nb.NaiveBayesPrior(), coords, seed=seed, **SAMPLE)[0]

    corrected = nb.model_data(X, y, (57, 0.3))
    uncorrected = nb.model_data(X, y, (57, 0.3), corrected=False)
    other = nb.model_data(np.roll(X, 1, axis=0), y, (57, 0.3))
    draws = _cached_equals_fresh(sample, [other, uncorrected, corrected], ["alpha", "theta"],
                                 monkeypatch)
    _cached_equals_fresh(sample, [corrected, other, uncorrected], ["alpha", "theta"],
                         monkeypatch)
    # the data really were swapped: another data set draws otherwise with the same seed
    assert not np.array_equal(draws["theta"], _posterior(sample(other, 11), ["theta"])["theta"])


@pytest.mark.parametrize("corrected", [True, False])
def test_gaussian_swapped_data_draws_like_a_fresh_compile(gaussian, corrected, monkeypatch):
    Xs, y, sel, coords = gaussian

    def sample(data, seed):
        return g.sample_nutpie(data, g.GaussianPriors(), coords, seed=seed, **SAMPLE)[0]

    datasets = [g.model_data(Xs + shift, y, sel, corrected=corrected) for shift in (0.3, 0.0)]
    _cached_equals_fresh(sample, datasets, ["tau_x", "tau_mu", "mu"], monkeypatch)


def test_uncorrected_means_no_omitted_features(binary, gaussian):
    X, y, _ = binary
    # naive Bayes: corrected=False is the data of a selection that omitted nothing
    off = nb.model_data(X, y, (57, 0.3), corrected=False)
    none_omitted = nb.model_data(X, y, (0, None))
    assert off.keys() == none_omitted.keys() and off["n_omitted"] == 0
    for name in off:
        np.testing.assert_array_equal(off[name], none_omitted[name])
    # Gaussian: the same n_omitted = 0, with a table that is 0 everywhere, so the corrected
    # and the uncorrected fits of one shape have one cache key (one compiled model)
    Xs, yg, sel, _ = gaussian
    on, off = g.model_data(Xs, yg, sel), g.model_data(Xs, yg, sel, corrected=False)
    assert on["n_omitted"] == sel.n_omitted > 0 and off["n_omitted"] == 0
    assert off.keys() == on.keys()
    for name in off.keys() - {"n_omitted", "adj_coef", "adj_edges", "_adj_op"}:
        np.testing.assert_array_equal(off[name], on[name])
    assert off["adj_coef"].shape == on["adj_coef"].shape and not off["adj_coef"].any()
    priors = g.GaussianPriors()
    assert g._cache_key(off, priors, "marginal") == g._cache_key(on, priors, "marginal")
    # ... and the Potential is exactly 0, with gradient 0, wherever tau_mu is
    model = g._model_from_data(off, priors, _coords(sel))
    [pot] = model.replace_rvs_by_values([model["selection_adjustment"]])
    log_tau = model.rvs_to_values[model["tau_mu"]]                 # log-transformed value
    fn = pytensor.function([log_tau], [pot, pytensor.grad(pot, log_tau)])
    for x in (-40.0, -3.0, 0.0, 5.0, 60.0):
        assert [float(v) for v in fn(x)] == [0.0, 0.0]


def _coords(sel):
    return {"feature": sel.indices.tolist(), "class": [str(c) for c in sel.classes]}


def test_sampling_says_so_where_nutpie_shows_no_progress(binary, capsys, monkeypatch):
    """nutpie draws its progress only in a terminal or a notebook: with output to a log file
    a fit sampled for a minute or more in silence. There, a line before and after; where
    nutpie shows its own, nothing more; with progressbar=False, nothing."""
    X, y, coords = binary
    data = nb.model_data(X, y, (57, 0.3))
    sample = {**SAMPLE, "progressbar": True}
    monkeypatch.setattr(_nutpie, "_nutpie_shows_progress", lambda: False)
    nb.sample_nutpie(data, nb.NaiveBayesPrior(), coords, seed=1, **sample)
    err = capsys.readouterr().err
    assert "selbayes: sampling 1 chain(s) of 60 tuning and 60 kept draws" in err
    assert "selbayes: sampled in " in err
    nb.sample_nutpie(data, nb.NaiveBayesPrior(), coords, seed=1, **SAMPLE)
    assert "selbayes: sampl" not in capsys.readouterr().err
    monkeypatch.setattr(_nutpie, "_nutpie_shows_progress", lambda: True)
    nb.sample_nutpie(data, nb.NaiveBayesPrior(), coords, seed=1, **sample)
    assert "selbayes: sampl" not in capsys.readouterr().err
