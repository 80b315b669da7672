"""Reproduction runner for cross-validated binary naive Bayes on real expression data.

Experiment type ``model = "naive_bayes_cv"`` (protocol: :mod:`selbayes.experiments`): Li 2007,
section 2.3.6 (colon cancer, ``models/experiments/li2007_colon.toml``). The genes are split at
random into gene groups; within each group every gene is binarised at its median (1 = above the
median), and for every cross-validation fold the :class:`~selbayes.BinaryNaiveBayesClassifier`
keeps the k genes with the largest |COR| on the training cases and predicts the held-out cases,
with the selection correction and without it.

Where the median comes from is ``[data] median_cases``: ``"train"`` (default) computes it on the
training cases of each fold only, so nothing about the held-out case enters its own coding;
``"all"`` computes it once on all cases before cross-validation, which is what the thesis most
likely did (section 2.3.6 does not say) and what the author's package ``predbayescor`` does --
use it for a faithful reproduction. Values equal to the median code as 0 in both.

One persisted fit is one (quadrature preset, gene group, method): all folds of a group run in
it (a quadrature fit takes 0.01-0.1 s), so a rerun resumes group by group. The report compares
the methods per gene group as Li 2009 Fig 4 does (expected vs actual error, average loss under
random loss matrices, AMLP), draws the thesis' Fig 2.8 (corrected vs uncorrected P(cancer), one
panel per group) and Fig 2.10 (AMLP and squared error per group), and puts the thesis' colon
results (counts of groups, paired t-tests) beside this run's.

The generic helpers (gene groups, cached data and folds, out-of-fold assembly, metrics, Fig 4,
acceptance counts, paired t-tests) are shared with ``gaussian_cv`` in
:mod:`selbayes.experiments._cv`.
"""

from __future__ import annotations

import functools
import json
import math
import time
from pathlib import Path

import numpy as np

from .._parallel import Task, TaskResult
from .._spec import OMIT, check_section
from .._version import __version__
from . import _cv
from ._cv import METHODS
from ._naive_bayes import SCHEMA as _NB_SCHEMA
from ._report import (
    Criterion,
    acceptance_section,
    md_table,
    reference_note,
    report_head,
    results_head,
    settings_section,
    write_outputs,
)
from ._spec import Field, Spec, SpecError, task_seed
from ._timing import recording_warnings

__all__ = ["SCHEMA", "check_spec", "plan", "fit_settings", "fit_one", "load_data", "report",
           "binarize_at_median", "MEDIAN_CASES"]

MEDIAN_CASES = ("train", "all")
SOURCES = {"colon": {"n_samples": 62, "n_genes": 2000}}

# The thesis' numbers for the colon data (section 2.3.6, Figs 2.9-2.10): the keys
# [reference.thesis] may hold.
THESIS_KEYS = {
    "n_groups": "gene groups (subsets of 200 genes)",
    "amlp_corrected_lower": "groups where the corrected AMLP is lower (Fig 2.10)",
    "squared_error_corrected_lower": "groups where the corrected squared error is lower",
    "amlp_t_test_p": "paired t-test of AMLP over the groups, p-value",
    "squared_error_t_test_p": "paired t-test of the squared error over the groups, p-value",
    "uncorrected_expected_below_actual": "groups where the uncorrected expected error is "
                                         "below the actual error (Fig 2.9)",
    "gamma": "the k-th largest |COR| in the folds (approximately)",
}

SCHEMA: dict[str, dict[str, Field]] = {
    **_cv.cv_schema(SOURCES, "loo", median_cases=Field(
        "str", "cases each gene's median is computed on: 'train' = the training cases of each "
        "fold; 'all' = all cases before cross-validation (the thesis and predbayescor)",
        default="train", choices=MEDIAN_CASES)),
    "selection": {
        "statistic": Field("str", "feature score", default="abs_corr", choices=("abs_corr",)),
        "k": Field("int", "genes kept per fold (top k by |COR| on the training cases)",
                   minimum=1),
        "methods": Field("list[str]", "fits per gene group", default=list(METHODS),
                         choices=METHODS),
    },
    "priors": _NB_SCHEMA["priors"],
    "fit": _NB_SCHEMA["fit"],
    "acceptance": {
        "amlp_min_fraction": Field("float", "corrected AMLP below uncorrected in at least this "
                                   "fraction of the groups", default=0.9, minimum=0.0),
        "gap_min_fraction": Field("float", "corrected |expected - actual error| below "
                                  "uncorrected in at least this fraction of the groups; 0 = "
                                  "not checked", default=0.0, minimum=0.0),
    },
}


