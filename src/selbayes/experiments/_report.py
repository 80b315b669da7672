"""Report helpers shared by the reproduction runners: markdown tables, acceptance lines, versions.

Kept free of any model: the experiment modules (``_reproduce_<model>.py``) decide what goes in
their report and use these to write it.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._parallel import jsonable
from .._version import versions

__all__ = ["md_table", "fmt", "Criterion", "acceptance_section", "versions", "write_json"]


def fmt(value, digits: int = 3) -> str:
    """Format a table cell: integers as is, floats with ``digits`` decimals, NaN/None as '-'."""
    if value is None:
        return "-"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        if not math.isfinite(float(value)):
            return "-"
        return f"{float(value):.{digits}f}"
    return str(value)


def md_table(headers: Sequence[str], rows: Sequence[Sequence], digits: int = 3,
             align: str | None = None) -> str:
    """A GitHub-flavoured markdown table; numbers right-aligned unless ``align`` says otherwise.

    ``align`` is one character per column: 'l', 'r' or 'c'.
    """
    if align is None:
        align = "l" + "r" * (len(headers) - 1)
    if len(align) != len(headers):
        raise ValueError(f"align has {len(align)} characters for {len(headers)} columns")
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(str(h) for h in headers) + " |",
             "|" + "|".join(marks[a] for a in align) + "|"]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"row {row!r} has {len(row)} cells for {len(headers)} columns")
        cells = [fmt(v, digits).replace("|", "\\|") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


@dataclass
class Criterion:
    """One acceptance line: ``passed`` is True, False or None (not applicable in this run)."""

    criterion: str
    scope: str
    value: str
    threshold: str
    passed: bool | None

    @property
    def verdict(self) -> str:
        return {True: "PASS", False: "FAIL", None: "SKIP"}[self.passed]

    def to_dict(self) -> dict:
        return {"criterion": self.criterion, "scope": self.scope, "value": self.value,
                "threshold": self.threshold, "passed": self.passed, "verdict": self.verdict}


def acceptance_section(criteria: Sequence[Criterion]) -> str:
    """Markdown: overall verdict and one PASS/FAIL/SKIP line per criterion."""
    decided = [c for c in criteria if c.passed is not None]
    overall = all(c.passed for c in decided) and bool(decided)
    n_fail = sum(c.passed is False for c in criteria)
    head = (f"**Overall: {'PASS' if overall else 'FAIL'}** ({len(decided) - n_fail} of "
            f"{len(decided)} decided criteria pass"
            + (f"; {len(criteria) - len(decided)} not applicable" if len(decided) < len(criteria)
               else "") + ")")
    rows = [(c.verdict, c.criterion, c.scope, c.value, c.threshold) for c in criteria]
    return head + "\n\n" + md_table(["verdict", "criterion", "scope", "value", "required"], rows,
                                    align="lllll")


def settings_section(results: dict, data_checksum: str | None = None) -> list[str]:
    """Report lines "## Settings and versions": package versions (and the selbayes versions
    that made the fits, when recorded), the fits' settings hash, the data checksum if any, and
    the settings as JSON."""
    vers = results["versions"]
    fit_versions = results.get("fit_versions") or []
    checksum = f"; data checksum `{data_checksum}`" if data_checksum else ""
    return ["## Settings and versions", "",
            "Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items() if v is not None)
            + "." + (f" Fits were made by selbayes {', '.join(fit_versions)}."
                     if fit_versions else ""), "",
            f"Settings hash of the fits: `{results['settings_hash']}`{checksum}.", "",
            "```json", json.dumps(results["settings"], indent=1, default=str), "```", ""]


def run_record(run_info: dict, **extra) -> dict:
    """A run's record for ``results.json``: ``run_info`` without its clock start, any
    ``extra`` entries, and ``total_s`` (seconds since that start) when it has one."""
    run = {k: v for k, v in run_info.items() if k != "perf_start"}
    run.update(extra)
    if "perf_start" in run_info:
        run["total_s"] = time.perf_counter() - run_info["perf_start"]
    return run


def write_outputs(out_dir: Path, results: dict, report_md: str) -> dict:
    """Write ``results.json`` and ``report.md`` into ``out_dir``; return ``results``."""
    write_json(out_dir / "results.json", results)
    (out_dir / "report.md").write_text(report_md)
    return results


def write_json(path: Path, obj) -> None:
    """Write strict JSON (non-finite floats become null)."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(jsonable(obj), indent=1, allow_nan=False))
    os.replace(tmp, path)


