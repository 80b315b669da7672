"""Errors and warnings on the command line: what counts as the user's error, the one line
printed for it (an OSError as a sentence, without h5py's internals), and warnings printed
naming the command."""

from __future__ import annotations

import sys

from .._validation import command_line_message, plain_message  # noqa: F401  (re-exported: selbayes.cli.plain_message)
from .._validation import os_error_reason as _os_reason  # noqa: F401  (the commands' reading and writing)


class UserError(Exception):
    """A problem with the command's input: reported as one line, exit status 2."""


# Errors that mean "the input is wrong", not "selbayes is broken".
_USER_ERRORS = (UserError, FileNotFoundError, FileExistsError, IsADirectoryError,
                NotADirectoryError, PermissionError, ValueError, TypeError, KeyError)


#: What a warning's advice (written for the Python API) is on the command line, per command.
#: (selbayes benchmark says its own, in its options' terms.)
_CLI_ADVICE = {("RawIntensityWarning", "fit"): "on the command line: --transform log2 --floor 1"}


def _warning_printer(command: str):
    """A ``warnings.showwarning`` that names the user's command, not Python's source line
    (which would be the console script's ``sys.exit(main())`` or a library's internals), and
    adds the command-line form of advice written for the Python API."""
    def show(message, category, filename, lineno, file=None, line=None):
        stream = sys.stderr if file is None else file
        advice = _CLI_ADVICE.get((category.__name__, command))
        try:
            stream.write(f"selbayes {command}: {category.__name__}: "
                         f"{command_line_message(str(message))}"
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
    return command_line_message(text.splitlines()[0]) if text else type(exc).__name__
