import sys, json, numpy as np
from cv import *
for name in sys.argv[1:] or ["sorlie", "golub", "colon", "srbct", "singh", "gravier"]:
    X, yi, G = prep(name); l = logreg_losses(X, yi, yi)
    print(name, "logreg_l2_cv", fmt(l), flush=True); json.dump(l.tolist(), open(f"exp4_{name}.json", "w"))
