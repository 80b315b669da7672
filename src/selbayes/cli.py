"""The ``selbayes`` command line.

Commands: ``selbayes demo`` (:func:`selbayes.demo.run_demo`), ``selbayes reproduce SPEC``
(:func:`selbayes.experiments.run_reproduction`), ``selbayes sbc SPEC``
(:func:`selbayes.sbc.run_sbc_spec`), ``selbayes fit`` / ``selbayes predict`` (a fitted
classifier saved to netCDF, for pipelines) and ``selbayes cache info|clear`` (the compiled-model
cache, :mod:`selbayes._compile_cache`). The heavy modules are imported only when their command
runs, so ``selbayes --help`` is fast.

Exit status: 0 on success; 1 when a ``reproduce`` or ``sbc`` run finished but its acceptance
criteria fail; 2 for a usage or input error (one line on stderr; ``--debug`` shows the
traceback).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import warnings
from pathlib import Path

from ._version import __version__
from .models._priors import EFFECT_PRIOR_CV_GRID
from .models._priors import EFFECT_PRIORS as PRIOR_FAMILIES

MODELS = {
    "gaussian": ("selbayes.estimators", "HierarchicalGaussianClassifier"),
    "naive-bayes": ("selbayes.estimators", "BinaryNaiveBayesClassifier"),
    "mixture": ("selbayes.estimators", "BinaryMixtureClassifier"),
}
#: every classifier whose save() ``selbayes predict`` reads: those ``fit`` makes, and the
#: stacked one, fitted from Python only
SAVED_CLASSES = (*MODELS.values(), ("selbayes.estimators", "StackedGaussianClassifier"),
                 ("selbayes.estimators", "LinearStackedClassifier"))
_FEATURES_ATTR = "selbayes_cli_feature_names"
_MODEL_ATTR = "selbayes_cli_model"


class UserError(Exception):
    """A problem with the command's input: reported as one line, exit status 2."""


def _cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(out=args.out, data=args.data, quick=args.quick, seed=args.seed)


def _verdict_of_report(report: Path) -> str | None:
    """"PASS" / "FAIL" from a reproduction report's ``**Overall: ...**`` line, else None."""
    try:
        text = report.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if "Overall:" in line:
            return "PASS" if "PASS" in line.split("Overall:", 1)[1] else "FAIL"
    return None


def _cmd_reproduce(args) -> int:
    from .experiments import run_reproduction

    res = run_reproduction(args.spec, out=args.out, quick=args.quick, n_jobs=args.jobs,
                           scheduler=args.scheduler, progressbar=not args.no_progress,
                           update_report=args.update_report)
    report = Path(res.report_path)
    verdict = _verdict_of_report(report)
    print(f"report: {report}")
    print(f"verdict: {verdict or 'no acceptance criteria in the report'}")
    return 1 if verdict == "FAIL" else 0


def _cmd_sbc(args) -> int:
    from .experiments import default_out, resume_message
    from .sbc._spec import load_sbc_spec, run_sbc_spec

    spec = load_sbc_spec(args.spec, quick=args.quick)
    # A given --out is used as is; the default folders are the reproductions' (default_out)
    out = Path(args.out) if args.out is not None else default_out(spec, args.update_report)
    replicates = out / "replicates"
    n_total = int(spec["sbc"]["n_replicates"]) if hasattr(spec, "__getitem__") else 0
    found = len(list(replicates.glob("rep_*.json"))) if replicates.is_dir() else 0
    message = resume_message(replicates, min(found, n_total) if n_total else found,
                             n_total or found, "replicates")
    if message:
        print(message)
    result = run_sbc_spec(args.spec, out=out if args.out is None else args.out,
                          quick=args.quick, n_jobs=args.jobs, scheduler=args.scheduler,
                          progressbar=not args.no_progress)
    summary = result.summary()
    # Uncorrected posteriors are expected to be miscalibrated; the verdict is the others'.
    judged = [name for name in summary.index if not str(name).endswith("_uncorrected")]
    failed = [name for name in judged if not bool(summary.loc[name, "passed"])]
    print(f"report: {out / 'README.md'}")
    if failed:
        print(f"verdict: FAIL (ranks not uniform for {', '.join(map(str, failed))})")
        return 1
    print(f"verdict: PASS ({len(judged)} parameters calibrated; uncorrected ones not judged)")
    return 0


