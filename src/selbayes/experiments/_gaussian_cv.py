"""Reproduction runner for cross-validated Gaussian classification of real expression data.

Experiment type ``model = "gaussian_cv"`` (protocol: :mod:`selbayes.experiments`): Li 2009,
Experiment 4.2 (SRBCT, ``models/experiments/li2009_srbct.toml``). The genes are split at random into
gene groups; for every group, every cross-validation fold and each method (corrected,
uncorrected) one :class:`~selbayes.HierarchicalGaussianClassifier` is fitted on the training
cases of the fold (decorrelating transform, F selection and MCMC all inside the fold) and
predicts the held-out cases. Each (group, fold, method) is one persisted fit, so a run resumes
fold by fold. The report gathers the out-of-fold probabilities of every group and compares the
methods as Li 2009 Fig 4 does: expected vs actual error rate, average loss under random loss
matrices, and AMLP, one point per gene group.

Seeds: ``seeds.data`` draws the gene groups, ``seeds.split`` the folds, ``seeds.fit`` the MCMC
(one child per group and fold, shared by the two methods so they are paired), ``seeds.loss``
the loss matrices.

The gene groups, folds, metrics, acceptance counts and Fig 4 are shared with ``naive_bayes_cv``
in :mod:`selbayes.experiments._cv`.
"""

from __future__ import annotations

import functools
import json
import time
import warnings
from pathlib import Path

import numpy as np

from .._parallel import Task, TaskResult
from .._validation import make_folder
from .._version import __version__
from . import _cv
from ._cv import METHODS, check_cv_design, cv_data, evaluate, gene_groups
from ._gaussian import _diagnostics_summary, _prior_fields
from ._report import (
    acceptance_section,
    md_table,
    reference_note,
    report_head,
    results_head,
    settings_section,
    write_outputs,
)
from ._spec import Field, Spec, task_seed
from ._timing import recording_warnings

__all__ = ["SCHEMA", "check_spec", "plan", "fit_settings", "fit_one", "load_data", "report",
           "run_demo"]

SOURCES = {"srbct": {"n_samples": 83, "n_genes": 2308}}

SCHEMA: dict[str, dict[str, Field]] = {
    **_cv.cv_schema(SOURCES, 20, log_transform=Field(
        "bool", "take natural logs of the expression values", default=True)),
    "transform": {
        "decorrelate": Field("bool", "whiten with the shrunk pooled covariance (Li 2009 eq 12) "
                             "fitted on each training fold", default=True),
        "lambda": Field("float", "shrinkage lambda of the decorrelating transform", default=10.0,
                        minimum=0.0),
    },
    "selection": {
        "statistic": Field("str", "feature score", default="f", choices=("f",)),
        "k": Field("int", "genes kept per fold (top k by F on the training cases)", minimum=1),
        "methods": Field("list[str]", "fits per fold", default=list(METHODS),
                         choices=METHODS),
    },
    "priors": _prior_fields(),
    "acceptance": {
        "amlp_min_fraction": Field("float", "corrected AMLP below uncorrected in at least this "
                                   "fraction of the groups", default=0.8, minimum=0.0),
        "gap_min_fraction": Field("float", "corrected |expected - actual error| below "
                                  "uncorrected in at least this fraction of the groups (a count "
                                  "with no stated power); 0 = not checked", default=0.8,
                                  minimum=0.0),
        "gap_reduction_claim": Field("float", "claimed reduction of the mean |expected - actual "
                                     "error| by the correction, as a fraction of the "
                                     "uncorrected one: judged by a one-sided paired t-test over "
                                     "the groups, not decidable where its power at the claim "
                                     "is below `power`; 0 = not checked", default=0.0,
                                     minimum=0.0),
        "alpha": Field("float", "one-sided level of the powered tests", default=0.05,
                       minimum=0.0),
        "power": Field("float", "power a test needs at the claimed effect to decide",
                       default=0.8, minimum=0.0),
    },
}


# ---------------------------------------------------------------------------------------------
# spec
# ---------------------------------------------------------------------------------------------
def _n_folds(spec_or_settings) -> int:
    folds = spec_or_settings["cv"]["folds"]
    n = SOURCES[spec_or_settings["data"]["source"]]["n_samples"]
    return n if isinstance(folds, str) else int(folds)


