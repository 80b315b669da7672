"""Tables, the Markdown report and the reliability figure of a benchmark run.

References
----------
Li Y. (2009), Li 2009, section 3.4 (AMLP; expected against actual error; reliability tables).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._methods import PEERS

__all__ = ["results_frame", "summary_frame", "cases_frame", "paired_difference",
           "paired_by_set", "mean_over_sets", "mean_ranks", "write_report_files",
           "repeat_aware_mean_se", "clear_difference", "SE_METHOD", "reliability_figure",
           "gap_tests"]

_RESULT_COLUMNS = ["dataset", "method", "repeat", "fold", "n_test", "amlp", "brier", "error",
                   "expected_error", "gap", "n_over_5_nats", "max_case_loss", "fit_seconds",
                   "fit_cpu_seconds", "predict_seconds", "k", "t_df", "label_noise",
                   "linear_weight", "n_warnings", "error_message"]
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
        process, all its threads), ``predict_seconds, k, t_df`` (the t prior's degrees of
        freedom where the data chose them, else NaN; NaN too in fold files written before
        2026-11-28), ``label_noise`` (the label-noise probability eps of a selbayes method's
        predictive, with the default ``label_noise="cv"`` chosen in the training fold; NaN
        for other methods and in fold files written before 2026-11-29), ``linear_weight``
        (the stacking weight of the probit model of all genes in the two-class stack; NaN for
        other methods and in fold files written before 2026-12-02), ``n_warnings,
        error_message``.

    Examples
    --------
    >>> results_frame([]).shape[0]
    0
    """
    df = pd.DataFrame([{c: r.get(c) for c in _RESULT_COLUMNS} for r in records],
                      columns=_RESULT_COLUMNS)
    df["k"] = pd.array(df["k"], dtype="Int64")
    for c in ("t_df", "label_noise", "linear_weight"):
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    return df.sort_values(["dataset", "method", "repeat", "fold"]).reset_index(drop=True)


def _se(x: pd.Series) -> float:
    x = x.to_numpy(dtype=float)
    if len(x) < 2 or not np.all(np.isfinite(x)):
        return np.nan
    return float(np.std(x, ddof=1) / np.sqrt(len(x)))


#: How the report's standard errors are computed (quoted in report.md).
SE_METHOD = (
    "Standard errors take the folds of one repeat as the unit. For a set and method, let "
    "m_rf be the mean loss of the test cases of fold f in repeat r (K folds, R repeats). The "
    "estimate is the mean over repeats of L_r, the mean loss over all cases of repeat r; its "
    "standard error is SE = sqrt(mean_r SE_r^2), with SE_r = sd_f(m_rf) / sqrt(K). The R "
    "repeats re-split the same cases, so they are not independent samples and SE is not "
    "divided by sqrt(R) (averaging repeats removes only the noise of the fold assignment). "
    "Paired differences between two methods use the same formula on the per-fold means of "
    "the per-case differences (the same test cases for both methods). A difference counts as "
    "a win only when it exceeds 2 SE.")


def repeat_aware_mean_se(values, repeats, n_cases=None) -> tuple[float, float]:
    """Mean and standard error of a per-fold metric with the folds of one repeat as the unit.

    For each repeat r with fold means m_rf (f = 1..K_r) the repeat's mean is the case-weighted
    L_r = sum_f n_rf m_rf / sum_f n_rf and its standard error SE_r = sd_f(m_rf) / sqrt(K_r)
    (sample sd, ddof 1). The estimate is mean_r L_r and its standard error
    sqrt(mean_r SE_r^2): the repeats share their cases, so the standard error is not divided
    by sqrt(R) as it would be for independent repeats.

    Parameters
    ----------
    values : array-like of shape (n_folds_total,)
        The metric of each fold (a mean over the fold's test cases), all repeats together.
    repeats : array-like of shape (n_folds_total,)
        The repeat of each fold.
    n_cases : array-like of shape (n_folds_total,), optional
        Test cases per fold (weights of the repeat means); default equal.

    Returns
    -------
    mean, se : float, float
        ``se`` is NaN when a repeat has fewer than 2 folds or a value is not finite (the mean
        is then inf for an infinite loss, NaN when there is no value).

    Examples
    --------
    >>> mean, se = repeat_aware_mean_se([1.0, 2.0, 3.0, 1.0, 2.0, 3.0], [0, 0, 0, 1, 1, 1])
    >>> float(mean), round(float(se), 4)          # SE of one repeat: sd 1 / sqrt(3)
    (2.0, 0.5774)
    """
    v = np.asarray(values, dtype=float)
    r = np.asarray(repeats)
    w = np.ones_like(v) if n_cases is None else np.asarray(n_cases, dtype=float)
    if v.size == 0:
        return np.nan, np.nan
    means, var = [], []
    for rep in np.unique(r):
        m, wr = v[r == rep], w[r == rep]
        with np.errstate(invalid="ignore"):
            means.append(float(np.sum(wr * m) / np.sum(wr)) if np.all(np.isfinite(m))
                         else float(np.mean(m)))
        var.append(np.var(m, ddof=1) / len(m) if len(m) >= 2 and np.all(np.isfinite(m))
                   else np.nan)
    mean = float(np.mean(means))
    se = float(np.sqrt(np.mean(var))) if np.all(np.isfinite(var)) else np.nan
    return mean, se


