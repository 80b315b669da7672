"""Chowdary's matched samples: the default, L1 and L2 logistic regression with each tumour's two
samples kept in one fold, beside the usual stratified folds (README.md, "Matched samples").

Run from the repository root: ``python reports/chowdary_probe/paired_folds.py [jobs]``
(about 10 minutes on 2 cores; resumes). Writes ``paired_folds/{stratified,grouped}/`` (the
benchmark's own output) and ``paired_folds.md``. The stored grouped fits keep the pairs whole
in the outer folds only (made before 2026-12-06, when the benchmark began to give every method
the groups inside too): a run now refits them with the groups inside (README.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
METHODS = ["selbayes", "logreg_l1_cv", "logreg_l2_cv"]
FOLDS, REPEATS, SEED = 5, 3, 0
#: Chowdary et al. (2006) preserved each tumour two ways (snap-frozen and RNAlater); in the
#: data set the two samples of a tumour are rows 2i and 2i + 1 (the evidence: twin_evidence,
#: printed in paired_folds.md).
PAIRS = np.arange(104) // 2


def twin_evidence() -> dict:
    """How plainly rows 2i and 2i + 1 are pairs: class agreement and nearest neighbours."""
    from selbayes.datasets import load_dataset

    ds = load_dataset("chowdary")
    X = ds.X.to_numpy(dtype=float)
    Z = (X - X.mean(1, keepdims=True)) / X.std(1, keepdims=True)
    C = Z @ Z.T / Z.shape[1]
    np.fill_diagonal(C, -np.inf)
    y = np.asarray(ds.y)
    pair = np.arange(len(y)) ^ 1
    return {"same_class": int(np.sum(y[0::2] == y[1::2])), "pairs": len(y) // 2,
            "nearest_is_pair": int(np.sum(C.argmax(1) == pair)), "rows": len(y)}


def run(jobs: int) -> dict:
    from selbayes.benchmark import run_benchmark

    out = {}
    for scheme, groups in (("stratified", None), ("grouped", {"chowdary": PAIRS})):
        out[scheme] = run_benchmark(["chowdary"], METHODS, folds=FOLDS, repeats=REPEATS,
                                    seed=SEED, n_jobs=jobs, out=HERE / "paired_folds" / scheme,
                                    progress=False, groups=groups)
    return out


def table(res: dict) -> str:
    from selbayes.benchmark import paired_difference

    lines = ["| folds | method | AMLP | error | expected error | cases with loss > 2 nats "
             "(of 312) | default - method (AMLP) |", "|---|---|---:|---:|---:|---:|---:|"]
    verdict = {}
    for scheme, r in res.items():
        s = r.summary.set_index("method")
        for m in METHODS:
            c = r.cases[r.cases["method"] == m]
            if m == "selbayes":
                diff = ""
            else:
                d, se, _ = paired_difference(r.results, "chowdary", "selbayes", m)
                diff = f"{d:+.3f} ± {se:.3f}" + ("*" if abs(d) > 2 * se else "")
                verdict[scheme, m] = (d, se)
            lines.append(f"| {scheme} | {m} | {s.loc[m, 'amlp']:.3f} ± {s.loc[m, 'amlp_se']:.3f}"
                         f" | {s.loc[m, 'error']:.3f} | {s.loc[m, 'expected_error']:.3f} | "
                         f"{int((c['loss'] > 2).sum())} | {diff} |")
    d_s, _ = verdict["stratified", "logreg_l1_cv"]
    d_g, se_g = verdict["grouped", "logreg_l1_cv"]
    explained = d_g <= d_s / 2 and d_g <= 2 * se_g
    lines += ["", "\\* beyond 2 SE (the folds of one repeat as the unit). Rule (README.md, "
              "written before the run): the twins carry L1's edge if, with pairs kept "
              "together, default - L1 is at most half its value with stratified folds and not "
              "positive beyond 2 SE. " + (
                  f"**Carried by the twins**: {d_s:+.3f} -> {d_g:+.3f} ± {se_g:.3f}."
                  if explained else
                  f"**Not carried by the twins**: {d_s:+.3f} -> {d_g:+.3f} ± {se_g:.3f}.")]
    return "\n".join(lines)


def main(jobs: int = 2) -> None:
    ev = twin_evidence()
    res = run(jobs)
    text = ("# Chowdary with each tumour's two samples in one fold (made by paired_folds.py)\n\n"
            f"Rows 2i and 2i + 1: same class in {ev['same_class']} of {ev['pairs']} pairs; a "
            f"row's nearest row (correlation over genes) is its pair for "
            f"{ev['nearest_is_pair']} of {ev['rows']}. {FOLDS} folds, {REPEATS} repeats, seed "
            f"{SEED}, the benchmark's own methods and preprocessing; the same seeds for both "
            "fold schemes (the folds differ).\n\n" + table(res) + "\n")
    per = []
    for scheme, r in res.items():
        c = r.cases.assign(scheme=scheme)
        per.append(c)
    cases = pd.concat(per)
    worst = (cases[cases["loss"] > 2].groupby(["scheme", "method"])["sample"]
             .apply(lambda s: ", ".join(sorted(set(s), key=lambda v: int(v.split("_")[1]))))
             .reset_index())
    text += ("\nCases with a loss above 2 nats in any repeat:\n\n| folds | method | samples |\n"
             "|---|---|---|\n" + "\n".join(f"| {a} | {b} | {c} |"
                                           for a, b, c in worst.itertuples(index=False)) + "\n")
    (HERE / "paired_folds.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
