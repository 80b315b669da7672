"""Rule T5 of ``../README.md``: the default (``LinearStackedClassifier``, refitted inner
predictions) fitted with MCMC on new replicates of the suite's five scenarios (run seed 1: data
seeds 1 + 1000 r, estimator seeds 1 + r, none shared with the seed-0 replicates of T1-T4),
scored as it predicts (``linear_refit``, checked against its own ``predict_proba``) and as the
candidate ``three_way`` (``../run.py``'s ``scored_rows``: the kept-genes probit added, three
weights on the same inner cases); and L2 logistic regression (``logreg_l2_cv``, the protocol's
rule 1) on the same replicates. Each fit's components are kept in ``fits/`` (npz) as in
``../../sharpened_pool/``.

Run from the repository root: ``python reports/plasmode/kept_genes_probit/seed1/run.py [jobs]``
(resumes from ``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PLASMODE = HERE.parent.parent
sys.path.insert(0, str(PLASMODE))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

SEED = 1


def one_replicate(name: str, rep: int) -> list:
    from selbayes.estimators._linear_stack import _linear_pool

    kept = offline.load_script(HERE.parent / "run.py", "kept_genes_probit_run")
    refit = offline.load_script(PLASMODE / "refit_inner" / "run.py", "refit_inner_run")
    data, binary, clf, seconds, proba, A, T, yi = refit.fit_components(name, rep,
                                                                       HERE / "fits", SEED)
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    rows = kept.scored_rows(data, binary, A, yi, T, clf.weights_, SEED + rep, int(clf.k_),
                            common)
    # the two-way pool recomputed from the components is what the default predicts
    rows[0].update(seconds=seconds, predict_check=float(np.max(np.abs(
        proba - np.exp(_linear_pool(T, np.asarray(clf.weights_, float)))))))
    return rows + [offline.l2_row(data, common, SEED + rep)]


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("kept_weight", "k", "predict_check"),
                           scenarios=offline.SCENARIO_NAMES)


if __name__ == "__main__":
    raise SystemExit(main())
