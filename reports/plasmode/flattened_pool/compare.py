"""README.md's check (rule written before the run): the stack's linear pool flattened by a
power in [1/4, 1] fitted on the inner cases, against the default, on
``../probit_projected/compare.py``'s stored fits.

Run from the repository root: ``python reports/plasmode/flattened_pool/compare.py [jobs]``;
writes ``results.jsonl`` (one row per fit) and ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: inner_folds)

PP = offline.load_script(HERE.parent / "probit_projected" / "compare.py",
                         "probit_projected_compare")
SP = offline.load_script(HERE.parent / "sharpened_pool" / "run.py", "sharpened_pool_run")
TWO = PP.TWO
NAME = "flattened_pool"
#: the power's bounds: flattening only (1 is the default's pool)
GAMMA_BOUNDS = (0.25, 1.0)


def fit_flattening(A, y, w_probit) -> float:
    """The power gamma in :data:`GAMMA_BOUNDS` maximising the inner cases' mean log score of
    the pool with probit weight ``w_probit`` raised to it (``A``: the inner cases' log
    probabilities (2, n, G), ``y`` their class indices); 1 unless a smaller power scores
    better."""
    from scipy.optimize import minimize_scalar

    own = np.arange(y.size), y

    def loss(log_gamma):
        return -float(np.mean(SP.sharpened_log_pool(A, w_probit, np.exp(log_gamma))[own]))

    lo, hi = np.log(GAMMA_BOUNDS)
    res = minimize_scalar(loss, bounds=(lo, hi), method="bounded",
                          options={"xatol": 1e-6})
    return float(np.exp(res.x)) if res.fun < loss(hi) else 1.0


def candidate(stored, A, yi, T, X, Xt, random_state, default_row: dict, base: dict) -> dict:
    """The candidate's and the default's scores on one stored fit (both the default's row
    where its L1 gate opened): the stored Gaussian component with the probit component of the
    current code on the Gaussian model's inner folds (re-made from ``random_state``) and on
    all of ``X``; the default's weights; the candidate's power fitted on the inner cases."""
    from selbayes.estimators._linear_stack import _floored
    from selbayes.experiments.plasmode import calibration_scores
    from selbayes.models._linear_probit import fit_linear_probit

    row = {**base, "method": NAME}
    if TWO.l1_gate_opened(stored, A, default_row):
        return TWO.gate_open_pair(default_row, row)
    probit = np.empty((yi.size, 2))
    for tr, te in third_component.inner_folds(yi, random_state):
        probit[te] = fit_linear_probit(X[tr], yi[tr]).predict_log_proba(X[te])
    inner = np.stack([A[0], _floored(probit)])
    test = np.stack([T[0], _floored(fit_linear_probit(X, yi).predict_log_proba(Xt))])
    p_test = stored["p_test"]
    default = TWO.pooled_scores(inner, test, yi, p_test)
    w = default["weights"][1]
    gamma = fit_flattening(inner, yi, w)
    s = calibration_scores(np.exp(SP.sharpened_log_pool(test, w, gamma)), p_test)
    return {**row, **{k: s[k] for k in TWO.SHARPENED.SCORES}, "weights": default["weights"],
            "gamma": gamma, "default": default}


def report(rows) -> str:
    got = [r for k, r in rows.items() if k[0] == NAME]
    scored = [r for r in got if "gamma" in r]

    def cells(fits):
        ok = [r for r in fits if "gamma" in r]
        return [f"{sum(r['gamma'] < 1 for r in ok)} of {len(ok)}",
                f"{np.median([r['gamma'] for r in ok]):.2f}",
                f"{min(r['gamma'] for r in ok):.2f}",
                f"{np.mean([r['weights'][1] for r in ok]):.2f}"]

    return TWO.recomputed_report(
        rows, NAME, [("gamma < 1", "---:"), ("gamma (median)", "---:"), ("gamma (min)", "---:"),
                     ("probit weight", "---:")],
        f"The power was below 1 in {sum(r['gamma'] < 1 for r in scored)} of {len(scored)} "
        f"fits (the L1-gate-open fits are the default's row: {len(got) - len(scored)}).",
        cells)


def main(jobs: int = 2) -> None:
    out = TWO.with_recomputed_defaults(PP.rows(jobs, score=candidate, name=NAME), NAME)
    TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
