"""The low-rank-plus-diagonal correlation predictive of ``../factor_predictive/`` with its
own correlation temperature: an offline check (plug-in posterior). The rule and the candidate
are in README.md (written before the run).

The factor predictive reweights the kept genes (it discounts a detected co-expression module
as one piece of evidence) but, at large k, still over-counts the weaker correlated directions
below the Marchenko-Pastur edge (``../factor_predictive/README.md``). The correlation
temperature of the default measures exactly that over-count, along the direction the
predictive sums: for a Gaussian predictive with within-class correlation model M and, in units
of the pooled within-class standard deviations, class-mean differences delta, the evidence is
w'z with w = M^-1 delta, its variance within a class is w'Cw in the training residuals (C their
sample correlation) and w'Mw in the model, so

    T_M = w'Cw / w'Mw,

pairs of classes weighted n_g n_h, floored at 1. M = I gives the default's T
(``correlation_temperature``: delta' C delta / delta' delta); here M = R, the factor model's
correlation. w'Cw = ||E w||^2 / (n - G) from the standardised residuals E; M^-1 delta by
Woodbury (O(k r), never k x k).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control) and ``pi_factor_T`` (the factor predictive,
log odds divided by T_R), each with k chosen by the inner cross-validation with the share
1/(n + 2), then the share at that k. Run: ``python reports/plasmode/factor_temperature/run.py
[jobs]`` (resumes from ``results.jsonl``), then ``compare.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

_spec = importlib.util.spec_from_file_location("factor_predictive_run",
                                               HERE.parent / "factor_predictive" / "run.py")
factor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(factor)   # its spikes, predictive and residuals, one definition

METHODS = ("pi_noise_cv", "pi_factor_T")


def model_temperature(E, y_index, G, X_selected, U, eta) -> float:
    """T_R = w'Cw / w'Rw with w = R^-1 delta (module docstring); U, eta the factors of R."""
    X = np.asarray(X_selected, dtype=np.float64)
    n = X.shape[0]
    counts = np.bincount(y_index, minlength=G).astype(np.float64)
    sample = np.stack([X[y_index == g].mean(0) for g in range(G)])
    sd = np.sqrt(((X - sample[y_index]) ** 2).sum(0) / (n - G))
    sd = np.where(sd > 0, sd, 1.0)
    g, h = np.triu_indices(G, 1)
    delta = (sample[g] - sample[h]) / sd                       # (pairs, k)
    d = 1.0 + (U ** 2) @ (eta - 1.0)                             # diag(B)
    # R = D^-1/2 B D^-1/2, so R^-1 = D^1/2 B^-1 D^1/2 and R = D^-1/2 B D^-1/2
    y = delta * np.sqrt(d)
    w = np.sqrt(d) * (y - ((y @ U) * ((eta - 1.0) / eta)) @ U.T)      # R^-1 delta
    u = w / np.sqrt(d)
    wRw = (u * u).sum(1) + (((u @ U) ** 2) * (eta - 1.0)).sum(1)      # w' R w
    wCw = ((E @ w.T) ** 2).sum(0) / (n - G)
    wt = counts[g] * counts[h]
    den = (wt * wRw).sum()
    return float(max(1.0, (wt * wCw).sum() / den)) if den > 0 else 1.0


def option_log_probas(Z_train, y_train, G, X_test, sel, priors, n, seed):
    """(len(METHODS), len(offline.LABEL_NOISE_SHARES), m, G) log probabilities, and (the
    correlation T, T_R, r)."""
    from selbayes.models._gaussian_plugin import temper_log_proba
    from selbayes.models._gaussian_posterior import class_log_prior

    Xtr = Z_train[:, sel.indices]
    mean, prec = offline.plugin_moments(Xtr, y_train, sel, priors, True, seed)
    prior = class_log_prior(sel.class_counts, priors.c)
    control, T = offline.naive_T(Xtr, y_train, G, X_test, mean, prec, prior, 0.0)
    E = factor.correlated.standardised_residuals(Xtr, y_train, G)
    dof = Xtr.shape[0] - G
    U, eta = factor.spikes(E, dof)
    lp, r = factor.factor_log_proba(E, X_test, mean, prec, prior, dof)
    T_R = model_temperature(E, y_train, G, Xtr, U, eta)
    cand = temper_log_proba(lp, prior, T_R)
    return (np.stack([offline.with_shares(x, prior, n) for x in (control, cand)]),
            (float(T), float(T_R), int(r)))


def one_replicate(scenario_name, rep):
    return offline.one_option_each(
        scenario_name, rep, METHODS, option_log_probas,
        lambda oi, info: {"temperature": info[oi], "correlation_T": info[0],
                          "factors": info[2] if oi == 1 else 0},
        curve_field="inner_by_method")


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl",
                           ("k", "factors", "temperature", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
