"""README.md's probe: a class signal carried by a correlated module and by a few independent
genes, with a share of cases whose module shows the other class; the default, L1 and L2
logistic regression scored against the exact truth.

Run from the repository root: ``python reports/plasmode/flipped_module_probe/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit; resumes) and ``report.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import paired  # noqa: E402  (reports/plasmode/paired.py)
import probe  # noqa: E402  (reports/plasmode/probe.py: fit_missing)

#: Fixed before the run (README.md): genes, module size and loading, marker genes, effects.
P, MODULE, LOADING, MARKERS = 2000, 50, 0.8, 5
MODULE_SHIFT, MARKER_SHIFT = 3.0, 2.0
N_TRAIN, N_TEST = 80, 400
SHARES = (0.0, 0.08)
METHODS = ("selbayes", "logreg_l1_cv", "logreg_l2_cv")
REPLICATES, DATA_SEED = 8, 37900


def draw(share: float, random_state) -> dict:
    """One replicate: training and test cases and the test cases' true probabilities.

    Genes 0..MODULE-1 are a module, x = LOADING f + sqrt(1 - LOADING^2) e, whose factor f is
    N(+-MODULE_SHIFT / 2, 1) by class, its sign flipped in a share ``share`` of the cases
    (independently of everything else); genes MODULE..MODULE+MARKERS-1 are shifted by
    +-MARKER_SHIFT / 2 by class in every case; all other genes are N(0, 1) noise. Balanced
    training classes, test classes at 1/2.
    """
    rng = np.random.default_rng(random_state)
    n = N_TRAIN + N_TEST
    y = np.zeros(n, dtype=int)
    y[: N_TRAIN // 2] = 1
    y[N_TRAIN:] = rng.integers(0, 2, N_TEST)
    sign = np.where(y == 1, 1.0, -1.0)
    flipped = rng.random(n) < share
    module_sign = np.where(flipped, -sign, sign)
    X = rng.standard_normal((n, P))
    f = rng.standard_normal(n) + module_sign * MODULE_SHIFT / 2
    X[:, :MODULE] = (LOADING * f[:, None]
                     + np.sqrt(1 - LOADING ** 2) * rng.standard_normal((n, MODULE)))
    X[:, MODULE:MODULE + MARKERS] += sign[:, None] * MARKER_SHIFT / 2
    Xt = X[N_TRAIN:]
    p1 = 1 / (1 + np.exp(-true_log_odds(Xt, share)))
    return {"X_train": X[:N_TRAIN], "y_train": y[:N_TRAIN], "X_test": Xt,
            "y_test": y[N_TRAIN:], "p_test": np.column_stack([1 - p1, p1]),
            "flipped_train": int(flipped[:N_TRAIN].sum()), "flipped_test": flipped[N_TRAIN:]}


def true_log_odds(X, share: float) -> np.ndarray:
    """Exact log odds of class 1 (prior 1/2). The module's covariance is
    LOADING^2 11' + (1 - LOADING^2) I, with 1 an eigenvector, so the module's log likelihood
    ratio of the two signs is LOADING MODULE_SHIFT 1'x / (MODULE LOADING^2 + 1 - LOADING^2);
    each class mixes the two signs (1 - share, share); the markers add MARKER_SHIFT 1'x."""
    llr_module = (LOADING * MODULE_SHIFT * X[:, :MODULE].sum(axis=1)
                  / (MODULE * LOADING ** 2 + 1 - LOADING ** 2))
    if share > 0:
        up = np.logaddexp(np.log1p(-share) + llr_module / 2, np.log(share) - llr_module / 2)
        down = np.logaddexp(np.log1p(-share) - llr_module / 2, np.log(share) + llr_module / 2)
        llr_module = up - down
    return llr_module + MARKER_SHIFT * X[:, MODULE:MODULE + MARKERS].sum(axis=1)


