"""Shared plumbing of the offline checks of a third stack component (``kept_genes_probit/``,
``l1_stack/``): a candidate that keeps the default's two components (the Gaussian model and
the probit model of all genes, their inner and test log probabilities stored by an earlier
fit) and adds a third, fitted here on the same inner folds, with the three weights fitted by
the stack's own ``stacking_weights``. Because the two stored components are the default's,
the candidate's score on a replicate (or a development-set fold) is exactly what fitting it
would give there.

A component is a function ``component(X_train, y_train, X_test, seed, k)`` -> the test cases'
log probabilities (n_test, G), with ``y_train`` class indices, ``seed`` the Gaussian model's
random_state and ``k`` its chosen k. The scripts put this folder on ``sys.path`` and import
this module, as they do ``offline.py`` and ``paired.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

REPORTS = Path(__file__).resolve().parents[1]
#: The default's run on the development sets with its components stored per fold.
DEV_RUN = REPORTS / "benchmark_microarray_components_2026-12-03"
#: L1 and L2 logistic regression's AMLP on the development sets.
DEV_PEERS = REPORTS / "calibration_gap" / "peers" / "summary.csv"


def inner_folds(y_index, random_state, n_splits=5):
    """The Gaussian model's inner folds, as its k search makes them from its seed."""
    from selbayes._validation import check_random_state
    from selbayes.estimators._inner_cv import _stratified_folds

    return _stratified_folds(y_index, n_splits, check_random_state(random_state))[1]


def third_log_proba(X, yi, Xt, A, random_state, k, component):
    """The third component's inner log probabilities (n, G), on the Gaussian model's inner
    folds re-made from ``random_state``, and its test log probabilities (m, G), fitted on all
    of ``X``; and the largest |difference| between the stored all-genes probit's inner log
    probabilities ``A[1]`` and that model refitted on the re-made folds (0 when the folds
    are the default's)."""
    from selbayes.estimators._linear_stack import fit_all_features_probit

    inner, check = np.empty_like(A[0]), 0.0
    for tr, te in inner_folds(yi, random_state):
        lin = fit_all_features_probit(X[tr], yi[tr], random_state).predict_log_proba(X[te])
        check = max(check, float(np.max(np.abs(lin - A[1][te]))))
        inner[te] = component(X[tr], yi[tr], X[te], random_state, k)
    return inner, component(X, yi, Xt, random_state, k), check


def stack_weights(A3, yi, random_state):
    """The stack's own weights of the three components (``stacking_weights`` on the inner
    cases, as ``LinearStackedClassifier`` fits them) and no extra fields: the default
    ``weights`` of :func:`scored_rows` and :func:`dev_fold`. A candidate that chooses the
    weights otherwise passes its own function of the same signature: ``A3`` (3, n, G) the
    components' inner log probabilities, ``yi`` the class indices, ``random_state`` the
    Gaussian model's seed (its inner folds: :func:`inner_folds`) -> (weights (3,), dict of
    fields added to the row)."""
    from selbayes.estimators._linear_stack import _weights_and_pool

    return _weights_and_pool(A3, yi, "linear")[0], {}


