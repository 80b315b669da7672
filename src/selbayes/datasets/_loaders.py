"""Gene-expression data sets: the papers' public data and the user's own matrices.

Every reader returns a :class:`Dataset`: ``X`` (pandas DataFrame, samples x genes, gene
identifiers as columns), ``y`` (pandas Series of class names, one per sample) and a
``description``. The same checks run on every source, so bad data fails early with a message
naming the problem: missing values, non-numeric or infinite entries, duplicated gene names,
missing labels and classes with a single member. Nothing is dropped silently: with
``drop_missing="genes"`` or ``"samples"`` the dropped names are listed in ``Dataset.dropped``
and in a warning.

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

import csv
import io
import os
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["Dataset", "load_srbct", "load_colon", "read_table", "read_anndata",
           "default_data_home", "find_data_home", "PROVENANCE"]

ENV_VAR = "SELBAYES_DATA"
DROP_CHOICES = (False, "genes", "samples")

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


@dataclass
class Dataset:
    """A labelled expression matrix.

    Attributes
    ----------
    X : pandas.DataFrame of shape (n_samples, n_genes)
        Expression values (float64); columns are gene identifiers (unique strings), the index
        holds sample names.
    y : pandas.Series of shape (n_samples,)
        Class name of each sample, indexed like ``X``.
    description : str
        What the data are, where they come from, and what to cite.
    name : str
    genes : pandas.DataFrame, optional
        Gene annotation indexed by the columns of ``X``.
    dropped : dict
        ``{"genes": [...], "samples": [...]}``: what ``drop_missing`` removed (empty lists
        when nothing was dropped).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"g1": [1.0, 2.0, 3.0, 4.0], "g2": [0.5, 0.1, 0.2, 0.3]})
    >>> y = pd.Series(["a", "a", "b", "b"])
    >>> ds = Dataset(X=X, y=y, name="toy")
    >>> ds
    Dataset(toy: 4 samples x 2 genes; classes {a: 2, b: 2})
    >>> ds.classes.tolist()
    ['a', 'b']
    """

    X: pd.DataFrame
    y: pd.Series
    description: str = ""
    name: str = ""
    genes: pd.DataFrame | None = None
    dropped: dict = field(default_factory=lambda: {"genes": [], "samples": []})

    @property
    def classes(self) -> np.ndarray:
        """Sorted class names (the column order of every selbayes estimator's ``predict_proba``).

        Returns
        -------
        numpy.ndarray of shape (n_classes,)
        """
        return np.unique(self.y.to_numpy())

    @property
    def n_samples(self) -> int:
        """Number of samples (rows of ``X``)."""
        return int(self.X.shape[0])

    @property
    def n_genes(self) -> int:
        """Number of genes (columns of ``X``)."""
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        counts = ", ".join(f"{c}: {n}" for c, n in self.y.value_counts(sort=False)
                           .sort_index().items())
        return (f"Dataset({self.name or 'unnamed'}: {self.n_samples} samples x {self.n_genes} "
                f"genes; classes {{{counts}}})")


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

    Examples
    --------
    >>> find_data_home("srbct", data_home="/nonexistent")
    Traceback (most recent call last):
    ...
    FileNotFoundError: the srbct data files [...] were not found. ...
    """
    files = _file_names(name)
    if data_home is not None:
        candidates = [("data_home", Path(data_home).expanduser())]
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
    X = pd.read_csv(fx)
    y = pd.read_csv(fy)
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

    with warnings.catch_warnings():
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
        When the files do not have the SRBCT shapes or class counts, or ``log=True`` meets a
        non-positive value.

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
        When the files do not have the colon data's shapes or class counts.

    Examples
    --------
    >>> ds = load_colon()                                # doctest: +SKIP
    >>> ds.y.value_counts().to_dict()                    # doctest: +SKIP
    {'tumour': 40, 'normal': 22}
    """
    return _load_paper_data("colon", data_home)


# ---------------------------------------------------------------------------------------------
# validation shared by every reader
# ---------------------------------------------------------------------------------------------
def _names(items, limit: int = 5) -> str:
    items = [str(i) for i in items]
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(repr(i) for i in items[:limit]) + more


def _check_drop(drop_missing):
    if drop_missing not in DROP_CHOICES:
        raise ValueError(f"drop_missing must be one of {list(DROP_CHOICES)}; got "
                         f"{drop_missing!r}")


def _numeric_genes(frame: pd.DataFrame, source: str, hint: str) -> pd.DataFrame:
    """``frame`` with unique string gene names; TypeError naming non-numeric (or bool) columns.

    ``hint`` ends the TypeError message: what the caller's input most likely got wrong.
    """
    frame = frame.set_axis(_unique_gene_names(frame.columns, source), axis=1)
    # judged once per distinct dtype, not once per column: a file of 20 000 genes has one or
    # two dtypes, and a column lookup per gene took seconds
    dtypes = frame.dtypes
    bad = [d for d in dtypes.unique() if not pd.api.types.is_numeric_dtype(d)
           or pd.api.types.is_bool_dtype(d)]
    non_numeric = list(frame.columns[dtypes.isin(bad).to_numpy()]) if bad else []
    if non_numeric:
        raise TypeError(f"{source}: {len(non_numeric)} non-numeric gene column(s): "
                        f"{_names(non_numeric)}{hint}")
    return frame


def _validated(X: pd.DataFrame, y: pd.Series, *, drop_missing, source: str, name: str = "",
               description: str = "", label_source: str | None = None,
               genes_hint: str | None = None, can_drop: bool = True) -> Dataset:
    """Check an expression frame and its labels; drop (and report) only when asked to.
    ``label_source`` names the labels in messages about classes (default: ``source``);
    ``genes_hint`` ends the message about non-numeric genes (default: a label column among
    them); ``can_drop=False`` (a caller without ``drop_missing``) names the label file in the
    message about missing labels instead of suggesting the option."""
    _check_drop(drop_missing)
    X = _numeric_genes(X, source, genes_hint or " (is a label or annotation column among the "
                                                "genes? name it with label_column=)")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{source}: no data (shape {X.shape})")
    if len(y) != X.shape[0]:
        raise ValueError(f"{source}: {len(y)} labels for {X.shape[0]} samples")
    values = X.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(values).any():
        i, j = np.argwhere(np.isinf(values))[0]
        raise ValueError(f"{source}: {int(np.isinf(values).sum())} infinite value(s), first in "
                         f"sample {X.index[i]!r}, gene {X.columns[j]!r}")
    y = pd.Series(y.to_numpy(), index=X.index, name=y.name or "class")
    y_missing = y.isna().to_numpy() | (y.astype(str).str.strip() == "").to_numpy()
    missing = np.isnan(values)
    dropped = {"genes": [], "samples": []}
    if missing.any() or y_missing.any():
        bad_genes = X.columns[missing.any(axis=0)]
        if drop_missing == "samples":
            keep = ~(missing.any(axis=1) | y_missing)
            dropped["samples"] = [str(s) for s in X.index[~keep]]
            X, y = X.loc[keep], y.loc[keep]
        elif drop_missing == "genes" and not y_missing.any():
            dropped["genes"] = [str(g) for g in bad_genes]
            X = X.loc[:, ~missing.any(axis=0)]
        else:
            parts = []
            if missing.any():
                parts.append(f"{int(missing.sum())} missing expression value(s) in "
                             f"{len(bad_genes)} gene(s) ({_names(bad_genes)}) and "
                             f"{int(missing.any(axis=1).sum())} sample(s)")
            if y_missing.any():
                parts.append(f"{int(y_missing.sum())} missing label(s) (samples "
                             f"{_names(X.index[y_missing])})")
            if not can_drop:
                # read_xy: the labels come from their own file, and it drops nothing
                raise ValueError(f"{label_source or source}: {'; '.join(parts)}; give every "
                                 f"sample a label, or remove those samples from both files")
            hint = ("drop_missing='samples' drops the samples" if y_missing.any() else
                    "drop_missing='genes' or 'samples' drops them (and reports what it dropped)")
            raise ValueError(f"{source}: {'; '.join(parts)}. Impute them first, or {hint}.")
        if not X.shape[0] or not X.shape[1]:
            raise ValueError(f"{source}: dropping missing values left no data (shape {X.shape})")
        what = "; ".join(f"{len(v)} {k} ({_names(v)})" for k, v in dropped.items() if v)
        warnings.warn(f"{source}: drop_missing={drop_missing!r} dropped {what}; the list is in "
                      "Dataset.dropped", UserWarning, stacklevel=3)
    _check_classes(y, label_source or source)
    # one float64 block: a frame read from a wide file holds a block per column, which makes
    # every later pandas or scikit-learn step over it slow (seconds at 20 000 genes)
    X = pd.DataFrame(X.to_numpy(dtype=np.float64, na_value=np.nan), index=X.index,
                     columns=X.columns)
    return Dataset(X=X, y=y, description=description, name=name, dropped=dropped)


def _unique_gene_names(columns, source: str) -> pd.Index:
    """Column names as strings, or a ValueError naming the repeated ones."""
    columns = pd.Index([str(c) for c in columns])
    if columns.has_duplicates:
        dups = columns[columns.duplicated()].unique()
        raise ValueError(f"{source}: {len(dups)} duplicated gene name(s): {_names(dups)}; gene "
                         "names must be unique (rename or aggregate the repeated probes)")
    return columns


def _check_classes(y: pd.Series, source: str) -> None:
    """At least two classes, each with at least two samples."""
    classes, counts = np.unique(y.astype(str).to_numpy(), return_counts=True)
    if len(classes) < 2:
        raise ValueError(f"{source}: the labels hold {len(classes)} class ({_names(classes)}); "
                         "classification needs at least 2")
    single = classes[counts < 2]
    if len(single):
        raise ValueError(f"{source}: class(es) with a single sample: {_names(single)}; every "
                         "class needs at least 2 samples (merge or remove those samples)")


# ---------------------------------------------------------------------------------------------
# the user's own files
# ---------------------------------------------------------------------------------------------
def _sep_for(path: Path) -> str | None:
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".bz2", ".xz",
                                                                       ".zip", ".zst")]
    last = suffixes[-1] if suffixes else ""
    return {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}.get(last)


def _header(path: Path, sep: str | None) -> tuple[list[str], str]:
    """The raw header cells (pandas renames duplicates, so they are read separately)."""
    from pandas.io.common import get_handle

    with get_handle(path, "r", compression="infer", encoding="utf-8") as handles:
        first = handles.handle.readline()
    if sep is None:
        try:
            sep = csv.Sniffer().sniff(first, delimiters=",\t;| ").delimiter
        except csv.Error as exc:
            raise ValueError(f"{path}: could not infer the column separator; pass sep=") from exc
    cells = next(csv.reader(io.StringIO(first), delimiter=sep), [])
    return [c.strip() for c in cells], sep


def read_table(path, label_column, *, sep: str | None = None, index_column=None,
               drop_missing=False, name: str = "", description: str = "") -> Dataset:
    """Read a samples x genes CSV/TSV file with one label column.

    Parameters
    ----------
    path : path-like
        The file (``.csv``, ``.tsv``, ``.tab`` or ``.txt``, optionally compressed: ``.gz``,
        ``.bz2``, ``.xz``, ``.zip``); one row per sample, a header row with the gene names.
    label_column : str
        Name of the column holding the class labels.
    sep : str, optional
        Column separator; by default from the file extension, or sniffed from the header.
    index_column : str, optional
        Column of sample names. Default: the first column when its header is empty (what
        pandas' ``to_csv`` and R's ``write.csv`` write over row names) or one of ``sample``,
        ``id``, ``sample_id``, ``name``, ``cell``, ``barcode`` (as :func:`read_matrix`), else
        the row numbers.
    drop_missing : {False, "genes", "samples"}
        False (default): missing values are an error. "genes": drop the genes with any missing
        value; "samples": drop the samples with any missing value or a missing label. What was
        dropped is listed in ``Dataset.dropped`` and in a ``UserWarning``.
    name, description : str
        Stored on the result.

    Returns
    -------
    Dataset

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        A ``label_column``/``index_column`` that is not in the header, or equal to each other;
        missing values (unless dropped), duplicated gene names or sample ids, infinite values,
        fewer than 2 classes, or a class with one sample; the message names them.
    TypeError
        Non-numeric gene columns.

    Examples
    --------
    >>> ds = read_table("expression.tsv", label_column="tissue")   # doctest: +SKIP
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path {str(path)!r} does not exist")
    header, sep = _header(path, sep if sep is not None else _sep_for(path))
    for arg, col in (("label_column", label_column), ("index_column", index_column)):
        if col is not None and col not in header:
            raise ValueError(f"{arg}={col!r} is not a column of {path}; the columns start "
                             f"{header[:6]}")
    if label_column == index_column:
        raise ValueError("label_column and index_column must differ")
    gene_names = [c for c in header if c not in (label_column, index_column)]
    dups = pd.Index(gene_names)
    if dups.has_duplicates:
        d = dups[dups.duplicated()].unique()
        raise ValueError(f"{path}: {len(d)} duplicated gene name(s): {_names(d)}; gene names "
                         "must be unique (rename or aggregate the repeated probes)")
    frame = pd.read_csv(path, sep=sep, header=None, names=header, skiprows=1,
                        dtype={label_column: str}, keep_default_na=True, skipinitialspace=True)
    if index_column is None and label_column != header[0] and _is_id_header(header[0]):
        # A first column without a name (what pandas' to_csv and R's write.csv put over the
        # row names) or named like sample ids holds ids, as read_matrix reads it; read as a
        # gene it would be a silent wrong feature when its ids are numbers.
        index_column = header[0]
    hint = None
    if index_column is not None:
        index = _sample_index(frame.pop(index_column), path, f" in column {index_column!r}")
        frame.index = index
    else:
        frame.index = pd.Index([str(i) for i in range(len(frame))], name="sample")
        if header[0] != label_column and _is_id_column(header[0], frame[header[0]]):
            # e.g. a "patient" column of names: say which option reads it, not only that it
            # is not numeric
            hint = (f" (the first column, {header[0]!r}, looks like sample ids: give "
                    f"index_column={header[0]!r})")
    y = frame.pop(label_column)
    return _validated(frame, y, drop_missing=drop_missing, source=str(path), name=name or
                      path.name, description=description or f"Read from {path}.",
                      genes_hint=hint)


def read_anndata(adata, label_key, *, layer: str | None = None, genes=None, dense: bool = True,
                 drop_missing=False, name: str = "", description: str = "") -> Dataset:
    """Read an AnnData object or ``.h5ad`` file: cells/samples x genes, labels from ``obs``.

    Needs the optional extra: ``pip install 'selbayes[anndata]'``.

    Parameters
    ----------
    adata : anndata.AnnData or path-like
        The object a scanpy user holds, or an ``.h5ad`` file.
    label_key : str
        Column of ``adata.obs`` holding the class labels.
    layer : str, optional
        Use ``adata.layers[layer]`` instead of ``adata.X``.
    genes : sequence of str, optional
        Keep only these ``var_names`` (in this order). A sparse matrix is subset before it is
        made dense, so only these columns are ever densified.
    dense : bool
        True (default): ``X`` is an ordinary (dense) DataFrame, which the classifiers take.
        False: a sparse matrix stays sparse (a DataFrame of pandas ``SparseDtype`` columns;
        ``X.sparse.to_coo()`` gives the scipy matrix); checks run on the stored entries only.
        Ignored for a dense matrix.
    drop_missing : {False, "genes", "samples"}
        As in :func:`read_table` (dense results only).
    name, description : str
        Stored on the result (default: the file name or "anndata", and "Read from ...").

    Returns
    -------
    Dataset
        Columns are ``adata.var_names`` (or ``genes``), the index ``adata.obs_names``.

    Raises
    ------
    ImportError
        When ``anndata`` is not installed.
    FileNotFoundError
        When a path does not exist.
    ValueError
        An unknown ``label_key``, ``layer`` or gene, or the data problems listed in
        :func:`read_table`.
    TypeError
        When ``adata`` is neither an AnnData nor a path, or the matrix is not numeric.

    Examples
    --------
    >>> ds = read_anndata(adata, label_key="cell_type")                 # doctest: +SKIP
    >>> ds = read_anndata("cells.h5ad", label_key="cell_type", layer="logcounts",
    ...                   genes=marker_genes)                            # doctest: +SKIP
    """
    try:
        import anndata
    except ImportError as exc:
        raise ImportError("read_anndata needs the package 'anndata', which is not installed; "
                          "install the optional extra: pip install 'selbayes[anndata]'") from exc
    import scipy.sparse as sp

    if isinstance(adata, anndata.AnnData):
        source = name or "AnnData"
    elif isinstance(adata, str | os.PathLike):
        path = Path(adata)
        if not path.is_file():
            raise FileNotFoundError(f"path {str(path)!r} does not exist")
        source = str(path)
        name = name or path.name
        adata = anndata.read_h5ad(path)
    else:
        raise TypeError(f"adata must be an anndata.AnnData or a path to an .h5ad file; got "
                        f"{type(adata).__name__}")
    if label_key not in adata.obs:
        raise ValueError(f"label_key={label_key!r} is not a column of obs in {source}; obs has "
                         f"{_names(list(adata.obs.columns), 10)}")
    if layer is not None and layer not in [k for k in adata.layers.keys() if k is not None]:
        # anndata >= 0.12 lists X among the layers under the key None: not a layer name
        available = [str(k) for k in adata.layers.keys() if k is not None]
        raise ValueError(f"layer={layer!r} is not in {source}; its layers are "
                         f"{_names(available, 10) if available else 'none'} (leave layer "
                         "unset to use X)")
    matrix = adata.X if layer is None else adata.layers[layer]
    var_names = pd.Index(adata.var_names.astype(str))
    if genes is not None:
        genes = [str(g) for g in genes]
        pos = var_names.get_indexer(genes)
        if (pos < 0).any():
            missing = [g for g, i in zip(genes, pos, strict=True) if i < 0]
            raise ValueError(f"{source}: {len(missing)} gene(s) not in var_names: "
                             f"{_names(missing)}")
        matrix = matrix[:, pos]                 # subset first: a sparse matrix stays sparse
        var_names = pd.Index(genes)
    index = pd.Index(adata.obs_names.astype(str), name="sample")
    y = pd.Series(np.asarray(adata.obs[label_key].astype(object)), index=index, name=label_key)
    dtype = matrix.dtype
    if not (np.issubdtype(dtype, np.number) and not np.issubdtype(dtype, np.bool_)):
        raise TypeError(f"{source}: the expression matrix has non-numeric dtype {dtype}")
    description = description or f"Read from {source}."
    if sp.issparse(matrix) and not dense:
        return _sparse_dataset(sp.csc_matrix(matrix, dtype=np.float64), index, var_names, y,
                               source=source, name=name or "anndata",
                               description=description)
    if sp.issparse(matrix):
        matrix = matrix.toarray()               # only the requested genes, if any
    frame = pd.DataFrame(np.asarray(matrix), index=index, columns=list(var_names))
    return _validated(frame, y, drop_missing=drop_missing, source=source,
                      name=name or "anndata", description=description)


def _sparse_dataset(matrix, index, columns, y, *, source: str, name: str,
                    description: str) -> Dataset:
    """A Dataset whose X keeps a scipy sparse matrix sparse; the checks of :func:`_validated`
    run on the stored entries (implicit zeros are finite)."""
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"{source}: no data (shape {matrix.shape})")
    columns = _unique_gene_names(columns, source)
    if not np.isfinite(matrix.data).all():
        raise ValueError(f"{source}: {int((~np.isfinite(matrix.data)).sum())} missing or "
                         "infinite stored value(s); impute them first, or use dense=True "
                         "with drop_missing")
    y_missing = y.isna().to_numpy() | (y.astype(str).str.strip() == "").to_numpy()
    if y_missing.any():
        raise ValueError(f"{source}: {int(y_missing.sum())} missing label(s) (samples "
                         f"{_names(index[y_missing])})")
    _check_classes(y, source)
    X = pd.DataFrame.sparse.from_spmatrix(matrix, index=index, columns=list(columns))
    return Dataset(X=X, y=y, description=description, name=name,
                   dropped={"genes": [], "samples": []})


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
        bases = [Path(data_home).expanduser()]
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
        For an unknown name (the message lists the known ones).
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
    key = str(name).lower()
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
        except FileNotFoundError:
            if data_home is not None:             # an explicit folder: never download
                raise
            # Not in $SELBAYES_DATA or the user data folder: fetch the original R file once
            # (pinned public URL, sha256 checked) into the user data folder.
            base = _download_microarray(key, meta)
        else:
            X = pd.read_csv(folder / f"{key}_X.csv.gz")
            y = pd.read_csv(folder / f"{key}_y.csv.gz").iloc[:, 0].astype(str)
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


