"""Reproduction runner for binary naive Bayes with correlation selection (Li 2007, section 2.3.5).

Experiment type ``model = "naive_bayes"`` (see :mod:`selbayes.experiments` for the protocol). The
spec simulates one data set from the naive Bayes model with a fixed alpha, splits it into
balanced training and test sets, and fits, for every k, the classifier with and without the
selection correction, plus one fit on all p features, for each quadrature preset listed. The
report puts Table 2.1 beside the thesis' numbers, gives the error, expected error, AMLP and
squared error per k (Figs 2.5-2.6), the posterior of log alpha (Fig 2.7) and the train/test
correlation scatter (Fig 2.4), and checks the acceptance criteria of issue 7.

Probabilities are those of class 1 (the thesis' y = 1).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

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
)
from ._timing import fit_recording_warnings, timed_proba

__all__ = ["SCHEMA", "check_spec", "plan", "fit_settings", "fit_one", "load_data", "report"]

METHODS = ("corrected", "uncorrected", "no_selection")
QUADRATURES = ("accurate", "thesis")

SCHEMA: dict[str, dict[str, Field]] = {
    "data": {
        "simulator": Field("str", "simulator of selbayes.datasets",
                           default="binary_naive_bayes",
                           choices=("binary_naive_bayes",)),
        "p": Field("int", "number of binary features", minimum=2),
        "alpha": Field("float", "true alpha (fixed)", positive=True),
        "balanced": Field("bool", "equal class counts in training and test sets (the thesis' "
                          "100/100 and 1000/1000)", default=True),
    },
    "selection": {
        "statistic": Field("str", "feature score", default="abs_corr", choices=("abs_corr",)),
        "k": Field("list[int]", "numbers of features kept", minimum=1),
        "include_all": Field("bool", "also fit on all p features", default=True),
    },
    "priors": {
        "alpha_shape": Field("float", "a of alpha ~ InverseGamma(a, scale b)", default=0.5,
                             positive=True),
        "alpha_scale": Field("float", "b of alpha ~ InverseGamma(a, scale b)", default=5.0,
                             positive=True),
        "f0": Field("float", "psi ~ Beta(f1, f0)", default=1.0, positive=True),
        "f1": Field("float", "psi ~ Beta(f1, f0)", default=1.0, positive=True),
    },
    "fit": {
        "method": Field("str", "BinaryNaiveBayesClassifier method", default="quadrature",
                        choices=("quadrature", "mcmc")),
        "quadrature": Field("list[str]", "quadrature presets fitted; the first is the primary "
                            "one (acceptance, figures)", default=["accurate", "thesis"],
                            choices=QUADRATURES),
    },
    "evaluation": {
        "scatter_points": Field("int", "features drawn in Fig 2.4 (all top-ranked ones too)",
                                default=10000, minimum=1),
    },
    "acceptance": {
        "error_tol": Field("float", "corrected |expected - actual error| at most", default=0.03,
                           minimum=0.0),
        "uncorrected_k": Field("list[int]", "k values where the uncorrected expected error must "
                               "be below the actual error", default=[10, 100, 1000], minimum=1),
    },
}


def _label(k) -> str:
    return "all" if k == "all" else f"k{k}"


def _fit_id(q: str, k, method: str) -> str:
    return f"{q}-all" if k == "all" else f"{q}-{_label(k)}-{method}"


def check_spec(spec: Spec) -> None:
    """Cross-key checks: k < p, a non-empty plan, the shape of the reference tables."""
    where = str(spec.path)
    data, sel = spec["data"], spec["selection"]
    ks = sel["k"]
    check_k_list(where, ks, data["p"], sel["include_all"])
    qs = spec["fit"]["quadrature"]
    if not qs or len(set(qs)) != len(qs):
        raise SpecError(f"{where}: [fit] quadrature must list distinct presets; got {qs}")
    if spec["fit"]["method"] == "mcmc" and len(qs) != 1:
        raise SpecError(f"{where}: [fit] method 'mcmc' takes a single quadrature entry (unused)")
    if data["balanced"] and (data["n_train"] % 2 or data["n_test"] % 2):
        raise SpecError(f"{where}: [data] balanced needs even n_train and n_test")
    check_reliability_reference(where, spec["reference"].get("table21", {}), "table21", METHODS,
                                spec["evaluation"]["n_bins"])


def plan(spec: Spec) -> list[Task]:
    """For each quadrature preset: corrected and uncorrected fits per k, then all features."""
    return [task for q in spec["fit"]["quadrature"]
            for task in selection_tasks(spec, functools.partial(_fit_id, q),
                                        spec["selection"]["include_all"], quadrature=q)]


def fit_settings(spec: Spec) -> dict:
    """Everything that changes a fit (evaluation and acceptance settings do not)."""
    out = {"model": spec.model, "data": spec["data"],
           "selection": {"statistic": spec["selection"]["statistic"]},
           "priors": spec["priors"], "fit": {"method": spec["fit"]["method"]},
           "seeds": {k: spec["seeds"][k] for k in ("data", "split", "fit")}}
    if spec["fit"]["method"] == "mcmc":
        out["sampler"] = spec["sampler"]
    return out


# ---------------------------------------------------------------------------------------------
# data and fitting (run in worker processes)
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=2)
def _load_data_cached(key: str):
    from ..datasets._simulate import binary_naive_bayes

    s = json.loads(key)
    d, seeds = s["data"], s["seeds"]
    n = d["n_train"] + d["n_test"]
    if d["balanced"]:
        sim = binary_naive_bayes(None, d["p"], alpha=d["alpha"], class_counts=(n // 2, n // 2),
                                 random_state=seeds["data"])
        return sim.split(d["n_train"], stratify="y", random_state=seeds["split"])
    sim = binary_naive_bayes(n, d["p"], alpha=d["alpha"], random_state=seeds["data"])
    return sim.split(d["n_train"], random_state=seeds["split"])


def load_data(settings: dict):
    """(train, test) :class:`~selbayes.datasets.BinaryNaiveBayesData`, cached per
    process."""
    key = json.dumps({"data": settings["data"], "seeds": settings["seeds"]}, sort_keys=True)
    return _load_data_cached(key)


def fit_one(settings: dict, task: Task) -> TaskResult:
    """Fit one classifier of the plan and predict the test cases.

    Returns arrays ``proba`` (n_test,) = P(y* = 1), ``alpha_grid`` and ``log_alpha_weights``
    (K,) (quadrature) or ``alpha`` draws (mcmc), and ``selected`` (k,); metadata: gamma, ties,
    timings.
    """
    from ..estimators._naive_bayes import BinaryNaiveBayesClassifier

    train, test = load_data(settings)
    prm = task.params
    method = settings["fit"]["method"]
    s = settings.get("sampler", {})
    kwargs = {}
    if method == "mcmc":
        kwargs = dict(draws=s["draws"], tune=s["tune"], chains=s["chains"], sampler=s["name"],
                      target_accept=s["target_accept"], max_predict_draws=s["max_predict_draws"])
    clf = BinaryNaiveBayesClassifier(
        k=prm["k"], correct_selection=prm["corrected"], method=method,
        priors=dict(settings["priors"]), quadrature=prm["quadrature"], random_state=prm["seed"],
        progressbar=False, **kwargs)
    fit_s, messages = fit_recording_warnings(clf, train.X, train.y)
    proba, predict_s = timed_proba(clf, test.X)
    proba = proba[:, 1]
    arrays = {"proba": proba, "selected": np.asarray(clf.selection_.indices)}
    if method == "quadrature":
        arrays["alpha_grid"] = clf.quadrature_fit_.alpha_grid
        arrays["log_alpha_weights"] = clf.quadrature_fit_.log_alpha_weights
    else:
        arrays["alpha"] = clf.idata_.posterior["alpha"].transpose("chain", "draw").values
    sel = clf.selection_
    meta = {"k": prm["k"], "method": prm["method"], "quadrature": prm["quadrature"],
            "n_selected": int(sel.n_selected), "gamma": float(sel.threshold),
            "n_ties_at_threshold": int(sel.n_ties_at_threshold), "fit_s": fit_s,
            "predict_s": predict_s, "warnings": messages[:10], "selbayes_version": __version__}
    if method == "quadrature":
        meta["quadrature_settings"] = clf.quadrature_fit_.settings
    return TaskResult(task.id, arrays, meta)


# ---------------------------------------------------------------------------------------------
# evaluation (main process)
# ---------------------------------------------------------------------------------------------
def evaluate(p1, y, n_bins: int = 10) -> dict:
    """The thesis' measures (section 2.3.5) for P(y = 1) = ``p1`` and 0/1 outcomes ``y``."""
    from ..evaluation._calibration import reliability_table

    p1 = np.asarray(p1, dtype=np.float64)
    y = np.asarray(y)
    guess = p1 >= 0.5
    eps = 1e-300
    return {
        "error_rate": float(np.mean(guess != (y == 1))),
        "expected_error_rate": float(np.mean(np.where(guess, 1.0 - p1, p1))),
        "amlp": float(-np.mean(np.where(y == 1, np.log(np.maximum(p1, eps)),
                                        np.log(np.maximum(1.0 - p1, eps))))),
        "squared_error": float(np.mean((y - p1) ** 2)),
        "reliability": reliability_table(p1, y == 1, n_bins=n_bins),
    }


