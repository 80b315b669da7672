"""The ``selbayes`` command line.

Commands: ``selbayes demo`` (:func:`selbayes.demo.run_demo`), ``selbayes reproduce SPEC``
(:func:`selbayes.reproduce.run_reproduction`) and ``selbayes sbc SPEC``
(:func:`selbayes.sbc_models.run_sbc_spec`). The heavy modules are imported only when their
command runs, so ``selbayes --help`` is fast.
"""

from __future__ import annotations

import argparse
import sys

from ._version import __version__


def _cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(out=args.out, data=args.data, quick=args.quick, seed=args.seed)


def _cmd_reproduce(args) -> int:
    from .reproduce import run_reproduction

    run_reproduction(args.spec, out=args.out, quick=args.quick, n_jobs=args.jobs,
                     scheduler=args.scheduler, progressbar=not args.no_progress)
    return 0


def _cmd_sbc(args) -> int:
    from .sbc_models import run_sbc_spec

    run_sbc_spec(args.spec, out=args.out, quick=args.quick, n_jobs=args.jobs,
                 scheduler=args.scheduler, progressbar=not args.no_progress)
    return 0


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="experiment spec (TOML) under models/")
    p.add_argument("--out", default=None, help="output folder (default: reports/<spec name>)")
    p.add_argument("--quick", action="store_true",
                   help="the spec's shrunken design (documented in the spec), for tests")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--jobs", type=int, default=1, help="parallel local processes")
    group.add_argument("--scheduler", default=None,
                       help="dask.distributed scheduler address (needs selbayes[distributed])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    """Build the ``selbayes`` argument parser with its ``demo``, ``reproduce`` and ``sbc`` commands.

    Each sub-command stores its handler in ``args.func``; :func:`main` calls it.

    Returns
    -------
    argparse.ArgumentParser
        The parser; ``parse_args`` raises ``SystemExit`` (status 2) on invalid arguments.

    Examples
    --------
    >>> from selbayes.cli import build_parser
    >>> args = build_parser().parse_args(
    ...     ["reproduce", "models/li2009_gaussian_simulation.toml", "--quick", "--jobs", "2"])
    >>> args.command, args.spec, args.quick, args.jobs, args.scheduler, args.out
    ('reproduce', 'models/li2009_gaussian_simulation.toml', True, 2, None, None)
    >>> build_parser().parse_args(["demo"]).seed
    2009
    """
    parser = argparse.ArgumentParser(
        prog="selbayes",
        description="Bayesian classification with a selected subset of features, "
        "calibrated by conditioning on the selection.",
    )
    parser.add_argument("--version", action="version", version=f"selbayes {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="fit corrected and uncorrected models on simulated data")
    demo.add_argument("--out", default="demo_output",
                      help="folder for the plot (default: %(default)s)")
    demo.add_argument("--data", default=None, choices=[None, "simulated", "srbct"],
                      help="dataset (default: simulated)")
    demo.add_argument("--quick", action="store_true", help="smaller design, for tests")
    demo.add_argument("--seed", type=int, default=2009, help="random seed (default: %(default)s)")
    demo.set_defaults(func=_cmd_demo)

    rep = sub.add_parser("reproduce", help="run a paper experiment from its spec; resumes")
    _add_run_options(rep)
    rep.set_defaults(func=_cmd_reproduce)

    sbc = sub.add_parser("sbc", help="simulation-based calibration of a model; resumes")
    _add_run_options(sbc)
    sbc.set_defaults(func=_cmd_sbc)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``selbayes`` command line (the console-script entry point).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Process exit status: 0 on success (also when no command is given: the help is printed).

    Raises
    ------
    SystemExit
        From argparse, on invalid arguments (status 2) and after ``--help`` or ``--version``
        (status 0).
    FileNotFoundError, ValueError
        From the command, e.g. for a missing or malformed spec file.

    Examples
    --------
    >>> from selbayes.cli import main
    >>> main([])                                                       # prints the help
    usage: selbayes [-h] [--version] COMMAND ...
    ...
    0
    >>> main(["sbc", "models/sbc_gaussian_small.toml", "--quick", "--jobs", "2"])  # doctest: +SKIP
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