# ---------------------------------------------------------------------------------------------
# the common layout: one file of X, one file of labels
# ---------------------------------------------------------------------------------------------
__all__ += ["read_xy", "read_matrix", "align_labels", "check_matrix_frame", "groups_for_matrix"]

# Header cells of a first column that holds sample ids, not a gene (lower case; "" is the empty
# cell pandas' to_csv writes above its index).
_ID_HEADERS = ("", "sample", "samples", "id", "sample_id", "sampleid", "sample_name", "name",
               "cell", "cell_id", "barcode")


def _read_csv(path: Path, sep, **kwargs) -> pd.DataFrame:
    """pandas.read_csv with its errors turned into one sentence that names the file."""
    try:
        return pd.read_csv(path, sep=sep, engine="python" if sep is None else "c", **kwargs)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file is empty (no header row, no data)") from None
    except pd.errors.ParserError as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ValueError(f"{path}: not a readable table ({detail}); expected one header row "
                         "and one row per sample, all with the same number of cells") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text table (it is binary or not UTF-8)") from None


def _is_id_header(header) -> bool:
    """A first column's header that names sample ids (or no name at all), not a gene."""
    name = str(header).strip()
    return name.lower() in _ID_HEADERS or name.startswith("Unnamed:")


#: Words that, as a whole word of a first column's header ("patient_id", "Case No"), name an
#: identifier; with distinct whole-number values the column holds ids, not a gene (a gene
#: symbol such as ID1 is one word, not the word "id").
_ID_WORDS = frozenset({"id", "ids", "sample", "patient", "subject", "case", "index", "idx",
                       "no", "nr", "number", "num"})