def check_spec(spec: Spec) -> None:
    """Cross-key checks: no n_train / n_test, folds, groups, k against the group size, methods."""
    check_cv_design(spec, str(spec.path), SOURCES)


def plan(spec: Spec) -> list[Task]:
    """One fit per (gene group, fold, method); the two methods of a fold share the seed."""
    root = spec["seeds"]["fit"]
    tasks = []
    for g in _cv.groups_run(spec):
        for f in range(_n_folds(spec)):
            for method in spec["selection"]["methods"]:
                tasks.append(Task(f"g{g:02d}-f{f:03d}-{method}", {
                    "group": g, "fold": f, "method": method,
                    "corrected": method == "corrected", "seed": task_seed(root, g, f)}))
    return tasks


def fit_settings(spec: Spec) -> dict:
    """Everything that changes a fit: the data (and a checksum of the values), folds, groups,
    transform, selection, priors, sampler and seeds (not which groups or methods are run)."""
    return {"model": spec.model, "data": _cv.data_settings(spec, _matrix), "cv": spec["cv"],
            "transform": spec["transform"],
            "selection": {"statistic": spec["selection"]["statistic"],
                          "k": spec["selection"]["k"]},
            "priors": spec["priors"], "sampler": spec["sampler"],
            "seeds": {k: spec["seeds"][k] for k in ("data", "split", "fit")}}


# ---------------------------------------------------------------------------------------------
# data and fitting (run in worker processes)
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=2)
def _load_matrix(key: str):
    from ..datasets._loaders import load_srbct

    d = json.loads(key)
    loaders = {"srbct": load_srbct}
    ds = loaders[d["source"]](d["data_home"] or None)
    X = ds.X.to_numpy()
    if d["log_transform"]:
        X = np.log(X)
    return X, ds.y.to_numpy(), list(ds.X.columns)


def _matrix(d: dict):
    return _load_matrix(json.dumps({k: v for k, v in d.items() if k != "sha256"},
                                   sort_keys=True))


def load_data(settings: dict):
    """(X, y, gene names, gene groups, folds) for the fit settings, cached per process."""
    return cv_data(settings, _matrix)


def make_estimator(settings: dict, corrected: bool, seed: int | None):
    """The classifier of one fit (the spec's priors, transform and sampler settings)."""
    from ..estimators._gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
    from ..models._priors import effect_prior_of

    s, t = settings["sampler"], settings["transform"]
    return HierarchicalGaussianClassifier(
        k=settings["selection"]["k"], correct_selection=corrected,
        priors=dict(settings["priors"]), decorrelate=t["lambda"] if t["decorrelate"] else None,
        draws=s["draws"], tune=s["tune"], chains=s["chains"], sampler=s["name"],
        target_accept=s["target_accept"], max_predict_draws=s["max_predict_draws"],
        random_state=seed, progressbar=False,
        **{**EXACT_MODEL, "effect_prior": effect_prior_of(dict(settings["priors"]))})


def fit_one(settings: dict, task: Task) -> TaskResult:
    """Fit one (group, fold, method) and predict the fold's held-out cases.

    Returns arrays ``proba`` (n_test, G), ``test`` (case indices), ``selected`` (indices within
    the gene group) and ``tau_mu`` (chains, draws); metadata: gamma, timings, diagnostics.
    """
    from ..evaluation._cross_validation import fit_fold
    from ..evaluation._diagnostics import check

    X, y, _, groups, folds = load_data(settings)
    prm = task.params
    train, test = folds[prm["fold"]]
    est = make_estimator(settings, prm["corrected"], prm["seed"])
    with recording_warnings() as messages:
        proba, meta, fitted = fit_fold(est, X[:, groups[prm["group"]]], y, train, test,
                                       classes=np.unique(y), return_estimator=True)
    table = getattr(fitted, "diagnostics_", None)
    if table is None:
        table = check(fitted.idata_, var_names=["tau_mu", "tau_nu", "tau_x"], warn=False)
    tau_mu = fitted.idata_.posterior["tau_mu"].transpose("chain", "draw").values
    meta = {"group": prm["group"], "fold": prm["fold"], "method": prm["method"],
            "gamma": meta["gamma"], "fit_s": meta["fit_s"], "predict_s": meta["predict_s"],
            "sampler_used": getattr(fitted, "sampler_used_", settings["sampler"]["name"]),
            "diagnostics": _diagnostics_summary(table), "warnings": messages[:10],
            "selbayes_version": __version__}
    return TaskResult(task.id, {"proba": proba, "test": np.asarray(test),
                                   "selected": np.asarray(fitted.selection_.indices),
                                   "tau_mu": np.asarray(tau_mu, float)}, meta)