def _criteria(spec: Spec, metrics: dict, q: str) -> list[Criterion]:
    acc = spec["acceptance"]
    ks = spec["selection"]["k"]
    out = expected_error_criteria({k: metrics.get((q, k, "corrected")) for k in ks},
                                  acc["error_tol"])
    for k in acc["uncorrected_k"]:
        m = metrics.get((q, k, "uncorrected"))
        if m is None:
            out.append(Criterion("uncorrected: expected error below actual", f"k = {k}",
                                 "k not in this run", "expected < actual", None))
            continue
        out.append(Criterion("uncorrected: expected error below actual", f"k = {k}",
                             f"{m['expected_error_rate']:.4f} vs {m['error_rate']:.4f}",
                             "expected < actual",
                             m["expected_error_rate"] < m["error_rate"]))
    for k in ks:
        mc, mu = metrics.get((q, k, "corrected")), metrics.get((q, k, "uncorrected"))
        if mc is None or mu is None:
            continue
        out.append(Criterion("AMLP: corrected below uncorrected", f"k = {k}",
                             f"{mc['amlp']:.4f} vs {mu['amlp']:.4f}", "corrected < uncorrected",
                             mc["amlp"] < mu["amlp"]))
    return out


# ---------------------------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------------------------
def _log_alpha_density(f, prior: dict):
    """(log alpha nodes, density of log alpha) by the recipe of the thesis' Fig 2.7."""
    from scipy.stats import invgamma

    alpha = f.arrays["alpha_grid"]
    w = np.exp(f.arrays["log_alpha_weights"])
    dens = alpha.shape[0] * w * alpha * invgamma(prior["alpha_shape"],
                                                 scale=prior["alpha_scale"]).pdf(alpha)
    return np.log(alpha), dens


