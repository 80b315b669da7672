"""The data sets selbayes knows by name: the papers' public data (SRBCT, colon) and the eleven
benchmark sets (:func:`load_dataset`).

Each loader returns a :class:`~selbayes.datasets.Dataset` after the checks every source passes
(:mod:`selbayes.datasets._dataset`); the user's own files are read by
:mod:`selbayes.datasets._files`.

The papers' data (``load_srbct``, ``load_colon``) are third-party and not shipped with selbayes.
They are read from CSV files (``<name>_X.csv.gz``, ``<name>_y.csv.gz``, ``<name>_genes.csv.gz``)
found in, in order: the ``data_home`` argument; else the folder named by the ``SELBAYES_DATA``
environment variable, then the user data folder (:func:`default_data_home`). When
``data_home`` is not given and neither folder holds them, the original R file (CRAN package
plsgenomics 1.5-3) is downloaded once from its pinned public URL, sha256 checked, into the user
data folder (:mod:`selbayes.datasets._download`), and gives the same data set. See
:data:`PROVENANCE` for the sources and the file format.

Examples
--------
>>> from selbayes.datasets import load_srbct
>>> ds = load_srbct(log=True)                        # doctest: +SKIP
>>> ds.X.shape, ds.y.value_counts().to_dict()        # doctest: +SKIP
((83, 2308), {'EWS': 29, 'RMS': 25, 'NB': 18, 'BL/NHL': 11})
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import check_flag, check_path
from ._dataset import Dataset, _check_text, _validated, reading_data_file

__all__ = ["load_srbct", "load_colon", "default_data_home", "find_data_home", "PROVENANCE"]

ENV_VAR = "SELBAYES_DATA"

PROVENANCE = """\
The data files are not part of selbayes. Source: the CRAN package plsgenomics (version 1.5-3),
data/SRBCT.rda and data/Colon.rda; without data_home, selbayes downloads these once from their
pinned public URLs (sha256 checked; selbayes.datasets.registry()). Offline, either
put those two files, or three gzip-compressed CSV files per data set, <name>_X.csv.gz (samples
x genes, header g1..gP, source order), <name>_y.csv.gz (one column `y` with the source's
integer class code) and <name>_genes.csv.gz (column `col` = g1..gP plus the gene annotation),
in a folder and pass it as data_home= (CSV files only) or set the environment variable
SELBAYES_DATA to it."""

_SOURCES = {
    "srbct": {
        "n_samples": 83, "n_genes": 2308, "id": ("image_id", "IMAGE:"),
        "codes": {1: "EWS", 2: "BL/NHL", 3: "NB", 4: "RMS"},
        "counts": {1: 29, 2: 11, 3: 18, 4: 25},
        "description": (
            "SRBCT: small round blue cell tumours of childhood (Khan et al. 2001), cDNA "
            "microarrays, 83 samples x 2308 genes: the 63 training and 20 SRBCT test samples of "
            "the original study (the 5 non-SRBCT test samples excluded). Classes: EWS (Ewing "
            "family, 29), BL/NHL (Burkitt lymphoma, the non-Hodgkin lymphoma class, 11), NB "
            "(neuroblastoma, 18), RMS (rhabdomyosarcoma, 25). Values are expression ratios "
            "(positive){scale}. Columns are IMAGE clone ids; a clone spotted more than once is "
            "suffixed with its source column (g<j>). Copy: CRAN plsgenomics 1.5-3, "
            "data/SRBCT.rda. Cite: Khan J. et al. (2001), Classification and diagnostic "
            "prediction of cancers using gene expression profiling and artificial neural "
            "networks, Nature Medicine 7:673-679."),
    },
    "colon": {
        "n_samples": 62, "n_genes": 2000, "id": ("gene", ""),
        "codes": {1: "normal", 2: "tumour"},
        "counts": {1: 22, 2: 40},
        "description": (
            "Colon: tumour and normal colon tissues (Alon et al. 1999), Affymetrix "
            "oligonucleotide arrays, 62 tissues x 2000 genes (the 2000 with the highest minimal "
            "intensity). Classes: normal (22), tumour (40). Values are intensities. Columns are "
            "accession ids; an accession probed more than once is suffixed with its source "
            "column (g<j>). Copy: CRAN plsgenomics 1.5-3, data/Colon.rda. Cite: Alon U. et al. "
            "(1999), Broad patterns of gene expression revealed by clustering analysis of tumor "
            "and normal colon tissues probed by oligonucleotide arrays, PNAS 96:6745-6750."),
    },
}


# ---------------------------------------------------------------------------------------------
# locating the papers' data
# ---------------------------------------------------------------------------------------------
def default_data_home() -> Path:
    """The user data folder where the papers' data files are looked for last.

    ``$XDG_DATA_HOME/selbayes`` (``~/.local/share/selbayes``) on Linux,
    ``~/Library/Application Support/selbayes`` on macOS, ``%LOCALAPPDATA%\\selbayes`` on
    Windows. The folder is not created.

    Returns
    -------
    pathlib.Path
        The folder (it may not exist).

    Examples
    --------
    >>> default_data_home().name
    'selbayes'
    """
    try:
        from platformdirs import user_data_dir
    except ImportError:  # pragma: no cover - platformdirs is nearly always present
        if sys.platform == "win32":
            base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Application Support"
        else:
            base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
        return base / "selbayes"
    return Path(user_data_dir("selbayes", appauthor=False))


def _data_home(data_home) -> Path | None:
    """``data_home`` as a Path (None stays None); TypeError unless it is a path, ValueError
    when it is a file (the search then listed its 'microarray' subfolder)."""
    if data_home is None:
        return None
    folder = check_path(data_home, "data_home").expanduser()
    if folder.is_file():
        raise ValueError(f"data_home must be a folder; {str(folder)!r} is a file (pass the "
                         "folder that holds the data files)")
    return folder


def _file_names(name: str) -> list[str]:
    return [f"{name}_{part}.csv.gz" for part in ("X", "y", "genes")]


def find_data_home(name: str, data_home=None) -> Path:
    """The folder holding the files of data set ``name``.

    An explicit ``data_home`` is the only place looked in; otherwise ``$SELBAYES_DATA`` and
    then :func:`default_data_home` are tried in turn. A folder qualifies when it holds all of
    ``<name>_X.csv.gz``, ``<name>_y.csv.gz`` and ``<name>_genes.csv.gz``.

    Parameters
    ----------
    name : str
        Data set name, the file prefix (``"srbct"`` or ``"colon"``).
    data_home : path-like, optional
        The only folder to look in; by default ``$SELBAYES_DATA``, then
        :func:`default_data_home`.

    Returns
    -------
    pathlib.Path
        The first folder holding all three files.

    Raises
    ------
    FileNotFoundError
        Naming the files needed, the folders searched and where public copies come from.
    TypeError
        When ``name`` is not a str or ``data_home`` is not a path.
    ValueError
        When ``data_home`` is a file.

    Examples
    --------
    >>> find_data_home("srbct", data_home="/nonexistent")
    Traceback (most recent call last):
    ...
    FileNotFoundError: the srbct data files [...] were not found. ...
    """
    _check_text(name, "name")
    data_home = _data_home(data_home)
    files = _file_names(name)
    if data_home is not None:
        candidates = [("data_home", data_home)]
    else:
        candidates = []
        if os.environ.get(ENV_VAR):
            candidates.append((f"${ENV_VAR}", Path(os.environ[ENV_VAR]).expanduser()))
        candidates.append(("the user data folder", default_data_home()))
    for _, folder in candidates:
        if all((folder / f).is_file() for f in files):
            return folder
    searched = "; ".join(
        f"{label} {str(folder)!r} (missing: "
        f"{', '.join(f for f in files if not (folder / f).is_file())})"
        for label, folder in candidates)
    raise FileNotFoundError(
        f"the {name} data files {files} were not found. Searched: {searched}.\n{PROVENANCE}")


def _unique_ids(ids: pd.Series, cols: pd.Series) -> list[str]:
    """Gene identifiers as column names; duplicated ones get their source column appended."""
    ids = ids.astype(str)
    dup = ids.duplicated(keep=False).to_numpy()
    return [f"{i} ({c})" if d else i for i, c, d in zip(ids, cols.astype(str), dup, strict=True)]


def _read_paper_csv(name: str, folder: Path):
    """The CSV copy of a paper's data: (X values, class codes, genes table, source name)."""
    fx, fy, fg = (folder / f for f in _file_names(name))
    with reading_data_file(fx, name):
        X = pd.read_csv(fx)
    with reading_data_file(fy, name):
        y = pd.read_csv(fy)
    with reading_data_file(fg, name):
        genes = pd.read_csv(fg, dtype=str, keep_default_na=False)
    meta = _SOURCES[name]
    shape = (meta["n_samples"], meta["n_genes"])
    if X.shape != shape or y.shape != (shape[0], 1) or len(genes) != shape[1]:
        raise ValueError(
            f"{folder}: the {name} files have shapes X {X.shape}, y {y.shape}, genes "
            f"{genes.shape}; expected X {shape}, y ({shape[0]}, 1) and {shape[1]} gene rows. "
            f"They are not the {name} data described in the provenance.\n{PROVENANCE}")
    if list(genes["col"].astype(str)) != list(X.columns):
        raise ValueError(f"{fg}: column 'col' does not list the columns of {fx} in order")
    return X.to_numpy(dtype=np.float64), y.iloc[:, 0].to_numpy(), genes, str(fx)