def _is_id_column(header: str, values: pd.Series) -> bool:
    if _is_id_header(header) or not pd.api.types.is_numeric_dtype(values):
        return True
    # Numbered patients ("patient_id" 101, 102, ...) read as a gene would be a feature that
    # tracks the file's order, which is often the class order: a silent leak
    words = {w for w in "".join(c if c.isalnum() else " " for c in str(header).lower()).split()}
    v = values.to_numpy(dtype=np.float64, na_value=np.nan)
    return bool(words & _ID_WORDS) and bool(np.all(np.isfinite(v))) \
        and bool(np.all(v == np.round(v))) and len(np.unique(v)) == len(v)


def _sample_index(ids: pd.Series, source, where: str = "") -> pd.Index:
    """The sample ids as the frames' index (str, named "sample"); duplicated ids are a
    ValueError naming them (``where``: which column of ``source`` held them)."""
    ids = ids.astype(str)
    if ids.duplicated().any():
        raise ValueError(f"{source}: {int(ids.duplicated().sum())} duplicated sample id(s)"
                         f"{where}: {_names(ids[ids.duplicated()].unique())}")
    return pd.Index(ids.to_numpy(), name="sample")


def read_matrix(path, *, sep: str | None = None) -> pd.DataFrame:
    """Read a samples x genes CSV/TSV file (no labels) into a checked DataFrame.

    The first column holds sample ids when its header is empty (what pandas' ``to_csv`` writes
    over an index) or one of ``sample``, ``id``, ``sample_id``, ``name``, ``cell``,
    ``barcode``, or when its values are not numbers, or when its header has a word such as
    ``id``, ``patient``, ``case`` or ``no`` and its values are distinct whole numbers
    (``patient_id`` 101, 102, ...; read as a gene, it would track the file's order);
    otherwise the samples are numbered ``"0"``, ``"1"``, ... in file order.

    Parameters
    ----------
    path : path-like
        ``.csv``, ``.tsv``, ``.tab`` or ``.txt``, optionally compressed (``.gz``, ``.bz2``,
        ``.xz``, ``.zip``); a header row of gene names.
    sep : str, optional
        Column separator; by default from the extension, or sniffed from the header.

    Returns
    -------
    pandas.DataFrame of shape (n_samples, n_genes)
        float64 values; gene names (str) as columns, sample ids (str) as the index.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        An empty or unreadable file, duplicated gene names or sample ids (named), missing or
        infinite values (the genes are named), no data.
    TypeError
        Non-numeric gene columns (named).

    Examples
    --------
    >>> X = read_matrix("expression.csv")                               # doctest: +SKIP
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file" if not path.is_dir()
                                else f"{path} is a folder, not a file")
    try:
        header, sep = _header(path, sep if sep is not None else _sep_for(path))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text table (it is binary or not UTF-8)") from None
    if not header or header == [""]:
        raise ValueError(f"{path}: the file is empty (no header row, no data)")
    if len(header) == 1 and sep != "\t" and "\t" in header[0]:
        # a tab-separated table saved as .csv: unambiguous (gene names hold no tabs)
        header, sep = _header(path, "\t")
    other = [c for c in ";|" if c != sep and c in header[0]]
    if len(header) == 1 and other:   # e.g. a spreadsheet's ";"-separated export as .csv
        named = {",": "comma", "\t": "tab"}.get(sep, repr(sep))
        raise ValueError(f"{path}: one column when read {named}-separated, and its header "
                         f"holds {other[0]!r}: selbayes reads comma- or tab-separated tables "
                         f"(.csv, .tsv; a .txt file's separator is sniffed among , tab ; | "
                         f"and space); convert the file, with '.' as the decimal mark")
    frame = _read_csv(path, sep, header=None, names=[f"c{i}" for i in range(len(header))],
                      skiprows=1, skipinitialspace=True)
    frame.columns = header
    if frame.shape[0] == 0:
        raise ValueError(f"{path}: a header row but no samples")
    if _is_id_column(header[0], frame.iloc[:, 0]):
        index = _sample_index(frame.iloc[:, 0], path, " in the first column")
        frame = frame.iloc[:, 1:]
        frame.index = index
        has_ids = True
    else:
        frame.index = pd.Index([str(i) for i in range(len(frame))], name="sample")
        has_ids = False
    frame = check_matrix_frame(frame, str(path))
    # Row numbers "0".."n-1" and ids "0".."n-1" (pandas' to_csv over a default index) look
    # alike; align_labels must know which it has (a label file's ids can be matched to ids only)
    frame.attrs[SAMPLE_IDS_ATTR] = has_ids
    return frame


def check_matrix_frame(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """The checks every expression matrix meets, with messages that name genes and samples.

    Parameters
    ----------
    frame : pandas.DataFrame of shape (n_samples, n_genes)
    source : str
        The file (or object) the matrix came from, for the messages.

    Returns
    -------
    pandas.DataFrame
        float64 values, gene names as strings.

    Raises
    ------
    ValueError
        Duplicated gene names, no genes, missing or infinite values (genes and samples named).
    TypeError
        Non-numeric gene columns (named).

    Examples
    --------
    >>> import pandas as pd
    >>> check_matrix_frame(pd.DataFrame({"g": [1, 2]}), "x").dtypes.tolist()
    [dtype('float64')]
    """
    frame = _numeric_genes(frame, source, "; the file must be samples x genes with one header "
                                          "row (and optionally sample ids in the first column)")
    if frame.shape[1] == 0:
        raise ValueError(f"{source}: no gene columns (only sample ids)")
    values = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        genes = frame.columns[bad.any(axis=0)]
        samples = frame.index[bad.any(axis=1)]
        n_nan, n_inf = int(np.isnan(values).sum()), int(np.isinf(values).sum())
        what = " and ".join(t for t in (f"{n_nan} missing" if n_nan else "",
                                        f"{n_inf} infinite" if n_inf else "") if t)
        raise ValueError(f"{source}: {what} value(s) in {len(genes)} gene(s) "
                         f"({_names(genes)}) of {len(samples)} sample(s) ({_names(samples)}); "
                         "impute or remove them first")
    return frame.astype(np.float64)


def _read_labels_file(path: Path, label_column, sep) -> tuple[pd.Series, bool]:
    """(labels, whether they carry sample ids) from a label file."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file" if not path.is_dir()
                                else f"{path} is a folder, not a file")
    def read(sep, **kwargs):
        # " tumour" and "tumour" are one class (spreadsheets pad cells; the ids are stripped
        # too), and so are a padded header and the label it may be
        frame = _read_csv(path, sep, dtype=str, keep_default_na=True, **kwargs)
        frame = frame.apply(lambda col: col.str.strip())
        frame.columns = [str(c).strip() for c in frame.columns]
        return frame

    if sep is None:
        sep = _sep_for(path)
    frame = read(sep)
    if frame.shape[0] == 0:
        raise ValueError(f"{path}: a header row but no labels")
    if frame.shape[1] == 1:
        # one column when read with the extension's separator, but every line holds another
        # (a spreadsheet's ";" export, a tab-separated file saved as .csv): read with that one
        for other in "\t;|":
            if other != sep and other in frame.columns[0] and frame.iloc[:, 0].fillna(
                    "").str.contains(other, regex=False).all():
                sep = other
                frame = read(sep)
                break
    if label_column is None and frame.shape[1] in (1, 2) \
            and frame.columns[-1] in set(frame.iloc[:, -1].dropna()):
        # The "header" is itself one of the labels ("0" over 0/1 labels, "tumour" over
        # tumour/normal): a file without a header row, whose first sample was read as one
        frame = read(sep, header=None)
        frame.columns = ["sample", "class"][-frame.shape[1]:]
    cols = list(frame.columns)
    if label_column is not None:
        if label_column not in cols:
            raise ValueError(f"{path}: no column {label_column!r}; its columns are "
                             f"{_names(cols, 10)}")
        if cols.index(label_column) == 0:
            return frame[label_column], False
        ids = frame.iloc[:, 0]
        labels = frame[label_column]
    elif frame.shape[1] == 1:
        return frame.iloc[:, 0], False
    elif frame.shape[1] == 2:
        ids, labels = frame.iloc[:, 0], frame.iloc[:, 1]
    else:
        raise ValueError(f"{path}: {frame.shape[1]} columns; expected one column of labels, "
                         "or two (sample id, label); name the label column to pick one")
    # pandas' to_csv of a Series writes its default index 0..n-1 under an empty header: row
    # numbers, not sample ids
    if str(cols[0]).startswith("Unnamed:") and list(ids) == [str(i) for i in range(len(ids))]:
        return labels.reset_index(drop=True), False
    return pd.Series(labels.to_numpy(), index=_sample_index(ids.astype(str).str.strip(), path),
                     name=labels.name), True


