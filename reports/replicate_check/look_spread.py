"""README.md's rule for the margin in units of each sample's spread (section "A margin in
units of each sample's own spread"): the candidate (``spread_gap=4``) beside the present check
(``spread_gap=None``) on simulated training sets, on real X without and with replicates made
in it, and (reported) on every development set.

Run from the repository root: ``python reports/replicate_check/look_spread.py``; writes
``look_spread.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import look  # noqa: E402  (the simulated draws)

DATA_SEED, DRAWS, REAL_DRAWS = 45900, 20, 10
CHECKS = {"candidate": 4.0, "present": None}          # spread_gap
CLEAN_SETS = ("borovecki", "gravier", "pomeroy", "singh", "sorlie")
SIM_ROWS = (("independent", None), ("2 copies, share 0.1", (2, 0.1)),
            ("3 copies, share 0.1", (3, 0.1)), ("2 copies, share 0.7", (2, 0.7)),
            ("2 copies, share 0.8", (2, 0.8)), ("2 copies, share 0.9", (2, 0.9)))


def check(X, y, spread_gap):
    """(the groups found, whether fit would warn)."""
    from selbayes.evaluation._replicates import replicate_groups, replicate_message

    found = replicate_groups(X, y, spread_gap=spread_gap)
    return found, replicate_message(found, len(y)) is not None


def made_replicates(X, y, seed, share=0.3):
    """README.md's rule 3: 10% of the samples (at least 2) each given a replicate whose noise
    is another sample of its class, removed from the data; ``share`` of the sample's own
    class-centred profile (its correlation with the replicate, about). Returns (X, y, made
    pairs)."""
    rng = np.random.default_rng(seed)
    n = len(y)
    r = max(2, round(0.1 * n))
    means = np.stack([X[y == c].mean(axis=0) for c in range(y.max() + 1)])
    usable = [i for i in rng.permutation(n) if np.sum(y == y[i]) >= 3]
    chosen, mates = [], []                    # a sample, and the one whose noise it takes
    for i in usable:
        if len(chosen) == r:
            break
        if i in chosen or i in mates:
            continue
        free = [j for j in rng.permutation(np.flatnonzero(y == y[i]))
                if j != i and j not in chosen and j not in mates]
        if free:
            chosen.append(int(i))
            mates.append(int(free[0]))
    keep = np.array([i for i in range(n) if i not in mates])
    pairs_noise = list(zip(chosen, mates, strict=True))
    rows = [means[y[i]] + share * (X[i] - means[y[i]])
            + np.sqrt(1 - share * share) * (X[j] - means[y[j]]) for i, j in pairs_noise]
    X_new = np.vstack([X[keep], np.array(rows)])
    y_new = np.concatenate([y[keep], y[chosen]])
    position = {int(i): p for p, i in enumerate(keep)}
    made = [(position[int(i)], len(keep) + k) for k, i in enumerate(chosen)]
    return X_new, y_new, made


def pairs_found(found, pairs) -> int:
    group_of = dict(zip(found["case"].tolist(), found["group"].tolist(), strict=True))
    return sum(a in group_of and group_of.get(b) == group_of[a] for a, b in pairs)


def main() -> None:
    lines = ["# The margin in units of each sample's spread (made by look_spread.py)", "",
             "README.md's section \"A margin in units of each sample's own spread\". "
             f"Candidate: spread_gap 4; present: none. Data seeds {DATA_SEED} + d.", "",
             "## Simulated training sets (20 draws per row)", "",
             "| scenario | samples | fires (candidate) | share | fires (present) | share |",
             "|---|---|---:|---:|---:|---:|"]
    verdict = {}
    for name in look.SCENARIOS:
        for label, design in SIM_ROWS:
            data = [look.independent(name, DATA_SEED + d) if design is None else
                    look.replicated(name, DATA_SEED + d, *design) for d in range(DRAWS)]
            got = {c: [check(X, y, g) for X, y in data] for c, g in CHECKS.items()}
            fires = {c: sum(w for _, w in v) for c, v in got.items()}
            share = {c: np.mean([len(f) / len(y) for (f, _), (_, y) in zip(v, data,
                                                                             strict=True)])
                     for c, v in got.items()}
            lines.append(f"| {name} | {label} | {fires['candidate']} of {DRAWS} | "
                         f"{share['candidate']:.2f} | {fires['present']} of {DRAWS} | "
                         f"{share['present']:.2f} |")
            if design is None:
                verdict[f"1: {name} independent"] = fires["candidate"] == 0
            elif design[1] == 0.1:
                verdict[f"1: {name} {label}"] = fires["candidate"] >= DRAWS - 1
    lines += ["", "## Real X (the benchmark's preprocessing)", "",
              "| set | samples | in groups (candidate) | warns | in groups (present) | "
              "warns | made pairs found, candidate / present (of) | draws fired, "
              "candidate / present |", "|---|---:|---:|---|---:|---|---|---|"]
    made_total = {c: 0 for c in CHECKS}
    fired_total = {c: 0 for c in CHECKS}
    for name in CLEAN_SETS:
        X, y = look.read_set(name)
        plain = {c: check(X, y, g) for c, g in CHECKS.items()}
        verdict[f"2: {name} not warned"] = not plain["candidate"][1]
        found_made = {c: 0 for c in CHECKS}
        fired = {c: 0 for c in CHECKS}
        n_made = 0
        for d in range(REAL_DRAWS):
            Xm, ym, made = made_replicates(X, y, DATA_SEED + 100 * d)
            n_made += len(made)
            for c, g in CHECKS.items():
                found, warned = check(Xm, ym, g)
                found_made[c] += pairs_found(found, made)
                fired[c] += warned
        for c in CHECKS:
            made_total[c] += found_made[c]
            fired_total[c] += fired[c]
        lines.append(f"| {name} | {len(y)} | {len(plain['candidate'][0])} | "
                     f"{'yes' if plain['candidate'][1] else 'no'} | "
                     f"{len(plain['present'][0])} | {'yes' if plain['present'][1] else 'no'} | "
                     f"{found_made['candidate']} / {found_made['present']} ({n_made}) | "
                     f"{fired['candidate']} / {fired['present']} |")
    verdict["3: more made pairs found"] = made_total["candidate"] > made_total["present"]
    verdict["3: no fewer draws fired"] = fired_total["candidate"] >= fired_total["present"]
    lines += ["", "| rule | holds |", "|---|---|"]
    lines += [f"| {k} | {'yes' if v else 'NO'} |" for k, v in verdict.items()]
    lines += ["", "By the rule (README.md, written before the run): "
              + ("**adopted**." if all(verdict.values()) else "**not adopted**."), "",
              "## Every development set (reported, deciding nothing)", "",
              "| set | samples | in groups (candidate) | warns | in groups (present) | warns |",
              "|---|---:|---:|---|---:|---|"]
    from selbayes.datasets import BENCHMARK_SETS

    for name in BENCHMARK_SETS:
        X, y = look.read_set(name)
        res = {c: check(X, y, g) for c, g in CHECKS.items()}
        lines.append(f"| {name} | {len(y)} | {len(res['candidate'][0])} | "
                     f"{'yes' if res['candidate'][1] else 'no'} | {len(res['present'][0])} | "
                     f"{'yes' if res['present'][1] else 'no'} |")
        if name == "chowdary":
            true = [(2 * i, 2 * i + 1) for i in range(len(y) // 2)]
            lines.append(f"| chowdary: of its {len(true)} pairs (rows 2i, 2i + 1) found | | "
                         f"{pairs_found(res['candidate'][0], true)} | | "
                         f"{pairs_found(res['present'][0], true)} | |")
    text = "\n".join(lines) + "\n"
    (HERE / "look_spread.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