def reliability_cells(table, c: int) -> list:
    """Count, mean predicted and observed fraction of bin ``c`` (blanks when no table)."""
    if table is None:
        return ["", "", ""]
    return [int(table["count"].iloc[c]), table["mean_predicted"].iloc[c],
            table["observed_fraction"].iloc[c]]


def reference_reliability(spec, name: str, label: str, method: str):
    """The paper's reliability table ``[reference.<name>.<label>.<method>]`` as a DataFrame,
    in the columns of :func:`selbayes.evaluation.reliability_table`; None when absent or
    in
    quick mode (a shrunken design is not comparable)."""
    import pandas as pd

    ref = spec["reference"].get(name, {}).get(label, {}).get(method)
    if ref is None or spec.quick:
        return None
    return pd.DataFrame({"count": ref["count"], "mean_predicted": ref["pred"],
                         "observed_fraction": ref["actual"]})



def report_head(spec, quick_caveat: str) -> list[str]:
    """Report lines that open every reproduction report: title, paper and spec, the quick-run
    note (``quick_caveat`` says what a shrunken design is not comparable with) and the
    experiment's description."""
    ex = spec["experiment"]
    lines = [f"# {ex['title'] or ex['name']}", ""]
    if ex["paper"]:
        lines += [f"Paper: {ex['paper']}. Spec: {ex['spec'] or '-'}. Settings: `{spec.path}`.", ""]
    if spec.quick:
        lines += ["> **Quick run** (`--quick`): the shrunken design of the spec's `[quick]` "
                  f"table, for tests{quick_caveat} Overrides: "
                  f"`{json.dumps(spec.quick_overrides)}`", ""]
    if ex["description"]:
        lines += [ex["description"].strip(), ""]
    return lines


def results_head(spec, settings: dict, run_info: dict) -> dict:
    """The entries that open a reproduction's ``results.json``: the experiment, spec path, quick
    mode and its overrides, the settings (without ``[reference]``), the hash of the fit
    ``settings``, the package versions and the run's record (:func:`run_record`)."""
    from .._parallel import settings_hash

    return {"experiment": spec["experiment"], "spec_path": str(spec.path), "quick": spec.quick,
            "quick_overrides": spec.quick_overrides if spec.quick else {},
            "settings": {s: v for s, v in spec.sections.items() if s != "reference"},
            "settings_hash": settings_hash(settings), "versions": versions(),
            "run": run_record(run_info)}


def reference_note(spec, heading: str) -> list[str]:
    """Report lines of the spec's ``[reference] note`` under ``## heading``; none without one."""
    note = spec["reference"].get("note")
    return ["## " + heading, "", str(note).strip(), ""] if note else []


def expected_error_criteria(corrected: dict, tol: float) -> list[Criterion]:
    """One criterion per k: the corrected fit's |expected - actual error rate| is at most ``tol``.

    ``corrected`` maps k to the corrected fit's metrics (``error_rate``,
    ``expected_error_rate``, probabilities) or None when that fit is not in the run (skipped).
    """
    out = []
    for k, m in corrected.items():
        if m is None:
            continue
        gap = abs(m["expected_error_rate"] - m["error_rate"])
        out.append(Criterion("corrected: |expected - actual error rate|", f"k = {k}",
                             f"{gap:.4f} ({m['expected_error_rate']:.4f} vs "
                             f"{m['error_rate']:.4f})", f"<= {tol:g}", gap <= tol))
    return out


def reliability_section(spec, ks, methods, metrics_of, reference: str,
                        source: str = "paper") -> str:
    """Markdown reliability tables, one per k: each method's bins beside the reference's.

    ``metrics_of(k, method)`` gives the fit's metrics (with a ``reliability`` table) or None;
    the reference is ``[reference.<reference>.<k label>.<method>]`` of the spec (see
    :func:`reference_reliability`), headed ``source``; k ``"all"`` is the fit on all features.
    """
    n_bins, parts = spec["evaluation"]["n_bins"], []
    for k in ks:
        headers, cols = ["C"], []
        for m in methods:
            met = metrics_of(k, m)
            if met is None:
                continue
            headers += [f"{m} #", "Pred", "Actual"]
            cols.append(met["reliability"])
            ref = reference_reliability(spec, reference, "all" if k == "all" else f"k{k}", m)
            if ref is not None:
                headers += [f"{source} #", "Pred", "Actual"]
                cols.append(ref)
        if not cols:
            continue
        rows = [[f"C{c}"] + sum((reliability_cells(t, c) for t in cols), []) for c in range(n_bins)]
        title = "all features" if k == "all" else f"k = {k}"
        parts.append(f"**{title}**\n\n" + md_table(headers, rows))
    return "\n\n".join(parts)
