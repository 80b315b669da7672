"""README.md's check: this run's default against the last run of the default before the
clipped grid (``../benchmark_microarray_probit_constant_2026-12-05/``, same folds and seeds;
``comparison``, the light-refits run's table) and, per fold, the AMLP differences README.md
counts as findings, against the run README.md named (the light-refits run, which predates two
later changes of the default, see README.md's result) and against that last run. Writes
``comparison.md``.

Usage (from the repository root):
``python reports/benchmark_microarray_k_grid_clip_2026-12-06/compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "benchmark_microarray_light_refits_2026-12-05"
LAST = HERE.parent / "benchmark_microarray_probit_constant_2026-12-05"
RULE5 = HERE.parent / "plasmode" / "k_grid_clip" / "dev_sets" / "results.csv"
sys.path.insert(0, str(BEFORE))
from compare import comparison  # noqa: E402  (the light-refits run's compare.py)

CHANGED = ("colon", "sorlie")


def largest_difference(reference_csv: Path, label: str) -> list[str]:
    """The largest |AMLP difference| per fold of this run against ``reference_csv``'s default
    on the nine sets with p > 2000 and rule 5's run on colon and sorlie, and the folds above
    README.md's 1e-6."""
    now = pd.read_csv(HERE / "results.csv").query("method == 'selbayes'")
    then = pd.read_csv(reference_csv).query("method == 'selbayes'")
    rule5 = pd.read_csv(RULE5).assign(method="selbayes")
    ref = pd.concat([then[~then.dataset.isin(CHANGED)], rule5])
    key = ["dataset", "repeat", "fold"]
    both = now.merge(ref, on=key, suffixes=("", "_ref"))
    assert len(both) == len(now) == 55, len(both)
    both["diff"] = (both.amlp - both.amlp_ref).abs()
    off = both[both["diff"] > 1e-6]
    return [f"Against {label}: largest |AMLP difference| per fold {both['diff'].max():.2e}; "
            "folds above 1e-6: " + (", ".join(f"{r.dataset} fold {r.fold} ({r['diff']:.2e})"
                                              for _, r in off.iterrows()) or "none") + ".", ""]


def main() -> None:
    lines = comparison(HERE / "results.csv", LAST / "results.csv",
                       "The default with the clipped k grid against the last run before it",
                       now="clip", then="drop", then_date="2026-12-05, probit fix")
    lines += ["## README.md's check (the nine sets with p > 2000 against a run of the old "
              "default; colon and sorlie against rule 5's run)", ""]
    lines += largest_difference(BEFORE / "results.csv", "the light-refits run (README.md's)")
    lines += largest_difference(LAST / "results.csv", "the probit-fix run (the last before)")
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
