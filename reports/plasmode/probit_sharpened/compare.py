"""The offline check of README.md (rule written before the run): ``probit_sharpened`` against
the default on the stored fits of three run seeds.

Run from the repository root: ``python reports/plasmode/probit_sharpened/compare.py``;
writes ``results.jsonl`` (one row per fit) and ``report.md``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script, SCENARIO_NAMES)
import paired  # noqa: E402  (reports/plasmode/paired.py: paired, read_rows)

PLASMODE = HERE.parent
#: run seed -> the folder of the default's stored components, and the scenarios stored there
FITS = {0: PLASMODE / "sharpened_pool" / "fits", 1: PLASMODE / "kept_genes_probit" / "seed1" /
        "fits", 7: PLASMODE / "default_seed7" / "fits"}
EXTRA = ("holdout_sparse", "holdout_dense", "holdout_module", "multi3_sparse", "multi3_dense",
         "multi3_module")
C_MAX = 8.0


def sharpened(log_proba, c):
    """log p_c = c log p - log sum_g p_g^c, row by row: (n, G)."""
    from scipy.special import logsumexp

    s = c * np.asarray(log_proba, float)
    return s - logsumexp(s, axis=1, keepdims=True)


def sharpening_power(inner_log_proba, y) -> float:
    """c in [1, C_MAX] maximising the mean log score of ``sharpened`` on the inner cases."""
    from scipy.optimize import minimize_scalar

    own = np.arange(y.size), y

    def loss(c):
        return -sharpened(inner_log_proba, c)[own].mean()

    res = minimize_scalar(loss, bounds=(1.0, C_MAX), method="bounded",
                          options={"xatol": 1e-6})
    # the score is concave in c; an optimum at the lower end is reported as exactly 1
    return 1.0 if loss(1.0) <= res.fun else float(res.x)


def stored_parts(path):
    """A stored fit (``npz``) and its inner and test log probabilities floored as the stack
    floors them, and the inner cases' class indices: (stored, A, yi, T)."""
    from selbayes.estimators._linear_stack import _floored

    stored = np.load(path)
    return stored, _floored(stored["inner"]), stored["y_inner"], _floored(stored["test"])


#: a fit's scores against the true probabilities that the offline checks compare
SCORES = ("kl", "abs_gap", "slope", "expected_error", "actual_error")


def gate_open_row(default_row: dict, base: dict) -> dict:
    """Where the default's L1 gate opened the candidates are the default: its scores."""
    return {**{k: default_row[k] for k in SCORES if k in default_row}, **base,
            "gate_open": True}


def candidate_row(seed: int, name: str, rep: int, default_row: dict) -> dict:
    """The candidate's scores on one stored fit (the default's where its gate opened)."""
    from selbayes.estimators._linear_stack import _linear_pool, _weights_and_pool
    from selbayes.experiments.plasmode import calibration_scores

    stored, A, yi, T = stored_parts(FITS[seed] / f"{name}_{rep}.npz")
    base = {"scenario": name, "replicate": rep, "seed": seed}
    if default_row.get("gate_open"):
        return {**gate_open_row(default_row, base), "method": "probit_sharpened", "c": None}
    c = sharpening_power(A[1], yi)
    A2 = np.stack([A[0], sharpened(A[1], c)])
    T2 = np.stack([T[0], sharpened(T[1], c)])
    w, _ = _weights_and_pool(A2, yi, "linear")
    s = calibration_scores(np.exp(_linear_pool(T2, w)), stored["p_test"])
    if stored["p_test"].shape[1] > 2:
        del s["slope"]
    # the default recomputed from the same stored parts (its two-way pool): a check
    check = calibration_scores(np.exp(_linear_pool(T, stored["weights"])),
                               stored["p_test"])["kl"]
    return {**s, **base, "method": "probit_sharpened", "c": c, "weights": w.tolist(),
            "default_weights": stored["weights"].tolist(),
            "default_check": abs(check - default_row["kl"])}


def default_rows(extra=EXTRA) -> dict:
    """(method, scenario, replicate) -> row for ``default`` and L2 on the suite (replicates
    of seeds 0, 1, 7 numbered 0-5, 6-11, 12-17) and ``default`` on the scenarios ``extra``
    of seed 0 (0-5; no L2 row)."""
    three = offline.load_script(PLASMODE / "default_three_seeds" / "report.py",
                                "default_three_seeds_report")
    out = three.rows_of_three_seeds()
    gated = paired.read_rows(PLASMODE / "gated_l1_stack" / "results.jsonl")
    for r in range(6):
        for s in extra:
            out[("default", s, r)] = gated[("three_way", s, r)]
    return out