def groups_for_matrix(X: pd.DataFrame, groups_path, *, x_source: str) -> np.ndarray:
    """The group label of every row of ``X`` from a groups file laid out as a label file:
    one column in the row order of ``X``, or sample id and group matched to ``X``'s index.

    Groups mark samples that are not independent (technical replicates, two preparations of
    one tumour, several samples of one patient), for folds that keep each group whole.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_genes)
        Samples in rows, as :func:`labels_for_matrix` returns it.
    groups_path : path-like
    x_source : str
        ``X``'s file, for the messages.

    Returns
    -------
    ndarray of str, shape (n_samples,)

    Raises
    ------
    ValueError
        Naming the file: unreadable, sample ids that differ from ``X``'s, or a sample
        without a group.

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> X = pd.DataFrame({"g1": [1.0, 2.0, 3.0]}, index=["s1", "s2", "s3"])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "groups.csv"
    >>> _ = path.write_text("sample,patient\\ns3,p2\\ns1,p1\\ns2,p1\\n")
    >>> groups_for_matrix(X, path, x_source="X.csv").tolist()
    ['p1', 'p1', 'p2']
    """
    g, has_ids = _read_labels_file(Path(groups_path), None, None)
    g = align_labels(X, g, has_ids, x_source=x_source, y_source=str(groups_path))
    if g.isna().any():
        missing = [str(i) for i in g.index[g.isna()][:3]]
        raise ValueError(f"--groups {groups_path}: {int(g.isna().sum())} sample(s) of "
                         f"{x_source} without a group (e.g. {', '.join(missing)}); give "
                         "every sample one")
    return g.astype(str).to_numpy()


