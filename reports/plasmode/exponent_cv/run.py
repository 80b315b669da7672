"""The selection factor's exponent chosen by the inner cross-validation from {p - k, m_eff}:
an offline check (plug-in posterior). The rule and the candidate are in README.md (written
before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/``:
- ``pi_noise_cv``: the control, the current default's predictive; reproduces
  ``../label_noise_cv/``'s rows.
- ``pi_meff``: the exponent m_eff always; reproduces ``../effective_omitted/``'s rows.
- ``pi_exponent_cv``: (k, exponent) chosen jointly by the inner cross-validation.

Run: ``python reports/plasmode/exponent_cv/run.py [jobs]`` (resumes from
``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES   # c of the share c / (n + 2); c = 1 (Laplace's) first
EXPONENTS = ("p_minus_k", "m_eff")


def both_exponents(Z, y, G, X_test, sel, priors, n, seed):
    """(2, shares, m, G) log probabilities with the exponent p - k and m_eff, and m_eff."""
    sel_eff, m_eff = offline.with_effective_exponent(Z, y, sel)
    return np.stack([offline.share_log_probas(Z, y, G, X_test, s, priors, n, seed)[0]
                     for s in (sel, sel_eff)]), m_eff


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss = np.zeros((len(ks), len(EXPONENTS), len(SHARES), n))
    for tr, te in R.folds:
        for ki, (Z, feats, sel) in enumerate(offline.selections(R, tr, ks)):
            lps, _ = both_exponents(Z, yi[tr], G, feats.selected(X[te], sel.indices), sel,
                                    R.priors, tr.size, R.seed)
            loss[ki][..., te] = -lps[..., np.arange(te.size), yi[te]]
    score = loss.mean(-1)                                          # (k, exponent, share)
    chosen = {"pi_noise_cv": (int(np.argmin(score[:, 0, 0])), 0),
              "pi_meff": (int(np.argmin(score[:, 1, 0])), 1),
              "pi_exponent_cv": tuple(int(i) for i in np.unravel_index(
                  np.argmin(score[:, :, 0]), score.shape[:2]))}
    rows = []
    for ki in sorted({c[0] for c in chosen.values()}):
        Z, X_test, sel = offline.outer_selection(R, ks[ki])
        lps, m_eff = both_exponents(Z, yi, G, X_test, sel, R.priors, n, R.seed)
        for method, (kj, ei) in chosen.items():
            if kj != ki:
                continue
            si = int(np.argmin(score[ki, ei]))
            rows.append(offline.scored_row(
                R, scenario_name, rep, method, lps[ei, si], k=int(ks[ki]),
                exponent=EXPONENTS[ei], m_eff=float(m_eff), n_omitted=int(sel.n_omitted),
                share_c=SHARES[si], inner_score=float(score[ki, ei, si]),
                inner_best={e: float(score[:, j, 0].min()) for j, e in enumerate(EXPONENTS)}))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "exponent"))


if __name__ == "__main__":
    raise SystemExit(main())