# ---------------------------------------------------------------------------------------------
# spec
# ---------------------------------------------------------------------------------------------
def check_spec(spec: Spec) -> None:
    """Cross-key checks: folds, groups, k against the group size, methods, quadrature, reference."""
    where = str(spec.path)
    _cv.check_cv_design(spec, where, SOURCES)
    qs = spec["fit"]["quadrature"]
    if not qs or len(set(qs)) != len(qs):
        raise SpecError(f"{where}: [fit] quadrature must list distinct presets; got {qs}")
    if spec["fit"]["method"] == "mcmc" and len(qs) != 1:
        raise SpecError(f"{where}: [fit] method 'mcmc' takes a single quadrature entry (unused)")
    thesis = spec["reference"].get("thesis", {})
    check_section(thesis, "reference.thesis",
                  {k: Field("float", doc, default=OMIT) for k, doc in THESIS_KEYS.items()}, where)


def _fit_id(q: str, group: int, method: str) -> str:
    return f"{q}-g{group:02d}-{method}"


def plan(spec: Spec) -> list[Task]:
    """One fit per (quadrature preset, gene group, method), each running every fold."""
    tasks = []
    for q in spec["fit"]["quadrature"]:
        for g in _cv.groups_run(spec):
            for method in spec["selection"]["methods"]:
                tasks.append(Task(_fit_id(q, g, method), {
                    "quadrature": q, "group": g, "method": method,
                    "corrected": method == "corrected"}))
    return tasks


def fit_settings(spec: Spec) -> dict:
    """Everything that changes a fit: the data (and a checksum of the values), binarisation,
    folds, groups, selection, priors, fit method, sampler (MCMC only) and seeds."""
    out = {"model": spec.model, "data": _cv.data_settings(spec, _matrix), "cv": spec["cv"],
           "selection": {"statistic": spec["selection"]["statistic"],
                         "k": spec["selection"]["k"]},
           "priors": spec["priors"], "fit": {"method": spec["fit"]["method"]},
           "seeds": {k: spec["seeds"][k] for k in ("data", "split", "fit")}}
    if spec["fit"]["method"] == "mcmc":
        out["sampler"] = spec["sampler"]
    return out


