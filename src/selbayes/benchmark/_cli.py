"""The ``selbayes benchmark`` command.

``selbayes benchmark [NAME ...] [--x X.csv --y y.csv --name NAME --groups g.csv]
[--transform none|log2]
[--floor F] [--ceiling C] [--methods M1,M2,...] [--folds 5] [--repeats R] [--seed S]
[--jobs J | --scheduler ADDRESS] [--quick] --out DIR``

:func:`register` adds the sub-command to the ``selbayes`` parser; :func:`run` runs it. User
errors (an unknown data set or method, a missing file, malformed CSV) print one line on stderr
and return exit status 2.
"""

from __future__ import annotations

import argparse
import sys

#: ``--drop-missing``'s help, the same for ``selbayes fit`` and ``selbayes benchmark``
#: (here, not in the readers' module, so that building the parser imports no pandas).
DROP_MISSING_HELP = (
    "missing values in --x (empty cells, NA) or missing labels in --y: 'genes' drops the genes "
    "with a missing value, 'samples' the samples with a missing value or label; a warning "
    "names what was dropped (default: an error naming them; dropping looks at X and at which "
    "labels are missing, never at the labels' values)")

__all__ = ["register", "run", "main"]

# The named sets, listed here so that building the parser does not import pandas (``selbayes
# --help`` stays fast); a test checks it against selbayes.datasets.BENCHMARK_SETS.
SET_NAMES = ("borovecki", "chowdary", "golub", "gravier", "nakayama", "pomeroy", "singh",
             "sorlie", "subramanian", "srbct", "colon")

# The method names, for the same reason (selbayes.benchmark._methods imports scikit-learn and
# SciPy, about 2 s); the same test checks them against METHODS and DEFAULT_METHODS.
METHOD_NAMES = (
    "selbayes", "selbayes_uncorrected", "selbayes_two_model_stack",
    "selbayes_two_model_stack_uncorrected", "selbayes_gaussian", "selbayes_gaussian_uncorrected",
    "selbayes_uncorrected_same_choice", "selbayes_one_se",
    "selbayes_uncorrected_one_se", "selbayes_uncorrected_same_choice_one_se", "selbayes_t_cv",
    "selbayes_t_cv_uncorrected", "selbayes_t_prior", "selbayes_t_prior_uncorrected",
    "selbayes_previous", "selbayes_normal_prior", "selbayes_normal_prior_uncorrected",
    "selbayes_two_groups", "selbayes_two_groups_uncorrected", "selbayes_t_auto",
    "selbayes_t_auto_uncorrected", "selbayes_prior_cv", "selbayes_prior_cv_uncorrected",
    "selbayes_no_label_noise", "selbayes_noise_cv", "selbayes_correction_cv", "selbayes_stack_k",
    "selbayes_inner_repeats", "selbayes_largest_k",
    "selbayes_linear_stack", "selbayes_log_pool", "selbayes_refit_inner", "selbayes_per_fold",
    "selbayes_k_grid_clip", "selbayes_k_grid_drop",
    "selbayes_k10", "selbayes_k50",
    "logreg_l2_cv", "logreg_l1_cv", "lda_shrinkage", "gnb", "gnb_calibrated", "random_forest",
    "svm_platt")
