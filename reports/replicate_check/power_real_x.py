"""How alike replicates must be for the check to find them on real expression data (reported,
deciding nothing): look_spread.py's replicates made in the five development sets without
known replicates, at several correlations between a sample and its replicate.

Run from the repository root: ``python reports/replicate_check/power_real_x.py``; writes
``power_real_x.md`` (about a minute, no fits).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import look  # noqa: E402
import look_spread  # noqa: E402

CORRELATIONS = (0.3, 0.5, 0.7, 0.8, 0.9, 0.95)
DATA_SEED, DRAWS = 47900, 10


def main() -> None:
    from selbayes.evaluation._replicates import replicate_groups, replicate_message

    sets = {name: look.read_set(name) for name in look_spread.CLEAN_SETS}
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
                Xm, ym, pairs = look_spread.made_replicates(X, y, DATA_SEED + 100 * d, a)
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