def labels_for_matrix(X: pd.DataFrame, y_path, *, label_column: str | None = None,
                      sep: str | None = None, x_source: str) -> tuple[pd.DataFrame, pd.Series]:
    """``(X, labels for its rows)`` from a label file, for a matrix read from ``x_source``.

    The labels are read (:func:`_read_labels_file`), ``X`` is transposed where it is plainly
    genes x samples (:func:`orient_by_labels`), the labels are put in ``X``'s row order
    (:func:`align_labels`) and a column of ``X`` that is the labels recoded is warned of
    (:func:`warn_if_labels_among_genes`): what :func:`read_xy` and ``selbayes fit`` do.

    Parameters
    ----------
    X : pandas.DataFrame
        As read by :func:`read_matrix` (or from an ``.h5ad`` file).
    y_path : path-like
    label_column, sep : str, optional
        As in :func:`read_xy`.
    x_source : str
        ``X``'s file, for the messages.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, n_genes)
    y : pandas.Series
        Indexed like ``X``; missing labels stay missing (the callers check them).

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`read_xy`.

    Examples
    --------
    >>> X, y = labels_for_matrix(read_matrix("X.csv"), "y.csv",
    ...                          x_source="X.csv")                       # doctest: +SKIP
    """
    y_source = str(y_path)
    y, has_ids = _read_labels_file(Path(y_path), label_column, sep)
    X = orient_by_labels(X, y, has_ids, x_source=x_source, y_source=y_source)
    y = align_labels(X, y, has_ids, x_source=x_source, y_source=y_source)
    if y.notna().all():
        warn_if_labels_among_genes(X, y, x_source=x_source, y_source=y_source)
    return X, y


