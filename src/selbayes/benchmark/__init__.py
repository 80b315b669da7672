"""``selbayes benchmark``: selbayes against scikit-learn peers on real expression data.

:func:`run_benchmark` cross-validates selbayes configurations and peers on the same repeated
stratified folds, with every preprocessing, selection and tuning step inside the training
folds, and writes per-fold results, a summary, a Markdown report and a reliability figure.
The methods are listed in :data:`~selbayes.benchmark.methods.METHODS`.
"""

from .methods import METHODS, PEERS, SELBAYES_METHODS, selbayes_default
from .runner import BenchmarkResult, run_benchmark

__all__ = ["run_benchmark", "BenchmarkResult", "METHODS", "PEERS", "SELBAYES_METHODS",
           "selbayes_default"]
