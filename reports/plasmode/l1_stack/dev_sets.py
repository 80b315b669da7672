"""Rule T4 of README.md: the stack with L1 logistic regression as a third model on the eleven
development sets, scored from the default's stored components
(``../../benchmark_microarray_components_2026-12-03/``; ``../third_component.py``'s
``dev_fold``: the new component on the Gaussian model's inner folds, re-made from each fold's
seed and checked). Rule: AMLP worse beyond 2 SE than the default's on no set, and the mean
over the sets better beyond 2 SE. Reported: the stack against L1 alone on the sets where L1's
AMLP is below 0.25, and the inner folds where L1 could not be fitted.

Run from the repository root: ``python reports/plasmode/l1_stack/dev_sets.py`` (minutes on 2
cores); writes ``dev_sets.md`` and ``dev_sets.csv`` here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: the scoring)


def report_lines(df, title: str) -> list[str]:
    """T4's Markdown lines from the folds' rows of a stack with L1 as its third model."""
    lines = third_component.dev_sets_report(df, "l1", title, "L1 alone (refitted here)",
                                            "L1 weight", better_mean=True)
    peers = pd.read_csv(third_component.DEV_PEERS).pivot(index="dataset", columns="method",
                                                         values="amlp")
    easy = peers.index[peers.logreg_l1_cv < 0.25]
    w = df.n_test / df.groupby("dataset").n_test.transform("sum")
    amlp = df.assign(w3=w * df.three_way, w2=w * df.default).groupby("dataset")[["w3", "w2"]].sum()
    lines += [f"Reported: on the {len(easy)} sets where L1's AMLP is below 0.25 "
              f"({', '.join(easy)}), three_way {amlp.loc[easy, 'w3'].mean():.3f}, the default "
              f"{amlp.loc[easy, 'w2'].mean():.3f}, L1 "
              f"{peers.loc[easy, 'logreg_l1_cv'].mean():.3f}. "
              f"Inner folds without an L1 fit: {int(df.l1_uniform_folds.sum())} (of "
              f"{5 * len(df)}).", ""]
    return lines


def write(df) -> list[str]:
    """``dev_sets.md`` (and its lines) from the folds' rows."""
    lines = report_lines(df, "# Rule T4: the stack with L1 logistic regression on the "
                         "development sets (made by dev_sets.py)")
    (HERE / "dev_sets.md").write_text("\n".join(lines))
    return lines


def main() -> int:
    run = offline.load_script(HERE / "run.py", "l1_stack_run")
    df = third_component.dev_sets(run.l1_logistic, "l1", extra=run.uniform_folds)
    df.to_csv(HERE / "dev_sets.csv", index=False)
    print("\n".join(write(df)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
