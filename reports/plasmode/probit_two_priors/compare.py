"""The offline check of README.md (rule written before the run): ``probit_two_priors``
against the default on the stored fits of three run seeds.

Run from the repository root: ``python reports/plasmode/probit_two_priors/compare.py [jobs]``;
writes ``results.jsonl`` (one row per fit) and ``report.md``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script, SCENARIO_NAMES)
import paired  # noqa: E402  (reports/plasmode/paired.py: paired, read_rows)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: inner_folds)

PLASMODE = HERE.parent
SHARPENED = offline.load_script(PLASMODE / "probit_sharpened" / "compare.py",
                                "probit_sharpened_compare")
FITS = SHARPENED.FITS
HOLDOUT = ("holdout_sparse", "holdout_dense", "holdout_module")
NAME = "probit_two_priors"


def two_priors(X, y, Xt):
    """The candidate's log probabilities of ``Xt`` (m, 2), the posterior probability of the
    covariance prior, and the isotropic prior's log probabilities alone (the default's
    component, for the fold check). ``y`` class indices 0/1."""
    from scipy.special import logsumexp

    from selbayes.models._linear_probit import (
        LOG_S_GRID,
        fit_gram,
        gram_log_proba,
        standardise_features,
    )

    mean, sd, keep, Z = standardise_features(X)
    Zs = (np.asarray(Xt, float)[:, keep] - mean[keep]) / sd[keep]
    n, p = Z.shape
    G, Gs = Z @ Z.T / p, Zs @ Z.T / p
    kernels = {"iso": (G, Gs, (Zs ** 2).sum(axis=1) / p)}
    # the covariance prior: Z S Z' / p with S = Z'Z / n, never p x p
    Gc, Gcs, gcss = G @ G * p / n, Gs @ G * p / n, (Gs ** 2).sum(axis=1) * p / n
    scale = np.mean(np.diag(Gc)) / np.mean(np.diag(G))
    kernels["cov"] = (Gc / scale, Gcs / scale, gcss / scale)
    y_pm = 2.0 * np.asarray(y, float) - 1.0
    parts, evidence = {}, {}
    for name, (K, Ks, kss) in kernels.items():
        w, sites, evidence[name] = fit_gram(K, y_pm, return_log_evidence=True)
        parts[name] = gram_log_proba(K, Ks, kss, LOG_S_GRID, w, sites)
    log_w = np.array([evidence["iso"], evidence["cov"]])
    log_w -= logsumexp(log_w)
    mixed = logsumexp(np.stack([log_w[0] + parts["iso"], log_w[1] + parts["cov"]]), axis=0)
    return mixed, float(np.exp(log_w[1])), parts["iso"]


def two_priors_parts(X, yi, Xt, stored_inner_probit, random_state):
    """The two-prior probit component on one stored fit: its log probabilities of the inner
    cases, each fitted on the Gaussian model's inner training fold (re-made from
    ``random_state``), and of ``Xt`` fitted on all of ``X``. Returns (inner (n, 2), test
    (m, 2), P(covariance prior) on all of ``X``, its mean over the inner folds, the largest
    |isotropic part - ``stored_inner_probit``|: the fold check)."""
    inner, check, p_cov_inner = np.empty((yi.size, 2)), 0.0, []
    for tr, te in third_component.inner_folds(yi, random_state):
        mixed, p_cov, iso = two_priors(X[tr], yi[tr], X[te])
        inner[te] = mixed
        p_cov_inner.append(p_cov)
        check = max(check, float(np.max(np.abs(iso - stored_inner_probit[te]))))
    test, p_cov, _ = two_priors(X, yi, Xt)
    return inner, test, p_cov, float(np.mean(p_cov_inner)), check


def candidate_stack(X, yi, Xt, A, T, stored_inner_probit, random_state):
    """The candidate's stack on one stored fit: its probit component recomputed on the
    Gaussian model's inner folds (re-made from ``random_state``) and on all of ``X``
    (:func:`two_priors_parts`), the stack's own weights on (the stored Gaussian component
    ``A[0]``, it), the test cases' pool. ``A``, ``T``: the stored inner and test log
    probabilities, floored. Returns (pooled test log probabilities, weights, the candidate's
    test log probabilities alone, P(covariance prior) on all of ``X``, its mean over the inner
    folds, the fold check)."""
    from selbayes.estimators._linear_stack import _floored, _linear_pool, _weights_and_pool

    inner, test, p_cov, p_cov_inner, check = two_priors_parts(X, yi, Xt, stored_inner_probit,
                                                              random_state)
    w, _ = _weights_and_pool(np.stack([A[0], _floored(inner)]), yi, "linear")
    pooled = _linear_pool(np.stack([T[0], _floored(test)]), w)
    return pooled, w, test, p_cov, p_cov_inner, check


def stored_fit(seed: int, name: str, rep: int):
    """One stored fit of run seed ``seed`` (:data:`FITS`): its parts (``stored``, and the
    floored inner and test log probabilities ``A``, ``T`` with the inner cases' classes
    ``yi``) and its replicate's training and test X, (stored, A, yi, T, X, Xt)."""
    lp = offline.load_script(PLASMODE / "log_pool" / "run.py", "log_pool_run")
    stored, A, yi, T = SHARPENED.stored_parts(FITS[seed] / f"{name}_{rep}.npz")
    data, _ = lp.replicate(name, rep, seed)
    X, Xt = np.asarray(data["X_train"], float), np.asarray(data["X_test"], float)
    assert np.array_equal(np.searchsorted(np.unique(data["y_train"]), data["y_train"]), yi)
    return stored, A, yi, T, X, Xt


