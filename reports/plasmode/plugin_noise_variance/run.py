"""README.md's check (rule written before the run): the default with the plug-in's noise
variances at their conditional mean against the default's stored rows of before the change,
on the same replicates.

Run from the repository root: ``python reports/plasmode/plugin_noise_variance/run.py [jobs]``;
writes ``results.jsonl`` (one line per fit, resumable) and ``report.md``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from unittest.mock import patch

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "inner_repeats"))
import paired  # noqa: E402  (reports/plasmode/paired.py: rule2, read_rows)
import run as inner_repeats  # noqa: E402  (../inner_repeats/run.py: fit_timed, score_row)

NEW, BEFORE = "noise_variance_mean", "selbayes"
# label -> (scenario, data seed, replicates, the stored rows of the default before the change)
GROUPS = {
    **{s: (s, 8900, 10, HERE.parent / "largest_k_within_se" / "results.jsonl")
       for s in ("sim_sparse_strong", "sim_dense_weak", "plasmode_sparse", "plasmode_dense",
                 "plasmode_module")},
    **{f"{s}@5900": (s, 5900, 8, HERE.parent / "inner_repeats" / "dense_results.jsonl")
       for s in ("sim_dense_weak", "sim_dense_weak_n40")},
}
VERIFY = ("sim_sparse_strong", "sim_dense_weak_n40@5900")      # replicate 0 refitted as before


def stored_rows() -> dict:
    """The default's rows of before the change, keyed (BEFORE, label, replicate)."""
    out = {}
    for label, (scenario, _, reps, path) in GROUPS.items():
        rows = paired.read_rows(path)
        for r in range(reps):
            out[(BEFORE, label, r)] = {**rows[("selbayes", scenario, r)], "scenario": label}
    return out


def one(label: str, rep: int, former: bool = False) -> dict:
    """The default fitted to replicate ``rep`` of ``label``'s scenario and scored; with
    ``former`` the plug-in's tau_x at its conditional mean, as before the change."""
    from selbayes.experiments.plasmode import make_replicate
    from selbayes.experiments.plasmode import scenario as scenario_named
    from selbayes.models import _gaussian_plugin

    warnings.simplefilter("ignore")
    scenario, seed, _, _ = GROUPS[label]
    data = make_replicate(scenario_named(scenario), seed + 1000 * rep)
    original = _gaussian_plugin._noise_precision
    assert original.__name__ == "_noise_precision", "a patch left behind in this worker"

    def at_the_mean(priors, counts, ssw):
        a, rate, _ = original(priors, counts, ssw)
        return a, rate, a / rate

    # The former tau_x only for this fit: joblib's workers run later fits in the same process
    # (the first run patched the module for good and fitted some "new" rows with the former
    # tau_x; results_first_run.jsonl, README.md).
    with patch.object(_gaussian_plugin, "_noise_precision",
                      at_the_mean if former else original):
        est, seconds = inner_repeats.fit_timed("selbayes", data, rep)
    row = inner_repeats.score_row(est, seconds, data, label, rep, "former" if former else NEW)
    return {**row, "t_df": getattr(est.estimator_, "t_df_", None)}


def report(rows) -> str:
    labels = list(GROUPS)
    kl, gap, better, worse, worse_gap = paired.rule2(rows, NEW, BEFORE, labels)
    lines = ["# The plug-in's noise variances at their conditional mean against the default "
             "before the change", "",
             "Made by `run.py`; README.md's rule, written before the run. Paired differences "
             "new - before over replicates (mean ± SE, * beyond 2 SE); k and the t prior's df "
             "per replicate in order (before → new where it moved).", "",
             "| scenario | KL before | KL difference | \\|e - a\\| before | \\|e - a\\| new | "
             "\\|e - a\\| difference | slope before → new (median) | k moved | df new |",
             "|---|---:|---:|---:|---:|---:|---|---|---|"]
    for s in labels:
        reps = range(GROUPS[s][2])
        b = [rows[(BEFORE, s, r)] for r in reps]
        n = [rows[(NEW, s, r)] for r in reps]
        (d, se), (g, gse) = kl[s], gap[s]
        moved = [f"{r}: {x['k']} → {y['k']}" for r, (x, y) in enumerate(zip(b, n, strict=True))
                 if x["k"] != y["k"]]
        lines.append(
            f"| {s} | {np.mean([r['kl'] for r in b]):.3f} | "
            f"{d:+.4f} ± {se:.4f}{'*' if abs(d) > 2 * se else ''} | "
            f"{np.mean([r['abs_gap'] for r in b]):.3f} | "
            f"{np.mean([r['abs_gap'] for r in n]):.3f} | "
            f"{g:+.4f} ± {gse:.4f}{'*' if abs(g) > 2 * gse else ''} | "
            f"{np.median([r['slope'] for r in b]):.2f} → "
            f"{np.median([r['slope'] for r in n]):.2f} | "
            f"{'; '.join(moved) or '-'} | {', '.join(str(r['t_df']) for r in n)} |")
    checks = [(k, r) for k, r in rows.items() if k[0] == "former"]
    same = [abs(r["kl"] - rows[(BEFORE, k[1], k[2])]["kl"]) <= 1e-9 for k, r in checks]
    ok1, ok2 = not worse, not worse_gap
    lines += ["", f"Stored rows refitted with the former tau_x: {len(checks)}, the stored KL "
              f"to 1e-9 in {sum(same)}.", "", "## Verdict (README.md's rule)", "",
              f"- Rule 1: KL worse beyond 2 SE in: {', '.join(worse) or 'none'} "
              f"({'holds' if ok1 else 'fails'}); better beyond 2 SE in: "
              f"{', '.join(better) or 'none'} (reported).",
              f"- Rule 2: |expected - actual| worse beyond 2 SE in: "
              f"{', '.join(worse_gap) or 'none'} ({'holds' if ok2 else 'fails'}).", "",
              "**The change stays**; next, the development sets (README.md)." if ok1 and ok2
              else "**The change is reverted.**"]
    return "\n".join(lines) + "\n"


def main(jobs: int = 2) -> None:
    from joblib import Parallel, delayed

    path = HERE / "results.jsonl"
    done = paired.read_rows(path) if path.exists() else {}
    todo = [(label, 0, True) for label in VERIFY if ("former", label, 0) not in done]
    todo += [(label, r, False) for label, (_, _, reps, _) in GROUPS.items() for r in range(reps)
             if (NEW, label, r) not in done]
    # the slowest first (40 training cases fit longest), so the two workers end together
    todo.sort(key=lambda t: "n40" not in t[0])
    for row in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(one)(*t) for t in todo):
        with path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        done[(row["method"], row["scenario"], row["replicate"])] = row
        print(row["method"], row["scenario"], row["replicate"], row["k"], row["t_df"],
              round(row["kl"], 4), round(row["fit_seconds"]), flush=True)
    (HERE / "report.md").write_text(report({**stored_rows(), **done}))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