def summary_frame(results: pd.DataFrame) -> pd.DataFrame:
    """Means and repeat-aware standard errors over folds, per data set and method.

    Each mean is the average over repeats of the case-weighted mean of a repeat; each standard
    error takes the folds of one repeat as the unit (:func:`repeat_aware_mean_se`,
    :data:`SE_METHOD`).

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
        weights = pd.to_numeric(ok["n_test"], errors="coerce").fillna(1.0).to_numpy() \
            if "n_test" in ok else None
        for c in _SUMMARY_METRICS:
            if len(ok):
                row[c], row[f"{c}_se"] = repeat_aware_mean_se(ok[c], ok["repeat"], weights)
            else:
                row[c], row[f"{c}_se"] = np.nan, np.nan
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
    """Mean and repeat-aware standard error of ``metric(a) - metric(b)`` over matched folds.

    Both methods are scored on the same test cases of each fold, so the fold's difference is
    the mean of the per-case differences; :func:`repeat_aware_mean_se` then averages them
    (case-weighted within a repeat) and takes the folds of one repeat as the unit.

    Parameters
    ----------
    results : pandas.DataFrame
    dataset, a, b : str
    metric : str, default "amlp"

    Returns
    -------
    mean, se, n_pairs : float, float, int
        NaN when no folds match (the se also when a repeat has fewer than 2 matched folds or
        a difference is not finite).

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
    n = None
    if "n_test" in sub:
        n_test = sub.pivot_table(index=["repeat", "fold"], values="n_test", aggfunc="first")
        n = n_test["n_test"].reindex(d.index).fillna(1.0).to_numpy(dtype=float)
    mean, se = repeat_aware_mean_se(d.to_numpy(), d.index.get_level_values("repeat"), n)
    return mean, se, int(len(d))


def clear_difference(mean: float, se: float, z: float = 2.0) -> int:
    """-1 when ``mean`` is below 0 by more than ``z`` standard errors, +1 above, else 0.

    Parameters
    ----------
    mean, se : float
    z : float, default 2.0

    Returns
    -------
    int

    Examples
    --------
    >>> clear_difference(-0.05, 0.02), clear_difference(-0.03, 0.02)
    (-1, 0)
    """
    if not (np.isfinite(mean) and np.isfinite(se)):
        return 0
    return -1 if mean < -z * se else (1 if mean > z * se else 0)


