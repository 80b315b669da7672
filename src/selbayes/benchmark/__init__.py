"""``selbayes benchmark``: selbayes against scikit-learn peers on real expression data.

:func:`run_benchmark` cross-validates selbayes configurations and peers on the same repeated
stratified folds, with every preprocessing, selection and tuning step inside the training
folds, and writes per-fold results, a summary, a Markdown report and a reliability figure.
The methods are listed in :data:`~selbayes.benchmark.methods.METHODS`.

The names are loaded on first use: the command line imports ``selbayes.benchmark.cli`` to
build its parser, which must not import scikit-learn and SciPy (about 2 s) for
``selbayes --help``.
"""

from importlib import import_module

_NAMES = {"run_benchmark": "runner", "BenchmarkResult": "runner", "METHODS": "methods",
          "PEERS": "methods", "SELBAYES_METHODS": "methods", "selbayes_default": "methods"}

__all__ = ["run_benchmark", "BenchmarkResult", "METHODS", "PEERS", "SELBAYES_METHODS",
           "selbayes_default"]


def __getattr__(name):
    if name in _NAMES:
        return getattr(import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})
