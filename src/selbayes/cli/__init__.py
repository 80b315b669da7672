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

The modules: this one holds :func:`main`; ``_parser`` the argument parser
(:func:`build_parser`) and the argparse types of its options; ``_commands`` the commands
``demo``, ``reproduce``, ``sbc`` and ``cache``; ``_fit`` the command ``fit`` and the summary it
prints; ``_predict`` the command ``predict`` and the reading of a saved fit; ``_inputs`` the
user's files (X as CSV/TSV or ``.h5ad``, the log2 ``--transform``, the binary models' check,
the output's folder); ``_classifiers`` the classifiers ``fit`` makes and ``predict`` reads, and
the attributes saved with a fit; ``_errors`` what counts as a user error, the one line printed
for it, and the warnings printed naming the command. ``python -m selbayes.cli`` runs
:func:`main` (``__main__``). They import one way: ``_errors`` and ``_classifiers`` <- ``_inputs``
<- ``_fit``, ``_predict`` <- ``_parser`` (with ``_commands``) <- this module.
"""

from __future__ import annotations

import contextlib
import sys

from ._classifiers import MODELS, SAVED_CLASSES
from ._errors import _USER_ERRORS, UserError, _error_line, _warning_printer, plain_message
from ._parser import PRIOR_FAMILIES, build_parser

__all__ = ["MODELS", "PRIOR_FAMILIES", "SAVED_CLASSES", "UserError", "build_parser", "main",
           "plain_message"]


#: The commands that store each finished fit and resume from them when run again.
_RESUMING = ("benchmark", "reproduce", "sbc")


@contextlib.contextmanager
def _interrupt_on_sigterm():
    """Make SIGTERM (``kill PID``) stop a command as Ctrl-C does: the KeyboardInterrupt
    unwinds joblib's pool, which stops its worker processes (a SIGTERM's default end left
    them running their fits, whose results nobody would read, and then idle)."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():  # signal.signal's rule
        yield
        return
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:                                # main() called in a process that goes on
        signal.signal(signal.SIGTERM, previous)


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
    from .._compile_cache import configure_pytensor
    from .._parallel import WorkerKilledError

    configure_pytensor()         # before pytensor is imported: its caches in the cache folder
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    import warnings

    with warnings.catch_warnings(), _interrupt_on_sigterm():
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
        except KeyboardInterrupt:
            # Ctrl-C, or a SIGTERM (_interrupt_on_sigterm): one line, not the traceback of
            # wherever the fit was; the status a shell gives a command stopped by SIGINT
            if args.debug:
                raise
            kept = (" (the fits that finished are kept in its output folder: the same command "
                    "resumes from them)" if args.command in _RESUMING else "")
            print(f"selbayes {args.command}: interrupted{kept}", file=sys.stderr)
            return 130
