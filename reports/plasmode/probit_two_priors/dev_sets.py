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
    # third_component's table, without its rule T4 (this run decides nothing): `three_way`
    # is the candidate's stack, `default` the stored two-model stack
    lines = third_component.dev_sets_report(
        df, "two_priors", "# probit_two_priors on the two-class development sets (after the "
        "verdict; decides nothing; `three_way`: the candidate's stack, `default`: the stored "
        "two-model stack)", "candidate's probit alone", "its weight")[:-2]
    (HERE / "dev_sets.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
