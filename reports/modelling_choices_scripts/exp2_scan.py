# Fast scan with the plug-in predictive: scaling choice, k, decorrelation strength, k="auto".
import sys, time, json, numpy as np
from cv import *
names = sys.argv[1:] or ["sorlie", "golub", "colon", "srbct", "singh", "gravier"]
res = {}
for name in names:
    X, yi, G = prep(name); r = {}
    t = time.time()
    r["raw_k10"] = plugin_losses(X, yi, G, 10, standardize=False)
    r["raw100_k10"] = plugin_losses(100 * X, yi, G, 10, standardize=False)
    r["total_k10"] = plugin_losses(X, yi, G, 10, scale="total")
    for k in [5, 10, 20, 50, 100]:
        r[f"within_k{k}"] = plugin_losses(X, yi, G, k)
    for lam in [1.0, 10.0]:
        for k in [10, 50]:
            r[f"dec{lam:g}_k{k}"] = plugin_losses(X, yi, G, k, lam=lam)
    r["auto_k"], ks = auto_losses(X, yi, G)
    r["auto_k_lam"], ks2 = auto_losses(X, yi, G, lam_grid=[None, 1.0, 10.0])
    for key, l in r.items():
        print(name, key, fmt(l), flush=True)
    print(name, "chosen k", ks, "chosen k,lam", ks2, f"{time.time()-t:.0f}s", flush=True)
    res[name] = {k: v.tolist() for k, v in r.items()}
    json.dump(res, open(f"exp2_{'_'.join(names)}.json", "w"))
