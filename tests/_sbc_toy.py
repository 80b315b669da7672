"""Conjugate toy models for the SBC tests: module-level so that they pickle to worker processes.

Two independent parameters with closed-form posteriors:
``mu ~ N(0, 2^2)``, ``y_i | mu ~ N(mu, 1)`` (i = 1..10) gives ``mu | y ~ N(m, s^2)`` with
``s^2 = 1 / (1/4 + 10)``, ``m = s^2 * sum(y)``;
``lam ~ Gamma(3, rate 2)``, ``c_i | lam ~ Poisson(lam)`` (i = 1..10) gives
``lam | c ~ Gamma(3 + sum(c), rate 2 + 10)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

N_OBS = 10
MU_PRIOR_SD = 2.0
LAM_SHAPE, LAM_RATE = 3.0, 2.0
N_DRAWS = 199


def simulate(rng):
    return simulate_n(rng)


def posterior(data):
    """Closed-form posterior: (mean, sd) of mu, (shape, rate) of lam."""
    var = 1.0 / (1.0 / MU_PRIOR_SD**2 + N_OBS)
    return var * data["y"].sum(), np.sqrt(var), LAM_SHAPE + data["c"].sum(), LAM_RATE + N_OBS


def fit_exact(data, seed, sd_scale=1.0, shift=0.0):
    """Independent draws from the exact posterior (optionally too narrow or shifted, in sds)."""
    rng = np.random.default_rng(seed)
    m, s, a, b = posterior(data)
    lam_mean, lam_sd = a / b, np.sqrt(a) / b
    lam = rng.gamma(a, 1.0 / b, size=N_DRAWS)
    lam = lam_mean + shift * lam_sd + sd_scale * (lam - lam_mean)
    return {"mu": rng.normal(m + shift * s, sd_scale * s, size=N_DRAWS), "lam": lam}


def fit_narrow(data, seed):
    return fit_exact(data, seed, sd_scale=0.6)


def fit_shifted(data, seed):
    return fit_exact(data, seed, shift=0.5)


def fit_ar1(data, seed, rho=0.99, n=1000):
    """A stationary AR(1) chain with the exact posterior of mu as its marginal (autocorrelated)."""
    rng = np.random.default_rng(seed)
    m, s, _, _ = posterior(data)
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0]
    for t in range(1, n):
        x[t] = rho * x[t - 1] + np.sqrt(1 - rho**2) * e[t]
    return {"mu": m + s * x}


def fit_datatree(data, seed):
    """The draws of :func:`fit_exact` as an ArviZ DataTree with 1 chain."""
    import arviz_base as azb

    draws = fit_exact(data, seed)
    return azb.from_dict({"posterior": {k: v[None, :] for k, v in draws.items()}})


class CountingFitter:
    """``fit_exact`` that counts its calls and can fail at a given call (to mimic a crash)."""

    def __init__(self, fail_at=None):
        self.calls = 0
        self.fail_at = fail_at

    def __call__(self, data, seed):
        self.calls += 1
        if self.fail_at is not None and self.calls == self.fail_at:
            raise RuntimeError("simulated crash")
        return fit_exact(data, seed)


@dataclass(frozen=True)
class ShiftedFitter:
    """``fit_exact`` with its shift as a setting (a dataclass, as the package's fitters are)."""

    shift: float = 0.0

    def __call__(self, data, seed):
        return fit_exact(data, seed, shift=self.shift)


def simulate_n(rng, n_obs=N_OBS):
    """``simulate`` with the number of observations as an argument (for functools.partial)."""
    mu = rng.normal(0.0, MU_PRIOR_SD)
    lam = rng.gamma(LAM_SHAPE, 1.0 / LAM_RATE)
    data = {"y": rng.normal(mu, 1.0, size=n_obs), "c": rng.poisson(lam, size=n_obs)}
    return data, {"mu": mu, "lam": lam}


@dataclass(frozen=True)
class LockedFitter:
    """A dataclass fitter with a field that cannot be copied or written as JSON."""

    lock: object = None

    def __call__(self, data, seed):
        return fit_exact(data, seed)
