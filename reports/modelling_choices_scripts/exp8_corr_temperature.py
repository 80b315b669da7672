"""Temperature from the genes' correlation instead of inner CV (issue 19, "corrected beats
uncorrected"): T = sum_gh w_gh d'Rd / sum_gh w_gh d'd, floored at 1, d the class-mean
differences of the selected standardised features, R their pooled within-class correlation,
w_gh = n_g n_h (the variance inflation of the naive log likelihood ratio along d;
selbayes.estimators.model_selection.correlation_temperature). k by inner CV (plug-in
predictive, label noise 1/(n+2)), T from the training data at each k. Compares corrected and
uncorrected with T by this rule, and with T by inner CV (the current default).
Run: PYTHONPATH=../../src:. SELBAYES_DATA=... python exp8_corr_temperature.py [names]"""
import sys, time, json
import numpy as np
from cv import folds
from data import load
from selbayes._validation import check_labels
from selbayes.estimators.model_selection import (prepare_features, plugin_log_proba,
    correlation_temperature,
    temper_log_proba, label_noise_log_proba, default_label_noise, DEFAULT_K_GRID,
    DEFAULT_T_GRID)
from selbayes.filters.selection import f_statistic, selection_from_scores
from selbayes.models.gaussian import class_log_prior
from sklearn.model_selection import StratifiedKFold

def fit_predict(Xtr, ytr, Xte, G, k, corrected, T):
    Z, feats = prepare_features(Xtr, ytr, G)
    sc = f_statistic(Z, ytr, G)
    k = max(1, min(k, Z.shape[1] - 1, int(np.sum(sc > 0))))
    sel = selection_from_scores(sc, k, None, "f", np.bincount(ytr, minlength=G), np.arange(G))
    Zs = Z[:, sel.indices]
    lp = plugin_log_proba(Zs, ytr, feats.selected(Xte, sel.indices), sel, None, corrected,
                          random_state=0)
    prior = class_log_prior(sel.class_counts, 1.0)
    Tk = correlation_temperature(Zs, ytr, G) if T == "corr" else None
    eps = default_label_noise(len(ytr))
    Ts = [Tk] if T == "corr" else list(T)
    return [label_noise_log_proba(temper_log_proba(lp, prior, t), prior, eps) for t in Ts], Tk

def run(name, corrected, mode):
    X, y = load(name); classes, yi, _ = check_labels(y, X.shape[0]); G = len(classes)
    out = np.empty(len(yi)); chosen = []
    for tr, te in folds(yi):
        ytr = yi[tr]
        nin = min(5, np.bincount(ytr).min())
        inner = list(StratifiedKFold(nin, shuffle=True, random_state=1).split(tr, ytr))
        Tgrid = "corr" if mode == "corr" else DEFAULT_T_GRID
        ks = [k for k in DEFAULT_K_GRID if k < X.shape[1]]
        L = np.zeros((len(ks), 1 if mode == "corr" else len(Tgrid)))
        for itr, ite in inner:
            for ki, k in enumerate(ks):
                lps, _ = fit_predict(X[tr][itr], ytr[itr], X[tr][ite], G, k, corrected, Tgrid)
                L[ki] += [-lp[np.arange(ite.size), ytr[ite]].sum() for lp in lps]
        ki, ti = np.unravel_index(np.argmin(L), L.shape)
        k = ks[ki]
        lps, Tk = fit_predict(X[tr], ytr, X[te], G, k, corrected,
                              "corr" if mode == "corr" else [Tgrid[ti]])
        out[te] = -lps[0][np.arange(te.size), yi[te]]
        chosen.append((k, round(float(Tk if mode == "corr" else Tgrid[ti]), 2)))
    return out, chosen

names = sys.argv[1:] or ["borovecki", "chowdary", "colon", "golub", "gravier", "nakayama",
                         "pomeroy", "singh", "sorlie", "srbct", "subramanian"]
res = {}
for name in names:
    t0 = time.time(); row = {}
    for mode in ("corr", "cv"):
        for corrected in (True, False):
            L, ch = run(name, corrected, mode)
            row[f"{mode}_{'c' if corrected else 'u'}"] = (L.mean(), L.std(ddof=1) / np.sqrt(L.size), ch, L.tolist())
    res[name] = row
    print(name, f"{time.time()-t0:.0f}s", {k: (round(v[0], 3), round(v[1], 3), v[2]) for k, v in row.items()}, flush=True)
# raw per-case losses (not committed; the table is ../benchmark_microarray/experiments/
# correlation_temperature_proxy.md)
json.dump(res, open("/tmp/exp8_corr_temperature.json", "w"))
