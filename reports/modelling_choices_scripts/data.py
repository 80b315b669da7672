"""Scratch loaders: real sets with the benchmark's default preprocessing (numpy)."""
import os
import numpy as np, pandas as pd
from pathlib import Path
# the data folder (SELBAYES_DATA, as for the package), microarray sets in its microarray/
D = Path(os.environ.get("SELBAYES_DATA", "../../../shared/data")) / "microarray"

def _micro(name):
    X = pd.read_csv(D / f"{name}_X.csv.gz").to_numpy(float)
    y = pd.read_csv(D / f"{name}_y.csv.gz")["y"].astype(str).to_numpy()
    return X, y

def load(name):
    if name == "srbct":
        from selbayes.datasets import load_srbct
        ds = load_srbct(log=True); return np.asarray(ds.X, float), np.asarray(ds.y).astype(str)
    if name == "colon":
        from selbayes.datasets import load_colon
        ds = load_colon(); return np.log2(np.asarray(ds.X, float)), np.asarray(ds.y).astype(str)
    X, y = _micro(name)
    if name in ("golub", "singh"):
        X = np.log2(np.clip(X, 100, 16000))
    elif name in ("borovecki", "chowdary", "nakayama"):
        X = np.log2(np.clip(X, 1, None))
    keep = X.std(0) > 0
    return X[:, keep], y
