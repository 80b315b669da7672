"""One MCMC fit of the default stack (``LinearStackedClassifier``, refitted inner predictions) per
replicate, scored twice against the true probabilities: as it predicts (``linear_refit``, its
linear pool) and with the candidate's sharpened linear pool (``sharpened``) fitted on the same
inner cases (README.md: the candidate, the data and the rules, written before the run). The
replicates are those of ``../log_pool/run.py`` (its ``replicate``); the fits those of
``../refit_inner/run.py`` (same seeds), so ``linear_refit`` should reproduce its ``refit`` rows.
Each fit's inner and test log probabilities of both models are kept in ``fits/`` (npz), so
that other pools can be scored later without refitting.

Run from the repository root: ``python reports/plasmode/sharpened_pool/run.py [jobs]`` (resumes
from ``results.jsonl``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

#: The candidate's bounds on the sharpening power gamma.
GAMMA_BOUNDS = (0.25, 4.0)
_LOG_TINY = float(np.log(np.finfo(np.float64).tiny))


def sharpened_log_pool(A, w_probit, gamma) -> np.ndarray:
    """log p(c) = gamma log((1 - w) p_gauss(c) + w p_probit(c)) - log sum_c' (...)^gamma, from
    the two models' log probabilities ``A`` (2, n, G): shape (n, G)."""
    with np.errstate(divide="ignore"):
        logw = np.log([1.0 - w_probit, w_probit])
    lin = logsumexp(np.maximum(A, _LOG_TINY) + logw[:, None, None], axis=0)
    s = gamma * lin
    return s - logsumexp(s, axis=1, keepdims=True)


def fit_sharpened(A, y) -> tuple[float, float]:
    """(w_probit, gamma) maximising the mean log score of :func:`sharpened_log_pool` on the
    inner cases (``A`` their log probabilities (2, n, G), ``y`` their class indices): the best
    point of a 51 x 49 grid (w in [0, 1], log gamma evenly in ``GAMMA_BOUNDS``), refined by
    L-BFGS-B within the bounds."""
    own = np.arange(y.size), y

    def loss(theta):
        return -float(np.mean(sharpened_log_pool(A, theta[0], np.exp(theta[1]))[own]))

    lo, hi = np.log(GAMMA_BOUNDS)
    grid = [(w, lg) for w in np.linspace(0, 1, 51) for lg in np.linspace(lo, hi, 49)]
    start = min(grid, key=loss)
    res = minimize(loss, np.asarray(start), method="L-BFGS-B", bounds=[(0, 1), (lo, hi)])
    best = res.x if res.fun <= loss(start) else np.asarray(start)
    return float(best[0]), float(np.exp(best[1]))


def _log_pool_run():
    """``../log_pool/run.py`` (its name is this script's)."""
    return offline.load_script(HERE.parent / "log_pool" / "run.py", "log_pool_run")


def _refit_inner_run():
    """``../refit_inner/run.py``: its ``fit_components`` fits the default as that run did
    and keeps the components."""
    return offline.load_script(HERE.parent / "refit_inner" / "run.py", "refit_inner_run")


def one_replicate(name: str, rep: int) -> list:
    from selbayes.experiments.plasmode import calibration_scores

    data, binary, clf, seconds, proba, A, test_lp, yi = _refit_inner_run().fit_components(
        name, rep, HERE / "fits")
    w, gamma = fit_sharpened(A, yi)
    sharp = np.exp(sharpened_log_pool(test_lp, w, gamma))
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    rows = []
    for method, p in (("linear_refit", proba), ("sharpened", sharp)):
        s = calibration_scores(p, data["p_test"])
        if not binary:
            del s["slope"]          # the suite's slope is binary
        rows.append({**common, "method": method, **s})
    rows[0].update(linear_weight=float(clf.weights_[1]), k=int(clf.k_), seconds=seconds,
                   inner=clf.inner_scores_)
    own = np.arange(yi.size), yi
    rows[1].update(linear_weight=w, gamma=gamma, k=int(clf.k_),
                   inner_stack=-float(np.mean(sharpened_log_pool(A, w, gamma)[own])))
    return rows


def main() -> int:
    lp = _log_pool_run()
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("linear_weight", "gamma", "k"),
                           scenarios=lp.SUITE + lp.HOLDOUT + lp.THREE_CLASS)


if __name__ == "__main__":
    raise SystemExit(main())
