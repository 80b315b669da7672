"""The PyMC mixture model's log density equals the reference sampler's log target + constant."""

import numpy as np

from selbayes.models.mixture import MixturePrior, _Chain
from selbayes.models.mixture_pymc import build_mixture_model


def test_logp_matches_reference_log_target_up_to_constant():
    rng = np.random.default_rng(3)
    n, k = 12, 3
    X = rng.integers(0, 2, size=(n, k))
    y = rng.integers(0, 2, size=n)
    model = build_mixture_model(X, y, corrected=False)
    logp = model.compile_logp(jacobian=False)
    diffs = []
    for s in range(5):
        ch = _Chain(np.column_stack([y, X]).astype(float), MixturePrior(), 0, None, False,
                    True, np.random.default_rng(s))
        pt_ = {"theta_interval__": np.log(ch.theta / (1 - ch.theta)),
               "alpha0_log__": ch.log_alpha0, "alpha_log__": ch.log_alpha, "z": ch.z}
        diffs.append(logp(pt_) - ch.log_target())
    assert np.ptp(diffs) < 1e-8, diffs
