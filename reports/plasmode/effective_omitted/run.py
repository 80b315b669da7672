"""The selection factor's exponent p - k replaced by the effective number of omitted genes:
an offline check (plug-in posterior). The rule and the candidate are in README.md (written
before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive) and
``pi_meff`` (the same with every fit's exponent round(m_eff) of its omitted genes). Run:
``python reports/plasmode/effective_omitted/run.py [jobs]`` (resumes from ``results.jsonl``),
then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES   # c of the share c / (n + 2); c = 1 (Laplace's) first


def fits(Z, y, G, X_test, sel, priors, n, seed):
    """method -> (shares, m, G) log probabilities of one fit, and the m_eff used."""
    sel_eff, m_eff = offline.with_effective_exponent(Z, y, sel)
    return {"pi_noise_cv": offline.share_log_probas(Z, y, G, X_test, sel, priors, n, seed)[0],
            "pi_meff": offline.share_log_probas(Z, y, G, X_test, sel_eff, priors, n, seed)[0]
            }, m_eff


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    methods = ("pi_noise_cv", "pi_meff")
    loss = {m: np.zeros((len(ks), len(SHARES), n)) for m in methods}
    for tr, te in R.folds:
        for ki, (Z, feats, sel) in enumerate(offline.selections(R, tr, ks)):
            lps, _ = fits(Z, yi[tr], G, feats.selected(X[te], sel.indices), sel, R.priors,
                          tr.size, R.seed)
            for m in methods:
                loss[m][ki][:, te] = -lps[m][:, np.arange(te.size), yi[te]]
    rows = []
    for m in methods:
        score = loss[m].mean(-1)                                        # (k, share)
        ki = int(np.argmin(score[:, 0]))
        si = int(np.argmin(score[ki]))
        Z, X_test, sel = offline.outer_selection(R, ks[ki])
        lps, m_eff = fits(Z, yi, G, X_test, sel, R.priors, n, R.seed)
        rows.append(offline.scored_row(R, scenario_name, rep, m, lps[m][si], k=int(ks[ki]),
                                       share_c=SHARES[si], m_eff=float(m_eff),
                                       n_omitted=int(sel.n_omitted),
                                       inner_score=float(score[ki, si])))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "m_eff", "n_omitted"))


if __name__ == "__main__":
    raise SystemExit(main())
