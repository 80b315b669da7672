"""README.md's decision: the default with the replicates it finds kept whole in its inner folds
(``groups="auto"``) against the present default (``groups=None``), on training sets with and
without replicates (exact truth of independent test cases) and on chowdary with its pairs kept
whole in the outer folds.

Run from the repository root: ``python reports/plasmode/groups_auto_default/run.py [jobs]
[part]`` (part: ``simulations``, ``chowdary`` or both, the default; chowdary's fits run in
this process). Writes ``results.jsonl`` (one line per fit; resumes), ``chowdary/`` (the
benchmark's output) and ``report.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "technical_replicates_probe"),
                str(HERE.parents[1] / "chowdary_probe"), str(HERE.parents[1] / "replicate_check")]
import paired  # noqa: E402  (reports/plasmode/paired.py)
import probe  # noqa: E402  (reports/plasmode/probe.py: fit_missing, stack_summary)
from paired_folds import FOLDS, PAIRS, REPEATS, SEED  # noqa: E402  (chowdary's pairs)
from run import draw  # noqa: E402  (technical_replicates_probe/run.py)

#: Fixed before the run (README.md).
ARMS = ("none", "auto")
SIMULATIONS = ("sim_sparse_strong", "sim_dense_weak")
#: layout -> (measurements per tumour, technical share)
LAYOUTS = {"pairs": (2, 0.1), "triplicates": (3, 0.1), "faint_pairs": (2, 0.8)}
SUITE = ("sim_sparse_strong", "sim_dense_weak", "plasmode_sparse", "plasmode_dense",
         "plasmode_module")
REPLICATES, INDEPENDENT_SETS, DATA_SEED = 10, 20, 49900
CHOWDARY_METHODS = {"none": "selbayes_inner_none", "auto": "selbayes_inner_auto"}


def cells() -> list[tuple[str, int]]:
    """Every (cell, replicate): ``layout:scenario`` of designs 1 and 2, ``independent:scenario``
    of design 3."""
    out = [(f"{lay}:{s}", r) for lay in LAYOUTS for s in SIMULATIONS for r in range(REPLICATES)]
    return out + [(f"independent:{s}", r) for s in SUITE for r in range(INDEPENDENT_SETS)]


_X_REAL: dict = {}


def training_set(cell: str, rep: int) -> dict:
    """The replicate's data (``X_train``, ``y_train``, ``X_test``, ``p_test``) and the true
    ``groups`` (each sample alone where there are no replicates)."""
    from selbayes.experiments.plasmode import _standardised_dataset, make_replicate, scenario

    layout, name = cell.split(":")
    seed = DATA_SEED + 1000 * rep
    if layout != "independent":
        copies, share = LAYOUTS[layout]
        return draw(name, seed, copies, share)
    sc = scenario(name)
    if sc.dataset is not None and sc.dataset not in _X_REAL:
        _X_REAL[sc.dataset] = _standardised_dataset(sc.dataset)
    d = make_replicate(sc, seed, X_real=_X_REAL.get(sc.dataset))
    return {**d, "groups": np.arange(len(d["y_train"]))}


def found_summary(d: dict) -> dict:
    """What the check finds in the training set: samples in groups, the share of samples with
    a true replicate grouped with one of their own, samples grouped with none of theirs, and
    each group's correlation and margin (``replicate_groups``' columns)."""
    from selbayes.evaluation._replicates import kept_groups

    table, codes = kept_groups(d["X_train"], d["y_train"], "auto")
    per_group = table.groupby("group")[["correlation", "margin"]].first()
    n = len(d["y_train"])
    codes = np.arange(n) if codes is None else codes
    off = ~np.eye(n, dtype=bool)
    same_found = (codes[:, None] == codes[None, :]) & off
    same_true = (d["groups"][:, None] == d["groups"][None, :]) & off
    has_twin, grouped = same_true.any(1), same_found.any(1)
    found_own = (same_found & same_true).any(1)
    return {"grouped": int(grouped.sum()),
            "recall": float(found_own[has_twin].mean()) if has_twin.any() else None,
            "wrong": int((grouped & ~found_own).sum()),
            "correlation": per_group["correlation"].tolist(),
            "margin": per_group["margin"].tolist()}


def one(cell: str, arm: str, rep: int) -> dict:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    d = training_set(cell, rep)
    est = make_method("selbayes", 2, random_state=rep)
    est.fit(d["X_train"], d["y_train"], groups=None if arm == "none" else "auto")
    out = calibration_scores(est.predict_proba(d["X_test"]), d["p_test"])
    out.update(method=arm, scenario=cell, replicate=rep, copied=False,
               seconds=round(time.perf_counter() - t0, 1))
    out.update(probe.stack_summary(est))
    return out


def run_simulations(jobs: int) -> tuple[dict, dict]:
    """Fit every arm the design needs (``auto`` only where the check finds a group); returns
    the rows, the ``auto`` rows copied from ``none`` where it found none, and what it found."""
    path = HERE / "results.jsonl"
    rows = paired.read_rows(path) if path.exists() else {}
    found = {(c, r): found_summary(training_set(c, r)) for c, r in cells()}
    # design 3 fits neither arm where nothing is found (the difference is 0 there)
    todo = [(c, arm, r) for (c, r), f in found.items() for arm in ARMS
            if (arm, c, r) not in rows
            and (f["grouped"] or (arm == "none" and not c.startswith("independent:")))]
    rows = probe.fit_missing(path, todo, one, jobs) if todo else rows
    for (c, r), f in found.items():
        if not f["grouped"] and ("none", c, r) in rows:
            rows["auto", c, r] = {**rows["none", c, r], "method": "auto", "copied": True}
    return rows, found


def _arm_method(arm: str):
    """A benchmark method: the default whose ``fit`` ignores the outer groups the benchmark
    hands it and passes ``groups=None`` (``none``) or ``"auto"`` instead."""
    from selbayes.benchmark._methods import METHODS

    def make(n_classes, random_state=None, *, quick=False, inner_folds=3):
        est = METHODS["selbayes"](n_classes, random_state, quick=quick,
                                  inner_folds=inner_folds)
        base = type(est)

        def fit(self, X, y, groups=None):
            return base.fit(self, X, y, groups=None if arm == "none" else "auto")

        est.__class__ = type(f"{base.__name__}_{arm}", (base,), {"fit": fit})
        return est
    return make


def run_chowdary():
    """Chowdary with each tumour's two samples in one outer fold; the arms' inner folds see no
    groups or find them. One process (the methods are registered here only)."""
    from selbayes.benchmark import run_benchmark
    from selbayes.benchmark._methods import METHODS

    for arm, name in CHOWDARY_METHODS.items():
        METHODS[name] = _arm_method(arm)
    return run_benchmark(["chowdary"], list(CHOWDARY_METHODS.values()), folds=FOLDS,
                         repeats=REPEATS, seed=SEED, n_jobs=1, out=HERE / "chowdary",
                         progress=False, groups={"chowdary": PAIRS}).results


def chowdary_groups() -> str:
    """The groups the check finds on chowdary's 104 samples (the benchmark's values), as the
    table's rows: real pairs, two preparations of one tumour (reported, deciding nothing)."""
    from look import read_set  # noqa: PLC0415  (reports/replicate_check/look.py)

    from selbayes.evaluation import replicate_groups

    X, y = read_set("chowdary")
    g = replicate_groups(X, y).groupby("group").agg(
        samples=("case", list), correlation=("correlation", "first"),
        margin=("margin", "first"))
    true = sum(len(s) == 2 and PAIRS[s[0]] == PAIRS[s[1]] for s in g["samples"])
    return (f"| chowdary, all 104 samples ({true} of the {len(g)} groups true pairs) | "
            f"{len(g)} | {g['correlation'].min():.2f} to {g['correlation'].max():.2f} | "
            f"{g['margin'].min():.2f} to {g['margin'].max():.2f} |")


