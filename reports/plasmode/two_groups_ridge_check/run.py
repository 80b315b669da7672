"""Does the two-groups identification check fire exactly where the two-groups fit fails?

The rule is in README.md (written before the run). For every scenario and replicate of the
plasmode suite (its seeds), the candidate ``sb_two_groups_wide`` is fitted once; the row
records the calibration against the true probabilities and the statistics of
:func:`selbayes.evaluation._identification.two_groups_identification` on that fit.

Run: ``python reports/plasmode/two_groups_ridge_check/run.py [--jobs 2]``; writes
``results.csv`` (one row per fit, resumable) and ``report.md`` beside this file.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from identification import two_groups_identification  # beside this file

from selbayes.experiments.plasmode import SCENARIOS, calibration_scores, fit_replicate

HERE = Path(__file__).resolve().parent
METHOD, SEED, REPLICATES = "sb_two_groups_wide", 0, 6
SLOPE_FAILURE = 2.0


def _one(name: str, rep: int) -> dict:
    t0 = time.perf_counter()
    est, data = fit_replicate(METHOD, SCENARIOS[name], rep, SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = calibration_scores(est.predict_proba(data["X_test"]), data["p_test"])
    check = two_groups_identification(est.idata_.posterior["pi0"].values,
                                      est.marker_probabilities_)
    ppc = getattr(est, "ppc_checks_", None)
    ppc_warned = None
    if ppc is not None:
        from selbayes.evaluation._ppc import conflict_message
        ppc_warned = conflict_message(ppc, prior_name="two-groups") is not None
    row = {"scenario": name, "replicate": rep, "k": int(est.k_), **scores, **check,
           "ppc_warned": ppc_warned, "seconds": time.perf_counter() - t0}
    print(f"{name} {rep}: {row['seconds']:.0f} s, slope {row['slope']:.2f}, "
          f"weak {row['weak']}", file=sys.stderr, flush=True)
    return row


def _mean_se(x):
    x = np.asarray(x, dtype=float)
    return x.mean(), x.std(ddof=1) / np.sqrt(len(x))


def report(df: pd.DataFrame) -> str:
    df = df.sort_values(["scenario", "replicate"], key=lambda s: s.map(
        {n: i for i, n in enumerate(SCENARIOS)}) if s.name == "scenario" else s)
    df = df.assign(failure=df["slope"] > SLOPE_FAILURE)
    fail, fire = df["failure"], df["weak"]
    missed, false_alarms = int((fail & ~fire).sum()), int((~fail & fire).sum())
    adopted = missed <= 1 and false_alarms == 0
    L = ["# Two-groups identification check on the plasmode suite", "",
         "Made by `run.py`; the rule is in README.md. One fit of `sb_two_groups_wide` per "
         "scenario and replicate (the suite's seeds).", "",
         f"- Failures (slope > {SLOPE_FAILURE:g}): {int(fail.sum())} of {len(df)}; the check "
         f"fired on {int((fail & fire).sum())} of them (missed {missed}) and on "
         f"{false_alarms} replicates that are not failures.",
         f"- Verdict by the rule: **{'adopted' if adopted else 'not adopted'}**.", "",
         "| scenario | KL (nats) | slope | \\|expected - actual\\| | failures | check fired |",
         "|---|---|---|---|---|---|"]
    for sc, g in df.groupby("scenario", sort=False):
        cells = [f"{m:.3f} ± {s:.3f}" for m, s in (_mean_se(g[c]) for c in
                                                  ("kl", "slope", "abs_gap"))]
        L.append(f"| {sc} | " + " | ".join(cells)
                 + f" | {int(g['failure'].sum())} | {int(g['weak'].sum())} |")
    ref_path = HERE.parent / "t_auto_flat_nu" / "results.jsonl"
    if ref_path.is_file():
        # the default's fits of the same replicates (same seeds), from that run
        ref = pd.read_json(ref_path, lines=True).query("method == 'sb_t_auto_wide'")
        both = df.merge(ref[["scenario", "replicate", "kl", "slope", "abs_gap"]],
                        on=["scenario", "replicate"], suffixes=("", "_default"))
        L += ["", "Against the default (`sb_t_auto_wide`, its rows in `../t_auto_flat_nu/`, "
              "the same replicates and seeds), reported, not ruled on; paired differences "
              "two-groups minus default, mean ± SE over replicates:", "",
              "| scenario | KL two-groups | KL default | KL difference | slope two-groups | "
              r"slope default | \|exp - act\| two-groups | \|exp - act\| default |",
              "|---|---|---|---|---|---|---|---|"]
        for sc, g in both.groupby("scenario", sort=False):
            cells = [_mean_se(g[c]) for c in ("kl", "kl_default")]
            cells.append(_mean_se(g["kl"] - g["kl_default"]))
            cells += [_mean_se(g[c]) for c in ("slope", "slope_default", "abs_gap",
                                               "abs_gap_default")]
            L.append(f"| {sc} | " + " | ".join(f"{m:.3f} ± {s:.3f}" for m, s in cells) + " |")
    L += ["", "Per replicate:", "",
          "| scenario | replicate | k | KL | slope | pi0 90% interval | width | mean marker "
          "probability | failure | check fired | F-statistic check warned |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in df.itertuples():
        L.append(f"| {r.scenario} | {r.replicate} | {r.k} | {r.kl:.3f} | {r.slope:.2f} | "
                 f"{r.pi0_q05:.3f} to {r.pi0_q95:.3f} | {r.pi0_width:.3f} | "
                 f"{r.mean_marker_probability:.3f} | {'yes' if r.failure else 'no'} | "
                 f"{'yes' if r.weak else 'no'} | {r.ppc_warned} |")
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    out = HERE / "results.csv"
    done = pd.read_csv(out) if out.is_file() else pd.DataFrame(columns=["scenario", "replicate"])
    have = set(zip(done["scenario"], done["replicate"], strict=True))
    todo = [(n, r) for n in SCENARIOS for r in range(REPLICATES) if (n, r) not in have]
    from joblib import Parallel, delayed

    rows = list(done.to_dict("records"))
    for row in Parallel(n_jobs=args.jobs, return_as="generator")(
            delayed(_one)(n, r) for n, r in todo):
        rows.append(row)
        pd.DataFrame(rows).to_csv(out, index=False)
    df = pd.DataFrame(rows)
    (HERE / "report.md").write_text(report(df))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
