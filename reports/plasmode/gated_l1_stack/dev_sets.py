"""Rule T4 of README.md: the default stack with the gated L1 model on the eleven development
sets, scored from the default's stored components
(``../../benchmark_microarray_components_2026-12-03/``; ``../third_component.py``'s
``dev_fold`` with ``run.py``'s ``gated_weights``). Rule: AMLP worse beyond 2 SE than the
default's on no set, and the mean over the sets better beyond 2 SE. Reported as
``../l1_stack/dev_sets.py`` reports, and the folds where the gate opened.

Run from the repository root: ``python reports/plasmode/gated_l1_stack/dev_sets.py`` (minutes
on 2 cores); writes ``dev_sets.md`` and ``dev_sets.csv`` here.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: the scoring)


def write(df) -> list[str]:
    """``dev_sets.md`` (and its lines) from the folds' rows."""
    l1d = offline.load_script(HERE.parent / "l1_stack" / "dev_sets.py", "l1_stack_dev_sets")
    lines = l1d.report_lines(df, "# Rule T4: the stack with the gated L1 model on the "
                             "development sets (made by dev_sets.py)")
    opened = df[df.gate_open]
    lines += [f"The gate opened in {len(opened)} of {len(df)} folds"
              + (": " + ", ".join(f"{s} ({n})" for s, n in
                                  opened.groupby("dataset").size().items()) if len(opened)
                 else "") + ".", ""]
    (HERE / "dev_sets.md").write_text("\n".join(lines))
    return lines


def main() -> int:
    run = offline.load_script(HERE / "run.py", "gated_l1_stack_run")
    l1 = run._l1_stack()
    df = third_component.dev_sets(l1.l1_logistic, "l1", extra=l1.uniform_folds,
                                  weights=run.gated_weights)
    df.to_csv(HERE / "dev_sets.csv", index=False)
    print("\n".join(write(df)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
