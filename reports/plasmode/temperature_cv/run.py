"""The temperature chosen by the inner cross-validation from {the correlation T, 1}: an
offline check (plug-in posterior). The rule and the candidate are in README.md (written before
the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k chosen
with the correlation T and the share 1/(n + 2), then the share at that k), ``pi_T_cv`` ((k, T)
chosen with T in {the correlation T, 1}, then the share) and ``pi_T1`` (T = 1 throughout;
reported). Run: ``python reports/plasmode/temperature_cv/run.py [jobs]`` (resumes from
``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES  # c of the share c / (n + 2), as label_noise="cv"
T_OPTIONS = ("correlation", "1")    # the correlation T first: it wins ties


def option_log_probas(Z_train, y_train, G, X_test, sel, priors, n, seed):
    """(len(T_OPTIONS), len(SHARES), m, G) log probabilities of the default's predictive on
    the plug-in posterior, and the correlation T of the kept training columns."""
    from selbayes.models._gaussian_plugin import correlation_temperature, temper_log_proba
    from selbayes.models._gaussian_posterior import (
        class_log_prior,
        factorised_predictive_log_proba,
    )

    Xtr = Z_train[:, sel.indices]
    mean, prec = offline.plugin_moments(Xtr, y_train, sel, priors, True, seed)
    prior = class_log_prior(sel.class_counts, priors.c)
    lp1 = factorised_predictive_log_proba(X_test, mean, prec, prior, max_draws=None)
    T = correlation_temperature(Xtr, y_train, G)
    per_T = (temper_log_proba(lp1, prior, T), lp1)
    return np.stack([offline.with_shares(lp, prior, n) for lp in per_T]), float(T)


def choices(score):
    """method -> (k index, T option index, share index) from the inner scores (k, T, c)."""
    def share_at(ki, ti):
        return int(np.argmin(score[ki, ti]))

    k_control = int(np.argmin(score[:, 0, 0]))
    k_cand, t_cand = (int(i) for i in np.unravel_index(np.argmin(score[:, :, 0]),
                                                        score.shape[:2]))
    k_t1 = int(np.argmin(score[:, 1, 0]))
    return {"pi_noise_cv": (k_control, 0, share_at(k_control, 0)),
            "pi_T_cv": (k_cand, t_cand, share_at(k_cand, t_cand)),
            "pi_T1": (k_t1, 1, share_at(k_t1, 1))}


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss = offline.inner_losses(R, ks, lambda Z, y_tr, X_te, sel, n_tr: option_log_probas(
        Z, y_tr, G, X_te, sel, R.priors, n_tr, R.seed)[0])    # (k, T option, share, n)
    score = loss.mean(-1)                                         # (k, T option, share)
    chosen = choices(score)
    outer = {}
    for ki in sorted({c[0] for c in chosen.values()}):
        Z, X_test, sel = offline.outer_selection(R, ks[ki])
        outer[ki] = option_log_probas(Z, yi, G, X_test, sel, R.priors, n, R.seed)
    rows = []
    for method, (ki, ti, si) in chosen.items():
        lps, T = outer[ki]
        rows.append(offline.scored_row(
            R, scenario_name, rep, method, lps[ti, si], k=int(ks[ki]),
            t_option=T_OPTIONS[ti], temperature=T if ti == 0 else 1.0, correlation_T=T,
            share_c=SHARES[si], inner_score=float(score[ki, ti, si]),
            inner_by_T={o: [float(s) for s in score[:, j, 0]]
                        for j, o in enumerate(T_OPTIONS)}))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "temperature", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
