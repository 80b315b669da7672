"""README.md's check (rule written before the run): the stack's weights fitted with the
Gaussian model's inner predictive at each inner fold's own choice (``inner_choice=
"per_fold"``) against the choice on all inner cases (the default), on ``../probit_projected/``'s
stored fits.

Run from the repository root: ``python reports/plasmode/per_fold_choice/compare.py [jobs]``;
writes ``results.jsonl`` (one row per fit) and ``report.md``; with ``--report-only``, remakes
``report.md`` from ``results.jsonl`` (no refits).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: inner_folds)

PP = offline.load_script(HERE.parent / "probit_projected" / "compare.py",
                         "probit_projected_compare")
TWO = PP.TWO
NAME = "per_fold_choice"


def inner_choices(X, yi, random_state):
    """The current default's inner cross-validation on (X, yi) (the plug-in fit: the k
    search is the MCMC fit's) and its settings per inner fold, (k, c), chosen on all inner
    cases (the default) and on each fold's other cases (the candidate); and whether its
    folds are the stored fit's (re-made from ``random_state``)."""
    import warnings

    from selbayes.benchmark._methods import selbayes_default

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plug = selbayes_default(random_state, method="plugin").fit(X, yi)
    ch = plug.k_choice_
    folds = ch.extra["folds"]
    same = all(np.array_equal(a, b) for (_, a), (_, b)
               in zip(folds, third_component.inner_folds(yi, random_state), strict=True))
    everywhere = [(int(plug.k_), ch.extra.get("label_noise_c"))] * len(folds)
    per_fold = [(int(ch.grid[row][0]), c) for row, c in ch._fold_choices()]
    return plug, everywhere, per_fold, same


def refitted(X, yi, folds, settings, into, random_state):
    """``into`` (n, G) with the cases of each of ``folds`` replaced by the default's MCMC
    refit (its light inner sampler) on that fold's training part at that fold's
    ``settings``: the package's own ``_refitted_inner_log_proba``, floored as the stack
    floors."""
    from selbayes.benchmark._methods import selbayes_default
    from selbayes.estimators._linear_stack import (
        _floored,
        _refit_sampler,
        _refitted_inner_log_proba,
    )

    first = selbayes_default(random_state)                  # the MCMC default's settings
    return _floored(_refitted_inner_log_proba(first, X, yi, folds,
                                              sampler=_refit_sampler(first),
                                              settings=settings, plugin=into))


def gaussian_inner(plug, X, yi, everywhere, per_fold, stored_inner, random_state):
    """The default's and the candidate's Gaussian inner predictives where a fold's own choice
    differs. A fold the two share is refitted first: where it reproduces the stored fit's
    (to 1e-8) the stored predictive is the default's, otherwise every fold is refitted; the
    candidate's differs from the default's on the folds whose choice differs, refitted there.
    Returns (default, candidate, whether the stored predictive reproduced)."""
    folds = plug.k_choice_.extra["folds"]
    shared = [i for i, (a, b) in enumerate(zip(everywhere, per_fold, strict=True)) if a == b]
    differ = [i for i in range(len(folds)) if i not in shared]
    default, reproduced = None, False
    if shared:
        i = shared[0]
        one = refitted(X, yi, [folds[i]], [everywhere[i]], stored_inner, random_state)
        te = folds[i][1]
        reproduced = bool(np.max(np.abs(one[te] - stored_inner[te])) <= 1e-8)
        if reproduced:
            default = stored_inner
    if default is None:
        default = refitted(X, yi, folds, everywhere, stored_inner, random_state)
    cand = refitted(X, yi, [folds[i] for i in differ], [per_fold[i] for i in differ],
                    default, random_state)
    return default, cand, reproduced


def candidate(stored, A, yi, T, X, Xt, random_state, default_row: dict, base: dict) -> dict:
    """The candidate's and its default's scores on one stored fit (both the default's row
    where its L1 gate opened). The probit component is the fixed code's, on the inner folds
    and on all of X. Where every fold's own choice is the choice on all cases, both are the
    stored default's Gaussian component with it; otherwise :func:`gaussian_inner`. The test
    cases' Gaussian component is the stored fit's in both."""
    from selbayes.estimators._linear_stack import _floored
    from selbayes.models._linear_probit import fit_linear_probit

    row = {**base, "method": NAME}
    if TWO.l1_gate_opened(stored, A, default_row):
        return {**TWO.gate_open_pair(default_row, row), "changed": False}
    t0 = time.perf_counter()
    plug, everywhere, per_fold, same_folds = inner_choices(X, yi, random_state)
    lin = np.empty((yi.size, 2))
    for tr, te in third_component.inner_folds(yi, random_state):
        lin[te] = fit_linear_probit(X[tr], yi[tr]).predict_log_proba(X[te])
    lin = _floored(lin)
    test = np.stack([T[0], _floored(fit_linear_probit(X, yi).predict_log_proba(Xt))])
    changed = per_fold != everywhere
    reproduced = None
    if changed:
        g_default, g_cand, reproduced = gaussian_inner(plug, X, yi, everywhere, per_fold, A[0],
                                                       random_state)
    else:
        g_default = g_cand = A[0]
    out = {who: {**TWO.pooled_scores(np.stack([g, lin]), test, yi, stored["p_test"]),
                 "inner_loss": -g[np.arange(yi.size), yi].mean()}
           for who, g in (("default", g_default), ("candidate", g_cand))}
    return {**row, **out["candidate"], "default": out["default"], "changed": changed,
            "same_folds": same_folds, "k": everywhere[0][0], "c": everywhere[0][1],
            "per_fold": per_fold, "stored_k": default_row.get("k"),
            "stored_reproduced": reproduced,
            "seconds": time.perf_counter() - t0}


def report(rows) -> str:
    ms = TWO.SHARPENED._ms
    got = [r for k, r in rows.items() if k[0] == NAME]
    fresh = [r for r in got if "same_folds" in r]

    def cells(fits):
        ok = [r for r in fits if "inner_loss" in r]
        return [f"{sum(r['changed'] for r in fits)}",
                f"{ms([r['default']['inner_loss'] for r in ok])} → "
                f"{ms([r['inner_loss'] for r in ok])}",
                f"{np.mean([r['default']['weights'][1] for r in ok]):.2f} → "
                f"{np.mean([r['weights'][1] for r in ok]):.2f}"]

    return TWO.recomputed_report(
        rows, NAME, [("fits changed", "---:"), ("inner loss default → candidate", "---"),
                     ("probit weight default → candidate", "---")],
        f"Inner folds of the current k search equal to the stored fits' in "
        f"{sum(r['same_folds'] for r in fresh)} of {len(fresh)} fits; a fold's own choice "
        f"differs from the choice on all cases in {sum(r['changed'] for r in got)} of "
        f"{len(got)} fits (the L1-gate-open fits are the default's row: "
        f"{len(got) - len(fresh)}).", cells)


def recorded(stored, A, yi, T, X, Xt, random_state, default_row: dict, base: dict) -> dict:
    """The candidate's row of the fit ``base`` names as ``results.jsonl`` holds it (to remake
    ``report.md`` without the refits)."""
    import paired

    return paired.read_rows(HERE / "results.jsonl")[(NAME, base["scenario"],
                                                     base["replicate"])]


def main(jobs: int = 2, report_only: bool = False) -> None:
    rows = PP.rows(jobs, score=recorded if report_only else candidate, name=NAME)
    out = TWO.with_recomputed_defaults(rows, NAME)
    TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--report-only"]
    main(int(args[0]) if args else 2, report_only="--report-only" in sys.argv)
