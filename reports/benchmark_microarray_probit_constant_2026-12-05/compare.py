"""The default with the probit component's constant genes dropped (this run) against
the default's run of 2026-12-05 before the fix
(``../benchmark_microarray_plugin_noise_2026-12-05/``) on the same folds and seeds, by
``../benchmark_microarray_light_refits_2026-12-05/compare.py``'s ``comparison``: per set,
AMLP paired over folds ± SE (folds as the unit; * beyond 2 SE), |expected - actual error| of
both, README.md's findings.

Usage (from the repository root):
``python reports/benchmark_microarray_probit_constant_2026-12-05/compare.py``; writes
``comparison.md`` beside this script.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEFORE_DIR = HERE.parent / "benchmark_microarray_plugin_noise_2026-12-05"
#: the folder whose compare.py defines ``comparison``
COMPARISON_DIR = HERE.parent / "benchmark_microarray_light_refits_2026-12-05"


def main() -> int:
    spec = importlib.util.spec_from_file_location("light_refits_compare",
                                                  COMPARISON_DIR / "compare.py")
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    lines = before.comparison(
        HERE / "results.csv", BEFORE_DIR / "results.csv",
        "The probit component's constant genes dropped against the default before",
        now="new", then="before", then_date="2026-12-05, before the fix")
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
