# k="auto", temperature="auto", label_noise="auto" (inner criterion includes eps), plug-in predictive.
import sys, json, time, numpy as np
from cv import *
from selbayes.estimators.model_selection import (choose_k, prepare_features, plugin_log_proba, temper_log_proba,
    label_noise_log_proba, default_label_noise)
from selbayes.models.gaussian import class_log_prior
from selbayes.filters.selection import select_features, selection_from_scores
class Stub:
    def __init__(self, **kw): self.kw = kw
    def get_params(self, deep=False): return self.kw
for name in sys.argv[1:]:
    X, yi, G = prep(name); t = time.time(); out = np.empty(len(yi)); chosen = []
    for tr, te in folds(yi):
        ch = choose_k(Stub(temperature="auto", label_noise="auto"), X[tr], yi[tr], random_state=0)
        Z, feats = prepare_features(X[tr], yi[tr], G)
        base = select_features(Z, yi[tr], k=1)
        sel = selection_from_scores(base.scores, ch.k, None, "f", base.class_counts, np.arange(G))
        lp = plugin_log_proba(Z[:, sel.indices], yi[tr], feats.selected(X[te], sel.indices), sel, random_state=0)
        prior = class_log_prior(sel.class_counts, 1.0)
        lp = label_noise_log_proba(temper_log_proba(lp, prior, ch.temperature), prior, default_label_noise(tr.size))
        out[te] = -lp[np.arange(te.size), yi[te]]; chosen.append((ch.k, ch.temperature))
    print(name, "auto k,T,eps:", fmt(out), chosen, f"{time.time()-t:.0f}s", flush=True)
    json.dump({"loss": out.tolist(), "chosen": chosen}, open(f"exp5_{name}.json", "w"))
