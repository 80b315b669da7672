"""README.md's measurement: the stack with its probit component recomputed by the fixed
``standardise_features`` against the stored default, on ``../probit_projected/``'s stored
fits.

Run from the repository root: ``python reports/plasmode/probit_constant_genes/compare.py
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
NAME = "probit_constant_genes"


def candidate(stored, A, yi, T, X, Xt, random_state, default_row: dict, base: dict) -> dict:
    """The stack with the probit component recomputed by the current (fixed) code on the
    Gaussian model's inner folds and on all of ``X``; ``changed``: whether it differs from the
    stored component by more than 1e-9 anywhere (else the default's row, unchanged)."""
    from selbayes.estimators._linear_stack import _floored, _linear_pool, _weights_and_pool
    from selbayes.experiments.plasmode import calibration_scores
    from selbayes.models._linear_probit import fit_linear_probit

    row = {**base, "method": NAME}
    if default_row.get("gate_open") or (A.shape[0] == 3 and stored["weights"][2] > 0):
        return {**PP.SHARPENED.gate_open_row(default_row, row), "changed": False}
    inner = np.empty((yi.size, 2))
    for tr, te in third_component.inner_folds(yi, random_state):
        inner[te] = fit_linear_probit(X[tr], yi[tr]).predict_log_proba(X[te])
    test = fit_linear_probit(X, yi).predict_log_proba(Xt)
    diff = max(float(np.max(np.abs(inner - stored["inner"][1]))),
               float(np.max(np.abs(test - stored["test"][1]))))
    if diff <= 1e-9:
        return {**row, **{k: default_row[k] for k in ("kl", "abs_gap", "slope")},
                "changed": False, "max_diff": diff}
    w, _ = _weights_and_pool(np.stack([A[0], _floored(inner)]), yi, "linear")
    pooled = _linear_pool(np.stack([T[0], _floored(test)]), w)
    p_test = stored["p_test"]
    return {**row, **calibration_scores(np.exp(pooled), p_test), "changed": True,
            "max_diff": diff, "weights": w.tolist(),
            "default_weights": stored["weights"][:2].tolist(),
            "probit_kl_before": calibration_scores(np.exp(T[1]), p_test)["kl"],
            "probit_kl_after": calibration_scores(np.exp(test), p_test)["kl"]}


def report(rows) -> str:
    import paired

    lines = [f"# {NAME}: the stack before and after the fix of the probit component's "
             "constant genes, offline (stored fits)", "",
             "Made by `compare.py`; README.md's finding, written before the run. Paired "
             "differences after - before over replicates (* beyond 2 SE).", "",
             "| scenario | n | fits changed | KL before | KL after | difference | "
             "\\|e - a\\| before | \\|e - a\\| after | difference | probit alone KL before → "
             "after (changed fits, median) | probit weight before → after (changed) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    ms = PP.SHARPENED._ms
    findings = []
    for s in PP.scenario_keys():
        n = sum(1 for k in rows if k[0] == NAME and k[1] == s)
        assert n > 0, s
        got = [rows[(NAME, s, r)] for r in range(n)]
        before = [rows[("default", s, r)] for r in range(n)]
        ch = [r for r in got if r.get("changed")]
        cells = []
        for key in ("kl", "abs_gap"):
            d, se, _ = paired.paired(rows, NAME, "default", s, key)
            star = "*" if abs(d) > 2 * se else ""
            if d > 2 * se:
                findings.append(f"{s}: {key} worse by {d:.4f} ± {se:.4f}")
            cells += [ms([r[key] for r in before]), ms([r[key] for r in got]),
                      f"{d:+.4f} ± {se:.4f}{star}"]
        pk = (f"{np.median([r['probit_kl_before'] for r in ch]):.3f} → "
              f"{np.median([r['probit_kl_after'] for r in ch]):.3f}") if ch else "-"
        pw = (f"{np.mean([r['default_weights'][1] for r in ch]):.2f} → "
              f"{np.mean([r['weights'][1] for r in ch]):.2f}") if ch else "-"
        lines.append(f"| {s} | {n} | {len(ch)} | " + " | ".join(cells) + f" | {pk} | {pw} |")
    lines += ["", "## Finding (README.md's)", ""]
    lines += [f"- {f}" for f in findings] or ["None: no scenario worse beyond 2 SE in KL or "
                                              "|expected - actual|."]
    return "\n".join(lines) + "\n"


def main(jobs: int = 2) -> None:
    # the stored fits and task runners of ../probit_projected/compare.py, with this candidate
    out = PP.rows(jobs, score=candidate, name=NAME)
    PP.TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
