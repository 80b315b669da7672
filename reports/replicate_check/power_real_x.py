"""How alike replicates must be for the check to find them on real expression data (reported,
deciding nothing): look_spread.py's replicates made in the five development sets without
known replicates, at several correlations between a sample and its replicate.

Run from the repository root: ``python reports/replicate_check/power_real_x.py``; writes
``power_real_x.md`` (about a minute, no fits).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import look_spread  # noqa: E402

CORRELATIONS = (0.3, 0.5, 0.7, 0.8, 0.9, 0.95)
DATA_SEED, DRAWS = 47900, 10


def made(X, y, seed, a):
    """look_spread.made_replicates with the replicate's share of the sample's own profile a
    (its class-centred correlation with the sample about a)."""
    rng = np.random.default_rng(seed)
    n = len(y)
    r = max(2, round(0.1 * n))
    means = np.stack([X[y == c].mean(axis=0) for c in range(y.max() + 1)])
    chosen, mates = [], []
    for i in rng.permutation(n):
        if len(chosen) == r:
            break
        if np.sum(y == y[i]) < 3 or i in chosen or i in mates:
            continue
        free = [j for j in rng.permutation(np.flatnonzero(y == y[i]))
                if j != i and j not in chosen and j not in mates]
        if free:
            chosen.append(int(i))
            mates.append(int(free[0]))
    keep = np.array([i for i in range(n) if i not in mates])
    rows = [means[y[i]] + a * (X[i] - means[y[i]]) + np.sqrt(1 - a * a) * (X[j] - means[y[j]])
            for i, j in zip(chosen, mates, strict=True)]
    position = {int(i): p for p, i in enumerate(keep)}
    return (np.vstack([X[keep], np.array(rows)]), np.concatenate([y[keep], y[chosen]]),
            [(position[i], len(keep) + k) for k, i in enumerate(chosen)])


def main() -> None:
    from selbayes.evaluation._replicates import replicate_groups, replicate_message

    sets = {name: look_spread.read_set(name) for name in look_spread.CLEAN_SETS}
    lines = ["# How alike replicates must be to be found on real data (made by "
             "power_real_x.py)", "",
             f"{DRAWS} draws per set and correlation (data seeds {DATA_SEED} + 100 d): 10% of "
             "the samples each given a replicate whose class-centred profile correlates about "
             "r with theirs (the rest of its profile another sample of the class, removed). "
             "Cells: made pairs found of those made, and draws on which fit would warn.", "",
             "| set | " + " | ".join(f"r = {r}" for r in CORRELATIONS) + " |",
             "|---|" + "---|" * len(CORRELATIONS)]
    for name, (X, y) in sets.items():
        cells = []
        for a in CORRELATIONS:
            got = total = fired = 0
            for d in range(DRAWS):
                Xm, ym, pairs = made(X, y, DATA_SEED + 100 * d, a)
                found = replicate_groups(Xm, ym)
                got += look_spread.pairs_found(found, pairs)
                total += len(pairs)
                fired += replicate_message(found, len(ym)) is not None
            cells.append(f"{got} of {total} ({fired} warned)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    (HERE / "power_real_x.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
