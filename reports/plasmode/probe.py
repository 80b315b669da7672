"""The plumbing of the probes that run the default and its peers on scenarios the suite never
had (``imbalance_probe/``, ``small_n_probe/``): each probe's ``run.py`` names its scenarios,
methods, replicates and rule and calls :func:`main` (the folder's scripts put this folder on
``sys.path`` and import it).

Each fit is scored against the true class probabilities with the suite's
``selbayes.experiments.plasmode.calibration_scores`` (KL, |expected - actual error|, the
calibration slope) and calibration in the large, the mean over test cases of (predicted -
true) P(class 1). The report gives means ± SE over replicates and, for the default, paired
differences (``paired.py``) to L2 logistic regression in the table and to the probe's other
references below it; a finding is a difference beyond 2 SE that the probe's rule names.
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import numpy as np
import paired

DEFAULT, L2 = "selbayes", "logreg_l2_cv"
METRICS = [("kl", "KL (nats)"), ("abs_gap", "|expected - actual|"), ("slope", "slope"),
           ("in_the_large", "mean (predicted - true) P(1)")]


def stack_summary(est) -> dict:
    """A stack's weights, its Gaussian model's k and label-noise share and whether its L1
    gate opened (empty for other methods)."""
    if not hasattr(est, "weights_"):
        return {}
    gauss = est.estimator_
    return {"weights": [float(w) for w in est.weights_], "k": int(gauss.k_),
            "label_noise": float(gauss.label_noise_),
            "l1_gate_open": bool((getattr(est, "l1_gate_", None) or {}).get("open", False))}


def fit_one(scenario, method: str, rep: int, data_seed: int, store=None, X_real=None) -> dict:
    """Fit ``method`` (a name of ``selbayes.benchmark.METHODS``, estimator seed ``rep``) to
    replicate ``rep`` of ``scenario`` (data seed ``data_seed + 1000 rep``) and score it.
    With ``store`` (a folder), a stack's components are saved there as
    ``{scenario}_{rep}.npz`` (:func:`store_components`), so that a later check of another
    pool or component needs no refit. ``X_real``: a plasmode scenario's X when it is not
    its data set's whole standardised X (``make_replicate``'s argument)."""
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores, make_replicate

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    data = make_replicate(scenario, data_seed + 1000 * rep, X_real=X_real)
    est = make_method(method, 2, random_state=rep)
    est.fit(data["X_train"], data["y_train"])
    proba = est.predict_proba(data["X_test"])
    if store is not None and hasattr(est, "inner_log_proba_"):
        store_components(est, data, Path(store) / f"{scenario.name}_{rep}.npz")
    out = calibration_scores(proba, data["p_test"])
    out.update(method=method, scenario=scenario.name, replicate=rep,
               in_the_large=float(np.mean(proba[:, 1] - data["p_test"][:, 1])),
               train_share=float(data["y_train"].mean()),
               seconds=round(time.perf_counter() - t0, 1))
    if hasattr(est, "k_"):                     # the Gaussian model's k, the stack's weights
        out["k"] = int(est.k_)
    if hasattr(est, "weights_"):
        out["weights"] = [float(w) for w in est.weights_]
    return out


def bayes_optimal_proba(scenario, data) -> np.ndarray:
    """The class probabilities (n_test, 2) of a simulation replicate's test cases under the
    scenario's Bayes-optimal predictive (``selbayes.experiments.plasmode``'s
    ``bayes_optimal_log_odds``, given the replicate's training cases)."""
    from selbayes.experiments.plasmode import bayes_optimal_log_odds

    z = bayes_optimal_log_odds(scenario, data["X_train"], data["y_train"], data["X_test"])
    p1 = 1 / (1 + np.exp(-z))
    return np.c_[1 - p1, p1]


def part_rows(base: dict, probas: dict, p_test,
              scores=("kl", "expected_error", "actual_error", "slope")) -> list[dict]:
    """One row per part (``probas``: name -> predicted probabilities of the test cases)
    with ``base``'s fields and the part's ``scores`` against the true ``p_test``."""
    from selbayes.experiments.plasmode import calibration_scores

    rows = []
    for part, proba in probas.items():
        s = calibration_scores(proba, p_test)
        rows.append({**base, "part": part, **{key: s[key] for key in scores}})
    return rows


