"""README.md's checks of the replicate warning: how often it fires on simulated training sets
of independent samples and of replicates (pairs, triplicates, quadruplicates), and what it
finds on the development sets.

Run from the repository root: ``python reports/replicate_check/look.py``; writes ``look.md``.

The first run (2026-12-06, data seeds 41900 + d) checked the pair check alone; its table is
quoted in README.md. This version runs the rule of README.md's section "Groups of any size"
(data seeds 43900 + d): the candidate ``replicate_groups`` (``max_size`` 5) beside the pair
check (the same function with ``max_size`` 2), on the same draws.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "plasmode" / "technical_replicates_probe"))
sys.path.insert(0, str(HERE.parent / "plasmode"))
import run as replicates  # noqa: E402  (the technical-replicates probe's draw)

SCENARIOS = ("sim_sparse_strong", "sim_dense_weak")
DRAWS, DATA_SEED = 20, 43900
#: (copies of each tumour, technical share); README.md's rule reads the rows at share 0.1.
DESIGNS = ((2, 0.1), (3, 0.1), (4, 0.1), (2, 0.3), (3, 0.3), (2, 0.5), (3, 0.5))
CHECKS = {"groups": 5, "pairs": 2}            # max_size of the candidate and of the pair check


def fires(X, y, max_size: int) -> tuple[bool, float, float]:
    """(whether fit would warn, the share of samples in groups, their mean group size)."""
    from selbayes.evaluation._replicates import replicate_groups, replicate_message

    found = replicate_groups(X, y, max_size=max_size)
    size = found.drop_duplicates("group")["size"].mean() if len(found) else np.nan
    return replicate_message(found, len(y)) is not None, len(found) / len(y), size


def independent(name: str, seed: int):
    from selbayes.experiments.plasmode import make_replicate, scenario

    d = make_replicate(scenario(name), seed)
    return d["X_train"], d["y_train"]


def replicated(name: str, seed: int, copies: int, share: float):
    old = replicates.TECHNICAL_SHARE
    replicates.TECHNICAL_SHARE = share
    try:
        d = replicates.draw(name, seed, copies=copies)
    finally:
        replicates.TECHNICAL_SHARE = old
    return d["X_train"], d["y_train"]


def read_set(name: str):
    """A development set's values as the benchmark reads them, and its class indices."""
    from selbayes.benchmark._runner import _preprocessor, resolve_dataset

    ds = resolve_dataset(name)                # stored scale, as the benchmark reads it
    X = ds.X.to_numpy(dtype=np.float64)
    pre = _preprocessor(ds.preprocessing)
    if pre is not None:
        X = pre.fit_transform(X)
    _, y = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
    return X, y


def development_sets() -> list[str]:
    from selbayes.datasets import BENCHMARK_SETS

    lines = ["| set | samples | in groups (pairs check) | in groups | group sizes | warns |",
             "|---|---:|---:|---:|---|---|"]
    from selbayes.evaluation._replicates import replicate_groups, replicate_message

    for name in BENCHMARK_SETS:
        X, y = read_set(name)
        pairs = replicate_groups(X, y, max_size=CHECKS["pairs"])
        found = replicate_groups(X, y, max_size=CHECKS["groups"])
        sizes = found.drop_duplicates("group")["size"].value_counts().sort_index()
        warn = replicate_message(found, len(y)) is not None
        lines.append(f"| {name} | {len(y)} | {len(pairs)} | {len(found)} | "
                     + (", ".join(f"{c} of {s}" for s, c in sizes.items()) or "-")
                     + f" | {'yes' if warn else 'no'} |")
    return lines


def main() -> None:
    lines = ["# The replicate warning on simulated and development data (made by look.py)", "",
             f"{DRAWS} draws per row (data seeds {DATA_SEED} + d); 'fires' counts the draws "
             "on which fit would warn, by the candidate (groups of up to 5) and by the pair "
             "check (groups of 2) on the same draws; the share is the mean share of samples "
             "in groups, the size the mean size of the groups found.", "",
             "| scenario | samples | fires (groups) | share | size | fires (pairs) | share |",
             "|---|---|---:|---:|---:|---:|---:|"]
    verdict = []
    for name in SCENARIOS:
        rows = [("independent", lambda s, name=name: independent(name, s))]
        rows += [(f"{c} copies, technical share {t}",
                  lambda s, c=c, t=t, name=name: replicated(name, s, c, t))
                 for c, t in DESIGNS]
        for label, make in rows:
            data = [make(DATA_SEED + d) for d in range(DRAWS)]
            got = {check: [fires(X, y, m) for X, y in data] for check, m in CHECKS.items()}
            n_fire = {c: sum(w for w, _, _ in g) for c, g in got.items()}
            g = got["groups"]
            sizes = [z for _, _, z in g if np.isfinite(z)]
            lines.append(f"| {name} | {label} | {n_fire['groups']} of {DRAWS} | "
                         f"{np.mean([s for _, s, _ in g]):.2f} | "
                         f"{np.mean(sizes) if sizes else float('nan'):.2f} | "
                         f"{n_fire['pairs']} of {DRAWS} | "
                         f"{np.mean([s for _, s, _ in got['pairs']]):.2f} |")
            if label == "independent":
                verdict.append(n_fire["groups"] == 0)
            elif label in ("2 copies, technical share 0.1", "3 copies, technical share 0.1"):
                verdict.append(n_fire["groups"] >= DRAWS - 1)
    lines += ["", "Rule (README.md, section \"Groups of any size\", written before the run): "
              "the candidate replaces the pair check if it fires on no independent draw and on "
              "at least 19 of 20 draws with 2 and with 3 copies at technical share 0.1, in both "
              "scenarios. " + ("**Adopted.**" if all(verdict) else "**Not adopted.**"),
              "", "## The development sets (the benchmark's preprocessing)", ""]
    lines += development_sets()
    text = "\n".join(lines) + "\n"
    (HERE / "look.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
