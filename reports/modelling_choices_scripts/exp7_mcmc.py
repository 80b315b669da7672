# The wired estimator (MCMC at the chosen k) with the recommended configuration, same outer folds.
import sys, json, time, warnings, numpy as np
from cv import *
from selbayes import HierarchicalGaussianClassifier
warnings.filterwarnings("ignore")
for name in sys.argv[1:]:
    X, yi, G = prep(name); out = np.empty(len(yi)); t = time.time(); chosen = []
    for tr, te in folds(yi):
        clf = HierarchicalGaussianClassifier(k="auto", temperature="auto", label_noise="auto",
                                             draws=500, tune=500, chains=2, random_state=0, progressbar=False)
        clf.fit(X[tr], yi[tr]); lp = clf.predict_log_proba(X[te])
        out[te] = -lp[np.arange(te.size), yi[te]]; chosen.append((clf.k_, clf.temperature_))
    print(name, "MCMC recommended:", fmt(out), chosen, f"{time.time()-t:.0f}s", flush=True)
    json.dump({"loss": out.tolist(), "chosen": chosen}, open(f"exp7_{name}.json", "w"))
