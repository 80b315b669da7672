"""The user's own files: an expression table with a label column (:func:`read_table`), an
AnnData object or ``.h5ad`` file (:func:`read_anndata`), and the common layout of two files,
X (samples x genes) and labels matched by sample id or row order (:func:`read_xy`,
:func:`read_matrix`, :func:`align_labels`), which the command line reads too.

Every reader returns a :class:`~selbayes.datasets.Dataset` (or a checked DataFrame) after the
checks of :mod:`selbayes.datasets._dataset`; a file's problems are one sentence that names the
file and the genes or samples concerned.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import lzma
import os
import re
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import check_flag, check_path, os_error_reason, warn_of_label_variants
from ._dataset import (
    MISSING_TEXT_ATTR,
    Dataset,
    _check_classes,
    _check_drop,
    _check_sep,
    _check_text,
    _is_missing_label,
    _names,
    _numeric_genes,
    _unique_gene_names,
    _validated,
)

__all__ = ["read_table", "read_anndata"]


# ---------------------------------------------------------------------------------------------
# the user's own files
# ---------------------------------------------------------------------------------------------
#: The end of the message about a file that is not UTF-8 text (a Latin-1 or UTF-16 export, a
#: spreadsheet's own format): what to do about it, not only what it is.
_NOT_UTF8 = ("not a text table (it is binary or not UTF-8); re-save it as UTF-8 (CSV UTF-8 in "
             "Excel)")


_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")


@contextlib.contextmanager
def _readable(path: Path):
    """Errors of reading a file that exists turned into one ValueError naming it: a file named
    .gz that is not gzip (or truncated) was gzip's bare 'Not a gzipped file (b'no')'."""
    try:
        yield
    except (FileNotFoundError, UnicodeDecodeError):
        raise                                   # said by the callers
    except (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile) as exc:
        kind = next((s for s in reversed(path.suffixes) if s.lower() in _COMPRESSED), None)
        if kind is not None:
            raise ValueError(f"{path}: not a readable {kind} file ({exc}): it is damaged or "
                             f"cut short (copy or download it again), or not compressed as "
                             f"its name says (then take {kind} off its name)") from None
        reason = os_error_reason(exc) if isinstance(exc, OSError) else str(exc)
        raise ValueError(f"{path}: the file cannot be read ({reason})") from None


def _check_given_sep(path: Path, given: str | None, header: list[str]) -> None:
    """A ``sep`` the caller gave that splits nothing while the header holds another separator
    (was "no gene columns", or a label column not found among one long header cell)."""
    if given is None or len(header) != 1:
        return
    found = [c for c in ",\t;|" if c != given and c in header[0]]
    if found:
        raise ValueError(f"{path}: sep={given!r} reads a single column, and its header holds "
                         f"{found[0]!r}: pass sep={found[0]!r}, or leave sep unset to infer it")


def _not_a_file(path: Path, name: str = "path") -> FileNotFoundError:
    """The error for a ``path`` argument that is no file: missing, or a folder."""
    if path.is_dir():
        return FileNotFoundError(f"{name} {str(path)!r} is a folder, not a file")
    return FileNotFoundError(f"{name} {str(path)!r} does not exist")


def _sep_for(path: Path) -> str | None:
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".bz2", ".xz",
                                                                       ".zip", ".zst")]
    last = suffixes[-1] if suffixes else ""
    return {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}.get(last)


#: How every file is read: UTF-8, where a byte-order mark at the start (Excel's "CSV UTF-8"
#: writes one) is not text. Read as "utf-8", the mark was part of the first header cell: an
#: empty id header became '\ufeff', a gene, and numeric sample ids under it a feature.
_ENCODING = "utf-8-sig"

#: What lines before the header may start with: comments ("# exported by ...") and a GEO
#: series matrix's metadata ("!Series_title ..."); pandas read them as the header or as rows.
_PREAMBLE_STARTS = ("#", "!")

#: What to do with a genes x samples file, in the messages that find one.
_TRANSPOSE = "transpose it (in pandas: pd.read_csv(path, index_col=0).T.to_csv(new_path))"

#: The last line of a GEO series matrix's table: no sample.
_TABLE_END = "!series_matrix_table_end"

#: The end of the message about a separator that cannot be sniffed; the command line, which
#: has no such option, leaves out the part that names ``sep=`` (``command_line_message``).
_SEP_IN_PYTHON = ", or in Python pass sep="


def _start_of(path: Path, n_rows: int = 0) -> tuple[int, str, list[str]]:
    """(the number of lines before the header, the header line, up to ``n_rows`` non-blank
    lines after it). Blank lines and lines starting with one of :data:`_PREAMBLE_STARTS`
    before the header are skipped (a series matrix's metadata, comments); the header is ""
    when the file has none. A "#" line just before the first other line, with as many fields
    (or one fewer: no cell over the ids), is the header ("#OTU ID", "#gene" as some tools
    write it): it is returned, "#" and all (:func:`_without_hash` takes it off)."""
    from pandas.io.common import get_handle

    with _readable(path), get_handle(path, "r", compression="infer",
                                     encoding=_ENCODING) as handles:
        skipped, first, previous = 0, "", ""
        for line in handles.handle:
            if line.strip() and not line.lstrip().startswith(_PREAMBLE_STARTS):
                first = line
                break
            skipped += 1
            previous = line
        rows = [line for line in itertools.islice(handles.handle, n_rows) if line.strip()]
    if previous.lstrip().startswith("#") and first and _as_wide(previous, first):
        return skipped - 1, previous, [first, *rows][:max(n_rows, 0)]
    return skipped, first, rows


def _as_wide(header: str, row: str) -> bool:
    """Whether a "#" line (``header``) has as many fields as the next line ``row``, or one
    fewer, and at least two: a header, not a comment."""
    sep = _sniffed_sep(row) or "\t"

    def width(line: str) -> int:
        return len(next(csv.reader(io.StringIO(line), delimiter=sep), []))

    cells = width(_without_hash(header))
    return cells >= 2 and cells in (width(row), width(row) - 1)


def _without_hash(line: str) -> str:
    """A header line without the "#" that opens it (:func:`_start_of`)."""
    text = line.lstrip()
    return text[1:].lstrip(" ") if text.startswith("#") else line


def _sniffed_sep(line: str) -> str | None:
    """The separator of a header line among , tab ; | and space, or None."""
    try:
        return csv.Sniffer().sniff(line, delimiters=",\t;| ").delimiter
    except csv.Error:
        return None