def paired_by_set(results: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Two methods run on the same folds, set by set: the AMLP difference ``a - b`` paired
    over folds (:func:`paired_difference`), whether it is beyond 2 SE
    (:func:`clear_difference`), and each method's AMLP and |expected - actual error| as
    :func:`summary_frame` averages them (:func:`repeat_aware_mean_se`: case-weighted within a
    repeat, failed folds left out).

    Parameters
    ----------
    results : pandas.DataFrame
        Fold rows (``results.csv``) of both methods.
    a, b : str
        The two methods' names in ``results["method"]``.

    Returns
    -------
    pandas.DataFrame
        One row per set (sorted), columns ``diff``, ``se``, ``clear`` (-1, 0, +1), ``amlp_a``,
        ``amlp_b``, ``gap_a``, ``gap_b``.

    Examples
    --------
    >>> paired_by_set(results_frame([]), "a", "b").columns.tolist()
    ['diff', 'se', 'clear', 'amlp_a', 'amlp_b', 'gap_a', 'gap_b']
    """
    rows = {}
    for s, g in results.groupby("dataset"):
        diff, se, _ = paired_difference(results, s, a, b)
        row = {"diff": diff, "se": se, "clear": clear_difference(diff, se)}
        for m, tag in ((a, "a"), (b, "b")):
            f = g[(g.method == m) & g["error_message"].isna()]
            row[f"amlp_{tag}"] = repeat_aware_mean_se(f.amlp, f.repeat, f.n_test)[0]
            row[f"gap_{tag}"] = abs(repeat_aware_mean_se(f.expected_error - f.error, f.repeat,
                                                         f.n_test)[0])
        rows[s] = row
    return pd.DataFrame.from_dict(rows, orient="index", columns=[
        "diff", "se", "clear", "amlp_a", "amlp_b", "gap_a", "gap_b"])


def mean_over_sets(per: pd.DataFrame) -> tuple[float, float]:
    """The mean over sets of :func:`paired_by_set`'s differences and its standard error, the
    sets independent: sqrt(sum of the per-set SE^2) / number of sets.

    Parameters
    ----------
    per : pandas.DataFrame
        :func:`paired_by_set`'s frame (its ``diff`` and ``se`` columns).

    Returns
    -------
    (float, float)
        The mean difference and its SE (nats per case, as ``diff``).

    Examples
    --------
    >>> per = pd.DataFrame({"diff": [0.02, -0.01], "se": [0.03, 0.04]})
    >>> tuple(round(v, 4) for v in mean_over_sets(per))
    (0.005, 0.025)
    """
    return float(per["diff"].mean()), float(np.sqrt(np.sum(np.square(per["se"])))) / len(per)


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


def _complete(summary: pd.DataFrame) -> pd.Series:
    """Whether each row's method was scored on every case of its data set: no failed fit
    and as many folds as the set has (the most that any method has done there).

    Only such results are compared (bold, ranks, the best peer): a method whose fits failed
    on some folds is scored on the other folds' cases alone, which are not the cases the
    other methods are scored on (where a rare class makes its fits fail, the folds it fails
    on are the hardest ones).
    """
    done = summary["n_folds"] + summary["n_failed"]
    folds = done.groupby(summary["dataset"]).transform("max")
    return (summary["n_failed"] == 0) & (summary["n_folds"] == folds) & (summary["n_folds"] > 0)


def _md(value) -> str:
    """A user's text (a sample id, a class label) as a markdown table cell: a '|' in it
    would end the cell."""
    return str(value).replace("|", "\\|")


def _fmt(v, se=None, digits=3) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "-"
    if np.isinf(v):
        return "inf"
    s = f"{v:.{digits}f}"
    if se is not None and np.isfinite(se):
        s += f" ± {se:.{digits}f}"
    return s


def _best(g: pd.DataFrame, metric: str) -> set:
    """The best methods of one set's summary rows (indexed by method) in ``metric`` (smallest;
    |gap| for the gap), among those scored on every case of the set: a method whose fits
    failed on some folds is scored on other cases. Ties as shown (3 decimals) are all best;
    none where no method has a value."""
    values = g[metric].abs() if metric == "gap" else g[metric]
    values = values.where(_complete(g.reset_index()).to_numpy())
    if not values.notna().any():
        return set()
    low = values.min()
    shown = values.round(3) if np.isfinite(low) else values
    return set(values.index[shown == (round(low, 3) if np.isfinite(low) else low)])


def _table(summary: pd.DataFrame, metric: str, methods: list[str],
           zero_cases: pd.Series | None = None) -> list[str]:
    """A markdown table of ``metric`` (sets x methods), the best in bold; an infinite AMLP
    says how many cases carry it (``zero_cases``: their number per set and method)."""
    lines = ["| data set | " + " | ".join(methods) + " |",
             "|---|" + "---|" * len(methods)]
    for d, g in summary.groupby("dataset", sort=True):
        g = g.set_index("method")
        best = _best(g, metric)
        cells = []
        for m in methods:
            if m not in g.index:
                cells.append("-")
                continue
            text = _fmt(g.at[m, metric], g.at[m, f"{metric}_se"])
            if metric == "amlp" and np.isinf(g.at[m, metric]) and zero_cases is not None:
                n = int(zero_cases.get((d, m), 0))
                text += f" ({n} case{'s' if n != 1 else ''} with p(true class) = 0)"
            cells.append(_cell(g.loc[m], text, bold=m in best))
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    return lines


def _cell(row: pd.Series, text: str, bold: bool = False) -> str:
    """A table cell that says when some or all of a method's fits on the set failed."""
    n_failed = int(row.get("n_failed", 0))
    if n_failed and not int(row.get("n_folds", 0)):
        return f"failed ({n_failed} of {n_failed} fits)"
    text = f"**{text}**" if bold else text
    total = n_failed + int(row.get("n_folds", 0))
    return f"{text} ({n_failed} of {total} folds failed)" if n_failed else text


