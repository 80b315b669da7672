"""Paired comparison tables of one plasmode candidate against a reference on the same
replicates, for the comparison scripts in this folder's subfolders (they put this folder on
``sys.path`` and import it).

Mean over replicates; for the candidate also the paired difference candidate - reference ±
its standard error over replicates (independent data sets), * beyond 2 SE.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

METRICS = [("kl", "KL (nats)"), ("abs_gap", "|expected - actual|"), ("slope", "slope"),
           ("k", "k chosen")]


def read_rows(*paths) -> dict:
    """(method, scenario, replicate) -> result row, later files overriding earlier ones."""
    rows = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                rows[(r["method"], r["scenario"], r["replicate"])] = r
    return rows


def scenarios_of(rows, method) -> list[str]:
    """The scenarios ``method`` has rows in: simulations first, then plasmode, by name."""
    return sorted({s for (m, s, _) in rows if m == method},
                  key=lambda s: (s.startswith("plasmode"), s))


def paired(rows, a, b, scenario, metric):
    """Paired differences a - b over the replicates both have: (mean, se, n)."""
    reps = sorted(r for (m, s, r) in rows if m == a and s == scenario)
    d = np.array([rows[(a, scenario, r)].get(metric, np.nan)
                  - rows.get((b, scenario, r), {}).get(metric, np.nan) for r in reps],
                 dtype=float)
    d = d[np.isfinite(d)]
    if d.size < 2:
        return np.nan, np.nan, d.size
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size)), int(d.size)


def pm_text(mean, se, star=True) -> str:
    """"+m ± se" to three decimals, with * where |m| > 2 se (beyond 2 SE) unless ``star`` is
    False."""
    return f"{mean:+.3f} ± {se:.3f}" + ("*" if star and abs(mean) > 2 * se else "")


def diff_text(x, star=True) -> str:
    """:func:`pm_text` of the mean of the differences ``x`` (one per replicate) and its
    standard error over them."""
    x = np.asarray(x, dtype=np.float64)
    return pm_text(x.mean(), x.std(ddof=1) / np.sqrt(x.size), star)


def rule2(rows, candidate, default, scenarios):
    """Rule 2 of the protocol (PROTOCOL.md), paired over replicates: per scenario the KL and
    |expected - actual| differences candidate - default (mean, se), and the scenarios where
    KL is better, KL is worse and |expected - actual| is worse beyond 2 SE."""
    kl = {s: paired(rows, candidate, default, s, "kl")[:2] for s in scenarios}
    gap = {s: paired(rows, candidate, default, s, "abs_gap")[:2] for s in scenarios}
    return (kl, gap, [s for s, (d, se) in kl.items() if d + 2 * se < 0],
            [s for s, (d, se) in kl.items() if d - 2 * se > 0],
            [s for s, (g, se) in gap.items() if g - 2 * se > 0])


def tables(rows, candidate, reference, shown, scenarios, n_replicates=6) -> list[str]:
    """Markdown tables, one per metric: rows ``shown`` (methods), columns ``scenarios``, over
    the replicates the candidate has."""
    lines = []
    for metric, label in METRICS:
        lines += [f"## {label}", "", "| method | " + " | ".join(scenarios) + " |",
                  "|---|" + "---:|" * len(scenarios)]
        for m in shown:
            cells = []
            for s in scenarios:
                reps = sorted(r for (mm, ss, r) in rows if mm == candidate and ss == s)
                a = np.array([rows.get((m, s, r), {}).get(metric, np.nan) for r in reps],
                             dtype=float)
                if not np.isfinite(a).any():
                    cells.append("n/a")
                    continue
                cell = f"{np.nanmean(a):.3f}" if metric != "k" else f"{np.nanmedian(a):.0f}"
                if m == candidate and metric != "k":
                    mean, se, n = paired(rows, candidate, reference, s, metric)
                    if n >= 2:
                        star = "*" if abs(mean) > 2 * se else ""
                        cell += f" ({mean:+.3f} ± {se:.3f}{star})"
                cells.append(cell + ("" if len(reps) == n_replicates else f" [{len(reps)} reps]"))
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def k_per_replicate(rows, after, before, scenarios) -> list[str]:
    """A markdown table of the k chosen per replicate, ``before -> after``, by scenario."""
    lines = ["## k chosen (per replicate, before -> after)", "", "| scenario | k |", "|---|---|"]
    for s in scenarios:
        reps = sorted(r for (m, ss, r) in rows if m == after and ss == s)
        lines.append(f"| {s} | " + ", ".join(
            f"{rows[(before, s, r)]['k']} -> {rows[(after, s, r)]['k']}" for r in reps) + " |")
    return lines


def _mean_se(rows, method, scenario, metric, reps):
    a = np.array([rows[(method, scenario, r)][metric] for r in reps], dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / np.sqrt(a.size))


def violations(rows, method, scenarios, reps_of, l2="logreg_l2_cv") -> list[str]:
    """Rule 1 of the protocol (PROTOCOL.md): the targets ``method`` misses, one string per
    violation. In a simulation scenario (the model holds), |expected - actual| minus 2 SE above
    0.02, or the slope ± 2 SE missing [0.9, 1.1]; in a plasmode scenario, |expected - actual|
    worse than ``l2``'s (paired) beyond 2 SE. ``reps_of``: scenario -> replicates."""
    out = []
    for s in scenarios:
        reps = reps_of[s]
        if s.startswith("sim"):
            gap, gap_se = _mean_se(rows, method, s, "abs_gap", reps)
            if gap - 2 * gap_se > 0.02:
                out.append(f"{s}: |expected - actual| {gap:.3f} ± {gap_se:.3f} > 0.02")
            slope, slope_se = _mean_se(rows, method, s, "slope", reps)
            if slope + 2 * slope_se < 0.9 or slope - 2 * slope_se > 1.1:
                out.append(f"{s}: slope {slope:.2f} ± {slope_se:.2f} outside [0.9, 1.1]")
        else:
            mean, se, _ = paired(rows, method, l2, s, "abs_gap")
            if mean > 2 * se:
                out.append(f"{s}: |expected - actual| worse than L2 by {mean:+.3f} ± {se:.3f}")
    return out


