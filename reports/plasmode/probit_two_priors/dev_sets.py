"""After the verdict (reported, decides nothing): ``probit_two_priors`` on the eight
two-class development sets, from the default's components stored per fold
(``reports/benchmark_microarray_components_2026-12-03/``: the two-model stack, 5 folds, seed
0). The suite's plasmode scenarios draw labels given real X, the case the isotropic prior is
right for; on real sets the classes shift expression. The candidate's probit component is
recomputed on each fold's inner folds (re-made from the fold's seed and checked against the
stored isotropic one) and on the training fold; the stack's own weights on (Gaussian,
candidate); the test cases' log loss against the stored stack's, paired over folds as the
benchmark pairs methods. Writes ``dev_sets.csv`` and ``dev_sets.md``.

Run from the repository root: ``python reports/plasmode/probit_two_priors/dev_sets.py``
(about a minute).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: dev_fold)

COMPARE = offline.load_script(HERE / "compare.py", "probit_two_priors_compare")
BINARY = ("borovecki", "chowdary", "colon", "golub", "gravier", "pomeroy", "singh",
          "subramanian")


def component(X, y, Xt, seed, k):
    """The candidate's probit predictive of ``Xt`` (log probabilities, (m, 2))."""
    return COMPARE.two_priors(X, y, Xt)[0]


def weights(A3, yi, random_state):
    """The stack's own weights on the Gaussian model and the candidate (``A3[2]``); the
    stored isotropic probit (``A3[1]``) gets 0, so ``three_way`` is the candidate's stack."""
    from selbayes.estimators._linear_stack import _weights_and_pool

    w, _ = _weights_and_pool(A3[[0, 2]], yi, "linear")
    return np.array([w[0], 0.0, w[1]]), {}


def main() -> None:
    import pandas as pd
    from sklearn.utils.parallel import Parallel, delayed

    df = pd.DataFrame(Parallel(n_jobs=2)(
        delayed(third_component.dev_fold)(s, f, component, "two_priors", weights=weights)
        for s in BINARY for f in range(5)))
    df.to_csv(HERE / "dev_sets.csv", index=False)
    per, mean, se = third_component.dev_sets_differences(df)
    lines = ["# probit_two_priors on the two-class development sets (after the verdict)", "",
             "Made by `dev_sets.py`; decides nothing. AMLP difference candidate's stack - the "
             "stored two-model stack, paired over the 5 folds (* beyond 2 SE); the largest "
             f"fold check (stored isotropic probit against its recomputation) "
             f"{df.fold_check.max():.1e}.", "",
             "| set | stack | candidate's stack | difference | candidate's probit alone | "
             "its weight (mean) |", "|---|---:|---:|---:|---:|---:|"]
    for s, g in df.groupby("dataset"):
        w = g.n_test / g.n_test.sum()
        star = "*" if per.loc[s, "clear"] else ""
        lines.append(f"| {s} | {(w * g.default).sum():.3f} | {(w * g.three_way).sum():.3f} | "
                     f"{per.loc[s, 'diff']:+.3f} ± {per.loc[s, 'se']:.3f}{star} | "
                     f"{(w * g.two_priors_alone).sum():.3f} | {g.w_two_priors.mean():.2f} |")
    lines += ["", f"Mean over the sets: {mean:+.4f} ± {se:.4f}.", ""]
    (HERE / "dev_sets.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
