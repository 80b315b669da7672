"""Data: the paper data sets (loaders), their download from the original sources, and simulators.

The modules (:mod:`~selbayes.datasets._dataset`, :mod:`~selbayes.datasets._files`,
:mod:`~selbayes.datasets._loaders`, :mod:`~selbayes.datasets._download`,
:mod:`~selbayes.datasets._simulate`) are private; the names below are the public API
(``selbayes.datasets.load_dataset``, ``selbayes.datasets.gaussian_classification``).
``registry.csv`` beside this file pins each downloadable data set to a URL and a SHA-256.
"""

from .._compat import package_attributes as _package_attributes
from ._dataset import Dataset
from ._download import DownloadError, default_download_dir, fetch, load_rdata, registry
from ._files import align_labels, read_anndata, read_matrix, read_table, read_xy
from ._loaders import (
    BENCHMARK_SETS,
    PROVENANCE,
    BenchmarkDataset,
    default_data_home,
    find_data_home,
    load_colon,
    load_dataset,
    load_srbct,
)
from ._simulate import (
    BinaryMixtureData,
    BinaryNaiveBayesData,
    GaussianClassificationData,
    binary_mixture,
    binary_naive_bayes,
    gaussian_classification,
    train_test_split,
)

__all__ = [
    "Dataset", "load_srbct", "load_colon", "read_table", "read_anndata", "read_xy",
    "read_matrix", "align_labels", "default_data_home",
    "find_data_home", "PROVENANCE", "load_dataset", "BenchmarkDataset", "BENCHMARK_SETS",
    "registry", "fetch", "load_rdata", "default_download_dir", "DownloadError",
    "GaussianClassificationData", "BinaryNaiveBayesData", "BinaryMixtureData",
    "gaussian_classification", "binary_naive_bayes", "binary_mixture", "train_test_split",
]


# the old module paths (selbayes.datasets.<module>) for
# one release, with a FutureWarning; selbayes.datasets was one module in earlier versions, and its
# other names are forwarded too (warned)
__getattr__, __dir__ = _package_attributes(__name__,
                                           former_module=("selbayes.datasets._dataset",
                                                          "selbayes.datasets._files",
                                                          "selbayes.datasets._loaders"))