# ---------------------------------------------------------------------------------------------
# evaluation (main process)
# ---------------------------------------------------------------------------------------------


def _scatter(fits: dict, groups: list[int], y_index: np.ndarray, G: int, out_dir: Path,
             seed: int) -> str | None:
    from matplotlib.figure import Figure

    from ..evaluation import _plots as plots

    pc, pu = [], []
    n = len(y_index)
    for g in groups:
        c = _cv.out_of_fold(fits, g, "corrected", n, G)
        u = _cv.out_of_fold(fits, g, "uncorrected", n, G)
        if c is not None and u is not None:
            pc.append(c[np.arange(n), y_index])
            pu.append(u[np.arange(n), y_index])
    if not pc:
        return None
    fig = Figure(figsize=(5, 5))
    ax = fig.subplots()
    plots.predictive_scatter(np.concatenate(pc), np.concatenate(pu), ax=ax, random_state=seed)
    ax.set_title("P(true class) of every case and group,\ncorrected vs uncorrected")
    fig.tight_layout()
    fig.savefig(out_dir / "scatter_true_class.png", dpi=100)
    return "scatter_true_class.png"


_HEADERS = ["group", "method", "genes", "error", "expected error", "\\|gap\\|", "avg loss",
            "expected loss", "AMLP", "Brier"]


def report(spec: Spec, fits: dict, out_dir: Path, run_info: dict) -> dict:
    """Per-group metrics of the out-of-fold probabilities, Fig 4, acceptance; report.md."""
    settings = fit_settings(spec)
    X, y, _, groups_idx, folds = load_data(settings)
    classes = np.unique(y)
    y_index = np.searchsorted(classes, y)
    n, G = len(y), len(classes)
    groups = _cv.groups_run(spec)
    metrics = _cv.group_metrics(spec, fits, y_index, G, _cv.loss_matrices(spec, G), groups)
    criteria = _cv.criteria(spec, metrics, groups)
    tests = _cv.paired_tests(metrics, groups)
    acc = spec["acceptance"]
    gap_test = _cv.gap_reduction_test(metrics, groups, acc["gap_reduction_claim"] or 0.5,
                                      alpha=acc["alpha"], power=acc["power"])
    direction = _cv.direction_summary(metrics, groups, spec["selection"]["methods"])
    for m in direction:  # the null simulated from the method's own probabilities
        probas = [_cv.out_of_fold(fits, g, m, n, G) for g in groups if (g, m) in metrics]
        direction[m]["calibration_in_the_large"] = _cv.calibration_in_the_large(
            probas, y_index, alpha=acc["alpha"], power=acc["power"],
            random_state=spec["seeds"]["loss"])
    figures = {}
    title = spec["experiment"]["title"] or spec.name
    f4 = _cv.plot_fig4(metrics, groups, out_dir, "Fig 4 (Li 2009): " + title)
    if f4:
        figures["fig4"] = f4
    sc = _scatter(fits, groups, y_index, G, out_dir, spec["seeds"]["loss"])
    if sc:
        figures["scatter"] = sc
    decided = [c for c in criteria if c.passed is not None]
    fit_s = [f.meta["fit_s"] for f in fits.values()]
    diag = [f.meta["diagnostics"] for f in fits.values()]
    results = {
        **results_head(spec, settings, run_info),
        "data": {"n_samples": n, "n_genes": int(X.shape[1]), "classes": classes.tolist(),
                 "class_counts": np.bincount(y_index, minlength=G).tolist(),
                 "group_sizes": [len(g) for g in groups_idx], "n_folds": len(folds),
                 "sha256": settings["data"]["sha256"]},
        "metrics": [{"group": g, "method": m, **row} for (g, m), row in metrics.items()],
        "paired_t_tests": tests,
        "gap_reduction_test": gap_test, "miscalibration_direction": direction,
        "acceptance": [c.to_dict() for c in criteria],
        "acceptance_passed": bool(decided) and all(c.passed for c in decided),
        "fits_summary": {
            "n_fits": len(fits), "fit_s_total": float(np.sum(fit_s)),
            "fit_s_median": float(np.median(fit_s)) if fit_s else None,
            "n_rhat_over_1.01": int(sum((d["rhat_max"] or 0) > 1.01 for d in diag)),
            "n_divergent_total": int(sum(d["n_divergent"] or 0 for d in diag)),
            "n_fits_with_divergences": int(sum((d["n_divergent"] or 0) > 0 for d in diag)),
            "gamma_median": {m: float(np.median([f.meta["gamma"] for f in fits.values()
                                                 if f.meta["method"] == m]))
                             for m in spec["selection"]["methods"]
                             if any(f.meta["method"] == m for f in fits.values())},
        },
        "figures": figures, "reference": spec["reference"],
    }
    return write_outputs(out_dir, results, _report_md(spec, metrics, criteria, results,
                                                      groups_idx, groups))


