"""The t prior's df chosen so that the kept genes' F statistics look like draws of the fitted
model (mean mixed predictive p-value nearest 1/2) instead of by the marginal likelihood: an
offline check (plug-in posterior). The rule and the candidate are in README.md (written before
the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k chosen
with the share 1/(n + 2), then the share at that k) and ``pi_df_ppc`` (that k, then the df
whose kept genes' mean p-value is nearest 1/2, then the share). Run: ``python
reports/plasmode/t_df_ppc/run.py [jobs]`` (resumes from ``results.jsonl``), then
``compare.py``.
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
DF_GRID = (1.0, 2.0, 4.0, 8.0, 16.0, 64.0)   # the default's t_auto grid


def fixed_df(priors, df):
    return replace(priors, mu_t_df=df, mu_t_df_grid=None)


def mean_ppp(Z, yi, sel, priors, df):
    """Mean mixed predictive p-value of all kept genes' F at the corrected plug-in mode with
    the t prior at ``df`` (1/2 under the model)."""
    from selbayes.evaluation import f_statistic_check
    from selbayes.models._gaussian_plugin import plugin_posterior

    p = fixed_df(priors, df)
    post = plugin_posterior(Z[:, sel.indices], yi, sel, p, corrected=True, n_draws=2,
                            random_state=0)
    log_x = np.array([np.log(post["tau_mu"]) + np.log(p.w_x)])
    f = sel.scores[sel.indices]
    ppp = f_statistic_check(f, log_x, sel.class_counts, float(sel.threshold), p.alpha_x,
                            mu_t_df=df, max_checked=f.size)["ppp"].to_numpy()
    return float(ppp.mean())


def one_replicate(scenario_name, rep):
    R = offline.replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss, ki, si_c = offline.control_choice(R)              # the control's: (k, share, n)
    k, inner_c = ks[ki], float(loss[ki, si_c].mean())
    Z, X_test, sel = offline.outer_selection(R, k)
    lps_c, df_c = offline.share_log_probas(Z, yi, G, X_test, sel, R.priors, n, R.seed)
    means = {df: mean_ppp(Z, yi, sel, R.priors, df) for df in DF_GRID}
    dist = {df: abs(m - 0.5) for df, m in means.items()}
    df_p = (df_c if dist[df_c] <= min(dist.values()) + 1e-9
            else min(DF_GRID, key=dist.__getitem__))
    common = dict(k=int(k), mean_ppp_by_df={str(d): m for d, m in means.items()})
    rows = [offline.scored_row(R, scenario_name, rep, "pi_noise_cv", lps_c[si_c], t_df=df_c,
                               share_c=SHARES[si_c], inner_score=inner_c, **common)]
    if df_p == df_c:
        lps_p, si_p, inner = lps_c, si_c, inner_c
    else:
        def at_df(Zi, y_tr, X_te, s, n_tr):
            return offline.share_log_probas(Zi, y_tr, G, X_te, s, fixed_df(R.priors, df_p),
                                            n_tr, R.seed)[0]
        df_score = offline.inner_losses(R, [k], at_df)[0].mean(-1)          # (share,)
        si_p = int(np.argmin(df_score))
        inner = float(df_score[si_p])
        lps_p = offline.share_log_probas(Z, yi, G, X_test, sel, fixed_df(R.priors, df_p), n,
                                         R.seed)[0]
    rows.append(offline.scored_row(R, scenario_name, rep, "pi_df_ppc", lps_p[si_p], t_df=df_p,
                                   share_c=SHARES[si_p], inner_score=inner, **common))
    return rows


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "t_df", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
