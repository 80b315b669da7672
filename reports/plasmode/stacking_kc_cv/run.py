"""Stacking over k and the correction, each component with its own label-noise share: an
offline check (plug-in posterior). The rule and the candidate are in README.md (written
before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k
chosen with the share 1/(n + 2), then the share at that k), ``pi_stack_kc_cv`` (the
candidate: corrected and uncorrected candidates of every k stacked, the package's component
rule, each component's share chosen at its own (k, correction)) and ``pi_stack_k_cv`` (the
same over the corrected candidates only; reported). Run: ``python
reports/plasmode/stacking_kc_cv/run.py [jobs]`` (resumes from ``results.jsonl``), then
``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES   # c of the share c / (n + 2); c = 1 (Laplace's) first
MAX_COMPONENTS, MIN_WEIGHT = 3, 0.05  # StackedGaussianClassifier's defaults


def components(log_p_true):
    """The package's component rule on the stacking weights of ``log_p_true`` (candidates,
    n): the indices kept and their renormalised weights, and all weights."""
    from selbayes.estimators._stacking import kept_components, stacking_weights

    w = stacking_weights(log_p_true)
    return (*kept_components(w, max_components=MAX_COMPONENTS, min_weight=MIN_WEIGHT), w)


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n, nk = X.shape[0], len(ks)
    cands = [(ki, c) for c in (True, False) for ki in range(nk)]   # corrected first
    def both(Z, y_tr, X_te, sel, n_tr):                           # corrected, uncorrected
        return np.stack([offline.share_log_probas(Z, y_tr, G, X_te, sel, R.priors, n_tr,
                                                  R.seed, corrected)[0]
                         for corrected in (True, False)])

    # (k, correction, share, n) -> (candidate, share, n), candidates in the order of cands
    loss = offline.inner_losses(R, ks, both).swapaxes(0, 1).reshape(len(cands), len(SHARES), n)
    score = loss.mean(-1)                                         # (candidate, share)
    best = int(np.argmin(score[:nk, 0]))                          # the control's k
    mixtures = {"pi_noise_cv": ([best], np.ones(1), None),
                "pi_stack_k_cv": components(-loss[:nk, 0]),
                "pi_stack_kc_cv": components(-loss[:, 0])}
    share_of = {ci: int(np.argmin(score[ci])) for ci in range(len(cands))}
    outer = {}
    for ci in sorted({ci for keep, _, _ in mixtures.values() for ci in keep}):
        ki, corrected = cands[ci]
        Z, X_test, sel = offline.outer_selection(R, ks[ki])
        outer[ci] = offline.share_log_probas(
            Z, yi, G, X_test, sel, R.priors, n, R.seed,
            corrected)[0][share_of[ci]]
    rows = []
    for method, (keep, weights, w_all) in mixtures.items():
        proba = sum(w * np.exp(outer[ci]) for w, ci in zip(weights, keep, strict=True))
        label = {f"{ks[cands[ci][0]]}{'' if cands[ci][1] else 'u'}": float(w)
                 for w, ci in zip(weights, keep, strict=True)}
        own = loss[keep, [share_of[ci] for ci in keep]]          # (components, n)
        mix_score = float(-np.mean(np.log(np.exp(-own).T @ weights)))
        rows.append(offline.scored_row(
            R, scenario_name, rep, method, np.log(proba), k=int(ks[cands[keep[0]][0]]),
            corrected=bool(cands[keep[0]][1]), components=label,
            shares={lab: SHARES[share_of[ci]] for lab, ci in zip(label, keep, strict=True)},
            share_c=SHARES[share_of[keep[0]]], inner_score=mix_score,
            uncorrected_weight=(None if w_all is None or len(w_all) == nk
                                else float(w_all[nk:].sum()))))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("components",))


if __name__ == "__main__":
    raise SystemExit(main())
