"""Scores the held-out label check's run (``results.jsonl``) by the rules of README.md and
writes ``report.md``.

Usage (from the repository root): ``python reports/label_check/report.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ALPHA, CLEAN_FITS = 0.05, 80


def main() -> None:
    rows = [json.loads(line) for line in (HERE / "results.jsonl").read_text().splitlines()
            if line]
    suite = [r for r in rows if r["part"] == "suite"]
    clean = [r for r in suite if not r["swapped"]]
    swapped = [r for r in suite if r["swapped"]]
    dev = sorted((r for r in rows if r["part"] == "dev"), key=lambda r: r["scenario"])
    scenarios = list(dict.fromkeys(r["scenario"] for r in suite))
    bar = ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / CLEAN_FITS)

    n_alarm = sum(bool(r["flagged"]) for r in clean)
    r1 = len(clean) == CLEAN_FITS and n_alarm / CLEAN_FITS <= bar
    hits = [set(r["flagged"]) & set(r["swapped"]) for r in swapped]
    r2 = any(hits)
    out = ["# The held-out label check: size on clean labels, power on swapped ones", "",
           "Made by `report.py` from `results.jsonl` (rules in README.md, written before the "
           "run). Plug-in fits of the default Gaussian classifier; a case is flagged when "
           "(G - 1) times its held-out probability of its own label is below 0.05 / n.", "",
           "## Rules", "",
           f"- R1 (size): {n_alarm} of {len(clean)} clean fits with a flagged case "
           f"(share {n_alarm / max(len(clean), 1):.3f}; bar 0.05 + 2 SE = {bar:.3f}): "
           f"**{'pass' if r1 else 'fail'}**.",
           f"- R2 (power): a swapped case flagged in {sum(bool(h) for h in hits)} of "
           f"{len(swapped)} swapped fits: **{'pass' if r2 else 'fail'}**.", "",
           f"Verdict: **{'adopted' if r1 and r2 else 'not adopted'}** as the warning of `fit`.",
           "", "## By scenario", "",
           "| scenario | clean fits with a flag | smallest clean held-out p (median over fits) "
           "| swapped fits with a swapped case flagged | swapped cases flagged | other cases "
           "flagged in swapped fits |",
           "|---|---:|---:|---:|---:|---:|"]
    for s in scenarios:
        c = [r for r in clean if r["scenario"] == s]
        w = [r for r in swapped if r["scenario"] == s]
        found = [len(set(r["flagged"]) & set(r["swapped"])) for r in w]
        other = sum(len(set(r["flagged"]) - set(r["swapped"])) for r in w)
        out.append(f"| {s} | {sum(bool(r['flagged']) for r in c)} / {len(c)} | "
                   f"{np.median([r['min_p_clean'] for r in c]):.2g} | "
                   f"{sum(f > 0 for f in found)} / {len(w)} | {sum(found)} / {2 * len(w)} | "
                   f"{other} |")
    out += ["", "## The development sets (reported, not ruled: the labels' truth is unknown)", "",
            "| set | n | k | flagged cases (label, held-out p of it) | smallest held-out p |",
            "|---|---:|---:|---|---:|"]
    for r in dev:
        named = ", ".join(f"{s} ({lab}, {p:.1e})" for s, lab, p in
                          zip(r["flagged"], r["labels_flagged"], r["p_flagged"], strict=True))
        out.append(f"| {r['scenario']} | {r['n']} | {r['k']} | {named or 'none'} | "
                   f"{r['min_p']:.2g} |")
    (HERE / "report.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
