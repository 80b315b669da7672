import json, numpy as np, os
names = ["sorlie", "golub", "colon", "srbct", "singh", "gravier"]
Ts = [1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0]; Ks = [5, 10, 20, 50, 100, 200, 500]
def f(l): l = np.asarray(l); return f"{l.mean():.3f} ± {l.std(ddof=1)/np.sqrt(len(l)):.3f}"
rows = ["| data set | n, p, G | logreg_l2_cv | selbayes k=10, T=1 | k=auto, T=1 | k=auto, T=auto | k=auto, T=auto, label noise (recommended) | worst case (recommended) | chosen (k, T) per fold |",
        "|---|---|---|---|---|---|---|---|---|"]
from cv import prep
for n in names:
    if not os.path.exists(f"exp3_{n}.json"): continue
    e3 = json.load(open(f"exp3_{n}.json")); L = np.array(e3["L"])
    lr = json.load(open(f"exp4_{n}.json")) if os.path.exists(f"exp4_{n}.json") else None
    e5 = json.load(open(f"exp5_{n}.json")) if os.path.exists(f"exp5_{n}.json") else None
    X, yi, G = prep(n)
    rows.append(f"| {n} | {X.shape[0]}, {X.shape[1]}, {G} | {f(lr) if lr else '-'} | {f(L[1,0])} | {f(e3['autoK'])} | {f(e3['auto'])} | "
                f"{f(e5['loss']) if e5 else '-'} | {max(e5['loss']):.2f} | {', '.join(f'({a},{b:g})' for a,b in e5['chosen']) if e5 else '-'} |")
print("\n".join(rows))
print()
# k x T grid (plug-in, eps=0), per set
for n in names:
    if not os.path.exists(f"exp3_{n}.json"): continue
    L = np.array(json.load(open(f"exp3_{n}.json"))["L"])
    print(f"\n{n}: AMLP by k (rows) and T (columns), plug-in predictive, no label noise\n")
    print("| k | " + " | ".join(f"T={t:g}" for t in Ts) + " |"); print("|---" * (len(Ts) + 1) + "|")
    for i in range(L.shape[0]):
        print(f"| {Ks[i]} | " + " | ".join(f"{L[i,j].mean():.3f}" for j in range(L.shape[1])) + " |")