def rule_verdict(rows, candidate, default, scenarios, reps_of, l2="logreg_l2_cv",
                 n_scenarios=5, n_replicates=6) -> list[str]:
    """Rules 1 to 3 of the protocol (PROTOCOL.md) as Markdown lines: the scenarios where the
    candidate's paired KL is worse or better than the default's beyond 2 SE, both methods'
    violations (:func:`violations`), and the verdict (adopt only if worse nowhere, better
    somewhere, and no more violations than the default)."""
    kl = {s: paired(rows, candidate, default, s, "kl") for s in scenarios}
    worse = [s for s, (m, se, _) in kl.items() if m > 2 * se]
    better = [s for s, (m, se, _) in kl.items() if m < -2 * se]
    v_cand = violations(rows, candidate, scenarios, reps_of, l2)
    v_def = violations(rows, default, scenarios, reps_of, l2)
    complete = (all(len(reps_of[s]) == n_replicates for s in scenarios)
                and len(scenarios) == n_scenarios)
    adopted = not worse and bool(better) and len(v_cand) <= len(v_def)
    return ["", "## The rule (README.md)", "",
            f"* KL worse beyond 2 SE in: {', '.join(worse) or 'none'}; "
            f"better beyond 2 SE in: {', '.join(better) or 'none'}.",
            f"* Violations of the candidate ({len(v_cand)}): " + ("; ".join(v_cand) or "none"),
            f"* Violations of the default ({len(v_def)}): " + ("; ".join(v_def) or "none"),
            "* Verdict: " + ("ADOPT (then rule 4, the development sets)" if adopted
                             else "keep the default")
            + ("" if complete else f" (INCOMPLETE run: not all {n_scenarios} scenarios x "
                                   f"{n_replicates} replicates)"),
            ""]



def against_default(here: Path, candidate: str, title: str, *, also_shown=(),
                    default="sb_t_auto_wide", l2="logreg_l2_cv", more=()) -> str:
    """The whole report of a candidate against the default by the protocol's rules, as the
    comparison scripts since the default became t_auto write it: reads L2 logistic
    regression's rows (``grouped_predictive/``), the earlier candidates' and the default's
    (``flat_nu/``, ``t_auto_flat_nu/``) and the candidate's (``here/results.jsonl``), writes
    ``here/report.md`` and returns its text. ``also_shown``: more methods' rows in the tables
    (between L2 and the default); ``more``: further results files to read (a later
    default's rows)."""
    root = Path(here).parent
    rows = {key: row for key, row in
            read_rows(root / "grouped_predictive" / "results.jsonl").items() if key[0] == l2}
    rows.update(read_rows(root / "flat_nu" / "results.jsonl",
                          root / "t_auto_flat_nu" / "results.jsonl", *more,
                          Path(here) / "results.jsonl"))
    scenarios = scenarios_of(rows, candidate)
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == candidate and ss == s)
               for s in scenarios}
    lines = [f"# {title}", "",
             "Made by `compare.py` (its docstring has the inputs; the rule is README.md's, "
             "written before the run). Mean over replicates; for the candidate also the "
             "paired difference candidate - default ± SE, * beyond 2 SE.", ""]
    shown = [l2, *also_shown, default, candidate]
    lines += tables(rows, candidate, default, shown, scenarios)
    lines += rule_verdict(rows, candidate, default, scenarios, reps_of, l2)
    text = "\n".join(lines) + "\n"
    (Path(here) / "report.md").write_text(text)
    return text


def against_noise_cv_default(here: Path, candidate: str, title: str, *, also_shown=()) -> str:
    """:func:`against_default` with the default of 2026-11-28 on (``label_noise="cv"``,
    ``sb_t_auto_wide_noise_cv``), whose rows are in ``label_noise_cv_mcmc/``."""
    return against_default(here, candidate, title, also_shown=also_shown,
                           default="sb_t_auto_wide_noise_cv",
                           more=(Path(here).parent / "label_noise_cv_mcmc" / "results.jsonl",))