def scored_rows(data, binary, A, yi, T, w2, random_state, k, common, component,
                label, weights=stack_weights) -> list:
    """The rows of ``linear_refit`` (the default's two-way pool, weights ``w2``) and
    ``three_way`` for one fitted default: ``A`` (2, n, G) and ``T`` (2, m, G) its components'
    inner and test log probabilities, ``yi`` the training class indices, ``random_state``
    the Gaussian model's seed (its inner folds), ``k`` its chosen k, ``common`` fields of
    both rows; ``three_way`` also has ``{label}_weight``, ``fold_check`` and
    ``inner_{label}``, and the fields of ``weights`` (:func:`stack_weights`: the three
    weights)."""
    from selbayes.estimators._linear_stack import _linear_pool
    from selbayes.experiments.plasmode import calibration_scores

    X, Xt = np.asarray(data["X_train"], float), np.asarray(data["X_test"], float)
    inner, test, check = third_log_proba(X, yi, Xt, A, random_state, k, component)
    own = np.arange(yi.size), yi
    A3, T3 = np.concatenate([A, inner[None]]), np.concatenate([T, test[None]])
    w2 = np.asarray(w2, float)
    w3, fields = weights(A3, yi, random_state)
    inner3 = _linear_pool(A3, w3)
    common = {**common, "k": k}
    rows = []
    for method, lp, w, pooled in (("linear_refit", _linear_pool(T, w2), w2,
                                   _linear_pool(A, w2)),
                                  ("three_way", _linear_pool(T3, w3), w3, inner3)):
        s = calibration_scores(np.exp(lp), data["p_test"])
        if not binary:
            del s["slope"]          # the suite's slope is binary
        rows.append({**common, "method": method, **s, "weights": [float(v) for v in w],
                     "linear_weight": float(w[1]), "inner_stack": -float(pooled[own].mean())})
    rows[1].update({f"{label}_weight": float(w3[2]), "fold_check": check,
                    f"inner_{label}": -float(inner[own].mean()), **fields})
    return rows


def stored_rows(name: str, rep: int, seed: int, fits: Path, k: int, component,
                label: str, extra=None, weights=stack_weights) -> list:
    """:func:`scored_rows` for replicate ``rep`` of scenario ``name`` drawn with run seed
    ``seed`` (``log_pool/run.py``'s ``replicate``), from the default's components stored in
    ``fits`` (``{name}_{rep}.npz``: ``inner``, ``y_inner``, ``test``, ``weights``; as
    ``sharpened_pool/run.py`` and ``kept_genes_probit/seed1/run.py`` store them), ``k`` the
    Gaussian model's chosen k in that fit, its seed ``seed + rep``; ``extra(y, seed)``, when
    given, adds fields to the ``three_way`` row from the training class indices and the
    Gaussian model's seed; ``weights`` as in :func:`scored_rows`."""
    import offline  # reports/plasmode/offline.py (this folder is on the path)

    lp = offline.load_script(Path(__file__).resolve().parent / "log_pool" / "run.py",
                             "log_pool_run")
    data, binary = lp.replicate(name, rep, seed)
    stored = np.load(fits / f"{name}_{rep}.npz")
    A, yi, T = stored["inner"], stored["y_inner"], stored["test"]
    assert np.array_equal(np.searchsorted(np.unique(data["y_train"]), data["y_train"]), yi)
    common = {"scenario": name, "replicate": rep, "n_test": len(data["p_test"])}
    rows = scored_rows(data, binary, A, yi, T, stored["weights"], seed + rep, k, common,
                       component, label, weights)
    rows[1].update(extra(yi, seed + rep) if extra else {})
    return rows


def report_header(title: str, same, folds, complete: bool) -> list[str]:
    """The opening lines of a third component's ``report.md``: ``title``, how to read the
    tables, the reproduction checks (``same``: |KL of the recomputed default - KL of its
    committed row| per fit; ``folds``: each replicate's ``fold_check``), and a warning when
    the run is not ``complete``."""
    out = [title, "", "Made by `compare.py` (README.md: the rules, written before the run). "
           "Mean over replicates; for `three_way` also the paired difference three_way - "
           "linear_refit ± SE (* beyond 2 SE). `linear_refit` is the default, recomputed from "
           "the stored fits.", "",
           f"Reproduction: `linear_refit` against the committed default rows "
           f"(`../refit_inner/`), {len(same)} fits: largest |KL difference| "
           f"{max(same) if same else float('nan'):.2e}. Inner folds: the default's all-genes "
           f"probit recomputed on the re-made folds, largest |log-probability difference| "
           f"{max(folds) if folds else float('nan'):.2e}.", ""]
    if not complete:
        out += ["**INCOMPLETE run**: not every scenario has six replicates; the verdicts "
                "below cover the scenarios run so far.", ""]
    return out


