"""README.md's decision: by default keep whole only the groups the replicate check finds whose
members all correlate at 0.8 or more (near-copies). Counts what the candidate would keep on
known-truth replicates, new subsets of real X and chowdary's outer training folds; fits only
where chowdary needs them.

Run from the repository root: ``python reports/plasmode/near_copies_default/run.py``; writes
``report.md``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1] / "replicate_check")]
import look  # noqa: E402  (reports/replicate_check/look.py: read_set)


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: ../groups_auto_default/run.py (its training sets, draws and chowdary's pairs)
previous = _load("groups_auto_default_run", HERE.parent / "groups_auto_default" / "run.py")

#: Fixed before the run (README.md).
NEAR_COPY = 0.8
SENSITIVITY_SHARES, SENSITIVITY_SETS, SENSITIVITY_SEED = (0.15, 0.2, 0.25), 10, 51900
CLEAN_SETS = ("borovecki", "gravier", "pomeroy", "singh", "sorlie")
SUBSET_SIZES, SUBSETS, SUBSET_SEED = (40, 70), 20, 53900
DEVELOPMENT_SETS = ("borovecki", "chowdary", "golub", "gravier", "nakayama", "pomeroy", "singh",
                    "sorlie", "subramanian", "srbct", "colon")


def kept(X, y, *, floor: float = NEAR_COPY) -> list[list[int]]:
    """The groups the candidate keeps whole: those the check finds whose members all
    correlate at ``floor`` or more (lists of row numbers); ``floor=-inf``: every group found
    (what ``groups="auto"`` keeps whole)."""
    from selbayes.evaluation import replicate_groups

    found = replicate_groups(np.asarray(X, dtype=np.float64), np.asarray(y))
    near = found[found["correlation"] >= floor]
    return [sorted(s) for s in near.groupby("group")["case"].apply(list)]


def design_a() -> tuple[str, bool]:
    same, total, groups = 0, 0, 0
    for lay in ("pairs", "triplicates"):
        for s in previous.SIMULATIONS:
            for r in range(previous.REPLICATES):
                d = previous.training_set(f"{lay}:{s}", r)
                a = kept(d["X_train"], d["y_train"])
                b = kept(d["X_train"], d["y_train"], floor=-np.inf)
                same += a == b
                total += 1
                groups += len(b)
    ok = same == total
    return (f"(a) near-copies of known truth: the candidate keeps exactly the groups `auto` "
            f"kept in {same} of {total} training sets ({groups} groups).", ok)


def design_b() -> str:
    lines = ["| scenario | " + " | ".join(f"share {s}" for s in SENSITIVITY_SHARES) + " |",
             "|---|" + "---:|" * len(SENSITIVITY_SHARES)]
    for name in previous.SIMULATIONS:
        cells = []
        for share in SENSITIVITY_SHARES:
            got = total = 0
            for r in range(SENSITIVITY_SETS):
                d = previous.draw(name, SENSITIVITY_SEED + 1000 * r, 2, share)
                pairs = {tuple(g) for g in kept(d["X_train"], d["y_train"])}
                got += sum((2 * i, 2 * i + 1) in pairs for i in range(len(d["y_train"]) // 2))
                total += len(d["y_train"]) // 2
            cells.append(f"{got} of {total}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def design_c() -> tuple[str, bool, list]:
    lines = ["| set | " + " | ".join(f"n = {n}" for n in SUBSET_SIZES) + " |",
             "|---|" + "---:|" * len(SUBSET_SIZES)]
    hits, total, seen = 0, 0, []
    for name in CLEAN_SETS:
        X, y = look.read_set(name)
        cells = []
        for n in SUBSET_SIZES:
            if len(y) <= n:
                cells.append("-")
                continue
            count = 0
            for d in range(SUBSETS):
                rows = np.random.default_rng(SUBSET_SEED + 100 * d).choice(len(y), n,
                                                                           replace=False)
                g = kept(X[rows], y[rows])
                count += bool(g)
                seen += [(name, n, d, [rows[i].item() for i in grp]) for grp in g]
            hits += count
            total += SUBSETS
            cells.append(f"{count} of {SUBSETS}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    ok = hits <= 0.05 * total
    lines += ["", f"Subsets with a group kept whole: {hits} of {total} (limit 5%: "
              f"{int(0.05 * total)})."]
    return "\n".join(lines), ok, seen


def on_whole_set(seen) -> str:
    """Each pair kept in (c), on its whole set (reported, deciding nothing): the pair's
    correlation and each member's next three nearest rows and correlations."""
    from selbayes.evaluation._replicates import _profile_correlations

    out = []
    for name, rows in sorted({(s[0], tuple(sorted(s[3]))) for s in seen}):
        X, y = look.read_set(name)
        C = _profile_correlations(X, y)
        np.fill_diagonal(C, -1.0)
        a, b = rows[0], rows[-1]
        near = {i: [(int(j), round(float(C[i, j]), 2)) for j in np.argsort(-C[i])
                    if j not in rows][:3] for i in rows}
        out.append(f"{name} rows {list(rows)}: correlation {C[a, b]:.2f} on all {len(y)} "
                   f"samples; next nearest (row, correlation): {near}")
    return "; ".join(out) or "none"


