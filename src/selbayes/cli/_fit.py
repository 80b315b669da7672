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
    _not_an_input,
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


def _cmd_fit(args) -> int:
    import importlib

    import h5py
    import numpy as np

    from ..datasets._dataset import MISSING_TEXT_ATTR

    _gaussian_only(args, "k-grid", "prior", "plugin", "linear-stack", "inner-predictive",
                   "l1-gate", "groups", "group-key")
    _not_an_input(args.output, args.x, args.y, getattr(args, "groups", None))
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
        # the reader warned of labels that differ only in case or mix numbers and words,
        # naming the file; fit's own check would say it again of the same labels, naming "y"
        warnings.filterwarnings("ignore", message=r"y: class labels (that differ|mix)")
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
    from ..estimators._summary import summary_lines

    for line in summary_lines(clf, model=args.model, command_line=True,
                              groups=getattr(args, "groups", None)):
        print(line)
    print(f"saved: {out}")
    return 0
