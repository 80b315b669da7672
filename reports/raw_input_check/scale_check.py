"""Step 4 of README.md: ``--transform auto`` on intensities in other units.

Step 3's draws (``simulation.draw``: same seeds), handed to the default as intensities divided
by 100 or by 1000, preprocessed by ``auto``'s old floor (log2 floored at 1) or its new one
(``auto_floor``: 1, or the 10th percentile of the positive values where lower). Writes
``scale_check.csv`` and ``scale_check.md`` beside this file; about 15 minutes on 2 cores:

    python reports/raw_input_check/scale_check.py
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from simulation import REPLICATES, SCENARIOS, draw, finish, paired_difference  # noqa: E402

UNITS = (100.0, 1000.0)          # the intensities are divided by these


def fit_one(scenario: str, rep: int, unit: float, variant: str) -> dict:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores
    from selbayes.preprocessing import AUTO_FLOOR, IntensityLog2, auto_log2_settings

    Xtr, ytr, Xte, p1 = draw(scenario, rep)
    Rtr, Rte = 2.0 ** Xtr / unit, 2.0 ** Xte / unit           # what the user hands over
    pre = auto_log2_settings(Rtr)
    assert pre["transform"] == "log2", pre
    floor = AUTO_FLOOR if variant == "floor_1" else pre["floor"]
    log2 = IntensityLog2(floor=floor)
    Rtr, Rte = log2.fit_transform(Rtr), log2.transform(Rte)
    clf = make_method("selbayes", 2, 1000 * rep + 7).fit(Rtr, ytr)   # as in step 3
    scores = calibration_scores(clf.predict_proba(Rte), np.column_stack([1 - p1, p1]))
    return {"scenario": scenario, "replicate": rep, "unit": unit, "variant": variant,
            "floor": floor, "share_floored": float(np.mean(2.0 ** Xtr / unit < floor)),
            **scores}


def main():
    import warnings

    warnings.filterwarnings("ignore")
    jobs = [(s, r, u, v) for s in SCENARIOS for r in range(REPLICATES) for u in UNITS
            for v in ("floor_1", "auto_floor")]
    res = pd.DataFrame(Parallel(n_jobs=2)(delayed(fit_one)(*j) for j in jobs))
    res.to_csv(HERE / "scale_check.csv", index=False)
    report(res)


def report(res: pd.DataFrame):
    """scale_check.md from the fits' scores and step 3's (``python scale_check.py --report``
    rereads the stored scale_check.csv)."""
    ref = pd.read_csv(HERE / "simulation.csv")
    ref = ref[ref.variant == "auto"].set_index(["scenario", "replicate"]).kl
    lines = ["# Step 4: intensities in other units (made by scale_check.py)", "",
             "Step 3's draws divided by the unit; means over 10 replicates; differences paired "
             "over replicates, SE = sd / sqrt(replicates). `original units`: step 3's `auto` "
             "(floor 1 on the undivided values).", "",
             "| scenario | unit | variant | floor (median) | share floored | KL | \\|e - a\\| "
             "| slope (median) |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    for (s, u, v), g in res.groupby(["scenario", "unit", "variant"], sort=False):
        lines.append(f"| {s} | {u:g} | {v} | {g.floor.median():.3g} | {g.share_floored.mean():.2f} "
                     f"| {g.kl.mean():.4f} | {g.abs_gap.mean():.3f} | {g.slope.median():.2f} |")
    signs = []
    lines += ["", "| scenario | unit | KL new - old floor | SE | beyond 2 SE | KL new - original "
              "units | SE |", "|---|---:|---:|---:|---|---:|---:|"]
    for s in SCENARIOS:
        for u in UNITS:
            w = res[(res.scenario == s) & (res.unit == u)].pivot(
                index="replicate", columns="variant", values="kl")
            m, se, sign = paired_difference(w["auto_floor"] - w["floor_1"])
            verdict = {-1: "new better", 1: "new worse", 0: "-"}[sign]
            signs.append(sign)
            em, ese, _ = paired_difference(w["auto_floor"] - ref.loc[s].reindex(w.index))
            lines.append(f"| {s} | {u:g} | {m:+.4f} | {se:.4f} | {verdict} | {em:+.4f} | "
                         f"{ese:.4f} |")
    finish(HERE / "scale_check.md", lines, signs, "the new floor", " cells")


if __name__ == "__main__":
    if "--report" in sys.argv:
        report(pd.read_csv(HERE / "scale_check.csv"))
    else:
        main()
