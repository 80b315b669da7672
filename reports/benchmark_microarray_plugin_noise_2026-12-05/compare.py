"""The default with the plug-in's noise variances at their conditional mean (this run) against
the default's run of 2026-12-05 before the change
(``../benchmark_microarray_light_refits_2026-12-05/``) on the same folds and seeds, by that
folder's ``comparison``: per set, AMLP paired over folds ± SE (folds as the unit; * beyond
2 SE), |expected - actual error| of both, README.md's findings.

Usage (from the repository root):
``python reports/benchmark_microarray_plugin_noise_2026-12-05/compare.py``; writes
``comparison.md`` beside this script.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEFORE_DIR = HERE.parent / "benchmark_microarray_light_refits_2026-12-05"


def main() -> int:
    spec = importlib.util.spec_from_file_location("before_compare", BEFORE_DIR / "compare.py")
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    lines = before.comparison(
        HERE / "results.csv", BEFORE_DIR / "results.csv",
        "The plug-in's noise variances at their conditional mean against the default before",
        now="new", then="before", then_date="2026-12-05, before the change")
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
