"""``selbayes demo``: the README's main job."""

from __future__ import annotations

import numpy as np

from .selection import select_features


def run_demo(out: str = "demo_output", data: str | None = None, quick: bool = False,
             seed: int = 2009) -> int:
    rng = np.random.default_rng(seed)
    n, p, G = 200, 4000, 6
    y = rng.integers(0, G, size=n)
    mu = rng.normal(0, 0.1, size=(G, p))
    X = mu[y] + rng.normal(size=(n, p))
    sel = select_features(X, y, k=10)
    print(sel)
    print("retained:", sel.indices.tolist(), "gamma =", round(sel.threshold, 4))
    return 0
