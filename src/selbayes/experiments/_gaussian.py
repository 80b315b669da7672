"""Reproduction runner for the hierarchical Gaussian classifier (Li 2009, Experiment 4.1).

Experiment type ``model = "gaussian"`` (see :mod:`selbayes.experiments` for the protocol). The
spec simulates one data set, splits it into training and test cases, and fits, for every k,
the classifier with and without the selection correction, plus one fit on all p features.
The report compares the predictive probabilities with the truth of the test cases
(Table 1, Fig 1-3 of the paper), with scikit-learn pipelines a user would otherwise pick, and
checks the acceptance criteria of issue 6.

Class labels are 0..G-1; the paper's "class 1" is our class ``evaluation.event_class`` (0).
"""

from __future__ import annotations

import functools
import json
import time
import warnings
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd

from .._parallel import Task, TaskResult
from .._version import __version__
from ._report import (
    Criterion,
    acceptance_section,
    expected_error_criteria,
    fmt,
    md_table,
    reliability_section,
    report_head,
    run_record,
    settings_section,
    versions,
    write_outputs,
)
from ._spec import (
    Field,
    Spec,
    SpecError,
    check_k_list,
    check_reliability_reference,
    selection_tasks,
    settings_hash,
    task_seed,
)
from ._timing import fit_recording_warnings, timed_proba

__all__ = ["SCHEMA", "check_spec", "plan", "fit_settings", "fit_one", "load_data", "report"]

BASELINES = {
    "gnb": "SelectKBest(f_classif) + GaussianNB",
    "gnb_calibrated": "CalibratedClassifierCV(SelectKBest(f_classif) + GaussianNB)",
    "logistic": "SelectKBest(f_classif) + LogisticRegression",
}
METHODS = ("corrected", "uncorrected", "no_selection")


def _prior_fields() -> dict[str, Field]:
    from ..models._priors import GaussianPriors

    out = {}
    for f in fields(GaussianPriors):
        if f.name == "w_x_alpha":
            continue  # a hyperprior on w_x is not part of this experiment
        out[f.name] = Field("float", f"GaussianPriors.{f.name}", default=f.default, positive=True)
    return out


SCHEMA: dict[str, dict[str, Field]] = {
    "data": {
        "simulator": Field("str", "simulator of selbayes.datasets",
                           default="gaussian_classification",
                           choices=("gaussian_classification",)),
        "p": Field("int", "number of features", minimum=2),
        "n_classes": Field("int", "number of classes G", minimum=2),
        "tau_mu": Field("float", "true tau_mu", positive=True),
        "tau_nu": Field("float", "true tau_nu", positive=True),
        "alpha_x": Field("float", "shape parameter of the prior of tau_x", positive=True),
        "w_x": Field("float", "scale of the prior of tau_x", positive=True),
        "class_probs": Field("list[float]", "class probabilities; [] = uniform", default=[],
                             minimum=0.0),
    },
    "selection": {
        "statistic": Field("str", "feature score", default="f", choices=("f",)),
        "k": Field("list[int]", "numbers of features kept", minimum=1),
        "include_all": Field("bool", "also fit on all p features", default=True),
    },
    "priors": _prior_fields(),
    "evaluation": {
        "event_class": Field("int", "class whose probability Table 1 bins (paper's y = 1)",
                             default=0, minimum=0),
        "scatter_points": Field("int", "test cases drawn in Fig 1", default=500, minimum=1),
        "baselines": Field("list[str]", "scikit-learn baselines", default=list(BASELINES),
                           choices=tuple(BASELINES)),
        "calibration_cv": Field("int", "folds of CalibratedClassifierCV", default=5, minimum=2),
        "calibration_method": Field("str", "CalibratedClassifierCV method", default="sigmoid",
                                    choices=("sigmoid", "isotonic")),
        "logistic_C": Field("float", "inverse L2 penalty of LogisticRegression", default=1.0,
                            positive=True),
    },
    "replicates": {
        "n": Field("int", "further simulated data sets pooled for the reliability-bin check "
                   "(0 = judge the bins of the one data set)", default=0, minimum=0),
        "n_test": Field("int", "test cases per replicate data set", default=50, minimum=1),
        "methods": Field("list[str]", "fits per replicate and k", default=["corrected"],
                         choices=("corrected", "uncorrected")),
        "draws": Field("int", "posterior draws per chain of a replicate fit", default=500,
                       minimum=1),
        "tune": Field("int", "tuning iterations per chain of a replicate fit", default=500,
                      minimum=0),
        "chains": Field("int", "chains of a replicate fit", default=2, minimum=1),
    },
    "seeds": {
        "replicates": Field("int", "root seed of the replicate data sets and their fits",
                            default=0, minimum=0),
    },
    "acceptance": {
        "error_tol": Field("float", "corrected |expected - actual error| at most", default=0.02,
                           minimum=0.0),
        "bin_min_count": Field("int", "reliability bins checked have at least this many cases",
                               default=100, minimum=1),
        "bin_z": Field("float", "binomial standard errors allowed per bin", default=3.0,
                       positive=True),
        "log_tau_mu_tol": Field("float", "|posterior median log tau_mu - log true| at most",
                                default=0.5, positive=True),
        "uncorrected_gap": Field("float", "uncorrected actual - expected error at least",
                                 default=0.05, minimum=0.0),
        "uncorrected_gap_k": Field("list[int]", "k values of the uncorrected-gap check",
                                   default=[10, 50, 200], minimum=1),
    },
}


