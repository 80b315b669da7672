"""``selbayes benchmark``: selbayes against scikit-learn peers on real expression data.

:func:`run_benchmark` cross-validates selbayes configurations and peers on the same repeated
stratified folds, with every preprocessing, selection and tuning step inside the training
folds, and writes per-fold results, a summary, a Markdown report and a reliability figure.
The methods are listed in :data:`METHODS`; :func:`paired_difference` and
:func:`repeat_aware_mean_se` compare two methods on the same folds.

The modules are private; the names below are the public API. They are loaded on first use:
the command line imports ``selbayes.benchmark._cli`` to build its parser, which must not import
scikit-learn and SciPy (about 2 s) for ``selbayes --help``.
"""

from .._compat import package_attributes as _package_attributes

# public name -> its private module
_NAMES = {"run_benchmark": "_runner", "BenchmarkResult": "_runner", "METHODS": "_methods",
          "PEERS": "_methods", "SELBAYES_METHODS": "_methods", "QUICK_METHODS": "_methods",
          "DEFAULT_METHODS": "_methods", "selbayes_default": "_methods",
          "results_frame": "_report", "summary_frame": "_report", "mean_ranks": "_report",
          "paired_difference": "_report", "clear_difference": "_report",
          "repeat_aware_mean_se": "_report"}

__all__ = list(_NAMES)


# the names above imported on first use; the old module paths (selbayes.benchmark.<module>)
# for one release, with a FutureWarning
__getattr__, __dir__ = _package_attributes(__name__, _NAMES)
