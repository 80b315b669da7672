"""How well the inner cross-validation separates the candidate priors: the choice of
``effect_prior="auto"`` on one sim_dense_weak replicate (replicate 1 of seed 0, the suite's
data) with three inner seeds.

Usage (from the repository root): ``python reports/plasmode/prior_cv/inner_noise.py``
(about 5 minutes on two cores); writes ``inner_noise.md`` beside it. Uses the current code
(the inner predictive multiplies per-feature averages since 2026-11-27).
"""

from __future__ import annotations

import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    from selbayes.estimators import choose_effect_prior
    from selbayes.estimators._prior_choice import effect_prior_candidates
    from selbayes.experiments.plasmode import SCENARIOS, make_replicate

    data = make_replicate(SCENARIOS["sim_dense_weak"], 0 + 1000 * 1)   # the run's replicate 1
    lines = ["# Inner cross-validated log score of each candidate prior", "",
             "Made by `inner_noise.py`: sim_dense_weak, replicate 1, three inner seeds "
             "(the default's other settings). score: each prior at its own best k; diff ± SE: "
             "paired difference to the chosen prior over the 80 inner test cases.", ""]
    for seed in (0, 1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ch = choose_effect_prior(data["X_train"], data["y_train"],
                                     effect_prior_candidates(None), random_state=seed)
        lines += [f"## inner seed {seed}: {ch.label}", "",
                  "| prior | k | score | diff ± SE |", "|---|---:|---:|---:|"]
        for i, label in enumerate(ch.labels):
            lines.append(f"| {label} | {ch.k[i]} | {ch.score[i]:.4f} | "
                         f"{ch.diff[i]:+.4f} ± {ch.diff_se[i]:.4f} |")
        lines.append("")
    (HERE / "inner_noise.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