def candidate_row(seed: int, name: str, rep: int, default_row: dict) -> dict:
    """The candidate's scores on one stored fit (the default's where its gate opened)."""
    from selbayes.experiments.plasmode import calibration_scores

    base = {"scenario": name, "replicate": rep, "seed": seed, "method": NAME}
    if default_row.get("gate_open"):
        return SHARPENED.gate_open_row(default_row, base)
    stored, A, yi, T, X, Xt = stored_fit(seed, name, rep)
    pooled, w, test, p_cov, p_cov_inner, check = candidate_stack(
        X, yi, Xt, A, T, stored["inner"][1], seed + rep)
    s = calibration_scores(np.exp(pooled), stored["p_test"])
    alone = calibration_scores(np.exp(test), stored["p_test"])
    return {**s, **base, "p_cov": p_cov, "p_cov_inner_mean": p_cov_inner,
            "weights": w.tolist(), "default_weights": stored["weights"].tolist(),
            "fold_check": check, "probit_alone_kl": alone["kl"],
            "probit_alone_slope": alone["slope"]}


def rows(jobs: int = 2) -> dict:
    """(method, scenario, replicate) -> row for ``default``, the candidate and L2: the
    suite's replicates of seeds 0, 1, 7 numbered 0-5, 6-11, 12-17; the held-out scenarios
    (seed 0) 0-5, without L2."""
    from joblib import Parallel, delayed

    out = SHARPENED.default_rows(HOLDOUT)
    tasks = [(seed, s, r, 6 * i + r if s in offline.SCENARIO_NAMES else r)
             for i, seed in enumerate(FITS)
             for s in offline.SCENARIO_NAMES + (HOLDOUT if seed == 0 else ())
             for r in range(6)]
    done = Parallel(n_jobs=jobs)(delayed(candidate_row)(seed, s, r, out[("default", s, rep)])
                                 for seed, s, r, rep in tasks)
    for (_, s, _, rep), row in zip(tasks, done, strict=True):
        out[(NAME, s, rep)] = {**row, "replicate": rep}
    return out