def _cmd_cache(args) -> int:
    from . import _compile_cache as cc

    if args.action == "info":
        info = cc.cache_info()
        print(f"cache folder: {info['path']} (set SELBAYES_CACHE_DIR to move it)")
        print(f"compiled models: {info['models']}")
        print(f"total size: {info['bytes'] / 2**20:.1f} MiB")
        for name, size in info["folders"].items():
            print(f"  {name}/: {size / 2**20:.1f} MiB")
        if info["bytecode"] == "missing":
            print("Python bytecode of the dependencies: missing, and not written here "
                  "(PYTHONDONTWRITEBYTECODE), so every new process compiles pymc, scipy, "
                  "pandas, ... again (about 5 s each); reinstall with pip, or with "
                  "`uv pip install --compile-bytecode`")
        else:
            print(f"Python bytecode of the dependencies: {info['bytecode']}")
    else:
        n = cc.clear_cache()
        print(f"removed {n} files from {cc.cache_dir()}")
    return 0


# ---------------------------------------------------------------------------- fit / predict
# The prior families `selbayes fit --prior` offers: name -> the ``priors`` argument of
# HierarchicalGaussianClassifier (None: the class default). Add a family here and it appears
# in --prior's choices and help.
# The --prior choices are the estimator's effect_prior families (settings in one place:
# selbayes.models.EFFECT_PRIORS, imported above as PRIOR_FAMILIES).
# The transform of `fit --transform` is saved under the attribute the classifiers' load()
# reads (selbayes.estimators._persistence.INPUT_TRANSFORM_ATTR), to warn a Python user.
_TRANSFORM_ATTR = "selbayes_cli_transform"


def _read_x(path: str, *, layer: str | None = None):
    """The expression matrix of a CSV/TSV or ``.h5ad`` file as a checked DataFrame (samples x
    genes, sample ids as the index)."""
    from .datasets._files import check_matrix_frame, read_matrix

    p = Path(path)
    if p.suffix.lower() != ".h5ad":
        if layer is not None:
            raise UserError(f"--layer applies to .h5ad files only; {path} is a table")
        return read_matrix(p)
    adata = _read_h5ad(p)
    import pandas as pd

    if layer is not None and layer not in [k for k in adata.layers.keys() if k is not None]:
        available = [str(k) for k in adata.layers.keys() if k is not None]
        raise UserError(f"{path}: no layer {layer!r}; its layers are "
                        f"{', '.join(available) if available else 'none'}")
    matrix = adata.X if layer is None else adata.layers[layer]
    if hasattr(matrix, "toarray"):
        matrix = matrix.toarray()
    X = pd.DataFrame(matrix, index=pd.Index(adata.obs_names.astype(str), name="sample"),
                     columns=list(adata.var_names.astype(str)))
    return check_matrix_frame(X, str(p))


def _read_h5ad(p: Path):
    if not p.is_file():
        raise UserError(f"{p}: no such file")
    try:
        import anndata
    except ImportError:
        raise UserError(f"{p}: reading .h5ad files needs the package anndata, which is not "
                        "installed; install it with: pip install 'selbayes[anndata]' (or "
                        "write the matrix as CSV)") from None
    try:
        return anndata.read_h5ad(p)
    except OSError as exc:
        raise UserError(f"{p}: not a readable .h5ad file ({_os_reason(exc)})") from None


def _os_reason(exc: OSError) -> str:
    """A sentence for an OSError, without h5py's internals (flags, o_flags, ...)."""
    import errno
    import os
    import re

    text = str(exc)
    m = re.search(r"error message = '([^']*)'", text)
    if m:
        return m.group(1).lower()
    m = re.search(r"errno = (\d+)", text)
    if m:
        return os.strerror(int(m.group(1))).lower()
    if exc.errno is not None and exc.errno in errno.errorcode:
        return os.strerror(exc.errno).lower()
    if "signature" in text or "not an hdf5" in text.lower():
        return "not an HDF5/netCDF file"
    return "it cannot be read"


def _gaussian_only(args, *names) -> None:
    given = [n for n in names if getattr(args, n.replace("-", "_")) is not None]
    if given and args.model != "gaussian":
        verb = "applies" if len(given) == 1 else "apply"
        raise UserError(f"--{', --'.join(given)} {verb} to the gaussian model only (not "
                        f"--model {args.model})")