def _read_paper_rda(name: str, path: Path):
    """The original R file of a paper's data (CRAN plsgenomics 1.5-3, ``data/SRBCT.rda`` or
    ``data/Colon.rda``), in the layout of the CSV copies: (X values, class codes, genes table
    with ``col`` = g1..gP and the annotation columns, source name)."""
    import rdata

    with warnings.catch_warnings(), reading_data_file(path, name):
        warnings.filterwarnings("ignore", message="Unknown encoding")
        content = rdata.read_rda(path)
    obj = next(iter(content.values()), None)
    if not isinstance(obj, dict) or not {"X", "Y", "gene.names"} <= set(obj):
        raise ValueError(f"{path}: expected an R list with elements X, Y and gene.names "
                         f"(plsgenomics' {name} data)")
    values = np.asarray(getattr(obj["X"], "values", obj["X"]), dtype=np.float64)
    codes = np.asarray(obj["Y"]).ravel().astype(np.int64)
    cols = [f"g{j + 1}" for j in range(values.shape[1])]
    raw = obj["gene.names"]
    if name == "srbct":              # data frame: IMAGE clone id (integer, 5 NA), description
        ids = raw.iloc[:, 0].astype("Int64").astype("string").fillna("NA")
        genes = pd.DataFrame({"col": cols, "image_id": ids.to_numpy(dtype=object),
                              "description": np.asarray(raw.iloc[:, 1]).astype(str)})
    else:                            # character vector of accession ids
        genes = pd.DataFrame({"col": cols, "gene": np.asarray(raw).astype(str)})
    meta = _SOURCES[name]
    shape = (meta["n_samples"], meta["n_genes"])
    if values.shape != shape or codes.shape != (shape[0],) or len(genes) != shape[1]:
        raise ValueError(f"{path}: X {values.shape}, Y {codes.shape}, {len(genes)} gene names; "
                         f"expected X {shape}, Y ({shape[0]},) and {shape[1]} names")
    return values, codes, genes, str(path)