def one(method: str, rep: int, share: float) -> dict:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    d = draw(share, DATA_SEED + 1000 * rep)
    est = make_method(method, 2, random_state=rep)
    est.fit(d["X_train"], d["y_train"])
    proba = est.predict_proba(d["X_test"])
    out = calibration_scores(proba, d["p_test"])
    flip = d["flipped_test"]
    wrong = np.argmax(proba, axis=1) != d["y_test"]
    out.update(method=method, scenario=f"flipped_module@{share}", replicate=rep, share=share,
               flipped_train=d["flipped_train"],
               error_flipped=float(wrong[flip].mean()) if flip.any() else None,
               error_typical=float(wrong[~flip].mean()),
               seconds=round(time.perf_counter() - t0, 1))
    out.update(probe.stack_summary(est))
    return out


def bayes_error(rep: int, share: float) -> float:
    """The error on replicate ``rep``'s test labels of the truth's most probable class."""
    d = draw(share, DATA_SEED + 1000 * rep)
    return float(np.mean(np.argmax(d["p_test"], axis=1) != d["y_test"]))


def report(rows) -> str:
    lines = ["# Flipped module: the default against L1 and L2 (made by run.py)", "",
             "README.md's probe; eight replicates per share. Means; paired differences "
             "default - peer over replicates (* beyond 2 SE). Errors are against the test "
             "labels; 'flipped' are the test cases whose module shows the other class.", "",
             "| share | KL default | KL L1 | KL L2 | default - L1 | default - L2 | "
             "\\|e - a\\| default / L1 / L2 | slope default / L1 / L2 | error on flipped "
             "default / L1 / L2 | error typical default / L1 / L2 | Bayes error | k (median) | "
             "L1 gate open | weights G / probit / L1 (mean) |",
             "|---:|" + "---:|" * 13]
    verdict = {}
    for share in SHARES:
        s = f"flipped_module@{share}"
        get = {m: [rows[(m, s, r)] for r in range(REPLICATES)] for m in METHODS}

        def mean(m, key, get=get):
            v = [r[key] for r in get[m] if r.get(key) is not None]
            return np.mean(v) if v else np.nan

        diffs = []
        for peer in METHODS[1:]:
            d, se, _ = paired.paired(rows, METHODS[0], peer, s, "kl")
            diffs.append(paired.pm_text(d, se))
            verdict[share, peer] = (d, se)
        bayes = np.mean([bayes_error(r, share) for r in range(REPLICATES)])
        sb = get["selbayes"]
        w = np.mean([r["weights"] + [0.0] * (3 - len(r["weights"])) for r in sb], axis=0)
        lines.append(
            f"| {share} | " + " | ".join(f"{mean(m, 'kl'):.3f}" for m in METHODS)
            + f" | {diffs[0]} | {diffs[1]} | "
            + " / ".join(f"{mean(m, 'abs_gap'):.3f}" for m in METHODS) + " | "
            + " / ".join(f"{np.median([r['slope'] for r in get[m]]):.2f}" for m in METHODS)
            + " | " + " / ".join(f"{mean(m, 'error_flipped'):.3f}" for m in METHODS) + " | "
            + " / ".join(f"{mean(m, 'error_typical'):.3f}" for m in METHODS)
            + f" | {bayes:.3f} | {np.median([r['k'] for r in sb]):.0f} | "
            f"{sum(r['l1_gate_open'] for r in sb)} of {REPLICATES} | "
            + " / ".join(f"{x:.2f}" for x in w) + " |")
    d, se = verdict[SHARES[1], "logreg_l1_cv"]
    reproduced = d > 2 * se
    lines += ["", "Slopes: medians. Rule (README.md, written before the run): the pattern is "
              f"reproduced if at share {SHARES[1]} the default's KL is behind L1's beyond 2 SE. "
              + (f"**Reproduced** ({paired.pm_text(d, se)})." if reproduced else
                 f"**Not reproduced** ({paired.pm_text(d, se)}).")]
    return "\n".join(lines) + "\n"


def main(jobs: int = 2) -> None:
    path = HERE / "results.jsonl"
    rows = paired.read_rows(path) if path.exists() else {}
    todo = [(m, r, s) for s in SHARES for r in range(REPLICATES) for m in METHODS
            if (m, f"flipped_module@{s}", r) not in rows]
    text = report(probe.fit_missing(path, todo, one, jobs))
    (HERE / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
