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
    lines = TWO.report_head(
        rows, NAME, " The default is recomputed beside the candidate (README.md).",
        [("gate open", "---:"), ("z (median)", "---:"),
         ("probit alone slope iso → projected (median)", "---"),
         ("probit weight default → candidate", "---")],
        check=(f"The gate opened in {sum(r['opened'] for r in scored)} of {len(scored)} "
               f"fits (the L1-gate-open fits are the default's row: "
               f"{len(got) - len(scored)})."))
    tally, misses = TWO.new_tally(), {"default": 0, NAME: 0}
    for s in PP.scenario_keys():
        n = sum(1 for k in rows if k[0] == NAME and k[1] == s)
        ok = [r for r in (rows[(NAME, s, i)] for i in range(n)) if "opened" in r]
        cells = [f"{sum(r['opened'] for r in ok)}", f"{np.median([r['z'] for r in ok]):.1f}",
                 f"{np.median([r['probit_iso_slope'] for r in ok]):.2f} → "
                 f"{np.median([r['probit_proj_slope'] for r in ok]):.2f}",
                 f"{np.mean([r['default']['weights'][1] for r in ok]):.2f} → "
                 f"{np.mean([r['weights'][1] for r in ok]):.2f}"]
        lines.append(TWO.scenario_line(rows, NAME, s, n, misses, cells, tally))
    return "\n".join(lines + TWO.verdict_lines(tally, misses, NAME))


def main(jobs: int = 2) -> None:
    out = TWO.with_recomputed_defaults(PP.rows(jobs, score=candidate, name=NAME), NAME)
    TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