def _header(path: Path, sep: str | None) -> tuple[list[str], str, int]:
    """The raw header cells (pandas renames duplicates, so they are read separately), one per
    field of the first data row (:func:`_cells_for_rows`), the separator, and the number of
    lines up to the header's end (for ``skiprows``: lines before it are skipped, see
    :func:`_start_of`)."""
    skipped, first, rows = _start_of(path, _ROWS_LOOKED_AT)
    if sep is None:
        sep = _sniffed_sep(first)
        if sep is None:
            raise ValueError(f"{path}: could not infer the column separator from its first "
                             f"line ({first.strip()[:40]!r}); save it as .csv "
                             f"(comma-separated) or .tsv (tab-separated){_SEP_IN_PYTHON}")
    cells = next(csv.reader(io.StringIO(_without_hash(first)), delimiter=sep), [])
    # rows of separators only (",,") and a series matrix's last line are no data rows
    data = [row for row in csv.reader(io.StringIO("".join(rows)), delimiter=sep)
            if any(c.strip() for c in row) and row[0].strip() != _TABLE_END]
    try:
        return _cells_for_rows([c.strip() for c in cells], data), sep, skipped + 1
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


#: The data rows :func:`_header` reads to see whether every row is one field wider than the
#: header.
_ROWS_LOOKED_AT = 50


def _cells_for_rows(cells: list[str], rows: list[list[str]]) -> list[str]:
    """The header ``cells`` completed to the width of data ``rows`` all one field longer.

    Read as they are, the first field of every row became pandas' index and every column
    took its neighbour's name, silently. Two writers make such files: R's ``write.table``,
    whose header has no cell over the row names (the sample ids: an unnamed first column),
    and a spreadsheet that ends each data row, not the header, with a separator (an empty
    last field: an unnamed last column, dropped with the other empty ones). A first row wider
    than the others (a stray separator, a decimal comma) is a ValueError naming the rows."""
    if not cells or not rows or len(rows[0]) != len(cells) + 1:
        return cells
    other = next((i for i, row in enumerate(rows) if len(row) != len(rows[0])), None)
    if other is not None:
        # pandas would make the first row's first field the index and shift every other row
        raise ValueError(f"the first data row has {len(rows[0])} fields, one more than the "
                         f"header's {len(cells)}, and data row {other + 1} has "
                         f"{len(rows[other])}: a stray separator, or a decimal comma, in the "
                         "first row? Every row must have as many fields as the header")
    return _widened(cells, empty_last=all(not row[-1].strip() for row in rows))


def _widened(names: list[str], *, empty_last: bool) -> list[str]:
    """Column names for rows one field wider than the header ``names``: an unnamed last
    column where every row's last field is empty (a separator ending each data row), else an
    unnamed first one (R's ``write.table``: the row names, the sample ids)."""
    return names + [""] if empty_last else [""] + names


