"""The ``selbayes`` command line.

Commands: ``selbayes demo`` (:func:`selbayes.demo.run_demo`), ``selbayes reproduce SPEC``
(:func:`selbayes.experiments.run_reproduction`), ``selbayes sbc SPEC``
(:func:`selbayes.sbc.gaussian.run_sbc_spec`), ``selbayes fit`` / ``selbayes predict`` (a fitted
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
from pathlib import Path

from ._version import __version__

MODELS = {
    "gaussian": ("selbayes.estimators.gaussian", "HierarchicalGaussianClassifier"),
    "naive-bayes": ("selbayes.estimators.naive_bayes", "BinaryNaiveBayesClassifier"),
    "mixture": ("selbayes.estimators.mixture", "BinaryMixtureClassifier"),
}
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
                           scheduler=args.scheduler, progressbar=not args.no_progress)
    report = Path(res.report_path)
    verdict = _verdict_of_report(report)
    print(f"report: {report}")
    print(f"verdict: {verdict or 'no acceptance criteria in the report'}")
    return 1 if verdict == "FAIL" else 0


def _cmd_sbc(args) -> int:
    from .sbc.gaussian import load_sbc_spec, run_sbc_spec

    spec = load_sbc_spec(args.spec, quick=args.quick)
    result = run_sbc_spec(args.spec, out=args.out, quick=args.quick, n_jobs=args.jobs,
                          scheduler=args.scheduler, progressbar=not args.no_progress)
    # run_sbc_spec uses a given --out as is; the default folder gets "_quick" with --quick.
    out = Path(args.out) if args.out is not None else Path("reports") / (
        spec.name + ("_quick" if args.quick else ""))
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
    else:
        n = cc.clear_cache()
        print(f"removed {n} files from {cc.cache_dir()}")
    return 0


# ---------------------------------------------------------------------------- fit / predict
def _read_matrix(path: str, *, label_key: str | None = None, layer: str | None = None):
    """(X DataFrame, y Series or None) from a CSV/TSV (samples x features, header row of
    feature names, optional first column of sample ids) or an ``.h5ad`` file."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise UserError(f"data file {path!r} does not exist")
    if p.suffix == ".h5ad":
        from .datasets.loaders import read_anndata

        if label_key is None:
            import anndata

            adata = anndata.read_h5ad(p)
            matrix = adata.X if layer is None else adata.layers[layer]
            if hasattr(matrix, "toarray"):
                matrix = matrix.toarray()
            X = pd.DataFrame(matrix, index=adata.obs_names.astype(str),
                             columns=list(adata.var_names.astype(str)))
            return X, None
        ds = read_anndata(p, label_key=label_key, layer=layer)
        return ds.X, ds.y
    sep = "\t" if p.suffix in (".tsv", ".tab") or p.name.endswith((".tsv.gz", ".txt")) else ","
    frame = pd.read_csv(p, sep=sep)
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise UserError(f"{path}: no data")
    first = frame.columns[0]
    if not pd.api.types.is_numeric_dtype(frame[first]) or str(first).startswith("Unnamed") \
            or str(first).lower() in ("sample", "id", "sample_id", "cell", ""):
        frame = frame.set_index(first)            # sample ids
        if str(first).startswith("Unnamed"):      # an empty header cell (pandas' to_csv)
            frame.index.name = None
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        raise UserError(f"{path}: non-numeric column(s) {bad[:5]}; the matrix must be "
                        "samples x features with one header row (and optionally sample ids "
                        "in the first column)")
    frame.columns = [str(c) for c in frame.columns]
    return frame, None


def _read_labels(path: str, index):
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise UserError(f"label file {path!r} does not exist")
    sep = "\t" if p.suffix in (".tsv", ".tab", ".txt") else ","
    frame = pd.read_csv(p, sep=sep, dtype=str)
    if frame.shape[1] == 2:                      # sample id, label: align by id
        ids, labels = frame.iloc[:, 0], frame.iloc[:, 1]
        y = pd.Series(labels.to_numpy(), index=ids.to_numpy())
        if index is not None and set(map(str, index)) <= set(y.index):
            return y.loc[[str(i) for i in index]].to_numpy()
        return y.to_numpy()
    if frame.shape[1] != 1:
        raise UserError(f"{path}: expected one column of labels (or sample id, label); got "
                        f"{frame.shape[1]} columns")
    return frame.iloc[:, 0].to_numpy()


def _cmd_fit(args) -> int:
    import importlib

    import h5py
    import numpy as np

    X, y = _read_matrix(args.x, label_key=args.label_key, layer=args.layer)
    if args.y is not None:
        y = _read_labels(args.y, X.index)
    if y is None:
        raise UserError("no labels: give --y FILE (or --label-key COLUMN for an .h5ad file)")
    y = np.asarray(y)
    if len(y) != X.shape[0]:
        raise UserError(f"{args.y}: {len(y)} labels for {X.shape[0]} samples in {args.x}")
    module, name = MODELS[args.model]
    cls = getattr(importlib.import_module(module), name)
    k = args.k
    if k not in ("auto", "all"):
        try:
            k = int(k)
        except ValueError:
            raise UserError(f"--k must be an integer, 'auto' or 'all'; got {args.k!r}") from None
    params = dict(k=k, random_state=args.seed, draws=args.draws, tune=args.tune,
                  chains=args.chains, progressbar=not args.no_progress)
    if args.model == "naive-bayes":
        params["method"] = "mcmc" if args.mcmc else "quadrature"
    try:
        clf = cls(**params)
        clf.fit(X.to_numpy(dtype=np.float64), y)
    except (ValueError, TypeError) as exc:
        if k == "auto" and "auto" in str(exc):
            raise UserError(f"--k auto is not supported by the {args.model} model in this "
                            f"version: {exc}") from exc
        raise
    out = Path(args.output)
    clf.save(out)
    with h5py.File(out, "a") as f:
        f.attrs[_FEATURES_ATTR] = json.dumps(list(map(str, X.columns)))
        f.attrs[_MODEL_ATTR] = args.model
    print(f"saved: {out} ({args.model}, {X.shape[0]} samples x {X.shape[1]} features)")
    return 0