def _locate_paper_data(name: str, data_home):
    """(reader, location, where): the CSV copy if one is found, else the original R file,
    downloaded once (pinned URL, sha256 checked) when ``data_home`` is not given."""
    try:
        return _read_paper_csv, find_data_home(name, data_home), None
    except FileNotFoundError as not_found:
        if data_home is not None:              # an explicit folder: never download
            raise
        from ._download import DownloadError, fetch, registry

        try:
            path = fetch(name)
        except DownloadError as exc:
            # One first line with everything (the command line prints only that line).
            searched = str(not_found).split("\n", 1)[0]
            raise FileNotFoundError(
                f"{searched} The download of the original file failed too: {exc}. Offline, "
                f"set {ENV_VAR} to a folder holding these files or the original "
                f"{registry()[name]['file']}.\n{PROVENANCE}") from exc
        return _read_paper_rda, path, "downloaded"


def _load_paper_data(name: str, data_home, log: bool = False) -> Dataset:
    log = check_flag(log, "log")
    data_home = _data_home(data_home)
    reader, location, how = _locate_paper_data(name, data_home)
    return _paper_dataset(name, *reader(name, location), log=log,
                          where=(f" Downloaded (sha256 checked) to {location}."
                                 if how == "downloaded" else f" Read from {location}."))


