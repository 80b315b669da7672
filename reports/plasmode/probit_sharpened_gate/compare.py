"""The offline check of README.md (rule written before the run): ``probit_sharpened_gate``
against the default on the stored fits of the suite, the held-out X, the shifted replicates
of ``../probit_prior_gate/`` and the new 40-case replicates (``run.py``'s ``small_n/fits/``).

Run from the repository root: ``python reports/plasmode/probit_sharpened_gate/compare.py``;
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

PLASMODE = HERE.parent
SHARPENED = offline.load_script(PLASMODE / "probit_sharpened" / "compare.py",
                                "probit_sharpened_compare")
TWO = offline.load_script(PLASMODE / "probit_two_priors" / "compare.py", "two_priors_compare")
SHIFTED_RUN = offline.load_script(PLASMODE / "probit_prior_gate" / "run.py",
                                  "probit_prior_gate_run")
RUN = offline.load_script(HERE / "run.py", "probit_sharpened_gate_run")
HOLDOUT = TWO.HOLDOUT
NEW = tuple(SHIFTED_RUN.SCENARIOS) + tuple(RUN.SCENARIOS)
NAME = "probit_sharpened_gate"
Z_MIN = 2.0                                                 # the L1 gate's threshold


def no_signal(gauss_inner, y, z_min=Z_MIN) -> tuple[bool, float]:
    """README.md's gate: (whether the Gaussian component's inner gain over the leave-one-out
    class shares (n_c - 1 + 1) / (n - 1 + G) is not beyond ``z_min`` SE, z). ``gauss_inner``
    (n, G): its inner log probabilities; ``y`` (n,) class indices."""
    n, n_classes = gauss_inner.shape
    counts = np.bincount(y, minlength=n_classes)
    d = gauss_inner[np.arange(n), y] - np.log(counts[y] / (n - 1 + n_classes))
    z = float(d.mean() / (d.std(ddof=1) / np.sqrt(n)))
    return z <= z_min, z


def candidate(stored, A, yi, T, default_row: dict, base: dict) -> dict:
    """The candidate on one stored fit: the default's scores where its L1 gate opened or the
    Gaussian component shows signal; else the stack of (Gaussian, sharpened probit) with its
    weights refitted on the inner cases, scored against the true probabilities."""
    from selbayes.estimators._linear_stack import _linear_pool, _weights_and_pool
    from selbayes.experiments.plasmode import calibration_scores

    row = {**base, "method": NAME}
    l1_in = A.shape[0] == 3 and stored["weights"][2] > 0
    if default_row.get("gate_open") or l1_in:
        return {**SHARPENED.gate_open_row(default_row, row), "sharpen": False}
    # the default's pool recomputed from the stored parts: a check of the parts
    check = calibration_scores(np.exp(_linear_pool(T, stored["weights"])),
                               stored["p_test"])["kl"]
    opened, z = no_signal(A[0], yi)
    row.update(sharpen=bool(opened), z=z, default_weights=stored["weights"][:2].tolist(),
               default_check=abs(check - default_row["kl"]))
    if not opened:
        return {**row, **{k: default_row[k] for k in ("kl", "abs_gap", "slope",
                                                      "expected_error", "actual_error")},
                "weights": stored["weights"][:2].tolist()}
    c = SHARPENED.sharpening_power(A[1], yi)
    A2 = np.stack([A[0], SHARPENED.sharpened(A[1], c)])
    T2 = np.stack([T[0], SHARPENED.sharpened(T[1], c)])
    w, _ = _weights_and_pool(A2, yi, "linear")
    s = calibration_scores(np.exp(_linear_pool(T2, w)), stored["p_test"])
    return {**row, **s, "c": c, "weights": w.tolist()}


def rows() -> dict:
    """(method, scenario, replicate) -> row for ``default``, the candidate and L2: the
    suite's replicates of seeds 0, 1, 7 numbered 0-5, 6-11, 12-17; the held-out scenarios
    (seed 0, no L2 row), the shifted and the 40-case ones 0-5."""
    out = SHARPENED.default_rows(HOLDOUT)
    for i, seed in enumerate(SHARPENED.FITS):
        for s in offline.SCENARIO_NAMES + (HOLDOUT if seed == 0 else ()):
            for r in range(6):
                rep = 6 * i + r if s in offline.SCENARIO_NAMES else r
                stored, A, yi, T = SHARPENED.stored_parts(SHARPENED.FITS[seed] / f"{s}_{r}.npz")
                out[(NAME, s, rep)] = candidate(stored, A, yi, T, out[("default", s, rep)],
                                                {"scenario": s, "replicate": rep, "seed": seed})
    for folder, names, seed in ((SHIFTED_RUN.OUT, SHIFTED_RUN.SCENARIOS, SHIFTED_RUN.DATA_SEED),
                                (RUN.OUT, RUN.SCENARIOS, RUN.DATA_SEED)):
        new = paired.read_rows(folder / "results.jsonl")
        for s in names:
            for r in range(6):
                out[("default", s, r)] = new[("selbayes", s, r)]
                out[("logreg_l2_cv", s, r)] = new[("logreg_l2_cv", s, r)]
                stored, A, yi, T = SHARPENED.stored_parts(folder / "fits" / f"{s}_{r}.npz")
                out[(NAME, s, r)] = candidate(stored, A, yi, T, out[("default", s, r)],
                                              {"scenario": s, "replicate": r, "seed": seed})
    return out


def report(rows) -> str:
    checks = [r["default_check"] for k, r in rows.items() if k[0] == NAME and
              "default_check" in r]
    lines = [f"# {NAME} against the default, offline (stored fits)", "",
             "Made by `compare.py`; README.md's rule, written before the run. Paired "
             "differences candidate - default over replicates (* beyond 2 SE).", "",
             f"The default's pool recomputed from the stored parts against its recorded KL: "
             f"largest difference {max(checks):.1e}.", "",
             "| scenario | n | KL default | KL candidate | difference | \\|e - a\\| default | "
             "\\|e - a\\| candidate | difference | slope default | slope candidate | "
             "gate open | c (median) | probit weight default → candidate | misses default / "
             "candidate |",
             "|---|" + "---:|" * 9 + "---:|---:|---|---|"]
    tally, misses = TWO.new_tally(), {"default": 0, NAME: 0}
    for s in offline.SCENARIO_NAMES + HOLDOUT + NEW:
        n = 18 if s in offline.SCENARIO_NAMES else 6
        got = [rows[(NAME, s, r)] for r in range(n)]
        opened = [r for r in got if r.get("sharpen")]
        c = f"{np.median([r['c'] for r in opened]):.2f}" if opened else "-"
        wd = np.mean([r["default_weights"][1] for r in got if "default_weights" in r])
        wc = np.mean([r["weights"][1] for r in got if "weights" in r])
        lines.append(TWO.scenario_line(rows, NAME, s, n, misses,
                                       [f"{len(opened)} of {n}", c, f"{wd:.2f} → {wc:.2f}"],
                                       tally))
    return "\n".join(lines + TWO.verdict_lines(tally, misses, NAME))


def main() -> None:
    out = rows()
    TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main()
