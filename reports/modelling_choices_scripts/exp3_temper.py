# k x temperature scan with the plug-in predictive (standardised within / total), and auto.
import sys, json, time, numpy as np
from cv import *
from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators.model_selection import choose_k, temper_log_proba, _fold_losses, DEFAULT_T_GRID
names = sys.argv[1:] or ["sorlie", "golub", "colon", "srbct", "singh", "gravier"]
Ts = list(DEFAULT_T_GRID)
from selbayes.models.priors import GaussianPriors
class Stub:
    def __init__(self, **kw): self.kw = kw
    def get_params(self, deep=False): return self.kw
for name in names:
    X, yi, G = prep(name); t = time.time()
    cands = [(k, None) for k in [5, 10, 20, 50, 100, 200, 500] if k < X.shape[1]]
    L = np.zeros((len(cands), len(Ts), len(yi)))
    autoL = np.zeros(len(yi)); autoK = np.zeros(len(yi)); chosen = []
    for tr, te in folds(yi):
        L[:, :, te] = _fold_losses(X, yi, G, tr, te, cands, True, GaussianPriors(), True, 200, 0, Ts)
        ch = choose_k(Stub(temperature="auto"), X[tr], yi[tr], random_state=0)
        chk = choose_k(Stub(), X[tr], yi[tr], random_state=0)
        chosen.append((ch.k, ch.temperature, chk.k))
        c_i = [c[0] for c in cands].index(ch.k); autoL[te] = L[c_i, Ts.index(ch.temperature), te]
        autoK[te] = L[[c[0] for c in cands].index(chk.k), 0, te]
    for ci, (k, _) in enumerate(cands):
        print(name, f"k={k}", " ".join(f"T{T:g}:{L[ci, ti].mean():.3f}" for ti, T in enumerate(Ts)), flush=True)
    print(name, "auto k (T=1):", fmt(autoK), " auto k,T:", fmt(autoL), chosen, f"{time.time()-t:.0f}s", flush=True)
    json.dump({"L": L.tolist(), "auto": autoL.tolist(), "autoK": autoK.tolist(), "chosen": chosen}, open(f"exp3_{name}.json", "w"))
