"""Score the rule of README.md: the default and L1/L2 logistic regression on values as stored.

Reads ``runs/<set>/results.csv`` (copied from each ``selbayes benchmark --out`` folder), the
logged default from ``../benchmark_microarray_gated_l1_2026-12-03/results.csv`` and logged L1/L2
from repeat 0 of ``../benchmark_microarray/results.csv`` (the same folds); writes
``comparison.md``. Run from anywhere: ``python reports/raw_input_check/compare.py``.
"""

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SETS = ["borovecki", "chowdary", "golub", "nakayama", "singh", "srbct", "colon"]
PEERS = ["logreg_l2_cv", "logreg_l1_cv"]


def load():
    raw = pd.concat([pd.read_csv(HERE / "runs" / s / "results.csv") for s in SETS
                     if (HERE / "runs" / s / "results.csv").exists()])
    gated = pd.read_csv(HERE.parent / "benchmark_microarray_gated_l1_2026-12-03" / "results.csv")
    old = pd.read_csv(HERE.parent / "benchmark_microarray" / "results.csv")
    logged = pd.concat([gated, old[(old.repeat == 0) & old.method.isin(PEERS)]])
    logged = logged[logged.dataset.isin(SETS)]
    return raw, logged


def per_set(frame):
    g = frame.groupby(["dataset", "method"])
    out = g.agg(amlp=("amlp", "mean"), error=("error", "mean"),
                expected=("expected_error", "mean"), n=("fold", "size"))
    out["abs_gap"] = (out.expected - out.error).abs()
    return out


def paired(frame, a, b):
    """Mean over sets of the per-set mean fold difference a - b, and its SE (folds the unit)."""
    w = frame.pivot_table(index=["dataset", "fold"], columns="method", values="amlp")
    d = (w[a] - w[b]).groupby(level=0)
    means, ses = d.mean(), d.std(ddof=1) / np.sqrt(d.size())
    return means.mean(), np.sqrt((ses ** 2).sum()) / len(means), means, ses


def main():
    raw, logged = load()
    sets = sorted(set(raw.dataset))
    rs, ls = per_set(raw), per_set(logged)
    lines = ["# Comparison (made by compare.py)", "",
             f"Sets: {', '.join(sets)} ({len(sets)} of {len(SETS)}).", "",
             "| set | method | AMLP raw | AMLP logged | raw - logged | error raw | "
             "expected raw | \\|e - a\\| raw | \\|e - a\\| logged |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in sets:
        for m in ["selbayes", *PEERS]:
            r = rs.loc[(s, m)]
            lg = ls.loc[(s, m)] if (s, m) in ls.index else None
            la = f"{lg.amlp:.3f}" if lg is not None else "-"
            dd = f"{r.amlp - lg.amlp:+.3f}" if lg is not None else "-"
            lgap = f"{lg.abs_gap:.3f}" if lg is not None else "-"
            lines.append(f"| {s} | {m} | {r.amlp:.3f} | {la} | {dd} | {r.error:.3f} | "
                         f"{r.expected:.3f} | {r.abs_gap:.3f} | {lgap} |")
    mean_raw = rs.groupby(level="method").amlp.mean()
    better = min(PEERS, key=lambda m: mean_raw[m])
    diff, se, means, ses = paired(raw[raw.dataset.isin(sets)], "selbayes", better)
    lines += ["", "Mean AMLP over the sets, raw values: " + ", ".join(
        f"{m} {mean_raw[m]:.3f}" for m in ["selbayes", *PEERS]) + f"; the better peer: {better}.",
        "", f"selbayes - {better} (raw): {diff:+.4f} +- {se:.4f} (SE; folds the unit; "
        f"{diff / se:+.1f} SE)", "",
        "| set | selbayes - " + better + " | SE |", "|---|---:|---:|"]
    lines += [f"| {s} | {means[s]:+.3f} | {ses[s]:.3f} |" for s in means.index]
    fail_amlp = diff > 2 * se
    new_gaps = [s for s in sets if rs.loc[(s, "selbayes")].abs_gap > 0.05
                and ls.loc[(s, "selbayes")].abs_gap <= 0.05]
    lines += ["", "## Verdict", "",
              f"- Mean AMLP beyond 2 SE above the better peer: {'yes' if fail_amlp else 'no'}.",
              f"- Sets with \\|e - a\\| > 0.05 raw but not logged: {new_gaps or 'none'}.",
              f"- Rule: **{'fails' if fail_amlp or new_gaps else 'passes'}**."]
    lines += step2(raw, logged, sets)
    (HERE / "comparison.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def step2(raw, logged, sets):
    """README's step 2: --transform auto, scored from the fits in hand."""
    from selbayes.datasets import load_dataset
    from selbayes.preprocessing import looks_like_raw_intensities

    flagged = [s for s in sets if looks_like_raw_intensities(
        load_dataset(s, preprocess=False).X)]
    auto = pd.concat([logged[logged.dataset.isin(flagged)],
                      raw[~raw.dataset.isin(flagged)]])
    auto = auto[auto.method.isin(["selbayes", *PEERS])]
    a = per_set(auto)
    mean_auto = a.groupby(level="method").amlp.mean()
    better = min(PEERS, key=lambda m: mean_auto[m])
    d1, se1, _, _ = paired(auto, "selbayes", better)
    both = pd.concat([auto[auto.method == "selbayes"].assign(method="auto"),
                      raw[raw.method == "selbayes"].assign(method="raw")])
    d3, se3, m3, s3 = paired(both, "auto", "raw")
    ls = per_set(logged)
    new_gaps = [s for s in sets if a.loc[(s, "selbayes")].abs_gap > 0.05
                and ls.loc[(s, "selbayes")].abs_gap <= 0.05]
    ok = d1 <= 2 * se1 and not new_gaps and d3 <= 2 * se3
    out = ["", "## Step 2: --transform auto", "",
           f"Logged by the criterion (looks_like_raw_intensities on the whole stored matrix): "
           f"{', '.join(flagged)}; as given: "
           f"{', '.join(s for s in sets if s not in flagged)}.", "",
           "| set | selbayes | logreg_l2_cv | logreg_l1_cv | selbayes \\|e - a\\| |",
           "|---|---:|---:|---:|---:|"]
    out += [f"| {s} | {a.loc[(s, 'selbayes')].amlp:.3f} | {a.loc[(s, PEERS[0])].amlp:.3f} | "
            f"{a.loc[(s, PEERS[1])].amlp:.3f} | {a.loc[(s, 'selbayes')].abs_gap:.3f} |"
            for s in sets]
    out += ["", "Mean AMLP under auto: " + ", ".join(
        f"{m} {mean_auto[m]:.3f}" for m in ["selbayes", *PEERS]) + f"; the better peer: "
        f"{better}.", "",
        f"- (1) selbayes - {better} (auto): {d1:+.4f} +- {se1:.4f} "
        f"({'beyond' if d1 > 2 * se1 else 'within'} 2 SE above).",
        f"- (2) sets with \\|e - a\\| > 0.05 under auto but not logged: {new_gaps or 'none'}.",
        f"- (3) selbayes auto - raw: {d3:+.4f} +- {se3:.4f} "
        f"({'worse beyond 2 SE' if d3 > 2 * se3 else 'not worse beyond 2 SE'}; per set: "
        + ", ".join(f"{s} {m3[s]:+.3f}" for s in m3.index) + ").",
        f"- Step 2: **{'adopted' if ok else 'not adopted'}**."]
    return out


if __name__ == "__main__":
    main()