def _paper_dataset(name, values, codes, genes, source, *, log: bool, where: str) -> Dataset:
    meta = _SOURCES[name]
    id_column, id_prefix = meta["id"]
    counts = {int(c): int(n) for c, n in zip(*np.unique(codes, return_counts=True), strict=True)}
    if counts != meta["counts"]:
        raise ValueError(f"{source}: class codes and counts {counts} differ from the {name} "
                         f"data's {meta['counts']}.\n{PROVENANCE}")
    ids = _unique_ids(id_prefix + genes[id_column].astype(str), genes["col"])
    genes = genes.rename(columns={"col": "source_column"})
    genes.index = pd.Index(ids, name="gene")
    frame = pd.DataFrame(values, columns=genes.index,
                         index=pd.Index([f"{name}_{i + 1}" for i in range(len(values))],
                                        name="sample"))
    if log:
        if (frame.to_numpy() <= 0).any():
            raise ValueError(f"{source}: log=True needs positive values")
        frame = np.log(frame)
    labels = pd.Series([meta["codes"][int(c)] for c in codes], index=frame.index, name="class",
                       dtype=object)
    scale = "; natural logs taken (log=True)" if log else ""
    desc = meta["description"].format(scale=scale) + where
    ds = _validated(frame, labels, drop_missing=False, source=source)
    return Dataset(X=ds.X, y=ds.y, description=desc, name=name, genes=genes)


def load_srbct(data_home=None, *, log: bool = False) -> Dataset:
    """The SRBCT data (Khan et al. 2001): 83 samples x 2308 genes, 4 tumour classes.

    Parameters
    ----------
    data_home : path-like, optional
        Folder with ``srbct_X.csv.gz``, ``srbct_y.csv.gz`` and ``srbct_genes.csv.gz`` (the only
        place looked in). By default ``$SELBAYES_DATA``, then :func:`default_data_home`, then
        a download of the original R file (plsgenomics 1.5-3, pinned URL, sha256 checked) into
        the user data folder, done once.
    log : bool, default False
        Return natural logs of the expression ratios (what Gaussian models need; Li 2009 used
        the logs).

    Returns
    -------
    Dataset
        ``y`` holds EWS, BL/NHL, NB and RMS; ``genes`` the IMAGE clone id and description.

    Raises
    ------
    FileNotFoundError
        When the files are missing and cannot be downloaded (the message says where they
        were looked for, why the download failed, and names ``SELBAYES_DATA``).
    ValueError
        When the files do not have the SRBCT shapes or class counts, ``log=True`` meets a
        non-positive value, or ``data_home`` is a file.
    TypeError
        When ``data_home`` is not a path or ``log`` is not True or False.

    Examples
    --------
    >>> ds = load_srbct(log=True)                        # doctest: +SKIP
    >>> ds.X.shape                                       # doctest: +SKIP
    (83, 2308)
    """
    return _load_paper_data("srbct", data_home, log)


def load_colon(data_home=None) -> Dataset:
    """The colon data (Alon et al. 1999): 62 tissues x 2000 genes, normal (22) vs tumour (40).

    Parameters
    ----------
    data_home : path-like, optional
        Folder with ``colon_X.csv.gz``, ``colon_y.csv.gz`` and ``colon_genes.csv.gz`` (the only
        place looked in). By default ``$SELBAYES_DATA``, then :func:`default_data_home`, then
        a download of the original R file (plsgenomics 1.5-3, pinned URL, sha256 checked) into
        the user data folder, done once.

    Returns
    -------
    Dataset
        Intensities; ``y`` holds "normal" and "tumour".

    Raises
    ------
    FileNotFoundError
        When the files are missing and cannot be downloaded (the message says where they
        were looked for, why the download failed, and names ``SELBAYES_DATA``).
    ValueError
        When the files do not have the colon data's shapes or class counts, or ``data_home``
        is a file.
    TypeError
        When ``data_home`` is not a path.

    Examples
    --------
    >>> ds = load_colon()                                # doctest: +SKIP
    >>> ds.y.value_counts().to_dict()                    # doctest: +SKIP
    {'tumour': 40, 'normal': 22}
    """
    return _load_paper_data("colon", data_home)


