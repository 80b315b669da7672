"""The candidate of README.md, ``three_way`` (the default stack plus L1 logistic regression),
scored from the default's stored fits (no MCMC): rules T1-T3 on the 66 fits of
``../sharpened_pool/fits/`` (run seed 0; ``results.jsonl``) and T5 on the 30 of
``../kept_genes_probit/seed1/fits/`` (run seed 1; ``seed1/results.jsonl``). Also
``linear_refit``, the default's two-way pool recomputed from the same stored log
probabilities.

Run from the repository root: ``python reports/plasmode/l1_stack/run.py [jobs]`` (resumes from
both files).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: the scoring)

SEED0_FITS = HERE.parent / "sharpened_pool" / "fits"
SEED1 = HERE.parent / "kept_genes_probit" / "seed1"
_TINY = np.finfo(np.float64).tiny


def l1_fits(y) -> bool:
    """Whether L1's 3-fold search for C can be run on class indices ``y`` (README.md: every
    class needs two cases): the package's own rule, which the stack's L1 model uses."""
    from selbayes.estimators._l1_logistic import can_fit_l1_logistic

    return can_fit_l1_logistic(y)


def l1_logistic(X, y, Xt, seed, k):
    """The candidate's third component (a ``third_component`` component): the benchmark's
    ``logreg_l1_cv`` seeded with ``seed``, fitted on ``X``; log probabilities of ``Xt``,
    floored at the smallest positive double; 1/G where it cannot be fitted (``l1_fits``).
    ``k`` is not used."""
    import warnings

    from selbayes.benchmark._methods import make_method

    G = int(np.max(y)) + 1
    if not l1_fits(y):
        return np.full((Xt.shape[0], G), -np.log(G))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # liblinear's convergence and CV-split notes
        p = make_method("logreg_l1_cv", G, random_state=seed).fit(X, y).predict_proba(Xt)
    return np.log(np.maximum(p, _TINY))


def uniform_folds(y, seed) -> dict:
    """``l1_uniform_folds``: how many of the Gaussian model's inner folds (re-made from
    ``seed``) give L1 no fit (README.md), for class indices ``y``."""
    return {"l1_uniform_folds": sum(not l1_fits(y[tr])
                                    for tr, _ in third_component.inner_folds(y, seed))}


def _rows(name, rep, seed, fits, k) -> list:
    return third_component.stored_rows(name, rep, seed, fits, k, l1_logistic, "l1",
                                       extra=uniform_folds)


def seed0_k(name: str, rep: int) -> int:
    """The Gaussian model's chosen k in the default's seed-0 fit of the replicate."""
    return int(paired.read_rows(HERE.parent / "refit_inner" / "results.jsonl")
               [("refit", name, rep)]["k"])


def seed1_k(name: str, rep: int) -> int:
    """The Gaussian model's chosen k in the default's seed-1 fit of the replicate."""
    return int(paired.read_rows(SEED1 / "results.jsonl")[("linear_refit", name, rep)]["k"])


def seed0_replicate(name: str, rep: int) -> list:
    return _rows(name, rep, 0, SEED0_FITS, seed0_k(name, rep))


def seed1_replicate(name: str, rep: int) -> list:
    return _rows(name, rep, 1, SEED1 / "fits", seed1_k(name, rep))


def main() -> int:
    lp = offline.load_script(HERE.parent / "log_pool" / "run.py", "log_pool_run")
    fields = ("l1_weight", "k", "fold_check", "l1_uniform_folds")
    offline.run_all(seed0_replicate, HERE / "results.jsonl", fields,
                    scenarios=lp.SUITE + lp.HOLDOUT + lp.THREE_CLASS)
    (HERE / "seed1").mkdir(exist_ok=True)
    return offline.run_all(seed1_replicate, HERE / "seed1" / "results.jsonl", fields,
                           scenarios=lp.SUITE)


if __name__ == "__main__":
    raise SystemExit(main())