def _figures(spec: Spec, fits: dict, metrics: dict, q: str, train, test, out_dir: Path):
    from matplotlib.figure import Figure

    from ..filters._selection import abs_correlation

    files = {}
    ks = [k for k in spec["selection"]["k"] if (q, k, "corrected") in metrics]
    has_all = (q, "all", "no_selection") in metrics
    p = spec["data"]["p"]
    xs = [*ks, p] if has_all else ks

    # Fig 2.4: |COR| in training vs test set.
    tr = abs_correlation(train.X.astype(np.float64), train.y)
    te = abs_correlation(test.X.astype(np.float64), test.y)
    order = np.argsort(-tr, kind="stable")
    rng = np.random.default_rng(spec["seeds"]["loss"])
    n_pts = min(spec["evaluation"]["scatter_points"], p)
    show = np.union1d(rng.choice(p, n_pts, replace=False), order[:max(ks, default=1)])
    fig = Figure(figsize=(5.5, 5))
    ax = fig.subplots()
    ax.scatter(tr[show], te[show], s=3, alpha=0.4, color="k")
    for k in ks:
        ax.axvline(tr[order[k - 1]], ls=":", color="tab:red", lw=0.8)
    ax.set_xlabel("|COR| in the training set")
    ax.set_ylabel("|COR| in the test set")
    ax.set_title("Fig 2.4: training vs test correlation (lines: k-th ranked)")
    fig.tight_layout()
    fig.savefig(out_dir / "fig2_4_correlations.png", dpi=100)
    files["fig2_4"] = "fig2_4_correlations.png"

    if ks:
        def series(method, key):
            vals = [metrics[(q, k, method)][key] for k in ks]
            if has_all:
                vals.append(metrics[(q, "all", "no_selection")][key])
            return vals

        fig = Figure(figsize=(11, 3.8))
        axes = fig.subplots(1, 3)
        for method, color in (("corrected", "tab:blue"), ("uncorrected", "tab:orange")):
            axes[0].plot(xs, series(method, "error_rate"), "-o",
                         color=color, label=f"{method}: actual")
            axes[0].plot(xs, series(method, "expected_error_rate"), "--s", color=color,
                         label=f"{method}: expected")
            axes[1].plot(xs, series(method, "amlp"), "-o", color=color, label=method)
            axes[2].plot(xs, series(method, "squared_error"), "-o", color=color, label=method)
        for ax, title in zip(axes, ("Fig 2.5: error rate", "Fig 2.6: AMLP",
                                    "Fig 2.6: average squared error"), strict=True):
            ax.set_xscale("log")
            ax.set_xlabel("number of features used")
            ax.set_title(title)
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out_dir / "fig2_5_6_error_amlp.png", dpi=100)
        files["fig2_5_6"] = "fig2_5_6_error_amlp.png"

    if ks and "alpha_grid" in next(iter(fits.values())).arrays:
        ncol = min(2, len(ks))
        nrow = int(np.ceil(len(ks) / ncol))
        fig = Figure(figsize=(5.5 * ncol, 3.6 * nrow))
        axes = np.atleast_1d(fig.subplots(nrow, ncol)).ravel()
        true = np.log(spec["data"]["alpha"])
        for ax, k in zip(axes, ks, strict=False):
            for fid, style, lab in ((_fit_id(q, "all", ""), "-", f"all {p} features"),
                                    (_fit_id(q, k, "corrected"), "--", "corrected"),
                                    (_fit_id(q, k, "uncorrected"), ":", "uncorrected")):
                if fid in fits:
                    x, dens = _log_alpha_density(fits[fid], spec["priors"])
                    ax.plot(x, dens, style, marker=".", ms=3, label=lab)
            ax.axvline(true, color="k", lw=0.8)
            ax.set_xlim(0, 10)
            ax.set_xlabel("log alpha")
            ax.set_ylabel("posterior density")
            ax.set_title(f"k = {k}")
            ax.legend(fontsize=7)
        for ax in axes[len(ks):]:
            ax.set_visible(False)
        fig.suptitle(f"Fig 2.7: posterior of log alpha (true {true:.2f}); {q} quadrature")
        fig.tight_layout()
        fig.savefig(out_dir / "fig2_7_log_alpha.png", dpi=100)
        files["fig2_7"] = "fig2_7_log_alpha.png"
    return files


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------
def _table21_md(spec: Spec, metrics: dict, q: str) -> str:
    return reliability_section(spec, [*spec["selection"]["k"], "all"], METHODS,
                               lambda k, m: metrics.get((q, k, m)), "table21", "thesis")