def store_components(est, data, path: Path):
    """Save a fitted ``LinearStackedClassifier``'s components to ``path`` (npz; the layout
    every stored fit of this folder has, ``sharpened_pool/fits/`` and the rest): ``inner``
    (C, n, G) the inner test cases' log probabilities its weights were fitted on, ``y_inner``
    their class indices, ``test`` (C, m, G) the test cases' (C = 2, or 3 where the stack has
    the L1 model), ``p_test`` the true probabilities, ``weights`` (C,). Returns (inner, test,
    y_inner)."""
    y = np.searchsorted(est.classes_, data["y_train"])
    # the inner cases as the stack indexes them (all, or without a class of one case)
    cases = est.estimator_.k_choice_.extra.get("cases")
    y_inner = y if cases is None else np.unique(y[cases], return_inverse=True)[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = np.stack(est._component_log_probas(data["X_test"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, inner=est.inner_log_proba_, y_inner=y_inner, test=test,
                        p_test=data["p_test"], weights=est.weights_)
    return est.inner_log_proba_, test, y_inner


def _of(n: int, replicates: int) -> str:
    """Where a paired difference covers fewer replicates than the run (``paired.py`` drops a
    replicate whose difference is not finite, e.g. a KL of inf), say how many."""
    return "" if n == replicates else f", {n} of {replicates} replicates"


def _mean_se(x):
    x = np.asarray(x, float)
    return x.mean(), x.std(ddof=1) / np.sqrt(x.size)


def report(rows: dict, *, title: str, scenarios, methods, replicates: int, no_finding: str,
           also_against: tuple = ()) -> str:
    """The probe's report: a table per scenario (the default's cells with its paired
    difference to L2), its paired KL differences to each method of ``also_against``, and the
    verdict. Findings: the default worse than L2 beyond 2 SE in KL or |expected - actual|,
    worse than a method of ``also_against`` beyond 2 SE in KL, or its calibration in the large
    beyond 2 SE from 0 where L2's is not."""
    lines = [f"# {title}", "",
             "Made by `run.py`; the rule is README.md's, written before the run. Means over "
             f"{replicates} replicates ± SE over replicates; for the default also the paired "
             f"difference to `{L2}` (* beyond 2 SE).", ""]
    findings = []
    for name in scenarios:
        lines += [f"## {name}", "", "| method | " + " | ".join(m[1] for m in METRICS) + " |",
                  "|---|" + "---|" * len(METRICS)]
        for method in methods:
            cells = []
            for key, _ in METRICS:
                m, se = _mean_se([rows[(method, name, r)][key] for r in range(replicates)])
                cell = f"{m:+.3f} ± {se:.3f}" if key == "in_the_large" else f"{m:.3f} ± {se:.3f}"
                if method == DEFAULT and key != "in_the_large":
                    dm, dse, n = paired.paired(rows, DEFAULT, L2, name, key)
                    star = "*" if abs(dm) > 2 * dse else ""
                    cell += f" ({dm:+.3f} ± {dse:.3f}{star}{_of(n, replicates)})"
                    if key in ("kl", "abs_gap") and dm > 2 * dse:
                        findings.append(f"{name}: {key} worse than L2 by {dm:.3f} ± {dse:.3f}"
                                        f"{_of(n, replicates)}")
                cells.append(cell)
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
        big = {}
        for method in (DEFAULT, L2):
            m, se = _mean_se([rows[(method, name, r)]["in_the_large"]
                              for r in range(replicates)])
            big[method] = abs(m) > 2 * se
        if big[DEFAULT] and not big[L2]:
            findings.append(f"{name}: calibration in the large beyond 2 SE from 0 (L2's not)")
        if also_against:
            parts = []
            for other in also_against:
                dm, dse, n = paired.paired(rows, DEFAULT, other, name, "kl")
                star = "*" if abs(dm) > 2 * dse else ""
                parts.append(f"`{other}` {dm:+.3f} ± {dse:.3f}{star}{_of(n, replicates)}")
                if dm > 2 * dse:
                    findings.append(f"{name}: KL worse than {other} by {dm:.3f} ± {dse:.3f}"
                                    f"{_of(n, replicates)}")
            lines += ["", "The default's KL minus: " + "; ".join(parts) + "."]
        lines.append("")
    lines += ["## Verdict (README.md's rule)", ""]
    lines += [f"- finding: {f}" for f in findings] if findings else [no_finding]
    seconds = {m: np.mean([rows[k]["seconds"] for k in rows if k[0] == m]) for m in methods}
    lines += ["", "Mean seconds per fit: " + ", ".join(f"{m} {s:.0f}"
                                                       for m, s in seconds.items()), ""]
    return "\n".join(lines)


def against_reference(rows, names, reference: str, replicates: int, *, what: str,
                      no_finding: str) -> list[str]:
    """The verdict of a check whose rule is "the default's paired KL or |expected - actual|
    worse than ``reference``'s beyond 2 SE in a scenario of ``names`` is a finding": a table
    of both differences and each method's k per replicate (``what`` names the reference in
    the findings), then the findings or ``no_finding``."""
    findings = []
    lines = ["", f"## Verdict of README.md's rule (the default against `{reference}`)", "",
             "| scenario | KL difference | \\|e - a\\| difference | k default (per replicate) "
             f"| k {what} |", "|---|---:|---:|---|---|"]
    for s in names:
        cells = []
        for key in ("kl", "abs_gap"):
            d, se, _ = paired.paired(rows, DEFAULT, reference, s, key)
            cells.append(f"{d:+.4f} ± {se:.4f}" + ("*" if abs(d) > 2 * se else ""))
            if d > 2 * se:
                findings.append(f"{s}: {key} worse than the {what} by {d:.4f} ± {se:.4f}")
        ks = [", ".join(str(rows[(m, s, r)]["k"]) for r in range(replicates))
              for m in (DEFAULT, reference)]
        lines.append(f"| {s} | {cells[0]} | {cells[1]} | {ks[0]} | {ks[1]} |")
    lines += [""] + ([f"- finding: {f}" for f in findings] if findings else [no_finding])
    return lines + [""]


def fit_missing(path: Path, tasks, fit, jobs: int = 2) -> dict:
    """Run ``fit(*task)`` for each of ``tasks`` in ``jobs`` processes, appending each result
    (a dict with ``method``, ``scenario``, ``replicate`` and ``seconds``) to ``path`` as one
    JSON line as soon as it ends, so that an interrupted run resumes (callers pass the tasks
    whose rows ``path`` lacks); returns every row of ``path``."""
    from joblib import Parallel, delayed

    for out in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(fit)(*task) for task in tasks):
        with path.open("a") as f:
            f.write(json.dumps(out) + "\n")
        print(out["method"], out["scenario"], out["replicate"], out["seconds"], flush=True)
    return paired.read_rows(path) if path.exists() else {}


def main(here: Path, scenarios: dict, methods, *, replicates: int, data_seed: int,
         jobs: int = 2, store_fits: bool = False, x_real=None, **report_args) -> None:
    """Fit every (method, scenario, replicate) not yet in ``here/results.jsonl`` (one line per
    fit, appended as each ends, so a run resumes), then write ``here/report.md`` (not without
    ``report_args``: a run that only stores fits for an offline check, whose verdict is that
    check's); with ``store_fits``, the default's stack components go to ``here/fits/``;
    ``x_real`` maps a scenario's name to its X where it is not the data set's whole X."""
    path = here / "results.jsonl"
    rows = paired.read_rows(path) if path.exists() else {}
    todo = [(scenarios[s], m, r, data_seed,
             here / "fits" if store_fits and m == DEFAULT else None, (x_real or {}).get(s))
            for s in scenarios for r in range(replicates) for m in methods
            if (m, s, r) not in rows]
    rows = fit_missing(path, todo, fit_one, jobs)
    if report_args:
        (here / "report.md").write_text(report(rows, scenarios=list(scenarios),
                                               methods=methods, replicates=replicates,
                                               **report_args))


def main_against(here: Path, scenarios: dict, reference: str, *, replicates: int,
                 data_seed: int, title: str, what: str, no_finding: str, jobs: int = 2,
                 x_real=None) -> str:
    """A check of the default against one ``reference`` method (L2 logistic regression
    beside them): fit what is missing (:func:`main`), write the probe's report and append
    :func:`against_reference`'s verdict to it; returns the report."""
    main(here, scenarios, (DEFAULT, reference, L2), replicates=replicates,
         data_seed=data_seed, jobs=jobs, x_real=x_real, title=title,
         no_finding="No finding by the probe's own rule (reported, not this check's).",
         also_against=(reference,))
    rows = paired.read_rows(here / "results.jsonl")
    verdict = against_reference(rows, list(scenarios), reference, replicates, what=what,
                                no_finding=no_finding)
    report = here / "report.md"
    report.write_text(report.read_text() + "\n".join(verdict))
    return report.read_text()

