"""Whether the default's inner cross-validation can tell that the chosen fit predicts no
better than the class proportions: the check of README.md (rule written before the run).

For each replicate of the suite's five scenarios and the three held-out ones, the default
(``sb_t_auto_wide_noise_cv``) is fitted with ``method="plugin"`` (its inner cross-validation
is the MCMC fit's; the k is checked against the MCMC run), and the per-case difference
between the class proportions' loss and the chosen candidate's is summarised as z. Run:
``python reports/plasmode/no_signal_check/run.py [jobs]``; writes ``results.jsonl`` (one line
per replicate, resumable) and ``report.md``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SUITE = HERE.parent
sys.path.insert(0, str(SUITE))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)

METHOD = "sb_t_auto_wide_noise_cv"
SCENARIOS = ("sim_sparse_strong", "sim_dense_weak", "plasmode_sparse", "plasmode_dense",
             "plasmode_module", "holdout_sparse", "holdout_dense", "holdout_module")
SEED = 0


def no_signal_z(choice, y_index, G):
    """(z, mean d, se): d_i = -log pi_{y_i} - (chosen candidate's loss on inner test case i),
    pi the Laplace-smoothed class shares of all training cases."""
    best = int(np.argmin(choice.score))
    if "share_case_losses" in choice.extra:
        S = choice.extra["share_case_losses"][best]              # (shares, n)
        from selbayes.estimators._inner_cv import LABEL_NOISE_SHARES

        own = S[list(LABEL_NOISE_SHARES).index(choice.extra["label_noise_c"])]
    else:
        own = choice.extra["case_losses"][best]
    counts = np.bincount(y_index, minlength=G)
    pi = (counts + 1) / (counts.sum() + G)
    d = -np.log(pi[y_index]) - own
    se = d.std(ddof=1) / np.sqrt(d.size)
    return float(d.mean() / se), float(d.mean()), float(se)


def one(scenario_name, rep):
    from selbayes.experiments import plasmode

    warnings.simplefilter("ignore")
    sc = {**plasmode.SCENARIOS, **plasmode.HOLDOUT_SCENARIOS}[scenario_name]
    data = plasmode.make_replicate(sc, SEED + 1000 * rep)
    est = plasmode.make_candidate(METHOD, random_state=SEED + rep).set_params(method="plugin",
                                                                     progressbar=False)
    est.fit(data["X_train"], data["y_train"])
    yi = np.searchsorted(est.classes_, data["y_train"])
    z, d, se = no_signal_z(est.k_choice_, yi, len(est.classes_))
    return {"scenario": scenario_name, "replicate": rep, "k": int(est.k_), "z": z,
            "gain": d, "gain_se": se}


def mcmc_rows():
    rows = {}
    for path in (SUITE / "label_noise_cv_mcmc" / "results.jsonl",
                 SUITE.parent / "plasmode_holdout" / "results.jsonl"):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if r["method"] == METHOD:
                rows[(r["scenario"], r["replicate"])] = r
    return rows


def report(rows):
    mcmc = mcmc_rows()
    lines = ["# The no-signal diagnostic against the collapsed fits", "",
             "Made by `run.py` (the rule is README.md's, written before the run). z: the "
             "inner cross-validated gain over the class proportions in SEs (flagged: z < 2); "
             "collapsed: the MCMC default's calibration slope > 3.", "",
             "| scenario | replicate | k (plug-in / MCMC) | gain (nats) | z | flagged "
             "| MCMC slope | collapsed | MCMC KL |", "|---|---:|---|---:|---:|---|---:|---|---:|"]
    tally = {"collapsed": [0, 0], "simulation": [0, 0], "other": [0, 0]}
    for r in sorted(rows, key=lambda r: (SCENARIOS.index(r["scenario"]), r["replicate"])):
        m = mcmc[(r["scenario"], r["replicate"])]
        flagged, collapsed = r["z"] < 2, m["slope"] > 3
        group = ("collapsed" if collapsed else "simulation" if r["scenario"].startswith("sim")
                 else "other")
        tally[group][0] += flagged
        tally[group][1] += 1
        lines.append(f"| {r['scenario']} | {r['replicate']} | {r['k']} / {m['k']} | "
                     f"{r['gain']:.3f} ± {r['gain_se']:.3f} | {r['z']:.1f} | "
                     f"{'yes' if flagged else ''} | {m['slope']:.2f} | "
                     f"{'yes' if collapsed else ''} | {m['kl']:.3f} |")
    c, s, o = tally["collapsed"], tally["simulation"], tally["other"]
    adopt = c[1] > 0 and c[0] >= c[1] / 2 and s[0] == 0 and o[0] <= o[1] / 10
    lines += ["", f"- Flagged: {c[0]} of {c[1]} collapsed replicates; {s[0]} of {s[1]} "
              f"simulation replicates; {o[0]} of {o[1]} other non-collapsed replicates.",
              "- Verdict (README's rule): " + ("**add the warning**." if adopt else
                                              "**not added**.")]
    text = "\n".join(lines) + "\n"
    (HERE / "report.md").write_text(text)
    print(text, end="")


def main() -> int:
    path = HERE / "results.jsonl"
    offline.run_all(one, path, ("k", "z"), scenarios=SCENARIOS)
    report([json.loads(line) for line in path.read_text().splitlines()])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
