"""Data: the paper data sets (loaders), their download from the original sources, and simulators.

Public names of :mod:`~selbayes.datasets.loaders`, :mod:`~selbayes.datasets.download` and
:mod:`~selbayes.datasets.simulate` are re-exported, so ``selbayes.datasets.load_dataset`` and
``selbayes.datasets.gaussian_classification`` both work. ``registry.csv`` beside this file pins
each downloadable data set to a URL and a SHA-256.
"""

from . import download, loaders, simulate
from .download import DownloadError, default_download_dir, fetch, load_rdata, registry
from .loaders import (
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
from .simulate import (
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
    "download", "loaders", "simulate",
]


def __getattr__(name):
    # selbayes.datasets was one module in earlier versions; its other names are forwarded
    # (with a FutureWarning) for one release so that old code keeps working
    from .._compat import forward_private

    return forward_private(__name__, "selbayes.datasets.loaders", name)
