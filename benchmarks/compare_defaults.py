"""Paired comparison of two benchmark runs on the same folds: the new defaults against the old.

The defaults of 2026-11-25 (t prior on the class means, k up to 2000) were decided on the
plasmode suite (``reports/plasmode``), not on the eleven development sets. This script checks
them on those sets: it takes the per-fold results of a new run (``selbayes benchmark ...
--out NEW``) and of the committed run of the old defaults (``reports/benchmark_microarray``),
keeps the folds both ran (same seed, so the same test cases), and reports per set the paired
difference in AMLP with its standard error (folds of one repeat as the unit,
:func:`selbayes.benchmark.paired_difference`), counting a difference only beyond 2 SE.

Run::

    .venv/bin/python benchmarks/compare_defaults.py NEW/results.csv \
        reports/benchmark_microarray/results.csv > OUT.md
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from selbayes.benchmark import clear_difference, paired_difference, repeat_aware_mean_se


def _fmt(mean, se=None):
    if not np.isfinite(mean):
        return "n/a"
    return f"{mean:+.3f} ± {se:.3f}" if se is not None and np.isfinite(se) else f"{mean:.3f}"


def _mark(mean, se):
    c = clear_difference(mean, se)
    return {-1: " **(<)**", 1: " **(>)**", 0: ""}[c]


def compare(new: pd.DataFrame, old: pd.DataFrame, old_method: str = "selbayes") -> str:
    """Markdown tables comparing ``selbayes`` of ``new`` with ``old_method`` of ``old``.

    Parameters
    ----------
    new, old : pandas.DataFrame
        Per-fold results (``results.csv`` of ``selbayes benchmark``).
    old_method : str
        The method of ``old`` that stands for the old defaults.

    Returns
    -------
    str
        Markdown text.
    """
    old = old[old["method"] == old_method].copy()
    old["method"] = "old_default"
    keys = ["dataset", "repeat", "fold"]
    both = new.merge(old[keys], on=keys).drop_duplicates()
    folds = both[keys].drop_duplicates()
    old = old.merge(folds, on=keys)
    res = pd.concat([new.merge(folds, on=keys), old], ignore_index=True)
    peers = [m for m in ("logreg_l2_cv", "logreg_l1_cv") if m in set(res["method"])]
    sets = sorted(set(folds["dataset"]))

    lines = ["| set | folds | AMLP new | AMLP old | new - old | new - uncorrected | "
             "new - better logreg | \\|exp - act\\| new | \\|exp - act\\| old |",
             "|---|---|---|---|---|---|---|---|---|"]
    tally = {"old": [], "unc": [], "peer": []}
    diffs = {"old": [], "unc": [], "l2": []}
    summ = {}
    for s in sets:
        sub = res[res["dataset"] == s]

        def mean_of(method, metric="amlp", sub=sub):
            m = sub[sub["method"] == method]
            if m.empty:
                return np.nan, np.nan
            return repeat_aware_mean_se(m[metric], m["repeat"], m["n_test"])

        a_new, _ = mean_of("selbayes")
        a_old, _ = mean_of("old_default")
        d_old = paired_difference(res, s, "selbayes", "old_default")
        d_unc = paired_difference(res, s, "selbayes", "selbayes_uncorrected")
        best = min(peers, key=lambda m: mean_of(m)[0]) if peers else None
        d_peer = paired_difference(res, s, "selbayes", best) if best else (np.nan, np.nan, 0)
        gaps = {}
        for m in ("selbayes", "old_default"):
            mm = sub[sub["method"] == m]
            w = mm["n_test"].to_numpy(float)
            gaps[m] = abs(float(np.sum(w * (mm["expected_error"] - mm["error"])) / np.sum(w)))
        diffs["old"].append(d_old[:2])
        diffs["unc"].append(d_unc[:2])
        diffs["l2"].append(paired_difference(res, s, "selbayes", "logreg_l2_cv")[:2])
        tally["old"].append(clear_difference(*d_old[:2]))
        tally["unc"].append(clear_difference(*d_unc[:2]))
        tally["peer"].append(clear_difference(*d_peer[:2]))
        summ[s] = dict(amlp_new=a_new, amlp_old=a_old, gap_new=gaps["selbayes"],
                       gap_old=gaps["old_default"], best_peer=best,
                       amlp_peer=mean_of(best)[0] if best else np.nan)
        lines.append(
            f"| {s} | {d_old[2]} | {_fmt(a_new)} | {_fmt(a_old)} | "
            f"{_fmt(*d_old[:2])}{_mark(*d_old[:2])} | {_fmt(*d_unc[:2])}{_mark(*d_unc[:2])} | "
            f"{_fmt(*d_peer[:2])}{_mark(*d_peer[:2])} ({best}) | {gaps['selbayes']:.3f} | "
            f"{gaps['old_default']:.3f} |")
    sm = pd.DataFrame(summ).T
    out = ["Paired differences in AMLP (nats) over the folds both runs share, mean ± SE with "
           "the folds of one repeat as the unit; **(<)** / **(>)**: new lower / higher by "
           "more than 2 SE. 'better logreg': the one of L2 and L1 logistic regression with "
           "the lower mean AMLP on the set.", ""] + lines + [""]

    def over_sets(pairs):
        # The sets are independent: the SE of the mean of the per-set differences.
        m, se = np.array(pairs, dtype=float).T
        return float(np.mean(m)), float(np.sqrt(np.sum(se ** 2)) / len(m))

    def count(xs, v):
        return sum(1 for x in xs if x == v)

    out += [
        f"- Sets: {len(sets)}. Mean AMLP over the sets: new {sm['amlp_new'].mean():.3f}, "
        f"old {sm['amlp_old'].mean():.3f}, better logistic regression per set "
        f"{sm['amlp_peer'].mean():.3f}.",
        "- Mean over the sets of the paired differences (SE from the per-set SEs, sets "
        f"independent): new - old {_fmt(*over_sets(diffs['old']))}, new - uncorrected "
        f"{_fmt(*over_sets(diffs['unc']))}, new - logreg_l2_cv {_fmt(*over_sets(diffs['l2']))}.",
        f"- New vs old default: lower beyond 2 SE on {count(tally['old'], -1)}, higher on "
        f"{count(tally['old'], 1)}, within 2 SE on {count(tally['old'], 0)}.",
        f"- New vs its uncorrected twin: lower on {count(tally['unc'], -1)}, higher on "
        f"{count(tally['unc'], 1)}, within 2 SE on {count(tally['unc'], 0)}.",
        f"- New vs the better logistic regression: lower on {count(tally['peer'], -1)}, "
        f"higher on {count(tally['peer'], 1)}, within 2 SE on {count(tally['peer'], 0)}.",
        f"- Mean |expected - actual error|: new {sm['gap_new'].mean():.3f} (worst "
        f"{sm['gap_new'].max():.3f}), old {sm['gap_old'].mean():.3f} (worst "
        f"{sm['gap_old'].max():.3f}).",
    ]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("new", help="results.csv of the run of the new defaults")
    ap.add_argument("old", help="results.csv of the run of the old defaults")
    ap.add_argument("--old-method", default="selbayes")
    a = ap.parse_args(argv)
    sys.stdout.write(compare(pd.read_csv(a.new), pd.read_csv(a.old), a.old_method))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