def dev_fold(name: str, fold: int, component, label: str, extra=None,
             weights=stack_weights, run=DEV_RUN, method="selbayes") -> dict:
    """One fold of a benchmark run with stored stack components (``run``, default
    :data:`DEV_RUN`; 5 folds, 1 repeat, seed 0; the stack ``method``): the fold's training cases
    preprocessed as the benchmark's pipeline does, the third component on the Gaussian
    model's inner folds (re-made from the fold's seed and checked) and on the whole training
    fold, the three weights, and the test cases' mean log loss of the default, the three-way
    stack and the third component alone (``{label}_alone``); ``extra(y_train, seed)``, when
    given, adds fields (as in :func:`stored_rows`); ``weights`` chooses the three weights
    (:func:`stack_weights`: the stack's own) and adds its fields."""
    from selbayes.benchmark._runner import _make_splits, _preprocessor, resolve_dataset
    from selbayes.estimators._linear_stack import _linear_pool

    ds = resolve_dataset(name)
    X = ds.X.to_numpy(dtype=np.float64)
    _, y = np.unique(ds.y.astype(str).to_numpy(), return_inverse=True)
    (_, splits), = _make_splits(y, 5, 1, 0)
    train, test = splits[fold]
    stem = run / "folds" / name / method / f"r00_f{fold:02d}"
    record = json.loads(stem.with_suffix(".json").read_text())
    stored = np.load(stem.with_suffix(".npz"))
    assert record["meta"]["test"] == test.tolist()
    pre = _preprocessor(record["task"]["preprocessing"])     # as the benchmark's pipeline
    if pre is not None:
        pre.fit(X[train])
        Xtr, Xte = pre.transform(X[train]), pre.transform(X[test])
    else:
        Xtr, Xte = X[train], X[test]
    ytr, seed, k = y[train], int(record["task"]["seed"]), int(record["meta"]["k"])
    A, T = stored["stack_inner_log_proba"], stored["stack_test_log_proba"]
    inner, third_test, check = third_log_proba(Xtr, ytr, Xte, A, seed, k, component)
    A3, T3 = np.concatenate([A, inner[None]]), np.concatenate([T, third_test[None]])
    w3, fields = weights(A3, ytr, seed)
    p3 = np.exp(_linear_pool(T3, w3))
    yt = y[test]
    loss3 = -np.log(p3[np.arange(len(test)), yt])
    return {"dataset": name, "fold": fold, "n_test": len(test), "k": k,
            "default": float(stored["losses"].mean()), "three_way": float(loss3.mean()),
            f"{label}_alone": float(-third_test[np.arange(len(test)), yt].mean()),
            f"w_{label}": float(w3[2]), "fold_check": check,
            "err_default": float(np.mean(stored["proba"].argmax(1) != yt)),
            "err_three_way": float(np.mean(p3.argmax(1) != yt)),
            "exp_err_three_way": float(np.mean(1 - p3.max(1))),
            **fields, **(extra(ytr, seed) if extra else {})}


def dev_sets(component, label: str, jobs: int = 2, extra=None, weights=stack_weights,
             run=DEV_RUN, method="selbayes"):
    """:func:`dev_fold` for every fold of every set of ``run`` (default :data:`DEV_RUN`): a
    DataFrame."""
    import pandas as pd
    from sklearn.utils.parallel import Parallel, delayed

    sets = sorted(p.name for p in (run / "folds").iterdir() if p.is_dir())
    return pd.DataFrame(Parallel(n_jobs=jobs)(
        delayed(dev_fold)(s, f, component, label, extra, weights, run, method)
        for s in sets for f in range(5)))


