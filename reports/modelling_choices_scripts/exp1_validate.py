# Plug-in vs MCMC on sorlie and colon at k=10, 50 (standardised), + timing
import time, numpy as np
from cv import *
for name in ["sorlie", "colon"]:
    X, yi, G = prep(name)
    for k in [10, 50]:
        t = time.time(); lp = plugin_losses(X, yi, G, k); t1 = time.time() - t
        t = time.time(); lm = mcmc_losses(X, yi, G, k); t2 = time.time() - t
        print(name, k, "plugin", fmt(lp), f"{t1:.1f}s", "mcmc", fmt(lm), f"{t2:.1f}s",
              "mean|diff|", f"{np.abs(lp-lm).mean():.3f}", flush=True)