def report_head(rows, name, note, extra_columns, check=None) -> list[str]:
    """The first lines of an offline check's report of candidate ``name`` against the default
    (``note`` after the rule's sentence; ``check``, a sentence, or by default the fold check
    over ``rows``), down to the table's heading, whose columns after the slopes are
    ``extra_columns``, (title, alignment such as "---:") each, and the point misses."""
    if check is None:
        checks = [r["fold_check"] for k, r in rows.items()
                  if k[0] == name and "fold_check" in r]
        check = (f"Inner folds re-made from each fit's seed: the isotropic prior's inner log "
                 f"probabilities against the stored ones, largest difference "
                 f"{max(checks):.1e}.")
    columns = [title for title, _ in extra_columns] + ["misses default / candidate"]
    return [f"# {name} against the default, offline (stored fits)", "",
            "Made by `compare.py`; README.md's rule, written before the run. Paired "
            f"differences candidate - default over replicates (* beyond 2 SE).{note}", "",
            check, "",
            "| scenario | n | KL default | KL candidate | difference | \\|e - a\\| default | "
            "\\|e - a\\| candidate | difference | slope default | slope candidate | "
            + " | ".join(columns) + " |",
            "|---|" + "---:|" * 9 + "".join(f"{a}|" for _, a in extra_columns) + "---|"]


def scenario_line(rows, name, s, n, misses, extra_cells, tally=None):
    """One scenario's row of :func:`report_head`'s table (``extra_cells`` after the slopes);
    ``misses`` (method -> count) gains the suite scenarios' point misses and ``tally``
    (:func:`new_tally`; None for a row outside the rule) the scenario where the paired
    difference candidate - default is beyond 2 SE."""
    ms = SHARPENED._ms
    d, se, _ = paired.paired(rows, name, "default", s, "kl")
    g, gse, _ = paired.paired(rows, name, "default", s, "abs_gap")
    get = {m: [rows[(m, s, r)] for r in range(n)] for m in ("default", name)}
    miss = "-"
    if s in offline.SCENARIO_NAMES:
        counts = {m: SHARPENED.point_misses(rows, m, s, n) for m in misses}
        for m in misses:
            misses[m] += counts[m]
        miss = f"{counts['default']} / {counts[name]}"
    star = "*" if abs(d) > 2 * se else ""
    gstar = "*" if abs(g) > 2 * gse else ""
    line = (f"| {s} | {n} | {ms([r['kl'] for r in get['default']])} | "
            f"{ms([r['kl'] for r in get[name]])} | {d:+.3f} ± {se:.3f}{star} | "
            f"{ms([r['abs_gap'] for r in get['default']])} | "
            f"{ms([r['abs_gap'] for r in get[name]])} | {g:+.3f} ± {gse:.3f}{gstar} | "
            f"{ms([r['slope'] for r in get['default']])} | "
            f"{ms([r['slope'] for r in get[name]])} | " + " | ".join(extra_cells)
            + f" | {miss} |")
    if tally is not None:
        (tally["worse"] if d > 2 * se else tally["better"] if d < -2 * se else []).append(s)
        if g > 2 * gse:
            tally["gap_worse"].append(s)
    return line


def l1_gate_opened(stored, A, default_row: dict) -> bool:
    """Whether the default's L1 gate opened on this stored fit (its row says so, or its
    stored L1 weight is above 0): there a two-model candidate is the default."""
    return bool(default_row.get("gate_open") or (A.shape[0] == 3 and stored["weights"][2] > 0))


def gate_open_pair(default_row: dict, row: dict) -> dict:
    """The row of a candidate scored with its default beside it where the default's L1 gate
    opened: the default's scores, for the candidate and under ``"default"``."""
    same = SHARPENED.gate_open_row(default_row, row)
    return {**same, "default": {k: same[k] for k in SHARPENED.SCORES if k in same}}