_MEASURES = ("error_rate", "expected_error_rate", "amlp", "squared_error")


def _metrics_md(spec: Spec, metrics: dict, fits: dict, q: str) -> str:
    ref = {} if spec.quick else spec["reference"].get("measures", {})
    headers = ["k", "method", "gamma", "error", "expected error", "AMLP", "squared error",
               "thesis error", "thesis expected", "thesis AMLP", "thesis sq. error", "fit s"]
    rows = []
    for k in [*spec["selection"]["k"], "all"]:
        for m in METHODS:
            if (q, k, m) not in metrics:
                continue
            r = metrics[(q, k, m)]
            f = fits[_fit_id(q, k, m)]
            th = ref.get(_label(k), {}).get("no_selection" if k == "all" else m, {})
            rows.append([fmt(k), m, None if k == "all" else f.meta["gamma"],
                         *[r[c] for c in _MEASURES],
                         *[th.get(c) for c in _MEASURES], f.meta["fit_s"]])
    return md_table(headers, rows, digits=3)


def report(spec: Spec, fits: dict, out_dir: Path, run_info: dict) -> dict:
    """Evaluate every fit, draw the figures, write report.md and results.json."""
    out_dir = Path(out_dir)
    settings = fit_settings(spec)
    train, test = load_data(settings)
    y = np.asarray(test.y)
    n_bins = spec["evaluation"]["n_bins"]
    metrics = {}
    for f in fits.values():
        key = (f.meta["quadrature"], f.meta["k"], f.meta["method"])
        metrics[key] = evaluate(f.arrays["proba"], y, n_bins)
    primary = spec["fit"]["quadrature"][0]
    criteria = _criteria(spec, metrics, primary)
    figures = _figures(spec, fits, metrics, primary, train, test, out_dir)
    decided = [c for c in criteria if c.passed is not None]
    passed = bool(decided) and all(c.passed for c in decided)
    fit_versions = sorted({str(f.meta.get("selbayes_version", "")) for f in fits.values()} - {""})
    results = {
        "experiment": spec["experiment"], "spec_path": str(spec.path), "quick": spec.quick,
        "quick_overrides": spec.quick_overrides if spec.quick else {},
        "settings": {s: v for s, v in spec.sections.items() if s != "reference"},
        "settings_hash": settings_hash(fit_settings(spec)),
        "versions": versions(), "fit_versions": fit_versions,
        "run": run_record(run_info),
        "data": {"n_train": int(train.n_samples), "n_test": int(test.n_samples),
                 "p": int(test.n_features),
                 "train_class_counts": np.bincount(train.y, minlength=2).tolist(),
                 "test_class_counts": np.bincount(y, minlength=2).tolist()},
        "fits": {fid: f.meta for fid, f in fits.items()},
        "metrics": [{"quadrature": q, "k": k, "method": m,
                     **{c: v for c, v in row.items() if c != "reliability"},
                     "reliability": row["reliability"].to_dict(orient="list")}
                    for (q, k, m), row in metrics.items()],
        "primary_quadrature": primary,
        "acceptance": [c.to_dict() for c in criteria],
        "acceptance_passed": passed,
        "figures": figures,
        "reference": spec["reference"],
    }
    return write_outputs(out_dir, results, _report_md(spec, fits, metrics, criteria, figures,
                                                      results))