def orient_by_labels(X: pd.DataFrame, y: pd.Series, has_ids: bool, *, x_source: str,
                     y_source: str) -> pd.DataFrame:
    """``X`` transposed when it is genes x samples by the label file's own evidence.

    A matrix with genes in rows and samples in columns (the layout of GEO series matrices)
    read as samples x genes has the label file's sample ids as its column names. When they are
    exactly its column names and none of its row names, nothing else fits: ``X`` is transposed,
    with a ``UserWarning``. Otherwise ``X`` is returned as it is (:func:`align_labels` then says
    to transpose it where the ids are only among its columns).

    Parameters
    ----------
    X : pandas.DataFrame
        As read by :func:`read_matrix`.
    y : pandas.Series
        Labels, indexed by sample id when ``has_ids``.
    has_ids : bool
    x_source, y_source : str
        File names for the warning.

    Returns
    -------
    pandas.DataFrame of shape (n_samples, n_genes)

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> Xt = pd.DataFrame({"s1": [1.0, 2.0], "s2": [3.0, 4.0], "s3": [5.0, 6.0]},
    ...                   index=["g1", "g2"])
    >>> y = pd.Series(["a", "b", "a"], index=["s2", "s1", "s3"])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     X = orient_by_labels(Xt, y, True, x_source="X.csv", y_source="y.csv")
    >>> X.shape, list(X.index)
    ((3, 2), ['s1', 's2', 's3'])
    """
    if not (has_ids and X.attrs.get(SAMPLE_IDS_ATTR, True) and X.shape[1] == len(y)
            and set(map(str, X.columns)) == set(y.index)
            and not y.index.isin([str(i) for i in X.index]).any()):
        return X
    warnings.warn(f"{x_source}: its column names are the sample ids of {y_source}, so it is "
                  f"read as genes x samples ({X.shape[0]} genes, {X.shape[1]} samples) and "
                  f"transposed", UserWarning, stacklevel=3)
    Xt = check_matrix_frame(X.T.rename_axis(index="sample", columns=None), x_source)
    Xt.index = pd.Index([str(i) for i in Xt.index], name="sample")
    Xt.attrs[SAMPLE_IDS_ATTR] = True
    return Xt


