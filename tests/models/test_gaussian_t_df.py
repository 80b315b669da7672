"""The t prior with unknown degrees of freedom (``mu_t_df_grid``, ``effect_prior="t_auto"``).

References: the PyMC model's log density against the fixed-df models' densities (the sum
over df written out), the plug-in's warm-started df search against a full search per df,
and the estimator's recorded choice against the plug-in computed directly. Calibration of
the full model: ``models/sbc/sbc_gaussian_t_auto.toml`` (``reports/sbc_gaussian_t_auto``).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

from selbayes.filters import select_features
from selbayes.models import T_DF_GRID, GaussianPriors, build_model, with_effect_prior
from selbayes.models._gaussian import sufficient_statistics


def _data(seed=0, n=30, p=200, shift=1.2):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.normal(size=(n, p))
    X[:, :4] += shift * y[:, None]
    return X, y


# ---------------------------------------------------------------------------- priors
def test_grid_round_trips_through_json_and_is_left_out_when_off():
    pri = with_effect_prior(None, "t_auto")
    assert pri.mu_t_df_grid == T_DF_GRID and pri.t_df_values == T_DF_GRID
    assert GaussianPriors.from_dict(json.loads(json.dumps(pri.to_dict()))) == pri
    # fits saved before the field existed keep their recorded settings (and model ids)
    assert "mu_t_df_grid" not in GaussianPriors().to_dict()
    assert GaussianPriors(mu_t_df=2.0).t_df_values == (2.0,)


@pytest.mark.parametrize("bad, match", [
    ({"mu_t_df_grid": [4, 1]}, "increasing order"),
    ({"mu_t_df_grid": [2]}, "two or more"),
    ({"mu_t_df_grid": [1, 1]}, "distinct"),
    ({"mu_t_df_grid": [0, 1]}, "> 0"),
    ({"mu_t_df_grid": "1,2"}, "two or more"),
    ({"mu_t_df": 2, "mu_t_df_grid": [1, 2]}, "not both"),
])
def test_bad_grids_are_refused_with_the_setting_named(bad, match):
    with pytest.raises(ValueError, match=match):
        GaussianPriors.from_dict(bad)


def test_families_do_not_silently_change_each_other():
    with pytest.raises(ValueError, match="effect_prior='t'"):
        with_effect_prior({"mu_t_df": 3.0}, "t_auto")
    with pytest.raises(ValueError, match="effect_prior='t_auto'"):
        with_effect_prior({"mu_t_df_grid": [1.0, 8.0]}, "t")
    with pytest.raises(ValueError, match="effect_prior='t_auto'"):
        with_effect_prior({"mu_t_df_grid": [1.0, 8.0]}, "normal")
    slab = with_effect_prior({"mu_t_df_grid": [1.0, 8.0]}, "two_groups")
    assert slab.two_groups and slab.mu_t_df_grid == (1.0, 8.0)


# ---------------------------------------------------------------------------- the model
# the two-groups variant compiles five log densities of its own (15 s): make slow
@pytest.mark.parametrize("corrected, two_groups",
                         [(True, False), pytest.param(True, True, marks=pytest.mark.slow)])
def test_model_density_is_the_sum_over_df_of_the_fixed_df_models(corrected, two_groups):
    """log p_grid(theta) = logsumexp_d log p_d(theta) - log m at any point: the fixed-df
    model of each df (selection factor of that df included) is the reference."""
    X, y = _data()
    sel = select_features(X, y, k=6)
    Xs = X[:, sel.indices]
    # each df's table spans the same range in both models (fixed for n < e^15; df >= 1 over
    # df = 1's range), so the identity is exact; df = 0.5 has a longer table, df = 4's is
    # tabulated past its own range (x = 45) to df = 1's end (75)
    grid = (0.5, 1.0, 4.0)
    extra = {"pi0_a": 1.0, "pi0_b": 1.0} if two_groups else {}
    m_grid = build_model(Xs, y, sel, {"mu_t_df_grid": grid, **extra}, corrected=corrected)
    rng = np.random.default_rng(1)
    point = {name: rng.normal(scale=0.7, size=np.shape(v))
             for name, v in m_grid.initial_point().items()}
    fixed = [build_model(Xs, y, sel, {"mu_t_df": d, **extra}, corrected=corrected)
             .compile_logp()(point) for d in grid]
    expected = logsumexp(fixed) - np.log(len(grid))
    np.testing.assert_allclose(m_grid.compile_logp()(point), expected, rtol=0, atol=1e-8)
    # the posterior probabilities of df at this point: the fixed-df densities normalised
    out = m_grid.replace_rvs_by_values([m_grid["t_df_prob"]])[0]
    probs = m_grid.compile_fn(out, inputs=m_grid.value_vars, on_unused_input="ignore")(point)
    np.testing.assert_allclose(probs, np.exp(np.array(fixed) - logsumexp(fixed)), atol=1e-8)


def test_model_has_one_table_per_df_and_samples_lambda():
    X, y = _data()
    sel = select_features(X, y, k=5)
    model = build_model(X[:, sel.indices], y, sel, {"mu_t_df_grid": (1.0, 8.0)})
    assert sorted(v.name for v in model.free_RVs) == ["lambda_mu", "tau_mu", "tau_nu", "tau_x"]
    assert [p.name for p in model.potentials] == ["class_means_likelihood", "t_df_mixture"]
    names = {v.name for v in model.data_vars}
    assert {"adj_coef__t0", "adj_coef__t1"} <= names and "adj_coef" not in names
    assert list(model.coords["t_df"]) == [1.0, 8.0]


def test_one_compiled_model_serves_every_n_and_every_df_of_the_default_grid():
    """The t prior's df is a pm.Data and the adjustment table's length does not depend on n
    (below e^15), nor on a df >= 1 (a table for df >= 2 is tabulated over df = 1's range),
    so fits that differ in n or in the df the default chooses per fit (T_DF_GRID) share one
    compiled model; df < 1 needs a longer table (the factor approaches its upper limit more
    slowly), one more. The range still covers what the Op
    would choose itself, log(n) + 60 / min(df, 2), at the largest n it is used for."""
    from selbayes._compile_cache import _model_digest
    from selbayes.models._gaussian import _model_from_data, model_data
    from selbayes.models._priors import T_DF_GRID

    rng = np.random.default_rng(4)
    digests, data = {}, {}
    # the grid's ends and both table classes of the Op's own range (df 1 and df >= 2)
    assert 1.0 <= min(T_DF_GRID) and max(T_DF_GRID) <= 64.0
    dfs, grid = (0.5, 1.0, 2.0, 64.0), (1.0, 2.0, 64.0)
    ns = (24, 200)
    for n in ns:
        X, y = rng.normal(size=(n, 300)), np.arange(n) % 2
        sel = select_features(X, y, k=4)
        fits = [(df, True) for df in dfs]
        if n == 24:      # the uncorrected model (a zero table of the same length) at one n
            fits += [(1.0, False), (64.0, False)]
        for df, corrected in fits:
            priors = GaussianPriors(mu_t_df=df)
            d = data[n, df, corrected] = model_data(X[:, sel.indices], y, sel, priors,
                                                    corrected=corrected)
            model = _model_from_data(d, priors, {"feature": sel.indices.tolist(),
                                                  "class": ["0", "1"]}, packed=True)
            digests[n, df, corrected] = _model_digest(model)
    shared = {key for key in digests if key[1] in grid}
    assert len(shared) == 8 and len({digests[key] for key in shared}) == 1
    assert digests[24, 0.5, True] == digests[200, 0.5, True] != digests[24, 1.0, True]
    for (n, df, _), d in data.items():
        assert d["t_df"] == df
        x_hi = -30.0 + 0.1 * d["adj_coef"].shape[1]
        assert x_hi >= np.log(3e6) + 60.0 / min(df, 2.0) - 1e-9, (n, df, x_hi)


# ---------------------------------------------------------------------------- plug-in
def test_plugin_df_search_finds_the_best_full_search():
    """The warm-started search over df (the full grid search only at df = 2) reaches the
    same best df and mode as a full search at every df."""
    import selbayes.models._gaussian_plugin as gp

    X, y = _data(seed=3, p=400)
    sel = select_features(X, y, k=40)
    counts, xbar, ssw = sufficient_statistics(X[:, sel.indices], y, 3)
    counts = counts.astype(float)
    pri = with_effect_prior(None, "t_auto")
    full = [gp._hyper_mode(xbar, ssw, counts, sel, pri, True, gp._t_scale_nodes(d),
                           mu_t_df=d) for d in pri.mu_t_df_grid]
    best = int(np.argmin([value for _, value in full]))
    uv, df, _ = gp._t_df_mode(xbar, ssw, counts, sel, pri, True)
    assert df == pri.mu_t_df_grid[best]
    np.testing.assert_allclose(uv, full[best][0], atol=2e-3)


def test_plugin_df_follows_the_shape_of_the_effects():
    """Simulated from the model: a few strong effects among nulls (t with df 1) against
    every kept feature carrying a similar small effect (df large). The chosen df orders them."""
    from selbayes.models import plugin_posterior

    rng = np.random.default_rng(7)
    n, p = 60, 1500
    y = np.repeat([0, 1], n // 2)
    sparse = rng.normal(size=(n, p))
    sparse[:, :5] += 2.5 * y[:, None]
    dense = rng.normal(size=(n, p)) + 0.35 * y[:, None]
    chosen = {}
    for name, X in (("sparse", sparse), ("dense", dense)):
        sel = select_features(X, y, k=200)
        chosen[name] = plugin_posterior(X[:, sel.indices], y, sel, {"mu_t_df_grid": T_DF_GRID},
                                        n_draws=10, random_state=0)["mu_t_df"]
    assert chosen["sparse"] <= 2.0 < 16.0 <= chosen["dense"]


# ---------------------------------------------------------------------------- estimator
def test_estimator_records_the_chosen_df_and_keeps_it_through_save(tmp_path):
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.models import plugin_posterior

    X, y = _data(seed=2, p=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = HierarchicalGaussianClassifier(k=12, effect_prior="t_auto", method="plugin",
                                             standardize=False, temperature=1.0,
                                             label_noise=0.0, draws=100, random_state=0,
                                             progressbar=False).fit(X, y)
    sel = select_features(X, y, k=12)
    ref = plugin_posterior(X[:, sel.indices], y, sel, {"mu_t_df_grid": T_DF_GRID},
                           n_draws=10, random_state=0)["mu_t_df"]
    assert clf.t_df_ == ref and clf.idata_.attrs["selbayes_t_df"] == ref
    assert clf._fitted_priors().mu_t_df == ref and clf._fitted_priors().mu_t_df_grid is None
    # the predictive check needs the df the posterior has: the grid alone is refused
    from selbayes.evaluation._ppc import check_fit

    with pytest.raises(ValueError, match="no t_df_prob"):
        check_fit(clf.idata_, clf.selection_, clf._prior_object(), warn=False)
    path = clf.save(tmp_path / "fit.nc")
    back = HierarchicalGaussianClassifier.load(path)
    assert back.t_df_ == ref
    np.testing.assert_allclose(back.predict_proba(X), clf.predict_proba(X))
