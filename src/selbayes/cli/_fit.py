"""``selbayes fit``: the command, its checks of the options, and the summary it prints of the
fit."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from ._classifiers import _TRANSFORM_ATTR, MODELS
from ._errors import UserError, _os_reason
from ._inputs import (
    _apply_transform,
    _check_binary_file,
    _make_parent,
    _read_h5ad,
    _read_x,
    _transform_settings,
)


def _gaussian_only(args, *names) -> None:
    given = [n for n in names if getattr(args, n.replace("-", "_")) is not None]
    if given and args.model != "gaussian":
        verb = "applies" if len(given) == 1 else "apply"
        raise UserError(f"--{', --'.join(given)} {verb} to the gaussian model only (not "
                        f"--model {args.model})")


def _k_grid(text: str | None):
    if text is None:
        return None
    try:
        grid = sorted({int(v) for v in text.replace(" ", "").split(",") if v})
    except ValueError:
        raise UserError(f"--k-grid must be comma-separated integers, e.g. 5,10,20,50; got "
                        f"{text!r}") from None
    if not grid or grid[0] < 1:
        raise UserError(f"--k-grid needs positive integers; got {text!r}")
    return grid


def _inner_predictions(refits) -> str:
    """What the stack's weights were fitted on, for the summary: the Gaussian model refitted on
    every inner fold, on some (a fold the classifier cannot be fitted on keeps the plug-in
    scores), on none, or the plug-in by choice (``refits`` None)."""
    if refits is None:
        return "the inner cross-validation's plug-in"
    done, folds = refits
    if done == folds:
        return "refitted on each inner fold"
    why = "a class has no training case there, or fewer than two classes of two cases"
    if done == 0:
        return f"the inner cross-validation's plug-in on all {folds} inner folds ({why})"
    return f"refitted on {done} of {folds} inner folds (the plug-in on the others: {why})"


def _fit_summary(clf, args, X, y) -> list[str]:
    """A few lines on what was fitted: k, the first genes, gamma, temperature, diagnostics."""
    import numpy as np

    counts = ", ".join(f"{c} ({int(n)})" for c, n in
                       zip(*np.unique(np.asarray(y, dtype=str), return_counts=True),
                           strict=True))
    lines = [f"fitted: {args.model}, {X.shape[0]} samples x {X.shape[1]} features; "
             f"classes {counts}"]
    sel = clf.selection_
    k = int(len(sel.indices))
    how = ""
    choice = getattr(clf, "k_choice_", None)
    if choice is not None and getattr(clf, "k", None) == "auto":
        ks = sorted({int(g[0]) for g in choice.grid})
        grouped = (f", {choice.extra['n_groups']} groups kept whole"
                   if "n_groups" in choice.extra else "")
        how = (f" (chosen by {choice.n_splits}-fold inner CV{grouped} from "
               f"{', '.join(map(str, ks))})")
    stat = {"f": "F", "abs_corr": "|correlation|"}.get(str(sel.statistic), str(sel.statistic))
    lines.append(f"k: {k}{how}; threshold gamma: {float(sel.threshold):.4g} "
                 f"({stat} of the last kept feature; {X.shape[1] - k} omitted at or below "
                 "it)")
    names = [str(v) for v in clf.selected_features_]
    more = f", ... ({len(names) - 8} more)" if len(names) > 8 else ""
    lines.append(f"selected (best first): {', '.join(names[:8])}{more}")
    markers = getattr(clf, "marker_probabilities_", None)
    if markers is not None:   # the two-groups prior: each kept gene's P(real marker | data)
        shown = ", ".join(f"{n} {float(p):.2f}" for n, p in
                          zip(names[:8], np.asarray(markers)[:8], strict=False))
        lines.append(f"P(real marker), two-groups prior: {shown}{more}")
    if getattr(clf, "prior_choice_", None) is not None:
        pc = clf.prior_choice_
        lines.append(f"prior on the class means: {pc.label} (chosen by inner CV from "
                     f"{', '.join(pc.labels)})")
    elif getattr(clf, "t_df_", None) is not None:
        lines.append(f"t prior: {float(clf.t_df_):g} degrees of freedom (chosen by the data)")
    temp = getattr(clf, "temperature_", None)
    if isinstance(temp, int | float) and np.isfinite(temp) and float(temp) != 1.0:
        lines.append(f"temperature: {float(temp):.3g} (test-time log odds divided by it)")
    eps = getattr(clf, "label_noise_", None)
    if isinstance(eps, int | float) and float(eps) > 0:
        how = ("share chosen by inner CV; " if getattr(clf, "label_noise", None) == "cv"
               else "")
        lines.append(f"label noise: {float(eps):.3g} ({how}probabilities mixed with the class "
                     "frequencies by this much)")
    elif getattr(clf, "label_noise", None) == "cv":
        lines.append("label noise: 0 (chosen by inner CV: no case predicted badly enough to "
                     "need it)")
    diag = getattr(clf, "diagnostics_", None)
    if diag is None and getattr(clf, "method", None) == "plugin":
        lines.append("diagnostics: none (plug-in: hyperparameters at their mode, independent "
                     "draws, no chain to converge)")
    elif diag is None:
        lines.append("diagnostics: none (no MCMC draws: deterministic computation)")
    elif diag.attrs.get("ok", True):
        lines.append(f"diagnostics: R-hat and ESS pass ({len(diag)} parameters checked)")
    else:
        failures = diag.attrs.get("failures") or ["see clf.diagnostics_"]
        # the failure names its remedy; these are the run's lengths on the command line
        lines.append(f"diagnostics: FAIL: {failures[0]} (--draws, --tune, --chains)")
    checks = getattr(clf, "loo_checks_", None)
    if checks is not None and "suspect_label" in checks:
        # selbayes.evaluation._label_check: the inner CV's held-out probability of each label
        from ..evaluation._label_check import LABEL_CHECK_ALPHA, flagged_cases

        n_bad = int(checks["suspect_label"].sum())
        if n_bad == 0:
            lines.append("labels: none contradicted by the held-out predictions (the inner "
                         "CV without label noise; a case is named when (classes - 1) x its "
                         f"probability of its own class is below {LABEL_CHECK_ALPHA:g} / "
                         "samples)")
        else:
            lines.append(f"labels: {n_bad} contradicted by their held-out predictions: "
                         f"{flagged_cases(checks, with_p=False)} (check for a sample swap or "
                         "a wrong label)")
    found = getattr(clf, "replicate_groups_", None)     # None: groups given, or no inner CV
    if found is not None:
        lines += _replicate_lines(found, X.shape[0], getattr(args, "groups", None))
    return lines


def _replicate_lines(found, n: int, groups) -> list[str]:
    """The summary's ``replicates:`` lines for the fit's ``replicate_groups_`` (``found``)
    among ``n`` samples: the groups kept whole by the inner folds and those not, with what to
    do (``groups``: the ``--groups`` given, None for the default)."""
    from ..evaluation._replicates import NEAR_COPY, PAIR_SHARE, replicate_message

    if not len(found):
        return ["replicates: no samples far more alike among themselves than any others "
                "(pairs to groups of 5 looked for)"]
    kept = found["kept"].to_numpy(dtype=bool)
    out = []
    if kept.any():
        k = found[kept]
        out.append(f"replicates: {len(k)} of {n} samples in {k['group'].nunique()} group(s) "
                   "far more alike among themselves than any others, kept whole by the inner "
                   "folds (replicate_groups_ of the fit; --groups none takes every sample as "
                   "independent)")
    rest = found[~kept]
    if len(rest):
        why = ("--groups none" if groups == "none" else
               f"less alike than the near-copies kept by default: correlation below "
               f"{NEAR_COPY:g}")
        warned = replicate_message(rest, n) is not None
        out.append(f"replicates: {len(rest)} of {n} samples in {rest['group'].nunique()} "
                   "group(s) far more alike among themselves than any others, not kept whole "
                   f"({why}; replicate_groups_ of the fit; "
                   + ("if they are replicates or samples of one patient, pass --groups auto "
                      "or --groups FILE)" if warned else
                      f"too few to warn: a warning needs {PAIR_SHARE:.0%} of the samples and "
                      "at least 4)"))
    return out


def _cmd_fit(args) -> int:
    import importlib

    import h5py
    import numpy as np

    from ..datasets._dataset import MISSING_TEXT_ATTR

    _gaussian_only(args, "k-grid", "prior", "plugin", "linear-stack", "inner-predictive",
                   "l1-gate", "groups", "group-key")
    if args.model != "gaussian" and args.transform == "log2":
        raise UserError(f"--transform applies to the gaussian model only (the {args.model} "
                        "model takes binary features)")
    p = Path(args.x)
    if p.suffix.lower() == ".h5ad" and args.label_key is not None:
        if args.y is not None:
            raise UserError("give the labels once: --y FILE or --label-key COLUMN")
        adata = _read_h5ad(p)
        if args.label_key not in adata.obs:
            raise UserError(f"{args.x}: no obs column {args.label_key!r}; obs has "
                            f"{', '.join(map(str, list(adata.obs.columns)[:10])) or 'none'}")
        X = _read_x(args.x, layer=args.layer, allow_missing=args.drop_missing is not None)
        y = adata.obs[args.label_key].astype(object).to_numpy()
        missing_text = ()
        if args.group_key is not None:
            if args.groups is not None:
                raise UserError("give the groups once: --groups FILE or --group-key COLUMN")
            if args.group_key not in adata.obs:
                raise UserError(f"{args.x}: no obs column {args.group_key!r} (--group-key); "
                                f"obs has {', '.join(map(str, list(adata.obs.columns)[:10]))}")
            from ..evaluation._folds import group_codes

            group_key_values = adata.obs[args.group_key].to_numpy(dtype=object)
            try:                        # the fit's own check of the groups, naming the column
                group_codes(group_key_values, len(group_key_values))
            except ValueError as exc:
                raise UserError(f"{args.x}, obs column {args.group_key!r}: {exc}") from None
    else:
        if args.label_key is not None:
            raise UserError("--label-key applies to .h5ad files; give a label file with --y")
        if args.group_key is not None:
            raise UserError("--group-key applies to .h5ad files with --label-key; give a "
                            "groups file with --groups")
        X = _read_x(args.x, layer=args.layer, allow_missing=args.drop_missing is not None)
        if args.y is None:
            raise UserError("no labels: give --y FILE (or --label-key COLUMN for an .h5ad "
                            "file)")
        from ..datasets._files import labels_for_matrix

        # by sample id when the label file has ids (any order; the ids must match), else by
        # row order; X transposed where it is plainly genes x samples, as read_xy does
        X, y = labels_for_matrix(X, args.y, label_column=args.label_column, x_source=args.x)
        missing_text = y.attrs.get(MISSING_TEXT_ATTR, ())   # "NA" cells, for the message
        y = y.to_numpy(dtype=object)
    X_read = X                          # the groups are read against the samples of the file
    import pandas as pd

    from ..datasets._dataset import drop_missing_values

    # missing labels (and values, with --drop-missing): named, or dropped, as read_xy does
    labels = pd.Series(y, index=X.index)
    labels.attrs[MISSING_TEXT_ATTR] = missing_text
    X, y, _ = drop_missing_values(X, labels, args.drop_missing or False, source=args.x,
                                  label_source=args.y)
    y = y.to_numpy(dtype=object)
    kept = X_read.index.get_indexer(X.index)    # the rows of the file that are fitted
    from .._validation import check_labels

    module, name = MODELS[args.model]
    cls = getattr(importlib.import_module(module), name)
    try:                                # the classes' checks, naming the labels' file
        check_labels(np.asarray([str(v) for v in y]), name=args.y or (
            f"{args.x} (--label-key {args.label_key})"), min_per_class=cls._min_per_class,
            min_classes_of_two=cls._min_classes_of_two)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    pre = _transform_settings(args, X)
    Xt = _apply_transform(pre, X, source=args.x)
    if args.model != "gaussian":
        _check_binary_file(Xt, args.x, args.model)
    params = dict(random_state=args.seed, draws=args.draws, tune=args.tune,
                  chains=args.chains, progressbar=not args.no_progress)
    if args.k is not None:
        k = args.k
        if k not in ("auto", "all"):
            try:
                k = int(k)
            except ValueError:
                k = None
            if k is None or k < 1:
                raise UserError(f"--k must be an integer >= 1, 'auto' or 'all'; got "
                                f"{args.k!r}")
        if k == "auto" and args.model != "gaussian":
            raise UserError(f"--k auto is offered by the gaussian model only; give --k N "
                            f"for --model {args.model}")
        params["k"] = k
    if args.mcmc and args.model != "naive-bayes":
        raise UserError(f"--mcmc applies to --model naive-bayes (its default is a deterministic "
                        f"quadrature); --model {args.model} samples by MCMC already"
                        + (" unless --plugin" if args.model == "gaussian" else ""))
    if args.k_grid is not None and params.get("k", "auto") != "auto":
        raise UserError(f"--k-grid applies with --k auto (the default), where k is chosen "
                        f"from it; --k {args.k} fits at that k")
    if args.plugin and args.prior == "two_groups":
        raise UserError("--prior two_groups is fitted by MCMC only: drop --plugin, or give "
                        "--prior t or --prior normal with --plugin")
    if args.model == "gaussian":
        if args.k_grid is not None:
            params["k_grid"] = _k_grid(args.k_grid)
        if args.prior is not None:
            params["effect_prior"] = args.prior
        if args.plugin:
            params["method"] = "plugin"
    if args.model == "naive-bayes":
        params["method"] = "mcmc" if args.mcmc else "quadrature"
    clf = cls(**params)
    k_auto = args.model == "gaussian" and params.get("k", "auto") == "auto"
    if args.linear_stack and not k_auto:
        raise UserError(f"--linear-stack needs --k auto (the default): the stack is weighted "
                        f"on the inner cases that chose k; got --k {args.k}")
    fit_kw = {}
    if args.groups not in (None, "none", "near_copies") or args.group_key is not None:
        flag = "--groups" if args.groups is not None else "--group-key"
        if not k_auto:
            raise UserError(f"{flag} keeps each group's samples in one fold of the inner "
                            f"cross-validation of --k auto (the default); --k {args.k} runs "
                            "none")
    if args.group_key is not None:
        fit_kw["groups"] = group_key_values[kept]
    elif args.groups in ("auto", "near_copies"):
        fit_kw["groups"] = args.groups  # the groups the fit finds (replicate_groups) and keeps
    elif args.groups == "none":
        fit_kw["groups"] = None         # every sample independent (a warning where not)
    elif args.groups is not None:
        from ..datasets._files import groups_for_matrix

        try:
            fit_kw["groups"] = np.asarray(groups_for_matrix(X_read, args.groups,
                                                            x_source=args.x))[kept]
        except ValueError as exc:
            raise UserError(str(exc)) from None
    # the recommended model by default: the stack wherever k is chosen by inner CV (a fixed
    # --k gives no inner cases to weight it on, and fits the Gaussian classifier alone)
    stacked = k_auto if args.linear_stack is None else args.linear_stack
    for flag, value in (("--inner-predictive", args.inner_predictive),
                        ("--l1-gate", args.l1_gate)):
        if value is not None and not stacked:
            raise UserError(f"{flag} chooses how the stack is fitted; without the stack ("
                            + ("--no-linear-stack" if k_auto else f"--k {args.k}")
                            + ") there is none")
    if stacked:
        from ..estimators import LinearStackedClassifier

        # --l1-gate not given: the estimator's own default
        gate = {} if args.l1_gate is None else {
            "l1_gate": None if args.l1_gate == "off" else args.l1_gate}
        clf = LinearStackedClassifier(clf, inner_predictive=args.inner_predictive or "refit",
                                      **gate)
    out = Path(args.output)
    _make_parent(out)                   # before the fit: a bad path fails at once
    with warnings.catch_warnings():
        if pre is not None:
            # the data were logged here; whether they should have been is Log2InputWarning's
            from ..preprocessing._intensity import RawIntensityWarning

            warnings.simplefilter("ignore", RawIntensityWarning)
        clf.fit(Xt, np.asarray([str(v) for v in y]), **fit_kw)
    try:
        clf.save(out)
    except OSError as exc:              # save's own line, naming the file and why
        raise UserError(str(exc)) from None
    try:
        with h5py.File(out, "a") as f:
            f.attrs[_TRANSFORM_ATTR] = json.dumps(pre)
    except OSError as exc:
        raise UserError(f"{out}: cannot write the fit "
                        f"({_os_reason(exc, writing=True)})") from None
    for line in _fit_summary(clf.estimator_ if stacked else clf, args, X, y):
        print(line)
    if stacked:
        w, sc = clf.weights_, clf.inner_scores_
        print(f"stacked with a Bayesian probit regression of all {clf.linear_.Z.shape[1]} "
              f"features: weights {w[0]:.2f} (the gaussian model) and {w[1]:.2f} (the linear "
              f"model); inner log loss {sc['gaussian']:.3f}, {sc['linear']:.3f} and "
              f"{sc['stack']:.3f} (the stack), nats; the gaussian model's inner predictions: "
              + _inner_predictions(clf.inner_refits_))
        if clf.l1_gate_ is not None:
            g = clf.l1_gate_
            print(f"L1 logistic regression: inner log loss {sc['l1']:.3f} nats; its "
                  f"cross-validated gain in the stack {g['gain']:+.4f} nats per case, z "
                  f"{g['z']:.2f} against the gate's {clf.l1_gate:g}: "
                  + ("the gate opened, but L1 cannot be fitted (a class of one training "
                     "case, or groups its search for C cannot split): not in the stack"
                     if g.get("unfittable") else
                     "not in the stack" if not g["open"] else f"in the stack, weight {w[2]:.2f}"
                     if w[2] > 0 else "the gate opened, but the weights fitted on all inner "
                     "cases give it 0"))
    print(f"saved: {out}")
    return 0