def warn_if_labels_among_genes(X: pd.DataFrame, y, *, x_source: str, y_source: str) -> list:
    """Warn when a column of ``X`` is the labels recoded (a label column left among the
    genes: every method would read the answer from it).

    A column counts when it takes exactly as many distinct values as there are classes and
    each value belongs to one class. Continuous expression values never do; in a matrix of
    few distinct values (binary features) such a column can arise by chance, so nothing is
    said there.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_genes)
    y : array-like of shape (n_samples,)
        Labels in the row order of ``X``.
    x_source, y_source : str
        File names for the warning.

    Returns
    -------
    list of str
        The columns named in the warning (empty when none).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"g1": [0.1, 0.5, 0.2, 0.9], "status": [0, 0, 1, 1]})
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     warn_if_labels_among_genes(X, ["a", "a", "b", "b"], x_source="X.csv",
    ...                                y_source="y.csv")
    ['status']
    """
    labels = pd.Series(np.asarray(y, dtype=object)).astype(str).to_numpy()
    n_classes = len(np.unique(labels))
    values = X.to_numpy(dtype=np.float64, na_value=np.nan)
    if values.size == 0 or 2 * n_classes > len(labels) \
            or len(np.unique(values[:, : min(values.shape[1], 50)])) <= n_classes:
        # classes of about one case each (any column of distinct values maps onto them), or
        # binary/ordinal features (a gene can match the classes by chance)
        return []
    ordered = np.sort(values, axis=0)
    distinct = 1 + (np.diff(ordered, axis=0) != 0).sum(axis=0)
    hits = []
    for j in np.flatnonzero(distinct == n_classes):     # few candidates, if any
        pairs = pd.DataFrame({"v": values[:, j], "c": labels}).drop_duplicates()
        if len(pairs) == n_classes:                      # one class per value
            hits.append(str(X.columns[j]))
    if hits:
        warnings.warn(f"{x_source}: column(s) {_names(hits)} hold the labels of {y_source} "
                      f"recoded (one value per class): a label column left among the genes? "
                      f"Every method would read the answer from it; remove it from "
                      f"{x_source}", UserWarning, stacklevel=3)
    return hits


