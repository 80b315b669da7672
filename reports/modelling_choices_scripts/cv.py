"""Outer 5-fold CV harness for scratch experiments (same folds for every method)."""
import sys, time, json, numpy as np
from sklearn.model_selection import StratifiedKFold
from data import load
from selbayes._validation import check_labels
from selbayes.estimators.model_selection import prepare_features, plugin_log_proba, choose_k
from selbayes.filters.selection import select_features, selection_from_scores

def folds(y, seed=0):
    return list(StratifiedKFold(5, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))

def logreg_losses(X, y, yi):
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    out = np.empty(len(y))
    for tr, te in folds(y):
        m = make_pipeline(StandardScaler(), LogisticRegressionCV(Cs=10, max_iter=2000))
        m.fit(X[tr], yi[tr]); lp = m.predict_log_proba(X[te])
        out[te] = -lp[np.arange(te.size), yi[te]]
    return out

def plugin_losses(X, yi, G, k, standardize=True, lam=None, priors=None, corrected=True, scale="within"):
    out = np.empty(len(yi))
    for tr, te in folds(yi):
        if scale == "total":
            m, s = X[tr].mean(0), X[tr].std(0, ddof=1); s[s == 0] = 1
            Z = (X[tr] - m) / s; Zt = (X[te] - m) / s
            base = select_features(Z, yi[tr], k=1)
            sel = selection_from_scores(base.scores, min(k, X.shape[1]-1), None, "f", base.class_counts, np.arange(G))
            lp = plugin_log_proba(Z[:, sel.indices], yi[tr], Zt[:, sel.indices], sel, priors, corrected, random_state=0)
        else:
            Z, feats = prepare_features(X[tr], yi[tr], G, standardize=standardize, decorrelate=lam)
            base = select_features(Z, yi[tr], k=1)
            sel = selection_from_scores(base.scores, min(k, X.shape[1]-1), None, "f", base.class_counts, np.arange(G))
            lp = plugin_log_proba(Z[:, sel.indices], yi[tr], feats.selected(X[te], sel.indices), sel, priors, corrected, random_state=0)
        out[te] = -lp[np.arange(te.size), yi[te]]
    return out

def mcmc_losses(X, yi, G, k, standardize=True, lam=None, priors=None, corrected=True, draws=500, tune=500):
    from selbayes import HierarchicalGaussianClassifier
    out = np.empty(len(yi))
    for tr, te in folds(yi):
        Z, feats = prepare_features(X[tr], yi[tr], G, standardize=standardize, decorrelate=lam)
        Zt = feats.selected(X[te], np.arange(X.shape[1])) if lam is None else None
        if lam is not None:
            # full transformed test matrix
            Zt = ((X[te] - feats.mean) / feats.scale); Zt = feats.decorrelation.transform(Zt)
        clf = HierarchicalGaussianClassifier(k=k, priors=priors, correct_selection=corrected, draws=draws, tune=tune, chains=2, random_state=0, progressbar=False)
        clf.fit(Z, yi[tr]); lp = clf.predict_log_proba(Zt)
        out[te] = -lp[np.arange(te.size), yi[te]]
    return out

def auto_losses(X, yi, G, lam_grid=None, priors=None, grid=None):
    from selbayes import HierarchicalGaussianClassifier
    out = np.empty(len(yi)); ks = []
    for tr, te in folds(yi):
        est = HierarchicalGaussianClassifier(priors=priors)
        ch = choose_k(est, X[tr], yi[tr], grid=grid, decorrelate_grid=lam_grid, random_state=0)
        ks.append((ch.k, ch.decorrelate))
        Z, feats = prepare_features(X[tr], yi[tr], G, decorrelate=ch.decorrelate)
        base = select_features(Z, yi[tr], k=1)
        sel = selection_from_scores(base.scores, ch.k, None, "f", base.class_counts, np.arange(G))
        lp = plugin_log_proba(Z[:, sel.indices], yi[tr], feats.selected(X[te], sel.indices), sel, priors, True, random_state=0)
        out[te] = -lp[np.arange(te.size), yi[te]]
    return out, ks

def prep(name):
    X, y = load(name); classes, yi, _ = check_labels(y, X.shape[0]); return X, yi, len(classes)

def fmt(l):
    return f"{l.mean():.3f}±{l.std(ddof=1)/np.sqrt(len(l)):.3f} (max {l.max():.1f})"
