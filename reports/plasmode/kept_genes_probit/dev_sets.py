"""Rule T4 of README.md: the three-way stack on the eleven development sets, scored from the
default's stored components (exactly what a benchmark method for it would give on the same
folds and seeds: the stored components reproduce the default's run to 1e-12, and the new
component is computed here on the same inner folds). Rule: AMLP not worse beyond 2 SE than the
default's on any set or in the mean over the sets.

For each fold of ``../../benchmark_microarray_components_2026-12-03/`` (the default's run with
its components stored): the fold's training cases preprocessed as the benchmark's pipeline does,
the Gaussian model's inner folds re-made from the fold's seed (checked: the stored all-genes
probit's inner log probabilities come back from them), the probit model of the top-k genes by
F on each inner training fold and on the whole training fold (k the Gaussian model's chosen
k), the three weights by ``stacking_weights``, and the pooled test probabilities.

Run from the repository root: ``python reports/plasmode/kept_genes_probit/dev_sets.py``
(a few minutes on 2 cores); writes ``dev_sets.md`` and ``dev_sets.csv`` here.
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
    lines = third_component.dev_sets_report(
        df, "kept", "# Rule T4: the three-way stack on the development sets (made by "
        "dev_sets.py)", "kept genes alone", "kept-genes weight")
    (HERE / "dev_sets.md").write_text("\n".join(lines))
    return lines


def main() -> int:
    run = offline.load_script(HERE / "run.py", "kept_genes_run")
    df = third_component.dev_sets(run.kept_probit, "kept")
    df.to_csv(HERE / "dev_sets.csv", index=False)
    print("\n".join(write(df)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