# ---------------------------------------------------------------------------------------------
# the benchmark data sets by name
# ---------------------------------------------------------------------------------------------
__all__ += ["load_dataset", "BenchmarkDataset", "BENCHMARK_SETS"]

#: Default preprocessing of each named set: ``transform`` "log2" (``floor``/``ceiling`` as in
#: :class:`selbayes.preprocessing.IntensityLog2`) or "none" (stored on a log scale already).
BENCHMARK_SETS = {
    "borovecki": {"transform": "log2", "floor": 1.0, "ceiling": None,
                  "scale": "Affymetrix intensities, 0.1 to 85550",
                  "cite": "Borovecki F. et al. (2005), PNAS 102:11023-11028"},
    "chowdary": {"transform": "log2", "floor": 1.0, "ceiling": None,
                 "scale": "intensities, 0 to 18710",
                 "cite": "Chowdary D. et al. (2006), J Mol Diagn 8:31-39",
                 # the paper compared two ways of preserving the same tumours; the copy keeps
                 # each tumour's two samples in adjacent rows (same class in all 52 pairs)
                 "design": "52 tumours, each measured twice (snap-frozen and RNAlater): "
                           "samples 2i - 1 and 2i are one tumour (chowdary_1 and chowdary_2, "
                           "...); run_benchmark(groups=...) keeps a tumour in one fold"},
    "golub": {"transform": "log2", "floor": 100.0, "ceiling": 16000.0,
              "scale": "Affymetrix average differences, -28400 to 71370 (29% <= 0); floor 100 "
                       "and ceiling 16000 as in Dudoit, Fridlyand and Speed (2002)",
              "cite": "Golub T. R. et al. (1999), Science 286:531-537"},
    "gravier": {"transform": "none", "floor": None, "ceiling": None,
                "scale": "log ratios, -4.9 to 2.9",
                "cite": "Gravier E. et al. (2010), Genes Chromosomes Cancer 49:1125-1134"},
    "nakayama": {"transform": "log2", "floor": 1.0, "ceiling": None,
                 "scale": "intensities, 0.1 to 53930",
                 "cite": "Nakayama R. et al. (2007), Mod Pathol 20:749-759"},
    "pomeroy": {"transform": "none", "floor": None, "ceiling": None,
                "scale": "transformed values, -18 to 49.7",
                "cite": "Pomeroy S. L. et al. (2002), Nature 415:436-442"},
    "singh": {"transform": "log2", "floor": 10.0, "ceiling": 16000.0,
              "scale": "Affymetrix average differences, -1807 to 17530 (33% <= 0)",
              "cite": "Singh D. et al. (2002), Cancer Cell 1:203-209"},
    "sorlie": {"transform": "none", "floor": None, "ceiling": None,
               "scale": "log ratios, -9.3 to 9.5",
               "cite": "Sorlie T. et al. (2001), PNAS 98:10869-10874"},
    "subramanian": {"transform": "none", "floor": None, "ceiling": None,
                    "scale": "log-scale values, -1.5 to 15.1",
                    "cite": "Subramanian A. et al. (2005), PNAS 102:15545-15550"},
    "srbct": {"transform": "log2", "floor": None, "ceiling": None,
              "scale": "cDNA expression ratios, 0.0025 to 32.7 (positive)",
              "cite": "Khan J. et al. (2001), Nature Medicine 7:673-679"},
    "colon": {"transform": "log2", "floor": 1.0, "ceiling": None,
              "scale": "Affymetrix intensities, 5.8 to 20900",
              "cite": "Alon U. et al. (1999), PNAS 96:6745-6750"},
}
MICROARRAY_FOLDER = "microarray"