def _report_md(spec, fits, metrics, criteria, figures, results) -> str:
    d = spec["data"]
    primary = results["primary_quadrature"]
    run = results["run"]
    lines = report_head(spec, ". Its numbers are not comparable with the thesis'; the thesis "
                              "columns are omitted.")
    dd = results["data"]
    lines += [
        f"Data: {dd['n_train']} training cases (classes {dd['train_class_counts']}) and "
        f"{dd['n_test']} test cases (classes {dd['test_class_counts']}), p = {d['p']} binary "
        f"features, true alpha = {d['alpha']:g}. Fitting prior: alpha ~ InverseGamma("
        f"{spec['priors']['alpha_shape']:g}, scale {spec['priors']['alpha_scale']:g}), "
        f"psi ~ Beta({spec['priors']['f1']:g}, {spec['priors']['f0']:g}). "
        f"Method: {spec['fit']['method']}; quadrature presets {spec['fit']['quadrature']} "
        f"(acceptance, Table 2.1 and figures use `{primary}`).",
        "",
        "## Acceptance (issue 7)", "", acceptance_section(criteria), "",
        f"Wall time: this invocation fitted {run['n_fitted']} fits ({run['n_resumed']} resumed "
        f"from earlier runs) in {run['elapsed_s']:.1f} s with {run['backend']}; "
        f"{run.get('total_s', float('nan')):.1f} s in all, report included.",
        "",
        f"## Error, expected error, AMLP and squared error per k (`{primary}`)", "",
        "The thesis columns are derived from its Table 2.1 (its bins, computed here: exact "
        "up to the 3-decimal rounding for error and expected error; AMLP and squared error "
        "only for k = 1). gamma is the |COR| of the weakest retained feature.", "",
        _metrics_md(spec, metrics, fits, primary), "",
    ]
    if "fig2_5_6" in figures:
        lines += [f"![Figs 2.5-2.6]({figures['fig2_5_6']})", ""]
    for q in spec["fit"]["quadrature"][1:]:
        lines += [f"### The same with the `{q}` quadrature preset", "",
                  _metrics_md(spec, metrics, fits, q), ""]
    lines += [f"## Table 2.1: reliability of P(y = 1) (`{primary}`)", "",
              "Per bin C (predictive probability in [C/10, (C+1)/10)): number of test cases, mean "
              "predicted probability and observed fraction of class 1; the thesis' numbers "
              "beside ours (a different realisation of the same design: compare shapes, not "
              "individual counts).", "",
              _table21_md(spec, metrics, primary), ""]
    lines += ["## Figures", ""]
    for key, caption in (("fig2_7", "Fig 2.7: posterior density of log alpha"),
                         ("fig2_4", "Fig 2.4: |COR| in training vs test set")):
        if key in figures:
            lines += [f"![{caption}]({figures[key]})", ""]
    rows = [[fid, f.meta["gamma"], f.meta["n_ties_at_threshold"], f.meta["fit_s"],
             f.meta["predict_s"]] for fid, f in fits.items()]
    lines += ["## Fits", "", md_table(["fit", "gamma", "omitted ties at gamma", "fit s",
                                       "predict s"], rows), ""]
    lines += settings_section(results)
    return "\n".join(lines)
