"""The offline check of README.md (rule written before the run): ``probit_prior_gate``
against the default on the stored fits of the suite, the held-out X and the new shifted
replicates (``run.py``'s ``shifted/fits/``).

Run from the repository root: ``python reports/plasmode/probit_prior_gate/compare.py [jobs]``;
writes ``results.jsonl`` (one row per fit) and ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script, SCENARIO_NAMES)
import paired  # noqa: E402  (reports/plasmode/paired.py: paired, read_rows)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: inner_folds)

PLASMODE = HERE.parent
TWO = offline.load_script(PLASMODE / "probit_two_priors" / "compare.py", "two_priors_compare")
SHARPENED = TWO.SHARPENED
RUN = offline.load_script(HERE / "run.py", "probit_prior_gate_run")
HOLDOUT = TWO.HOLDOUT
SHIFTED = RUN.SCENARIOS
SEEN = PLASMODE / "shifted_probe"          # its fits were seen by the ungated candidate
NAME = "probit_prior_gate"
Z_MIN = 2.0                                                 # the L1 gate's threshold


def swap_gate(A, alt, y, folds, z_min=Z_MIN):
    """README.md's gate. ``A`` (2, n, 2): the Gaussian and isotropic probit components'
    inner log probabilities; ``alt`` (n, 2): the two-prior probit's; ``y`` class indices;
    ``folds`` the inner folds. d_i, the pool of (Gaussian, two-prior probit) minus the
    default pair's, cross-fitted as the L1 model's gate does it (the stack's own
    ``_cross_fitted_gain``). Returns (open, z, mean gain)."""
    from selbayes.estimators._linear_stack import _cross_fitted_gain

    gain, z = _cross_fitted_gain(A, np.stack([A[0], alt]), y, folds, nested=False)
    return z > z_min, z, gain


def candidate_scores(X, yi, Xt, p_test, stored, A, T, random_state, default_row) -> dict:
    """The candidate on one stored fit whose L1 gate stayed closed: the gate, and the stack
    it gives, scored against ``p_test``: where the gate opens the Gaussian component and the
    two-prior probit with weights refitted on all inner cases, else the default (its scores
    ``default_row``, as the run recorded them)."""
    from selbayes.estimators._linear_stack import _floored, _linear_pool, _weights_and_pool
    from selbayes.experiments.plasmode import calibration_scores

    inner, test, p_cov, _, check = TWO.two_priors_parts(X, yi, Xt, stored["inner"][1],
                                                        random_state)
    inner, test = _floored(inner), _floored(test)
    opened, z, gain = swap_gate(A[:2], inner, yi,
                                third_component.inner_folds(yi, random_state))
    extra = {"gate_open": False, "swap_open": bool(opened), "z": z, "gain": gain,
             "p_cov": p_cov, "fold_check": check}
    if not opened:
        return {**SHARPENED.gate_open_row(default_row, {}), **extra}
    w, _ = _weights_and_pool(np.stack([A[0], inner]), yi, "linear")
    pooled = _linear_pool(np.stack([T[0], test]), w)
    return {**calibration_scores(np.exp(pooled), p_test), **extra, "weights": w.tolist()}


def suite_row(seed: int, name: str, rep: int, default_row: dict) -> dict:
    """The candidate on a stored suite or held-out X fit (the default where its L1 gate
    opened)."""
    base = {"scenario": name, "replicate": rep, "seed": seed, "method": NAME}
    if default_row.get("gate_open"):
        return SHARPENED.gate_open_row(default_row, base)
    stored, A, yi, T, X, Xt = TWO.stored_fit(seed, name, rep)
    return {**candidate_scores(X, yi, Xt, stored["p_test"], stored, A, T, seed + rep,
                               default_row), **base}


def shifted_row(folder: Path, data_seed: int, name: str, rep: int) -> dict:
    """The candidate on a stored shifted fit (``probe.fit_one``'s: data seed ``data_seed +
    1000 rep``, estimator seed ``rep``)."""
    from selbayes.experiments.plasmode import SHIFTED_SCENARIOS, make_replicate

    stored, A, yi, T = SHARPENED.stored_parts(folder / "fits" / f"{name}_{rep}.npz")
    base = {"scenario": name, "replicate": rep, "seed": data_seed, "method": NAME}
    default_row = paired.read_rows(folder / "results.jsonl")[("selbayes", name, rep)]
    if A.shape[0] == 3 and stored["weights"][2] > 0:
        return SHARPENED.gate_open_row(default_row, base)
    d = make_replicate(SHIFTED_SCENARIOS[name], data_seed + 1000 * rep)
    assert np.array_equal(yi, d["y_train"])
    return {**candidate_scores(d["X_train"], yi, d["X_test"], d["p_test"], stored, A, T, rep,
                               default_row), **base}


def rows(jobs: int = 2) -> dict:
    """(method, scenario, replicate) -> row for ``default``, the candidate and L2: the
    suite's replicates of seeds 0, 1, 7 numbered 0-5, 6-11, 12-17; the held-out scenarios
    (seed 0, no L2) and the new shifted ones 0-5; the seen shifted_probe fits as scenario
    ``shifted_factor (seen)``."""
    from joblib import Parallel, delayed

    out = SHARPENED.default_rows(HOLDOUT)
    tasks = [(delayed(suite_row)(seed, s, r, out[("default", s, rep)]), s, rep)
             for i, seed in enumerate(SHARPENED.FITS)
             for s in offline.SCENARIO_NAMES + (HOLDOUT if seed == 0 else ())
             for r in range(6) for rep in [6 * i + r if s in offline.SCENARIO_NAMES else r]]
    new = paired.read_rows(RUN.OUT / "results.jsonl")
    seen = paired.read_rows(SEEN / "results.jsonl")
    for s in SHIFTED:
        for r in range(RUN.REPLICATES):
            out[("default", s, r)] = new[("selbayes", s, r)]
            out[("logreg_l2_cv", s, r)] = new[("logreg_l2_cv", s, r)]
            tasks.append((delayed(shifted_row)(RUN.OUT, RUN.DATA_SEED, s, r), s, r))
    for r in range(6):
        out[("default", "shifted_factor (seen)", r)] = seen[("selbayes", "shifted_factor", r)]
        tasks.append((delayed(shifted_row)(SEEN, 900, "shifted_factor", r),
                      "shifted_factor (seen)", r))
    done = Parallel(n_jobs=jobs)(task for task, _, _ in tasks)
    for (_, s, rep), row in zip(tasks, done, strict=True):
        out[(NAME, s, rep)] = {**row, "scenario": s, "replicate": rep}
    return out


def report(rows) -> str:
    lines = TWO.report_head(
        rows, NAME, " The last row, shifted_factor (seen), is outside the rule.",
        [("gate open", "---:")])
    tally, misses = TWO.new_tally(), {"default": 0, NAME: 0}
    ruled = offline.SCENARIO_NAMES + HOLDOUT + SHIFTED
    for s in ruled + ("shifted_factor (seen)",):
        n = 18 if s in offline.SCENARIO_NAMES else 6
        opened = sum(bool(rows[(NAME, s, r)].get("swap_open")) for r in range(n))
        lines.append(TWO.scenario_line(rows, NAME, s, n, misses, [f"{opened} of {n}"],
                                       tally if s in ruled else None))
    return "\n".join(lines + TWO.verdict_lines(tally, misses, NAME))


def main(jobs: int = 2) -> None:
    out = rows(jobs)
    TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