def _rows_wider_than_header(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as pandas read it from a file whose rows have one field more than its header
    (pandas made the first field the index), with the columns named as
    :func:`_cells_for_rows` names them; other frames unchanged."""
    if isinstance(frame.index, pd.RangeIndex) or isinstance(frame.index, pd.MultiIndex):
        return frame
    names = [str(c) for c in frame.columns]
    last = frame.iloc[:, -1]
    empty_last = bool((last.isna() | (last.astype(str).str.strip() == "")).all())
    out = frame.reset_index()
    out.columns = _widened(names, empty_last=empty_last)
    return out


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
        When ``path`` does not exist or is a folder.
    ValueError
        A ``label_column``/``index_column`` that is not in the header, or equal to each other;
        an empty file, a header without samples, a file that is not UTF-8 text or a damaged
        compressed file; an unknown ``drop_missing``; a ``sep`` of more than one character;
        missing values (unless dropped), duplicated gene names or sample ids, infinite values,
        fewer than 2 classes, or a class with one sample; the message names them.
    TypeError
        Non-numeric gene columns; a ``path`` that is not a path, a ``label_column``,
        ``index_column``, ``sep``, ``name`` or ``description`` that is not a str.

    Examples
    --------
    >>> ds = read_table("expression.tsv", label_column="tissue")   # doctest: +SKIP
    """
    path = check_path(path, "path")
    _check_text(label_column, "label_column")
    _check_text(index_column, "index_column", optional=True)
    sep = _check_sep(sep)
    _check_drop(drop_missing)
    _check_text(name, "name")
    _check_text(description, "description")
    if not path.is_file():
        raise _not_a_file(path)
    given_sep = sep
    try:
        header, sep, skip = _header(path, sep if sep is not None else _sep_for(path))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {_NOT_UTF8}") from None
    if not header or header == [""]:
        raise ValueError(f"{path}: the file is empty (no header row, no data)")
    _check_given_sep(path, given_sep, header)
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
    if index_column is None and label_column != header[0] and _is_id_header(header[0]):
        # A first column without a name (what pandas' to_csv and R's write.csv put over the
        # row names) or named like sample ids holds ids, as read_matrix reads it; read as a
        # gene it would be a silent wrong feature when its ids are numbers.
        index_column = header[0]
    # ids as text: "007" read as the number 7 would no longer match the user's other files
    text_columns = {c: str for c in (label_column, index_column) if c is not None}
    try:
        with _readable(path):
            frame = pd.read_csv(path, sep=sep, header=None, names=header, skiprows=skip,
                                dtype=text_columns, keep_default_na=True,
                                skipinitialspace=True, encoding=_ENCODING)
        frame = _drop_empty_last_columns(frame, header)     # a separator ending every line
        # The label and id columns as written where pandas read a cell as missing: "None" is
        # a class (grade None/Low/High) and "NA" a sample's name; the labels then get only
        # the missing-value markers of a label file
        raw = {col: pd.read_csv(path, sep=sep, header=None, skiprows=skip, dtype=str,
                                usecols=[header.index(col)], keep_default_na=False,
                                skipinitialspace=True, encoding=_ENCODING
                                ).iloc[:, 0].fillna("").str.strip().to_numpy()
               for col in (label_column, index_column)
               if col is not None and frame[col].isna().any()}
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {_NOT_UTF8}") from None
    # rows of separators only (a spreadsheet's ",," rows) are no samples: read, they were a
    # sample with every value and its label missing (or a duplicated id 'nan')
    empty = frame.isna().all(axis=1).to_numpy()
    for text in raw.values():
        empty = empty & (text == "")
    if empty.any():
        frame = frame.loc[~empty]
        raw = {col: text[~empty] for col, text in raw.items()}
    if frame.shape[0] == 0:        # was "non-numeric gene columns": every column is empty
        raise ValueError(f"{path}: a header row but no samples")
    read_labels = None
    if label_column in raw:
        read_labels = _missing_labels(pd.Series(raw[label_column], index=frame.index))
        frame[label_column] = read_labels.to_numpy()
    if index_column in raw:
        frame[index_column] = raw[index_column]     # "" where no id: _sample_index says so
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
    # " tumour" and "tumour" are one class, as read_xy reads them (spreadsheets pad cells)
    y = frame.pop(label_column).map(lambda v: v.strip() if isinstance(v, str) else v)
    if read_labels is not None:
        y.attrs.update(read_labels.attrs)        # the texts read as missing, for the message
    warn_of_label_variants(y, str(path), stacklevel=2)
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
        When a path does not exist or is a folder.
    ValueError
        An unknown ``label_key``, ``layer``, gene or ``drop_missing``, a file that is not an
        ``.h5ad`` (HDF5) file, or the data problems listed in :func:`read_table`.
    TypeError
        When ``adata`` is neither an AnnData nor a path, the matrix is not numeric, ``genes``
        is a single string rather than a list, ``dense`` is not True or False, or ``name``
        or ``description`` is not a str.

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

    _check_drop(drop_missing)
    dense = check_flag(dense, "dense")
    _check_text(name, "name")
    _check_text(description, "description")
    if isinstance(genes, str | bytes):
        # a string is a sequence of letters: genes="CD3E" asked for genes C, D, 3 and E
        raise TypeError(f"genes must be a list of gene names; got the string {genes!r} (for "
                        f"one gene pass genes=[{genes!r}])")
    if isinstance(adata, anndata.AnnData):
        source = name or "AnnData"
    elif isinstance(adata, str | os.PathLike):
        path = Path(adata)
        if not path.is_file():
            raise _not_a_file(path, "adata")
        source = str(path)
        name = name or path.name
        try:
            adata = anndata.read_h5ad(path)
        except (OSError, KeyError, TypeError, ValueError, AttributeError) as exc:
            # h5py's 'file signature not found' and its flags; an HDF5 file of other
            # contents was AnnData's 'unexpected keyword argument'
            reason = (os_error_reason(exc) if isinstance(exc, OSError)
                      else f"an HDF5 file but not AnnData's: {type(exc).__name__}: {exc}")
            raise ValueError(f"{path}: not an .h5ad file ({reason}); read_anndata reads what "
                             "AnnData.write_h5ad writes (a CSV or TSV table is read by "
                             "read_table or read_xy)") from None
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
        if var_names.has_duplicates:
            # scanpy's files often repeat a symbol: the genes asked for are found where they
            # occur once (pandas' get_indexer refuses any repeated name in the index)
            repeated = set(var_names[var_names.duplicated()])
            ambiguous = [g for g in genes if g in repeated]
            if ambiguous:
                raise ValueError(f"{source}: gene(s) {_names(ambiguous)} occur more than once "
                                 f"in var_names, so which column is meant is unclear; make the "
                                 f"names unique first (adata.var_names_make_unique())")
            once = np.flatnonzero(~var_names.isin(repeated))
            found = var_names[once].get_indexer(genes)
            pos = np.full(len(genes), -1)
            pos[found >= 0] = once[found[found >= 0]]
        else:
            pos = var_names.get_indexer(genes)
        if (pos < 0).any():
            missing = [g for g, i in zip(genes, pos, strict=True) if i < 0]
            raise ValueError(f"{source}: {len(missing)} gene(s) not in var_names: "
                             f"{_names(missing)}")
        matrix = matrix[:, pos]                 # subset first: a sparse matrix stays sparse
        var_names = pd.Index(genes)
    elif var_names.has_duplicates:
        try:
            _unique_gene_names(var_names, source)
        except ValueError as exc:
            raise ValueError(f"{exc}; in AnnData, adata.var_names_make_unique() does it, or "
                             f"genes= takes the ones you need") from None
    index = pd.Index(adata.obs_names.astype(str), name="sample")
    if index.has_duplicates:         # common after concatenating batches
        repeated = index[index.duplicated()].unique()
        raise ValueError(f"{source}: {len(repeated)} duplicated sample id(s) in obs_names "
                         f"({_names(repeated)}); give every cell or sample its own id "
                         f"(adata.obs_names_make_unique())")
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
    y_missing = _is_missing_label(y)
    if y_missing.any():
        raise ValueError(f"{source}: {int(y_missing.sum())} missing label(s) (samples "
                         f"{_names(index[y_missing])})")
    _check_classes(y, source)
    X = pd.DataFrame.sparse.from_spmatrix(matrix, index=index, columns=list(columns))
    return Dataset(X=X, y=y, description=description, name=name,
                   dropped={"genes": [], "samples": []})


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
        with _readable(path):
            return pd.read_csv(path, sep=sep, engine="python" if sep is None else "c",
                               encoding=_ENCODING, **kwargs)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file is empty (no header row, no data)") from None
    except pd.errors.ParserError as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ValueError(f"{path}: not a readable table ({detail}); expected one header row "
                         "and one row per sample, all with the same number of cells") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {_NOT_UTF8}") from None


def _is_id_header(header) -> bool:
    """A first column's header that names sample ids (or no name at all), not a gene."""
    name = str(header).strip()
    return name.lower() in _ID_HEADERS or name.startswith("Unnamed:")


#: Words that, as a whole word of a first column's header ("patient_id", "Case No",
#: "PatientID"), name an identifier; with distinct whole-number values the column holds ids,
#: not a gene (a gene symbol such as ID1 is one word, not the word "id").
_ID_WORDS = frozenset({"id", "ids", "sample", "patient", "subject", "case", "index", "idx",
                       "no", "nr", "number", "num", "donor", "participant", "individual",
                       "specimen", "code", "animal", "mouse"})

#: A header written as one word ("patientid", "sampleno") names an identifier when it is one
#: of these nouns followed by one of these suffixes (not any two id words: NONO is a gene).
_ID_NOUNS = frozenset({"sample", "patient", "subject", "case", "donor", "participant",
                       "individual", "specimen", "animal", "mouse"})
_ID_SUFFIXES = ("id", "ids", "idx", "no", "nr", "num", "number")

#: Where a camelCase header ("PatientID", "SampleNo", "IDNumber") changes words: a lower-case
#: letter before a capital, or a capital before a capitalised word. Digits split nothing: the
#: gene symbol ID1 stays one word.
_CAMEL_CASE = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _header_words(header) -> set[str]:
    """The words of a header, lower case: split at non-alphanumerics and camelCase."""
    text = _CAMEL_CASE.sub(" ", str(header)).lower()
    return set("".join(c if c.isalnum() else " " for c in text).split())


def _names_an_id(header) -> bool:
    """Whether a header has a word of :data:`_ID_WORDS` (or a word of :data:`_ID_NOUNS`
    followed by a suffix of :data:`_ID_SUFFIXES`, as in "patientid")."""
    words = _header_words(header)
    return bool(words & _ID_WORDS) or any(
        w.endswith(suffix) and w[:-len(suffix)] in _ID_NOUNS
        for w in words for suffix in _ID_SUFFIXES)


def whole_number_ids(values) -> list[str] | None:
    """Distinct whole numbers (a first column read as numbers) as sample ids ("3", not "3.0"),
    or None where the values are not all distinct whole numbers."""
    v = pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan)
    if v.size == 0 or not np.all(np.isfinite(v)) or np.any(v != np.round(v)) \
            or np.unique(v).size != v.size:
        return None
    return [str(int(x)) for x in v]


