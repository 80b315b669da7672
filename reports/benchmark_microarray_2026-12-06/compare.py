"""After the run: the rules of this folder's README (reproducibility, the development-set
acceptance item, and the unseen sets' acceptance items read on these sets), per set and over
the eleven sets. Writes ``comparison.md`` and ``comparison.png`` (each set's paired
differences with 2 SE bars). Decides nothing: these sets report the defaults.

Means and standard errors are the benchmark's own (:func:`selbayes.benchmark.summary_frame`,
:func:`selbayes.benchmark.paired_difference`: the folds of one repeat as the unit, a paired
difference over the same test cases).
Means over the sets are plain means of the sets' means; their SE treats the sets as
independent (sqrt of the sum of squared SEs, over the number of sets).

Run from the repository root: ``python reports/benchmark_microarray_2026-12-06/compare.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from selbayes.benchmark import paired_difference, summary_frame

HERE = Path(__file__).resolve().parent
REPORTS = HERE.parent
COMMITTED = {"srbct": REPORTS / "benchmark_microarray_near_copies_2026-12-06" / "results.csv"}
COMMITTED_OTHERS = REPORTS / "benchmark_microarray_k_grid_clip_2026-12-06" / "results.csv"
DEFAULT, UNCORRECTED, L1, L2 = "selbayes", "selbayes_uncorrected", "logreg_l1_cv", "logreg_l2_cv"
#: The committed report's mean AMLP over the sets (rule 2's reference; recomputed below).
TOLERANCE = 1e-6


def _star(mean, se) -> str:
    return "*" if abs(mean) > 2 * se else ""


def _fmt(mean, se) -> str:
    return f"{mean:+.3f} ± {se:.3f}{_star(mean, se)}"


def committed_rows() -> pd.DataFrame:
    """The committed one-repeat rows of the default (repeat 0, seed 0)."""
    others = pd.read_csv(COMMITTED_OTHERS)
    parts = [others[(others.method == DEFAULT) & ~others.dataset.isin(list(COMMITTED))]]
    for ds, path in COMMITTED.items():
        df = pd.read_csv(path)
        parts.append(df[(df.method == DEFAULT) & (df.dataset == ds)])
    return pd.concat(parts).set_index(["dataset", "fold"]).sort_index()


def paired(res, a, b, ds) -> tuple[float, float]:
    """AMLP of ``a`` minus ``b`` on set ``ds``, paired over the folds: mean and SE."""
    mean, se, _ = paired_difference(res, ds, a, b)
    return mean, se


def over_sets(pairs) -> tuple[float, float]:
    d = np.asarray(pairs, dtype=float)
    return float(d[:, 0].mean()), float(np.sqrt((d[:, 1] ** 2).sum()) / len(d))


def plot(sets, diffs, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    rows = ((L1, "default - L1 logistic regression", "tab:orange", -0.2),
            (L2, "default - L2 logistic regression", "tab:blue", 0.0),
            (UNCORRECTED, "default - its uncorrected twin", "tab:green", 0.2))
    for peer, label, colour, offset in rows:
        m = np.array([diffs[peer][ds][0] for ds in sets])
        se = np.array([diffs[peer][ds][1] for ds in sets])
        ax.errorbar(m, np.arange(len(sets)) + offset, xerr=2 * se, fmt="o", ms=4,
                    color=colour, capsize=2, label=label)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(np.arange(len(sets)), sets)
    ax.invert_yaxis()
    ax.set_xlabel("paired difference in AMLP (nats; < 0: the default is better), ± 2 SE")
    ax.set_title("The default against its peers: 5-fold CV, 2 repeats, the same folds",
                 fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    res = pd.read_csv(HERE / "results.csv")
    failed = res[res.error_message.notna() & (res.error_message.astype(str) != "")]
    sets = sorted(res.dataset.unique())
    lines = ["# The default and its peers on the development sets (made by compare.py)", "",
             "These sets report the defaults and chose some of them: nothing here is an "
             "estimate for new data. Standard errors with the folds of one repeat as the "
             "unit; * beyond 2 SE.", "", f"Failed fits: {len(failed)}.", ""]

    # Rule 1: repeat 0 reproduces the committed one-repeat rows.
    old = committed_rows()
    new0 = res[(res.method == DEFAULT) & (res.repeat == 0)].set_index(["dataset", "fold"])
    new0 = new0.sort_index()
    assert list(new0.index) == list(old.index), "the folds differ from the committed run's"
    diff = np.abs(new0.amlp.values - old.amlp.values)
    worst = new0.index[int(np.argmax(diff))]
    ok1 = bool(diff.max() <= TOLERANCE)
    lines += ["## 1. Reproducibility (repeat 0 against the committed rows)", "",
              f"Largest |AMLP difference| over the {len(diff)} folds: {diff.max():.2e} "
              f"({worst[0]} fold {worst[1]}); "
              + ("within 1e-6: **no finding**." if ok1 else "**a finding** (above 1e-6)."), ""]

    # Rule 2: the mean over the sets against the committed report, repeat 0, the committed
    # rows as a method of their own beside this run's
    both = pd.concat([new0.reset_index(), old.reset_index().assign(method="committed")])
    pairs = [paired(both, DEFAULT, "committed", ds) for ds in sets]
    old_means = summary_frame(old.reset_index()).amlp
    m2, se2 = over_sets(pairs)
    lines += ["## 2. The development-set acceptance item", "",
              f"Mean AMLP over the sets, committed report {np.mean(old_means):.3f}; this "
              f"run's repeat 0 minus it: {_fmt(m2, se2)} "
              + ("(worse beyond 2 SE: **a finding**)." if m2 > 2 * se2
                 else "(not worse beyond 2 SE: **no finding**)."), ""]

    # Rule 3: the unseen sets' acceptance items read on these sets.
    methods = [DEFAULT, UNCORRECTED, L1, L2]
    table = ["| data set | default | uncorrected | L1 | L2 | default - better of L1, L2 "
             "| default - uncorrected | \\|exp - act\\| default (signed) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    means = {m: [] for m in methods}
    diffs = {L1: {}, L2: {}, UNCORRECTED: {}}
    gaps, worse_than_uncorrected = {}, []
    summary = summary_frame(res).set_index(["dataset", "method"])
    for ds in sets:
        amlp = {m: summary.loc[(ds, m), "amlp"] for m in methods}
        for m in methods:
            means[m].append(amlp[m])
        for peer in diffs:
            diffs[peer][ds] = paired(res, DEFAULT, peer, ds)
        better = L1 if amlp[L1] < amlp[L2] else L2
        gap = summary.loc[(ds, DEFAULT), "gap"]
        gaps[ds] = gap
        du = diffs[UNCORRECTED][ds]
        if du[0] > 2 * du[1]:
            worse_than_uncorrected.append(ds)
        table.append(f"| {ds} | {amlp[DEFAULT]:.3f} | {amlp[UNCORRECTED]:.3f} | "
                     f"{amlp[L1]:.3f} | {amlp[L2]:.3f} | {_fmt(*diffs[better][ds])} "
                     f"({'L1' if better == L1 else 'L2'}) | {_fmt(*du)} | "
                     f"{abs(gap):.3f} ({gap:+.3f}) |")
    mean = {m: float(np.mean(v)) for m, v in means.items()}
    better_mean = L1 if mean[L1] < mean[L2] else L2
    d_better = over_sets([diffs[better_mean][ds] for ds in sets])
    d_l1 = over_sets([diffs[L1][ds] for ds in sets])
    d_l2 = over_sets([diffs[L2][ds] for ds in sets])
    d_unc = over_sets([diffs[UNCORRECTED][ds] for ds in sets])
    over = [ds for ds, g in gaps.items() if abs(g) > 0.05]
    l1_sets = [ds for i, ds in enumerate(sets) if means[L1][i] < means[L2][i]]
    l1_mean = {m: float(np.mean([means[m][sets.index(ds)] for ds in l1_sets]))
               for m in methods}
    lines += ["## 3. The unseen sets' acceptance items, read on these sets", "",
              "AMLP in nats (mean over the two repeats); differences paired over the same "
              "test cases. Expected minus actual error > 0: underconfident.", "", *table, "",
              f"- **Mean AMLP over the {len(sets)} sets**: default {mean[DEFAULT]:.3f}, "
              f"uncorrected {mean[UNCORRECTED]:.3f}, L1 {mean[L1]:.3f}, L2 {mean[L2]:.3f}. "
              f"The better of L1 and L2 is {'L1' if better_mean == L1 else 'L2'}; default "
              f"minus it {_fmt(*d_better)}: "
              + ("met (at most the better)." if d_better[0] <= 0
                 else "**not met** (above the better)."),
              f"  Default - L1 {_fmt(*d_l1)}; default - L2 {_fmt(*d_l2)}.",
              "- **|expected - actual error| <= 0.05 on every set**: "
              + ("met." if not over else
                 f"**not met** on {', '.join(f'{ds} ({gaps[ds]:+.3f})' for ds in over)}."),
              "- **Corrected never worse than uncorrected beyond 2 SE**: "
              + ("met (on no set)." if not worse_than_uncorrected else
                 f"**not met** on {', '.join(worse_than_uncorrected)}.")
              + f" Mean over the sets, default - uncorrected {_fmt(*d_unc)}.",
              f"- Sets where L1 beats L2 ({', '.join(l1_sets)}; the regime of the issue's "
              f"unseen sets, where L1 averaged 0.137 and L2 0.207): default "
              f"{l1_mean[DEFAULT]:.3f}, L1 {l1_mean[L1]:.3f}, L2 {l1_mean[L2]:.3f}.", "",
              "![paired differences](comparison.png)", ""]
    plot(sets, diffs, HERE / "comparison.png")
    text = "\n".join(lines)
    (HERE / "comparison.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
