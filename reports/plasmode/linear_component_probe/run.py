"""Would a linear model of all genes beside the default help, chosen or stacked by the inner
cross-validation? A probe on the plug-in posterior, with L2 logistic regression standing in
for a Bayesian all-genes linear component that is not built. The rule is in README.md
(written before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows):

* ``pi_noise_cv``: the control, the current default's predictive (k, then the share, chosen
  by the inner cross-validation);
* ``choose_l2``: the control or L2 logistic regression on all genes, whichever has the lower
  mean log loss over the inner test cases (the control at its chosen k and share; L2 fitted
  on each inner training fold with its own 3-fold choice of C, as the suite's
  ``logreg_l2_cv``); ties go to the control;
* ``stack_l2``: w p_control + (1 - w) p_L2 with w in {0, 0.01, ..., 1} maximising the inner
  log score of the mixture (stacking of predictive distributions, Yao et al. 2018).

The outer L2 fit is the suite's ``logreg_l2_cv`` (same random_state), so its KL reproduces
the suite's L2 rows. Run: ``python reports/plasmode/linear_component_probe/run.py [jobs]``
(resumes from ``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

WEIGHTS = np.linspace(0.0, 1.0, 101)


def l2_log_proba(rep, X_train, y_train, X_test):
    """Log probabilities of the suite's L2 logistic regression (all genes), (m, G)."""
    import warnings

    from selbayes.experiments.plasmode import make_candidate

    est = make_candidate("logreg_l2_cv", random_state=offline.SEED + rep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X_train, y_train)
        p = est.predict_proba(X_test)
    return np.log(np.clip(p, 1e-300, 1.0))


def stacked_rows(scenario_name, rep, component_log_proba, names, label, seed=offline.SEED):
    """The rows of one replicate: the control, the control or ``component`` chosen by inner
    log loss, their inner-CV stack, and the component refitted on all training cases, named
    ``names`` = (choose, stack, refit); ``label``: the component's name in the choice's
    ``chose`` field. ``component_log_proba(rep, X_train, y_train, X_test)``: (m, G) log
    probabilities of the all-genes component; ``seed``: the run seed of the replicates."""
    choose, stack, refit = names
    R = offline.replicate(scenario_name, rep, seed)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss, ki, si = offline.control_choice(R)                 # (k, share, n)
    control_loss = loss[ki, si]                                   # (n,)
    comp_loss = np.zeros(n)
    for tr, te in R.folds:
        lp = component_log_proba(rep, X[tr], yi[tr], X[te])
        comp_loss[te] = -lp[np.arange(te.size), yi[te]]
    pc, pl = np.exp(-control_loss), np.exp(-comp_loss)
    stack_score = [np.mean(np.log(w * pc + (1 - w) * pl)) for w in WEIGHTS]
    w = float(WEIGHTS[int(np.argmax(stack_score))])
    use_comp = comp_loss.mean() < control_loss.mean()

    Z, X_test, sel = offline.outer_selection(R, ks[ki])
    lp_control = offline.share_log_probas(Z, yi, G, X_test, sel, R.priors, n, R.seed)[0][si]
    lp_comp = component_log_proba(rep, X, yi, R.data["X_test"])
    lp_stack = np.logaddexp(np.log(w) + lp_control if w > 0 else -np.inf,
                            np.log1p(-w) + lp_comp if w < 1 else -np.inf)
    common = dict(k=int(ks[ki]), share_c=offline.LABEL_NOISE_SHARES[si],
                  inner_control=float(control_loss.mean()), inner_l2=float(comp_loss.mean()))
    return [offline.scored_row(R, scenario_name, rep, "pi_noise_cv", lp_control, **common),
            offline.scored_row(R, scenario_name, rep, choose,
                               lp_comp if use_comp else lp_control,
                               chose=label if use_comp else "control", **common),
            offline.scored_row(R, scenario_name, rep, stack, lp_stack, weight=w,
                               inner_stack=float(-max(stack_score)), **common),
            offline.scored_row(R, scenario_name, rep, refit, lp_comp, **common)]


def one_replicate(scenario_name, rep):
    return stacked_rows(scenario_name, rep, l2_log_proba, ("choose_l2", "stack_l2", "l2_refit"),
                        "l2")


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "chose", "weight"))


if __name__ == "__main__":
    raise SystemExit(main())