# ---------------------------------------------------------------------------------------------
# spec
# ---------------------------------------------------------------------------------------------
def _label(k) -> str:
    return "all" if k == "all" else f"k{k}"


def check_spec(spec: Spec) -> None:
    """Cross-key checks: k < p, class settings, the shape of the reference tables."""
    where = str(spec.path)
    data, sel, ev = spec["data"], spec["selection"], spec["evaluation"]
    ks = sel["k"]
    check_k_list(where, ks, data["p"], sel["include_all"])
    G = data["n_classes"]
    if ev["event_class"] >= G:
        raise SpecError(f"{where}: [evaluation] event_class = {ev['event_class']} must be < "
                        f"[data] n_classes = {G}")
    cp = data["class_probs"]
    if cp and (len(cp) != G or abs(sum(cp) - 1) > 1e-9):
        raise SpecError(f"{where}: [data] class_probs must hold n_classes = {G} numbers summing "
                        f"to 1; got {cp}")
    if data["n_train"] < 2 * G:
        raise SpecError(f"{where}: [data] n_train = {data['n_train']} is too small for {G} "
                        "classes")
    rep = spec["replicates"]
    if rep["n"] and "corrected" not in rep["methods"]:
        raise SpecError(f"{where}: [replicates] methods must include 'corrected' (the "
                        f"reliability-bin criterion judges its pooled fits); got {rep['methods']}")
    check_reliability_reference(where, spec["reference"].get("table1", {}), "table1", METHODS,
                                spec["evaluation"]["n_bins"])


def plan(spec: Spec) -> list[Task]:
    """Corrected and uncorrected fits for each k, then one fit on all features."""
    tasks = selection_tasks(spec, lambda k, m: "all" if k == "all" else f"{_label(k)}-{m}",
                            spec["selection"]["include_all"])
    rep = spec["replicates"]
    rep_root = spec["seeds"]["replicates"]
    for r in range(rep["n"]):
        for k in spec["selection"]["k"]:
            for method in rep["methods"]:
                corrected = method == "corrected"
                tasks.append(Task(
                    f"rep{r:03d}-{_label(k)}-{method}",
                    {"k": k, "method": method, "corrected": corrected, "replicate": r,
                     "seed": task_seed(rep_root, r + 1, int(k), int(corrected))}))
    return tasks


def fit_settings(spec: Spec) -> dict:
    """Everything that changes a fit (evaluation and acceptance settings do not)."""
    return {"model": spec.model, "data": spec["data"],
            "selection": {"statistic": spec["selection"]["statistic"]},
            "priors": spec["priors"], "sampler": spec["sampler"],
            "replicates": spec["replicates"],
            "seeds": {k: spec["seeds"][k] for k in ("data", "split", "fit", "replicates")}}


# ---------------------------------------------------------------------------------------------
# data and fitting (run in worker processes)
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _load_data_cached(key: str):
    from ..datasets._simulate import gaussian_classification

    s = json.loads(key)
    d, seeds = s["data"], s["seeds"]
    sim = gaussian_classification(
        d["n_train"] + d["n_test"], d["p"], d["n_classes"], tau_mu=d["tau_mu"],
        tau_nu=d["tau_nu"], alpha_x=d["alpha_x"], w_x=d["w_x"],
        class_probs=d["class_probs"] or None, random_state=seeds["data"])
    return sim.split(d["n_train"], random_state=seeds["split"])


def load_data(settings: dict, replicate: int | None = None):
    """(train, test) :class:`~selbayes.datasets.GaussianClassificationData`, cached per
    process.

    ``replicate=None`` is the experiment's data set (seeds ``data`` and ``split``); replicate
    ``r`` is a fresh data set from the same generator (new class means, precisions and cases)
    with ``replicates.n_test`` test cases and seeds derived from ``seeds.replicates`` and ``r``.
    """
    data, seeds = dict(settings["data"]), settings["seeds"]
    if replicate is not None:
        data["n_test"] = settings["replicates"]["n_test"]
        seeds = {"data": task_seed(seeds["replicates"], replicate + 1, 0),
                 "split": task_seed(seeds["replicates"], replicate + 1, 1)}
    else:
        seeds = {"data": seeds["data"], "split": seeds["split"]}
    return _load_data_cached(json.dumps({"data": data, "seeds": seeds}, sort_keys=True))