def _report_md(spec, metrics, criteria, results, groups_idx, groups) -> str:
    d, t = spec["data"], spec["transform"]
    sel, ev, run = spec["selection"], spec["evaluation"], results["run"]
    fs = results["fits_summary"]
    lines = report_head(spec, "; not comparable with the paper.")
    dd = results["data"]
    lines += [
        f"Data: `{d['source']}`, {dd['n_samples']} cases x {dd['n_genes']} genes, classes "
        f"{dict(zip(dd['classes'], dd['class_counts'], strict=True))}"
        f"{', natural logs' if d['log_transform'] else ''}; {d['n_groups']} random gene groups "
        f"of {min(dd['group_sizes'])}-{max(dd['group_sizes'])} genes (seed {spec['seeds']['data']}"
        f"), {dd['n_folds']}-fold cross-validation (seed {spec['seeds']['split']}). In every fold: "
        + (f"decorrelating transform with lambda = {t['lambda']:g} fitted on the training cases, "
           if t["decorrelate"] else "")
        + f"top {sel['k']} genes by F on the training cases, hierarchical Gaussian classifier "
        f"with priors {json.dumps(spec['priors'])}; NUTS ({spec['sampler']['name']}) "
        f"{spec['sampler']['chains']} chains x {spec['sampler']['draws']} draws after "
        f"{spec['sampler']['tune']} tuning steps.", "",
        "## Acceptance", "", acceptance_section(criteria), "",
        f"Fits: {fs['n_fits']} ({run.get('n_fitted', 0)} in this invocation, "
        f"{run.get('n_resumed', 0)} resumed) with {run.get('backend', '-')}; "
        f"{fs['fit_s_total'] / 60:.1f} min of fitting summed over fits (median "
        f"{fs['fit_s_median'] or float('nan'):.2f} s per fit); this invocation took "
        f"{run.get('elapsed_s', float('nan')) / 60:.1f} min of fitting and "
        f"{run.get('total_s', float('nan')) / 60:.1f} min in all.", "",
        "## Per gene group (Li 2009 Fig 4)", "",
        "Out-of-fold predictions of all cases. Error and expected error (mean of 1 - max "
        "probability) under 0-1 loss; |gap| = |expected - actual|. Average loss and expected "
        f"loss: Bayes decisions under {ev['n_loss_matrices']} random loss matrices (off-diagonal "
        f"exp(N(0, {ev['loss_log_sd']:g}^2)), seed {spec['seeds']['loss']}), averaged. AMLP: "
        "average minus log probability of the true class (nats).", "",
    ]
    rows = []
    for g in groups:
        for m in sel["methods"]:
            r = metrics.get((g, m))
            if r is None:
                continue
            rows.append([g + 1, m, len(groups_idx[g]), r["error_rate"], r["expected_error_rate"],
                         abs(r["expected_error_rate"] - r["error_rate"]), r["actual_loss"],
                         r["expected_loss"], r["amlp"], r["brier"]])
    lines += [md_table(_HEADERS, rows, digits=4, align="llr" + "r" * 7), ""]
    if "fig4" in results["figures"]:
        lines += [f"![Fig 4]({results['figures']['fig4']})", ""]
    tests = results["paired_t_tests"]
    if tests:
        lines += ["Paired t-tests over the gene groups (corrected vs uncorrected):", "",
                  _cv.paired_tests_table(tests), ""]
    lines += _calibration_md(results, spec["acceptance"])
    if "scatter" in results["figures"]:
        lines += ["Predictive probability of the true class, corrected against uncorrected "
                  "(cf. Li 2009 Fig 1):", "", f"![scatter]({results['figures']['scatter']})",
                  ""]
    lines += reference_note(spec, "The paper")
    lines += ["## Sampler", "",
              f"Fits with max R-hat > 1.01 (tau_mu, tau_nu, tau_x): {fs['n_rhat_over_1.01']} of "
              f"{fs['n_fits']}; divergent transitions: {fs['n_divergent_total']} in "
              f"{fs['n_fits_with_divergences']} fits. Median selection threshold gamma (the "
              f"k-th largest F after the transform): {fs['gamma_median']}.", ""]
    lines += settings_section(results, dd["sha256"])
    return "\n".join(lines)


