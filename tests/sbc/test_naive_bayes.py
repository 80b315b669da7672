"""SBC of binary naive Bayes with the two-groups prior: the spec, the simulator against the
prior it claims to draw from, and a smoke-sized run (the 400-replicate acceptance run is
`make sbc`, committed under reports/sbc_naive_bayes_two_groups)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from selbayes.filters import abs_correlation
from selbayes.models._naive_bayes_two_groups import null_log_omit_prob
from selbayes.sbc import NaiveBayesSBCFitter, NaiveBayesSBCSimulator, load_sbc_spec
from selbayes.sbc._naive_bayes import run_naive_bayes_sbc_spec

SPEC = (Path(__file__).resolve().parents[2] / "models" / "sbc"
        / "sbc_naive_bayes_two_groups.toml")
TWO = {"pi0_a": 1.0, "pi0_b": 1.0}


def test_two_groups_spec_loads_and_names_pi0():
    spec = load_sbc_spec(SPEC)
    assert spec.model == "naive_bayes" and spec["priors"]["pi0_a"] == 1.0
    names = ("alpha_corrected", "alpha_uncorrected", "pi0_corrected", "pi0_uncorrected")
    assert NaiveBayesSBCFitter(priors=spec["priors"]).params == names
    assert NaiveBayesSBCSimulator(priors=spec["priors"]).params == names
    assert NaiveBayesSBCFitter().params == names[:2]


def test_two_groups_simulator_draws_pi0_and_null_features():
    """pi0 ~ Beta(pi0_a, pi0_b) (KS against it); with pi0 forced near 1 every feature is null,
    and the share with |COR| <= gamma matches the exact null probability."""
    rng = np.random.default_rng(0)
    sim = NaiveBayesSBCSimulator(n=10, p=3, priors={"pi0_a": 2.0, "pi0_b": 5.0})
    pi0 = np.array([sim(rng)[1]["pi0_corrected"] for _ in range(2000)])
    assert stats.kstest(pi0, stats.beta(2.0, 5.0).cdf).pvalue > 1e-3
    sim = NaiveBayesSBCSimulator(n=20, p=20000, priors={"pi0_a": 1e6, "pi0_b": 1.0})
    (X, y), truth = sim(np.random.default_rng(1))
    assert truth["pi0_corrected"] > 0.999
    share = np.mean(abs_correlation(X.astype(float), y) <= 0.3 * (1 + 1e-12))
    p = np.exp(null_log_omit_prob(10, 10, 0.3))
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / 20000) + 1e-4


def test_quick_two_groups_sbc_run(tmp_path):
    result = run_naive_bayes_sbc_spec(SPEC, out=tmp_path / "sbc", quick=True,
                                      progressbar=False)
    frac = result.frac_ranks
    assert set(frac) >= {"pi0_corrected", "pi0_uncorrected"} and len(frac) == 6
    # Selection keeps features that look like markers: the uncorrected pi0 is too low, so the
    # true pi0 ranks high (the full run: mean fractional rank well above 0.5).
    assert frac["pi0_uncorrected"].mean() > frac["pi0_corrected"].mean()
    assert "Two-groups prior" in (tmp_path / "sbc" / "README.md").read_text()


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("cls, kwargs, exc, match", [
    ("sim", {"n": 1}, ValueError, "n must be an integer >= 2"),
    ("sim", {"n": True}, ValueError, "n must be an integer"),
    ("sim", {"p": 0}, ValueError, "p must be an integer >= 1"),
    ("sim", {"priors": 5}, TypeError, "priors must be a dict"),
    ("sim", {"priors": {"alphax": 1}}, ValueError, "unknown prior setting"),
    ("fit", {"threshold": "0.4"}, TypeError, "threshold must be a number"),
    ("fit", {"threshold": True}, TypeError, "threshold must be a number"),
    ("fit", {"threshold": -0.1}, ValueError, r"threshold must be in \[0, 1\)"),
    ("fit", {"n_draws": 0}, ValueError, "n_draws must be an integer >= 1"),
    ("fit", {"n_alpha": 1.5}, ValueError, "n_alpha"),
    ("fit", {"n_pi0": 0}, ValueError, "n_pi0"),
    ("fit", {"priors": {"alphax": 1}}, ValueError, "unknown prior setting"),
])
def test_naive_bayes_sbc_classes_name_bad_settings(cls, kwargs, exc, match):
    make = NaiveBayesSBCSimulator if cls == "sim" else NaiveBayesSBCFitter
    with pytest.raises(exc, match=match):
        make(**kwargs)

