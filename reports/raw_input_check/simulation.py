"""Step 3 of README.md: the default on simulated intensities, raw against ``--transform auto``.

Log2-scale expression, Gaussian given the class (independent genes, sd 1), is handed to the
default classifier as intensities 2^x, or as ``auto_log2_settings`` decides (log2 floored at
1). The test cases' true class probabilities are the generating model's. Writes
``simulation.csv`` and ``simulation.md`` beside this file; about 10 minutes on 2 cores:

    python reports/raw_input_check/simulation.py
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

HERE = Path(__file__).resolve().parent
SCENARIOS = {"sparse": (10, 1.5), "dense": (200, 0.3)}   # (markers, shift on the log2 scale)
P, N_TRAIN, N_TEST, REPLICATES, SEED = 1000, 60, 200, 10, 0


def draw(scenario: str, rep: int):
    """Training and test sets on the log2 scale and the test cases' true P(class 1)."""
    n_markers, shift = SCENARIOS[scenario]
    rng = np.random.default_rng([SEED, rep, list(SCENARIOS).index(scenario)])
    means = rng.normal(7.0, 1.5, size=P)
    delta = np.zeros(P)
    delta[:n_markers] = shift

    def sample(n):
        y = np.repeat([0, 1], n // 2)
        return means + y[:, None] * delta + rng.standard_normal((n, P)), y

    (Xtr, ytr), (Xte, _) = sample(N_TRAIN), sample(N_TEST)
    log_odds = (Xte - means - delta / 2) @ delta            # sd 1, equal class sizes
    return Xtr, ytr, Xte, 1.0 / (1.0 + np.exp(-log_odds))


def paired_difference(d: pd.Series) -> tuple[float, float, int]:
    """Mean and SE (sd / sqrt(replicates)) of paired differences, and -1 / +1 / 0 where the
    mean is below / above 0 beyond 2 SE or within."""
    m, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
    return m, se, -1 if m < -2 * se else 1 if m > 2 * se else 0


def finish(path: Path, lines: list[str], signs: list[int], subject: str, cells: str = ""):
    """Append the rule's verdict (supported: better beyond 2 SE somewhere, worse nowhere) to
    ``lines``, write them to ``path`` and print them."""
    better, worse = sum(x < 0 for x in signs), sum(x > 0 for x in signs)
    ok = better >= 1 and worse == 0
    lines += ["", f"Rule: **{'supports' if ok else 'does not support'}** {subject} "
              f"(better beyond 2 SE in {better}{cells}, worse in {worse})."]
    path.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def fit_one(scenario: str, rep: int, variant: str) -> dict:
    from selbayes.benchmark._methods import make_method
    from selbayes.experiments.plasmode import calibration_scores
    from selbayes.preprocessing import IntensityLog2, auto_log2_settings

    Xtr, ytr, Xte, p1 = draw(scenario, rep)
    Rtr, Rte = 2.0 ** Xtr, 2.0 ** Xte                       # what the user hands over
    if variant == "auto":
        pre = auto_log2_settings(Rtr)
        assert pre["transform"] == "log2", pre
        log2 = IntensityLog2(floor=pre["floor"])
        Rtr, Rte = log2.fit_transform(Rtr), log2.transform(Rte)
    # the default as `selbayes benchmark` builds it (its `selbayes`), one seed per replicate
    clf = make_method("selbayes", 2, 1000 * rep + 7).fit(Rtr, ytr)
    scores = calibration_scores(clf.predict_proba(Rte), np.column_stack([1 - p1, p1]))
    return {"scenario": scenario, "replicate": rep, "variant": variant, **scores}


def main():
    import warnings

    warnings.filterwarnings("ignore")
    jobs = [(s, r, v) for s in SCENARIOS for r in range(REPLICATES) for v in ("raw", "auto")]
    rows = Parallel(n_jobs=2)(delayed(fit_one)(*j) for j in jobs)
    res = pd.DataFrame(rows)
    res.to_csv(HERE / "simulation.csv", index=False)
    report(res)


def report(res: pd.DataFrame):
    """simulation.md from the fits' scores (``python simulation.py --report`` rereads the
    stored simulation.csv)."""
    lines = ["# Step 3: simulated intensities (made by simulation.py)", "",
             f"{P} genes, {N_TRAIN} training and {N_TEST} test cases, {REPLICATES} replicates "
             f"per scenario, seed {SEED}. Means over replicates; differences paired (auto - "
             "raw) with SE = sd / sqrt(replicates).", "",
             "| scenario | variant | KL | \\|e - a\\| | slope |", "|---|---|---:|---:|---:|"]
    for (s, v), g in res.groupby(["scenario", "variant"], sort=False):
        lines.append(f"| {s} | {v} | {g.kl.mean():.4f} | {g.abs_gap.mean():.3f} | "
                     f"{g.slope.median():.2f} (median) |")
    signs = []
    lines += ["", "| scenario | KL auto - raw | SE | beyond 2 SE |", "|---|---:|---:|---|"]
    for s in SCENARIOS:
        w = res[res.scenario == s].pivot(index="replicate", columns="variant", values="kl")
        m, se, sign = paired_difference(w["auto"] - w["raw"])
        signs.append(sign)
        lines.append(f"| {s} | {m:+.4f} | {se:.4f} | "
                     f"{ {-1: 'auto better', 1: 'auto worse', 0: '-'}[sign]} |")
    finish(HERE / "simulation.md", lines, signs, "the default")


if __name__ == "__main__":
    if "--report" in sys.argv:
        report(pd.read_csv(HERE / "simulation.csv"))
    else:
        main()
