"""The compiled models' data packed into one pm.Data (selbayes.models._packed_data).

The reference is the readable model of the same data, one pm.Data per array: the packed
model must have the same log density at every point, for the Gaussian model (every prior
family the estimators use) and naive Bayes. Its gradient is pytensor's of the same graph with
the data read through views, so the log density is what is compared. The logp functions are
compiled in pytensor's FAST_COMPILE mode (Python implementations): nothing here compiles with
numba.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

import selbayes
from selbayes.models import _gaussian as g
from selbayes.models import _naive_bayes as nb
from selbayes.models._packed_data import PACKED_NAME, pack, packed_layout, packed_views


def test_views_are_the_arrays_with_their_shapes_and_dtypes():
    rng = np.random.default_rng(0)
    data = {"m": rng.normal(size=(3, 2)), "s": np.float64(2.5), "i": np.arange(4).reshape(2, 2),
            "b": np.array([True, False, True]), "v": rng.normal(size=5), "_const": object()}
    with pm.Model() as model:
        views = packed_views(data)
    assert [v.name for v in model.data_vars] == [PACKED_NAME]
    assert [name for name, *_ in packed_layout(data)] == ["b", "i", "m", "s", "v"]
    assert model[PACKED_NAME].get_value().shape == (3 + 4 + 6 + 1 + 5,)
    for name, view in views.items():
        value = np.asarray(data[name])
        assert view.name == name
        assert view.type.shape == value.shape          # static: no runtime shape checks
        assert view.dtype == str(value.dtype)
        np.testing.assert_array_equal(view.eval(), value)
    # new values swapped into the pm.Data are read through the same views
    new = {**data, "m": data["m"] + 1.0, "i": data["i"] * 3}
    model[PACKED_NAME].set_value(pack(new))
    np.testing.assert_array_equal(views["m"].eval(), new["m"])
    np.testing.assert_array_equal(views["i"].eval(), new["i"])


@pytest.mark.parametrize("value, match", [(np.array(["a", "b"]), "numbers only"),
                                          (np.array([2 ** 60]), "beyond 2\\*\\*53")])
def test_pack_refuses_what_float64_cannot_hold(value, match):
    with pytest.raises(ValueError, match=match):
        pack({"x": value})


def _same_logp(readable, packed, seed):
    """log densities of two models at random points of the unconstrained space."""
    rng = np.random.default_rng(seed)
    fns = [m.compile_logp(mode="FAST_COMPILE") for m in (readable, packed)]
    point = readable.initial_point()
    assert point.keys() == packed.initial_point().keys()
    for _ in range(3):
        x = {name: v + rng.normal(scale=0.5, size=np.shape(v)) for name, v in point.items()}
        lp_r, lp_p = [fn(x) for fn in fns]
        assert np.isfinite(lp_r)
        np.testing.assert_allclose(lp_p, lp_r, rtol=1e-12)


@pytest.mark.parametrize("priors, corrected, parameterization", [
    ({}, True, "marginal"), ({}, False, "marginal"), ({}, True, "noncentered"),
    ({"mu_t_df": 4.0}, True, "marginal"), ({"mu_t_df_grid": (1.0, 8.0)}, True, "marginal"),
    ({"pi0_a": 1.0, "pi0_b": 1.0}, True, "marginal"), ({"alpha_nu": None}, True, "marginal")])
def test_packed_gaussian_model_is_the_readable_one(priors, corrected, parameterization):
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 8)
    X = rng.normal(size=(24, 60))
    X[:, :3] += y[:, None]
    sel = selbayes.select_features(X, y, k=4)
    priors = g.GaussianPriors.from_dict(priors)
    data = g.model_data(X[:, sel.indices], y, sel, priors, corrected=corrected)
    coords = {"feature": sel.indices.tolist(), "class": ["0", "1", "2"]}
    readable = g._model_from_data(data, priors, coords, parameterization)
    packed = g._model_from_data(data, priors, coords, parameterization, packed=True)
    assert [v.name for v in packed.data_vars] == [PACKED_NAME]
    assert len(readable.data_vars) == len(packed_layout(data)) > 1
    _same_logp(readable, packed, seed=1)


@pytest.mark.parametrize("corrected", [True, False])
def test_packed_naive_bayes_model_is_the_readable_one(corrected):
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 15)
    X = (rng.random((30, 4)) < np.where(y[:, None] == 1, 0.75, 0.35)).astype(int)
    data = nb.model_data(X, y, (57, 0.3), corrected=corrected)
    assert data["counts"].dtype.kind == "i"           # cast back from the float64 vector
    prior, coords = nb.NaiveBayesPrior(), {"feature": [0, 1, 2, 3], "class": [0, 1]}
    readable = nb._model_from_data(data, prior, coords)
    packed = nb._model_from_data(data, prior, coords, packed=True)
    assert [v.name for v in packed.data_vars] == [PACKED_NAME]
    _same_logp(readable, packed, seed=2)