def _geo(x) -> float:
    return float(np.exp(np.mean(np.log(x))))


def report(rows: dict, found: dict, chowdary) -> str:
    lines = ["# The replicates found kept whole by default? (made by run.py)", "",
             "README.md's rule. Means over replicates (the slope a geometric mean); paired "
             "differences auto - none (\\* beyond 2 SE). Found: training sets with a group "
             "found; recall: of the samples with a true replicate, the share grouped with one "
             "of their own; wrong: samples grouped with none of their own (total).", "",
             "| cell | arm | KL | \\|e - a\\| | slope | k (median) | found | recall | wrong |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    diffs = {}
    for cell in dict.fromkeys(c for c, _ in cells()):
        reps = sorted(r for c, r in found if c == cell)
        f = [found[cell, r] for r in reps]
        recall = [x["recall"] for x in f if x["recall"] is not None]
        for arm in ARMS:
            got = [rows[(arm, cell, r)] for r in reps if (arm, cell, r) in rows]
            if not got:                 # design 3 where nothing was found: no fits
                lines.append(f"| {cell} | {arm} | (no fit) | | | | "
                             f"{sum(x['grouped'] > 0 for x in f)} of {len(reps)} | - | 0 |")
                continue
            lines.append(
                f"| {cell} | {arm} | {np.mean([r['kl'] for r in got]):.4f} | "
                f"{np.mean([r['abs_gap'] for r in got]):.4f} | "
                f"{_geo([r['slope'] for r in got]):.2f} | "
                f"{np.median([r['k'] for r in got]):.0f} | "
                f"{sum(x['grouped'] > 0 for x in f)} of {len(reps)} | "
                + (f"{np.mean(recall):.2f}" if recall else "-") + " | "
                f"{sum(x['wrong'] for x in f)} |")
        diffs[cell] = (paired.paired(rows, "auto", "none", cell, "kl")
                       if any(("auto", cell, r) in rows for r in reps) else (0.0, 0.0, 0))
    independent = [c for c in diffs if c.startswith("independent:")]
    d_ind = np.array([rows["auto", c, r]["kl"] - rows["none", c, r]["kl"]
                      if found[c, r]["grouped"] else 0.0
                      for c in independent for r in range(INDEPENDENT_SETS)])
    sets_found = sum(found[c, r]["grouped"] > 0 for c in independent
                     for r in range(INDEPENDENT_SETS))
    lines += ["", "| cell | KL auto - none | \\|e - a\\| auto - none |", "|---|---:|---:|"]
    for cell, (d, se, n) in diffs.items():
        if n < 2:
            continue                    # design 3 fits only where something is found
        gap = paired.paired(rows, "auto", "none", cell, "abs_gap")
        lines.append(f"| {cell} | {paired.pm_text(d, se)} | {paired.pm_text(*gap[:2])} |")

    def above(d, se):
        return d - 2 * se > 0

    design1 = [c for c in diffs if c.split(":")[0] in ("pairs", "triplicates")]
    design2 = [c for c in diffs if c.startswith("faint_pairs:")]
    a_ok = (not any(above(*diffs[c][:2]) for c in design1)
            and sum(diffs[c][0] + 2 * diffs[c][1] < 0 for c in design1) >= 3)
    b_ok = not any(above(*diffs[c][:2]) for c in design2)
    m3, se3 = d_ind.mean(), d_ind.std(ddof=1) / np.sqrt(d_ind.size)
    c_ok = sets_found <= 5 and not above(m3, se3)
    from selbayes.benchmark import paired_difference

    dc, sec, _ = paired_difference(chowdary, "chowdary", CHOWDARY_METHODS["auto"],
                                   CHOWDARY_METHODS["none"])
    d_ok = not above(dc, sec)
    amlp = chowdary.groupby("method")["amlp"].mean()
    lines += ["", "The groups found (reported, deciding nothing): each group's smallest "
              "correlation between members and smallest margin, their range per cell.", "",
              "| cell | groups | correlation | margin |", "|---|---:|---|---|"]
    for cell in diffs:
        got = [found[c, r] for c, r in found if c == cell]
        corr = [x for f in got for x in f["correlation"]]
        marg = [x for f in got for x in f["margin"]]
        if corr:
            lines.append(f"| {cell} | {len(corr)} | {min(corr):.2f} to {max(corr):.2f} | "
                         f"{min(marg):.2f} to {max(marg):.2f} |")
    lines += [chowdary_groups()]
    lines += ["", f"No replicates (design 3): groups found in {sets_found} of "
              f"{d_ind.size} training sets; KL auto - none over all of them "
              f"{paired.pm_text(m3, se3)}.", "",
              f"Chowdary, pairs kept whole in the outer folds: AMLP none "
              f"{amlp[CHOWDARY_METHODS['none']]:.3f}, auto {amlp[CHOWDARY_METHODS['auto']]:.3f}; "
              f"auto - none {paired.pm_text(dc, sec)} (15 outer folds, the folds of one repeat "
              "as the unit).", "", "| rule | met |", "|---|---|",
              f"| (a) replicates found: never worse, better in >= 3 of 4 | {a_ok} |",
              f"| (b) faint replicates: never worse | {b_ok} |",
              f"| (c) no replicates: found in <= 5 of 100, never worse | {c_ok} |",
              f"| (d) chowdary: never worse | {d_ok} |", "",
              "**Adopted**: groups='auto' becomes the default." if a_ok and b_ok and c_ok
              and d_ok else "**Not adopted**: the default stays groups=None."]
    return "\n".join(lines) + "\n"


def main(jobs: int = 2, part: str = "both") -> None:
    import pandas as pd

    rows, found = run_simulations(jobs) if part != "chowdary" else (None, None)
    if part == "simulations":
        return
    chowdary = run_chowdary()
    if rows is None:
        rows, found = run_simulations(jobs)
    text = report(rows, found, pd.DataFrame(chowdary))
    (HERE / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, sys.argv[2] if len(sys.argv) > 2 else
         "both")
