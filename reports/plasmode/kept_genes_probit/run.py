"""The candidate of README.md, ``three_way``, scored from the default's stored fits (no MCMC):
the default stack's two components (``../sharpened_pool/fits/``) plus the probit model of the
Gaussian model's k top genes by F, the three weighted by the stack's ``stacking_weights`` on
the inner cases. Also ``linear_refit``, the default's two-way pool recomputed from the same
stored log probabilities (checked against the committed rows by ``compare.py``).

Run from the repository root: ``python reports/plasmode/kept_genes_probit/run.py [jobs]``
(resumes from ``results.jsonl``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: the scoring)

SEED = 0                     # the run seed of ../refit_inner and ../sharpened_pool
FITS = HERE.parent / "sharpened_pool" / "fits"


def _log_pool_run():
    return offline.load_script(HERE.parent / "log_pool" / "run.py", "log_pool_run")


def _committed_k(name: str, rep: int) -> int:
    """The Gaussian model's chosen k in that fit (``../refit_inner/results.jsonl``)."""
    import paired  # reports/plasmode/paired.py (on the path above)

    return int(paired.read_rows(HERE.parent / "refit_inner" / "results.jsonl")
               [("refit", name, rep)]["k"])


def top_k_by_f(X, y, k):
    """Indices of the k genes with the largest ANOVA F statistic, best first (ties by lowest
    index): the package's own F (``selbayes.filters.f_statistic``), so the genes the Gaussian
    model keeps; unlike ``select_features`` it accepts an inner training fold that keeps one
    case of a class. (The first run used scikit-learn's ``f_classif``, which gives F = n - G to
    some near-constant genes of singh's standardised X and ranked them first; README.md,
    "Correction".)"""
    from selbayes.filters import f_statistic
    from selbayes.filters._selection import _rank_top  # the selection's own ranking

    y = np.asarray(y)
    return _rank_top(f_statistic(np.asarray(X, dtype=np.float64), y, int(y.max()) + 1), k)


def kept_probit(X, y, Xt, seed, k):
    """The candidate's third component (a ``third_component`` component): the probit model
    of the k top genes by F of ``X``, fitted on ``X``; log probabilities of ``Xt``."""
    from selbayes.estimators._linear_stack import fit_all_features_probit

    genes = top_k_by_f(X, y, k)
    return fit_all_features_probit(X[:, genes], y, seed).predict_log_proba(Xt[:, genes])


def scored_rows(data, binary, A, yi, T, w2, random_state, k, common) -> list:
    """``third_component.scored_rows`` with the kept-genes probit (``kept_weight``,
    ``inner_kept``)."""
    return third_component.scored_rows(data, binary, A, yi, T, w2, random_state, k, common,
                                       kept_probit, "kept")


def one_replicate(name: str, rep: int) -> list:
    return third_component.stored_rows(name, rep, SEED, FITS, _committed_k(name, rep),
                                       kept_probit, "kept")


def main() -> int:
    lp = _log_pool_run()
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("kept_weight", "k", "fold_check"),
                           scenarios=lp.SUITE + lp.HOLDOUT + lp.THREE_CLASS)


if __name__ == "__main__":
    raise SystemExit(main())
