"""Simulation-based calibration of the binary mixture's alpha (for :func:`selbayes.sbc.run_sbc`).

A replicate draws alpha and alpha0 from the fitting prior, simulates the two-component mixture
(z from the prior's Beta(f1, f0)-Bernoulli, theta_0 and the response parameters from the prior),
keeps the top-k features by |Cor(x, y)|, and fits the mixture with and without the selection
correction. The corrected ranks of the true alpha are uniform when the factor and the sampler
are right; the uncorrected ones are not (the selected features alone favour small alpha).

Usage::

    from selbayes.sbc import run_sbc
    from selbayes.sbc_mixture import MixtureSBCSimulator, MixtureSBCFitter
    res = run_sbc(MixtureSBCSimulator(), MixtureSBCFitter(), 200,
                  ["alpha_corrected", "alpha_uncorrected"], random_state=1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MixtureSBCSimulator", "MixtureSBCFitter"]


@dataclass(frozen=True)
class MixtureSBCSimulator:
    """Draw (alpha, alpha0, theta, phi, z) from the fitting prior, then n cases with p features.

    Replicates in which a response class is empty or fewer than k + 1 features vary are redrawn
    (the model conditions on y; such data cannot be selected from).
    """

    n: int = 30
    p: int = 100
    prior: dict = field(default_factory=dict)

    def __call__(self, rng):
        from .models.mixture import MixturePrior
        from .simulate import binary_mixture

        pr = MixturePrior.from_dict(dict(self.prior) or None)
        while True:
            sim = binary_mixture(self.n, self.p, alpha=None, phi0=None, a=pr.a, b=pr.b,
                                 a0=pr.a0, b0=pr.b0, dirichlet_c=(pr.f0, pr.f1),
                                 random_state=rng)
            if 2 <= sim.y.sum() <= self.n - 2:
                break
        truth = {"alpha_corrected": sim.alpha, "alpha_uncorrected": sim.alpha}
        return (sim.X, sim.y), truth


@dataclass(frozen=True)
class MixtureSBCFitter:
    """Fit the corrected and the uncorrected mixture; return both posteriors of alpha."""

    params = ("alpha_corrected", "alpha_uncorrected")

    k: int = 3
    prior: dict = field(default_factory=dict)
    draws: int = 400
    tune: int = 150
    chains: int = 2

    def __call__(self, data, seed):
        import warnings

        from .mixture_classifier import BinaryMixtureClassifier

        X, y = data
        out = {}
        for corrected in (True, False):
            clf = BinaryMixtureClassifier(
                k=self.k, correct_selection=corrected, prior=dict(self.prior) or None,
                draws=self.draws, tune=self.tune, chains=self.chains,
                random_state=int(seed) + int(corrected), max_predict_draws=1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf.fit(X, y)
            name = "alpha_corrected" if corrected else "alpha_uncorrected"
            out[name] = clf.idata_.posterior["alpha"].values          # (chain, draw)
        return out