def _diagnostics_summary(table: pd.DataFrame) -> dict:
    tau = table[table["variable"] == "tau_mu"]
    sampler = table.attrs.get("sampler", {})
    bfmi = sampler.get("bfmi")
    return {
        "rhat_tau_mu": float(tau["rhat"].iloc[0]) if len(tau) else None,
        "ess_bulk_tau_mu": float(tau["ess_bulk"].iloc[0]) if len(tau) else None,
        "ess_tail_tau_mu": float(tau["ess_tail"].iloc[0]) if len(tau) else None,
        "rhat_max": float(table["rhat"].max()),
        "ess_bulk_min": float(table["ess_bulk"].min()),
        "ess_tail_min": float(table["ess_tail"].min()),
        "n_components": int(len(table)),
        "n_divergent": sampler.get("n_divergent"),
        "bfmi_min": None if not bfmi else float(min(bfmi)),
        "ok": bool(table.attrs.get("ok", False)),
        "failures": list(table.attrs.get("failures", [])),
    }


def fit_one(settings: dict, task: Task) -> TaskResult:
    """Fit one classifier of the plan and predict the test cases.

    Returns arrays ``proba`` (n_test, G), ``tau_mu`` (chains, draws) and ``selected`` (k,)
    (a replicate's fit also ``y_test`` (n_test,), its test labels), and metadata: gamma,
    timings, sampler diagnostics (and ``replicate``). A replicate fit (``task.params``
    holds ``replicate``) uses that replicate's data set and ``[replicates]`` sampler sizes.
    """
    from ..estimators._gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
    from ..evaluation._diagnostics import check
    from ..models._priors import effect_prior_of

    prm = task.params
    replicate = prm.get("replicate")
    train, test = load_data(settings, replicate)
    s = dict(settings["sampler"])
    if replicate is not None:
        s.update({key: settings["replicates"][key] for key in ("draws", "tune", "chains")})
    clf = HierarchicalGaussianClassifier(
        k=prm["k"], correct_selection=prm["corrected"], priors=dict(settings["priors"]),
        draws=s["draws"], tune=s["tune"], chains=s["chains"], sampler=s["name"],
        target_accept=s["target_accept"], max_predict_draws=s["max_predict_draws"],
        random_state=prm["seed"], progressbar=False,
        **{**EXACT_MODEL, "effect_prior": effect_prior_of(dict(settings["priors"]))})
    fit_s, messages = fit_recording_warnings(clf, train.X, train.y)
    G = settings["data"]["n_classes"]
    if len(clf.classes_) != G:
        raise RuntimeError(f"fit {task.id}: the training cases hold {len(clf.classes_)} of "
                           f"{G} classes; use more training cases or another seed")
    proba, predict_s = timed_proba(clf, test.X)
    table = getattr(clf, "diagnostics_", None)
    if table is None:
        table = check(clf.idata_, var_names=["tau_mu", "tau_nu", "tau_x"], warn=False)
    tau_mu = clf.idata_.posterior["tau_mu"].transpose("chain", "draw").values
    meta = {"k": prm["k"], "method": prm["method"], "n_selected": int(clf.selection_.n_selected),
            "gamma": float(clf.selection_.threshold), "fit_s": fit_s, "predict_s": predict_s,
            "sampler_used": getattr(clf, "sampler_used_", s["name"]),
            "diagnostics": _diagnostics_summary(table), "warnings": messages[:10],
            "selbayes_version": __version__}
    arrays = {"proba": proba, "tau_mu": np.asarray(tau_mu, float),
              "selected": np.asarray(clf.selection_.indices)}
    if replicate is not None:
        meta["replicate"] = int(replicate)
        arrays["y_test"] = np.asarray(test.y)  # the pooled check needs each replicate's truth
    return TaskResult(task.id, arrays, meta)


# ---------------------------------------------------------------------------------------------
# evaluation (main process)
# ---------------------------------------------------------------------------------------------
def _evaluate(proba, y, losses, event: int, n_bins: int) -> dict:
    from ..evaluation._calibration import (
        calibration_summary,
        expected_vs_actual_loss,
        reliability_table,
    )

    summary = calibration_summary(proba, y, n_bins=n_bins)
    loss = expected_vs_actual_loss(proba, y, losses)
    table = reliability_table(proba[:, event], y == event, n_bins=n_bins)
    return {**{k: summary[k] for k in ("error_rate", "expected_error_rate", "amlp", "brier",
                                       "ece")},
            "actual_loss": float(np.mean(loss["actual_loss"])),
            "expected_loss": float(np.mean(loss["expected_loss"])),
            "reliability": table}


_MIN_GROUPS_PER_BIN = 10