def numbered_first_column(X: pd.DataFrame) -> list[str] | None:
    """The first column of ``X`` as sample ids (:func:`whole_number_ids`), where ``X`` was
    read without ids, has another column and the first holds distinct whole numbers (numbered
    samples under a header that names no id: "tumour" 11, 7, 2, ...); None otherwise. Whether
    they are the ids is the caller's to judge."""
    if X.attrs.get(SAMPLE_IDS_ATTR, True) or X.shape[1] < 2:
        return None
    return whole_number_ids(X.iloc[:, 0])


def _is_id_column(header: str, values: pd.Series) -> bool:
    if _is_id_header(header) or not pd.api.types.is_numeric_dtype(values):
        return True
    # Numbered patients ("patient_id" 101, 102, ...) read as a gene would be a feature that
    # tracks the file's order, which is often the class order: a silent leak
    return _names_an_id(header) and whole_number_ids(values) is not None


#: A GEO sample accession: GSM and digits.
_GEO_SAMPLE = re.compile(r"GSM\d+")


def _geo_accessions(names) -> bool:
    """Whether ``names`` (a file's column names) are all GEO sample accessions: samples, not
    genes."""
    names = [str(n).strip() for n in names]
    return bool(names) and all(_GEO_SAMPLE.fullmatch(n) for n in names)


class _DuplicatedIdsError(ValueError):
    """Duplicated sample ids, which :func:`read_xy` may explain from the label file: the
    duplicated ids (``ids``) and the other column names of the file (``columns``)."""

    def __init__(self, message: str, ids, columns=()):
        super().__init__(message)
        self.ids = [str(i) for i in ids]
        self.columns = [str(c) for c in columns]


def _sample_index(ids: pd.Series, source, where: str = "") -> pd.Index:
    """The sample ids as the frames' index (str, stripped, named "sample"); empty and
    duplicated ids are a ValueError naming them (``where``: which column of ``source`` held
    them). ``ids``' own index holds the data rows' positions, for the message."""
    # stripped as a label file's ids are ("s1 " and "s1" are one sample); NaN is no id
    ids = ids.astype(object).where(ids.notna(), "").astype(str).str.strip()
    empty = ids.eq("").to_numpy()
    if empty.any():
        rows = ([int(i) + 1 for i in ids.index[empty]]
                if pd.api.types.is_integer_dtype(ids.index) else [])
        at = (f" (data row{'s' if len(rows) > 1 else ''} {', '.join(map(str, rows[:5]))}"
              f"{' ...' if len(rows) > 5 else ''})" if rows else "")
        raise ValueError(f"{source}: {int(empty.sum())} sample(s) without a sample id{where}"
                         f"{at}; give every sample an id (or remove the row)")
    if ids.duplicated().any():
        dup = ids[ids.duplicated()].unique()
        raise _DuplicatedIdsError(f"{source}: {int(ids.duplicated().sum())} duplicated sample "
                                  f"id(s){where}: {_names(dup)}", dup)
    return pd.Index(ids.to_numpy(), name="sample")


