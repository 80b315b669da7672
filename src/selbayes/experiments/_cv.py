"""What the cross-validated experiments on real expression data share.

The experiment types ``gaussian_cv`` (Li 2009, Experiment 4.2, SRBCT) and ``naive_bayes_cv``
(Li 2007, section 2.3.6, colon) both split the genes at random into gene groups, cross-validate
the corrected and the uncorrected classifier within every group, and compare the two methods
group by group as Li 2009 Fig 4 does. The spec checks, gene groups, cached data and folds,
out-of-fold assembly, metrics, acceptance counts, paired t-tests and Fig 4 are defined here once
and imported by both runners (:mod:`selbayes.experiments.gaussian_cv`,
:mod:`selbayes.experiments.naive_bayes_cv`).
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np

from .report import Criterion
from .spec import Spec, SpecError

__all__ = ["METHODS", "groups_run", "check_cv_design", "gene_groups", "cv_data", "out_of_fold",
           "evaluate", "criteria", "paired_tests", "plot_fig4"]

METHODS = ("corrected", "uncorrected")


def groups_run(spec: Spec) -> list[int]:
    """The gene groups the spec runs (0-based): ``[data] groups``, or all ``n_groups``."""
    return spec["data"]["groups"] or list(range(spec["data"]["n_groups"]))


def check_cv_design(spec: Spec, where: str, sources: dict) -> None:
    """Folds, gene groups, k against the smallest group, methods: shared by the CV experiments.

    ``sources`` maps each data source to its ``n_samples`` and ``n_genes``.
    """
    d, sel = spec["data"], spec["selection"]
    folds = spec["cv"]["folds"]
    n, p = sources[d["source"]]["n_samples"], sources[d["source"]]["n_genes"]
    if isinstance(folds, str) and folds != "loo":
        raise SpecError(f"{where}: [cv] folds must be an integer or 'loo'; got {folds!r}")
    if not isinstance(folds, str) and not 2 <= folds <= n:
        raise SpecError(f"{where}: [cv] folds must be between 2 and {n}; got {folds}")
    if d["n_groups"] > p:
        raise SpecError(f"{where}: [data] n_groups = {d['n_groups']} exceeds the {p} genes")
    bad = [g for g in d["groups"] if g >= d["n_groups"]]
    if bad or len(set(d["groups"])) != len(d["groups"]):
        raise SpecError(f"{where}: [data] groups must be distinct indices below n_groups = "
                        f"{d['n_groups']}; got {d['groups']}")
    smallest = p // d["n_groups"]
    if sel["k"] >= smallest:
        raise SpecError(f"{where}: [selection] k = {sel['k']} must be below the smallest gene "
                        f"group ({smallest} genes)")
    if not sel["methods"] or len(set(sel["methods"])) != len(sel["methods"]):
        raise SpecError(f"{where}: [selection] methods must be a non-empty list of distinct "
                        f"values from {list(METHODS)}")


def gene_groups(p: int, n_groups: int, seed: int) -> list[np.ndarray]:
    """A random partition of the p genes into ``n_groups`` groups of nearly equal size."""
    perm = np.random.default_rng(seed).permutation(p)
    return [np.sort(g) for g in np.array_split(perm, n_groups)]


@functools.lru_cache(maxsize=2)
def _cv_data_cached(key: str, matrix):
    from ..evaluation.cross_validation import make_folds

    s = json.loads(key)
    X, y, genes = matrix(s["data"])
    groups = gene_groups(X.shape[1], s["data"]["n_groups"], s["seeds"]["data"])
    folds = make_folds(y, s["cv"]["folds"], random_state=s["seeds"]["split"])
    return X, y, genes, groups, folds


def cv_data(settings: dict, matrix):
    """(X, y, gene names, gene groups, folds) for the fit settings, cached per process;
    ``matrix(data_settings)`` returns (X, y, gene names) (one function per spec type).
    ``cv_data.cache_clear()`` empties the cache (a test that rewrites the data files)."""
    key = json.dumps({"data": settings["data"], "cv": settings["cv"],
                      "seeds": settings["seeds"]}, sort_keys=True)
    return _cv_data_cached(key, matrix)


cv_data.cache_clear = _cv_data_cached.cache_clear


def out_of_fold(fits: dict, group: int, method: str, n: int, G: int) -> np.ndarray | None:
    """The out-of-fold probabilities of one (gene group, method), shape (n, G).

    Gathered from the fits whose ``meta`` names that group and method (``arrays["test"]``: the
    cases, ``arrays["proba"]``: their probabilities); None when no fit matches or a case has
    no prediction yet (an unfinished run).
    """
    proba = np.full((n, G), np.nan)
    found = False
    for f in fits.values():
        if f.meta["group"] == group and f.meta["method"] == method:
            proba[f.arrays["test"]] = f.arrays["proba"]
            found = True
    if not found or np.isnan(proba).any():
        return None
    return proba


def evaluate(proba: np.ndarray, y_index: np.ndarray, losses: np.ndarray, n_bins: int) -> dict:
    """Error, expected error, AMLP, Brier, ECE and the average actual and expected loss."""
    from ..evaluation.calibration import calibration_summary, expected_vs_actual_loss

    s = calibration_summary(proba, y_index, n_bins=n_bins)
    loss = expected_vs_actual_loss(proba, y_index, losses)
    return {**{k: s[k] for k in ("error_rate", "expected_error_rate", "amlp", "brier", "ece")},
            "actual_loss": float(np.mean(loss["actual_loss"])),
            "expected_loss": float(np.mean(loss["expected_loss"]))}


def criteria(spec: Spec, metrics: dict, groups: list[int]) -> list[Criterion]:
    """Acceptance counts over the gene groups that have both methods (Li 2009 Fig 4).

    AMLP and |expected - actual error rate| lower with the correction in at least the spec's
    ``[acceptance] amlp_min_fraction`` and ``gap_min_fraction`` of the groups.
    """
    acc = spec["acceptance"]
    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    if not paired:
        return [Criterion("corrected vs uncorrected", "all groups", "needs both methods", "-",
                          None)]
    out = []
    amlp_wins = [g for g in paired
                 if metrics[(g, "corrected")]["amlp"] < metrics[(g, "uncorrected")]["amlp"]]

    def gap(g, m):
        r = metrics[(g, m)]
        return abs(r["expected_error_rate"] - r["error_rate"])

    gap_wins = [g for g in paired if gap(g, "corrected") < gap(g, "uncorrected")]
    for name, wins, frac in (
            ("AMLP: corrected below uncorrected", amlp_wins, acc["amlp_min_fraction"]),
            ("|expected - actual error rate|: corrected below uncorrected", gap_wins,
             acc["gap_min_fraction"])):
        need = math.ceil(frac * len(paired) - 1e-9)
        out.append(Criterion(name, f"{len(paired)} gene groups",
                             f"{len(wins)} of {len(paired)}",
                             f">= {need} of {len(paired)}", len(wins) >= need))
    return out


def paired_tests(metrics: dict, groups: list[int]) -> dict:
    """Paired t-tests, corrected vs uncorrected over the gene groups, of the AMLP, the average
    loss and |expected - actual error rate| (empty with fewer than 2 paired groups)."""
    from scipy.stats import ttest_rel

    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    out = {}
    if len(paired) < 2:
        return out
    for key, fn in (("amlp", lambda r: r["amlp"]), ("actual_loss", lambda r: r["actual_loss"]),
                    ("abs_error_gap",
                     lambda r: abs(r["expected_error_rate"] - r["error_rate"]))):
        c = np.array([fn(metrics[(g, "corrected")]) for g in paired])
        u = np.array([fn(metrics[(g, "uncorrected")]) for g in paired])
        res = ttest_rel(c, u)
        out[key] = {"mean_corrected": float(c.mean()), "mean_uncorrected": float(u.mean()),
                    "t": float(res.statistic), "p_value": float(res.pvalue),
                    "n_corrected_lower": int((c < u).sum()), "n_groups": len(paired)}
    return out


def plot_fig4(metrics: dict, groups: list[int], out_dir: Path, title: str) -> str | None:
    """Li 2009 Fig 4, one point per gene group: expected vs actual error rate, average loss and
    AMLP, corrected against uncorrected. Saved as ``out_dir/fig4.png``; returns the file name,
    or None when no group has both methods."""
    from matplotlib.figure import Figure

    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    if not paired:
        return None
    fig = Figure(figsize=(13.5, 4.4))
    axes = fig.subplots(1, 3)
    c = {key: np.array([metrics[(g, "corrected")][key] for g in paired])
         for key in metrics[(paired[0], "corrected")]}
    u = {key: np.array([metrics[(g, "uncorrected")][key] for g in paired])
         for key in metrics[(paired[0], "uncorrected")]}
    ax = axes[0]
    for g, xc, yc, xu, yu in zip(paired, c["error_rate"], c["expected_error_rate"],
                                 u["error_rate"], u["expected_error_rate"], strict=True):
        ax.plot([xc, xu], [yc, yu], color="0.8", lw=0.8, zorder=1)
        ax.annotate(str(g + 1), (xc, yc), fontsize=7, xytext=(3, 2),
                    textcoords="offset points")
    ax.scatter(c["error_rate"], c["expected_error_rate"], color="C0", label="corrected", zorder=2)
    ax.scatter(u["error_rate"], u["expected_error_rate"], facecolors="none", edgecolors="C3",
               label="uncorrected", zorder=2)
    hi = max(c["error_rate"].max(), u["error_rate"].max(), c["expected_error_rate"].max()) * 1.15
    hi = max(hi, 0.02)
    ax.plot([0, hi], [0, hi], "k--", lw=0.8)
    ax.set(xlim=(0, hi), ylim=(0, hi), xlabel="actual error rate (CV)",
           ylabel="expected error rate", title="(a) expected vs actual error, per group")
    ax.legend(loc="upper left", fontsize=8)
    for ax, key, label in ((axes[1], "actual_loss", "(b) average loss, random loss matrices"),
                           (axes[2], "amlp", "(c) AMLP (nats)")):
        ax.scatter(u[key], c[key], color="C0")
        for g, xu, yc in zip(paired, u[key], c[key], strict=True):
            ax.annotate(str(g + 1), (xu, yc), fontsize=7, xytext=(3, 2),
                        textcoords="offset points")
        lo = min(u[key].min(), c[key].min()) * 0.9
        top = max(u[key].max(), c[key].max()) * 1.05
        ax.plot([lo, top], [lo, top], "k--", lw=0.8)
        ax.set(xlim=(lo, top), ylim=(lo, top), xlabel="uncorrected", ylabel="corrected",
               title=label + "\n(below the diagonal: corrected better)")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out_dir / "fig4.png", dpi=100)
    return "fig4.png"
