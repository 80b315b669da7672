"""README.md's check of the replicate warning: how often it fires on simulated training sets
with independent and with paired samples, and what it finds on the development sets.

Run from the repository root: ``python reports/replicate_check/look.py``; writes ``look.md``.
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
DRAWS, DATA_SEED = 20, 41900
SHARES = (0.1, 0.3, 0.5, 0.7)


def fires(X, y) -> tuple[bool, float]:
    """(whether fit would warn, the share of samples in pairs)."""
    from selbayes.evaluation._replicates import replicate_message, replicate_pairs

    pairs = replicate_pairs(X, y)
    return replicate_message(pairs, len(y)) is not None, 2 * len(pairs) / len(y)


def independent(name: str, seed: int):
    from selbayes.experiments.plasmode import make_replicate, scenario

    d = make_replicate(scenario(name), seed)
    return d["X_train"], d["y_train"]


def paired(name: str, seed: int, share: float):
    old = replicates.TECHNICAL_SHARE
    replicates.TECHNICAL_SHARE = share
    try:
        d = replicates.draw(name, seed)
    finally:
        replicates.TECHNICAL_SHARE = old
    return d["X_train"], d["y_train"]


def development_sets() -> list[str]:
    from selbayes.benchmark._runner import _preprocessor, resolve_dataset
    from selbayes.datasets import BENCHMARK_SETS

    lines = ["| set | samples | in pairs | share | warns |", "|---|---:|---:|---:|---|"]
    for name in BENCHMARK_SETS:
        ds = resolve_dataset(name)                # stored scale, as the benchmark reads it
        X = ds.X.to_numpy(dtype=np.float64)
        pre = _preprocessor(ds.preprocessing)
        if pre is not None:
            X = pre.fit_transform(X)
        _, y = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
        warn, share = fires(X, y)
        lines.append(f"| {name} | {len(y)} | {round(share * len(y))} | {share:.2f} | "
                     f"{'yes' if warn else 'no'} |")
    return lines


def main() -> None:
    lines = ["# The replicate warning on simulated and development data (made by look.py)", "",
             f"{DRAWS} draws per row (data seeds {DATA_SEED} + d); 'fires' counts the draws "
             "on which fit would warn; the share is the mean share of samples in pairs.", "",
             "| scenario | samples | fires | share in pairs |", "|---|---|---:|---:|"]
    verdict = []
    for name in SCENARIOS:
        rows = [("independent", lambda s, name=name: independent(name, s))]
        rows += [(f"paired, technical share {t}", lambda s, t=t, name=name: paired(name, s, t))
                 for t in SHARES]
        for label, make in rows:
            got = [fires(*make(DATA_SEED + d)) for d in range(DRAWS)]
            n_fire = sum(w for w, _ in got)
            lines.append(f"| {name} | {label} | {n_fire} of {DRAWS} | "
                         f"{np.mean([s for _, s in got]):.2f} |")
            if label == "independent":
                verdict.append(n_fire == 0)
            elif label.endswith(" 0.1"):
                verdict.append(n_fire >= DRAWS - 1)
    lines += ["", "Rule (README.md, written before the run): adopted if it fires on no "
              "independent draw and on at least 19 of 20 paired draws at technical share 0.1 "
              "in both scenarios. " + ("**Adopted.**" if all(verdict) else "**Not adopted.**"),
              "", "## The development sets (the benchmark's preprocessing)", ""]
    lines += development_sets()
    text = "\n".join(lines) + "\n"
    (HERE / "look.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