def pooled_scores(inner, test, yi, p_test) -> dict:
    """The two-model stack of one fit: its weights fitted on the inner cases' floored log
    probabilities ``inner`` (2, n, G) of classes ``yi``, its pool of the test cases' ``test``
    (2, m, G) scored against the true probabilities ``p_test``: the scores and the
    weights."""
    from selbayes.estimators._linear_stack import _linear_pool, _weights_and_pool
    from selbayes.experiments.plasmode import calibration_scores

    w, _ = _weights_and_pool(inner, yi, "linear")
    s = calibration_scores(np.exp(_linear_pool(test, w)), p_test)
    return {**{k: s[k] for k in SHARPENED.SCORES}, "weights": w.tolist()}


def recomputed_report(rows, name, columns, check, cells) -> str:
    """The report of a candidate ``name`` scored with its default recomputed beside it, over
    ``../probit_projected/compare.py``'s nineteen scenarios: :func:`report_head` (extra
    ``columns``, the ``check`` sentence), one :func:`scenario_line` per scenario whose extra
    cells are ``cells(fits)`` (the candidate's rows of that scenario, in replicate order),
    and the verdict."""
    pp = offline.load_script(PLASMODE / "probit_projected" / "compare.py",
                             "probit_projected_compare")
    lines = report_head(rows, name, " The default is recomputed beside the candidate "
                        "(README.md).", columns, check=check)
    tally, misses = new_tally(), {"default": 0, name: 0}
    for s in pp.scenario_keys():
        n = sum(1 for k in rows if k[0] == name and k[1] == s)
        fits = [rows[(name, s, r)] for r in range(n)]
        lines.append(scenario_line(rows, name, s, n, misses, cells(fits), tally))
    return "\n".join(lines + verdict_lines(tally, misses, name))


def with_recomputed_defaults(rows: dict, name: str) -> dict:
    """``rows`` with each fit's ``default`` row updated by the default that candidate
    ``name``'s row carries under ``"default"`` (recomputed beside it, so that the paired
    comparison is of the current code's default)."""
    out = dict(rows)
    for (m, s, r), row in rows.items():
        if m == name:
            out[("default", s, r)] = {**rows[("default", s, r)], **row["default"]}
    return out


def new_tally() -> dict:
    """The scenarios beyond 2 SE that README.md's rules count: KL worse, KL better,
    |expected - actual| worse."""
    return {"worse": [], "better": [], "gap_worse": []}


def verdict_lines(tally, misses, name) -> list[str]:
    """The verdict of README.md's rules 1-4 from :func:`scenario_line`'s counts."""
    return SHARPENED.verdict(tally["worse"], tally["better"], misses, name, extra=[
        ("|expected - actual| worse beyond 2 SE nowhere", not tally["gap_worse"],
         ", ".join(tally["gap_worse"]) or "none")])


def report(rows) -> str:
    lines = report_head(rows, NAME, "", [("P(cov prior) mean", "---:"),
                                         ("probit weight default → candidate", "---")])
    tally, misses = new_tally(), {"default": 0, NAME: 0}
    for s in offline.SCENARIO_NAMES + HOLDOUT:
        n = 18 if s in offline.SCENARIO_NAMES else 6
        get = {m: [rows[(m, s, r)] for r in range(n)] for m in misses}
        pc = [r["p_cov"] for r in get[NAME] if "p_cov" in r]
        wd = np.mean([r["weights"][1] for r in get["default"]])
        wc = np.mean([r["weights"][1] for r in get[NAME] if "p_cov" in r])
        lines.append(scenario_line(rows, NAME, s, n, misses,
                                   [f"{np.mean(pc):.2f}", f"{wd:.2f} → {wc:.2f}"], tally))
    return "\n".join(lines + verdict_lines(tally, misses, NAME))


def write_outputs(here, out, name, text) -> None:
    """An offline check's outputs in ``here``: the candidate ``name``'s rows of ``out`` as
    ``results.jsonl`` and ``text`` as ``report.md``."""
    with (here / "results.jsonl").open("w") as f:
        for key, row in sorted(out.items()):
            if key[0] == name:
                f.write(json.dumps(row) + "\n")
    offline.write_report(here, text)


def main(jobs: int = 2) -> None:
    out = rows(jobs)
    write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