def _transform_settings(args, X=None) -> dict | None:
    """The --transform/--floor/--ceiling settings (checked; the data are checked by the
    transform itself, :func:`_apply_transform`). ``auto`` (the default) is log2 floored at 1
    where ``X`` looks like raw intensities, as ``selbayes benchmark`` decides, and none
    otherwise (and for the binary models)."""
    if args.transform != "log2":
        if args.floor is not None or args.ceiling is not None:
            raise UserError("--floor/--ceiling need --transform log2")
        if args.transform == "none" or args.model != "gaussian" or X is None:
            return None
        from .preprocessing._intensity import auto_log2_settings, lowered_floor_note

        # the benchmark's default rule; saved with the fit, so that 'selbayes predict' applies
        # it to new samples
        auto = auto_log2_settings(X)
        if auto["transform"] == "none":
            return None
        print(f"selbayes fit: {args.x}: the values look like raw intensities: fitting log2 of "
              f"them, floored at {auto['floor']:.3g}{lowered_floor_note(auto)} (saved with the "
              f"fit; 'selbayes predict' applies it; --transform none keeps them as given)",
              file=sys.stderr)
        return {"transform": "log2", "floor": auto["floor"], "ceiling": None}
    from .preprocessing._intensity import IntensityLog2

    pre = {"transform": "log2", "floor": 1.0 if args.floor is None else float(args.floor),
           "ceiling": None if args.ceiling is None else float(args.ceiling)}
    IntensityLog2(floor=pre["floor"], ceiling=pre["ceiling"])._check_params()
    return pre


def _apply_transform(pre: dict | None, X, source: str | None = None):
    """X transformed as ``pre`` says. IntensityLog2's warning that the values do not look like
    intensities is passed on naming ``source`` (the file), or dropped without one (predict:
    the fit's settings, which the user cannot change there)."""
    if pre is None:
        return X
    from .preprocessing._intensity import IntensityLog2, Log2InputWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", Log2InputWarning)
        Xt = IntensityLog2(floor=pre["floor"], ceiling=pre["ceiling"]).fit_transform(X)
    for w in caught:
        if not issubclass(w.category, Log2InputWarning):
            warnings.warn(w.message, w.category, stacklevel=2)
        elif source is not None:
            text = str(w.message).removeprefix("IntensityLog2: ")
            warnings.warn(f"{source}: {text}", Log2InputWarning, stacklevel=2)
    return Xt