def read_matrix(path, *, sep: str | None = None, allow_missing: bool = False) -> pd.DataFrame:
    """Read a samples x genes CSV/TSV file (no labels) into a checked DataFrame.

    The first column holds sample ids when its header is empty (what pandas' ``to_csv`` writes
    over an index) or one of ``sample``, ``id``, ``sample_id``, ``name``, ``cell``,
    ``barcode``, or when its values are not numbers, or when its header has a word such as
    ``id``, ``patient``, ``case``, ``donor`` or ``no`` (camelCase too: ``PatientID``) and its
    values are distinct whole numbers (``patient_id`` 101, 102, ...; read as a gene, it would
    track the file's order); otherwise the samples are numbered ``"0"``, ``"1"``, ... in file
    order. Sample ids keep their text as written (``007`` stays ``"007"``, ``NA`` is an id),
    stripped of spaces; an empty id is an error. An unnamed last column without a value (a
    comma at the end of every line, as spreadsheets export) is dropped, and so are rows of
    separators only. Lines before the header that start with ``#`` or ``!`` (comments, a GEO
    series matrix's metadata) and a series matrix's last line are skipped; a UTF-8
    byte-order mark is ignored.

    Parameters
    ----------
    path : path-like
        ``.csv``, ``.tsv``, ``.tab`` or ``.txt``, optionally compressed (``.gz``, ``.bz2``,
        ``.xz``, ``.zip``); a header row of gene names.
    sep : str, optional
        Column separator; by default from the extension, or sniffed from the header.
    allow_missing : bool, default False
        False: missing values are an error. True: they are returned as NaN, for the caller to
        drop (as :func:`read_xy` does with ``drop_missing``).

    Returns
    -------
    pandas.DataFrame of shape (n_samples, n_genes)
        float64 values; gene names (str) as columns, sample ids (str) as the index.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist or is a folder.
    ValueError
        An empty or unreadable file (not UTF-8 text, a damaged compressed file), duplicated
        gene names or sample ids (named), missing (unless allowed) or infinite values (the
        genes are named), no data; a ``sep`` of more than one character.
    TypeError
        Non-numeric gene columns (named); a ``path`` that is not a path, a ``sep`` that is not
        a str, an ``allow_missing`` that is not True or False.

    Examples
    --------
    >>> X = read_matrix("expression.csv")                               # doctest: +SKIP
    """
    path = check_path(path, "path")
    sep = _check_sep(sep)
    allow_missing = check_flag(allow_missing, "allow_missing")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file" if not path.is_dir()
                                else f"{path} is a folder, not a file")
    given_sep = sep
    try:
        header, sep, skip = _header(path, sep if sep is not None else _sep_for(path))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {_NOT_UTF8}") from None
    if not header or header == [""]:
        raise ValueError(f"{path}: the file is empty (no header row, no data)")
    _check_given_sep(path, given_sep, header)
    if len(header) == 1 and sep != "\t" and "\t" in header[0]:
        # a tab-separated table saved as .csv: unambiguous (gene names hold no tabs)
        header, sep, skip = _header(path, "\t")
    other = [c for c in ";|" if c != sep and c in header[0]]
    if len(header) == 1 and other:   # e.g. a spreadsheet's ";"-separated export as .csv
        named = {",": "comma", "\t": "tab"}.get(sep, repr(sep))
        raise ValueError(f"{path}: one column when read {named}-separated, and its header "
                         f"holds {other[0]!r}: selbayes reads comma- or tab-separated tables "
                         f"(.csv, .tsv; a .txt file's separator is sniffed among , tab ; | "
                         f"and space); convert the file, with '.' as the decimal mark")
    # The first column as text: sample ids keep their form ("007", "1.10"); it is made numbers
    # below only when it is a gene
    names = [f"c{i}" for i in range(len(header))]
    frame = _read_csv(path, sep, header=None, names=names, skiprows=skip,
                      skipinitialspace=True, dtype={"c0": str})
    text = frame["c0"]
    if text.isna().any():
        # "NA" is a name (a sample's, or a gene's in a genes x samples file), not a missing
        # value: the first column again, as written (read as missing, it became 'nan')
        text = _read_csv(path, sep, header=None, names=names, usecols=["c0"], skiprows=skip,
                         skipinitialspace=True, dtype=str, keep_default_na=False)["c0"]
    text = text.fillna("").str.strip()
    if frame.shape[1] > 1:
        # rows of separators only (a spreadsheet's ",," rows) and a series matrix's last line
        # are no samples (read, they were samples 'nan', duplicated, with no values)
        drop = (text.eq("") | text.eq(_TABLE_END)) & frame.iloc[:, 1:].isna().all(axis=1)
        if drop.any():
            frame, text = frame.loc[~drop], text.loc[~drop]
    frame = _drop_empty_last_columns(frame, header)
    header = header[:frame.shape[1]]
    frame.columns = header
    if frame.shape[0] == 0:
        raise ValueError(f"{path}: a header row but no samples")
    first = frame.iloc[:, 0]
    # numbers where pandas would have read numbers: every cell that is not missing parses
    as_number = pd.to_numeric(first, errors="coerce")
    if not (as_number.notna() | first.isna()).all():
        as_number = None
    if _is_id_column(header[0], first if as_number is None else as_number):
        try:
            index = _sample_index(text, path, " in the first column")
        except _DuplicatedIdsError as exc:
            # gene symbols of a genes x samples file, a gene's probes in several rows?
            if _geo_accessions(header[1:]):
                said = (f": its column names are GEO sample accessions "
                        f"({_names(header[1:], 3)}), so it is genes x samples with a gene's "
                        f"probes in several rows;")
            else:
                said = ("; give every sample its own id, or, if the file is genes x samples (a "
                        "gene's probes in several rows),")
            raise _DuplicatedIdsError(f"{exc}{said} aggregate the repeated probes and "
                                      f"transpose it: selbayes reads samples x genes", exc.ids,
                                      header[1:]) from None
        frame = frame.iloc[:, 1:]
        frame.index = index
        has_ids = True
    else:
        frame.isetitem(0, as_number)
        frame.index = pd.Index([str(i) for i in range(len(frame))], name="sample")
        has_ids = False
    frame = check_matrix_frame(frame, str(path), allow_missing=allow_missing)
    # Row numbers "0".."n-1" and ids "0".."n-1" (pandas' to_csv over a default index) look
    # alike; align_labels must know which it has (a label file's ids can be matched to ids only)
    frame.attrs[SAMPLE_IDS_ATTR] = has_ids
    return frame


