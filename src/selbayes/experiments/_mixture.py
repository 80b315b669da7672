"""Reproduction runner for the binary mixture model (Li 2007 section 2.4, Table 2.3).

Experiment type ``model = "mixture"`` (protocol: :mod:`selbayes.experiments`). One data set is
simulated from the two-component mixture (alpha = 300, P(y = 1 | z) = 0.1 / 0.9, equal z
counts in the training and test sets), and for every k the top-k features by |Cor(x, y)| are
kept and :class:`~selbayes.estimators.BinaryMixtureClassifier` is fitted with and
without the selection correction. The report puts the calibration table beside the thesis'
Table 2.3, compares actual and expected error rates and AMLP (Fig 2.13-2.14), and lists R-hat
and ESS of alpha.
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

METHODS = ("corrected", "uncorrected")

SCHEMA: dict[str, dict[str, Field]] = {
    "data": {
        "simulator": Field("str", "simulator of selbayes.datasets", default="binary_mixture",
                           choices=("binary_mixture",)),
        "p": Field("int", "number of binary features (response not counted)", minimum=2),
        "alpha": Field("float", "true feature concentration", positive=True),
        "phi0": Field("list[float]", "P(y = 1 | z = 0), P(y = 1 | z = 1)", minimum=0.0),
    },
    "selection": {
        "statistic": Field("str", "feature score", default="abs_corr", choices=("abs_corr",)),
        "k": Field("list[int]", "numbers of features kept", minimum=1),
    },
    "priors": {
        name: Field("float", f"MixturePrior.{name}", default=default, positive=True)
        for name, default in (("f0", 1.0), ("f1", 1.0), ("alpha_shape", 0.5),
                              ("alpha_scale", 5.0), ("alpha0_shape", 0.5),
                              ("alpha0_scale", 5.0))
    },
    "sampler": {
        "name": Field("str", "sampler: the collapsed Gibbs/slice sampler of models.mixture",
                      default="gibbs", choices=("gibbs",)),
        "thin": Field("int", "iterations per kept draw", default=1, minimum=1),
        "label_sweeps": Field("int", "Gibbs sweeps over z per iteration", default=1, minimum=1),
        "theta_steps": Field("int", "Metropolis steps per theta per iteration", default=5,
                             minimum=1),
        "z_update": Field("str", "exact (factor in the z-updates) or approximate",
                          default="exact", choices=("exact", "approximate")),
    },
    "acceptance": {
        "error_tol": Field("float", "corrected |expected - actual error| at most", default=0.03,
                           minimum=0.0),
        "uncorrected_gap": Field("float", "uncorrected actual - expected error at least",
                                 default=0.02, minimum=0.0),
        "uncorrected_gap_k": Field("list[int]", "k values of the uncorrected-gap check",
                                   default=[10, 100, 1000], minimum=1),
    },
}


def _label(k) -> str:
    return f"k{k}"


def check_spec(spec: Spec) -> None:
    """Cross-key checks: k < p, phi0, class design, reference tables."""
    where = str(spec.path)
    d, ks = spec["data"], spec["selection"]["k"]
    check_k_list(where, ks, d["p"])
    if len(d["phi0"]) != 2 or any(v > 1 for v in d["phi0"]):
        raise SpecError(f"{where}: [data] phi0 must be two probabilities; got {d['phi0']}")
    for key in ("n_train", "n_test"):
        if d[key] % 2:
            raise SpecError(f"{where}: [data] {key} must be even (equal z counts)")
    check_reliability_reference(where, spec["reference"].get("table23", {}), "table23", METHODS,
                                spec["evaluation"]["n_bins"])


def plan(spec: Spec) -> list[Task]:
    """Corrected and uncorrected fits for each k."""
    return selection_tasks(spec, lambda k, m: f"{_label(k)}-{m}", include_all=False)


def fit_settings(spec: Spec) -> dict:
    """Everything that changes a fit (evaluation, acceptance and reference do not)."""
    return {"model": spec.model, "data": spec["data"], "selection":
            {"statistic": spec["selection"]["statistic"]}, "priors": spec["priors"],
            "sampler": spec["sampler"],
            "seeds": {k: spec["seeds"][k] for k in ("data", "split", "fit")}}


@functools.lru_cache(maxsize=2)
def _load_data_cached(key: str):
    from ..datasets._simulate import binary_mixture

    s = json.loads(key)
    d, seeds = s["data"], s["seeds"]
    half = (d["n_train"] + d["n_test"]) // 2
    sim = binary_mixture(None, d["p"], alpha=d["alpha"], phi0=tuple(d["phi0"]),
                         class_counts=np.array([half, half]), random_state=seeds["data"])
    return sim.split(d["n_train"], stratify="z", random_state=seeds["split"])


def load_data(settings: dict):
    """(train, test) :class:`~selbayes.datasets.BinaryMixtureData`, cached per process."""
    key = json.dumps({"data": settings["data"], "seeds": settings["seeds"]}, sort_keys=True)
    return _load_data_cached(key)


def fit_one(settings: dict, task: Task) -> TaskResult:
    """Fit one classifier and predict the test cases (arrays: proba, alpha, zy_agreement)."""
    from ..estimators._mixture import BinaryMixtureClassifier

    train, test = load_data(settings)
    s, prm = settings["sampler"], task.params
    clf = BinaryMixtureClassifier(
        k=prm["k"], correct_selection=prm["corrected"], z_update=s["z_update"],
        priors=dict(settings["priors"]), draws=s["draws"], tune=s["tune"], chains=s["chains"],
        thin=s["thin"], label_sweeps=s["label_sweeps"], theta_steps=s["theta_steps"],
        max_predict_draws=s["max_predict_draws"], random_state=prm["seed"], progressbar=False)
    fit_s, messages = fit_recording_warnings(clf, train.X, train.y)
    proba, predict_s = timed_proba(clf, test.X)
    post = clf.idata_.posterior
    tab = clf.diagnostics_.set_index("variable")
    diag = {f"{stat}_{v}": float(tab.loc[v, stat]) for v in ("alpha", "alpha0")
            for stat in ("rhat", "ess_bulk", "ess_tail")}
    meta = {"k": prm["k"], "method": prm["method"], "gamma": float(clf.selection_.threshold),
            "fit_s": fit_s, "predict_s": predict_s, "diagnostics": diag,
            "kernels_built": clf.idata_.attrs.get("adjustment_kernels_built"),
            # theta's acceptance rate exists for the samplers with a Metropolis or NUTS step
            # for theta; the default compiled slice step records its evaluations instead
            **{name: float(clf.idata_["sample_stats"][name].mean())
               for name in ("theta_accept", "slice_evals")
               if name in clf.idata_["sample_stats"]},
            "warnings": messages[:10],
            "selbayes_version": __version__}
    arrays = {"proba": proba, "alpha": post["alpha"].values,
              "zy_agreement": post["zy_agreement"].values,
              "selected": np.asarray(clf.selection_.indices)}
    return TaskResult(task.id, arrays, meta)


# ---------------------------------------------------------------------------------------------
# evaluation and report
# ---------------------------------------------------------------------------------------------
def _evaluate(proba, y, n_bins) -> dict:
    from ..evaluation._calibration import calibration_summary, reliability_table

    summary = calibration_summary(proba, y, n_bins=n_bins)
    return {**{c: summary[c] for c in ("error_rate", "expected_error_rate", "amlp", "brier")},
            "reliability": reliability_table(proba[:, 1], y == 1, n_bins=n_bins)}


def _criteria(spec, metrics) -> list[Criterion]:
    acc, ks = spec["acceptance"], spec["selection"]["k"]
    out = expected_error_criteria({k: metrics.get((k, "corrected")) for k in ks},
                                  acc["error_tol"])
    for k in acc["uncorrected_gap_k"]:
        m = metrics.get((k, "uncorrected"))
        if m is None:
            out.append(Criterion("uncorrected: expected error below actual (overconfident)",
                                 f"k = {k}", "k not in this run",
                                 f">= {acc['uncorrected_gap']:g}", None))
            continue
        gap = m["error_rate"] - m["expected_error_rate"]
        out.append(Criterion("uncorrected: expected error below actual (overconfident)",
                             f"k = {k}", f"{gap:.4f}", f">= {acc['uncorrected_gap']:g}",
                             gap >= acc["uncorrected_gap"]))
    for k in ks:
        mc, mu = metrics.get((k, "corrected")), metrics.get((k, "uncorrected"))
        if mc is not None and mu is not None:
            out.append(Criterion("AMLP: corrected below uncorrected", f"k = {k}",
                                 f"{mc['amlp']:.4f} vs {mu['amlp']:.4f}",
                                 "corrected < uncorrected", mc["amlp"] < mu["amlp"]))
    return out


def _table_md(spec, metrics) -> str:
    return reliability_section(spec, spec["selection"]["k"], METHODS,
                               lambda k, m: metrics.get((k, m)), "table23", "thesis")


def _figure(spec, metrics, fits, out_dir) -> dict:
    from matplotlib.figure import Figure

    ks = [k for k in spec["selection"]["k"] if all((k, m) in metrics for m in METHODS)]
    if not ks:
        return {}
    fig = Figure(figsize=(13, 3.8))
    ax = fig.subplots(1, 3)
    for m, style in (("corrected", "-"), ("uncorrected", ":")):
        ax[0].plot(ks, [metrics[(k, m)]["error_rate"] for k in ks], "k" + style, marker="o",
                   label=f"{m} actual")
        ax[0].plot(ks, [metrics[(k, m)]["expected_error_rate"] for k in ks], "r" + style,
                   marker="s", label=f"{m} expected")
        ax[1].plot(ks, [metrics[(k, m)]["amlp"] for k in ks], style, marker="o", label=m)
        for k in ks:
            a = fits[f"{_label(k)}-{m}"].arrays["alpha"]
            ax[2].plot([k] * 3, np.quantile(np.log(a), [0.05, 0.5, 0.95]), style, marker="_",
                       color="C0" if m == "corrected" else "C1")
    ax[2].axhline(np.log(spec["data"]["alpha"]), color="k", lw=0.8)
    for a, t in zip(ax, ("Fig 2.13: error rates", "Fig 2.14: AMLP",
                         "log alpha: 5/50/95% (true marked)"), strict=True):
        a.set_xscale("log")
        a.set_xlabel("k")
        a.set_title(t)
    ax[0].legend(fontsize=7)
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(Path(out_dir) / "fig_errors_amlp_alpha.png", dpi=100)
    return {"fig": "fig_errors_amlp_alpha.png"}


def report(spec: Spec, fits: dict, out_dir: Path, run_info: dict) -> dict:
    """Evaluate every fit, write report.md, results.json and the figure."""
    out_dir = Path(out_dir)
    settings = fit_settings(spec)
    train, test = load_data(settings)
    y = test.y
    n_bins = spec["evaluation"]["n_bins"]
    metrics = {(f.meta["k"], f.meta["method"]): {**_evaluate(f.arrays["proba"], y, n_bins),
                                                 "train_s": f.meta["fit_s"]}
               for f in fits.values()}
    criteria = _criteria(spec, metrics)
    figures = _figure(spec, metrics, fits, out_dir)
    decided = [c for c in criteria if c.passed is not None]
    passed = bool(decided) and all(c.passed for c in decided)
    results = {
        "experiment": spec["experiment"], "spec_path": str(spec.path), "quick": spec.quick,
        "settings": {s: v for s, v in spec.sections.items() if s != "reference"},
        "settings_hash": settings_hash(settings), "versions": versions(),
        "run": run_record(run_info),
        "data": {"n_train": int(train.n_samples), "n_test": int(test.n_samples),
                 "p": int(test.n_features), "test_y1": int(y.sum())},
        "fits": {fid: {**f.meta, "posterior_median_log_alpha":
                       float(np.median(np.log(f.arrays["alpha"]))),
                       "mean_zy_agreement": float(f.arrays["zy_agreement"].mean())}
                 for fid, f in fits.items()},
        "metrics": [{"k": k, "method": m, **{c: v for c, v in row.items() if c != "reliability"},
                     "reliability": row["reliability"].to_dict(orient="list")}
                    for (k, m), row in metrics.items()],
        "acceptance": [c.to_dict() for c in criteria], "acceptance_passed": passed,
        "figures": figures, "reference": spec["reference"],
    }
    return write_outputs(out_dir, results, _report_md(spec, fits, metrics, criteria, figures,
                                                      results))


def _report_md(spec, fits, metrics, criteria, figures, results) -> str:
    d, s = spec["data"], spec["sampler"]
    fit_total = sum(f.meta["fit_s"] + f.meta["predict_s"] for f in fits.values())
    lines = report_head(spec, "; not comparable with the thesis (its columns are omitted).")
    lines += [f"Data: {d['n_train']} training / {d['n_test']} test cases (equal z counts), "
              f"p = {d['p']}, alpha = {d['alpha']:g}, phi0 = {d['phi0']}; "
              f"{results['data']['test_y1']} test cases have y = 1. Sampler: {s['chains']} "
              f"chains x {s['draws']} draws (thin {s['thin']}) after {s['tune']} warm-up "
              f"iterations; z_update = {s['z_update']}.", "",
              "## Acceptance", "", acceptance_section(criteria), "",
              f"Fitting and prediction: {fit_total / 60:.1f} min summed over {len(fits)} fits.",
              "", "## Error rates and AMLP (Fig 2.13, 2.14)", ""]
    ks = spec["selection"]["k"]
    rows = [[k, m, metrics[(k, m)]["error_rate"], metrics[(k, m)]["expected_error_rate"],
             metrics[(k, m)]["amlp"], metrics[(k, m)]["brier"], metrics[(k, m)]["train_s"]]
            for k in ks for m in METHODS if (k, m) in metrics]
    lines += [md_table(["k", "method", "error", "expected error", "AMLP", "Brier", "fit s"],
                       rows, digits=4), ""]
    ref = spec["reference"].get("derived_errors", {})
    if ref and not spec.quick:
        lines += ["Thesis (computed here from its Table 2.3): "
                  + "; ".join(f"k = {k}: error {v[0]:.3f}/{v[1]:.3f}, expected "
                              f"{v[2]:.3f}/{v[3]:.3f} (corrected/uncorrected)"
                              for k, v in ref.items() if isinstance(v, list)), ""]
    if "fig" in figures:
        lines += [f"![errors, AMLP, alpha]({figures['fig']})", ""]
    lines += ["## Table 2.3: calibration of P(y = 1)", "",
              "Bin C holds predictive probabilities in [C/10, (C+1)/10).", "",
              _table_md(spec, metrics), "", "## Sampler diagnostics", "",
              "R-hat (rank-normalised split) and bulk/tail ESS of alpha and alpha0 over all "
              "chains; posterior median of log alpha (true "
              f"{np.log(d['alpha']):.2f}); mean label-invariant agreement of z with y.", ""]
    rows = []
    for fid, f in fits.items():
        g = f.meta["diagnostics"]
        rows.append([fid, f.meta["gamma"], g["rhat_alpha"], g["ess_bulk_alpha"],
                     g["ess_tail_alpha"], g["rhat_alpha0"], g["ess_bulk_alpha0"],
                     results["fits"][fid]["posterior_median_log_alpha"],
                     results["fits"][fid]["mean_zy_agreement"], f.meta["kernels_built"],
                     f.meta["fit_s"]])
    lines += [md_table(["fit", "gamma", "R-hat alpha", "ESS bulk", "ESS tail", "R-hat alpha0",
                        "ESS bulk alpha0", "median log alpha", "z~y agreement",
                        "kernels built", "fit s"], rows), ""]
    lines += settings_section(results)
    return "\n".join(lines)