def _calibration_md(results: dict, acc: dict) -> list[str]:
    """The powered gap test and the direction of the miscalibration, with their derivation."""
    r, direction = results["gap_reduction_test"], results["miscalibration_direction"]
    lines = []
    if r is not None:
        claimed = bool(acc["gap_reduction_claim"])
        lines += [
            "### Does the correction shrink the calibration gap? (a test with its power)", "",
            "Per group, r_g = |gap_uncorrected| - |gap_corrected| (gap = expected - actual "
            "error rate; r > 0: the correction brings the expected error nearer the actual "
            f"one). One-sided paired t-test over the {r['n_groups']} gene groups of mean r > 0 at "
            f"level {r['alpha']:g}. At a true mean reduction delta the statistic is noncentral "
            f"t with {r['n_groups'] - 1} degrees of freedom and noncentrality delta sqrt(n) / sd; "
            "with the observed SD of r this gives the power at any delta and the minimal "
            f"detectable difference (MDD) at power {r['power']:g}. The claim judged is a "
            f"reduction of {r['claim_fraction']:g} x the uncorrected mean |gap|"
            + ("" if claimed else " (not an acceptance criterion in this spec)")
            + "; the verdict is \"not decidable with this design\" where the power at the "
            "claim is below the required power. The groups share the 83 cases: the SD is the "
            "spread across gene groups of this one set of cases.", "",
            md_table(["mean \\|gap\\| uncorrected", "mean \\|gap\\| corrected",
                      "mean reduction (SE)", "SD of r", "t", "p (one-sided)",
                      f"upper {1 - r['alpha']:g} bound", "MDD (share of uncorrected gap)",
                      "claim", "power at claim"],
                     [[r["mean_abs_gap_uncorrected"], r["mean_abs_gap_corrected"],
                       f"{r['mean_reduction']:.4f} ({r['se']:.4f})", r["sd"], r["t"],
                       r["p_value"], r["upper"], f"{r['mdd']:.4f} ({r['mdd_fraction']:.0%})",
                       r["claim"], r["power_at_claim"]]], digits=4), "",
            f"Any claimed reduction above {r['mdd_fraction']:.0%} of the uncorrected gap is "
            "decidable with this design; smaller ones are not. The data bound the reduction "
            f"above by {r['upper']:.4f} ({r['upper'] / r['mean_abs_gap_uncorrected']:.0%} of the "
            "uncorrected gap) at one-sided confidence "
            f"{1 - r['alpha']:g}.", ""]
    if direction:
        lines += [
            "### Direction of the miscalibration", "",
            "gap = expected - actual error rate per group (negative: overconfident). Mean over "
            "groups with its SE over groups, and the groups on each side. Calibration in the "
            "large: under calibration each case's label is drawn from its predictive "
            "probabilities, so the argmax decision errs with probability m_i = 1 - max p_i and "
            "the gap is centred at 0; the null of the pooled mean gap is simulated from the "
            "fit's own probabilities with one uniform per case shared by all groups (the "
            "comonotone coupling: the largest variance the shared cases allow, so the p-value "
            "is conservative). Power: the alternative inflates every m_i by a common factor "
            "(q_i = min(1, c m_i)); MDD is the smallest true overconfidence with power >= "
            f"{acc['power']:g} at one-sided level {acc['alpha']:g}, and the last column the "
            "power at a true overconfidence equal to the observed one.", ""]
        rows = []
        for m, d in direction.items():
            c = d["calibration_in_the_large"]
            rows.append([m, d["mean_gap"], d["se"],
                         f"{d['n_overconfident']} of {d['n_groups']}",
                         f"{d['n_underconfident']} of {d['n_groups']}", c["p_value"],
                         sum(p < acc["alpha"] for p in c["p_values"]), c["mdd"],
                         c["power_at_observed"]])
        lines += [md_table(["method", "mean gap", "SE", "overconfident groups",
                            "underconfident groups", "p (pooled, overconfident)",
                            f"groups with p < {acc['alpha']:g}", f"MDD (power {acc['power']:g})",
                            "power at observed"], rows, digits=4), ""]
    return lines