@dataclass(repr=False)
class BenchmarkDataset(Dataset):
    """A :class:`Dataset` with its recorded default preprocessing.

    Attributes
    ----------
    preprocessing : dict
        ``{"transform": "log2" | "none", "floor": float | None, "ceiling": float | None}``:
        the default preprocessing of this set (see :data:`BENCHMARK_SETS`).
    preprocessed : bool
        Whether ``X`` already holds the preprocessed values (False: the stored scale).
    notes : list of str
        What was said about the data when it was read (warnings), repeated in a benchmark's
        report.

    Examples
    --------
    >>> import pandas as pd
    >>> ds = BenchmarkDataset(X=pd.DataFrame({"g": [10.0, 1000.0]}), y=pd.Series(["a", "b"]),
    ...                       preprocessing={"transform": "log2", "floor": 1.0, "ceiling": None})
    >>> ds.transformer().fit_transform(ds.X)["g"].round(3).tolist()
    [3.322, 9.966]
    """

    preprocessing: dict = field(default_factory=lambda: {"transform": "none", "floor": None,
                                                         "ceiling": None})
    preprocessed: bool = False
    notes: list = field(default_factory=list)

    def transformer(self):
        """The default preprocessing as a transformer (``"passthrough"`` for "none").

        Returns
        -------
        selbayes.preprocessing.IntensityLog2 or str
        """
        if self.preprocessing["transform"] == "none":
            return "passthrough"
        from ..preprocessing._intensity import IntensityLog2

        return IntensityLog2(floor=self.preprocessing["floor"],
                             ceiling=self.preprocessing["ceiling"])


def _find_microarray(name: str, data_home) -> Path:
    files = [f"{name}_X.csv.gz", f"{name}_y.csv.gz"]
    if data_home is not None:
        bases = [data_home]
    else:
        bases = [Path(os.environ[ENV_VAR]).expanduser()] if os.environ.get(ENV_VAR) else []
        bases.append(default_data_home())
    tried = []
    for base in bases:
        for folder in (base, base / MICROARRAY_FOLDER):
            tried.append(str(folder))
            if all((folder / f).is_file() for f in files):
                return folder
    raise FileNotFoundError(
        f"the {name} data files {files} were not found in {tried}. They come from the R data "
        "package datamicroarray 0.2.3 (github.com/ramhiser/datamicroarray); write each set's "
        "x and y as <name>_X.csv.gz (samples x genes, header of gene names) and <name>_y.csv.gz "
        f"(one column y) into a folder and pass it as data_home= or set ${ENV_VAR}.")


def _download_microarray(key: str, meta: dict) -> Dataset:
    """A datamicroarray set from its original R file (selbayes.datasets._download), named as the CSV
    copies are (samples ``<key>_1`` ...)."""
    from ._download import load_rdata

    base = load_rdata(key)
    base.X.index = pd.Index([f"{key}_{i + 1}" for i in range(base.n_samples)], name="sample")
    base.y.index = base.X.index
    base.description = (f"{key}: {meta['cite']}. {base.n_samples} samples x {base.n_genes} "
                        f"genes. Stored scale: {meta['scale']}. Downloaded from the R package "
                        "datamicroarray 0.2.3 (pinned commit, sha256 checked).")
    return base