def check_matrix_frame(frame: pd.DataFrame, source: str, *, allow_missing: bool = False,
                       missing_hint: str = "impute or remove them first") -> pd.DataFrame:
    """The checks every expression matrix meets, with messages that name genes and samples.

    Parameters
    ----------
    frame : pandas.DataFrame of shape (n_samples, n_genes)
    source : str
        The file (or object) the matrix came from, for the messages.
    allow_missing : bool, default False
        Whether missing values (NaN) pass, for the caller to drop; infinite values never do.
    missing_hint : str
        What the message about missing values tells the user to do.

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
    bad = np.isinf(values) if allow_missing else ~np.isfinite(values)
    if bad.any():
        genes = frame.columns[bad.any(axis=0)]
        samples = frame.index[bad.any(axis=1)]
        n_nan, n_inf = int(np.isnan(values).sum()), int(np.isinf(values).sum())
        what = " and ".join(t for t in (f"{n_nan} missing" if n_nan else "",
                                        f"{n_inf} infinite" if n_inf else "") if t)
        raise ValueError(f"{source}: {what} value(s) in {len(genes)} gene(s) "
                         f"({_names(genes)}) of {len(samples)} sample(s) ({_names(samples)}); "
                         + (missing_hint if n_nan else "remove them first"))
    return frame.astype(np.float64)


#: The cells of a label (or groups) file read as a missing label besides empty ones: the
#: markers R, pandas and spreadsheets write for a missing value. Not pandas' whole default list:
#: "None" is a class (grade None/Low/High), and so may be "NA" (the message quotes the markers
#: it met, so a user whose class is "NA" sees why).
_MISSING_LABEL_TEXTS = ("NA", "N/A", "n/a", "#N/A", "NaN", "nan", "<NA>", "NULL", "null")


def _missing_labels(labels: pd.Series) -> pd.Series:
    """``labels`` (text as read) with its empty cells and missing-value markers as NaN; the
    markers met are in ``attrs[MISSING_TEXT_ATTR]``."""
    text = labels.astype(object).where(labels.notna(), "").astype(str).str.strip()
    marker = text.isin(_MISSING_LABEL_TEXTS)
    out = labels.astype(object).where(~(marker | (text == "")), np.nan)
    out.attrs[MISSING_TEXT_ATTR] = tuple(sorted(set(text[marker])))
    return out


def _unnamed(name) -> bool:
    """A header cell that names nothing: empty, pandas' "Unnamed: 3", or a column number (a
    file read without a header)."""
    return not isinstance(name, str) or not name.strip() or name.startswith("Unnamed:")


def _drop_empty_last_columns(frame: pd.DataFrame, names) -> pd.DataFrame:
    """``frame`` without its unnamed last columns that hold no value: a comma at the end of
    every line (a spreadsheet's export) makes one, which is no data (read as a gene, it was
    "45 missing values in gene ''"). ``names`` are the header cells as written."""
    n = frame.shape[1]
    while n > 1 and _unnamed(names[n - 1]):
        col = frame.iloc[:, n - 1]
        if not (col.isna() | (col.astype(str).str.strip() == "")).all():
            break
        n -= 1
    return frame.iloc[:, :n] if n < frame.shape[1] else frame


def _without_empty_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """A label file's cells (text, stripped) without the rows that hold nothing.

    A row whose every cell is empty (an empty line, a spreadsheet's ",," row) is no sample,
    and nor is a series matrix's last line; but in a file of one column, the labels in the
    row order of X, an empty line between labels is a sample whose label is missing (pandas
    skipped it: the labels were one short, or paired with the wrong samples): only the empty
    lines at its end are dropped there."""
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        return frame
    empty = frame.eq("").all(axis=1).to_numpy()
    end = frame.iloc[:, 0].eq(_TABLE_END).to_numpy() & frame.iloc[:, 1:].eq("").all(
        axis=1).to_numpy()
    if frame.shape[1] > 1:
        return frame.loc[~(empty | end)]
    full = np.flatnonzero(~empty)
    if len(full) and end[full[-1]]:
        full = full[:-1]                          # a series matrix's last line
    return frame.iloc[:full[-1] + 1 if len(full) else 0]


def _swapped_columns_problem(path: Path, ids: pd.Series, labels: pd.Series, kind: str,
                             x_ids, x_source) -> str | None:
    """Why the first column of a two-column label file repeats values, when its second holds
    the sample ids (the columns in the order label, id), or None."""
    first, second = ids.astype(str).str.strip(), labels.astype(str).str.strip()
    if second.duplicated().any():
        return None
    names = f"its first column ({ids.name}) repeats values and its second ({labels.name})"
    if x_ids is not None and second.isin(x_ids).all():
        return (f"{path}: {names} holds the sample ids of {x_source}: put the sample ids first "
                f"(id, {kind})")
    if first.nunique() <= len(first) // 2:
        return (f"{path}: {names} holds distinct values ({first.nunique()} distinct in the "
                f"first, {len(first)} rows): if those are the sample ids, put them first (id, "
                f"{kind})")
    return None


def _read_labels_file(path: Path, label_column, sep, *, kind: str = "label", x_ids=None,
                      x_source: str | None = None) -> tuple[pd.Series, bool]:
    """(labels, whether they carry sample ids) from a label file (``kind``: "label", or
    "group" for a groups file). Missing labels are NaN (empty cells and the markers of
    :data:`_MISSING_LABEL_TEXTS`, noted in ``attrs``). ``x_ids`` (the sample ids of the matrix
    read from ``x_source``) serve the message about a file of columns label, id."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file" if not path.is_dir()
                                else f"{path} is a folder, not a file")
    try:
        # comments and metadata before the header are skipped (their count, for skiprows)
        skip, first, _ = _start_of(path)
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {_NOT_UTF8}") from None

    def read(sep, **kwargs):
        # Every cell as text: ids keep their zeros, and a class named "None" stays a class
        # (_missing_labels reads the markers of a missing label). " tumour" and "tumour" are
        # one class (spreadsheets pad cells; the ids are stripped too), and so are a padded
        # header and the label it may be. Empty lines are read as rows (pandas skips them):
        # in one column of labels they are samples without a label (_without_empty_rows)
        frame = _read_csv(path, sep, dtype=str, keep_default_na=False, skiprows=skip,
                          skip_blank_lines=False, **kwargs)
        frame = _rows_wider_than_header(frame).fillna("").apply(lambda col: col.str.strip())
        frame = _drop_empty_last_columns(frame, list(frame.columns))
        frame.columns = [str(c).strip() for c in frame.columns]
        if kwargs.get("header", 0) is not None and frame.shape[1]:
            # a header written after a "#" ("#sample,class"): the names without it
            frame = frame.rename(columns={frame.columns[0]: _without_hash(frame.columns[0])})
        return _without_empty_rows(frame)

    if sep is None:
        sep = _sep_for(path)
    if sep is None:
        # pandas' own sniffing (its python engine) may split one column of labels at a
        # letter ("label" at "l"); a header without , tab ; | or space is one column
        sep = _sniffed_sep(first) or next((c for c in "\t,;|" if c not in first), "\t")
    frame = read(sep)
    if frame.shape[0] == 0:
        raise ValueError(f"{path}: a header row but no {kind}s")
    if frame.shape[1] == 1:
        # one column when read with the extension's separator, but every line holds another
        # (a spreadsheet's ";" export, a tab-separated file saved as .csv): read with that one
        cells = frame.iloc[:, 0]
        cells = cells[cells != ""]                  # a missing label holds no separator
        for other in "\t;|":
            if other != sep and other in frame.columns[0] and cells.str.contains(
                    other, regex=False).all():
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
            return _missing_labels(frame[label_column]), False
        ids = frame.iloc[:, 0]
        labels = frame[label_column]
    elif frame.shape[1] == 1:
        return _missing_labels(frame.iloc[:, 0]), False
    elif frame.shape[1] == 2:
        ids, labels = frame.iloc[:, 0], frame.iloc[:, 1]
    else:
        pick = ("give label_column= (on the command line --label-column NAME) to pick the "
                "label column" if kind == "label" else "keep only those columns")
        raise ValueError(f"{path}: {frame.shape[1]} columns ({_names(cols, 6)}); expected one "
                         f"column of {kind}s, or two (sample id, {kind}); {pick}")
    # pandas' to_csv of a Series writes its default index 0..n-1 under an empty header: row
    # numbers, not sample ids
    if str(cols[0]).startswith("Unnamed:") and list(ids) == [str(i) for i in range(len(ids))]:
        return _missing_labels(labels.reset_index(drop=True)), False
    ids = ids.astype(str).str.strip()
    if ids.duplicated().any() and frame.shape[1] == 2:
        problem = _swapped_columns_problem(path, ids, labels, kind, x_ids, x_source)
        if problem:
            raise ValueError(problem)
        dup = ids[ids.duplicated()].unique()
        if label_column is None and kind == "label" and (
                x_ids is None or not pd.Index(dup).isin(list(x_ids)).any()):
            # e.g. columns (class, age): the labels repeat, and they are no sample ids of X
            raise ValueError(f"{path}: {len(dup)} duplicated sample id(s): {_names(dup)}; of "
                             f"its two columns the first ({cols[0]}) was taken as the sample "
                             f"ids and the second ({cols[1]}) as the labels: give "
                             f"label_column= (on the command line --label-column NAME) to "
                             f"pick the label column, e.g. label_column={cols[0]!r}")
    labels = _missing_labels(labels)
    out = pd.Series(labels.to_numpy(), index=_sample_index(ids, path), name=labels.name)
    out.attrs.update(labels.attrs)
    return out, True


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
    g, has_ids = _read_labels_file(Path(groups_path), None, None, kind="group",
                                   x_ids=_ids_of(X), x_source=x_source)
    g = align_labels(X, g, has_ids, x_source=x_source, y_source=str(groups_path))
    if g.isna().any():
        missing = [str(i) for i in g.index[g.isna()][:3]]
        texts = g.attrs.get(MISSING_TEXT_ATTR, ())
        read_as = f"; cells {_names(texts)} are read as missing" if texts else ""
        raise ValueError(f"--groups {groups_path}: {int(g.isna().sum())} sample(s) of "
                         f"{x_source} without a group (e.g. {', '.join(missing)}{read_as}); "
                         "give every sample one")
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
    y, has_ids = _read_labels_file(Path(y_path), label_column, sep, x_ids=_ids_of(X),
                                   x_source=x_source)
    if has_ids:
        X = _first_column_as_ids(X, y.index, x_source=x_source, y_source=y_source)
    else:
        _warn_if_numbered_first_column(X, x_source)
    X = orient_by_labels(X, y, has_ids, x_source=x_source, y_source=y_source)
    y = align_labels(X, y, has_ids, x_source=x_source, y_source=y_source)
    warn_of_label_variants(y, y_source, stacklevel=2)
    if y.notna().all():
        warn_if_labels_among_genes(X, y, x_source=x_source, y_source=y_source)
    return X, y


