"""The offline check of README.md (rule written before the run): ``probit_projected`` against
the default on stored fits (the suite's three run seeds, the held-out X, the shifted
replicates of ``../probit_prior_gate/``, the 40-case and confirmation replicates of
``../probit_sharpened_gate/``).

Run from the repository root: ``python reports/plasmode/probit_projected/compare.py [jobs]``;
writes ``results.jsonl`` (one row per fit) and ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: load_script, SCENARIO_NAMES)
import paired  # noqa: E402  (reports/plasmode/paired.py: paired, read_rows)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: inner_folds)

PLASMODE = HERE.parent
TWO = offline.load_script(PLASMODE / "probit_two_priors" / "compare.py", "two_priors_compare")
SHARPENED = TWO.SHARPENED
GATE = PLASMODE / "probit_sharpened_gate"
HOLDOUT = TWO.HOLDOUT
#: stored fits of the current default: (folder, data seed, scenarios, replicates, suffix)
NEW = ((PLASMODE / "probit_prior_gate" / "shifted", 2900,
        ("shifted_factor", "shifted_factor_n40"), 6, ""),
       (GATE / "small_n", 9900, ("sim_sparse_strong_n40", "sim_dense_weak_n40",
                                 "plasmode_sparse_n40", "plasmode_dense_n40"), 6, ""),
       (GATE / "confirm", 11900, ("sim_dense_weak", "plasmode_dense", "plasmode_module",
                                  "sim_dense_weak_n40", "plasmode_dense_n40"), 8, "@11900"))
NAME = "probit_projected"
#: eigenvalues of Z Z' / p below this share of the largest are its null space (the centring)
RANK_TOL = 1e-10


def grams(X, Xt):
    """The probit model's Gram matrices (``selbayes.models._linear_probit``: genes
    standardised on ``X``): Z Z' / p (n, n), Zs Z' / p (m, n) and each test case's z'z / p
    (m,)."""
    from selbayes.models._linear_probit import standardise_features

    mean, sd, keep, Z = standardise_features(X)
    Zs = (np.asarray(Xt, float)[:, keep] - mean[keep]) / sd[keep]
    p = Z.shape[1]
    return Z @ Z.T / p, Zs @ Z.T / p, (Zs ** 2).sum(axis=1) / p


def predictives(X, y, Xt):
    """The probit model of all genes fitted on ``X``, ``y`` (class indices 0/1): log
    probabilities of ``Xt`` (m, 2) with the test latent variance of the projection on the
    training cases' span (the candidate) and of the whole z (the default's component)."""
    from selbayes.models._linear_probit import LOG_S_GRID, fit_gram, gram_log_proba

    G, Gs, g_full = grams(X, Xt)
    weights, sites = fit_gram(G, 2.0 * np.asarray(y, float) - 1.0)
    evals, evecs = np.linalg.eigh(G)
    span = evals > RANK_TOL * evals.max()
    coef = Gs @ evecs[:, span]                                       # (m, rank)
    g_proj = np.sum(coef ** 2 / evals[span], axis=1)                 # (Zz)'(ZZ')^+(Zz) / p
    assert np.all(g_proj <= g_full * (1 + 1e-9)), "a projection is never longer"
    return (gram_log_proba(G, Gs, g_proj, LOG_S_GRID, weights, sites),
            gram_log_proba(G, Gs, g_full, LOG_S_GRID, weights, sites))


def candidate(stored, A, yi, T, X, Xt, random_state, default_row: dict, base: dict) -> dict:
    """The candidate on one stored fit (the default's scores where its L1 gate opened):
    the projected component on the Gaussian model's inner folds (re-made from
    ``random_state``) and on all of ``X``, the stack's weights refitted on (the stored Gaussian
    component, it), the test cases' pool scored against the true probabilities. The fold
    check: the isotropic predictive computed alongside against the stored component."""
    from selbayes.estimators._linear_stack import _floored, _linear_pool, _weights_and_pool
    from selbayes.experiments.plasmode import calibration_scores

    row = {**base, "method": NAME}
    if default_row.get("gate_open") or (A.shape[0] == 3 and stored["weights"][2] > 0):
        return SHARPENED.gate_open_row(default_row, row)
    inner, check = np.empty((yi.size, 2)), 0.0
    for tr, te in third_component.inner_folds(yi, random_state):
        proj, iso = predictives(X[tr], yi[tr], X[te])
        inner[te] = proj
        check = max(check, float(np.max(np.abs(iso - stored["inner"][1][te]))))
    test, test_iso = predictives(X, yi, Xt)
    check = max(check, float(np.max(np.abs(test_iso - stored["test"][1]))))
    w, _ = _weights_and_pool(np.stack([A[0], _floored(inner)]), yi, "linear")
    pooled = _linear_pool(np.stack([T[0], _floored(test)]), w)
    p_test = stored["p_test"]
    alone = {"proj": calibration_scores(np.exp(test), p_test),
             "iso": calibration_scores(np.exp(test_iso), p_test)}
    return {**row, **calibration_scores(np.exp(pooled), p_test), "weights": w.tolist(),
            "default_weights": stored["weights"][:2].tolist(), "fold_check": check,
            **{f"probit_{k}_{m}": alone[k][m] for k in alone for m in ("kl", "slope")}}


def _suite_task(score, seed, s, r, default_row, rep):
    stored, A, yi, T, X, Xt = TWO.stored_fit(seed, s, r)
    return score(stored, A, yi, T, X, Xt, seed + r, default_row,
                 {"scenario": s, "replicate": rep, "seed": seed})


def _new_task(score, folder, data_seed, s, r, default_row, key):
    from selbayes.experiments.plasmode import make_replicate, scenario

    stored, A, yi, T = SHARPENED.stored_parts(folder / "fits" / f"{s}_{r}.npz")
    d = make_replicate(scenario(s), data_seed + 1000 * r)
    assert np.array_equal(np.searchsorted(np.unique(d["y_train"]), d["y_train"]), yi)
    return score(stored, A, yi, T, np.asarray(d["X_train"], float),
                 np.asarray(d["X_test"], float), r, default_row,
                 {"scenario": key, "replicate": r, "seed": data_seed})


def scenario_keys() -> tuple:
    """The nineteen ruled scenarios, as the rows name them."""
    return offline.SCENARIO_NAMES + HOLDOUT + tuple(
        s + suffix for _, _, names, _, suffix in NEW for s in names)


def rows(jobs: int = 2, score=candidate, name: str = NAME) -> dict:
    """(method, scenario, replicate) -> row for ``default``, the candidate ``name`` and L2
    (the suite's replicates of seeds 0, 1, 7 numbered 0-5, 6-11, 12-17; no L2 row on held-out
    X). ``score``: the candidate on one stored fit (:func:`candidate`'s arguments and row);
    another check scores its own candidate on the same fits with it."""
    from joblib import Parallel, delayed

    out = SHARPENED.default_rows(HOLDOUT)
    tasks = [(delayed(_suite_task)(score, seed, s, r, out[("default", s, rep)], rep), s, rep)
             for i, seed in enumerate(SHARPENED.FITS)
             for s in offline.SCENARIO_NAMES + (HOLDOUT if seed == 0 else ())
             for r in range(6) for rep in [6 * i + r if s in offline.SCENARIO_NAMES else r]]
    for folder, data_seed, names, replicates, suffix in NEW:
        new = paired.read_rows(folder / "results.jsonl")
        for s in names:
            for r in range(replicates):
                key = s + suffix
                out[("default", key, r)] = new[("selbayes", s, r)]
                out[("logreg_l2_cv", key, r)] = new[("logreg_l2_cv", s, r)]
                tasks.append((delayed(_new_task)(score, folder, data_seed, s, r,
                                                 out[("default", key, r)], key), key, r))
    done = Parallel(n_jobs=jobs)(task for task, _, _ in tasks)
    for (_, s, rep), row in zip(tasks, done, strict=True):
        out[(name, s, rep)] = row
    return out


def report(rows) -> str:
    lines = TWO.report_head(rows, NAME, "", [("probit alone KL iso → projected", "---"),
                                             ("probit alone slope iso → projected", "---"),
                                             ("probit weight default → candidate", "---")])
    tally, misses = TWO.new_tally(), {"default": 0, NAME: 0}
    for s in scenario_keys():
        n = sum(1 for k in rows if k[0] == NAME and k[1] == s)
        got = [r for r in (rows[(NAME, s, i)] for i in range(n)) if "probit_iso_kl" in r]
        med = {m: {k: np.median([r[f"probit_{k}_{m}"] for r in got]) for k in ("iso", "proj")}
               for m in ("kl", "slope")}
        wd = np.mean([r["default_weights"][1] for r in got])
        wc = np.mean([r["weights"][1] for r in got])
        lines.append(TWO.scenario_line(
            rows, NAME, s, n, misses,
            [f"{med['kl']['iso']:.3f} → {med['kl']['proj']:.3f}",
             f"{med['slope']['iso']:.2f} → {med['slope']['proj']:.2f}", f"{wd:.2f} → {wc:.2f}"],
            tally))
    lines += ["", "Probit alone: medians over the replicates (the L1-gate-open fit left out).",
              "The fold check (above) also covers the test cases: the isotropic predictive "
              "recomputed on all training cases against the stored test log probabilities."]
    return "\n".join(lines + TWO.verdict_lines(tally, misses, NAME))


def main(jobs: int = 2) -> None:
    out = rows(jobs)
    TWO.write_outputs(HERE, out, NAME, report(out))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
