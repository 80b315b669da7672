"""Simulation-based calibration of the selbayes models: simulators, fitters and the spec runner.

A replicate draws every hyperparameter from the *fitting* prior, simulates all p features,
selects k of them, fits the model with and without the selection correction, and records the
rank of the true hyperparameter among the posterior draws. If the adjustment factor is right
the corrected ranks are uniform; the uncorrected ones are not (Talts et al. 2018; seed 001,
Appendix 1: Bayesian predictions are calibrated on average over the prior).

The simulators and fitters are small picklable classes so that :func:`selbayes.sbc.run_sbc`
can ship them to joblib processes or dask workers.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["GaussianSBCSimulator", "GaussianSBCFitter", "run_sbc_spec", "load_sbc_spec"]


@dataclass(frozen=True)
class GaussianSBCSimulator:
    """Draw (tau_mu, tau_nu, tau_x, mu, nu) from the fitting prior, then n cases with p features.

    Classes are balanced (n // G cases each): the model conditions on y, so its design is free.
    """

    n: int = 40
    p: int = 200
    n_classes: int = 3
    priors: dict = field(default_factory=dict)

    def __call__(self, rng):
        from .models.priors import GaussianPriors
        from .simulate import gaussian_classification

        pr = GaussianPriors.from_dict(self.priors)
        G = self.n_classes
        counts = np.full(G, self.n // G)
        counts[: self.n - counts.sum()] += 1
        sim = gaussian_classification(
            None, self.p, G, tau_mu=None, tau_nu=None, alpha_x=pr.alpha_x, w_x=pr.w_x,
            alpha_mu=pr.alpha_mu, w_mu=pr.w_mu, alpha_nu=pr.alpha_nu, w_nu=pr.w_nu,
            class_counts=counts, random_state=rng)
        truth = {"tau_mu_corrected": sim.tau_mu, "tau_mu_uncorrected": sim.tau_mu}
        return (sim.X, sim.y), truth


@dataclass(frozen=True)
class GaussianSBCFitter:
    """Fit the corrected and the uncorrected classifier; return both posteriors of tau_mu."""

    params = ("tau_mu_corrected", "tau_mu_uncorrected")

    k: int = 5
    priors: dict = field(default_factory=dict)
    draws: int = 1000
    tune: int = 1000
    chains: int = 2
    sampler: str = "auto"

    def __call__(self, data, seed):
        import warnings

        from .gaussian_classifier import HierarchicalGaussianClassifier

        X, y = data
        out = {}
        for corrected in (True, False):
            clf = HierarchicalGaussianClassifier(
                k=self.k, correct_selection=corrected, priors=dict(self.priors) or None,
                draws=self.draws, tune=self.tune, chains=self.chains, sampler=self.sampler,
                random_state=int(seed) + int(corrected), progressbar=False,
                max_predict_draws=1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf.fit(X, y)
            name = "tau_mu_corrected" if corrected else "tau_mu_uncorrected"
            out[name] = clf.idata_.posterior["tau_mu"].values       # (chain, draw)
        return out


def _registry() -> dict:
    from .sbc_mixture import MixtureSBCFitter, MixtureSBCSimulator
    from .sbc_naive_bayes import NaiveBayesSBCFitter, NaiveBayesSBCSimulator

    return {"gaussian": (GaussianSBCSimulator, GaussianSBCFitter),
            "naive_bayes": (NaiveBayesSBCSimulator, NaiveBayesSBCFitter),
            "mixture": (MixtureSBCSimulator, MixtureSBCFitter)}


MODELS = ("gaussian", "naive_bayes", "mixture")


def _with_priors(cls, settings: dict, priors: dict):
    """Instantiate a simulator/fitter, passing the spec's [priors] under the name it takes."""
    from dataclasses import fields

    names = {f.name for f in fields(cls)}
    key = "priors" if "priors" in names else "prior"
    return cls(**settings, **{key: priors})


def load_sbc_spec(path, quick: bool = False) -> dict:
    """Read an SBC spec (TOML): [sbc] model, n_replicates, seed; [design]; [fit]; [quick]."""
    path = Path(path)
    with path.open("rb") as fh:
        spec = tomllib.load(fh)
    for key in ("sbc", "design", "fit"):
        if key not in spec:
            raise ValueError(f"{path}: missing section [{key}]")
    model = spec["sbc"].get("model")
    if model not in MODELS:
        raise ValueError(f"{path}: sbc.model must be one of {sorted(MODELS)}; got {model!r}")
    if quick:
        for section, overrides in spec.get("quick", {}).items():
            if section not in spec or not isinstance(overrides, dict):
                raise ValueError(f"{path}: [quick.{section}] overrides an unknown section")
            spec[section] = {**spec[section], **overrides}
    spec["_name"] = path.stem
    return spec


def run_sbc_spec(spec_path, out=None, quick: bool = False, n_jobs: int = 1, scheduler=None,
                 progressbar: bool = True):
    """Run the SBC described by a spec; results (and resume state) go to ``out``."""
    from .sbc import run_sbc

    spec = load_sbc_spec(spec_path, quick=quick)
    sim_cls, fit_cls = _registry()[spec["sbc"]["model"]]
    priors = spec.get("priors", {})
    simulator = _with_priors(sim_cls, spec["design"], priors)
    fitter = _with_priors(fit_cls, spec["fit"], priors)
    out = Path(out) if out is not None else Path("reports") / spec["_name"]
    if quick:
        out = out.with_name(out.name + "_quick")
    result = run_sbc(simulator, fitter, int(spec["sbc"]["n_replicates"]),
                     list(fit_cls.params),
                     random_state=int(spec["sbc"].get("seed", 0)), n_jobs=n_jobs,
                     scheduler=scheduler, out_dir=out / "replicates",
                     thin_to=spec["sbc"].get("thin_to"), progressbar=progressbar)
    result.save(out)
    _write_readme(out, spec_path, spec, result)
    print(result.summary().to_string())
    return result


def _write_readme(out: Path, spec_path, spec, result) -> None:
    from ._version import __version__

    lines = [
        f"# SBC: {spec['_name']}",
        "",
        f"Re-run: `selbayes sbc {spec_path}` (or `make sbc`); it resumes from `replicates/`.",
        f"selbayes {__version__}; settings: design {spec['design']}, fit {spec['fit']}, "
        f"priors {spec.get('priors', {})}, replicates {spec['sbc']['n_replicates']}, "
        f"seed {spec['sbc'].get('seed', 0)}.",
        "",
        f"Rank of the true value ({', '.join(result.ranks.columns)}) among thinned posterior "
        "draws; corrected and uncorrected posteriors are fitted to the same simulated data. "
        "Uniform ranks (p > 0.01) mean calibrated.",
        "",
        (out / "sbc_summary.md").read_text() if (out / "sbc_summary.md").exists() else "",
        "",
        "![ranks](sbc_ranks.png)",
    ]
    (out / "README.md").write_text("\n".join(lines) + "\n")
