"""README.md's check (rule written before the run): the stack with its probit component's
projected predictive where the inner cases clearly prefer it, against the default, on
``../probit_projected/compare.py``'s stored fits.

Run from the repository root: ``python reports/plasmode/probit_projected_gate/compare.py
[jobs]``; writes ``results.jsonl`` (one row per fit) and ``report.md``.
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
TWO = PP.TWO
NAME = "probit_projected_gate"
#: the gate's threshold in standard errors (the L1 gate's, not tuned)
Z_MIN = 2.0


def gate(inner_proj, inner_iso, yi) -> tuple[bool, float]:
    """Whether the projected predictive's inner log score beats the isotropic one's by more
    than :data:`Z_MIN` standard errors (cases as the unit, paired), and that z."""
    own = np.arange(yi.size), yi
    d = inner_proj[own] - inner_iso[own]
    sd = d.std(ddof=1)
    z = float(d.mean() / (sd / np.sqrt(d.size))) if sd > 0 else 0.0
    return z > Z_MIN, z


def candidate(stored, A, yi, T, X, Xt, random_state, default_row: dict, base: dict) -> dict:
    """The candidate's and the default's scores on one stored fit (both the default's row
    where its L1 gate opened). Both pool the stored Gaussian component with the probit
    component computed by the current code (isotropic: the default's; projected where the
    gate opens: the candidate's), on the Gaussian model's inner folds (re-made from
    ``random_state``) and on all of ``X``, each with its own stacking weights."""
    from selbayes.estimators._linear_stack import _floored
    from selbayes.experiments.plasmode import calibration_scores

    row = {**base, "method": NAME}
    if TWO.l1_gate_opened(stored, A, default_row):
        return TWO.gate_open_pair(default_row, row)
    proj, iso = np.empty((yi.size, 2)), np.empty((yi.size, 2))
    for tr, te in third_component.inner_folds(yi, random_state):
        proj[te], iso[te] = PP.predictives(X[tr], yi[tr], X[te])
    proj, iso = _floored(proj), _floored(iso)
    test_proj, test_iso = (_floored(t) for t in PP.predictives(X, yi, Xt))
    opened, z = gate(proj, iso, yi)
    p_test = stored["p_test"]
    out = {who: TWO.pooled_scores(np.stack([A[0], inner]), np.stack([T[0], test]), yi, p_test)
           for who, inner, test in (("default", iso, test_iso),
                                    ("candidate", proj if opened else iso,
                                     test_proj if opened else test_iso))}
    return {**row, **out["candidate"], "default": out["default"], "opened": opened, "z": z,
            "probit_iso_slope": calibration_scores(np.exp(test_iso), p_test)["slope"],
            "probit_proj_slope": calibration_scores(np.exp(test_proj), p_test)["slope"]}


def report(rows) -> str:
    got = [r for k, r in rows.items() if k[0] == NAME]
    scored = [r for r in got if "opened" in r]

    def cells(fits):
        ok = [r for r in fits if "opened" in r]
        return [f"{sum(r['opened'] for r in ok)}", f"{np.median([r['z'] for r in ok]):.1f}",
                f"{np.median([r['probit_iso_slope'] for r in ok]):.2f} → "
                f"{np.median([r['probit_proj_slope'] for r in ok]):.2f}",
                f"{np.mean([r['default']['weights'][1] for r in ok]):.2f} → "
                f"{np.mean([r['weights'][1] for r in ok]):.2f}"]

    return TWO.recomputed_report(
        rows, NAME, [("gate open", "---:"), ("z (median)", "---:"),
                     ("probit alone slope iso → projected (median)", "---"),
                     ("probit weight default → candidate", "---")],
        f"The gate opened in {sum(r['opened'] for r in scored)} of {len(scored)} fits (the "
        f"L1-gate-open fits are the default's row: {len(got) - len(scored)}).", cells)


def main(jobs: int = 2) -> None:
    out = TWO.with_recomputed_defaults(PP.rows(jobs, score=candidate, name=NAME), NAME)
    TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