def _training_folds(name: str, groups=None):
    """The benchmark's training folds of a development set (5 x 3, seed 0) on its values."""
    from selbayes.benchmark._runner import _make_splits

    X, y = look.read_set(name)
    splits = _make_splits(y, 5, 3, 0, groups=groups)
    return X, y, [tr for _, folds in splits for tr, _ in folds]


def design_d() -> tuple[str, bool | None]:
    X, y, trains = _training_folds("chowdary", previous.PAIRS)
    with_group = sum(bool(kept(X[tr], y[tr])) for tr in trains)
    if with_group == 0:
        return ("(d) chowdary, pairs whole outside: the candidate keeps no group in any of the "
                f"{len(trains)} outer training folds, so its fits are the `none` arm's.", True)
    return (f"(d) chowdary: the candidate keeps a group in {with_group} of {len(trains)} outer "
            "training folds; the rule asks for both arms' fits (not made by this script: "
            "undecided).", None)


def design_e() -> str:
    out = []
    for name in DEVELOPMENT_SETS:
        X, y, trains = _training_folds(name)
        n = sum(bool(kept(X[tr], y[tr])) for tr in trains)
        out.append(f"{name} {n}")
    return ("(e) development benchmark training folds (of 15 per set) where the candidate keeps "
            "a group whole: " + ", ".join(out) + ".")


def main() -> None:
    warnings.simplefilter("ignore")
    a_text, a_ok = design_a()
    b_text = design_b()
    c_text, c_ok, seen = design_c()
    d_text, d_ok = design_d()
    e_text = design_e()
    adopted = a_ok and c_ok and d_ok is True
    lines = ["# Near-copies kept whole by default? (made by run.py)", "",
             f"README.md's rule; near-copies: groups found whose members all correlate at "
             f"{NEAR_COPY} or more.", "", a_text, "",
             "(b) true pairs kept whole, by technical share (reported, deciding nothing):", "",
             b_text, "", "(c) new subsets of real X without known replicates: subsets with a "
             "group kept whole", "", c_text, "",
             "Groups kept there (set, n, subset, rows): "
             + (json.dumps(seen) if seen else "none") + ".", "",
             "The kept pairs on their whole set (reported, deciding nothing): "
             + on_whole_set(seen) + ".", "", d_text, "", e_text, "",
             "| rule | met |", "|---|---|", f"| (a) | {a_ok} |", f"| (c) | {c_ok} |",
             f"| (d) | {d_ok} |", "",
             "**Adopted**: the default keeps near-copies whole." if adopted
             else "**Not adopted**: the default stays groups=None."]
    text = "\n".join(lines) + "\n"
    (HERE / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
