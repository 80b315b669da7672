"""``selbayes demo`` (``make demo``) runs the paper's exact model on data simulated from its own
prior, so it must not warn of a prior-data conflict (issue 28): selection by F keeps the least
noisy of p features, which the prior-boundary check allows for."""

import warnings

import pytest

from selbayes import demo
from selbayes.evaluation import PriorBoundaryWarning


@pytest.mark.filterwarnings("ignore::selbayes.evaluation.SamplingWarning")
def test_the_demo_fits_give_no_prior_boundary_warning(tmp_path, monkeypatch, capsys):
    # the full design's p = 4000 (where the false warnings appeared: the best 10 of 4000
    # features have tau_x beyond the prior's 99.9% quantile), with few draws and test cases
    monkeypatch.setitem(demo.DESIGNS, "quick", dict(p=4000, n_test=60, draws=100, tune=100,
                                                    chains=2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert demo.run_demo(out=str(tmp_path), quick=True) == 0
    ours = [str(w.message) for w in caught if issubclass(w.category, PriorBoundaryWarning)]
    assert not ours, ours
    out = capsys.readouterr()
    assert "PriorBoundaryWarning" not in out.out + out.err
    assert "Reliability of P(y = class 0)" in out.out
    assert "error_gap_p_value" in out.out
    assert (tmp_path / "reliability.png").exists()
