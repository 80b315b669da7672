"""The SBC spec runner on the real Gaussian classifier (a smoke-sized run; the 200-replicate
acceptance run is `make sbc`, committed under reports/sbc_gaussian_small)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from selbayes.filters import f_statistic
from selbayes.sbc import GaussianSBCSimulator, load_sbc_spec, run_sbc_spec

SPEC = Path(__file__).resolve().parents[2] / "models" / "sbc" / "sbc_gaussian_small.toml"


# The quick SBC run end to end compiles two models used nowhere else in make test (~30 s from
# empty caches): make slow, with the full runs below; make test keeps the simulator and the
# spec checks here and the rank machinery in tests/sbc/test_core.py.
@pytest.mark.slow
def test_quick_sbc_run_shows_uncorrected_overconfidence(tmp_path):
    result = run_sbc_spec(SPEC, out=tmp_path / "sbc", quick=True, progressbar=False)
    frac = result.frac_ranks
    assert len(frac) == 4
    # In the full run the uncorrected fractional ranks have mean 0.993, sd 0.005: the true
    # tau_mu sits above (nearly) every posterior draw when selection is ignored.
    assert np.all(frac["tau_mu_uncorrected"] > 0.9)
    assert (tmp_path / "sbc" / "README.md").exists()
    assert (tmp_path / "sbc" / "replicates").is_dir()


def test_simulator_draws_from_the_fitting_prior():
    sim = GaussianSBCSimulator(n=12, p=30, n_classes=3)
    rng = np.random.default_rng(0)
    taus = np.array([sim(rng)[1]["tau_mu_corrected"] for _ in range(4000)])
    # tau_mu ~ Gamma(0.75, rate 0.0075): log tau_mu has mean digamma(0.75) - log(0.0075)
    from scipy.special import digamma, polygamma

    mean, sd = digamma(0.75) - np.log(0.0075), np.sqrt(polygamma(1, 0.75))
    assert abs(np.log(taus).mean() - mean) < 4 * sd / np.sqrt(len(taus))


def test_spec_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[sbc]\nmodel = "nope"\nn_replicates = 2\n[design]\n[fit]\n')
    with pytest.raises(ValueError, match=r"bad.toml: \[sbc\] model = 'nope' is not a known "
                                         r"SBC model; known: "):
        load_sbc_spec(bad)
    bad.write_text('[sbc]\nmodel = "gaussian"\nn_replicates = 2\n[fit]\n')
    with pytest.raises(ValueError, match=r"section \[design\] is missing"):
        load_sbc_spec(bad)
    bad.write_text('[sbc]\nmodel = "gaussian"\n[design]\n[fit]\n')
    with pytest.raises(ValueError, match=r"\[sbc\] is missing the required key 'n_replicates'"):
        load_sbc_spec(bad)
    bad.write_text('[sbc]\nmodel = "gaussian"\nn_replicates = 0\n[design]\n[fit]\n')
    with pytest.raises(ValueError, match=r"\[sbc\] n_replicates must be >= 2; got 0"):
        load_sbc_spec(bad)
    bad.write_text('[sbc]\nmodel = "gaussian"\nn_replicates = 4\n[design]\nn = 30\n[fit]\n'
                   '[quick]\nnote = "smaller"\n[quick.design]\nn = 20\n')
    assert load_sbc_spec(bad, quick=True)["design"]["n"] == 20


@pytest.mark.parametrize("body, match", [
    # an unknown key names the file, the section and the key (and the known keys)
    ('[design]\nn = 30\nn_genes = 5\n[fit]\n',
     r"bad.toml: unknown key\(s\) \['n_genes'\] in \[design\]; known keys: \['n', "),
    ('[design]\n[fit]\nk = 3\n[priors]\nw_z = 1.0\n',
     r"unknown key\(s\) \['w_z'\] in \[priors\]"),
    ('[design]\n[fit]\n[quick.fit]\ndraw = 10\n',
     r"unknown key\(s\) \['draw'\] in \[quick.fit\]"),
    ('[design]\n[fit]\n[extra]\n', r"unknown section\(s\) \['extra'\]"),
    # types are checked as in reproduction specs
    ('[design]\nn = "forty"\n[fit]\n', r"\[design\] n must be an integer; got 'forty'"),
])
def test_spec_unknown_keys_and_types(tmp_path, body, match):
    bad = tmp_path / "bad.toml"
    bad.write_text('[sbc]\nmodel = "gaussian"\nn_replicates = 4\n' + body)
    with pytest.raises(ValueError, match=match):
        load_sbc_spec(bad, quick=True)


def test_spec_missing_required_key_and_defaults(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[sbc]\nn_replicates = 4\n[design]\n[fit]\n')
    with pytest.raises(ValueError, match=r"bad.toml: the section \[sbc\] with the key 'model' "
                                         r"is required"):
        load_sbc_spec(bad)
    bad.write_text('[sbc]\nmodel = "naive_bayes"\nn_replicates = 4\n[design]\n[fit]\n')
    spec = load_sbc_spec(bad)
    # [sbc] defaults filled; model settings left out take the simulator's/fitter's defaults
    assert spec["sbc"] == {"model": "naive_bayes", "n_replicates": 4, "seed": 0,
                           "thin_to": None, "note": None}
    assert spec["design"] == {} and spec["priors"] == {} and spec.name == "bad"


def test_naive_bayes_fitter_checks_method_at_construction():
    from selbayes.sbc import NaiveBayesSBCFitter

    with pytest.raises(ValueError, match="method must be 'quadrature' or 'mcmc'"):
        NaiveBayesSBCFitter(method="gibbs")


# ------------------------------------------------------------- the t and two-groups priors
TWO_GROUPS = SPEC.parent / "sbc_gaussian_two_groups.toml"
T_PRIOR = SPEC.parent / "sbc_gaussian_t.toml"


def test_new_prior_specs_load():
    from selbayes.models import GaussianPriors
    from selbayes.sbc import GaussianSBCFitter

    two, t = load_sbc_spec(TWO_GROUPS), load_sbc_spec(T_PRIOR)
    assert GaussianPriors.from_dict(two["priors"]).two_groups
    assert GaussianPriors.from_dict(t["priors"]).mu_t_df == 2.0
    assert GaussianSBCFitter(priors=two["priors"]).params == (
        "tau_mu_corrected", "tau_mu_uncorrected", "pi0_corrected", "pi0_uncorrected")
    assert GaussianSBCFitter(priors=t["priors"]).params == (
        "tau_mu_corrected", "tau_mu_uncorrected")


def test_t_auto_spec_loads_and_its_simulator_draws_df_from_the_grid():
    """The spec's grid reaches the prior; df is drawn uniformly from it (chi-square on 600
    draws)."""
    from selbayes.models import GaussianPriors

    spec = load_sbc_spec(SPEC.parent / "sbc_gaussian_t_auto.toml")
    grid = GaussianPriors.from_dict(spec["priors"]).mu_t_df_grid
    assert grid == (1.0, 2.0, 4.0, 8.0, 16.0, 64.0)
    sim = GaussianSBCSimulator(n=6, p=3, n_classes=2, priors={"mu_t_df_grid": grid})
    rng = np.random.default_rng(3)
    dfs = [sim(rng)[1]["t_df"] for _ in range(600)]
    counts = np.array([dfs.count(d) for d in grid])
    assert counts.sum() == 600 and stats.chisquare(counts).pvalue > 1e-3


def test_two_groups_simulator_draws_pi0_and_null_features():
    """pi0 ~ Beta(pi0_a, pi0_b); a null feature's F is central F(G-1, n-G), a slab one's
    is not: with pi0 forced near 1 the F statistics of all p features pass a KS test against
    the central F, with pi0 near 0 (and strong effects) they fail it."""
    from selbayes.sbc import GaussianSBCSimulator

    rng = np.random.default_rng(0)
    sim = GaussianSBCSimulator(n=9, p=5, n_classes=3, priors={"pi0_a": 2.0, "pi0_b": 5.0})
    pi0 = np.array([sim(rng)[1]["pi0_corrected"] for _ in range(2000)])
    assert stats.kstest(pi0, stats.beta(2.0, 5.0).cdf).pvalue > 1e-3

    def f_stats(priors):
        sim = GaussianSBCSimulator(n=30, p=3000, n_classes=3, priors=priors)
        (X, y), truth = sim(np.random.default_rng(1))
        return f_statistic(X, y, 3), truth

    strong = {"w_mu": 100.0, "alpha_mu": 1e4}                     # tau_mu near 0.01
    F, truth = f_stats({"pi0_a": 1e6, "pi0_b": 1.0, **strong})
    assert truth["pi0_corrected"] > 0.999
    assert stats.kstest(F, stats.f(2, 27).cdf).pvalue > 1e-3
    F, truth = f_stats({"pi0_a": 1.0, "pi0_b": 1e6, **strong})
    assert stats.kstest(F, stats.f(2, 27).cdf).pvalue < 1e-10


def test_t_simulator_draws_heavy_tailed_class_means():
    """With mu_t_df the class-mean spread varies by feature: the F statistics' spread is wider
    than under the normal prior at the same tau_mu."""
    from selbayes.sbc import GaussianSBCSimulator

    fixed = {"w_mu": 1.0, "alpha_mu": 1e6}                       # tau_mu ~ 1
    (X, y), _ = GaussianSBCSimulator(n=60, p=4000, priors={**fixed, "mu_t_df": 1.0})(
        np.random.default_rng(2))
    (Xn, yn), _ = GaussianSBCSimulator(n=60, p=4000, priors={**fixed, "w_x_alpha": 1e8})(
        np.random.default_rng(2))
    q_t = np.quantile(f_statistic(X, y, 3), 0.99)
    q_n = np.quantile(f_statistic(Xn, yn, 3), 0.99)
    assert q_t > 3 * q_n


@pytest.mark.slow
def test_quick_two_groups_sbc_run(tmp_path):
    result = run_sbc_spec(TWO_GROUPS, out=tmp_path / "sbc", quick=True, progressbar=False)
    assert list(result.ranks.columns) == ["tau_mu_corrected", "tau_mu_uncorrected",
                                          "pi0_corrected", "pi0_uncorrected"]
    assert "Two-groups prior" in (tmp_path / "sbc" / "README.md").read_text()


def test_centred_spec_fits_centred_features_with_the_flat_prior(monkeypatch):
    """The fitter of sbc_gaussian_centred.toml hands the classifier centred features and the
    flat prior on nu (the fit itself is replaced: only what it receives is checked here; the
    200-replicate run is committed under reports/sbc_gaussian_centred)."""
    from selbayes.estimators import _gaussian
    from selbayes.models import GaussianPriors
    from selbayes.sbc import GaussianSBCFitter

    spec = load_sbc_spec(SPEC.parent / "sbc_gaussian_centred.toml")
    assert spec["fit"]["centre"] is True
    seen = []

    def fake_fit(self, X, y):
        seen.append((X, self._prior_object()))
        raise RuntimeError("stop")

    monkeypatch.setattr(_gaussian.HierarchicalGaussianClassifier, "fit", fake_fit)
    (X, y), _ = GaussianSBCSimulator(**spec["design"], priors=spec["priors"])(
        np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="stop"):
        GaussianSBCFitter(**spec["fit"], priors=spec["priors"])((X, y), seed=1)
    Xc, priors = seen[0]
    np.testing.assert_allclose(Xc.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Xc, X - X.mean(axis=0))
    assert priors.flat_nu and not GaussianPriors.from_dict(spec["priors"]).flat_nu


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("kwargs, exc, match", [
    ({"n_classes": 0}, ValueError, "n_classes must be an integer >= 2"),
    ({"n_classes": 1.5}, ValueError, "n_classes"),
    ({"n": True}, ValueError, "n must be an integer >= 1"),
    ({"n": 2}, ValueError, "n must be at least n_classes \\+ 1"),
    ({"p": 0}, ValueError, "p must be an integer >= 1"),
    ({"priors": {"alphax": 1.0}}, ValueError, "unknown prior setting"),
    ({"priors": 5}, TypeError, "priors must be a dict"),
])
def test_gaussian_simulator_names_bad_settings(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        GaussianSBCSimulator(**{"n": 10, "p": 30, **kwargs})


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"k": 0}, ValueError, "k must be an integer >= 1"),
    ({"k": 1.5}, ValueError, "k must be an integer"),
    ({"draws": True}, ValueError, "draws"),
    ({"tune": -1}, ValueError, "tune must be an integer >= 0"),
    ({"chains": 0}, ValueError, "chains"),
    ({"priors": {"alphax": 1.0}}, ValueError, "unknown prior setting"),
    ({"centre": "yes"}, TypeError, "centre must be True or False"),
    ({"sampler": 5}, TypeError, "sampler must be a string"),
])
def test_gaussian_fitter_names_bad_settings(kwargs, exc, match):
    from selbayes.sbc import GaussianSBCFitter

    with pytest.raises(exc, match=match):
        GaussianSBCFitter(**kwargs)