def gap_tests(cases: pd.DataFrame) -> pd.DataFrame:
    """Expected minus actual error per data set and method, against a calibrated predictor's
    scatter (:func:`selbayes.evaluation.error_gap_test`).

    With one repeat the test is exact (Poisson-binomial). With several, every case is tested
    once: its confidence averaged over the repeats and its share of right guesses, i.e. the
    exact test of repeats whose outcomes are perfectly correlated. The gap is then the mean
    over repeats; as repeats of other fits are less than perfectly correlated, the test is
    conservative.

    Parameters
    ----------
    cases : pandas.DataFrame
        From :func:`cases_frame`: ``dataset``, ``method``, ``repeat``, ``confidence`` (in
        [0, 1]), ``correct`` (bool) and, with several repeats, ``sample`` (each case once
        per repeat).

    Returns
    -------
    pandas.DataFrame
        ``dataset, method, n, gap, se, z, p_value`` (``n`` cases; ``se``: the standard
        deviation of the gap under calibration).

    Raises
    ------
    ValueError
        If a column is missing, a confidence is not a number in [0, 1], ``correct`` is not
        boolean, or the repeats of a data set and method do not hold the same cases.

    Examples
    --------
    >>> cases = pd.DataFrame({"dataset": "a", "method": "m", "repeat": 0,
    ...                       "confidence": [0.9, 0.8, 0.7, 0.6],
    ...                       "correct": [True, True, True, True]})
    >>> gap_tests(cases).round(3)[["gap", "se", "p_value"]].to_dict("records")
    [{'gap': 0.25, 'se': 0.209, 'p_value': 0.56}]
    """
    from ..evaluation._calibration import _check_prob_vector, _gap_test

    columns = ["dataset", "method", "n", "gap", "se", "z", "p_value"]
    needed = ["dataset", "method", "repeat", "confidence", "correct"]
    missing = [c for c in needed if c not in cases.columns]
    if missing:
        raise ValueError(f"cases has no column(s) {missing}; gap_tests reads {needed} (and "
                         f"'sample' with several repeats), as cases_frame writes them")
    if cases.empty:
        return pd.DataFrame(columns=columns)
    try:
        _check_prob_vector(cases["confidence"], name="confidence")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cases' confidence must be probabilities in [0, 1] ({exc})") from None
    if cases["correct"].dtype != bool:
        raise ValueError(f"correct must be a boolean column (True where the guess was right); "
                         f"got dtype {cases['correct'].dtype}")
    # one groupby each for the check and the averaging over repeats (a loop of groupbys per
    # data set and method cost 8 ms a pair, most of a simulation's 2000 tests)
    key = ["dataset", "method"]
    n_rep = cases.groupby(key, sort=False)["repeat"].transform("nunique")
    tested = cases.loc[n_rep == 1, [*key, "confidence", "correct"]]
    several = cases.loc[n_rep > 1]
    if not several.empty:
        if "sample" not in cases.columns:
            raise ValueError("cases with several repeats need a 'sample' column (each "
                             "case once per repeat) to be tested together")
        per = several.groupby([*key, "sample"], sort=True)["repeat"].agg(["size", "nunique"])
        want = several.groupby(key)["repeat"].nunique().rename("n_rep")
        per = per.join(want, on=key)
        bad = ~((per["size"] == per["n_rep"]) & (per["nunique"] == per["n_rep"]))
        if bad.any():
            d, m = per.index[bad.to_numpy()][0][:2]
            sizes = per.loc[(d, m), "size"]
            raise ValueError(f"{d}, {m}: the repeats do not hold the same cases once each "
                             f"({want[(d, m)]} repeats; some samples appear "
                             f"{sorted(set(sizes))} times)")
        by_case = several.groupby([*key, "sample"], sort=True)[["confidence", "correct"]].mean()
        tested = pd.concat([tested, by_case.reset_index(level="sample", drop=True)
                            .reset_index()])
    rows = []
    for (d, m), g in tested.groupby(key, sort=True):
        t = _gap_test(g["confidence"].to_numpy(dtype=float), g["correct"].to_numpy(dtype=float))
        rows.append({"dataset": d, "method": m, **{c: t[c] for c in columns[2:]}})
    return pd.DataFrame(rows, columns=columns)


