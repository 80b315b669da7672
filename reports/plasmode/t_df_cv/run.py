"""The t prior's df chosen by the inner cross-validation instead of by the marginal likelihood:
an offline check (plug-in posterior). The rule and the candidate are in README.md (written
before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k chosen
with the share 1/(n + 2), then the share at that k) and ``pi_df_cv`` (that k, then the df
option with the lowest inner loss, then the share). Run: ``python
reports/plasmode/t_df_cv/run.py [jobs]`` (resumes from ``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

SHARES = offline.LABEL_NOISE_SHARES  # c of the share c / (n + 2), as label_noise="cv"
DF_OPTIONS = ("auto", 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)   # "auto": the marginal likelihood's


def priors_of(priors, option):
    return priors if option == "auto" else replace(priors, mu_t_df=option, mu_t_df_grid=None)


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss, ki, _ = offline.control_choice(R)                 # the control's: (k, share, n)
    k = ks[ki]

    def at_k(Z, y_tr, X_te, sel, n_tr):                      # every fixed df option
        return np.stack([offline.share_log_probas(Z, y_tr, G, X_te, sel,
                                                  priors_of(R.priors, option), n_tr, R.seed)[0]
                         for option in DF_OPTIONS[1:]])

    df_loss = np.concatenate([loss[ki][None], offline.inner_losses(R, [k], at_k)[0]])
    df_score = df_loss.mean(-1)                              # (df option, share)
    oi = int(np.argmin(df_score[:, 0]))
    chosen = {"pi_noise_cv": (0, int(np.argmin(df_score[0]))),
              "pi_df_cv": (oi, int(np.argmin(df_score[oi])))}
    Z, X_test, sel = offline.outer_selection(R, k)
    rows = []
    for method, (oi, si) in chosen.items():
        lps, df = offline.share_log_probas(Z, yi, G, X_test, sel,
                                           priors_of(R.priors, DF_OPTIONS[oi]), n, R.seed)
        rows.append(offline.scored_row(
            R, scenario_name, rep, method, lps[si], k=int(k), df_option=str(DF_OPTIONS[oi]),
            t_df=df, share_c=SHARES[si], inner_score=float(df_score[oi, si]),
            inner_by_df={str(o): float(df_score[j, 0]) for j, o in enumerate(DF_OPTIONS)}))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("k", "df_option", "t_df", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
