"""The rules of README.md (written before the run, with this script) on ``results.jsonl``.

Part A: ``linear_pool`` (the stack with its inner cases paired correctly) against the
committed mispaired stack rows (``../linear_stack_mcmc/``, ``../../plasmode_holdout_linear_stack/``,
``../multiclass_linear_stack/``). Part B: ``log_pool`` against ``linear_pool``, rules B1-B3;
L2 logistic regression's rows from ``../grouped_predictive/``, ``../../plasmode_holdout/`` and
``../multiclass_linear_stack/``.

Usage (from the repository root): ``python reports/plasmode/log_pool/compare.py``; writes
``report.md`` beside this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPORTS = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences, rule 1)

SUITE = offline.SCENARIO_NAMES
HOLDOUT = ("holdout_sparse", "holdout_dense", "holdout_module")
THREE_CLASS = ("multi3_sparse", "multi3_dense", "multi3_module")
L2 = "logreg_l2_cv"
#: committed rows of the mispaired stack, by file, and the method name they have there
MISPAIRED = [(HERE.parent / "linear_stack_mcmc" / "results.jsonl",
              "sb_t_auto_wide_noise_cv_linear_stack"),
             (REPORTS / "plasmode_holdout_linear_stack" / "results.jsonl",
              "sb_t_auto_wide_noise_cv_linear_stack"),
             (HERE.parent / "multiclass_linear_stack" / "results.jsonl", "stack")]
L2_ROWS = [HERE.parent / "grouped_predictive" / "results.jsonl",
           REPORTS / "plasmode_holdout" / "results.jsonl",
           HERE.parent / "multiclass_linear_stack" / "results.jsonl"]


def all_rows() -> dict:
    rows = {}
    for path in L2_ROWS:
        rows.update({key: r for key, r in paired.read_rows(path).items() if key[0] == L2})
    for path, name in MISPAIRED:
        rows.update({("mispaired", s, r): row for (m, s, r), row
                     in paired.read_rows(path).items() if m == name})
    if (HERE / "results.jsonl").exists():
        rows.update(paired.read_rows(HERE / "results.jsonl"))
    return rows


def candidate_rows(here: Path, candidate: str, groups):
    """The rows a comparison against the default needs: :func:`all_rows` plus ``here``'s
    ``results.jsonl``; the replicates of ``candidate`` per scenario; whether every scenario
    of ``groups`` has six; and, per replicate run, |KL of ``linear_refit`` (the default
    re-scored there) - KL of the committed default (``../refit_inner/``, ``refit``)|.
    Returns (rows, reps_of, complete, same)."""
    rows = all_rows()
    if (here / "results.jsonl").exists():
        rows.update(paired.read_rows(here / "results.jsonl"))
    committed = paired.read_rows(HERE.parent / "refit_inner" / "results.jsonl")
    have = {s for (m, s, _) in rows if m == candidate}
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == candidate and ss == s)
               for s in have}
    complete = all(len(reps_of.get(s, [])) == 6 for _, g in groups for s in g)
    same = [abs(rows[("linear_refit", s, r)]["kl"] - committed[("refit", s, r)]["kl"])
            for s in have for r in reps_of[s] if ("refit", s, r) in committed]
    return rows, reps_of, complete, same


def _mean(rows, method, scenario, metric):
    a = [rows[(method, scenario, r)].get(metric, np.nan) for r in range(6)
         if (method, scenario, r) in rows]
    return float(np.mean(a)) if a else np.nan


def point_misses(rows, method, scenarios) -> list[str]:
    """README's point misses of the issue's targets (means, no SE)."""
    out = []
    for s in scenarios:
        gap = _mean(rows, method, s, "abs_gap")
        if s.startswith("sim"):
            slope = _mean(rows, method, s, "slope")
            if gap > 0.02:
                out.append(f"{s}: |expected - actual| {gap:.3f} > 0.02")
            if not 0.9 <= slope <= 1.1:
                out.append(f"{s}: slope {slope:.2f} outside [0.9, 1.1]")
        elif gap > _mean(rows, L2, s, "abs_gap"):
            out.append(f"{s}: |expected - actual| {gap:.3f} above L2's "
                       f"{_mean(rows, L2, s, 'abs_gap'):.3f}")
    return out


def kl_beyond(rows, a, b, scenarios):
    kl = {s: paired.paired(rows, a, b, s, "kl") for s in scenarios}
    worse = [s for s, (m, se, _) in kl.items() if m > 2 * se]
    better = [s for s, (m, se, _) in kl.items() if m < -2 * se]
    return worse, better


def suite_rule(rows, candidate, baseline, scenarios, reps_of, better, label="",
               require_gain=True):
    """The suite's rule of README.md (B1; R1 of ``../refit_inner/``) past its KL part: the
    Markdown lines of both methods' violations (protocol rule 1) and point misses, and
    whether the candidate passes (no more violations, and KL better beyond 2 SE somewhere,
    ``better``, or fewer point misses). ``require_gain=False``: no more violations suffices
    (the point misses are then reported only, as ``../l1_stack/``'s rule has it)."""
    v_c = paired.violations(rows, candidate, scenarios, reps_of, L2)
    v_b = paired.violations(rows, baseline, scenarios, reps_of, L2)
    m_c = point_misses(rows, candidate, scenarios)
    m_b = point_misses(rows, baseline, scenarios)
    misses = "Point misses" if require_gain else "Point misses (reported)"
    lines = [f"* Violations{label} of {candidate} ({len(v_c)}): " + ("; ".join(v_c) or "none"),
             f"* Violations of {baseline} ({len(v_b)}): " + ("; ".join(v_b) or "none"),
             f"* {misses} of {candidate} ({len(m_c)}): " + ("; ".join(m_c) or "none"),
             f"* {misses} of {baseline} ({len(m_b)}): " + ("; ".join(m_b) or "none")]
    gain = bool(better) or len(m_c) < len(m_b) or not require_gain
    return lines, len(v_c) <= len(v_b) and gain


def rule_sections(rows, candidate, baseline, groups, reps_of, shown, extra=None,
                  require_gain=True):
    """The Markdown sections of rules like R1-R3 of ``../refit_inner/``: for each (title,
    scenarios) of ``groups`` run so far, the tables of ``shown``, ``extra(scenarios)``'s lines
    (if given), KL worse or better beyond 2 SE (``candidate`` against ``baseline``), the
    suite's rule (:func:`suite_rule`, with ``require_gain``) for the suite's group, and the
    group's verdict. Returns (lines, verdicts: True/False per group, None where no scenario
    has been run)."""
    out, verdicts = [], []
    for title, scenarios in groups:
        scen = [s for s in scenarios if s in reps_of]
        if not scen:
            verdicts.append(None)
            continue
        out += [f"# {title}", ""]
        out += paired.tables(rows, candidate, baseline, shown, scen)
        out += extra(scen) if extra else []
        worse, better = kl_beyond(rows, candidate, baseline, scen)
        out += [f"* KL worse beyond 2 SE in: {', '.join(worse) or 'none'}; better beyond 2 SE "
                f"in: {', '.join(better) or 'none'}."]
        ok = not worse
        if scenarios is SUITE:
            lines, suite_ok = suite_rule(rows, candidate, baseline, scen, reps_of, better,
                                         require_gain=require_gain)
            out += lines
            ok = ok and suite_ok
        out += [f"* {title.split(',')[0]}: " + ("pass" if ok else "FAIL"), ""]
        verdicts.append(ok)
    return out, verdicts


def verdict_lines(verdicts, complete, passed, failed) -> list[str]:
    """The "# Verdict" section after :func:`rule_sections`: ``passed`` when the run is
    complete and every group passes, ``failed`` when a group fails, else that no rule has
    failed so far."""
    done = [v for v in verdicts if v is not None]
    return ["# Verdict", "", (passed if complete and all(done) else failed if not all(done)
                              else "So far no rule fails (run incomplete)."), ""]


def weights_table(rows, scenarios) -> list[str]:
    lines = ["| scenario | linear pool: probit weight | log pool: w_gauss | log pool: w_probit |",
             "|---|---:|---:|---:|"]
    for s in scenarios:
        lines.append(f"| {s} | {_mean(rows, 'linear_pool', s, 'linear_weight'):.2f} | "
                     f"{_mean(rows, 'log_pool', s, 'w_gauss'):.2f} | "
                     f"{_mean(rows, 'log_pool', s, 'w_probit'):.2f} |")
    return lines + [""]


def main() -> None:
    rows = all_rows()
    have = {s for (m, s, _) in rows if m == "log_pool"}
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == "log_pool" and ss == s)
               for s in have}
    complete = all(len(reps_of.get(s, [])) == 6 for s in SUITE + HOLDOUT + THREE_CLASS)
    shown = [L2, "mispaired", "default", "linear_pool", "log_pool"]
    out = ["# The stack's two models pooled in log space, and paired correctly", "",
           "Made by `compare.py` from `results.jsonl` (README.md: the rules, written before "
           "the run). Mean over replicates; for `log_pool` also the paired difference "
           "log_pool - linear_pool ± SE (* beyond 2 SE). `mispaired`: the committed stack "
           "rows of the same replicates, fitted before the pairing fix.", ""]
    if not complete:
        out += ["**INCOMPLETE run**: not every scenario has six replicates.", ""]
    out += ["# Part A: the pairing fix (linear_pool - mispaired, paired)", "",
            "| scenario | KL | \\|expected - actual\\| | slope (mispaired -> linear_pool) "
            "| probit weight (mispaired -> linear_pool) |", "|---|---:|---:|---:|---:|"]
    for s in SUITE + HOLDOUT + THREE_CLASS:
        if s not in have:
            continue
        cells = []
        for metric in ("kl", "abs_gap"):
            d, se, _ = paired.paired(rows, "linear_pool", "mispaired", s, metric)
            cells.append(f"{d:+.3f} ± {se:.3f}" + ("*" if abs(d) > 2 * se else ""))
        slope = (f"{_mean(rows, 'mispaired', s, 'slope'):.2f} -> "
                 f"{_mean(rows, 'linear_pool', s, 'slope'):.2f}" if s not in THREE_CLASS
                 else "n/a")
        weight = _mean(rows, "mispaired", s, "linear_weight")
        if np.isnan(weight):
            weight = _mean(rows, "mispaired", s, "weight")
        cells += [slope, f"{weight:.2f} -> {_mean(rows, 'linear_pool', s, 'linear_weight'):.2f}"]
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    out += ["", "# Part B: the log pool against the linear pool", ""]
    verdicts = []
    for title, scenarios in (("B1, the suite", SUITE), ("B2, the held-out X", HOLDOUT),
                             ("B3, three classes", THREE_CLASS)):
        scen = [s for s in scenarios if s in have]
        out += [f"## {title}", ""]
        out += paired.tables(rows, "log_pool", "linear_pool", shown, scen)
        out += weights_table(rows, scen)
        worse, better = kl_beyond(rows, "log_pool", "linear_pool", scen)
        out += [f"* KL worse beyond 2 SE in: {', '.join(worse) or 'none'}; better beyond 2 SE "
                f"in: {', '.join(better) or 'none'}."]
        ok = not worse
        if scenarios is SUITE:
            lines, suite_ok = suite_rule(rows, "log_pool", "linear_pool", scen, reps_of, better,
                                         " (protocol rule 1)")
            out += lines
            ok = ok and suite_ok
        out += [f"* {title.split(',')[0]}: " + ("pass" if ok else "FAIL"), ""]
        verdicts.append(ok)
    out += ["## Verdict", "",
            ("B1-B3 pass: run B4, the development sets." if all(verdicts)
             else "B1-B3 do not all pass: the linear pool (paired correctly) stays.")
            + ("" if complete else " (INCOMPLETE run)"), ""]
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
