"""Data: the paper data sets (loaders), their download from the original sources, and simulators.

The modules (:mod:`~selbayes.datasets._loaders`, :mod:`~selbayes.datasets._download`,
:mod:`~selbayes.datasets._simulate`) are private; the names below are the public API
(``selbayes.datasets.load_dataset``, ``selbayes.datasets.gaussian_classification``).
``registry.csv`` beside this file pins each downloadable data set to a URL and a SHA-256.
"""

from ._download import DownloadError, default_download_dir, fetch, load_rdata, registry
from ._loaders import (
    BENCHMARK_SETS,
    PROVENANCE,
    BenchmarkDataset,
    Dataset,
    align_labels,
    default_data_home,
    find_data_home,
    load_colon,
    load_dataset,
    load_srbct,
    read_anndata,
    read_matrix,
    read_table,
    read_xy,
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


def __getattr__(name):
    from .._compat import MOVED, forward_private, old_module

    # selbayes.datasets.simulate, ...: the former public modules, for one release (warns)
    if f"{__name__}.{name}" in MOVED:
        return old_module(__name__, name)
    # selbayes.datasets was one module in earlier versions; its other names are forwarded
    # (with a FutureWarning) for one release so that old code keeps working
    return forward_private(__name__, "selbayes.datasets._loaders", name)
