"""Simulation-based calibration of the binary mixture's alpha (for :func:`selbayes.sbc.run_sbc`).

A replicate draws alpha and alpha0 from the fitting prior, simulates the two-component mixture
(z from the prior's Beta(f1, f0)-Bernoulli, theta_0 and the response parameters from the prior),
keeps the top-k features by |Cor(x, y)|, and fits the mixture with and without the selection
correction. The corrected ranks of the true alpha are uniform when the factor and the sampler
are right; the uncorrected ones are not (the selected features alone favour small alpha).

Usage::

    from selbayes.sbc import MixtureSBCFitter, MixtureSBCSimulator, run_sbc
    res = run_sbc(MixtureSBCSimulator(), MixtureSBCFitter(), 200,
                  ["alpha_corrected", "alpha_uncorrected"], random_state=1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MixtureSBCSimulator", "MixtureSBCFitter"]


@dataclass(frozen=True)
class MixtureSBCSimulator:
    """Draw (alpha, alpha0, theta, phi, z) from the fitting prior, then n cases with p features.

    Replicates in which a response class has fewer than 2 cases are redrawn (the model
    conditions on y; such data cannot be selected from). Calling the simulator with a
    ``numpy.random.Generator`` returns ``((X, y), truth)``: ``X`` of shape (n, p) with binary
    entries, ``y`` of shape (n,) with labels 0 and 1, and ``truth`` the true alpha under both
    names in :attr:`MixtureSBCFitter.params`.

    Attributes
    ----------
    n : int
        Cases per replicate.
    p : int
        Binary features per replicate, all screened by the fitter's selection.
    prior : dict
        Fields of :class:`~selbayes.models.MixturePrior` (``alpha_shape``,
        ``alpha_scale``, ``alpha0_shape``, ``alpha0_scale``, ``f0``, ``f1``); empty for the thesis'
        fitting prior.

    Raises
    ------
    ValueError
        At construction, if ``p`` is not a positive integer, ``n`` not an integer >= 4 (two
        cases in each response class), or ``prior`` names an unknown or invalid setting.
    TypeError
        At construction, if ``prior`` is not a dict.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.sbc import MixtureSBCSimulator
    >>> (X, y), truth = MixtureSBCSimulator(n=20, p=40)(np.random.default_rng(0))
    >>> X.shape, np.unique(X).tolist(), bool(2 <= y.sum() <= 18)
    ((20, 40), [0, 1], True)
    >>> sorted(truth), truth["alpha_corrected"] > 0
    (['alpha_corrected', 'alpha_uncorrected'], True)
    """

    n: int = 30
    p: int = 100
    prior: dict = field(default_factory=dict)

    def __post_init__(self):
        from ..models._priors import MixturePrior
        from ._core import _check_prior_dict, _check_settings

        # replicates are redrawn until each response class has 2 cases: n < 4 never ends
        _check_settings(self, {"n": 4, "p": 1})
        _check_prior_dict(self, "prior", MixturePrior.from_dict)

    def __call__(self, rng):
        from ..datasets._simulate import binary_mixture
        from ..models._mixture import MixturePrior

        pr = MixturePrior.from_dict(dict(self.prior) or None)
        while True:
            sim = binary_mixture(self.n, self.p, alpha=None, phi0=None, a=pr.alpha_shape,
                                 b=pr.alpha_scale, a0=pr.alpha0_shape, b0=pr.alpha0_scale,
                                 dirichlet_c=(pr.f0, pr.f1),
                                 random_state=rng)
            if 2 <= sim.y.sum() <= self.n - 2:
                break
        truth = {"alpha_corrected": sim.alpha, "alpha_uncorrected": sim.alpha}
        return (sim.X, sim.y), truth


@dataclass(frozen=True)
class MixtureSBCFitter:
    """Fit the corrected and the uncorrected mixture; return both posteriors of alpha.

    Calling the fitter with ``((X, y), seed)`` keeps the ``k`` features with the largest
    |Cor(x, y)|, samples :class:`~selbayes.estimators.BinaryMixtureClassifier` with
    and without the selection correction (seeds ``seed + 1`` and ``seed``; sampler warnings
    are silenced) and returns ``{"alpha_corrected": draws, "alpha_uncorrected": draws}``,
    each of shape (chains, draws).

    Attributes
    ----------
    k : int
        Features kept, 1 <= k < p.
    prior : dict
        Fitting-prior fields (as for :class:`MixtureSBCSimulator`); empty for the default.
    draws, tune, chains : int
        Draws and tuning steps per chain, and the number of chains.
    params : tuple of str
        Class attribute: the names of the returned posteriors.

    Raises
    ------
    ValueError
        At construction, if ``k``, ``draws`` or ``chains`` is not a positive integer, ``tune``
        not an integer >= 0, or ``prior`` names an unknown or invalid setting.
    TypeError
        At construction, if ``prior`` is not a dict.

    Examples
    --------
    >>> import numpy as np
    >>> from selbayes.sbc import MixtureSBCFitter, MixtureSBCSimulator
    >>> fitter = MixtureSBCFitter(k=3, draws=100, tune=50)
    >>> fitter.params
    ('alpha_corrected', 'alpha_uncorrected')
    >>> data, truth = MixtureSBCSimulator(n=30, p=100)(np.random.default_rng(1))
    >>> post = fitter(data, seed=1)                     # doctest: +SKIP
    >>> post["alpha_corrected"].shape                   # doctest: +SKIP
    (2, 100)
    """

    params = ("alpha_corrected", "alpha_uncorrected")

    k: int = 3
    prior: dict = field(default_factory=dict)
    draws: int = 400
    tune: int = 150
    chains: int = 2

    def __post_init__(self):
        from ..models._priors import MixturePrior
        from ._core import _check_prior_dict, _check_settings

        _check_settings(self, {"k": 1, "draws": 1, "tune": 0, "chains": 1})
        _check_prior_dict(self, "prior", MixturePrior.from_dict)

    def __call__(self, data, seed):
        import warnings

        from ..estimators._mixture import BinaryMixtureClassifier

        X, y = data
        out = {}
        for corrected in (True, False):
            clf = BinaryMixtureClassifier(
                k=self.k, correct_selection=corrected, priors=dict(self.prior) or None,
                draws=self.draws, tune=self.tune, chains=self.chains,
                random_state=int(seed) + int(corrected), max_predict_draws=1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf.fit(X, y)
            name = "alpha_corrected" if corrected else "alpha_uncorrected"
            out[name] = clf.idata_.posterior["alpha"].values          # (chain, draw)
        return out