def dev_sets_differences(df):
    """Per set, the AMLP difference three_way - default of :func:`dev_sets`'s rows, paired over
    the folds as the benchmark's report pairs methods (``selbayes.benchmark``'s
    ``paired_difference``: case-weighted over folds, the folds as the unit of the SE) and
    whether it is beyond 2 SE (``clear_difference``: -1, 0 or +1); and the mean of the sets'
    differences with its SE (sets independent). Returns (DataFrame indexed by set with
    ``diff``, ``se``, ``clear``; mean; se)."""
    import pandas as pd

    from selbayes.benchmark._report import clear_difference, paired_difference

    long = pd.concat([pd.DataFrame({"dataset": df.dataset, "method": m, "repeat": 0,
                                    "fold": df.fold, "n_test": df.n_test, "amlp": df[m],
                                    "error_message": np.nan})
                      for m in ("three_way", "default")])
    per = pd.DataFrame([paired_difference(long, s, "three_way", "default")[:2]
                        for s in sorted(df.dataset.unique())],
                       index=sorted(df.dataset.unique()), columns=["diff", "se"])
    per["clear"] = [clear_difference(m, se) for m, se in zip(per["diff"], per["se"],
                                                             strict=True)]
    return per, float(per["diff"].mean()), float(np.sqrt(np.sum(per["se"] ** 2)) / len(per))


def dev_sets_report(df, label: str, title: str, alone: str, weight: str, *,
                    better_mean: bool = False) -> list[str]:
    """Rule T4's Markdown from :func:`dev_sets`'s rows: AMLP not worse beyond 2 SE than the
    default's on any set, and the mean over the sets not worse beyond 2 SE or, with
    ``better_mean``, better beyond 2 SE; ``alone`` and ``weight`` name the third component's
    columns in the table."""
    import pandas as pd

    peers = pd.read_csv(DEV_PEERS).pivot(index="dataset", columns="method", values="amlp")
    per, mean_diff, mean_se = dev_sets_differences(df)
    lines = [title, "",
             "AMLP per set (case-weighted over the 5 folds); the difference three_way - default "
             "paired over folds, ± SE with the folds as the unit (* beyond 2 SE); the mean "
             "over the sets with its SE from the sets' SEs (sets independent).", "",
             f"Inner folds re-made from each fold's seed: the stored all-genes probit's inner "
             f"log probabilities come back to {df.fold_check.max():.1e}.", "",
             f"| set | default | three_way | difference | {alone} | {weight} "
             "(mean) | L1 | L2 |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s, g in df.groupby("dataset"):
        w = g.n_test / g.n_test.sum()
        star = "*" if per.loc[s, "clear"] else ""
        lines.append(f"| {s} | {(w * g.default).sum():.3f} | {(w * g.three_way).sum():.3f} | "
                     f"{per.loc[s, 'diff']:+.3f} ± {per.loc[s, 'se']:.3f}{star} | "
                     f"{(w * g[f'{label}_alone']).sum():.3f} | "
                     f"{g[f'w_{label}'].mean():.2f} | {peers.loc[s, 'logreg_l1_cv']:.3f} | "
                     f"{peers.loc[s, 'logreg_l2_cv']:.3f} |")
    worse = list(per.index[per["clear"] > 0])
    cols = ("default", "three_way", f"{label}_alone")
    means = df.assign(w=df.n_test).groupby("dataset").apply(
        lambda g: pd.Series({c: np.average(g[c], weights=g.w) for c in cols}))
    lines += [f"| mean over sets | {means.default.mean():.3f} | {means.three_way.mean():.3f} | "
              f"{mean_diff:+.3f} ± {mean_se:.3f} | "
              f"{means[f'{label}_alone'].mean():.3f} | | "
              f"{peers.loc[per.index, 'logreg_l1_cv'].mean():.3f} | "
              f"{peers.loc[per.index, 'logreg_l2_cv'].mean():.3f} |", "",
              f"* Worse beyond 2 SE on: {', '.join(worse) or 'none'}; the mean "
              + ("worse beyond 2 SE." if mean_diff > 2 * mean_se else "not worse beyond 2 SE.")]
    if better_mean:
        better = mean_diff < -2 * mean_se
        return lines + [
            f"* The mean over the sets: {mean_diff:+.4f} ± {mean_se:.4f} "
            + ("(better beyond 2 SE)." if better else "(not better beyond 2 SE)."),
            "* T4 (README.md: worse on no set, the mean better beyond 2 SE): "
            + ("pass" if not worse and better else "FAIL"), ""]
    return lines + ["* T4: " + ("pass" if not worse and mean_diff <= 2 * mean_se else "FAIL"),
                    ""]