def _pooled_reliability(prob, outcome, groups, n_bins: int) -> pd.DataFrame:
    """Reliability table of cases pooled over independent data sets (``groups``).

    Adds to :func:`~selbayes.evaluation.reliability_table` the bin's binomial z, and a
    between-data-set standard error: the cluster-robust (ratio-estimator) SE of the observed
    minus predicted fraction, with the data sets as clusters. It holds whatever the dependence
    between cases of one data set (they share a training set and one set of true parameters),
    and ``design_effect`` = (between SE / binomial SE)^2 says how far the binomial SE is from it.
    Both are NaN in bins holding cases of fewer than 10 data sets.
    """
    from ..evaluation._calibration import _bin_index, flag_miscalibrated_bins, reliability_table

    table = reliability_table(prob, outcome, n_bins=n_bins)
    table["z"] = flag_miscalibrated_bins(table)["z"]   # binomial z, as the criterion uses
    b = _bin_index(np.asarray(prob, float), n_bins)   # the table's own binning
    resid = np.asarray(outcome, float) - np.asarray(prob, float)
    _, g = np.unique(groups, return_inverse=True)
    R = int(g.max()) + 1
    sums = np.zeros((R, n_bins))
    counts = np.zeros((R, n_bins))
    np.add.at(sums, (g, b), resid)
    np.add.at(counts, (g, b), 1.0)
    n = counts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = sums.sum(axis=0) / n
        var = R / max(R - 1, 1) * ((sums - counts * d) ** 2).sum(axis=0) / n**2
    # a cluster-robust SE needs cases from several data sets; below that it is noise
    var[(counts > 0).sum(axis=0) < _MIN_GROUPS_PER_BIN] = np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        table["se_between"] = np.sqrt(var)
        table["z_between"] = d / table["se_between"]
        table["design_effect"] = var / table["se"] ** 2
    table.attrs["n_groups"] = R
    return table


def _pooled_metrics(spec: Spec, rep_fits: dict) -> dict:
    """{(k, method): metrics of the replicate fits' test cases pooled}, per k and method."""
    from ..evaluation._calibration import calibration_summary

    ev = spec["evaluation"]
    event = ev["event_class"]
    groups: dict = {}
    for f in rep_fits.values():
        groups.setdefault((f.meta["k"], f.meta["method"]), []).append(f)
    out = {}
    for key, fs in groups.items():
        fs = sorted(fs, key=lambda f: f.meta["replicate"])
        proba = np.concatenate([f.arrays["proba"] for f in fs])
        y = np.concatenate([f.arrays["y_test"] for f in fs])
        rep = np.concatenate([np.full(len(f.arrays["y_test"]), f.meta["replicate"]) for f in fs])
        summary = calibration_summary(proba, y, n_bins=ev["n_bins"])
        out[key] = {**{c: summary[c] for c in ("error_rate", "expected_error_rate", "amlp")},
                    "n_replicates": len(fs), "n_cases": int(len(y)),
                    "reliability": _pooled_reliability(proba[:, event], y == event, rep,
                                                       ev["n_bins"])}
    return out