# ---------------------------------------------------------------------------------------------
# `selbayes demo --data srbct`
# ---------------------------------------------------------------------------------------------
def run_demo(out: str = "demo_output", quick: bool = False, seed: int = 2009, k: int = 10,
             data_home=None) -> int:
    """One SRBCT gene group, a few folds, corrected vs uncorrected; prints the comparison.

    Uses the design of Li 2009 Experiment 4.2 (log expression, decorrelation lambda = 10,
    top k genes by F inside each fold, alpha_x = 2, w_x = 0.3) on one random group of ~231
    genes with 5-fold cross-validation (3 with ``quick``) and shorter chains. Returns a
    process exit code.
    """
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from ..datasets._loaders import load_srbct
    from ..evaluation._calibration import random_loss_matrices
    from ..evaluation._cross_validation import cross_validate

    try:
        ds = load_srbct(data_home, log=True)
    except FileNotFoundError as exc:
        print(f"selbayes demo --data srbct: {exc}")
        return 2
    n_folds, draws, chains = (3, 150, 2) if quick else (5, 500, 2)
    groups = gene_groups(ds.n_genes, 10, seed)
    cols = groups[0]
    X, y = ds.X.iloc[:, cols], ds.y
    print(f"selbayes demo --data srbct: {ds!r}\none random gene group of {len(cols)} genes, "
          f"{n_folds}-fold cross-validation, top {k} genes by F after decorrelation (lambda = "
          f"10) inside every fold; {chains} chains x {draws} draws per fit")
    out_dir = make_folder(out, "out")
    classes = np.unique(y)
    losses = random_loss_matrices(len(classes), 100, random_state=seed)
    rows, probas = {}, {}
    for method in METHODS:
        t0 = time.perf_counter()
        settings = {"selection": {"k": k}, "priors": {"alpha_x": 2.0, "w_x": 0.3},
                    "transform": {"decorrelate": True, "lambda": 10.0},
                    "sampler": {"draws": draws, "tune": draws, "chains": chains, "name": "auto",
                                "target_accept": 0.9, "max_predict_draws": 1000}}
        est = make_estimator(settings, method == "corrected", None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # short chains: diagnostics chatter
            cv = cross_validate(est, X, y, folds=n_folds, random_state=seed, progressbar=False)
        probas[method] = cv.proba
        r = evaluate(cv.proba, np.searchsorted(classes, y.to_numpy()), losses, 10)
        r["seconds"] = time.perf_counter() - t0
        r["median gamma"] = float(np.median([f["gamma"] for f in cv.fold_info]))
        rows[method] = r
    table = pd.DataFrame(rows).loc[["error_rate", "expected_error_rate", "actual_loss",
                                    "expected_loss", "amlp", "brier", "median gamma",
                                    "seconds"]]
    print("\nOut-of-fold calibration (Li 2009 Fig 4: correction brings the expected error "
          "nearer the actual error and lowers the AMLP):")
    print(table.to_string(float_format=lambda v: f"{v:.3f}"))
    from ..evaluation import _plots as plots

    yi = np.searchsorted(classes, y.to_numpy())
    n = len(yi)
    ax = plots.predictive_scatter(probas["corrected"][np.arange(n), yi],
                                  probas["uncorrected"][np.arange(n), yi])
    ax.set_title("SRBCT, one gene group: P(true class), corrected vs uncorrected")
    path = out_dir / "srbct_scatter.png"
    ax.figure.savefig(path, dpi=110, bbox_inches="tight")
    print(f"\nscatter plot written to {path}")
    return 0
