"""Probe (nothing chosen): would a low-rank factor of X carry the signal the corrected fits lose
where they collapse?  Candidate it would test: the top r principal-component scores of the
training X added to the features the selection ranks (a "module" enters as one strong feature
instead of many weak genes). Before building it, ask whether any of the top 20 components of
the training X has a large F statistic in the replicates where the corrected fits collapse
(plasmode_module 0 and 3, plasmode_sparse 2: ``../correlated_underconfidence/``).

Run: ``python reports/plasmode/pc_factor_probe/probe.py`` (under a minute; writes probe.md).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the suite's replicates, selections)

N_COMPONENTS = 20
COLLAPSED = {("plasmode_module", 0), ("plasmode_module", 3), ("plasmode_sparse", 2)}
SCENARIOS = ("plasmode_sparse", "plasmode_dense", "plasmode_module")


def main() -> int:
    from selbayes.filters import f_statistic  # the selection's own statistic

    warnings.simplefilter("ignore")
    lines = ["# Principal components of the training X in the plasmode replicates", "",
             f"Top {N_COMPONENTS} components of the training X as the default prepares it (the "
             "features the selection ranks; SVD of the n x p matrix, never p x p); F statistics "
             "of their scores against the training labels, beside the largest F of the genes "
             "(the selection's own statistic). The suite's replicates (seed 0), all training "
             "cases. `null 99%`: the 99% point of the largest of "
             f"{N_COMPONENTS} independent F(1, n - 2) statistics.", "",
             "| scenario | replicate | collapsed | largest gene F | largest component F "
             "(component) | null 99% |", "|---|---:|---|---:|---:|---:|"]
    for name in SCENARIOS:
        for rep in range(6):
            R = offline.replicate(name, rep)
            y = R.yi
            (Z, _, sel), = offline.selections(R, np.arange(y.size), [5])
            U, s, _ = np.linalg.svd(Z - Z.mean(0), full_matrices=False)
            f_pc = f_statistic(U[:, :N_COMPONENTS] * s[:N_COMPONENTS], y, 2)
            null99 = stats.f.ppf(0.99 ** (1 / N_COMPONENTS), 1, y.size - 2)
            lines.append(f"| {name} | {rep} | {'yes' if (name, rep) in COLLAPSED else ''} | "
                         f"{sel.scores.max():.1f} | {f_pc.max():.1f} "
                         f"({int(f_pc.argmax()) + 1}) | {null99:.1f} |")
    text = "\n".join(lines) + "\n"
    (HERE / "probe.md").write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