# ---------------------------------------------------------------------------------------------
# data and fitting (run in worker processes)
# ---------------------------------------------------------------------------------------------
def binarize_at_median(X, rows=None) -> np.ndarray:
    """Code each column 1 where it exceeds its median, else 0.

    Parameters
    ----------
    X : array-like of shape (n_samples, p)
        Expression values.
    rows : int array, optional
        Cases the medians are computed on (a fold's training cases); default all cases. Every
        case is coded with these medians.

    Returns
    -------
    ndarray of int8, shape (n_samples, p)
        ``X > median``: values equal to the median code as 0 (as in predbayescor).

    Examples
    --------
    >>> binarize_at_median([[1.0], [2.0], [3.0], [10.0]], rows=[0, 1, 2]).ravel().tolist()
    [0, 0, 1, 1]
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-d array; got shape {X.shape}")
    ref = X if rows is None else X[np.asarray(rows, dtype=np.int64)]
    if ref.shape[0] == 0:
        raise ValueError("rows must name at least one case")
    return (X > np.median(ref, axis=0)).astype(np.int8)


@functools.lru_cache(maxsize=2)
def _load_matrix(source: str, data_home: str):
    from ..datasets._loaders import load_colon

    loaders = {"colon": load_colon}
    ds = loaders[source](data_home or None)
    return ds.X.to_numpy(), ds.y.to_numpy(), list(ds.X.columns)


def _matrix(d: dict):
    return _load_matrix(d["source"], d["data_home"])


def load_data(settings: dict):
    """(X, y, gene names, gene groups, folds) for the fit settings, cached per process.

    ``X`` holds the raw intensities; binarisation happens per fold in :func:`fit_one`.
    """
    return _cv.cv_data(settings, _matrix)


def make_estimator(settings: dict, corrected: bool, quadrature: str, seed: int | None):
    """The classifier of one fold (the spec's k, priors, fit method and sampler settings)."""
    from ..estimators._naive_bayes import BinaryNaiveBayesClassifier

    kwargs = {}
    if settings["fit"]["method"] == "mcmc":
        s = settings["sampler"]
        kwargs = dict(draws=s["draws"], tune=s["tune"], chains=s["chains"], sampler=s["name"],
                      target_accept=s["target_accept"], max_predict_draws=s["max_predict_draws"])
    return BinaryNaiveBayesClassifier(
        k=settings["selection"]["k"], correct_selection=corrected,
        method=settings["fit"]["method"], priors=dict(settings["priors"]),
        quadrature=quadrature, random_state=seed, progressbar=False, **kwargs)


def fit_one(settings: dict, task: Task) -> TaskResult:
    """Cross-validate one (quadrature, gene group, method): binarise, select, fit, predict.

    Returns arrays ``proba`` (n, 2) out-of-fold class probabilities in sorted class order,
    ``test`` (n,) the case of each row, ``fold`` (n,) its fold, and per fold ``selected``
    (n_folds, k) gene indices within the group, ``gamma`` (n_folds,) the k-th largest |COR|,
    ``n_ties`` (n_folds,) omitted genes tied with gamma and ``fit_s`` (n_folds,).
    """
    from ..evaluation._cross_validation import fit_fold

    X, y, _, groups, folds = load_data(settings)
    prm = task.params
    classes = np.unique(y)
    Xg = X[:, groups[prm["group"]]]
    all_cases = settings["data"]["median_cases"] == "all"
    Xb_all = binarize_at_median(Xg) if all_cases else None
    est = make_estimator(settings, prm["corrected"], prm["quadrature"], None)
    proba, test_idx, fold_of, selected, gamma, ties, fit_s = [], [], [], [], [], [], []
    t0 = time.perf_counter()
    with recording_warnings() as messages:
        for i, (train, test) in enumerate(folds):
            Xb = Xb_all if all_cases else binarize_at_median(Xg, rows=train)
            seed = task_seed(settings["seeds"]["fit"], prm["group"], i)
            p, meta, fitted = fit_fold(est, Xb, y, train, test, classes=classes,
                                       random_state=seed, return_estimator=True)
            proba.append(p)
            test_idx.append(np.asarray(test))
            fold_of.append(np.full(len(test), i))
            selected.append(np.asarray(fitted.selection_.indices))
            gamma.append(float(fitted.selection_.threshold))
            ties.append(int(fitted.selection_.n_ties_at_threshold))
            fit_s.append(meta["fit_s"] + meta["predict_s"])
    g = np.asarray(gamma)
    meta = {"quadrature": prm["quadrature"], "group": prm["group"], "method": prm["method"],
            "n_folds": len(folds), "gamma_median": float(np.median(g)),
            "gamma_min": float(g.min()), "gamma_max": float(g.max()),
            "fit_s": time.perf_counter() - t0, "warnings": messages[:10],
            "selbayes_version": __version__}
    return TaskResult(task.id, {
        "proba": np.concatenate(proba), "test": np.concatenate(test_idx),
        "fold": np.concatenate(fold_of), "selected": np.stack(selected),
        "gamma": g, "n_ties": np.asarray(ties), "fit_s": np.asarray(fit_s)}, meta)


# ---------------------------------------------------------------------------------------------
# evaluation (main process)
# ---------------------------------------------------------------------------------------------
def _criteria(spec: Spec, metrics: dict, groups: list[int]) -> list[Criterion]:
    """The AMLP count (and the |gap| count when ``gap_min_fraction`` > 0)."""
    out = _cv.criteria(spec, metrics, groups)
    if spec["acceptance"]["gap_min_fraction"] <= 0:
        out = [c for c in out if not c.criterion.startswith("|expected")]
    return out


def _paired_tests(metrics: dict, groups: list[int]) -> dict:
    """The Fig 4 tests plus the thesis' squared-error test (Brier = (y - p1)^2 for G = 2)."""
    from scipy.stats import ttest_rel

    out = _cv.paired_tests(metrics, groups)
    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    if len(paired) >= 2:
        c = np.array([metrics[(g, "corrected")]["brier"] for g in paired])
        u = np.array([metrics[(g, "uncorrected")]["brier"] for g in paired])
        res = ttest_rel(c, u)
        out["squared_error"] = {"mean_corrected": float(c.mean()),
                                "mean_uncorrected": float(u.mean()), "t": float(res.statistic),
                                "p_value": float(res.pvalue),
                                "n_corrected_lower": int((c < u).sum()),
                                "n_groups": len(paired)}
    return out


def _decision_changes(fits: dict, groups: list[int], n: int) -> dict:
    """Per group: cases whose 0.5-threshold decision differs between the methods."""
    out = {}
    for g in groups:
        c = _cv.out_of_fold(fits, g, "corrected", n, 2)
        u = _cv.out_of_fold(fits, g, "uncorrected", n, 2)
        if c is not None and u is not None:
            out[g] = int(np.sum((c[:, 1] >= 0.5) != (u[:, 1] >= 0.5)))
    return out


def _thesis_comparison(spec: Spec, metrics: dict, tests: dict, groups: list[int],
                       gammas: list[float], changes: dict) -> list[list]:
    """Rows (quantity, thesis, this run) for the report."""
    th = spec["reference"].get("thesis", {})
    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    n = len(paired)
    n_th = th.get("n_groups", 10)

    def cell(table, key, show):  # "-" where the thesis or this run has no such number
        v = table.get(key)
        return "-" if v is None else show(v)

    def count(key):
        return cell(th, key, lambda v: f"{v:g} of {n_th:g}")

    def ours(key):
        return cell(tests, key, lambda t: f"{t['n_corrected_lower']} of {t['n_groups']}")

    def num(key):
        return cell(th, key, lambda v: f"{v:g}")

    def pval(key):
        return cell(tests, key, lambda t: f"{t['p_value']:.2g} (t = {t['t']:.2f})")

    below = sum(metrics[(g, "uncorrected")]["expected_error_rate"]
                < metrics[(g, "uncorrected")]["error_rate"] for g in paired)
    def gap(g, m):
        r = metrics[(g, m)]
        return abs(r["expected_error_rate"] - r["error_rate"])

    closer = sum(gap(g, "corrected") < gap(g, "uncorrected") for g in paired)
    still = sum(metrics[(g, "corrected")]["expected_error_rate"]
                < metrics[(g, "corrected")]["error_rate"] for g in paired)
    same_err = sum(metrics[(g, "corrected")]["error_rate"]
                   == metrics[(g, "uncorrected")]["error_rate"] for g in paired)
    g_arr = np.asarray(gammas)
    gamma_ours = (f"median {np.median(g_arr):.3f} (range {g_arr.min():.3f}-{g_arr.max():.3f})"
                  if g_arr.size else "-")
    gth = th.get("gamma")
    return [
        ["corrected AMLP lower (Fig 2.10)", count("amlp_corrected_lower"), ours("amlp")],
        ["paired t-test of AMLP, p", num("amlp_t_test_p"), pval("amlp")],
        ["corrected squared error lower (Fig 2.10)", count("squared_error_corrected_lower"),
         ours("squared_error")],
        ["paired t-test of squared error, p", num("squared_error_t_test_p"),
         pval("squared_error")],
        ["uncorrected expected error below actual (Fig 2.9)",
         count("uncorrected_expected_below_actual"), f"{below} of {n}"],
        ["correction brings the expected error nearer the actual (Fig 2.9)",
         "yes (\"reduces the optimism\")", f"{closer} of {n}"],
        ["corrected expected error still below actual (Fig 2.9)",
         "yes (\"does not remove it\")", f"{still} of {n}"],
        ["same 0.5-threshold error rate in both methods (Fig 2.8)", "almost identical",
         f"{same_err} of {n} groups; {sum(changes.values())} of "
         f"{len(changes) * SOURCES[spec['data']['source']]['n_samples']} decisions differ"],
        [f"gamma (the k = {spec['selection']['k']}-th largest |COR|) over the folds",
         "-" if gth is None else f"around {gth:g} in all folds", gamma_ours],
    ]


def _fig2_8(fits: dict, groups: list[int], y_index: np.ndarray, out_dir: Path,
            title: str) -> str | None:
    """Thesis Fig 2.8: LOOCV P(cancer), corrected vs uncorrected, one panel per group."""
    from matplotlib.figure import Figure

    from ..evaluation import _plots as plots

    n = len(y_index)
    panels = []
    for g in groups:
        c = _cv.out_of_fold(fits, g, "corrected", n, 2)
        u = _cv.out_of_fold(fits, g, "uncorrected", n, 2)
        if c is not None and u is not None:
            panels.append((g, c[:, 1], u[:, 1]))
    if not panels:
        return None
    ncol = min(5, len(panels))
    nrow = math.ceil(len(panels) / ncol)
    fig = Figure(figsize=(3.0 * ncol, 3.2 * nrow))
    axes = np.atleast_1d(fig.subplots(nrow, ncol)).ravel()
    for ax, (g, pc, pu) in zip(axes, panels, strict=False):
        plots.predictive_scatter(pc, pu, outcome=y_index == 1, ax=ax)
        ax.set_title(f"group {g + 1}", fontsize=9)
        ax.set_xlabel("uncorrected", fontsize=8)
        ax.set_ylabel("corrected", fontsize=8)
        legend = ax.get_legend()
        if legend is not None and g != panels[0][0]:
            legend.remove()
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(out_dir / "fig2_8_predictive.png", dpi=90)
    return "fig2_8_predictive.png"


def _fig2_10(metrics: dict, groups: list[int], out_dir: Path) -> str | None:
    """Thesis Fig 2.10: AMLP and average squared error, corrected vs uncorrected, per group."""
    from matplotlib.figure import Figure

    paired = [g for g in groups if (g, "corrected") in metrics and (g, "uncorrected") in metrics]
    if not paired:
        return None
    fig = Figure(figsize=(9, 4.4))
    axes = fig.subplots(1, 2)
    for ax, key, label in ((axes[0], "amlp", "AMLP (nats)"),
                           (axes[1], "brier", "average squared error")):
        u = np.array([metrics[(g, "uncorrected")][key] for g in paired])
        c = np.array([metrics[(g, "corrected")][key] for g in paired])
        ax.scatter(u, c, color="C0")
        for g, xu, yc in zip(paired, u, c, strict=True):
            ax.annotate(str(g + 1), (xu, yc), fontsize=7, xytext=(3, 2),
                        textcoords="offset points")
        lo, hi = min(u.min(), c.min()) * 0.9, max(u.max(), c.max()) * 1.05
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        ax.set(xlim=(lo, hi), ylim=(lo, hi), xlabel="uncorrected", ylabel="corrected",
               title=f"{label}\n(below the diagonal: corrected better)")
    fig.suptitle("Fig 2.10 (Li 2007): one point per gene group", fontsize=10)
    fig.tight_layout()
    fig.savefig(out_dir / "fig2_10_amlp_squared_error.png", dpi=100)
    return "fig2_10_amlp_squared_error.png"


_HEADERS = ["group", "method", "error", "expected error", "|gap|", "avg loss", "expected loss",
            "AMLP", "squared error", "gamma (median)"]


def _group_rows(metrics: dict, fits: dict, groups: list[int], methods, q: str) -> list[list]:
    rows = []
    for g in groups:
        for m in methods:
            r = metrics.get((g, m))
            if r is None:
                continue
            rows.append([g + 1, m, r["error_rate"], r["expected_error_rate"],
                         abs(r["expected_error_rate"] - r["error_rate"]), r["actual_loss"],
                         r["expected_loss"], r["amlp"], r["brier"],
                         fits[_fit_id(q, g, m)].meta["gamma_median"]])
    return rows


def report(spec: Spec, fits: dict, out_dir: Path, run_info: dict) -> dict:
    """Per-group metrics, Figs 4 / 2.8 / 2.10, the thesis' results beside ours, acceptance."""
    out_dir = Path(out_dir)
    settings = fit_settings(spec)
    X, y, _, groups_idx, folds = load_data(settings)
    classes = np.unique(y)
    y_index = np.searchsorted(classes, y)
    n, G = len(y), len(classes)
    losses = _cv.loss_matrices(spec, G)
    groups = _cv.groups_run(spec)
    qs = spec["fit"]["quadrature"]
    primary = qs[0]
    by_q = {q: {fid: f for fid, f in fits.items() if f.meta["quadrature"] == q} for q in qs}
    metrics = {q: _cv.group_metrics(spec, by_q[q], y_index, G, losses, groups) for q in qs}
    criteria = _criteria(spec, metrics[primary], groups)
    tests = {q: _paired_tests(metrics[q], groups) for q in qs}
    other_criteria = {q: _criteria(spec, metrics[q], groups) for q in qs[1:]}
    changes = _decision_changes(by_q[primary], groups, n)
    gammas = np.concatenate([f.arrays["gamma"] for f in by_q[primary].values()]
                            ) if by_q[primary] else np.array([])
    comparison = _thesis_comparison(spec, metrics[primary], tests[primary], groups,
                                    gammas.tolist(), changes)
    title = spec["experiment"]["title"] or spec.name
    figures = {}
    for key, made in (
            ("fig4", _cv.plot_fig4(metrics[primary], groups, out_dir,
                               "Fig 4 layout (Li 2009) = thesis Figs 2.9-2.10: " + title)),
            ("fig2_8", _fig2_8(by_q[primary], groups, y_index, out_dir,
                               "Fig 2.8 (Li 2007): out-of-fold P(cancer); squares = cancer, "
                               "circles = normal")),
            ("fig2_10", _fig2_10(metrics[primary], groups, out_dir))):
        if made:
            figures[key] = made
    decided = [c for c in criteria if c.passed is not None]
    fit_s = [f.meta["fit_s"] for f in fits.values()]
    results = {
        **results_head(spec, settings, run_info),
        "data": {"n_samples": n, "n_genes": int(X.shape[1]), "classes": classes.tolist(),
                 "class_counts": np.bincount(y_index, minlength=G).tolist(),
                 "class_1": str(classes[1]), "group_sizes": [len(g) for g in groups_idx],
                 "n_folds": len(folds), "median_cases": spec["data"]["median_cases"],
                 "sha256": settings["data"]["sha256"]},
        "primary_quadrature": primary,
        "metrics": [{"quadrature": q, "group": g, "method": m, **row}
                    for q in qs for (g, m), row in metrics[q].items()],
        "paired_t_tests": tests,
        "decision_changes": {str(g): c for g, c in changes.items()},
        "thesis_comparison": [{"quantity": a, "thesis": b, "this_run": c}
                              for a, b, c in comparison],
        "acceptance": [c.to_dict() for c in criteria],
        "acceptance_other_quadrature": {q: [c.to_dict() for c in cs]
                                        for q, cs in other_criteria.items()},
        "acceptance_passed": bool(decided) and all(c.passed for c in decided),
        "fits_summary": {
            "n_fits": len(fits), "n_fold_fits": int(sum(f.meta["n_folds"]
                                                        for f in fits.values())),
            "fit_s_total": float(np.sum(fit_s)),
            "fold_fit_s_median": {q: float(np.median(np.concatenate(
                [f.arrays["fit_s"] for f in by_q[q].values()]))) for q in qs if by_q[q]},
            "gamma": {"median": float(np.median(gammas)), "min": float(gammas.min()),
                      "max": float(gammas.max())} if gammas.size else None,
            "omitted_ties_at_gamma_median": float(np.median(np.concatenate(
                [f.arrays["n_ties"] for f in by_q[primary].values()])))
            if by_q[primary] else None,
            "warnings": sorted({w for f in fits.values() for w in f.meta.get("warnings", [])}),
        },
        "figures": figures, "reference": spec["reference"],
    }
    return write_outputs(out_dir, results, _report_md(spec, by_q, metrics, criteria,
                                                      other_criteria, tests, comparison, results,
                                                      groups))


def _report_md(spec, by_q, metrics, criteria, other_criteria, tests, comparison, results,
               groups) -> str:
    d, sel, ev = spec["data"], spec["selection"], spec["evaluation"]
    run, fs, dd = results["run"], results["fits_summary"], results["data"]
    qs = spec["fit"]["quadrature"]
    primary = qs[0]
    lines = report_head(spec, "; not comparable with the thesis.")
    median = ("on the training cases of each fold only (the held-out case is coded with the "
              "training median)" if d["median_cases"] == "train" else
              "once on all cases before cross-validation (as the thesis most likely did and "
              "predbayescor does)")
    counts = dict(zip(dd["classes"], dd["class_counts"], strict=True))
    lo, hi = min(dd["group_sizes"]), max(dd["group_sizes"])
    sizes = str(lo) if lo == hi else f"{lo}-{hi}"
    lines += [
        f"Data: `{d['source']}`, {dd['n_samples']} cases x {dd['n_genes']} genes, classes "
        f"{counts} (class 1 = `{dd['class_1']}`); {d['n_groups']} random gene groups of {sizes} "
        f"genes (seed {spec['seeds']['data']}); "
        f"{'leave-one-out' if dd['n_folds'] == dd['n_samples'] else str(dd['n_folds']) + '-fold'}"
        f" cross-validation. Each gene is coded 1 above its median, 0 otherwise, the median "
        f"computed {median}. In every fold the top {sel['k']} genes by |COR| on the training "
        f"cases are kept and binary naive Bayes is fitted ({spec['fit']['method']}; priors "
        f"{json.dumps(spec['priors'])}) with the correction for the other genes having "
        f"|COR| <= gamma, and without it. Quadrature presets {qs}; the acceptance, tables and "
        f"figures use `{primary}`.", "",
        "## Acceptance (issue 9)", "", acceptance_section(criteria), "",
    ]
    for q, cs in other_criteria.items():
        lines += [f"With the `{q}` quadrature preset (not part of the verdict): "
                  + "; ".join(f"{c.criterion}: {c.value} ({c.verdict})" for c in cs) + ".", ""]
    lines += [
        f"Fits: {fs['n_fits']} (quadrature x group x method; {fs['n_fold_fits']} fold fits), "
        f"{run.get('n_fitted', 0)} in this invocation, {run.get('n_resumed', 0)} resumed, with "
        f"{run.get('backend', '-')}; median per fold fit "
        + ", ".join(f"{q} {v:.3f} s" for q, v in fs["fold_fit_s_median"].items())
        + f"; {fs['fit_s_total'] / 60:.1f} min of fitting summed over fits; this invocation "
        f"took {run.get('total_s', float('nan')) / 60:.1f} min in all.", "",
        "## The thesis' colon results beside this run", "",
        "The thesis prints numbers only for these (section 2.3.6, Figs 2.9-2.10); its gene "
        "groups, and possibly its binarisation, differ from this run's, so compare counts "
        "and directions.",
        "", md_table(["quantity", "thesis", "this run"], comparison, align="lll"), "",
    ]
    if "fig2_10" in results["figures"]:
        lines += [f"![Fig 2.10]({results['figures']['fig2_10']})", ""]
    lines += [
        f"## Per gene group (`{primary}`)", "",
        "Out-of-fold predictions of all cases. Error and expected error under 0-1 loss "
        "(threshold 0.5); |gap| = |expected - actual|. Average loss and expected loss: Bayes "
        f"decisions under {ev['n_loss_matrices']} random loss matrices (off-diagonal "
        f"exp(N(0, {ev['loss_log_sd']:g}^2)), seed {spec['seeds']['loss']}), averaged. AMLP: "
        "minus the average log probability of the true class (nats). Squared error: mean "
        "(y - P(y = 1))^2. gamma: median over the folds of the k-th largest |COR|.", "",
        md_table(_HEADERS, _group_rows(metrics[primary], by_q[primary], groups, sel["methods"],
                                       primary), digits=4, align="ll" + "r" * 8), "",
    ]
    if "fig4" in results["figures"]:
        lines += [f"![Fig 4]({results['figures']['fig4']})", ""]
    if tests[primary]:
        lines += ["Paired t-tests over the gene groups (corrected vs uncorrected):", "",
                  _cv.paired_tests_table(tests[primary]), ""]
    if "fig2_8" in results["figures"]:
        lines += [f"![Fig 2.8]({results['figures']['fig2_8']})", ""]
    for q in qs[1:]:
        lines += [f"### The same with the `{q}` quadrature preset", "",
                  md_table(_HEADERS, _group_rows(metrics[q], by_q[q], groups, sel["methods"], q),
                           digits=4, align="ll" + "r" * 8), ""]
        if tests[q]:
            lines += [_cv.paired_tests_table(tests[q]), ""]
    lines += reference_note(spec, "The thesis")
    g = fs["gamma"] or {}
    lines += ["## Selection", "",
              f"gamma over all folds and groups: median {g.get('median', float('nan')):.3f}, "
              f"range {g.get('min', float('nan')):.3f}-{g.get('max', float('nan')):.3f}; median "
              f"number of omitted genes tied with gamma: "
              f"{fs['omitted_ties_at_gamma_median']}. Warnings raised by the fits: "
              f"{fs['warnings'] or 'none'}.", ""]
    lines += settings_section(results, dd["sha256"])
    return "\n".join(lines)