def _seed(text: str) -> int:
    """argparse type of --seed: the estimators' random_state, an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0; got {text!r}")
    return value


def _l1_gate(text: str):
    """argparse type of --l1-gate: a finite number (the gate's z) or "off" (no L1 model)."""
    import math

    if text.strip().lower() == "off":
        return "off"
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a number or 'off'; got {text!r}")
    return value


def _check_binary_file(X, path: str, model: str) -> None:
    """The binary models' check (:func:`selbayes._validation.first_non_binary`), naming the
    file, a gene and a sample."""
    from ._validation import first_non_binary

    values = X.to_numpy()
    found = first_non_binary(values)
    if found is not None:
        count, (i, j) = found
        raise UserError(f"{path}: --model {model} needs binary (0/1) values; {count} "
                        f"are not, e.g. {values[i, j]:g} for gene {X.columns[j]} in sample "
                        f"{X.index[i]} (use --model gaussian for continuous data)")


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
        lines.append(f"diagnostics: FAIL: {failures[0]} (more draws or chains: --draws, "
                     "--chains)")
    checks = getattr(clf, "loo_checks_", None)
    if checks is not None and "suspect_label" in checks:
        # selbayes.evaluation._label_check: the inner CV's held-out probability of each label
        from .evaluation._label_check import LABEL_CHECK_ALPHA, flagged_cases

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
    from .evaluation._replicates import NEAR_COPY, PAIR_SHARE, replicate_message

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
        X = _read_x(args.x, layer=args.layer)
        y = adata.obs[args.label_key].astype(object).to_numpy()
        if args.group_key is not None:
            if args.groups is not None:
                raise UserError("give the groups once: --groups FILE or --group-key COLUMN")
            if args.group_key not in adata.obs:
                raise UserError(f"{args.x}: no obs column {args.group_key!r} (--group-key); "
                                f"obs has {', '.join(map(str, list(adata.obs.columns)[:10]))}")
            from .evaluation._folds import group_codes

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
        X = _read_x(args.x, layer=args.layer)
        if args.y is None:
            raise UserError("no labels: give --y FILE (or --label-key COLUMN for an .h5ad "
                            "file)")
        from .datasets._files import labels_for_matrix

        # by sample id when the label file has ids (any order; the ids must match), else by
        # row order; X transposed where it is plainly genes x samples, as read_xy does
        X, y = labels_for_matrix(X, args.y, label_column=args.label_column, x_source=args.x)
        y = y.to_numpy(dtype=object)
    missing = np.array([v is None or (isinstance(v, float) and np.isnan(v))
                        or not str(v).strip() for v in y])
    if missing.any():
        raise UserError(f"{args.y or args.x}: {int(missing.sum())} missing label(s), e.g. "
                        f"for sample(s) {', '.join(map(str, X.index[missing][:3]))}")
    from ._validation import check_labels

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
        fit_kw["groups"] = group_key_values
    elif args.groups in ("auto", "near_copies"):
        fit_kw["groups"] = args.groups  # the groups the fit finds (replicate_groups) and keeps
    elif args.groups == "none":
        fit_kw["groups"] = None         # every sample independent (a warning where not)
    elif args.groups is not None:
        from .datasets._files import groups_for_matrix

        try:
            fit_kw["groups"] = groups_for_matrix(X, args.groups, x_source=args.x)
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
        from .estimators import LinearStackedClassifier

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
            from .preprocessing._intensity import RawIntensityWarning

            warnings.simplefilter("ignore", RawIntensityWarning)
        clf.fit(Xt, np.asarray([str(v) for v in y]), **fit_kw)
    try:
        clf.save(out)
        with h5py.File(out, "a") as f:
            f.attrs[_TRANSFORM_ATTR] = json.dumps(pre)
    except OSError as exc:
        raise UserError(f"{out}: cannot write the fit ({_os_reason(exc)})") from None
    for line in _fit_summary(clf.estimator_ if stacked else clf, args, X, y):
        print(line)
    if stacked:
        w, sc = clf.weights_, clf.inner_scores_
        print(f"stacked with a Bayesian probit regression of all {clf.linear_.Z.shape[1]} "
              f"features: weights {w[0]:.2f} (the gaussian model) and {w[1]:.2f} (the linear "
              f"model); inner log loss {sc['gaussian']:.3f}, {sc['linear']:.3f} and "
              f"{sc['stack']:.3f} (the stack), nats; the gaussian model's inner predictions: "
              + ("refitted on each inner fold" if clf.inner_predictive == "refit"
                 else "the inner cross-validation's plug-in"))
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


def _make_parent(out: Path) -> None:
    parent = out.parent
    if out.is_dir():
        raise UserError(f"{out} is a folder; give a file name for the output")
    if not parent.exists():
        try:
            parent.mkdir(parents=True)
        except OSError as exc:
            raise UserError(f"{parent}: cannot create the output folder "
                            f"({_os_reason(exc)})") from None


def _saved_fit(path: Path):
    """(estimator class, legacy feature list or None, transform settings or None) of any file
    written by ``selbayes fit`` or by a classifier's ``save``."""
    import importlib

    import h5py

    if not path.is_file():
        raise UserError(f"{path}: no such file" if not path.is_dir()
                        else f"{path} is a folder, not a saved fit")
    try:
        with h5py.File(path, "r") as f:
            attrs = {k: f.attrs[k] for k in f.attrs}
    except OSError as exc:
        raise UserError(f"{path}: not a saved selbayes fit ({_os_reason(exc)})") from None
    estimator = attrs.get("selbayes_estimator")
    if isinstance(estimator, bytes):
        estimator = estimator.decode()
    by_class = {cls_name: (module, cls_name) for module, cls_name in SAVED_CLASSES}
    if estimator not in by_class:
        raise UserError(f"{path}: not a saved selbayes classifier (write one with 'selbayes "
                        "fit' or a classifier's save())")
    module, name = by_class[estimator]
    cls = getattr(importlib.import_module(module), name)
    features = json.loads(attrs[_FEATURES_ATTR]) if _FEATURES_ATTR in attrs else None
    pre = json.loads(attrs[_TRANSFORM_ATTR]) if _TRANSFORM_ATTR in attrs else None
    return cls, features, pre


def _cmd_predict(args) -> int:
    import numpy as np
    import pandas as pd

    path = Path(args.fit)
    cls, features, pre = _saved_fit(path)
    with warnings.catch_warnings():
        # load() warns a Python user that the fit expects transformed X; predict applies it
        from .estimators._persistence import SavedTransformWarning

        warnings.simplefilter("ignore", SavedTransformWarning)
        clf = cls.load(path)
    X = _read_x(args.x, layer=args.layer)
    if features is None and getattr(clf, "feature_names_in_", None) is not None:
        features = [str(c) for c in clf.feature_names_in_]
    if features is not None:
        missing = [c for c in features if c not in X.columns]
        if missing:
            transposed = (len(missing) == len(features)
                          and X.index.isin(features).mean() > 0.5)
            raise UserError(f"{args.x} lacks {len(missing)} of the {len(features)} features "
                            f"the fit was trained on, e.g. {', '.join(missing[:5])}"
                            + ("; its rows are named like the features: is the file "
                               "transposed? It must be samples x genes" if transposed else ""))
        extra = X.shape[1] - len(features)
        if extra > 0:
            print(f"note: {extra} column(s) of {args.x} that the fit was not trained on are "
                  f"ignored (e.g. {', '.join(str(c) for c in X.columns.difference(features)[:3])})",
                  file=sys.stderr)
        X = X[features]                                     # aligned by name
    else:
        if X.shape[1] != clf.n_features_in_:
            raise UserError(f"{args.x} has {X.shape[1]} features; the fit in {args.fit} was "
                            f"trained on an array of {clf.n_features_in_} columns without "
                            "names, which are taken in file order")
        print("note: the fit has no feature names (fitted on an array); the columns of "
              f"{args.x} are taken in file order", file=sys.stderr)
    Xt = _apply_transform(pre, X)
    values = Xt.to_numpy(dtype=np.float64) if hasattr(Xt, "to_numpy") else Xt
    if getattr(clf, "feature_names_in_", None) is not None:
        values = pd.DataFrame(values, columns=list(clf.feature_names_in_))
    proba = clf.predict_proba(values)
    out = pd.DataFrame(proba, index=X.index, columns=[str(c) for c in clf.classes_])
    out.index.name = X.index.name or "sample"
    dest = Path(args.output)
    _make_parent(dest)
    try:
        out.to_csv(dest, float_format="%.17g")
    except OSError as exc:
        raise UserError(f"{dest}: cannot write the probabilities ({_os_reason(exc)})") from None
    print(f"saved: {dest} ({proba.shape[0]} samples x {proba.shape[1]} classes)")
    return 0


def _add_run_options(p: argparse.ArgumentParser, folder: str) -> None:
    p.add_argument("spec", help=f"spec (TOML), e.g. {folder}/<name>.toml")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", default=None,
                       help="output folder; resumes from the fits found there (default: "
                       "selbayes_runs/<spec name>, never the committed reports/)")
    where.add_argument("--update-report", action="store_true",
                       help="write into the committed report's folder, reports/<spec name>, "
                       "resuming from its stored fits and rewriting its report (what "
                       "'make reproduce' and 'make sbc' do)")
    p.add_argument("--quick", action="store_true",
                   help="the spec's shrunken design (documented in the spec), for tests")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--jobs", type=int, default=1, help="parallel local processes")
    group.add_argument("--scheduler", default=None,
                       help="dask.distributed scheduler address (needs selbayes[distributed])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    """Build the ``selbayes`` argument parser and its sub-commands.

    Each sub-command stores its handler in ``args.func``; :func:`main` calls it.

    Returns
    -------
    argparse.ArgumentParser
        The parser; ``parse_args`` raises ``SystemExit`` (status 2) on invalid arguments.

    Examples
    --------
    >>> from selbayes.cli import build_parser
    >>> args = build_parser().parse_args(
    ...     ["reproduce", "models/experiments/li2009_gaussian_simulation.toml", "--quick",
    ...      "--jobs", "2"])
    >>> args.command, args.spec, args.quick, args.jobs, args.scheduler, args.out
    ('reproduce', 'models/experiments/li2009_gaussian_simulation.toml', True, 2, None, None)
    >>> args.update_report                      # writes into reports/ only when asked
    False
    >>> build_parser().parse_args(["demo"]).seed
    2009
    >>> a = build_parser().parse_args(["fit", "--x", "X.csv", "--y", "y.csv", "-o", "f.nc"])
    >>> a.k is None, a.transform, a.prior           # the models' own defaults (k: auto)
    (True, None, None)
    """
    parser = argparse.ArgumentParser(
        prog="selbayes",
        description="Bayesian classification with a selected subset of features, "
        "calibrated by conditioning on the selection.",
    )
    parser.add_argument("--version", action="version", version=f"selbayes {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="fit corrected and uncorrected models on simulated data")
    demo.add_argument("--out", default="demo_output",
                      help="folder for the plot (default: %(default)s)")
    demo.add_argument("--data", default="simulated", choices=["simulated", "srbct"],
                      help="dataset (default: %(default)s)")
    demo.add_argument("--quick", action="store_true", help="smaller design, for tests")
    demo.add_argument("--seed", type=int, default=2009, help="random seed (default: %(default)s)")
    demo.set_defaults(func=_cmd_demo)

    rep = sub.add_parser("reproduce", help="run a paper experiment from its spec; resumes")
    _add_run_options(rep, "models/experiments")
    rep.set_defaults(func=_cmd_reproduce)

    sbc = sub.add_parser("sbc", help="simulation-based calibration of a model; resumes")
    _add_run_options(sbc, "models/sbc")
    sbc.set_defaults(func=_cmd_sbc)

    fit = sub.add_parser(
        "fit", help="fit a classifier to a matrix and labels; save it (.nc)",
        description="Fit a classifier (by default the recommended one: the hierarchical "
        "Gaussian model, k chosen by inner cross-validation, stacked with a Bayesian probit "
        "regression of all features and, where the inner cases show a clear gain (--l1-gate), "
        "L1 logistic regression) and save it for 'selbayes predict'. Prints k, the "
        "first selected features, the threshold gamma, the temperature, the MCMC "
        "diagnostics verdict, the training labels its held-out predictions contradict, the "
        "stacking weights and the L1 model's gate.")
    fit.add_argument("--x", required=True,
                     help="samples x features: CSV/TSV with a header row of feature names "
                     "(optional first column of sample ids), or .h5ad")
    fit.add_argument("--y", default=None,
                     help="labels: one column (in the row order of --x), or two (sample id, "
                     "label; matched to the sample ids of --x, any order)")
    fit.add_argument("--label-column", default=None,
                     help="the label column of --y when it has more than two columns")
    fit.add_argument("--label-key", default=None, help="for .h5ad: the obs column of labels")
    fit.add_argument("--layer", default=None, help="for .h5ad: a layer instead of X")
    fit.add_argument("--groups", default=None,
                     help="gaussian, --k auto: a groups CSV laid out as --y (one column of "
                     "group labels in row order, or sample id and group). The samples of one "
                     "group (technical replicates, several samples of one patient) are kept "
                     "in one fold of the inner cross-validation that chooses k and weighs the "
                     "stack. Without it (or 'near_copies'), the groups of samples far more "
                     "alike than any others that the fit finds are kept whole where their "
                     "members all correlate at 0.8 or more (near-copies, such as technical "
                     "replicates); 'auto': every group it finds (it also finds less alike "
                     "pairs, such as two preparations of one tumour); 'none': every sample "
                     "taken as independent")
    fit.add_argument("--group-key", default=None,
                     help="for .h5ad with --label-key: the obs column of groups (as --groups)")
    fit.add_argument("--k", default=None,
                     help="features to retain: an integer, 'auto' (chosen by inner CV) or "
                     "'all' (default: the model's own: auto for gaussian, 10 otherwise)")
    fit.add_argument("--k-grid", default=None,
                     help="gaussian, --k auto: the k tried, comma-separated (default "
                     "5,10,20,50,100,200,500,1000,2000; values of p or more become p - 1)")
    fit.add_argument("--prior", default=None, choices=[*PRIOR_FAMILIES, "auto"],
                     help="gaussian: prior family of the class means: "
                     + "; ".join(f"{k} = priors {v}" for k, v in PRIOR_FAMILIES.items())
                     + "; auto = chosen by inner CV among the t prior at df "
                     + ", ".join(f"{v:g}" for v in EFFECT_PRIOR_CV_GRID if v != "normal")
                     + " and the normal prior"
                     + " (default: t_auto)")
    fit.add_argument("--transform", default=None, choices=["auto", "none", "log2"],
                     help="preprocessing, saved with the fit and applied by 'selbayes "
                     "predict': log2 of the values clipped to [floor, ceiling]; none, the "
                     "values as given; auto (default), log2 floored at 1 (lower for values on "
                     "a smaller scale: their 10th percentile) when the values look "
                     "like raw intensities (all >= 0, strongly right-skewed; said when it "
                     "happens), as given otherwise, as 'selbayes benchmark' does")
    fit.add_argument("--floor", type=float, default=None,
                     help="--transform log2: floor (default 1.0; 100 for Affymetrix average "
                     "differences)")
    fit.add_argument("--ceiling", type=float, default=None,
                     help="--transform log2: ceiling (e.g. 16000, the scanner's saturation)")
    fit.add_argument("--model", default="gaussian", choices=list(MODELS),
                     help="classifier (default: %(default)s)")
    fit.add_argument("--mcmc", action="store_true",
                     help="naive-bayes: NUTS instead of the deterministic quadrature")
    fit.add_argument("--plugin", action="store_true", default=None,
                     help="gaussian: hyperparameters at their posterior mode instead of NUTS "
                     "(method='plugin': seconds instead of minutes at k in the thousands)")
    fit.add_argument("--linear-stack", action=argparse.BooleanOptionalAction, default=None,
                     help="gaussian: stack the model with a Bayesian probit regression of "
                     "all features (for more than two classes, an ensemble of nested "
                     "dichotomies), weighted on the inner cases that chose k "
                     "(LinearStackedClassifier, the recommended model; the default with "
                     "--k auto). --no-linear-stack: the Gaussian classifier alone")
    fit.add_argument("--inner-predictive", default=None, choices=["refit", "plugin"],
                     help="gaussian, with the stack: the inner predictions its weights are "
                     "fitted on. 'refit' (the default): the model refitted with its own method "
                     "on each inner fold (one more fit per fold); 'plugin': the inner "
                     "cross-validation's plug-in predictions (no extra fits; overconfident "
                     "where effects are many and weak, which leaves the stack underconfident)")
    fit.add_argument("--l1-gate", type=_l1_gate, default=None, metavar="Z",
                     help="gaussian, with the stack: L1 logistic regression joins it as a "
                     "third model only where its cross-validated gain on the inner cases "
                     "exceeds Z standard errors (default 2); 'off': the two-model stack")
    fit.add_argument("--seed", type=_seed, default=0,
                     help="random seed, an integer >= 0 (default: %(default)s)")
    fit.add_argument("--draws", type=int, default=1000, help="kept draws per chain")
    fit.add_argument("--tune", type=int, default=1000, help="warm-up draws per chain")
    fit.add_argument("--chains", type=int, default=4, help="chains")
    fit.add_argument("--no-progress", action="store_true", help="no progress output")
    fit.add_argument("-o", "--output", required=True,
                     help="the fitted classifier (.nc; missing folders are created)")
    fit.set_defaults(func=_cmd_fit)

    pred = sub.add_parser("predict", help="class probabilities of new samples from a saved fit")
    pred.add_argument("fit", help="a saved fit: from 'selbayes fit', or a classifier's "
                      "save() in Python")
    pred.add_argument("--x", required=True,
                      help="new samples (CSV/TSV/.h5ad); columns matched to the fit by name")
    pred.add_argument("--layer", default=None, help="for .h5ad: a layer instead of X")
    pred.add_argument("-o", "--output", required=True,
                      help="CSV: one row per sample, one column per class (missing folders "
                      "are created)")
    pred.set_defaults(func=_cmd_predict)

    cache = sub.add_parser("cache", help="the compiled-model cache: where it is (and whether "
                           "the dependencies' Python bytecode is there), or empty it")
    cache.add_argument("action", choices=["info", "clear"])
    cache.set_defaults(func=_cmd_cache)

    # Commands contributed by optional modules (selbayes.benchmark._cli: register / run).
    if importlib.util.find_spec("selbayes.benchmark") is not None:
        try:
            from .benchmark import _cli as bench_cli
        except ImportError:
            bench_cli = None
        if bench_cli is not None and hasattr(bench_cli, "register"):
            bench_cli.register(sub)
            bench = sub.choices.get("benchmark")
            if bench is not None and bench.get_default("func") is None \
                    and hasattr(bench_cli, "run"):
                bench.set_defaults(func=bench_cli.run)
    # --debug also after the command ("selbayes fit ... --debug"), where users put it; the
    # top-level value stands when it is not given there
    for command in sub.choices.values():
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="show the full traceback of an error")
    return parser


# Errors that mean "the input is wrong", not "selbayes is broken".
_USER_ERRORS = (UserError, FileNotFoundError, IsADirectoryError, PermissionError, ValueError,
                TypeError, KeyError)


def plain_message(text: str) -> str:
    """A message without NumPy scalar reprs: ``np.float64(0.5)`` -> ``0.5``.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> plain_message("k = np.int64(3), gamma = np.float64(2.5), ok = np.True_")
    'k = 3, gamma = 2.5, ok = True'
    """
    import re

    text = re.sub(r"np\.(?:float|int|uint|complex|str_|bytes_)\w*\(([^()]*)\)", r"\1", text)
    return re.sub(r"np\.(True|False)_", r"\1", text)


#: What a warning's advice (written for the Python API) is on the command line, per command.
_CLI_ADVICE = {("RawIntensityWarning", command): "on the command line: --transform log2 --floor 1"
               for command in ("fit", "benchmark")}


def _warning_printer(command: str):
    """A ``warnings.showwarning`` that names the user's command, not Python's source line
    (which would be the console script's ``sys.exit(main())`` or a library's internals), and
    adds the command-line form of advice written for the Python API."""
    def show(message, category, filename, lineno, file=None, line=None):
        stream = sys.stderr if file is None else file
        advice = _CLI_ADVICE.get((category.__name__, command))
        try:
            stream.write(f"selbayes {command}: {category.__name__}: "
                         f"{plain_message(str(message))}"
                         + (f" ({advice})" if advice else "") + "\n")
        except OSError:  # pragma: no cover - stderr closed
            pass
    return show


def _error_line(exc: BaseException) -> str:
    """The one line printed for a user error."""
    if isinstance(exc, KeyError):
        return f"missing key {exc}"
    if isinstance(exc, OSError) and not isinstance(exc, UserError) and exc.filename:
        reason = (exc.strerror or str(exc)).strip().rstrip(".")
        return f"{exc.filename}: {reason.lower()}"
    text = str(exc).strip()
    return plain_message(text.splitlines()[0]) if text else type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Run the ``selbayes`` command line (the console-script entry point).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Process exit status: 0 on success (also when no command is given: the help is
        printed), 1 when a run's acceptance criteria fail, 2 for an input error (one line on
        stderr: "selbayes: error: ..."; with ``--debug`` the traceback is raised instead).

    Raises
    ------
    SystemExit
        From argparse, on invalid arguments (status 2) and after ``--help`` or ``--version``
        (status 0).

    Examples
    --------
    >>> from selbayes.cli import main
    >>> main([])                                                       # prints the help
    usage: selbayes [-h] [--version] [--debug] COMMAND ...
    ...
    0
    >>> main(["reproduce", "no_such_spec.toml"])                # doctest: +SKIP
    selbayes: error: ... (run with --debug for the traceback)
    2
    """
    from ._compile_cache import configure_pytensor
    from ._parallel import WorkerKilledError

    configure_pytensor()         # before pytensor is imported: its caches in the cache folder
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _warning_printer(args.command)
        try:
            return int(args.func(args) or 0)
        except _USER_ERRORS as exc:
            if args.debug:
                raise
            print(f"selbayes: error: {_error_line(exc)} (run with --debug for the traceback)",
                  file=sys.stderr)
            return 2
        except WorkerKilledError as exc:       # not the user's input: exit status 1
            if args.debug:
                raise
            print(f"selbayes: error: {exc}", file=sys.stderr)
            return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