def _first_column_as_ids(X: pd.DataFrame, label_ids, *, x_source: str,
                         y_source: str) -> pd.DataFrame:
    """``X`` with its first column as the sample ids where ``X`` was read without ids and that
    column holds exactly the label file's ids (``label_ids``), as numbers; ``X`` otherwise.

    Numbered samples under a header that names no id ("tumour": 3, 0, 2, ...) were read as a
    gene and the rows numbered 0..n-1, which a label file numbered the same way matched:
    every label on another sample, silently."""
    ids = numbered_first_column(X)
    numbers = pd.to_numeric(pd.Series([str(i) for i in label_ids]), errors="coerce")
    label_numbers = None if numbers.isna().any() else whole_number_ids(numbers)
    if ids is None or label_numbers is None or set(label_numbers) != set(ids):
        return X
    as_written = dict(zip(label_numbers, (str(i) for i in label_ids), strict=True))
    warnings.warn(f"{x_source}: its first column, {X.columns[0]!r}, holds the sample ids of "
                  f"{y_source}: read as sample ids, not as a gene (a header such as 'sample' "
                  "or 'id' says so)", UserWarning, stacklevel=4)
    out = X.iloc[:, 1:].copy()
    out.index = pd.Index([as_written[i] for i in ids], name="sample")   # as the labels write them
    out.attrs[SAMPLE_IDS_ATTR] = True
    return out


def _warn_if_numbered_first_column(X: pd.DataFrame, x_source: str) -> None:
    """Warn where ``X``, read without ids and matched to labels by row order, has a first
    column that numbers its rows (:func:`numbered_first_column`, and the numbers consecutive:
    1..n in some order, or 101..100 + n) while its other values are not all whole numbers:
    numbered samples under a header that names no id ("tumour" 1, 2, 3, ...), read as a
    gene. Such a gene tracks the file's order, often the class order, and was selected first
    without a word. Nothing is said in a matrix of counts (every gene is whole numbers),
    under ten samples (a measured integer, a copy number 0..3, numbers them as well), or for
    numbers with gaps (gene ids of a genes x samples file)."""
    ids = numbered_first_column(X)
    if ids is None or len(ids) < 10:
        return
    numbers = np.sort(np.asarray([int(i) for i in ids]))
    if numbers[-1] - numbers[0] != numbers.size - 1:     # distinct, so consecutive
        return
    rest = X.iloc[:, 1:].to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        if not np.any(np.isfinite(rest) & (rest != np.round(rest))):
            return
    warnings.warn(f"{x_source}: its first column, {X.columns[0]!r}, holds distinct whole "
                  f"numbers ({', '.join(ids[:3])}, ...) where the other columns hold fractions: "
                  f"sample numbers read as a gene? As a gene it follows the file's order, "
                  f"often the class order. If it numbers the samples, name it 'sample' or "
                  f"'id' (or leave its header empty): it is then read as the sample ids",
                  UserWarning, stacklevel=4)


