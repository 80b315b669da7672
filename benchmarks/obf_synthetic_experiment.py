"""Reproduce the synthetic experiment of the OBF paper (spec obf.md sections 4.1-4.3), reduced.

Run: ``.venv/bin/python benchmarks/obf_synthetic_experiment.py``
Writes ``reports/obf_synthetic/report.md`` and ``reports/obf_synthetic/mislabelled.png``.

The paper averages 600 iterations per n over n = 50..1000 (Fig. 1a) and reports only curves; we
run a few replicates per n (settings below) so the script takes a few minutes on one core, and
compare the *ordering* of the methods with the paper's qualitative claims, using paired
differences (same data sets for every method) with their standard errors.
"""

from __future__ import annotations

import datetime
import os
import platform
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from selbayes.filters._obf_experiment import METHODS, N_FEATURES, run_replicate  # noqa: E402

# (n, replicates): n is the total sample size, n/2 per class
SETTINGS = ((50, 8), (100, 8), (200, 8), (400, 8), (700, 6), (1000, 6), (2000, 4))
SEED = 20240601
OUT = Path(__file__).resolve().parents[1] / "reports" / "obf_synthetic"


def run() -> tuple[dict, float]:
    ss = np.random.SeedSequence(SEED)
    results = {}
    t0 = time.perf_counter()
    for (n, reps), child in zip(SETTINGS, ss.spawn(len(SETTINGS)), strict=True):
        rngs = [np.random.default_rng(s) for s in child.spawn(reps)]
        rows = [run_replicate(n, rng) for rng in rngs]
        results[n] = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
        print(f"n = {n}: {reps} replicates done ({time.perf_counter() - t0:.0f} s)", flush=True)
    return results, time.perf_counter() - t0


def _mean_se(a):
    return a.mean(), (a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else np.nan)


def _paired(results, a, b):
    """Mean and SE over replicates of (correct_a - correct_b), per n."""
    return {n: _mean_se(r[a] - r[b]) for n, r in results.items()}