def _cmd_predict(args) -> int:
    import importlib

    import h5py
    import numpy as np
    import pandas as pd

    path = Path(args.fit)
    if not path.is_file():
        raise UserError(f"fit file {args.fit!r} does not exist")
    try:
        with h5py.File(path, "r") as f:
            features = json.loads(f.attrs[_FEATURES_ATTR])
            model = f.attrs[_MODEL_ATTR]
    except (OSError, KeyError):
        raise UserError(f"{args.fit} was not written by 'selbayes fit'") from None
    module, name = MODELS[str(model)]
    clf = getattr(importlib.import_module(module), name).load(path)
    X, _ = _read_matrix(args.x, layer=args.layer)
    missing = [c for c in features if c not in X.columns]
    if missing:
        raise UserError(f"{args.x} lacks {len(missing)} feature(s) the fit was trained on, "
                        f"e.g. {missing[:5]}")
    proba = clf.predict_proba(X[features].to_numpy(dtype=np.float64))   # aligned by name
    out = pd.DataFrame(proba, index=X.index, columns=[str(c) for c in clf.classes_])
    out.index.name = X.index.name or "sample"
    out.to_csv(args.output, float_format="%.17g")
    print(f"saved: {args.output} ({proba.shape[0]} samples x {proba.shape[1]} classes)")
    return 0


def _add_run_options(p: argparse.ArgumentParser, folder: str) -> None:
    p.add_argument("spec", help=f"spec (TOML), e.g. {folder}/<name>.toml")
    p.add_argument("--out", default=None, help="output folder (default: reports/<spec name>)")
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
    >>> build_parser().parse_args(["demo"]).seed
    2009
    >>> build_parser().parse_args(["fit", "--x", "X.csv", "--y", "y.csv", "-o", "f.nc"]).k
    '10'
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

    fit = sub.add_parser("fit", help="fit a classifier to a matrix and labels; save it (.nc)")
    fit.add_argument("--x", required=True,
                     help="samples x features: CSV/TSV with a header row of feature names "
                     "(optional first column of sample ids), or .h5ad")
    fit.add_argument("--y", default=None,
                     help="labels: one column, or two (sample id, label; aligned by id)")
    fit.add_argument("--label-key", default=None, help="for .h5ad: the obs column of labels")
    fit.add_argument("--layer", default=None, help="for .h5ad: a layer instead of X")
    fit.add_argument("--k", default="10",
                     help="features to retain: an integer, 'auto' or 'all' (default: %(default)s)")
    fit.add_argument("--model", default="gaussian", choices=list(MODELS),
                     help="classifier (default: %(default)s)")
    fit.add_argument("--mcmc", action="store_true",
                     help="naive-bayes: NUTS instead of the deterministic quadrature")
    fit.add_argument("--seed", type=int, default=0, help="random_state (default: %(default)s)")
    fit.add_argument("--draws", type=int, default=1000, help="kept draws per chain")
    fit.add_argument("--tune", type=int, default=1000, help="warm-up draws per chain")
    fit.add_argument("--chains", type=int, default=4, help="chains")
    fit.add_argument("--no-progress", action="store_true", help="no progress output")
    fit.add_argument("-o", "--output", required=True, help="the fitted classifier (.nc)")
    fit.set_defaults(func=_cmd_fit)

    pred = sub.add_parser("predict", help="class probabilities of new samples from a saved fit")
    pred.add_argument("fit", help="a file written by 'selbayes fit'")
    pred.add_argument("--x", required=True,
                      help="new samples (CSV/TSV/.h5ad); columns matched to the fit by name")
    pred.add_argument("--layer", default=None, help="for .h5ad: a layer instead of X")
    pred.add_argument("-o", "--output", required=True,
                      help="CSV: one row per sample, one column per class")
    pred.set_defaults(func=_cmd_predict)

    cache = sub.add_parser("cache", help="the compiled-model cache: where it is, or empty it")
    cache.add_argument("action", choices=["info", "clear"])
    cache.set_defaults(func=_cmd_cache)

    # Commands contributed by optional modules (selbayes.benchmark.cli: register / run).
    if importlib.util.find_spec("selbayes.benchmark") is not None:
        try:
            from .benchmark import cli as bench_cli
        except ImportError:
            bench_cli = None
        if bench_cli is not None and hasattr(bench_cli, "register"):
            bench_cli.register(sub)
            bench = sub.choices.get("benchmark")
            if bench is not None and bench.get_default("func") is None \
                    and hasattr(bench_cli, "run"):
                bench.set_defaults(func=bench_cli.run)
    return parser


# Errors that mean "the input is wrong", not "selbayes is broken".
_USER_ERRORS = (UserError, FileNotFoundError, IsADirectoryError, PermissionError, ValueError,
                TypeError, KeyError)


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

    configure_pytensor()         # before pytensor is imported: its caches in the cache folder
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except _USER_ERRORS as exc:
        if args.debug:
            raise
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, KeyError):
            msg = f"missing key {exc}"
        print(f"selbayes: error: {msg} (run with --debug for the traceback)", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
