"""Chowdary's matched samples kept whole inside every method too: the grouped run of
``paired_folds.py`` again, now with the groups in each method's inner cross-validation, beside
the stored outer-only run (README.md, "Matched samples inside the methods too").

Run from the repository root: ``python reports/chowdary_probe/inner_groups.py [jobs]`` (about
5 minutes on 2 cores; resumes). Writes ``paired_folds/grouped_inner/`` (the benchmark's own
output) and ``inner_groups.md``; reads ``paired_folds/grouped/`` (the outer-only fits, made
before the methods took groups).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired_folds import FOLDS, METHODS, PAIRS, REPEATS, SEED  # noqa: E402

HERE = Path(__file__).resolve().parent
OUTER_ONLY = HERE / "paired_folds" / "grouped"
INNER = HERE / "paired_folds" / "grouped_inner"


def run(jobs: int):
    from selbayes.benchmark import run_benchmark

    return run_benchmark(["chowdary"], METHODS, folds=FOLDS, repeats=REPEATS, seed=SEED,
                         n_jobs=jobs, out=INNER, progress=False, groups={"chowdary": PAIRS})


def l1_weights(folder: Path) -> pd.Series:
    """The default stack's L1 weight per (repeat, fold): the w solving pooled = sum_m w_m
    p_m over the fold's test cases and classes (least squares on the stored probabilities;
    the pool is linear, so the solution is exact up to rounding)."""
    out = {}
    for f in sorted((folder / "folds" / "chowdary" / "selbayes").glob("r*_f*.npz")):
        with np.load(f) as z:
            P, comps = z["proba"], np.exp(z["stack_test_log_proba"])
        w, *_ = np.linalg.lstsq(comps.reshape(comps.shape[0], -1).T, P.ravel(), rcond=None)
        r, k = f.stem.split("_")
        out[int(r[1:]), int(k[1:])] = float(w[2])
    s = pd.Series(out, name="l1_weight")
    s.index.names = ["repeat", "fold"]
    return s


def compare(inner: pd.DataFrame, outer: pd.DataFrame) -> tuple[str, dict]:
    """The rule's table: per method, AMLP (groups inside) - AMLP (outer only), paired over
    the same outer folds, repeat-aware SE; and default - L1 under each."""
    from selbayes.benchmark import paired_difference
    from selbayes.benchmark._report import repeat_aware_mean_se

    def mean(r, metric):
        return repeat_aware_mean_se(r[metric], r["repeat"], r["n_test"])[0]

    both = pd.concat([inner.assign(method=inner["method"] + "@inside"),
                      outer.assign(method=outer["method"] + "@outer")])
    lines = ["| method | AMLP outer only | AMLP inside too | inside - outer | error outer / "
             "inside | expected error outer / inside |", "|---|---:|---:|---:|---:|---:|"]
    verdict = {}
    for m in METHODS:
        d, se, n = paired_difference(both, "chowdary", f"{m}@inside", f"{m}@outer")
        verdict[m] = (d, se, abs(d) > 2 * se)
        a, b = (x[x["method"] == m] for x in (outer, inner))
        lines.append(f"| {m} | {mean(a, 'amlp'):.3f} | {mean(b, 'amlp'):.3f} | "
                     f"{d:+.3f} ± {se:.3f}{'*' if abs(d) > 2 * se else ''} | "
                     f"{mean(a, 'error'):.3f} / {mean(b, 'error'):.3f} | "
                     f"{mean(a, 'expected_error'):.3f} / {mean(b, 'expected_error'):.3f} |")
    gaps = {}
    for name, r in (("outer only", outer), ("inside too", inner)):
        gaps[name] = paired_difference(r, "chowdary", "selbayes", "logreg_l1_cv")[:2]
    return "\n".join(lines), {"verdict": verdict, "gaps": gaps}


def per_fold(inner: pd.DataFrame, outer: pd.DataFrame) -> str:
    """The default's choices fold by fold under both."""
    rows = []
    for name, r, folder in (("outer only", outer, OUTER_ONLY), ("inside too", inner, INNER)):
        s = r[r["method"] == "selbayes"].set_index(["repeat", "fold"])[
            ["k", "linear_weight", "amlp"]]
        s = s.join(l1_weights(folder))
        rows.append(s.add_suffix(f" ({name})"))
    t = pd.concat(rows, axis=1).reset_index()
    lines = ["| repeat | fold | k outer / inside | linear weight outer / inside | L1 weight "
             "outer / inside | AMLP outer / inside |", "|---:|---:|---:|---:|---:|---:|"]
    for _, x in t.iterrows():
        lines.append(
            f"| {int(x['repeat'])} | {int(x['fold'])} | {int(x['k (outer only)'])} / "
            f"{int(x['k (inside too)'])} | {x['linear_weight (outer only)']:.2f} / "
            f"{x['linear_weight (inside too)']:.2f} | {x['l1_weight (outer only)']:.2f} / "
            f"{x['l1_weight (inside too)']:.2f} | {x['amlp (outer only)']:.3f} / "
            f"{x['amlp (inside too)']:.3f} |")
    return "\n".join(lines)


def main(jobs: int = 2) -> None:
    res = run(jobs)
    inner = res.results
    outer = pd.read_csv(OUTER_ONLY / "results.csv")
    outer = outer[outer["error_message"].isna()]
    for r in (inner, outer):
        assert sorted(r["method"].unique()) == sorted(METHODS)
    # the same outer folds: each fold's test cases agree between the runs
    a = pd.read_csv(OUTER_ONLY / "cases.csv")
    b = res.cases
    key = ["method", "repeat", "fold", "sample"]
    assert a[key].sort_values(key).to_numpy().tolist() == \
        b[key].sort_values(key).to_numpy().tolist(), "the outer folds differ"
    table, v = compare(inner, outer)
    mattered = [m for m, (_, _, beyond) in v["verdict"].items() if beyond]
    (d_o, se_o), (d_i, se_i) = v["gaps"]["outer only"], v["gaps"]["inside too"]
    text = (
        "# Chowdary with each tumour's two samples kept whole inside every method too "
        "(made by inner_groups.py)\n\n"
        f"{FOLDS} folds, {REPEATS} repeats, seed {SEED}; the same outer folds as the stored "
        "outer-only run (checked case by case). Paired over the 15 outer folds; SE with the "
        "folds of one repeat as the unit; \\* beyond 2 SE.\n\n" + table + "\n\n"
        "Rule (README.md, written before the run): keeping the groups whole inside matters "
        "for a method where inside - outer is beyond 2 SE. "
        + (f"**It matters for {', '.join(mattered)}.**" if mattered
           else "**It matters for none of the three on this set.**")
        + f" Default - L1: {d_o:+.3f} ± {se_o:.3f} outer only, {d_i:+.3f} ± {se_i:.3f} "
        "inside too.\n\nThe default's choices per outer fold:\n\n" + per_fold(inner, outer)
        + "\n")
    (HERE / "inner_groups.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
