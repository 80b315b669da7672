"""Would conditioning on the omitted genes' F statistics themselves, not only on F <= gamma,
undo the collapse? An offline check on the plug-in mode, no decision.

For the three collapsed replicates of ``run.py`` (and three others for contrast), at the k the
default chose, the plug-in mode of the effect scale 1/sqrt(tau_mu) (``_hyper_mode``, the
search ``effect_prior="t_auto"`` runs at each df) is computed three ways, at df = 4 and 64:

* ``factor``: as the model is, (p - k) log P(F <= gamma);
* ``binned``: the omitted genes' F statistics in ten bins (edges at their deciles, the last
  at gamma), sum over bins of count_b log P(F in bin b): the exact likelihood of the binned
  statistics under the model (one bin gives the factor back);
* ``uncorrected``: no factor.

The binned likelihood enters by replacing ``fstat_log_omit_prob`` for the duration of one
call (the plug-in imports it when called). Run: ``python
reports/plasmode/correlated_underconfidence/binned_omitted.py`` (about 2 minutes); writes
``binned_omitted.md`` beside this file.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

import selbayes.adjustment._fstat as fstat
from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators._gaussian import _rank
from selbayes.experiments.plasmode import SCENARIOS, make_replicate
from selbayes.filters._selection import selection_from_scores
from selbayes.models import _gaussian_plugin as plugin
from selbayes.models._gaussian import sufficient_statistics
from selbayes.preprocessing._features import prepare_features

HERE = Path(__file__).resolve().parent
SEED, N_BINS = 0, 10
#: (scenario, replicate, k the default chose there in run.py)
CASES = [("plasmode_module", 0, 5), ("plasmode_module", 3, 10), ("plasmode_sparse", 2, 20),
         ("plasmode_module", 1, 100), ("sim_sparse_strong", 0, 10), ("sim_dense_weak", 0, 500)]


def _binned(omitted, threshold, n_bins):
    """log P(F in each bin) summed with the bins' counts, as a stand-in for
    ``fstat_log_omit_prob`` (which the plug-in multiplies by p - k)."""
    edges = np.quantile(omitted, np.linspace(0, 1, n_bins + 1)[1:-1])
    edges = np.unique(np.concatenate([edges[edges > 1e-6], [threshold]]))
    counts = np.histogram(omitted, bins=np.concatenate([[0.0], edges]))[0]
    exact = fstat.fstat_log_omit_prob

    def log_prob(log_scale, class_counts, _threshold, alpha_x, mu_t_df=None, **kw):
        cdf = np.stack([exact(log_scale, class_counts, e, alpha_x, mu_t_df=mu_t_df)
                        for e in edges])                      # log P(F <= e), (bins, m)
        prev = np.vstack([np.full((1,) + cdf.shape[1:], -np.inf), cdf[:-1]])
        log_bin = cdf + np.log1p(-np.exp(np.minimum(prev - cdf, -1e-300)))
        return (counts[:, None] * log_bin).sum(0) / omitted.size

    return log_prob


def scales(scenario, rep, k):
    data = make_replicate(SCENARIOS[scenario], SEED + 1000 * rep)
    X, y = data["X_train"], data["y_train"]
    classes, yi = np.unique(y, return_inverse=True)
    ranking = _rank(X, yi, classes)
    sel = selection_from_scores(ranking.scores, k, None, "f", ranking.class_counts,
                                ranking.classes)
    Xs, _ = prepare_features(X[:, sel.indices], yi, len(classes), standardize=True)
    counts, xbar, ssw = sufficient_statistics(Xs, yi, len(classes))
    priors = HierarchicalGaussianClassifier(k=k)._prior_object()     # the default's
    omitted = np.delete(ranking.scores, sel.indices)
    out = {}
    for way in ("factor", "binned", "uncorrected"):
        for df in (4.0, 64.0):
            exact = fstat.fstat_log_omit_prob
            if way == "binned":
                fstat.fstat_log_omit_prob = _binned(omitted, sel.threshold, N_BINS)
            try:
                uv, _ = plugin._hyper_mode(xbar, ssw, counts.astype(np.float64), sel, priors,
                                           way != "uncorrected", plugin._t_scale_nodes(df),
                                           mu_t_df=df)
            finally:
                fstat.fstat_log_omit_prob = exact
            out[(way, df)] = float(np.exp(-uv[0] / 2))
    return out, float(sel.threshold), omitted.size


def main() -> int:
    warnings.simplefilter("ignore")
    L = ["# Effect scale at the plug-in mode: the factor, the binned omitted F, no factor", "",
         "Made by `binned_omitted.py` (see its docstring). 1/sqrt(tau_mu) at the mode, at the "
         "t prior's df = 4 and 64; the first three rows are the collapsed replicates.", "",
         "| scenario | replicate | k | gamma | p - k | factor df 4 / 64 | binned df 4 / 64 | "
         "uncorrected df 4 / 64 |", "|---|---|---|---|---|---|---|---|"]
    for scenario, rep, k in CASES:
        s, gamma, m = scales(scenario, rep, k)
        cells = [f"{s[(w, 4.0)]:.3f} / {s[(w, 64.0)]:.3f}"
                 for w in ("factor", "binned", "uncorrected")]
        L.append(f"| {scenario} | {rep} | {k} | {gamma:.2f} | {m} | " + " | ".join(cells) + " |")
        print(L[-1], flush=True)
    (HERE / "binned_omitted.md").write_text("\n".join(L) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
