"""Monte Carlo references of the probit tests: self-normalised importance sampling over the
prior, with its standard error, accumulated over batches (so that millions of draws never sit
in memory at once)."""

import numpy as np

#: Draws of each Monte Carlo reference, and of each of its batches.
DRAWS, BATCH = 4_000_000, 400_000
#: EP is an approximation: on problems of a few cases its predictive probabilities come close
#: to the exact ones (Kuss and Rasmussen 2005, JMLR 6, compare EP with long MCMC runs); the
#: tests allow it this much, with 4 Monte Carlo SE on top.
EP_PREDICTIVE_ALLOWANCE = 0.005


class WeightedMean:
    """sum_i w_i v_i / sum_i w_i over every batch added, and its delta-method standard error
    sqrt(sum_i w_i^2 (v_i - mean)^2) / sum_i w_i. ``v`` may be (m,) or (m, d).

    Also ``log_mean_w`` and its SE: the log of the mean weight (for a marginal likelihood).
    """

    def __init__(self):
        self.n = 0
        self.sw = self.sw2 = 0.0
        self.swv = self.sw2v = self.sw2v2 = 0.0

    def add(self, w, v):
        w = np.asarray(w, dtype=float)
        v = np.asarray(v, dtype=float)
        wv = w.reshape(-1, *([1] * (v.ndim - 1)))
        self.n += w.size
        self.sw += w.sum()
        self.sw2 += (w ** 2).sum()
        self.swv = self.swv + (wv * v).sum(0)
        self.sw2v = self.sw2v + (wv ** 2 * v).sum(0)
        self.sw2v2 = self.sw2v2 + (wv ** 2 * v ** 2).sum(0)

    @property
    def mean(self):
        return self.swv / self.sw

    @property
    def se(self):
        r = self.mean
        return np.sqrt(np.maximum(self.sw2v2 - 2 * r * self.sw2v + r ** 2 * self.sw2, 0)) / self.sw

    @property
    def log_mean_w(self) -> float:
        return float(np.log(self.sw / self.n))

    @property
    def log_mean_w_se(self) -> float:
        m = self.sw / self.n
        return float(np.sqrt(max(self.sw2 / self.n - m ** 2, 0) / self.n) / m)
