"""README.md's rule 5: the candidate on the two development sets where it can differ from the
default (colon, p = 2000; sorlie, p = 456), paired per fold against the default's run of
2026-12-05 on the same folds and seeds (``../../benchmark_microarray_light_refits_2026-12-05/``).
On the other nine sets (p above 2000) the candidate is the default by construction, so their
rows are that run's, renamed.

Run from the repository root, after ``selbayes benchmark colon sorlie --methods
selbayes_k_grid_clip --folds 5 --repeats 1 --seed 0 --jobs 2 --out
reports/plasmode/k_grid_clip/dev_sets``: ``python reports/plasmode/k_grid_clip/dev_sets.py``
(writes ``dev_sets.md``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
REPORTS = HERE.parent.parent
DEFAULT_RUN = REPORTS / "benchmark_microarray_light_refits_2026-12-05"
sys.path.insert(0, str(DEFAULT_RUN))
from compare import comparison  # noqa: E402  (the light-refits run's compare.py)

CHANGED = ("colon", "sorlie")


def main() -> None:
    default = pd.read_csv(DEFAULT_RUN / "results.csv").query("method == 'selbayes'")
    clip = pd.read_csv(HERE / "dev_sets" / "results.csv").query(
        "method == 'selbayes_k_grid_clip'")
    assert set(clip.dataset) == set(CHANGED), sorted(set(clip.dataset))
    candidate = pd.concat([clip.assign(method="selbayes"),
                           default[~default.dataset.isin(CHANGED)]])
    path = HERE / "dev_sets" / "candidate_all_sets.csv"
    candidate.to_csv(path, index=False)
    lines = comparison(path, DEFAULT_RUN / "results.csv",
                       "The k grid clipped at p - 1 against the default on the development sets",
                       now="clip", then="default", then_date="2026-12-05")
    lines.insert(2, "Colon and sorlie refitted; the other nine sets' rows are the default's "
                    "(the candidate equals it where p > 2000). Rule 5 of README.md: not worse "
                    "beyond 2 SE on either set nor in the mean, and no set's |expected - "
                    "actual| newly above 0.05 (colon's 0.057: not larger by more than 0.01).")
    lines.insert(3, "")
    (HERE / "dev_sets.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