def load_dataset(name: str, data_home=None, *, preprocess: bool = True) -> BenchmarkDataset:
    """One of the eleven benchmark expression sets by name, with its default preprocessing.

    The nine sets of the R package datamicroarray (borovecki, chowdary, golub, gravier,
    nakayama, pomeroy, singh, sorlie, subramanian) plus "srbct" (:func:`load_srbct`) and
    "colon" (:func:`load_colon`). Their stored scales differ; the default preprocessing
    (:data:`BENCHMARK_SETS`) puts each on a log scale:

    * intensities (borovecki, chowdary, nakayama, colon): floor 1, log2;
    * Affymetrix average differences with negatives: golub floor 100, ceiling 16000, log2
      (Dudoit et al. 2002); singh floor 10, ceiling 16000, log2;
    * SRBCT ratios (positive): log2;
    * gravier, pomeroy, sorlie, subramanian: stored on a log scale, unchanged.

    The transform is elementwise and learns nothing, so preprocessing before cross-validation
    is the same as preprocessing inside each training fold.

    The nine datamicroarray sets are read from ``<name>_X.csv.gz`` / ``<name>_y.csv.gz`` in
    ``data_home``, ``$SELBAYES_DATA`` (or its ``microarray/`` folder) or the user data folder;
    when ``data_home`` is not given and no copy is found, the original R file is downloaded
    once from its pinned public URL (sha256 checked) into the user data folder.

    Parameters
    ----------
    name : str
        One of the keys of :data:`BENCHMARK_SETS`.
    data_home : path-like, optional
        Folder holding ``<name>_X.csv.gz`` and ``<name>_y.csv.gz`` (or its ``microarray/``
        subfolder does); by default ``$SELBAYES_DATA``, then :func:`default_data_home`.
    preprocess : bool, default True
        Apply the default preprocessing; False returns the stored scale (the preprocessing is
        still recorded, and :meth:`BenchmarkDataset.transformer` builds it).

    Returns
    -------
    BenchmarkDataset
        ``X`` (DataFrame, samples x genes, gene names as columns), ``y`` (Series of class
        names as strings), ``preprocessing`` and ``preprocessed``.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones; case and surrounding spaces
        do not matter), or a ``data_home`` that is a file.
    TypeError
        When ``name`` is not a str, ``data_home`` not a path, or ``preprocess`` not True or
        False.
    FileNotFoundError
        When the files are missing (the message says where they come from).

    References
    ----------
    Dudoit S., Fridlyand J. and Speed T. P. (2002), JASA 97:77-87. The data papers are cited in
    each set's ``description``.

    Examples
    --------
    >>> ds = load_dataset("golub")                          # doctest: +SKIP
    >>> ds.X.shape, ds.preprocessing["floor"]               # doctest: +SKIP
    ((72, 7129), 100.0)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {', '.join(sorted(BENCHMARK_SETS))}; got "
                        f"{type(name).__name__} {name!r}")
    preprocess = check_flag(preprocess, "preprocess")
    data_home = _data_home(data_home)
    key = name.strip().lower()
    if key not in BENCHMARK_SETS:
        raise ValueError(f"unknown data set {name!r}; known: {', '.join(sorted(BENCHMARK_SETS))}")
    meta = BENCHMARK_SETS[key]
    if key == "srbct":
        base = load_srbct(data_home)
    elif key == "colon":
        base = load_colon(data_home)
    else:
        try:
            folder = _find_microarray(key, data_home)
        except FileNotFoundError as not_found:
            if data_home is not None:             # an explicit folder: never download
                raise
            # Not in $SELBAYES_DATA or the user data folder: fetch the original R file once
            # (pinned public URL, sha256 checked) into the user data folder.
            from ._download import DownloadError, registry

            try:
                base = _download_microarray(key, meta)
            except DownloadError as exc:
                # the download's message alone hid where the copies were looked for (and told
                # the user to set SELBAYES_DATA when it was set); as the papers' sets say it
                raise FileNotFoundError(
                    f"{not_found} The download of the original file failed too: {exc}. "
                    f"Offline, set {ENV_VAR} to a folder holding these files or the original "
                    f"{registry()[key]['file']}.") from exc
        else:
            with reading_data_file(folder / f"{key}_X.csv.gz", key):
                X = pd.read_csv(folder / f"{key}_X.csv.gz")
            # read as text with NaN kept: astype(str) made a missing label the class "nan"
            # on pandas 2 (the check of missing labels never saw it)
            with reading_data_file(folder / f"{key}_y.csv.gz", key):
                y = pd.read_csv(folder / f"{key}_y.csv.gz", dtype=str).iloc[:, 0]
            X.index = pd.Index([f"{key}_{i + 1}" for i in range(len(X))], name="sample")
            base = _validated(X, y, drop_missing=False,
                              source=str(folder / f"{key}_X.csv.gz"), name=key)
            base.description = (f"{key}: {meta['cite']}. {base.n_samples} samples x "
                                f"{base.n_genes} genes. Stored scale: {meta['scale']}. Copy: R "
                                f"package datamicroarray 0.2.3. Read from {folder}.")
    pre = {k: meta[k] for k in ("transform", "floor", "ceiling")}
    description = base.description + (f" Design: {meta['design']}." if "design" in meta
                                       else "")
    ds = BenchmarkDataset(X=base.X, y=base.y.astype(str), description=description,
                          name=key, genes=base.genes, preprocessing=pre)
    if preprocess and pre["transform"] != "none":
        ds.X = ds.transformer().set_output(transform="pandas").fit_transform(ds.X)
        ds.preprocessed = True
        ds.description += (f" Preprocessed: log2 of the values clipped to [{pre['floor']}, "
                           f"{pre['ceiling']}].")
    elif preprocess:
        ds.preprocessed = True
    return ds