def rows() -> dict:
    """:func:`default_rows` and ``probit_sharpened``'s rows, numbered as they are."""
    out = default_rows()
    for i, seed in enumerate(FITS):
        for s in offline.SCENARIO_NAMES + (EXTRA if seed == 0 else ()):
            for r in range(6):
                rep = 6 * i + r if s in offline.SCENARIO_NAMES else r
                row = candidate_row(seed, s, r, out[("default", s, rep)])
                out[("probit_sharpened", s, rep)] = {**row, "replicate": rep}
    return out


def _ms(v):
    v = np.asarray(v, float)
    return f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(v.size):.3f}"


def point_misses(rows, method, s, n) -> int:
    """README.md rule 3's count for ``method`` in suite scenario ``s``."""
    get = {f: [rows[(method, s, r)][f] for r in range(n)] for f in ("abs_gap", "slope")}
    if s.startswith("sim"):
        return int(np.mean(get["abs_gap"]) > 0.02) + int(not 0.9 <= np.mean(get["slope"]) <= 1.1)
    l2 = np.mean([rows[("logreg_l2_cv", s, r)]["abs_gap"] for r in range(n)])
    return int(np.mean(get["abs_gap"]) > l2)


def report(rows) -> str:
    lines = ["# probit_sharpened against the default, offline (stored fits)", "",
             "Made by `compare.py`; README.md's rule, written before the run. Paired "
             "differences candidate - default over replicates (* beyond 2 SE).", "",
             f"Reproduction: the default's two-way pool recomputed from the stored parts "
             f"against its committed KL, largest difference "
             f"{max(r.get('default_check', 0) for r in rows.values()):.1e} (the gate-open "
             f"replicate is the default's own row).", "",
             "| scenario | n | KL default | KL candidate | difference | \\|e - a\\| default | "
             "\\|e - a\\| candidate | slope default | slope candidate | c (median, max) | "
             "probit weight default → candidate | misses default / candidate |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    worse, better, misses = [], [], {"default": 0, "probit_sharpened": 0}
    for s in offline.SCENARIO_NAMES + EXTRA:
        n = 18 if s in offline.SCENARIO_NAMES else 6
        d, se, _ = paired.paired(rows, "probit_sharpened", "default", s, "kl")
        star = "*" if abs(d) > 2 * se else ""
        (worse if d > 2 * se else better if d < -2 * se else []).append(s)
        get = {m: [rows[(m, s, r)] for r in range(n)] for m in misses}
        cs = [r["c"] for r in get["probit_sharpened"] if r["c"] is not None]
        wd = np.mean([r["weights"][1] for r in get["default"]])
        wc = np.mean([r["weights"][1] for r in get["probit_sharpened"] if "weights" in r])
        slope = {m: (_ms([r["slope"] for r in get[m]]) if "slope" in get[m][0] else "-")
                 for m in misses}
        miss = "-"
        if s in offline.SCENARIO_NAMES:
            counts = {m: point_misses(rows, m, s, n) for m in misses}
            for m in misses:
                misses[m] += counts[m]
            miss = f"{counts['default']} / {counts['probit_sharpened']}"
        lines.append(
            f"| {s} | {n} | {_ms([r['kl'] for r in get['default']])} | "
            f"{_ms([r['kl'] for r in get['probit_sharpened']])} | {d:+.3f} ± {se:.3f}{star} | "
            f"{_ms([r['abs_gap'] for r in get['default']])} | "
            f"{_ms([r['abs_gap'] for r in get['probit_sharpened']])} | {slope['default']} | "
            f"{slope['probit_sharpened']} | {np.median(cs):.2f}, {np.max(cs):.2f} | "
            f"{wd:.2f} → {wc:.2f} | {miss} |")
    lines += verdict(worse, better, misses, "probit_sharpened")
    return "\n".join(lines)


def verdict(worse, better, misses, name, extra=()) -> list[str]:
    """The verdict lines of an offline check with README.md's rules 1-3 (``worse``,
    ``better``: the scenarios beyond 2 SE in KL; ``misses``: point misses of ``default`` and
    of the candidate ``name``) and further rules ``extra``, (text, passed, detail) each."""
    rules = [("KL worse beyond 2 SE nowhere", not worse, ", ".join(worse) or "none"),
             ("KL better beyond 2 SE somewhere", bool(better), ", ".join(better) or "none"),
             ("Point misses no more than the default's", misses[name] <= misses["default"],
              f"{misses[name]} against {misses['default']}"), *extra]
    return (["", "## Verdict (README.md's rule)", ""]
            + [f"{i}. {text}: {'pass' if ok else 'fail'} ({detail})"
               for i, (text, ok, detail) in enumerate(rules, 1)]
            + ["", "**promising**" if all(ok for _, ok, _ in rules) else "**not promising**",
               ""])


def main() -> None:
    out = rows()
    with (HERE / "results.jsonl").open("w") as f:
        for key, row in sorted(out.items()):
            if key[0] == "probit_sharpened":
                f.write(json.dumps(row) + "\n")
    offline.write_report(HERE, report(out))


if __name__ == "__main__":
    main()
