"""README.md's check: this run's default against the 2026-12-05 run on the same folds
(``comparison``, the light-refits run's table) and, per fold, the AMLP differences README.md
counts as findings. Writes ``comparison.md``.

Usage (from the repository root):
``python reports/benchmark_microarray_k_grid_clip_2026-12-06/compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "benchmark_microarray_light_refits_2026-12-05"
RULE5 = HERE.parent / "plasmode" / "k_grid_clip" / "dev_sets" / "results.csv"
sys.path.insert(0, str(BEFORE))
from compare import comparison  # noqa: E402  (the light-refits run's compare.py)

CHANGED = ("colon", "sorlie")


def findings() -> list[str]:
    now = pd.read_csv(HERE / "results.csv").query("method == 'selbayes'")
    then = pd.read_csv(BEFORE / "results.csv").query("method == 'selbayes'")
    rule5 = pd.read_csv(RULE5).assign(method="selbayes")
    ref = pd.concat([then[~then.dataset.isin(CHANGED)], rule5])
    key = ["dataset", "repeat", "fold"]
    both = now.merge(ref, on=key, suffixes=("", "_ref"))
    assert len(both) == len(now) == 55, len(both)
    both["diff"] = (both.amlp - both.amlp_ref).abs()
    off = both[both["diff"] > 1e-6]
    return ["## README.md's check", "",
            f"Largest |AMLP difference| per fold against the reference (the 2026-12-05 run on "
            f"the nine sets with p > 2000, rule 5's run on colon and sorlie): "
            f"{both['diff'].max():.2e}.",
            "Findings: " + (", ".join(f"{r.dataset} fold {r.fold} ({r['diff']:.2e})"
                                      for _, r in off.iterrows()) or "none") + ".", ""]


def main() -> None:
    lines = comparison(HERE / "results.csv", BEFORE / "results.csv",
                       "The default with the clipped k grid against the run of 2026-12-05",
                       now="clip", then="drop", then_date="2026-12-05")
    lines += findings()
    (HERE / "comparison.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
