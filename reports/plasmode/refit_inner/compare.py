"""The rules of README.md (written before the run, with this script): ``refit`` against
``linear_pool`` (the current stack; its rows, and L2's, as ``../log_pool/compare.py`` reads
them), R1-R3.

Usage (from the repository root): ``python reports/plasmode/refit_inner/compare.py``; writes
``report.md`` beside this script.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: write_report)
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences, rule 1)


def _log_pool_compare():
    spec = importlib.util.spec_from_file_location("log_pool_compare",
                                                  HERE.parent / "log_pool" / "compare.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    lp = _log_pool_compare()
    rows = lp.all_rows()
    if (HERE / "results.jsonl").exists():
        rows.update(paired.read_rows(HERE / "results.jsonl"))
    have = {s for (m, s, _) in rows if m == "refit"}
    reps_of = {s: sorted(r for (m, ss, r) in rows if m == "refit" and ss == s) for s in have}
    groups = (("R1, the suite", lp.SUITE), ("R2, the held-out X", lp.HOLDOUT),
              ("R3, three classes", lp.THREE_CLASS))
    complete = all(len(reps_of.get(s, [])) == 6 for _, g in groups for s in g)
    shown = [lp.L2, "default", "linear_pool", "refit"]
    out = ["# The stack's weights fitted on the MCMC predictive of refitted inner folds", "",
           "Made by `compare.py` (README.md: the rules, written before the run). Mean over "
           "replicates; for `refit` also the paired difference refit - linear_pool ± SE "
           "(* beyond 2 SE).", ""]
    if not complete:
        out += ["**INCOMPLETE run**: not every scenario has six replicates; the verdicts "
                "below cover the scenarios run so far.", ""]
    verdicts = []
    for title, scenarios in groups:
        scen = [s for s in scenarios if s in have]
        if not scen:
            verdicts.append(None)
            continue
        out += [f"# {title}", ""]
        out += paired.tables(rows, "refit", "linear_pool", shown, scen)
        worse, better = lp.kl_beyond(rows, "refit", "linear_pool", scen)
        out += [f"* KL worse beyond 2 SE in: {', '.join(worse) or 'none'}; better beyond 2 SE "
                f"in: {', '.join(better) or 'none'}."]
        ok = not worse
        if scenarios is lp.SUITE:
            v_new = paired.violations(rows, "refit", scen, reps_of, lp.L2)
            v_old = paired.violations(rows, "linear_pool", scen, reps_of, lp.L2)
            m_new = lp.point_misses(rows, "refit", scen)
            m_old = lp.point_misses(rows, "linear_pool", scen)
            out += [f"* Violations of refit ({len(v_new)}): " + ("; ".join(v_new) or "none"),
                    f"* Violations of linear_pool ({len(v_old)}): " + ("; ".join(v_old) or "none"),
                    f"* Point misses of refit ({len(m_new)}): " + ("; ".join(m_new) or "none"),
                    f"* Point misses of linear_pool ({len(m_old)}): "
                    + ("; ".join(m_old) or "none")]
            ok = ok and len(v_new) <= len(v_old) and (bool(better) or len(m_new) < len(m_old))
        out += [f"* {title.split(',')[0]}: " + ("pass" if ok else "FAIL"), ""]
        verdicts.append(ok)
    done = [v for v in verdicts if v is not None]
    out += ["# Verdict", "",
            ("R1-R3 pass: run R4, the development sets." if complete and all(done)
             else "Not all of R1-R3 pass: the plug-in inner predictive stays."
             if not all(done) else "So far no rule fails (run incomplete)."), ""]
    offline.write_report(HERE, "\n".join(out))


if __name__ == "__main__":
    main()