def _gap_test_lines(cases: pd.DataFrame, methods: list[str]) -> list[str]:
    try:
        tests = gap_tests(cases)
    except ValueError as exc:   # e.g. sample ids repeated in a user's file: say so, keep going
        return ["", f"(The test of each gap against chance could not be run: {exc}.)"]
    if tests.empty:
        return []
    L = ["", "Whether a gap is more than chance (the ± above is the SE over folds; this is "
         "another scale): a calibrated predictor's actual error scatters around its expected "
         "error with standard deviation sqrt(sum c (1 - c)) / n (c: each test case's top-label "
         "probability), 0.046 for 60 cases guessed with 85% confidence. Each cell: gap (z = "
         "gap / that SD); * where a calibrated predictor gives a gap this far from 0 with "
         "probability below 0.05 (`selbayes.evaluation.error_gap_test`, exact; with several "
         "repeats each case is tested once with its mean confidence and share of right "
         "guesses, which is conservative).", "",
         "| data set | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    wide = tests.set_index(["dataset", "method"])
    for d in sorted(tests["dataset"].unique()):
        cells = []
        for m in methods:
            if (d, m) not in wide.index:
                cells.append("-")
                continue
            r = wide.loc[(d, m)]
            star = "*" if r["p_value"] < 0.05 else ""
            cells.append(f"{r['gap']:+.3f} ({r['z']:+.1f}){star}" if np.isfinite(r["z"])
                         else f"{r['gap']:+.3f}{star}")
        L.append(f"| {d} | " + " | ".join(cells) + " |")
    counts = []
    for m in methods:
        t = tests[tests["method"] == m]
        if len(t):
            over = int(((t["p_value"] < 0.05) & (t["gap"] < 0)).sum())
            under = int(((t["p_value"] < 0.05) & (t["gap"] > 0)).sum())
            counts.append(f"{m} {over} overconfident, {under} underconfident of {len(t)}")
        else:
            counts.append(f"{m}: no cases")
    return L + ["", "Sets with a gap beyond chance (p < 0.05): " + "; ".join(counts) + "."]


def reliability_figure(cases: pd.DataFrame, methods: list[str], path) -> bool:
    """The pooled reliability diagram as small multiples: one panel per method, shared axes.

    Each panel plots the top-label predicted probability (bin mean, 10 bins) against the
    fraction correct with ± 2 binomial standard errors, over all sets and folds, and the
    diagonal of calibration; the legend sits below the panels, off the data.

    Parameters
    ----------
    cases : pandas.DataFrame
        From :func:`cases_frame` (``method``, ``confidence``, ``correct``).
    methods : list of str
        Panel order.
    path : path-like
        The PNG to write.

    Returns
    -------
    bool
        False (and nothing written) when there are no cases.

    Examples
    --------
    >>> reliability_figure(pd.DataFrame(columns=["method"]), ["a"], "r.png")
    False
    """
    shown = [m for m in methods if not cases.empty and (cases["method"] == m).any()]
    if not shown:
        return False
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from ..evaluation._calibration import reliability_table
    from ..evaluation._plots import fraction_bars

    ncols = min(4, len(shown))
    nrows = int(np.ceil(len(shown) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols + 0.6, 2.5 * nrows + 0.9),
                             sharex=True, sharey=True, squeeze=False)
    handles = None
    for ax, m in zip(axes.flat, shown, strict=False):
        c = cases[cases["method"] == m]
        t = reliability_table(c["confidence"].to_numpy(float), c["correct"].to_numpy(float))
        t = t[t["count"] > 0]
        diag, = ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--")
        obs = ax.errorbar(t["mean_predicted"], t["observed_fraction"],
                          yerr=fraction_bars(t["observed_fraction"], 2 * t["se"]),
                          marker="o", ms=3.5, lw=1.2, capsize=2, color="C0")
        handles = (diag, obs)
        ax.set_title(f"{m} (n={len(c)})", fontsize=8.5)
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.02)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(shown):]:
        ax.set_visible(False)
    # the lowest panel shown in each column carries the x axis (above a hidden panel, the
    # shared axis had hidden its ticks and the label went to the hidden one)
    for col in range(ncols):
        lowest = axes[(len(shown) - 1 - col) // ncols, col]
        lowest.set_xlabel("top-label probability", fontsize=8)
        lowest.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[:, 0]:
        ax.set_ylabel("fraction correct", fontsize=8)
    fig.suptitle("Pooled reliability over all data sets and folds", fontsize=10)
    fig.legend(handles, ["calibrated", "observed (bin mean ± 2 binomial SE)"],
               loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def _preprocessing_text(d: dict) -> str:
    pre = d["preprocessing"]
    dropped = {k: v for k, v in (pre.get("dropped") or {}).items() if v}
    if dropped:       # before the folds, for missing values (--drop-missing)
        return (_transform_text(d) + "; dropped for missing values before the folds: "
                + ", ".join(f"{v} {k if v > 1 else k[:-1]}" for k, v in dropped.items()))
    return _transform_text(d)


def _transform_text(d: dict) -> str:
    pre = d["preprocessing"]
    if pre.get("transform", "none") != "none":
        why = " (--transform auto: the values look like raw intensities)" if pre.get("auto") \
            else ""
        return f"log2 of values clipped to [{pre.get('floor')}, {pre.get('ceiling')}]{why}"
    if pre.get("auto"):
        return "none (values as given; --transform auto: they do not look like raw intensities)"
    # The harness cannot know the scale of data it was given; a named set's documented one
    # is quoted.
    scale = d.get("scale")
    return f"none (values as given: {scale})" if scale else "none (values as given)"


def terminal_summary(summary: pd.DataFrame, methods: list[str] | None = None) -> str:
    """The AMLP of each method on each set as a plain-text table, for the terminal.

    Parameters
    ----------
    summary : pandas.DataFrame
        From :func:`summary_frame`.
    methods : list of str, optional
        Row order (default: as in ``summary``).

    Returns
    -------
    str
        One row per method, one column per data set: mean AMLP ± SE (folds of one repeat as
        the unit), ``*`` on the best of the methods whose fits succeeded on every fold of the
        set, ``(n of m folds failed)`` where some failed; empty for an empty summary.

    Examples
    --------
    >>> terminal_summary(summary_frame(results_frame([])))
    ''
    """
    if summary.empty:
        return ""
    methods = methods or list(dict.fromkeys(summary["method"]))
    summary = summary[summary["method"].isin(methods)]     # the best among those shown
    cells = {}
    for d, g in summary.groupby("dataset", sort=True):
        g = g.set_index("method")
        best = _best(g, "amlp")
        col = {}
        for m in methods:
            if m not in g.index:
                col[m] = "-"
                continue
            r = g.loc[m]
            failed, folds = int(r["n_failed"]), int(r["n_folds"] + r["n_failed"])
            text = (f"failed on all {failed} folds" if failed == folds else
                    _fmt(r["amlp"], r["amlp_se"]) + (" *" if m in best else "")
                    + (f" ({failed} of {folds} folds failed)" if failed else ""))
            col[m] = text
        cells[d] = col
    table = pd.DataFrame(cells).reindex(methods)     # methods x sets
    if table.shape[1] > table.shape[0]:
        table = table.T                              # the fewer columns: sets x methods
    rows = [str(r) for r in table.index]
    width = {c: max([len(str(c)), *map(len, table[c])]) for c in table.columns}
    head = max(map(len, rows))
    lines = ["  ".join([" " * head] + [str(c).ljust(width[c]) for c in table.columns]).rstrip()]
    lines += ["  ".join([r.ljust(head)] + [table.at[r, c].ljust(width[c])
                                          for c in table.columns]).rstrip()
              for r in table.index]
    return ("AMLP in nats (lower is better), mean ± SE over folds; * the best of the methods "
            "whose fits succeeded on every fold:\n" + "\n".join(lines))


def _rank_lines(summary: pd.DataFrame) -> list[str]:
    """The mean-rank table, over the sets where every ranked method has a complete result.

    A result is complete where the method's fits succeeded on every fold of the set
    (:func:`_complete`); a method with a complete result on no set is left out of the ranks
    (and named); a set where another method's result is incomplete is left out of them (and
    counted), so that the ranks compare the methods on the same cases.
    """
    complete = summary.assign(amlp=summary["amlp"].where(_complete(summary)))
    wide = complete.pivot(index="dataset", columns="method", values="amlp")
    dead = [m for m in wide.columns if wide[m].isna().all()]
    ranked = complete[~complete["method"].isin(dead)]
    ranks = mean_ranks(ranked, "amlp")
    n_sets = wide.drop(columns=dead).dropna().shape[0]
    gap = summary.assign(abs_gap=summary["gap"].abs()).groupby("method")["abs_gap"].mean()
    lines = ["| method | mean AMLP rank | mean \\|expected - actual\\| error | data sets |",
             "|---|---|---|---|"]
    lines += [f"| {m} | {r:.2f} | {gap.get(m, np.nan):.3f} | {n_sets} |"
              for m, r in ranks.items()]
    notes = []
    if n_sets < len(wide):
        notes.append(f"Ranked on {n_sets} of {len(wide)} sets: on the others a method has no "
                     "result on every fold (some of its fits failed, see Failed fits, or are "
                     "not done yet).")
    failed_all = summary.groupby("method")["n_folds"].sum() == 0
    every = [m for m in dead if failed_all.get(m, False)]
    some = [m for m in dead if m not in every]
    if every:
        notes.append(f"Not ranked (every fit failed): {', '.join(every)}.")
    if some:
        notes.append(f"Not ranked (fits failed on some folds of every set, so scored on other "
                     f"cases than the rest): {', '.join(some)}.")
    return lines + ([""] + [" ".join(notes)] if notes else [])


def write_report_files(res) -> str:
    """Write ``report.md`` and ``reliability.png`` into ``res.out``.

    Parameters
    ----------
    res : selbayes.benchmark.BenchmarkResult

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
    grouped = info.get("groups") or {}
    L += [f"Repeated stratified {info['folds']}-fold cross-validation, {info['repeats']} "
          f"repeat(s), seed {info['seed']}; the same folds for every method"
          + ("" if not grouped else "; the samples of one group in the same fold, outer "
             "and inside each method's own cross-validation ("
             + ", ".join(f"{n}: {g} groups" + (
                 f", the {info['groups_found'][n]} samples in groups of more than one found "
                 "by the replicate check" if n in (info.get("groups_found") or {}) else "")
                 for n, g in grouped.items()) + ")")
          + "".join(f"; {n}: {k} of {info['datasets'][n]['n']} samples in groups far more "
                    "alike than any others, and no groups given (replicates? the folds may "
                    "split them)" for n, k in (info.get("samples_in_replicates") or {}).items())
          + ". Preprocessing, "
          "feature selection and every tuning step run inside each training fold. AMLP is the "
          "mean of -log p(true class) in nats, never floored (inf when a true class got "
          "probability 0). Values are means ± standard errors; bold: best on the set "
          "(smallest |expected - actual| for the gap; every method that ties at the digits "
          "shown) among the methods whose fits succeeded on every fold; '(n of m folds "
          "failed)': the mean over the other folds' cases only.", "",
          SE_METHOD, "",
          f"Wall time of this call: {info['wall_seconds']:.0f} s ({info['n_fitted']} fits run, "
          f"{info['n_resumed']} resumed from disk; n_jobs = {info['n_jobs']}). Sum of fit "
          f"times: {np.nansum(results['fit_seconds']):.0f} s.", "", "## Data sets", "",
          "| data set | n | p | classes | preprocessing (inside folds) |", "|---|---|---|---|---|"]
    for name, d in info["datasets"].items():
        L.append(f"| {name} | {d['n']} | {d['p']} | {len(d['classes'])} | "
                 f"{_preprocessing_text(d)} |")
    noted = {name: d["notes"] for name, d in info["datasets"].items() if d.get("notes")}
    if noted:           # the warnings given when the data were read, which a reader needs too
        L += ["", "Said about the data when they were read:", ""]
        L += [f"- {name}: {note}" for name, notes in noted.items() for note in notes]
    # cases whose true class got probability 0: what an infinite AMLP is made of
    zero_cases = (cases[np.isinf(cases["loss"])].groupby(["dataset", "method"]).size()
                  if not cases.empty else None)
    for metric, title in (("amlp", "AMLP (nats; lower is better)"),
                          ("brier", "Brier score (lower is better)"),
                          ("error", "Error rate"),
                          ("gap", "Expected minus actual error (0 is calibrated; < 0 "
                                  "overconfident)")):
        L += ["", f"## {title}", ""] + _table(summary, metric, methods, zero_cases)
        if metric == "gap" and not cases.empty:
            L += _gap_test_lines(cases, methods)
    L += ["", "## Mean rank over data sets (AMLP; 1 = best)", ""] + _rank_lines(summary)
    if "selbayes" in methods and peers:
        L += ["", "## selbayes against the best peer on each set (paired over folds)", "",
              "Best peer: the peer with the smallest mean AMLP on the set among those whose "
              "fits succeeded on every fold (a peer with failed folds is scored on other "
              "cases). Difference = selbayes - peer (negative: selbayes better).", "",
              "| data set | best peer | AMLP difference ± SE | Brier difference ± SE | "
              "AMLP better beyond 2 SE |",
              "|---|---|---|---|---|"]
        for d, g in summary.groupby("dataset", sort=True):
            gp = g[g["method"].isin(peers) & _complete(g)]
            if gp.empty or gp["amlp"].isna().all():
                L.append(f"| {d} | none (every peer failed on some fold) | - | - | - |")
                continue
            best = gp.set_index("method")["amlp"].idxmin()
            a = paired_difference(results, d, "selbayes", best, "amlp")
            b = paired_difference(results, d, "selbayes", best, "brier")
            verdict = {-1: "selbayes", 1: best, 0: "neither"}[clear_difference(a[0], a[1])]
            L.append(f"| {d} | {best} | {_fmt(a[0], a[1])} | {_fmt(b[0], b[1])} | "
                     f"{verdict} |")
    for other, what in (("selbayes_uncorrected", "its own choice of k and temperature"),
                        ("selbayes_uncorrected_same_choice",
                         "the k, temperature and label noise that selbayes chose")):
        if "selbayes" not in methods or other not in methods:
            continue
        L += ["", f"## Corrected against uncorrected, {what} (paired over folds)", "",
              f"Difference = selbayes - {other} (negative: the correction helps).",
              "", "| data set | AMLP difference ± SE | beyond 2 SE | gap corrected | "
              "gap uncorrected |", "|---|---|---|---|---|"]
        wins = clear_wins = clear_losses = 0
        for d, g in summary.groupby("dataset", sort=True):
            a = paired_difference(results, d, "selbayes", other, "amlp")
            g = g.set_index("method")
            clear = clear_difference(a[0], a[1])
            wins += bool(np.isfinite(a[0]) and a[0] < 0)
            clear_wins += clear < 0
            clear_losses += clear > 0
            L.append(f"| {d} | {_fmt(a[0], a[1])} | "
                     f"{ {-1: 'corrected', 1: 'uncorrected', 0: '-'}[clear] } | "
                     f"{_fmt(g['gap'].get('selbayes'))} | "
                     f"{_fmt(g['gap'].get(other))} |")
        n_sets = summary["dataset"].nunique()
        L += ["", f"Corrected has the lower AMLP on {wins} of {n_sets} sets; lower by more "
              f"than 2 SE on {clear_wins}, higher by more than 2 SE on {clear_losses}."]
    fig = res.out / "reliability.png"
    if reliability_figure(cases, methods, fig):
        L += ["", "## Pooled reliability", "", "![reliability](reliability.png)", "",
              "One panel per method (shared axes): top-label predicted probability against "
              "the fraction correct, pooled over all sets and folds (10 bins; bars ± 2 "
              "binomial SE under calibration)."]
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
                L.append(f"| {m} | {c['dataset']} | {_md(c['sample'])} | "
                         f"{_md(c['true_class'])} | {c['p_true']:.3g} | "
                         f"{_fmt(c['loss'], digits=2)} |")
    ks = results.dropna(subset=["k"])
    if not ks.empty:
        L += ["", "## Chosen k per fold", "",
              "The t prior's degrees of freedom, where the data chose them (`effect_prior="
              "\"t_auto\"`), and the label-noise probability eps of the predictive (with "
              "`label_noise=\"cv\"`, the default, the share c / (n + 2) with c in {0, 1/4, 1, "
              "4} that the inner cross-validation chose, n the training fold's cases) beside "
              "it; '-' where there is none.", "",
              "| data set | method | k per fold | t prior's df per fold | label-noise eps per "
              "fold |", "|---|---|---|---|---|"]

        def per_fold(values, fmt):
            return ("-" if values.isna().all()
                    else ", ".join("-" if np.isnan(v) else fmt(v) for v in values))

        for (d, m), g in ks.groupby(["dataset", "method"], sort=True):
            L.append(f"| {d} | {m} | {', '.join(str(int(v)) for v in g['k'])} | "
                     f"{per_fold(g['t_df'], lambda v: f'{v:g}')} | "
                     f"{per_fold(g['label_noise'], lambda v: f'{v:.3g}')} |")
    L += ["", "## Fit time (wall seconds, sum over folds; mean per fit in brackets)", "",
          "Wall times depend on the machine's load; `summary.csv` also has CPU seconds.", "",
          "| data set | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for d, g in summary.groupby("dataset", sort=True):
        g = g.set_index("method")
        L.append(f"| {d} | " + " | ".join(
            _cell(g.loc[m], f"{g.at[m, 'fit_seconds']:.1f} ({g.at[m, 'fit_seconds_mean']:.1f})")
            if m in g.index else "-" for m in methods) + " |")
    failed = results[results["error_message"].notna()]
    if not failed.empty:
        L += ["", "## Failed fits", ""]
        for _, r in failed.iterrows():
            L.append(f"- {r['dataset']} / {r['method']} repeat {r['repeat']} fold {r['fold']}: "
                     f"{r['error_message']}")
    vers = info.get("versions") or {}          # settings.json of runs before 2026-12-07: none
    L += ["", "## Settings", "", "```", f"methods: {', '.join(info['methods'])}",
          f"folds: {info['folds']}  repeats: {info['repeats']}  seed: {info['seed']}  "
          f"n_jobs: {info['n_jobs']}  quick: {info['quick']}",
          *([("versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()
                                       if v is not None and k not in ("platform", "cpu_count")))]
            if vers else []), "```", "",
          "Each method's settings, the data sets' hashes and the machine: `settings.json`.", ""]
    text = "\n".join(L)
    (res.out / "report.md").write_text(text)
    return text