def _ids_of(X: pd.DataFrame) -> set[str]:
    """The names a label file's sample ids may match: ``X``'s row names, or its column names
    when it is genes x samples (transposed later, by :func:`orient_by_labels`)."""
    return {str(i) for i in X.index} | {str(c) for c in X.columns}


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
    # missing values were checked (or let through for dropping) when X was read
    Xt = check_matrix_frame(X.T.rename_axis(index="sample", columns=None), x_source,
                            allow_missing=True)
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
    TypeError
        When ``X`` is not a DataFrame, ``y`` not a Series, or ``has_ids`` not True or False.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"g": [1.0, 2.0]}, index=["s1", "s2"])
    >>> align_labels(X, pd.Series(["b", "a"], index=["s2", "s1"]), True, x_source="X.csv",
    ...              y_source="y.csv").tolist()
    ['a', 'b']
    """
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame (samples x genes, sample ids as the "
                        f"index); got {type(X).__name__}")
    if not isinstance(y, pd.Series):
        raise TypeError(f"y must be a pandas Series of labels (indexed by sample id when "
                        f"has_ids); got {type(y).__name__}")
    has_ids = check_flag(has_ids, "has_ids")
    if not has_ids:
        if _geo_accessions(X.columns) and not _geo_accessions(X.index):
            # labels in row order cannot show the layout (a square file reads either way):
            # the column names can; read as they are, the samples were features
            raise ValueError(f"{x_source}: its column names are GEO sample accessions "
                             f"({_names(X.columns, 3)}): the file looks genes x samples, and "
                             f"selbayes reads samples x genes; {_TRANSPOSE}, or give "
                             f"{y_source} two columns, sample id and label, to have it "
                             f"transposed when read")
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
        out = pd.Series(y.to_numpy(), index=X.index, name=y.name or "class")
        out.attrs.update(y.attrs)         # the reader's notes (cells read as missing)
        return out
    x_ids = pd.Index([str(i) for i in X.index])
    in_columns = y.index.isin([str(c) for c in X.columns])
    if in_columns.all() and not y.index.isin(x_ids).any():
        # e.g. a GEO series matrix, genes in rows (read_xy transposes the exact case itself)
        raise ValueError(f"{x_source} has the sample ids of {y_source} ({_names(y.index, 3)}) "
                         f"as its column names: it is genes x samples, and selbayes reads "
                         f"samples x genes; {_TRANSPOSE}")
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
    out = pd.Series(y.loc[x_ids].to_numpy(), index=X.index, name=y.name or "class")
    out.attrs.update(y.attrs)             # the reader's notes (cells read as missing)
    return out


#: ``DataFrame.attrs`` key set by :func:`read_matrix`: whether the file had sample ids (False:
#: its rows are numbered "0".."n-1"). Frames from elsewhere have ids (their index).
SAMPLE_IDS_ATTR = "selbayes_sample_ids"


def _repeated_probes_problem(exc: _DuplicatedIdsError, x_path: Path, y_path: Path,
                             label_column, sep) -> str | None:
    """What the label file says of X's duplicated "sample ids" (``exc``), or None: where they
    are none of its sample ids and X's column names are, X is genes x samples whose first
    column repeats a gene (its probes), not samples with one id twice."""
    try:
        y, has_ids = _read_labels_file(y_path, label_column, sep, x_ids=set(exc.columns),
                                       x_source=str(x_path))
    except (ValueError, OSError):
        return None                     # the duplicated ids are the problem to name
    in_columns = y.index[y.index.isin(exc.columns)]
    if not has_ids or y.index.isin(exc.ids).any() or len(in_columns) < len(y) / 2:
        return None
    return (f"{x_path}: its first column repeats {_names(exc.ids, 3)}, none of them a sample "
            f"id of {y_path}, while its column names are ({_names(in_columns, 3)}): it is "
            f"genes x samples with a gene's probes in several rows; aggregate the repeated "
            f"probes (e.g. their mean, in pandas X.groupby(level=0).mean()) and transpose it: "
            f"selbayes reads samples x genes")


def read_xy(x_path, y_path, *, label_column: str | None = None, sep: str | None = None,
            drop_missing=False, name: str = "", description: str = "") -> Dataset:
    """Read the common two-file layout: an expression matrix and a label file.

    ``x_path`` is read by :func:`read_matrix` (samples x genes, a header row of gene names,
    optionally sample ids in the first column). ``y_path`` holds either one column of labels,
    taken in the row order of ``x_path``, or two columns, sample id and label, matched to the
    samples of ``x_path`` by id in any order; its header row may be left out (a header that is
    one of the labels is read as the first label); in one column of labels, an empty line
    between labels is a sample without a label. An ``x_path`` of genes x samples (the
    layout of GEO series matrices) is transposed, with a ``UserWarning``, when the label
    file's ids are exactly its column names (and is an error naming the layout where its
    column names are GEO sample accessions and the labels have no ids). A label file with
    ids needs an ``x_path`` with ids (or ids that are its row numbers 0..n-1). With ids, the
    two files must name the same samples: otherwise the error lists a few of the ids that
    differ, so labels are never assigned by row order behind the user's back. A label is
    missing when its cell is empty or one of the markers ``NA``, ``N/A``, ``n/a``, ``#N/A``,
    ``NaN``, ``nan``, ``<NA>``, ``NULL``, ``null`` (the message quotes those it met); ``None``
    is a class. Class names that differ only in case, and labels that mix numbers and words
    (0, 1 and ``normal``), stay different classes, with a ``UserWarning``.

    Parameters
    ----------
    x_path, y_path : path-like
        The two files (``.csv``, ``.tsv``, ``.tab`` or ``.txt``, optionally compressed).
    label_column : str, optional
        The label column of ``y_path`` when it has more than two; the first column then holds
        the sample ids (unless it is the label column itself).
    sep : str, optional
        Column separator of both files; by default from each file's extension (or sniffed).
    drop_missing : {False, "genes", "samples"}
        As in :func:`read_table`: False (default), missing values or labels are an error;
        "genes" drops the genes with a missing value; "samples" the samples with a missing
        value or label. What was dropped is in ``Dataset.dropped`` and a ``UserWarning``.
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
        When a file does not exist or is a folder.
    ValueError
        Sample ids that differ between the files, label counts that differ, duplicated ids or
        gene names, missing (unless dropped) or infinite values (genes named), missing labels
        (unless dropped), fewer than two classes or a class with one sample; an empty,
        non-UTF-8 or damaged file; an unknown ``drop_missing``, a ``sep`` of more than one
        character.
    TypeError
        Non-numeric gene columns; an ``x_path`` or ``y_path`` that is not a path, a
        ``label_column``, ``sep``, ``name`` or ``description`` that is not a str.

    Examples
    --------
    >>> ds = read_xy("X.csv", "y.csv")                                  # doctest: +SKIP
    >>> ds.X.shape, ds.y.value_counts().to_dict()                       # doctest: +SKIP
    """
    x_path, y_path = check_path(x_path, "x_path"), check_path(y_path, "y_path")
    _check_text(label_column, "label_column", optional=True)
    sep = _check_sep(sep)
    _check_drop(drop_missing)
    _check_text(name, "name")
    _check_text(description, "description")
    try:
        X = read_matrix(x_path, sep=sep, allow_missing=True)  # _validated names them, or drops
    except _DuplicatedIdsError as exc:
        problem = _repeated_probes_problem(exc, x_path, y_path, label_column, sep)
        if problem:
            raise ValueError(problem) from None
        raise
    X, y = labels_for_matrix(X, y_path, label_column=label_column, sep=sep,
                             x_source=str(x_path))
    y = y.astype(object).where(y.notna(), None)
    return _validated(X, y, drop_missing=drop_missing, source=str(x_path),
                      label_source=str(y_path),
                      name=name or x_path.name,
                      description=description or f"Read from {x_path} and {y_path}.")
