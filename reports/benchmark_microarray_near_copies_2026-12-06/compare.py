"""README.md's check: srbct with the default keeping near-copies whole against the last run
of the default (``../benchmark_microarray_k_grid_clip_2026-12-06/``, same folds and seeds),
paired over folds, and the eleven sets' mean AMLP with srbct's rows replaced. Writes
``comparison.md``.

Usage (from the repository root):
``python reports/benchmark_microarray_near_copies_2026-12-06/compare.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
LAST = HERE.parent / "benchmark_microarray_k_grid_clip_2026-12-06"


def _mean_se(d) -> tuple[float, float]:
    d = np.asarray(d, dtype=np.float64)
    return d.mean(), d.std(ddof=1) / np.sqrt(d.size)


def main() -> None:
    now = pd.read_csv(HERE / "results.csv").query("method == 'selbayes'")
    last = pd.read_csv(LAST / "results.csv").query("method == 'selbayes'")
    key = ["dataset", "repeat", "fold"]
    both = now.merge(last, on=key, suffixes=("", "_last"))
    assert len(both) == len(now) == 5, len(both)
    assert (both.n_test == both.n_test_last).all()
    d, se = _mean_se(both.amlp - both.amlp_last)
    w = both.n_test / both.n_test.sum()

    def weighted(col):
        return float((both[col] * w).sum())

    gap_now = abs(weighted("expected_error") - weighted("error"))
    gap_last = abs(weighted("expected_error_last") - weighted("error_last"))
    lines = ["# srbct with near-copies kept whole inside, against the last run (made by "
             "compare.py)", "",
             "| fold | AMLP last | AMLP now | error last / now | expected error last / now "
             "|", "|---:|---:|---:|---|---|"]
    for _, r in both.iterrows():
        lines.append(f"| {r.fold} | {r.amlp_last:.3f} | {r.amlp:.3f} | {r.error_last:.3f} / "
                     f"{r.error:.3f} | {r.expected_error_last:.3f} / {r.expected_error:.3f} |")
    worse = d - 2 * se > 0
    lines += ["", f"srbct AMLP (case-weighted): last {weighted('amlp_last'):.3f}, now "
              f"{weighted('amlp'):.3f}; now - last {d:+.3f} ± {se:.3f} (folds as the unit"
              f"{', beyond 2 SE' if abs(d) > 2 * se else ''}). |expected - actual error|: last "
              f"{gap_last:.3f}, now {gap_now:.3f}.", ""]
    eleven = pd.read_csv(LAST / "results.csv").query("method == 'selbayes'")
    eleven = pd.concat([eleven[eleven.dataset != "srbct"], now])
    per_set = eleven.groupby("dataset").apply(
        lambda g: np.average(g.amlp, weights=g.n_test), include_groups=False)
    lines += [f"Mean AMLP over the eleven sets with srbct's new rows: {per_set.mean():.4f} "
              "(the last run: 0.372).", "",
              "**Finding** (README.md's rule): " + (
                  "yes: " + ("AMLP worse beyond 2 SE; " if worse else "")
                  + ("|expected - actual| above 0.05" if gap_now > 0.05 else "")
                  if worse or gap_now > 0.05 else "none.")]
    text = "\n".join(lines) + "\n"
    (HERE / "comparison.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