def align_labels(X: pd.DataFrame, y: pd.Series, has_ids: bool, *, x_source: str,
                 y_source: str) -> pd.Series:
    """Labels in the row order of ``X``: by sample id when the label file has ids, else by
    position (the counts must agree).

    Parameters
    ----------
    X : pandas.DataFrame
        Sample ids as the index.
    y : pandas.Series
        Labels, indexed by sample id when ``has_ids``.
    has_ids : bool
    x_source, y_source : str
        File names for the messages.

    Returns
    -------
    pandas.Series
        Indexed like ``X``.

    Raises
    ------
    ValueError
        When the ids of the two files differ (one line naming a few of each side), when the
        label file has ids but ``X`` was read by :func:`read_matrix` from a file without
        sample ids (unless the label ids are its row numbers), or the counts differ.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"g": [1.0, 2.0]}, index=["s1", "s2"])
    >>> align_labels(X, pd.Series(["b", "a"], index=["s2", "s1"]), True, x_source="X.csv",
    ...              y_source="y.csv").tolist()
    ['a', 'b']
    """
    if not has_ids:
        if len(y) != X.shape[0]:
            hint = ""
            if len(y) == X.shape[1]:
                hint = (f" ({x_source} has {X.shape[1]} columns: if its rows are genes and its "
                        f"columns samples, transpose it; selbayes reads samples x genes)")
            elif len(y) == X.shape[0] - 1:
                hint = (f" (if {y_source} has no header row, its first label was read as "
                        f"one: add a header such as 'class')")
            raise ValueError(f"{y_source}: {len(y)} labels for the {X.shape[0]} samples of "
                             f"{x_source}{hint}")
        return pd.Series(y.to_numpy(), index=X.index, name=y.name or "class")
    x_ids = pd.Index([str(i) for i in X.index])
    in_columns = y.index.isin([str(c) for c in X.columns])
    if in_columns.all() and not y.index.isin(x_ids).any():
        # e.g. a GEO series matrix, genes in rows (read_xy transposes the exact case itself)
        raise ValueError(f"{x_source} has the sample ids of {y_source} ({_names(y.index, 3)}) "
                         f"as its column names: it is genes x samples, and selbayes reads "
                         f"samples x genes; transpose it (in pandas: "
                         f"pd.read_csv(path, index_col=0).T.to_csv(new_path))")
    if not X.attrs.get(SAMPLE_IDS_ATTR, True) and not x_ids.sort_values().equals(
            y.index.sort_values()):
        # X's rows are numbered only; pairing the label file's ids with them by row order
        # would be right only if both files list the samples in the same order, which
        # nothing here can check (ids that are the row numbers themselves are matched)
        raise ValueError(f"{x_source} has no sample ids (its first column is a gene), so the "
                         f"sample ids of {y_source} ({_names(y.index, 3)}) cannot be matched "
                         f"to its rows. Add the sample ids as the first column of {x_source}, "
                         f"or give {y_source} one column of labels in the row order of "
                         f"{x_source}")
    only_x = x_ids.difference(y.index, sort=False)
    only_y = y.index.difference(x_ids, sort=False)
    if len(only_x) or len(only_y):
        parts = []
        if len(only_x):
            parts.append(f"{len(only_x)} only in {x_source} ({_names(only_x, 3)})")
        if len(only_y):
            parts.append(f"{len(only_y)} only in {y_source} ({_names(only_y, 3)})")
        raise ValueError(f"{y_source}: its sample ids do not match those of {x_source}: "
                         + "; ".join(parts) + ". Give both files the same sample ids (any "
                         "order), or give the labels as one column in the row order of "
                         f"{x_source}")
    return pd.Series(y.loc[x_ids].to_numpy(), index=X.index, name=y.name or "class")


#: ``DataFrame.attrs`` key set by :func:`read_matrix`: whether the file had sample ids (False:
#: its rows are numbered "0".."n-1"). Frames from elsewhere have ids (their index).
SAMPLE_IDS_ATTR = "selbayes_sample_ids"


def read_xy(x_path, y_path, *, label_column: str | None = None, sep: str | None = None,
            name: str = "", description: str = "") -> Dataset:
    """Read the common two-file layout: an expression matrix and a label file.

    ``x_path`` is read by :func:`read_matrix` (samples x genes, a header row of gene names,
    optionally sample ids in the first column). ``y_path`` holds either one column of labels,
    taken in the row order of ``x_path``, or two columns, sample id and label, matched to the
    samples of ``x_path`` by id in any order; its header row may be left out (a header that is
    one of the labels is read as the first label). An ``x_path`` of genes x samples (the
    layout of GEO series matrices) is transposed, with a ``UserWarning``, when the label
    file's ids are exactly its column names. A label file with ids needs an ``x_path`` with
    ids (or ids that are its row numbers 0..n-1). With ids, the two files must name the same
    samples: otherwise the error lists a few of the ids that differ, so labels are never
    assigned by row order behind the user's back.

    Parameters
    ----------
    x_path, y_path : path-like
        The two files (``.csv``, ``.tsv``, ``.tab`` or ``.txt``, optionally compressed).
    label_column : str, optional
        The label column of ``y_path`` when it has more than two; the first column then holds
        the sample ids (unless it is the label column itself).
    sep : str, optional
        Column separator of both files; by default from each file's extension (or sniffed).
    name, description : str
        Stored on the result (default: the name of ``x_path``).

    Returns
    -------
    Dataset
        ``X`` indexed by the sample ids of ``x_path`` (its row numbers "0".."n-1" when it has
        none), ``y`` aligned to it.

    Raises
    ------
    FileNotFoundError
        When a file does not exist.
    ValueError
        Sample ids that differ between the files, label counts that differ, duplicated ids or
        gene names, missing or infinite values (genes named), missing labels, fewer than two
        classes or a class with one sample.
    TypeError
        Non-numeric gene columns.

    Examples
    --------
    >>> ds = read_xy("X.csv", "y.csv")                                  # doctest: +SKIP
    >>> ds.X.shape, ds.y.value_counts().to_dict()                       # doctest: +SKIP
    """
    x_path, y_path = Path(x_path), Path(y_path)
    X, y = labels_for_matrix(read_matrix(x_path, sep=sep), y_path, label_column=label_column,
                             sep=sep, x_source=str(x_path))
    y = y.astype(object).where(y.notna(), None)
    return _validated(X, y, drop_missing=False, source=str(x_path), label_source=str(y_path),
                      can_drop=False,
                      name=name or x_path.name,
                      description=description or f"Read from {x_path} and {y_path}.")