def plot(results) -> Path:
    ns = np.array(list(results))
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    styles = {"MNC-OBF-PP": "-o", "MNC-OBF-JP": "--o", "CMNC-OBF-PP": "-s",
              "CMNC-OBF-JP": "--s", "Welch t (top 100)": ":^", "F statistic (top 100)": ":v",
              "BD (top 100)": "-.d"}
    for m in METHODS:
        mis = np.array([N_FEATURES - results[n][m].mean() for n in ns])
        se = np.array([_mean_se(results[n][m])[1] for n in ns])
        ax.errorbar(ns, mis, yerr=se, fmt=styles[m], ms=4, capsize=2, label=m)
    ax.axhline(100, color="grey", lw=0.8)
    ax.text(ns[-1], 108, "empty selection (100 mislabelled)", fontsize=8, color="grey",
            ha="right")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("total sample size n (n/2 per class)")
    ax.set_ylabel("mislabelled features (of 20,000), mean ± SE")
    ax.set_title("OBF synthetic experiment (Foroughi pour & Dalton, Fig. 1), reduced reps\n"
                 "(Welch t and F coincide: balanced classes)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path = OUT / "mislabelled.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _fmt(m, se):
    return f"{m:+.1f} ± {se:.1f}"


def report(results, seconds) -> str:
    ns = list(results)
    L = [
        "# OBF synthetic experiment: OBF variants vs t-test / F statistic / BD",
        "",
        "Reproduction (reduced) of the synthetic experiment of Foroughi pour & Dalton, "
        "\"Theory of Optimal Bayesian Feature Filtering\" (spec `obf.md` sections 4.1-4.3).",
        "",
        "## Settings",
        "",
        "- Data: synergetic model of Hua et al. (2009): 20,000 features in 4 groups; 20 global "
        "and 80 heterogeneous markers (blocks of 5, within-block correlation 0.8), 11,900 "
        "low-variance and 8,000 high-variance (mixture) non-markers; balanced classes. All "
        "markers differ in mean (none is variance-only).",
        "- MNC-OBF-PP / CMNC-OBF-PP: proper prior s = 0.5, kappa = 3, nu = 0.1, m_0 = m_B = 0 and "
        "m_1 = 0 (unreadable in the paper's OCR; it barely matters with nu = 0.1); "
        "pi(f) = 0.005. MNC keeps pi* > 0.5, CMNC the top D = 100.",
        "- MNC-OBF-JP / CMNC-OBF-JP: Jeffreys prior with L = 0.1 in the paper's eq (2.18) "
        "convention (the authors' MATLAB code omits a sqrt(2 pi); see `selbayes.filters.obf`), "
        "pi(f) = 0.005.",
        "- Baselines, each keeping its top 100: Welch t (|t|), one-way ANOVA F "
        "(`selbayes.select_features`, equivalent to the pooled t), Bhattacharyya distance (BD).",
        "- Score: number of correctly labelled features out of 20,000 (the empty selection "
        "scores 19,900). Plot: 20,000 minus it (mislabelled), log scales.",
        "- Replicates per n: " + ", ".join(f"n = {n}: {results[n]['MNC-OBF-PP'].size}"
                                           for n in ns)
        + f" (the paper uses 600 per n). Seed {SEED} (numpy SeedSequence, one child per n).",
        f"- Runtime {seconds:.0f} s on {platform.platform()}, os.cpu_count() = "
        f"{os.cpu_count()} (shared), {datetime.date.today().isoformat()}. Command: "
        "`.venv/bin/python benchmarks/obf_synthetic_experiment.py`.",
        "",
        "## Mean correctly labelled features (± SE over replicates)",
        "",
        "| n | " + " | ".join(METHODS) + " | mean \\|MNC-PP\\| | mean \\|MNC-JP\\| |",
        "|---|" + "---|" * (len(METHODS) + 2),
    ]
    for n in ns:
        r = results[n]
        cells = [f"{_mean_se(r[m])[0]:,.1f} ± {_mean_se(r[m])[1]:.1f}" for m in METHODS]
        L.append(f"| {n} | " + " | ".join(cells)
                 + f" | {r['|MNC-OBF-PP|'].mean():.1f} | {r['|MNC-OBF-JP|'].mean():.1f} |")

    comparisons = [
        ("MNC-OBF-PP", "MNC-OBF-JP", "PP > JP (claim 2)"),
        ("MNC-OBF-JP", "CMNC-OBF-PP", "MNC > CMNC (claim 3)"),
        ("MNC-OBF-PP", "CMNC-OBF-PP", "MNC > CMNC, PP (claim 3)"),
        ("CMNC-OBF-JP", "BD (top 100)", "CMNC-OBF-JP ~ BD (claim 1)"),
        ("CMNC-OBF-PP", "Welch t (top 100)", "CMNC-OBF > t at small n (claims 1, 6)"),
        ("MNC-OBF-PP", "Welch t (top 100)", "best OBF vs t"),
        ("Welch t (top 100)", "F statistic (top 100)", "Welch t vs F"),
    ]
    L += ["", "## Paired differences in correctly labelled features (mean ± SE)", "",
          "Each entry is the mean over replicates of (first - second), on the same data sets.",
          "", "| comparison | claim | " + " | ".join(f"n = {n}" for n in ns) + " |",
          "|---|---|" + "---|" * len(ns)]
    for a, b, claim in comparisons:
        d = _paired(results, a, b)
        L.append(f"| {a} - {b} | {claim} | "
                 + " | ".join(_fmt(*d[n]) for n in ns) + " |")

    # automatic verdicts on the orderings
    def mean(n, m):
        return results[n][m].mean()

    small = [n for n in ns if n <= 1000]
    mnc_best = all(max(mean(n, "MNC-OBF-PP"), mean(n, "MNC-OBF-JP"))
                   >= max(mean(n, m) for m in METHODS[2:]) for n in small)
    mnc_gt_cmnc = all(min(mean(n, "MNC-OBF-PP"), mean(n, "MNC-OBF-JP"))
                      > max(mean(n, "CMNC-OBF-PP"), mean(n, "CMNC-OBF-JP")) for n in small)
    obf_gt_t_small = all(max(mean(n, "CMNC-OBF-PP"), mean(n, "CMNC-OBF-JP"))
                         >= mean(n, "Welch t (top 100)") for n in ns if n <= 400)
    big = ns[-1]
    gap_small = mean(ns[1], "MNC-OBF-PP") - mean(ns[1], "Welch t (top 100)")
    gap_big = mean(big, "MNC-OBF-PP") - mean(big, "Welch t (top 100)")
    pp_jp = _paired(results, "MNC-OBF-PP", "MNC-OBF-JP")
    mnc_cmnc = _paired(results, "MNC-OBF-PP", "CMNC-OBF-PP")
    jp_bd = _paired(results, "CMNC-OBF-JP", "BD (top 100)")
    pp_wins = [n for n, (m, se) in pp_jp.items() if m > 2 * se]
    empty_margin = mean(ns[0], "MNC-OBF-PP") - (N_FEATURES - 100)
    L += [
        "", "## The paper's ordering (Fig. 1a claims) against this run", "",
        f"1. MNC-OBF (PP or JP) best of all methods at every n <= 1000: "
        f"**{'yes' if mnc_best else 'no'}**.",
        f"2. MNC beats CMNC (even though CMNC is told D = 100) at every n <= 1000: "
        f"**{'yes' if mnc_gt_cmnc else 'no'}**. At n = {big}, MNC-OBF-PP minus CMNC-OBF-PP is "
        f"{_fmt(*mnc_cmnc[big])} (the paper: CMNC is slightly better at large n).",
        "3. PP vs JP: the paired MNC-PP minus MNC-JP differences are "
        + ", ".join(f"{_fmt(*pp_jp[n])} (n = {n})" for n in ns)
        + f". PP is ahead by more than 2 SE at n in {pp_wins or 'none'} and within 2 SE "
        "elsewhere (the informed prior helps most at small n; the spec's own "
        "re-implementation also found the two within a few features of each other).",
        "4. CMNC-OBF-JP ~ BD: largest |mean paired difference| over n is "
        f"{max(abs(v[0]) for v in jp_bd.values()):.1f} features.",
        f"5. CMNC-OBF >= Welch t at every n <= 400: **{'yes' if obf_gt_t_small else 'no'}**; "
        f"the t-test catches up at large n (MNC-OBF-PP minus t: {gap_small:+.1f} at "
        f"n = {ns[1]}, {gap_big:+.1f} at n = {big}), as in the paper's Fig. 1b. All markers "
        "here differ in mean, so the t-test is consistent for them; most of MNC's advantage "
        "at small n comes from choosing the set size (see the |MNC| columns).",
        "6. The F statistic and Welch t select the same features here: with n_0 = n_1 "
        "Welch's t equals the pooled t, and F = t^2.",
        f"7. Caveat (the paper's claim 4, applied to OBF itself): at n = {ns[0]} MNC-OBF-PP "
        f"beats the empty selection (19,900) by only {empty_margin:.1f} features; its lead "
        "there comes from selecting few features.",
        "",
        "Methods of the paper not run here (MI, NMC, regularised regression, SKBS, BPM, "
        "BayesReg, moderated t) need other packages or long MCMC runs.",
        "",
        "![mislabelled features vs n](mislabelled.png)",
    ]
    return "\n".join(L) + "\n"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    results, seconds = run()
    plot(results)
    text = report(results, seconds)
    (OUT / "report.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
