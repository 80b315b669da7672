"""Issue 5 acceptance on the paper's simulation design (seed 000, Experiment 4.1), default
sampler settings: clean sampling, and the corrected posterior of log tau_mu covers the truth
while the uncorrected one lies below it. Slow (four full fits): `make slow`."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.datasets import gaussian_classification
from selbayes.estimators import EXACT_MODEL
from selbayes.evaluation import check

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def paper_data():
    return gaussian_classification(200, 4000, 6, tau_mu=100.0, tau_nu=100.0, alpha_x=4.0,
                                   w_x=1.0, random_state=2009)


@pytest.mark.parametrize("k", [10, 200])
def test_paper_design_sampling_and_coverage(paper_data, k):
    q = {}
    for corrected in (True, False):
        clf = HierarchicalGaussianClassifier(k=k, correct_selection=corrected, random_state=1,
                                             progressbar=False, **EXACT_MODEL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(paper_data.X, paper_data.y)
            table = check(clf.idata_, var_names=["tau_mu"], warn=False)
        row = table.iloc[0]
        assert row["rhat"] <= 1.01, (k, corrected, row)
        assert row["ess_bulk"] >= 400, (k, corrected, row)
        div = clf.idata_.sample_stats["diverging"].values
        assert div.mean() < 0.005, (k, corrected, div.mean())
        log_tau = np.log(clf.idata_.posterior["tau_mu"].values.ravel())
        q[corrected] = np.quantile(log_tau, [0.05, 0.95])
    log100 = np.log(100.0)
    assert q[True][0] <= log100 <= q[True][1], q
    assert q[False][1] < log100, q
