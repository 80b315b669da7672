"""Tables, the Markdown report and the reliability figure of a benchmark run.

References
----------
Li Y. (2009), Li 2009, section 3.4 (AMLP; expected against actual error; reliability tables).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .methods import PEERS

__all__ = ["results_frame", "summary_frame", "cases_frame", "paired_difference",
           "mean_ranks", "write_report_files"]

_RESULT_COLUMNS = ["dataset", "method", "repeat", "fold", "n_test", "amlp", "brier", "error",
                   "expected_error", "gap", "n_over_5_nats", "max_case_loss", "fit_seconds",
                   "fit_cpu_seconds", "predict_seconds", "k", "n_warnings", "error_message"]
_SUMMARY_METRICS = ("amlp", "brier", "error", "expected_error", "gap")


def results_frame(records: list[dict]) -> pd.DataFrame:
    """One row per (data set, method, repeat, fold) from the fold records.

    Parameters
    ----------
    records : list of dict

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, method, repeat, fold, n_test, amlp, brier, error,
        expected_error, gap`` (expected minus actual error), ``n_over_5_nats,
        max_case_loss, fit_seconds`` (wall), ``fit_cpu_seconds`` (CPU time of the fitting
        process, all its threads), ``predict_seconds, k, n_warnings, error_message``.

    Examples
    --------
    >>> results_frame([]).shape[0]
    0
    """
    df = pd.DataFrame([{c: r.get(c) for c in _RESULT_COLUMNS} for r in records],
                      columns=_RESULT_COLUMNS)
    df["k"] = pd.array(df["k"], dtype="Int64")
    return df.sort_values(["dataset", "method", "repeat", "fold"]).reset_index(drop=True)


def _se(x: pd.Series) -> float:
    x = x.to_numpy(dtype=float)
    if len(x) < 2 or not np.all(np.isfinite(x)):
        return np.nan
    return float(np.std(x, ddof=1) / np.sqrt(len(x)))


def summary_frame(results: pd.DataFrame) -> pd.DataFrame:
    """Means and standard errors over folds, per data set and method.

    The standard error is ``sd / sqrt(number of folds)`` over all repeats and folds (folds of
    one repeat share training cases, so it is somewhat optimistic).

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`results_frame`.

    Returns
    -------
    pandas.DataFrame
        ``dataset, method, n_folds, n_failed`` and, per metric, ``<metric>`` and
        ``<metric>_se``; ``n_over_5_nats`` (total), ``max_case_loss``, ``fit_seconds``
        (wall, total), ``fit_cpu_seconds`` (total), ``fit_seconds_mean``, ``k_median``.

    Examples
    --------
    >>> summary_frame(results_frame([])).shape[0]
    0
    """
    rows = []
    for (d, m), g in results.groupby(["dataset", "method"], sort=True):
        ok = g[g["error_message"].isna()]
        row = {"dataset": d, "method": m, "n_folds": int(len(ok)),
               "n_failed": int(len(g) - len(ok))}
        for c in _SUMMARY_METRICS:
            row[c] = float(ok[c].mean()) if len(ok) else np.nan
            row[f"{c}_se"] = _se(ok[c])
        row["n_over_5_nats"] = int(ok["n_over_5_nats"].sum())
        row["max_case_loss"] = float(ok["max_case_loss"].max()) if len(ok) else np.nan
        row["fit_seconds"] = float(ok["fit_seconds"].sum())
        row["fit_cpu_seconds"] = float(pd.to_numeric(ok["fit_cpu_seconds"]).sum())
        row["fit_seconds_mean"] = float(ok["fit_seconds"].mean()) if len(ok) else np.nan
        ks = ok["k"].dropna()
        row["k_median"] = float(np.median(ks.to_numpy(dtype=float))) if len(ks) else np.nan
        rows.append(row)
    cols = ["dataset", "method", "n_folds", "n_failed"]
    for c in _SUMMARY_METRICS:
        cols += [c, f"{c}_se"]
    cols += ["n_over_5_nats", "max_case_loss", "fit_seconds", "fit_cpu_seconds",
             "fit_seconds_mean", "k_median"]
    return pd.DataFrame(rows, columns=cols)


def cases_frame(records: list[dict], data: dict) -> pd.DataFrame:
    """One row per (data set, method, repeat, test case).

    Parameters
    ----------
    records : list of dict
    data : dict
        ``name -> (X, y_idx, classes, dataset)`` as built by the runner.

    Returns
    -------
    pandas.DataFrame
        ``dataset, method, repeat, fold, sample, true_class, p_true, confidence, correct,
        loss`` (nats, never floored).

    Examples
    --------
    >>> cases_frame([], {}).shape[0]
    0
    """
    parts = []
    for r in records:
        if r.get("proba") is None:
            continue
        _, y_idx, classes, ds = data[r["dataset"]]
        test = np.asarray(r["test"], dtype=int)
        proba = np.asarray(r["proba"], dtype=float)
        rows = np.arange(len(test))
        yi = y_idx[test]
        parts.append(pd.DataFrame({
            "dataset": r["dataset"], "method": r["method"], "repeat": r["repeat"],
            "fold": r["fold"], "sample": np.asarray(ds.X.index.astype(str))[test],
            "true_class": classes[yi], "p_true": proba[rows, yi],
            "confidence": proba.max(axis=1), "correct": proba.argmax(axis=1) == yi,
            "loss": np.asarray(r["losses"], dtype=float)}))
    cols = ["dataset", "method", "repeat", "fold", "sample", "true_class", "p_true",
            "confidence", "correct", "loss"]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


def paired_difference(results: pd.DataFrame, dataset: str, a: str, b: str,
                      metric: str = "amlp") -> tuple[float, float, int]:
    """Mean and standard error over matched folds of ``metric(a) - metric(b)`` on a data set.

    Parameters
    ----------
    results : pandas.DataFrame
    dataset, a, b : str
    metric : str, default "amlp"

    Returns
    -------
    mean, se, n_pairs : float, float, int
        NaN when fewer than 2 folds match (or a difference is not finite: the se).

    Examples
    --------
    >>> paired_difference(results_frame([]), "x", "a", "b")
    (nan, nan, 0)
    """
    sub = results[(results["dataset"] == dataset) & results["error_message"].isna()]
    wide = sub.pivot_table(index=["repeat", "fold"], columns="method", values=metric,
                           aggfunc="first")
    if a not in wide or b not in wide:
        return np.nan, np.nan, 0
    d = (wide[a] - wide[b]).dropna()
    if len(d) == 0:
        return np.nan, np.nan, 0
    return float(d.mean()), _se(d), int(len(d))


def mean_ranks(summary: pd.DataFrame, metric: str = "amlp") -> pd.Series:
    """Mean rank of each method over data sets (1 = best mean ``metric``; ties averaged).

    Parameters
    ----------
    summary : pandas.DataFrame
    metric : str, default "amlp"

    Returns
    -------
    pandas.Series
        Indexed by method, sorted best first; only data sets where every method has a value.

    Examples
    --------
    >>> mean_ranks(summary_frame(results_frame([]))).empty
    True
    """
    if summary.empty:
        return pd.Series(dtype=float)
    wide = summary.pivot(index="dataset", columns="method", values=metric).dropna()
    return wide.rank(axis=1, method="average").mean().sort_values()


def _fmt(v, se=None, digits=3) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "-"
    if np.isinf(v):
        return "inf"
    s = f"{v:.{digits}f}"
    if se is not None and np.isfinite(se):
        s += f" ± {se:.{digits}f}"
    return s


def _table(summary: pd.DataFrame, metric: str, methods: list[str]) -> list[str]:
    lines = ["| data set | " + " | ".join(methods) + " |",
             "|---|" + "---|" * len(methods)]
    for d, g in summary.groupby("dataset", sort=True):
        g = g.set_index("method")
        best = g[metric].abs().idxmin() if metric == "gap" else g[metric].idxmin()
        cells = []
        for m in methods:
            if m not in g.index:
                cells.append("-")
                continue
            c = _fmt(g.at[m, metric], g.at[m, f"{metric}_se"])
            cells.append(f"**{c}**" if m == best else c)
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    return lines


def _reliability_figure(cases: pd.DataFrame, methods: list[str], path) -> bool:
    if cases.empty:
        return False
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from ..evaluation.calibration import reliability_table

    fig, ax = plt.subplots(figsize=(6, 5.5))
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="calibrated")
    for m in methods:
        c = cases[cases["method"] == m]
        if c.empty:
            continue
        t = reliability_table(c["confidence"].to_numpy(), c["correct"].to_numpy(float))
        t = t[t["count"] > 0]
        ax.errorbar(t["mean_predicted"], t["observed_fraction"], yerr=2 * t["se"],
                    marker="o", ms=4, lw=1.2, capsize=2, label=f"{m} (n={len(c)})")
    ax.set_xlabel("top-label predicted probability (bin mean)")
    ax.set_ylabel("fraction correct (± 2 binomial SE)")
    ax.set_title("Pooled reliability over all data sets and folds")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def write_report_files(res) -> str:
    """Write ``report.md`` and ``reliability.png`` into ``res.out``.

    Parameters
    ----------
    res : selbayes.benchmark.runner.BenchmarkResult

    Returns
    -------
    str
        The Markdown text.

    Examples
    --------
    >>> text = write_report_files(res)                                    # doctest: +SKIP
    """
    results, summary, cases, info = res.results, res.summary, res.cases, res.info
    methods = [m for m in info["methods"] if m in set(summary["method"])]
    peers = [m for m in methods if m in PEERS]
    L = ["# Benchmark: selbayes against scikit-learn peers", ""]
    if info.get("n_missing"):
        L += [f"**Partial: {info['n_missing']} of {info['n_fits']} fits are not done yet; "
              "tables use the folds that are.**", ""]
    if info.get("quick"):
        L += ["**Quick (smoke-test) design: 3 folds, few posterior draws. Not a result.**", ""]
    L += [f"Repeated stratified {info['folds']}-fold cross-validation, {info['repeats']} "
          f"repeat(s), seed {info['seed']}; the same folds for every method. Preprocessing, "
          "feature selection and every tuning step run inside each training fold. AMLP is the "
          "mean of -log p(true class) in nats, never floored (inf when a true class got "
          "probability 0). Values are means over folds ± standard errors over folds; bold: "
          "best on the set (smallest |expected - actual| for the gap).", "",
          f"Wall time of this call: {info['wall_seconds']:.0f} s ({info['n_fitted']} fits run, "
          f"{info['n_resumed']} resumed from disk; n_jobs = {info['n_jobs']}). Sum of fit "
          f"times: {np.nansum(results['fit_seconds']):.0f} s.", "", "## Data sets", "",
          "| data set | n | p | classes | preprocessing (inside folds) |", "|---|---|---|---|---|"]
    for name, d in info["datasets"].items():
        pre = d["preprocessing"]
        text = ("none (log scale)" if pre.get("transform", "none") == "none" else
                f"log2 of values clipped to [{pre.get('floor')}, {pre.get('ceiling')}]")
        L.append(f"| {name} | {d['n']} | {d['p']} | {len(d['classes'])} | {text} |")
    for metric, title in (("amlp", "AMLP (nats; lower is better)"),
                          ("brier", "Brier score (lower is better)"),
                          ("error", "Error rate"),
                          ("gap", "Expected minus actual error (0 is calibrated; < 0 "
                                  "overconfident)")):
        L += ["", f"## {title}", ""] + _table(summary, metric, methods)
    ranks = mean_ranks(summary, "amlp")
    gap = summary.assign(abs_gap=summary["gap"].abs()).groupby("method")["abs_gap"].mean()
    L += ["", "## Mean rank over data sets (AMLP; 1 = best)", "",
          "| method | mean AMLP rank | mean \\|expected - actual\\| error | data sets |",
          "|---|---|---|---|"]
    n_sets = summary.pivot(index="dataset", columns="method", values="amlp").dropna().shape[0]
    for m, r in ranks.items():
        L.append(f"| {m} | {r:.2f} | {gap.get(m, np.nan):.3f} | {n_sets} |")
    if "selbayes" in methods and peers:
        L += ["", "## selbayes against the best peer on each set (paired over folds)", "",
              "Best peer: the peer with the smallest mean AMLP on the set. Difference = "
              "selbayes - peer (negative: selbayes better).", "",
              "| data set | best peer | AMLP difference ± SE | Brier difference ± SE |",
              "|---|---|---|---|"]
        for d, g in summary.groupby("dataset", sort=True):
            gp = g[g["method"].isin(peers)]
            if gp.empty or gp["amlp"].isna().all():
                continue
            best = gp.set_index("method")["amlp"].idxmin()
            a = paired_difference(results, d, "selbayes", best, "amlp")
            b = paired_difference(results, d, "selbayes", best, "brier")
            L.append(f"| {d} | {best} | {_fmt(a[0], a[1])} | {_fmt(b[0], b[1])} |")
    for other, what in (("selbayes_uncorrected", "its own choice of k and temperature"),
                        ("selbayes_uncorrected_same_choice",
                         "the k, temperature and label noise that selbayes chose")):
        if "selbayes" not in methods or other not in methods:
            continue
        L += ["", f"## Corrected against uncorrected, {what} (paired over folds)", "",
              f"Difference = selbayes - {other} (negative: the correction helps).",
              "", "| data set | AMLP difference ± SE | gap corrected | gap uncorrected |",
              "|---|---|---|---|"]
        wins = 0
        for d, g in summary.groupby("dataset", sort=True):
            a = paired_difference(results, d, "selbayes", other, "amlp")
            g = g.set_index("method")
            wins += bool(np.isfinite(a[0]) and a[0] < 0)
            L.append(f"| {d} | {_fmt(a[0], a[1])} | "
                     f"{_fmt(g['gap'].get('selbayes'))} | "
                     f"{_fmt(g['gap'].get(other))} |")
        L += ["", f"Corrected has the lower AMLP on {wins} of "
              f"{summary['dataset'].nunique()} sets."]
    fig = res.out / "reliability.png"
    if _reliability_figure(cases, methods, fig):
        L += ["", "## Pooled reliability", "", "![reliability](reliability.png)", "",
              "Top-label predicted probability against the fraction correct, pooled over all "
              "sets and folds (10 bins; bars ± 2 binomial SE under calibration)."]
    L += ["", "## Confident mistakes: the worst per-case losses", "",
          "Cases with loss > 5 nats (true class probability < 0.0067), per set and method:", ""]
    wide = summary.pivot(index="dataset", columns="method", values="n_over_5_nats")
    L += ["| data set | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for d, row in wide.iterrows():
        L.append(f"| {d} | " + " | ".join(str(int(row[m])) if m in row and pd.notna(row[m])
                                          else "-" for m in methods) + " |")
    if not cases.empty:
        L += ["", "The three worst cases of each method:", "",
              "| method | data set | sample | true class | p(true) | loss (nats) |",
              "|---|---|---|---|---|---|"]
        for m in methods:
            worst = cases[cases["method"] == m].nlargest(3, "loss")
            for _, c in worst.iterrows():
                L.append(f"| {m} | {c['dataset']} | {c['sample']} | {c['true_class']} | "
                         f"{c['p_true']:.3g} | {_fmt(c['loss'], digits=2)} |")
    ks = results.dropna(subset=["k"])
    if not ks.empty:
        L += ["", "## Chosen k per fold", "", "| data set | method | k per fold |",
              "|---|---|---|"]
        for (d, m), g in ks.groupby(["dataset", "method"], sort=True):
            L.append(f"| {d} | {m} | {', '.join(str(int(v)) for v in g['k'])} |")
    L += ["", "## Fit time (wall seconds, sum over folds; mean per fit in brackets)", "",
          "Wall times depend on the machine's load; `summary.csv` also has CPU seconds.", "",
          "| data set | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for d, g in summary.groupby("dataset", sort=True):
        g = g.set_index("method")
        L.append(f"| {d} | " + " | ".join(
            f"{g.at[m, 'fit_seconds']:.1f} ({g.at[m, 'fit_seconds_mean']:.1f})"
            if m in g.index else "-" for m in methods) + " |")
    failed = results[results["error_message"].notna()]
    if not failed.empty:
        L += ["", "## Failed fits", ""]
        for _, r in failed.iterrows():
            L.append(f"- {r['dataset']} / {r['method']} repeat {r['repeat']} fold {r['fold']}: "
                     f"{r['error_message']}")
    L += ["", "## Settings", "", "```", f"methods: {', '.join(info['methods'])}",
          f"folds: {info['folds']}  repeats: {info['repeats']}  seed: {info['seed']}  "
          f"n_jobs: {info['n_jobs']}  quick: {info['quick']}", "```", ""]
    text = "\n".join(L)
    (res.out / "report.md").write_text(text)
    return text