def _bin_check(table: pd.DataFrame, min_count: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Bins with at least ``min_count`` cases and their binomial z."""
    from ..evaluation._calibration import flag_miscalibrated_bins

    big = table[table["count"] >= min_count]
    return big, flag_miscalibrated_bins(big)["z"].to_numpy()


def _baseline(name: str, k, ev: dict, seed: int):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline

    from ..evaluation._folds import stratified_splitter

    select = SelectKBest(f_classif, k=k)
    if name == "gnb":
        return make_pipeline(select, GaussianNB())
    if name == "gnb_calibrated":
        # selection sits inside the pipeline that is refitted on every calibration fold
        folds = stratified_splitter(ev["calibration_cv"], random_state=seed)
        return CalibratedClassifierCV(make_pipeline(select, GaussianNB()),
                                      method=ev["calibration_method"], cv=folds)
    if name == "logistic":
        return make_pipeline(select, LogisticRegression(C=ev["logistic_C"], max_iter=5000))
    raise ValueError(f"unknown baseline {name!r}; known: {sorted(BASELINES)}")


def run_baselines(spec: Spec, train, test, ks) -> dict:
    """{(k, name): (proba, fit seconds)} for every baseline and k (``"all"`` included)."""
    out = {}
    seed = spec["seeds"]["baselines"]
    for k in ks:
        for name in spec["evaluation"]["baselines"]:
            model = _baseline(name, k, spec["evaluation"], seed)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # convergence chatter; the metrics tell
                model.fit(train.X, train.y)
            proba = model.predict_proba(test.X)
            out[(k, name)] = (proba, time.perf_counter() - t0)
    return out


# ---------------------------------------------------------------------------------------------
# acceptance
# ---------------------------------------------------------------------------------------------
def _criteria(spec: Spec, metrics: dict, fits: dict, pooled: dict) -> list[Criterion]:
    acc = spec["acceptance"]
    ks = spec["selection"]["k"]
    log_true = float(np.log(spec["data"]["tau_mu"]))
    out = expected_error_criteria({k: metrics.get((k, "corrected")) for k in ks},
                                  acc["error_tol"])
    n_rep = spec["replicates"]["n"]
    for k in ks:
        m = (pooled if n_rep else metrics).get((k, "corrected"))
        if m is None:
            continue
        name = "corrected: reliability bins within binomial SE" + (
            f" (test cases pooled over {m['n_replicates']} data sets)" if n_rep else "")
        big, z = _bin_check(m["reliability"], acc["bin_min_count"])
        if len(big) == 0:
            out.append(Criterion(name, f"k = {k}", f"no bin has >= {acc['bin_min_count']} cases",
                                 f"|z| <= {acc['bin_z']:g}", None))
            continue
        worst = int(np.argmax(np.abs(z)))
        zb = np.abs(big["z_between"].to_numpy()) if "z_between" in big else np.array([])
        extra = (f"; between-data-set max |z| {zb[np.isfinite(zb)].max():.2f}"
                 if np.isfinite(zb).any() else "")
        out.append(Criterion(
            name, f"k = {k}",
            f"max |z| = {np.abs(z).max():.2f} (bin C{int(big['bin'].iloc[worst])}; "
            f"{len(big)} bins checked{extra})",
            f"|z| <= {acc['bin_z']:g} in bins with >= {acc['bin_min_count']} cases",
            bool(np.all(np.abs(z) <= acc["bin_z"]))))
    for k in ks:
        f = fits.get(f"{_label(k)}-corrected")
        if f is None:
            continue
        med = float(np.median(np.log(f.arrays["tau_mu"])))
        out.append(Criterion("corrected: posterior median log tau_mu near the truth",
                             f"k = {k}", f"{med:.3f} (true {log_true:.3f})",
                             f"within {acc['log_tau_mu_tol']:g}",
                             abs(med - log_true) <= acc["log_tau_mu_tol"]))
    for k in acc["uncorrected_gap_k"]:
        m = metrics.get((k, "uncorrected"))
        if m is None:
            out.append(Criterion("uncorrected: expected error below actual", f"k = {k}",
                                 "k not in this run", f">= {acc['uncorrected_gap']:g}", None))
            continue
        gap = m["error_rate"] - m["expected_error_rate"]
        out.append(Criterion("uncorrected: expected error below actual", f"k = {k}",
                             f"{gap:.4f} ({m['expected_error_rate']:.4f} vs "
                             f"{m['error_rate']:.4f})", f">= {acc['uncorrected_gap']:g}",
                             gap >= acc["uncorrected_gap"]))
    for k in ks:
        mc, mu = metrics.get((k, "corrected")), metrics.get((k, "uncorrected"))
        if mc is None or mu is None:
            continue
        out.append(Criterion("AMLP: corrected below uncorrected", f"k = {k}",
                             f"{mc['amlp']:.4f} vs {mu['amlp']:.4f}", "corrected < uncorrected",
                             mc["amlp"] < mu["amlp"]))
        base = {name: metrics[(k, name)]["amlp"] for name in spec["evaluation"]["baselines"]}
        if base:
            best = min(base, key=base.get)
            out.append(Criterion("AMLP: corrected below every scikit-learn baseline", f"k = {k}",
                                 f"{mc['amlp']:.4f} vs best baseline {best} {base[best]:.4f}",
                                 "corrected < min(baselines)", mc["amlp"] < base[best]))
    return out


# ---------------------------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------------------------
def _figures(spec: Spec, fits: dict, metrics: dict, y, out_dir: Path) -> dict[str, str]:
    from matplotlib.figure import Figure

    from ..evaluation import _plots as plots

    ev = spec["evaluation"]
    event = ev["event_class"]
    ks = [k for k in spec["selection"]["k"]
          if f"{_label(k)}-corrected" in fits and f"{_label(k)}-uncorrected" in fits]
    files = {}
    if ks:
        fig = Figure(figsize=(4.2 * len(ks), 4.4))
        axes = np.atleast_1d(fig.subplots(1, len(ks)))
        for ax, k in zip(axes, ks, strict=True):
            pc = fits[f"{_label(k)}-corrected"].arrays["proba"][:, event]
            pu = fits[f"{_label(k)}-uncorrected"].arrays["proba"][:, event]
            plots.predictive_scatter(pc, pu, y == event, ax=ax, max_points=ev["scatter_points"],
                                     random_state=spec["seeds"]["loss"])
            ax.set_title(f"k = {k}")
        fig.suptitle(f"Fig 1: P(y = class {event}), corrected vs uncorrected")
        fig.tight_layout()
        fig.savefig(out_dir / "fig1_scatter.png", dpi=100)
        files["fig1"] = "fig1_scatter.png"

        fig = Figure(figsize=(10, 3.2 * len(ks)))
        axes = fig.subplots(len(ks), 2, squeeze=False, width_ratios=[2.2, 1])
        for row, k in zip(axes, ks, strict=True):
            traces = {}
            for method in ("corrected", "uncorrected"):
                import xarray as xr

                draws = fits[f"{_label(k)}-{method}"].arrays["tau_mu"]
                traces[method] = xr.Dataset({"tau_mu": (("chain", "draw"), draws)})
            plots.trace_log_tau(traces, reference=spec["data"]["tau_mu"], axes=row)
            row[0].set_title(f"k = {k}")
        fig.tight_layout()
        fig.savefig(out_dir / "fig3_trace_log_tau_mu.png", dpi=100)
        files["fig3"] = "fig3_trace_log_tau_mu.png"

    rows = [{"k": spec["data"]["p"] if k == "all" else k, "method": m,
             **{c: v[c] for c in ("error_rate", "expected_error_rate", "actual_loss",
                                  "expected_loss", "amlp", "brier")},
             "train_time": fits[f"{_label(k)}-{m}" if k != "all" else "all"].meta["fit_s"]}
            for (k, m), v in metrics.items() if m in METHODS]
    if rows:
        fig = Figure(figsize=(9, 10))
        axes = fig.subplots(3, 2).ravel()
        axes[-1].set_visible(False)
        plots.error_vs_k(pd.DataFrame(rows), axes=axes[:5])
        fig.suptitle("Fig 2: error, loss under random loss matrices, AMLP, Brier, training time")
        fig.tight_layout()
        fig.savefig(out_dir / "fig2_error_vs_k.png", dpi=100)
        files["fig2"] = "fig2_error_vs_k.png"

    for k in [*spec["selection"]["k"], "all"]:
        series = {m: metrics[(k, m)]["reliability"] for m in METHODS if (k, m) in metrics}
        if not series:
            continue
        fig = Figure(figsize=(5, 5))
        ax = fig.subplots()
        plots.reliability_diagram(series, ax=ax, title=f"P(y = class {event}), "
                                  + ("all features" if k == "all" else f"k = {k}"))
        fig.tight_layout()
        name = f"reliability_{_label(k)}.png"
        fig.savefig(out_dir / name, dpi=100)
        files[f"reliability_{_label(k)}"] = name
    return files


def _pooled_figure(spec: Spec, pooled: dict, out_dir: Path) -> str:
    """Reliability diagrams of the replicate data sets' pooled test cases, one panel per k."""
    from matplotlib.figure import Figure

    from ..evaluation import _plots as plots

    ks = [k for k in spec["selection"]["k"] if any((k, m) in pooled for m in METHODS)]
    fig = Figure(figsize=(4.2 * len(ks), 4.6))
    axes = np.atleast_1d(fig.subplots(1, len(ks)))
    for ax, k in zip(axes, ks, strict=True):
        series = {m: pooled[(k, m)]["reliability"] for m in METHODS if (k, m) in pooled}
        plots.reliability_diagram(series, ax=ax, title=f"k = {k}")
    n = max(v["n_replicates"] for v in pooled.values())
    fig.suptitle(f"P(y = class {spec['evaluation']['event_class']}), test cases pooled over "
                 f"{n} replicate data sets")
    fig.tight_layout()
    name = "reliability_pooled.png"
    fig.savefig(out_dir / name, dpi=100)
    return name


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------
def _table1_md(spec: Spec, metrics: dict) -> str:
    return reliability_section(spec, [*spec["selection"]["k"], "all"], METHODS,
                               lambda k, m: metrics.get((k, m)), "table1", "paper")


def _pooled_md(spec: Spec, metrics: dict, pooled: dict) -> list[str]:
    rep, acc = spec["replicates"], spec["acceptance"]
    n = max(v["n_replicates"] for v in pooled.values())
    lines = [
        "## Calibration over replicate data sets", "",
        f"The reliability-bin criterion is judged on {n} further data sets simulated from the "
        f"same generator (new class means, feature precisions, training and test cases; "
        f"{spec['data']['n_train']} training and {rep['n_test']} test cases each; seeds from "
        f"`seeds.replicates` = {spec['seeds']['replicates']}), each fitted like the main one "
        f"({rep['chains']} chains of {rep['draws']} draws after {rep['tune']} tuning steps), "
        "their test cases pooled. Why not the bins of the one data set above: its "
        f"{spec['data']['n_test']} test "
        "cases share one training set and one set of true parameters, so a bin's observed "
        "fraction differs from the mean prediction by the posterior's error about those "
        "parameters (e.g. the class-0 prior fraction of 200 training cases), which does not "
        "shrink with more test cases; a calibrated posterior is right on average over data "
        "sets, not conditionally on one. Pooling many data sets with few test cases each "
        "averages that error out, so the binomial SE applies. `z` uses the binomial SE; "
        "`z between` uses the between-data-set (cluster-robust) SE, valid however the cases "
        "of one data set depend on each other; `deff` = (between SE / binomial SE)^2 (about 1 "
        "when the binomial SE is right).", ""]
    rows = []
    for k in spec["selection"]["k"]:
        for m in METHODS:
            if (k, m) in pooled:
                v = pooled[(k, m)]
                rows.append([k, m, v["n_replicates"], v["n_cases"], v["error_rate"],
                             v["expected_error_rate"], v["amlp"]])
    lines += [md_table(["k", "method", "data sets", "test cases", "error", "expected error",
                        "AMLP"], rows, digits=4), ""]
    for k in spec["selection"]["k"]:
        for m in METHODS:
            if (k, m) not in pooled:
                continue
            t = pooled[(k, m)]["reliability"]
            rows = [[f"C{int(r.bin)}", int(r.count), r.mean_predicted, r.observed_fraction,
                     r.z, r.z_between, r.design_effect] for r in t.itertuples()]
            lines += [f"**k = {k}, {m}**", "",
                      md_table(["C", "#", "Pred", "Actual", "z", "z between", "deff"], rows), ""]
    lines += ["![pooled reliability](reliability_pooled.png)", ""]
    one = []
    for k in spec["selection"]["k"]:
        if (k, "corrected") in metrics:
            big, z = _bin_check(metrics[(k, "corrected")]["reliability"], acc["bin_min_count"])
            if len(big):
                one.append(f"k = {k}: max |z| {np.abs(z).max():.2f} over {len(big)} bins")
    if one:
        lines += ["For comparison, the binomial z of the corrected fits' bins (>= "
                  f"{acc['bin_min_count']} cases) on the one data set of Table 1 (not a "
                  "criterion, for the reason above): " + "; ".join(one) + ".", ""]
    return lines


def _metrics_rows(metrics: dict, keys) -> list[list]:
    cols = ("error_rate", "expected_error_rate", "actual_loss", "expected_loss", "amlp", "brier",
            "ece")
    return [[fmt(k), m] + [metrics[(k, m)][c] for c in cols] + [metrics[(k, m)]["train_s"]]
            for k, m in keys]


_METRIC_HEADERS = ["k", "method", "error", "expected error", "avg loss", "avg expected loss",
                   "AMLP", "Brier", "ECE", "train s"]


def report(spec: Spec, fits: dict, out_dir: Path, run_info: dict) -> dict:
    """Evaluate every fit and baseline, draw the figures, write report.md and results.json."""
    from ..evaluation._calibration import random_loss_matrices

    out_dir = Path(out_dir)
    d, ev = spec["data"], spec["evaluation"]
    settings = fit_settings(spec)
    train, test = load_data(settings)
    y = test.y
    G = d["n_classes"]
    losses = random_loss_matrices(G, ev["n_loss_matrices"], sigma=ev["loss_log_sd"],
                                  random_state=spec["seeds"]["loss"])
    rep_fits = {fid: f for fid, f in fits.items() if "replicate" in f.meta}
    fits = {fid: f for fid, f in fits.items() if "replicate" not in f.meta}
    metrics = {}
    for f in fits.values():
        k, m = f.meta["k"], f.meta["method"]
        metrics[(k, m)] = {**_evaluate(f.arrays["proba"], y, losses, ev["event_class"],
                                       ev["n_bins"]), "train_s": f.meta["fit_s"]}
    ks = list(spec["selection"]["k"]) + (["all"] if spec["selection"]["include_all"] else [])
    t0 = time.perf_counter()
    base = run_baselines(spec, train, test, ks)
    baseline_s = time.perf_counter() - t0
    for (k, name), (proba, secs) in base.items():
        metrics[(k, name)] = {**_evaluate(proba, y, losses, ev["event_class"], ev["n_bins"]),
                              "train_s": secs}
    pooled = _pooled_metrics(spec, rep_fits)
    criteria = _criteria(spec, metrics, fits, pooled)
    figures = _figures(spec, fits, metrics, y, out_dir)
    if pooled:
        figures["reliability_pooled"] = _pooled_figure(spec, pooled, out_dir)

    decided = [c for c in criteria if c.passed is not None]
    passed = bool(decided) and all(c.passed for c in decided)
    fit_versions = sorted({str(f.meta.get("selbayes_version", "")) for f in fits.values()} - {""})
    vers = versions()
    results = {
        "experiment": spec["experiment"], "spec_path": str(spec.path), "quick": spec.quick,
        "quick_overrides": spec.quick_overrides if spec.quick else {},
        "settings": {s: v for s, v in spec.sections.items() if s != "reference"},
        "settings_hash": settings_hash(fit_settings(spec)),
        "versions": vers, "fit_versions": fit_versions,
        "run": run_record(run_info, baselines_s=baseline_s),
        "data": {"n_train": int(train.n_samples), "n_test": int(test.n_samples),
                 "p": int(test.n_features), "test_class_counts":
                     np.bincount(y, minlength=G).tolist()},
        "fits": {fid: {**f.meta, "posterior_median_log_tau_mu":
                       float(np.median(np.log(f.arrays["tau_mu"])))}
                 for fid, f in fits.items()},
        "metrics": [{"k": k, "method": m, **{c: v for c, v in row.items() if c != "reliability"},
                     "reliability": row["reliability"].to_dict(orient="list")}
                    for (k, m), row in metrics.items()],
        "replicates": {
            "n_fits": len(rep_fits),
            "fit_s": sum(f.meta["fit_s"] + f.meta["predict_s"] for f in rep_fits.values()),
            "n_divergent": sum(int(f.meta["diagnostics"]["n_divergent"] or 0)
                               for f in rep_fits.values()),
            "rhat_max": max((f.meta["diagnostics"]["rhat_max"] for f in rep_fits.values()),
                            default=None),
            "pooled": [{"k": k, "method": m, **{c: v for c, v in row.items()
                                                 if c != "reliability"},
                        "reliability": row["reliability"].to_dict(orient="list")}
                       for (k, m), row in pooled.items()]},
        "acceptance": [c.to_dict() for c in criteria],
        "acceptance_passed": passed,
        "figures": figures,
        "reference": spec["reference"],
    }
    return write_outputs(out_dir, results, _report_md(spec, fits, metrics, criteria, figures,
                                                      results, pooled))


def _report_md(spec, fits, metrics, criteria, figures, results, pooled) -> str:
    d, ev = spec["data"], spec["evaluation"]
    ks = list(spec["selection"]["k"])
    run = results["run"]
    fit_total = (sum(f.meta["fit_s"] + f.meta["predict_s"] for f in fits.values())
                 + results["replicates"]["fit_s"])
    n_fits = len(fits) + results["replicates"]["n_fits"]
    lines = report_head(spec, ". Its numbers are not comparable with the paper's; the paper "
                              "columns are omitted.")
    counts = results["data"]["test_class_counts"]
    lines += [
        f"Data: {d['n_train']} training and {d['n_test']} test cases, p = {d['p']} features, "
        f"G = {d['n_classes']} classes (test counts {counts}); tau_mu = {d['tau_mu']:g}, "
        f"tau_nu = {d['tau_nu']:g}, alpha_x = {d['alpha_x']:g}, w_x = {d['w_x']:g}. "
        f"Table 1 bins P(y = class {ev['event_class']}) (the paper's class 1).",
        "",
        "## Acceptance", "", acceptance_section(criteria), "",
        f"Wall time: {fit_total / 60:.1f} min of fitting and prediction summed over "
        f"{n_fits} fits ({results['replicates']['n_fits']} of them on replicate data sets); "
        f"this invocation fitted {run['n_fitted']} ({run['n_resumed']} "
        f"resumed from earlier runs) in {run['elapsed_s'] / 60:.1f} min with {run['backend']}, "
        f"and took {run.get('total_s', float('nan')) / 60:.1f} min in all, baselines and "
        "report included (the issue's target for a full run: under 60 min on 2 cores).",
        "",
        "## Table 1: reliability of P(y = class "
        f"{ev['event_class']})", "",
        "Per bin C (predictive probability in [C/10, (C+1)/10)): number of test cases, mean "
        "predicted probability and observed fraction; the paper's numbers beside ours.", "",
        _table1_md(spec, metrics), "",
    ]
    if pooled:
        lines += _pooled_md(spec, metrics, pooled)
    lines += ["## Fig 2: error, loss and AMLP against k", "",
              f"Average loss and expected loss: Bayes decisions under {ev['n_loss_matrices']} "
              f"random loss matrices with off-diagonal entries exp(N(0, {ev['loss_log_sd']:g}^2)),"
              " averaged. Error and expected error under 0-1 loss. AMLP in nats.", ""]
    keys = [(k, m) for k in [*ks, "all"] for m in METHODS if (k, m) in metrics]
    lines += [md_table(_METRIC_HEADERS, _metrics_rows(metrics, keys), digits=4), ""]
    if "fig2" in figures:
        lines += [f"![Fig 2]({figures['fig2']})", ""]
    lines += ["## Figures", ""]
    for key, caption in (("fig1", "Fig 1: predictive probabilities, corrected vs uncorrected"),
                         ("fig3", "Fig 3: traces of log tau_mu (true value marked)")):
        if key in figures:
            lines += [f"![{caption}]({figures[key]})", ""]
    rel = [f"[{name}]({name})" for key, name in figures.items() if key.startswith("reliability")]
    if rel:
        lines += ["Reliability diagrams: " + ", ".join(rel), ""]

    lines += ["## scikit-learn baselines on the same data", "",
              "; ".join(f"`{n}` = {BASELINES[n]}" for n in ev["baselines"])
              + f". Calibration: {ev['calibration_method']}, {ev['calibration_cv']} folds "
              "(selection refitted inside every fold). Same test cases and loss matrices.", ""]
    for k in [*ks, "all"]:
        keys = [(k, m) for m in (*METHODS, *ev["baselines"]) if (k, m) in metrics]
        if keys:
            lines += [f"**{'all features' if k == 'all' else f'k = {k}'}**", "",
                      md_table(_METRIC_HEADERS, _metrics_rows(metrics, keys), digits=4), ""]

    lines += ["## Sampler diagnostics", "",
              "R-hat and ESS (bulk, tail) of tau_mu; worst R-hat and smallest bulk ESS over "
              "tau_mu, tau_nu and every tau_x; divergent transitions; smallest energy BFMI.", ""]
    rows = []
    for fid, f in fits.items():
        g = f.meta["diagnostics"]
        rows.append([fid, f.meta["gamma"], g["rhat_tau_mu"], g["ess_bulk_tau_mu"],
                     g["ess_tail_tau_mu"], g["rhat_max"], g["ess_bulk_min"], g["n_divergent"],
                     g["bfmi_min"], g["ok"], f.meta["fit_s"], f.meta["predict_s"]])
    lines += [md_table(["fit", "gamma", "R-hat tau_mu", "ESS bulk", "ESS tail", "max R-hat",
                        "min ESS bulk", "divergences", "min BFMI", "all ok", "fit s",
                        "predict s"], rows), ""]
    rp = results["replicates"]
    if rp["n_fits"]:
        lines += [f"Replicate fits: {rp['n_fits']}, worst R-hat over all their tau_mu, tau_nu "
                  f"and tau_x {fmt(rp['rhat_max'])}, {rp['n_divergent']} divergent "
                  "transitions in total.", ""]
    failing = [(fid, f.meta["diagnostics"]["failures"]) for fid, f in fits.items()
               if f.meta["diagnostics"]["failures"]]
    for fid, fails in failing:
        lines += [f"- `{fid}`: " + "; ".join(fails)]
    if failing:
        lines += [""]

    lines += settings_section(results)
    return "\n".join(lines)