DEFAULT_METHOD_NAMES = ("selbayes", "selbayes_uncorrected", "logreg_l2_cv", "logreg_l1_cv",
                        "lda_shrinkage", "gnb_calibrated", "random_forest", "svm_platt")


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``benchmark`` sub-command to ``subparsers`` (from ``add_subparsers``).

    Parameters
    ----------
    subparsers : argparse._SubParsersAction

    Returns
    -------
    argparse.ArgumentParser
        The sub-command's parser; its default ``func`` is :func:`run`.

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(); sub = p.add_subparsers(dest="command")
    >>> _ = register(sub)
    >>> a = p.parse_args(["benchmark", "golub", "--methods", "gnb", "--folds", "4", "--out", "o"])
    >>> a.names, a.methods, a.folds
    (['golub'], 'gnb', 4)
    """
    p = subparsers.add_parser(
        "benchmark", help="cross-validate selbayes and scikit-learn peers on the same folds",
        description="Repeated stratified K-fold benchmark of selbayes against scikit-learn "
        "peers; every preprocessing, selection and tuning step runs inside the training "
        "folds. Resumes from the --out folder. Data sets: " + ", ".join(SET_NAMES) + ". Methods: "
        + ", ".join(METHOD_NAMES) + ".")
    p.add_argument("names", nargs="*", metavar="NAME", help="named data sets")
    p.add_argument("--x", default=None, help="your expression CSV (samples x genes; header of "
                   "gene names; a first column of sample names is detected)")
    p.add_argument("--y", default=None, help="your labels CSV: one column of class labels (row "
                   "order of --x), or sample id and label (matched to --x by id)")
    p.add_argument("--label-column", default=None, metavar="NAME",
                   help="with --y of more than two columns: the column of class labels (the "
                   "first column then holds the sample ids)")
    p.add_argument("--name", default=None, help="name of your data set: letters, digits, '_', "
                   "'-', '.' (default: the --x file's name without .csv/.tsv/.txt and .gz)")
    p.add_argument("--groups", default=None, help="your groups CSV, with --x: one column of "
                   "group labels (row order of --x), or sample id and group. The samples of "
                   "one group (technical replicates, two preparations of one tumour, samples "
                   "of one patient) are kept in the same fold, outer and inside every "
                   "method's own cross-validation; without it the folds take every sample "
                   "as independent (selbayes's inner cross-validation still keeps "
                   "near-copies whole, as its fit does by default). 'auto': the groups of "
                   "samples far more alike than any others (replicates, one would think) "
                   "that the replicate check finds")
    p.add_argument("--transform", choices=["auto", "none", "log2"], default=None,
                   help="preprocessing of your data, the same for every method: log2 of "
                   "values clipped to [floor, ceiling]; none, the values as given; auto "
                   "(default), log2 with floor 1 (lower for values on a smaller scale: "
                   "their 10th percentile) when the values look like raw intensities "
                   "(all >= 0, strongly right-skewed), as given otherwise, and says which. "
                   "Named sets use their documented preprocessing. log2 warns when the "
                   "values look log-scale or z-scored, none when they look like raw "
                   "intensities")
    p.add_argument("--floor", type=float, default=None,
                   help="floor before log2 (default 1.0 with --transform log2)")
    p.add_argument("--ceiling", type=float, default=None, help="ceiling before log2")
    p.add_argument("--drop-missing", default=None, choices=["genes", "samples"],
                   help=DROP_MISSING_HELP)
    p.add_argument("--methods", default=None,
                   help="comma-separated method names, or 'all' (default: "
                   + ",".join(DEFAULT_METHOD_NAMES) + ": the recommended selbayes, its uncorrected "
                   "twin and the peers)")
    p.add_argument("--folds", type=int, default=None,
                   help="folds per repeat (default 5; --quick runs 3)")
    p.add_argument("--repeats", type=int, default=1, help="repeats (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--jobs", type=int, default=1,
                       help="parallel processes (default 1; -1: all cores)")
    group.add_argument("--scheduler", default=None,
                       help="dask.distributed scheduler address (needs selbayes[distributed])")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: sorlie (unless named), 3 folds, 4 methods, few draws")
    p.add_argument("--out", default=None,
                   help="output folder, resumed when it exists (default: "
                   "selbayes_runs/benchmark_<data set names>, _quick appended with --quick, in the "
                   "working directory)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
    return p


def default_out(datasets, quick: bool = False) -> str:
    """The output folder of a run not given ``--out``: ``selbayes_runs/benchmark_<names>``.

    One folder per combination of data sets, so that a run on another set never overwrites
    the report of an earlier one (the fits a folder holds are reused only where their data,
    folds and settings match, so resuming into it is safe). Like the other runners, it lies
    in the working directory's ``selbayes_runs/``.

    Parameters
    ----------
    datasets : list of (str or dataset object)
        Named sets (str) and a user's set (its ``name``), as passed to the runner.
    quick : bool, default False
        A smoke test: ``_quick`` is appended (and the quick set named when none is given).

    Returns
    -------
    str

    Examples
    --------
    >>> default_out(["golub", "sorlie"])
    'selbayes_runs/benchmark_golub_sorlie'
    >>> default_out([], quick=True)
    'selbayes_runs/benchmark_sorlie_quick'
    """
    from .._parallel import RUNS_FOLDER
    from ._runner import QUICK_DATASET

    names = [d if isinstance(d, str) else d.name for d in datasets]
    if quick and not names:
        names = [QUICK_DATASET]
    return f"{RUNS_FOLDER}/benchmark_{'_'.join(map(str, names))}{'_quick' if quick else ''}"


def _file_stem(path) -> str:
    """A file's name without its table suffix and compression suffix.

    Examples
    --------
    >>> _file_stem("data/batch1.norm.csv.gz"), _file_stem("X.tsv"), _file_stem("expr")
    ('batch1.norm', 'X', 'expr')
    """
    from pathlib import Path

    name = Path(path).name
    for suffixes in ((".gz", ".bz2", ".xz", ".zip"), (".csv", ".tsv", ".tab", ".txt")):
        low = name.lower()
        for suffix in suffixes:
            if low.endswith(suffix) and len(name) > len(suffix):
                name = name[:-len(suffix)]
                break
    return name


def _read_user_data(args, methods=None):
    """The user's set from ``--x``/``--y``, checked; the warnings said while reading it are
    shown as they come and kept with the set (``notes``), so that the report repeats them
    (a label column among the genes, small classes, the scale of the values, ...)."""
    import warnings

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        ds = _read_and_check(args, methods)
    for w in said:
        warnings.warn(w.message, w.category, stacklevel=2)
    ds.notes = [f"{w.category.__name__}: {w.message}" for w in said]
    return ds


def _read_and_check(args, methods):
    from pathlib import Path

    from .._parallel import file_name_safe
    from ..datasets._files import read_xy
    from ..datasets._loaders import BenchmarkDataset
    from ._runner import check_dataset_name

    for opt in ("x", "y"):
        path = getattr(args, opt)
        if Path(path).is_dir():
            raise ValueError(f"--{opt} {path}: a folder, not a file")
        if not Path(path).is_file():
            raise FileNotFoundError(f"--{opt} {path}: no such file")
    # the default name is the file's without its table and compression suffixes, made
    # folder-safe ("my data.csv.gz" -> "my_data"; "batch1.norm.csv" -> "batch1.norm", not
    # "batch1", which "batch1.raw.csv" would share, overwriting its report); a --name given
    # is kept as written, and the runner refuses one that cannot name a folder
    name = args.name or file_name_safe(_file_stem(args.x))
    check_dataset_name(name)
    # Labels matched to the samples of --x by id (or taken in row order from one column);
    # ids that differ are an error naming them, never a silent re-pairing.
    ds = read_xy(args.x, args.y, name=name, label_column=args.label_column,
                 drop_missing=args.drop_missing or False)
    transform = args.transform or "auto"
    if transform != "log2" and (args.floor is not None or args.ceiling is not None):
        raise ValueError("--floor/--ceiling need --transform log2")
    auto = transform == "auto"
    if auto:
        # Decided once on the whole matrix, without the labels (like a user who looks at the
        # values before choosing): log2 with the usual floor for intensities where they look
        # raw, so that no method is handed a scale the Gaussian models misread
        # (reports/raw_input_check); the values as given otherwise
        from ..preprocessing._intensity import auto_log2_settings, lowered_floor_note

        pre = auto_log2_settings(ds.X)
        transform = pre["transform"]
        print(f"selbayes benchmark: {args.x}: " + (
            f"the values look like raw intensities: every method gets log2 of them, floored "
            f"at {pre['floor']:.3g}{lowered_floor_note(pre)} (--transform none keeps them as "
            "given)"
            if transform == "log2"
            else "the values do not look like raw intensities: every method gets them as "
            "given (--transform log2 takes logs)"), file=sys.stderr)
    else:
        pre = {"transform": transform,
               "floor": (1.0 if args.floor is None else args.floor) if transform == "log2"
               else None,
               "ceiling": args.ceiling}
    if transform == "log2" and not auto:
        import warnings

        from ..preprocessing._intensity import IntensityLog2, Log2InputWarning, log2_input_problem

        try:                            # said in the options' terms
            IntensityLog2(floor=pre["floor"], ceiling=pre["ceiling"])._check_params()
        except ValueError as exc:
            raise ValueError(f"--floor/--ceiling: {exc}") from None
        if pre["ceiling"] is not None and pre["ceiling"] <= pre["floor"]:
            raise ValueError(f"--ceiling {pre['ceiling']:g} must exceed --floor "
                             f"{pre['floor']:g}")
        problem = log2_input_problem(ds.X, pre["floor"], pre["ceiling"])
        if problem is not None:
            warnings.warn(f"{args.x}: {problem}", Log2InputWarning, stacklevel=2)
    elif transform == "none" and not auto:
        # Once, here: the fits run with their warnings silenced (and in other processes with
        # --jobs), so the classifier's own check would not reach the user. Every method is
        # given the values as they are; the comparison stays fair, the Gaussian models suffer.
        from ..preprocessing._intensity import RawIntensityWarning, auto_log2_settings

        if auto_log2_settings(ds.X)["transform"] == "log2":     # what auto would have logged
            import warnings

            warnings.warn(f"{args.x}: the values look like raw intensities (all >= 0, strongly "
                          "right-skewed), and --transform none gives them to every method as "
                          "they are: the Gaussian models misread this scale and their "
                          "probabilities can be badly calibrated; --transform auto (the "
                          "default) or log2 takes logs", RawIntensityWarning, stacklevel=2)
    counts = ds.y.astype(str).value_counts()
    if counts.max() < args.folds:
        # no class fills the folds: scikit-learn's splitter refuses, naming neither the file
        # nor the option
        raise ValueError(f"{args.y}: every class has fewer samples than --folds {args.folds} "
                         f"(the largest {int(counts.max())}); give --folds "
                         f"{max(2, int(counts.max()))} or fewer")
    if counts.min() < args.folds:
        # The runner's stratified folds put each case of a small class in its own fold, so a
        # training fold keeps all of them but one (the named sets' runs do the same), and
        # the test folds that hold none score the other classes only: said, not refused
        import warnings

        from ._methods import DEFAULT_METHODS, INNER_SPLIT_PEERS

        small = ", ".join(f"{c!r} ({n})" for c, n in counts[counts < args.folds].items())
        two = [str(c) for c, n in counts.items() if n == 2]
        split = [m for m in INNER_SPLIT_PEERS if m in (methods or DEFAULT_METHODS)]
        tail = ("" if not two else
                f"; {', '.join(map(repr, two))} ha{'s' if len(two) == 1 else 've'} 2, so the "
                f"training folds of the two folds that test one of them keep 1: there the "
                f"selbayes models make their inner choices on the other classes"
                + ("" if not split else
                   f", and {', '.join(split)}, whose inner folds cannot split that class, "
                   f"fail (the report counts those folds as failures and leaves those "
                   f"methods out of its comparisons on this set)"))
        warnings.warn(f"{args.y}: class(es) with fewer samples than --folds {args.folds}: "
                      f"{small}; each of their samples is tested in its own fold, and some test "
                      f"folds hold none of them{tail}", UserWarning, stacklevel=2)
    if any(ds.dropped.values()):
        # recorded with the set (settings.json, the report's data-set table); only where
        # something was dropped, so that the fits of files without gaps keep their keys
        pre = {**pre, "dropped": {k: len(v) for k, v in ds.dropped.items()}}
    return BenchmarkDataset(X=ds.X, y=ds.y.astype(str), description=f"Read from {args.x}",
                            name=name, preprocessing=pre)


def _user_groups(args, ds):
    """``--groups`` for the samples of ``ds``: read against the samples of ``--x`` (its ids,
    or its row order), then the samples ``--drop-missing samples`` dropped removed."""
    from pathlib import Path

    from ..datasets._files import groups_for_matrix, labels_for_matrix, read_matrix

    if not Path(args.groups).is_file():
        raise FileNotFoundError(f"--groups {args.groups}: no such file")
    if not (ds.preprocessing.get("dropped") or {}).get("samples"):
        return groups_for_matrix(ds.X, args.groups, x_source=args.x)
    import warnings

    import numpy as np

    with warnings.catch_warnings():     # said once already, when the set was read
        warnings.simplefilter("ignore")
        X_file, _ = labels_for_matrix(read_matrix(args.x, allow_missing=True), args.y,
                                      label_column=args.label_column, x_source=args.x)
    g = np.asarray(groups_for_matrix(X_file, args.groups, x_source=args.x))
    return g[X_file.index.get_indexer(ds.X.index)]


def run(args) -> int:
    """Run ``selbayes benchmark`` from parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser of :func:`register`.

    Returns
    -------
    int
        0 on success; 2 on a user error (one line on stderr).

    Raises
    ------
    ValueError
        Raised for user errors (unknown data set or method, bad option values) and caught
        here: they become the one-line message and status 2. Errors inside the benchmark
        that are not user errors propagate.

    Examples
    --------
    >>> main(["--quick", "--out", "bench_quick"])                        # doctest: +SKIP
    0
    """
    from pathlib import Path

    from ..datasets._loaders import BENCHMARK_SETS
    from ._methods import METHODS
    from ._runner import run_benchmark

    try:
        if args.quick and args.folds not in (None, 3):   # it was replaced without a word
            raise ValueError(f"--quick runs its own design of 3 folds; leave out --folds "
                             f"{args.folds}")
        if args.folds is None:
            args.folds = 3 if args.quick else 5
        if args.folds < 2 or args.repeats < 1 or args.jobs == 0 or args.seed < 0:
            raise ValueError("--folds must be >= 2, --repeats >= 1, --jobs not 0 and --seed "
                             ">= 0")
        if (args.x is None) != (args.y is None):
            raise ValueError("--x and --y go together")
        unknown = [n for n in args.names if n.lower() not in BENCHMARK_SETS]
        if unknown:
            raise ValueError(f"unknown data set(s) {', '.join(unknown)}; known: "
                             f"{', '.join(BENCHMARK_SETS)}")
        if args.groups is not None and args.x is None:
            raise ValueError("--groups applies to --x data only")
        if args.transform is not None and args.x is None:
            raise ValueError("--transform/--floor/--ceiling apply to --x data only (named sets "
                             "use their documented preprocessing)")
        methods = None
        if args.methods is not None:
            methods = [m.strip() for m in args.methods.split(",") if m.strip()]
            if not methods:                 # "--methods ," or an empty shell variable
                raise ValueError(f"--methods {args.methods!r} names no method; known: "
                                 f"{', '.join(METHODS)} (or all)")
        if methods == ["all"]:
            methods = list(METHODS)
        bad = [m for m in methods or [] if m not in METHODS]
        if bad:
            raise ValueError(f"unknown method(s) {', '.join(bad)}; known: {', '.join(METHODS)}")
        twice = sorted({m for m in methods or [] if methods.count(m) > 1})
        if twice:
            raise ValueError(f"--methods names {', '.join(twice)} more than once")
        if args.label_column is not None and args.x is None:
            raise ValueError("--label-column applies to --x data only")
        if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
            raise ValueError(f"--out {args.out}: a file, not a folder")
        datasets = [n.lower() for n in args.names]
        groups = {}
        if args.x is not None:
            datasets.append(_read_user_data(args, methods))
            if args.groups == "auto":      # the groups the replicate check finds
                groups[datasets[-1].name] = "auto"
            elif args.groups is not None:
                groups[datasets[-1].name] = g = _user_groups(args, datasets[-1])
                n_groups = len(set(map(str, g)))
                if n_groups < args.folds:   # said in the options' terms, before any fit
                    raise ValueError(f"--groups {args.groups}: {n_groups} groups, fewer than "
                                     f"--folds {args.folds} (each fold tests whole groups); "
                                     f"give --folds {max(2, n_groups)} or fewer")
        if not datasets and not args.quick:
            raise ValueError("name at least one data set, or give --x and --y (or --quick)")
        out = args.out or default_out(datasets, quick=args.quick)
        if args.out is None:
            print(f"selbayes benchmark: writing to {out}/ (choose with --out)", file=sys.stderr)
        res = run_benchmark(datasets, methods, folds=args.folds, repeats=args.repeats,
                            seed=args.seed, n_jobs=args.jobs, quick=args.quick, out=out,
                            scheduler=args.scheduler, progress=not args.no_progress,
                            groups=groups)
    except (ValueError, FileNotFoundError, TypeError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        from .._validation import command_line_message

        print(f"selbayes benchmark: error: {command_line_message(msg)}", file=sys.stderr)
        return 2
    from ._report import terminal_summary

    table = terminal_summary(res.summary, [m for m in res.info["methods"]
                                           if m in set(res.summary["method"])])
    if table:
        print(table)
    resumed = res.info["n_resumed"]          # said here too, not only in report.md
    # the paired sections (selbayes against its peers, corrected against uncorrected) are
    # written only where their methods ran: said as the report has them
    report = res.out / "report.md"
    paired = (", paired differences" if report.is_file()
              and "(paired over folds)" in report.read_text(encoding="utf-8") else "")
    print(f"wrote {res.out / 'report.md'} (calibration{paired}, figures), "
          f"results.csv and summary.csv ({res.info['wall_seconds']:.0f} s"
          + (f"; {res.info['n_fitted']} fits run, {resumed} read back from the folder"
             if resumed else "") + ")")
    return 0


def main(argv=None) -> int:
    """Stand-alone entry point (``python -m selbayes.benchmark``).

    Parameters
    ----------
    argv : list of str, optional

    Returns
    -------
    int
        Exit status.

    Examples
    --------
    >>> main(["--quick", "--out", "bench_quick"])                        # doctest: +SKIP
    0
    """
    parser = argparse.ArgumentParser(prog="selbayes")
    sub = parser.add_subparsers(dest="command")
    register(sub)
    args = parser.parse_args(["benchmark", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))
