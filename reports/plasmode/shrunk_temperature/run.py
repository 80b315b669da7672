"""The correlation temperature computed from the shrunk class-mean differences that the
predictive uses, instead of the sample ones: an offline check (plug-in posterior). The rule
and the candidate are in README.md (written before the run).

Methods, on the replicates, inner folds and seeds of ``../label_noise_cv/`` (``pi_noise_cv``
reproduces its rows): ``pi_noise_cv`` (the control: the current default's predictive, k chosen
with the correlation T and the share 1/(n + 2), then the share at that k) and
``pi_T_shrunk`` (the same with T from the shrunk differences). Run:
``python reports/plasmode/shrunk_temperature/run.py [jobs]`` (resumes from ``results.jsonl``),
then ``compare.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

T_OPTIONS = ("sample", "shrunk")     # the differences the temperature is computed from
METHODS = ("pi_noise_cv", "pi_T_shrunk")


def temperature_from(X_selected, y_index, G, class_means) -> float:
    """T = delta' R delta / delta' delta with delta_j = (m_gj - m_hj) / s_j taken from
    ``class_means`` (G, k), R and s from the residuals about the sample class means, pairs of
    classes weighted n_g n_h, floored at 1: ``correlation_temperature`` with the class-mean
    differences given instead of the sample ones (with the sample means it is that
    function; checked in ``one_replicate``)."""
    X = np.asarray(X_selected, dtype=np.float64)
    n = X.shape[0]
    counts = np.bincount(y_index, minlength=G).astype(np.float64)
    sample = np.stack([X[y_index == g].mean(0) for g in range(G)])
    E = X - sample[y_index]
    sd = np.sqrt((E ** 2).sum(axis=0) / (n - G))
    ok = sd > 0
    E, m, sd = E[:, ok], np.asarray(class_means)[:, ok], sd[ok]
    g, h = np.triu_indices(G, 1)
    delta = (m[g] - m[h]) / sd
    w = counts[g] * counts[h]
    num = (w * (((E / sd) @ delta.T) ** 2).sum(axis=0)).sum() / (n - G)
    den = (w * (delta ** 2).sum(axis=1)).sum()
    return float(max(1.0, num / den)) if den > 0 else 1.0


def option_log_probas(Z_train, y_train, G, X_test, sel, priors, n, seed):
    """(len(T_OPTIONS), len(offline.LABEL_NOISE_SHARES), m, G) log probabilities of the
    default's predictive on the plug-in posterior with each temperature, and the two
    temperatures."""
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
    T_shrunk = temperature_from(Xtr, y_train, G, mean.mean(axis=0).T)   # (G, k)
    per_T = (temper_log_proba(lp1, prior, T), temper_log_proba(lp1, prior, T_shrunk))
    return np.stack([offline.with_shares(lp, prior, n) for lp in per_T]), (T, T_shrunk)


def one_replicate(scenario_name, rep):
    from selbayes.models._gaussian_plugin import correlation_temperature

    R = offline.replicate(scenario_name, rep)               # temperature_from's own check
    Z, _, sel = offline.outer_selection(R, R.ks[0])
    Xs = Z[:, sel.indices]
    sample = np.stack([Xs[R.yi == g].mean(0) for g in range(R.G)])
    assert np.isclose(temperature_from(Xs, R.yi, R.G, sample),
                      correlation_temperature(Xs, R.yi, R.G))
    return offline.one_option_each(
        scenario_name, rep, METHODS, option_log_probas,
        lambda ti, Ts: {"temperature": Ts[ti], "correlation_T": Ts[0], "shrunk_T": Ts[1]},
        curve_field="inner_by_T", curve_names=T_OPTIONS)


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "temperature", "share_c"))


if __name__ == "__main__":
    raise SystemExit(main())
